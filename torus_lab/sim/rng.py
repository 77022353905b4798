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

__all__ = ["splitmix_next", "rand01", "randint"]


@njit
def splitmix_next(rng):
    """SplitMix64 step on the one-word state ``rng`` (uint64[1]); returns a uint64."""
    rng[0] = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit
def rand01(rng):
    """A float in [0, 1) with 53 random bits."""
    return np.float64(splitmix_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def randint(rng, m):
    """An int in ``range(m)`` (``m >= 1``)."""
    return np.int64(splitmix_next(rng) % np.uint64(m))
