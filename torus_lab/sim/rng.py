"""The simulator's compiled random stream: SplitMix64 on a one-word state, and draws built on it.

One stream per run, seeded from the run's :class:`numpy.random.SeedSequence` (see
:func:`torus_lab.sim.simulate`); every random choice of the cycle loop (injection, destinations, random routing
words) is drawn from it in a fixed order, so a run is seed-deterministic.

Examples
--------
>>> import numpy as np
>>> state = np.array([7], dtype=np.uint64)
>>> 0.0 <= rand01(state) < 1.0, 0 <= randint(state, 5) < 5
(True, True)
"""

from __future__ import annotations

import numpy as np

from torus_lab._jit import njit

__all__ = ["splitmix_next", "rand01", "randint", "GAMMA", "splitmix_mix", "unit_float"]

#: SplitMix64's increment of the state word per draw.
GAMMA = np.uint64(0x9E3779B97F4A7C15)


@njit(inline="always")
def splitmix_mix(word):
    """SplitMix64's output for the state word ``word`` (after its increment by :data:`GAMMA`); a uint64.

    A loop that draws many numbers can keep the word in a local variable (``word += GAMMA``, then this) and
    store it back before anything else draws: the same stream as :func:`splitmix_next`.

    >>> word = np.uint64(7) + GAMMA
    >>> int(splitmix_mix(word)) == int(splitmix_next(np.array([7], dtype=np.uint64)))
    True
    """
    z = word
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit
def splitmix_next(rng):
    """SplitMix64 step on the one-word state ``rng`` (uint64[1]); returns a uint64."""
    rng[0] = rng[0] + GAMMA
    return splitmix_mix(rng[0])


@njit(inline="always")
def unit_float(z):
    """The float in [0, 1) made of the top 53 bits of the uint64 draw ``z`` (what :func:`rand01` returns)."""
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def rand01(rng):
    """A float in [0, 1) with 53 random bits."""
    return unit_float(splitmix_next(rng))


@njit
def randint(rng, m):
    """An int in ``range(m)`` (``m >= 1``)."""
    return np.int64(splitmix_next(rng) % np.uint64(m))
