"""Traffic for the wormhole simulator: when a node starts a packet, and to whom.

Injection processes (:data:`INJECTIONS`; ``offered_load`` in flits/node/cycle, ``p = offered_load /
packet_length`` packets/node/cycle on average)

* ``"bernoulli"``: every cycle, every non-faulty node starts a packet with probability ``p``;
* ``"on-off"`` (bursty): every node is a two-state Markov chain, evaluated once per cycle before the packet
  draw: an *off* node turns on with probability ``burst_alpha``, an *on* node turns off with probability
  ``burst_beta``; only an *on* node starts packets, with probability ``p (burst_alpha + burst_beta) /
  burst_alpha`` per cycle, so the long-run rate is still ``p``.  Bursts last ``1 / burst_beta`` cycles on
  average; each node starts in its stationary state (on with probability ``burst_alpha / (burst_alpha +
  burst_beta)``), drawn from the run's seed.  The packet probability while on must not exceed 1.

Destinations, with node
coordinates ``(x_0, ..., x_{n-1})`` (``x_0`` the least significant digit of the node id, see
:class:`torus_lab.topology.Torus`) and radices ``k_i``:

Random patterns (a new destination per packet)

* ``"uniform"``: uniformly random among the other non-faulty nodes (among all of them, the source included,
  with ``SimConfig(uniform_includes_source=True)``, BookSim2's uniform);
* ``"hotspot"``: with probability ``hotspot_fraction`` the hotspot node, otherwise uniform;
* ``"asymmetric"`` (BookSim2's): node ids split into halves ``[0, N/2)`` and ``[N/2, N)``; a packet goes to the
  node's partner ``(id + N/2) mod N`` or to the node itself, each with probability 1/2.  Needs an even ``N``.
  Self-addressed packets exist only with ``SimConfig.uniform_includes_source``; without it every packet goes to
  the partner (the pattern is then the fixed permutation ``id -> id + N/2 mod N``).  A node whose partner is
  faulty sends nothing.

Permutations (a fixed destination per source, :func:`destination_map`)

* ``"transpose"``: coordinates reversed, ``(x_0, ..., x_{n-1}) -> (x_{n-1}, ..., x_0)``; needs equal radices.
  On a 2D torus with ``k`` a power of two this is the usual "swap the two halves of the address bits";
* ``"bit-complement"``: ``x_i -> k_i - 1 - x_i`` (when every ``k_i`` is a power of two: every address bit
  flipped);
* ``"bit-reverse"``: the node id's ``log2 N`` address bits in reverse order; needs ``N`` a power of two;
* ``"shuffle"``: the node id's address bits rotated left by one (perfect shuffle); needs ``N`` a power of two;
* ``"tornado"``: ``x_i -> (x_i + ceil(k_i / 2) - 1) mod k_i`` in every dimension (Dally & Towles' tornado:
  each packet goes almost half way round every ring, all in the same direction);
* ``"neighbor"``: ``x_i -> (x_i + 1) mod k_i`` in every dimension;
* ``"random-permutation"``: a uniformly random permutation of the non-faulty nodes, drawn once per run from
  the run's seed.

For the permutation patterns a node whose image is itself or a faulty node generates no traffic (a documented
choice of this project; BookSim2 would send to itself, or to the faulty node).

Examples
--------
>>> from torus_lab.topology import Torus
>>> t = Torus(2, 4)
>>> int(destination_map(t, "transpose")[t.node_id((1, 2))]) == t.node_id((2, 1))
True
>>> t.coords(int(destination_map(t, "tornado")[t.node_id((0, 3))]))
(1, 0)
"""

from __future__ import annotations

import numpy as np

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_str
from torus_lab.sim.rng import rand01, randint
from torus_lab.topology import Faults, Torus

__all__ = [
    "PATTERNS",
    "PERMUTATIONS",
    "INJECTIONS",
    "pattern_code",
    "destination_map",
    "draw_destination",
    "starts_packet",
]

#: Injection processes and their kernel codes.
INJECTIONS = {"bernoulli": 0, "on-off": 1}

#: Traffic pattern names and their kernel codes (0 uniform, 1 fixed map, 2 hotspot, 3 asymmetric).
PATTERNS = {
    "uniform": 0,
    "transpose": 1,
    "bit-complement": 1,
    "bit-reverse": 1,
    "shuffle": 1,
    "tornado": 1,
    "neighbor": 1,
    "random-permutation": 1,
    "hotspot": 2,
    "asymmetric": 3,
}
#: The permutation patterns (a fixed destination per source).
PERMUTATIONS = tuple(name for name, code in PATTERNS.items() if code == 1)


def pattern_code(traffic: str) -> int:
    """Kernel code of a pattern name; ValueError for an unknown name.

    Examples
    --------
    >>> pattern_code("uniform"), pattern_code("shuffle"), pattern_code("hotspot")
    (0, 1, 2)
    """
    check_str("traffic", traffic, sorted(PATTERNS))
    return PATTERNS[traffic]


def _address_bits(topology: Torus, traffic: str) -> int:
    """``log2`` of the node count; ValueError naming the pattern when it is not a power of two."""
    count = topology.num_nodes
    if count & (count - 1):
        raise ValueError(f"traffic {traffic!r} needs a power-of-two number of nodes, got {count} ({topology})")
    return count.bit_length() - 1


def _bit_reverse(ids: np.ndarray, bits: int) -> np.ndarray:
    out = np.zeros_like(ids)
    for b in range(bits):
        out |= ((ids >> b) & 1) << (bits - 1 - b)
    return out


def _shuffle(ids: np.ndarray, bits: int) -> np.ndarray:
    if bits == 0:
        return ids.copy()
    return ((ids << 1) & ((1 << bits) - 1)) | ((ids >> (bits - 1)) & 1)


def _image(topology: Torus, traffic: str, active: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """The destination of every node under ``traffic`` (before removing fixed points and faulty nodes)."""
    ids = np.arange(topology.num_nodes, dtype=np.int64)
    coords = topology.all_coords()
    radices = np.asarray(topology.radices, dtype=np.int64)
    if traffic == "transpose":
        if len(set(topology.radices)) != 1:
            raise ValueError(f"traffic 'transpose' needs equal radices, got {topology.radices}")
        return coords[:, ::-1] @ topology.strides
    if traffic == "bit-complement":
        return (radices - 1 - coords) @ topology.strides
    if traffic == "tornado":
        return ((coords + (radices + 1) // 2 - 1) % radices) @ topology.strides
    if traffic == "neighbor":
        return ((coords + 1) % radices) @ topology.strides
    if traffic == "bit-reverse":
        return _bit_reverse(ids, _address_bits(topology, traffic))
    if traffic == "shuffle":
        return _shuffle(ids, _address_bits(topology, traffic))
    # random-permutation: a permutation of the non-faulty nodes
    if rng is None:
        raise ValueError("traffic 'random-permutation' needs rng (a numpy Generator), got None")
    out = ids.copy()
    out[active] = rng.permutation(active)
    return out


def destination_map(
    topology: Torus, traffic: str, faults: Faults | None = None, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Destination node id of every source for a permutation pattern (-1: the node sends nothing).

    Uniform and hotspot patterns return all -1 (their destinations are random); ``"asymmetric"`` returns each
    node's partner ``(id + N/2) mod N`` (the pattern's destination other than the node itself).  ``rng`` draws the
    ``"random-permutation"`` pattern (the simulator passes one derived from the run's seed) and is not used by
    the others.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> destination_map(Torus(3, 2), "bit-complement").tolist()
    [7, 6, 5, 4, 3, 2, 1, 0]
    >>> destination_map(Torus(3, 2), "shuffle").tolist()   # 0 and 7 are fixed points: they send nothing
    [-1, 2, 4, 6, 1, 3, 5, -1]
    >>> destination_map(Torus(3, 2), "asymmetric").tolist()
    [4, 5, 6, 7, 0, 1, 2, 3]
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if faults is not None:
        check_instance("faults", faults, Faults).validate(topology)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    code = pattern_code(traffic)
    out = np.full(topology.num_nodes, -1, dtype=np.int64)
    if code in (0, 2):
        return out
    bad = faults.node_mask(topology) if faults is not None else np.zeros(topology.num_nodes, dtype=bool)
    active = np.flatnonzero(~bad).astype(np.int64)
    if code == 3:
        if topology.num_nodes % 2:
            raise ValueError(f"traffic 'asymmetric' needs an even number of nodes, got {topology.num_nodes}")
        out = (np.arange(topology.num_nodes, dtype=np.int64) + topology.num_nodes // 2) % topology.num_nodes
    else:
        out = np.asarray(_image(topology, traffic, active, rng), dtype=np.int64)
    out[(out == np.arange(topology.num_nodes)) | bad[out] | bad] = -1
    return out


@njit
def draw_destination(pattern, node, active, dest_map, hotspot, hotspot_frac, include_self, rng):
    """Destination of a packet ``node`` starts (-1: none), for the kernel ``pattern`` code of :data:`PATTERNS`.

    Uniform: uniform over the other ``active`` (non-faulty) nodes, or over all of them, ``node`` included, when
    ``include_self`` (BookSim2's uniform, ``SimConfig.uniform_includes_source``); permutation: ``dest_map[node]``;
    asymmetric: the partner ``dest_map[node]``, or with ``include_self`` the node itself half of the time;
    hotspot: the hotspot node with probability ``hotspot_frac`` (when it is not ``node``), otherwise uniform.
    Draws from the simulator's stream ``rng`` (:mod:`torus_lab.sim.rng`).

    Examples
    --------
    >>> import numpy as np
    >>> active, rng = np.arange(4, dtype=np.int64), np.array([3], dtype=np.uint64)
    >>> int(draw_destination(1, 2, active, np.array([1, 0, 3, 2], dtype=np.int64), 0, 0.0, False, rng))
    3
    """
    if pattern == 1:
        return dest_map[node]
    if pattern == 3:
        if dest_map[node] >= 0 and include_self and randint(rng, 2) == 0:
            return node
        return dest_map[node]
    nactive = active.shape[0]
    if pattern == 2 and rand01(rng) < hotspot_frac and hotspot != node:
        return hotspot
    if include_self:
        return active[randint(rng, nactive)]
    dst = node
    while dst == node:
        dst = active[randint(rng, nactive)]
    return dst


@njit
def starts_packet(process, rates, burst_on, node, rng):
    """Whether ``node`` starts a packet this cycle under injection ``process`` (a code of :data:`INJECTIONS`).

    ``rates`` holds ``(packet probability per cycle while on, burst_alpha, burst_beta)``; ``burst_on[node]``
    is the node's on-off state, updated here (on-off only).  Bernoulli draws one number per call.

    Examples
    --------
    >>> import numpy as np
    >>> rates, on, rng = np.array([1.0, 0.5, 0.5]), np.zeros(1, dtype=np.uint8), np.array([1], dtype=np.uint64)
    >>> bool(starts_packet(0, rates, on, 0, rng))   # Bernoulli with probability 1
    True
    """
    if process == 1:
        if burst_on[node]:
            if rand01(rng) < rates[2]:
                burst_on[node] = 0
        elif rand01(rng) < rates[1]:
            burst_on[node] = 1
        if not burst_on[node]:
            return False
    return rand01(rng) < rates[0]
