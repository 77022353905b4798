"""Traffic patterns for the wormhole simulator: uniform random, transpose, bit-complement, hotspot.

Every node that is not faulty generates packets by a Bernoulli process (probability
``offered_load / packet_length`` per cycle, ``offered_load`` in flits/node/cycle).  Destinations:

* ``"uniform"``: uniformly random among the other non-faulty nodes;
* ``"transpose"``: coordinates reversed, ``(x_0, ..., x_{n-1}) -> (x_{n-1}, ..., x_0)`` (2D: ``(x, y) -> (y, x)``;
  needs equal radices);
* ``"bit-complement"``: ``x_i -> k_i - 1 - x_i`` (on a hypercube, every bit flipped);
* ``"hotspot"``: with probability ``hotspot_fraction`` the hotspot node, otherwise uniform.

For the permutation patterns a node whose image is itself or a faulty node generates no traffic
(documented choice; BookSim would send to itself).

Examples
--------
>>> from torus_lab.topology import Torus
>>> t = Torus(2, 4)
>>> int(destination_map(t, "transpose")[t.node_id((1, 2))]) == t.node_id((2, 1))
True
"""

from __future__ import annotations

import numpy as np

from torus_lab._validate import check_instance, check_str
from torus_lab.topology import Faults, Torus

__all__ = ["PATTERNS", "pattern_code", "destination_map"]

#: Traffic pattern names and their kernel codes (0 uniform, 1 fixed map, 2 hotspot).
PATTERNS = {"uniform": 0, "transpose": 1, "bit-complement": 1, "hotspot": 2}


def pattern_code(traffic: str) -> int:
    """Kernel code of a pattern name; ValueError for an unknown name."""
    check_str("traffic", traffic, sorted(PATTERNS))
    return PATTERNS[traffic]


def destination_map(topology: Torus, traffic: str, faults: Faults | None = None) -> np.ndarray:
    """Destination node id of every source for a permutation pattern (-1: the node sends nothing).

    Uniform and hotspot patterns return all -1 (their destinations are random).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> destination_map(Torus(3, 2), "bit-complement").tolist()
    [7, 6, 5, 4, 3, 2, 1, 0]
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if faults is not None:
        check_instance("faults", faults, Faults).validate(topology)
    code = pattern_code(traffic)
    out = np.full(topology.num_nodes, -1, dtype=np.int64)
    if code != 1:
        return out
    coords = topology.all_coords()
    radices = np.asarray(topology.radices)
    if traffic == "transpose":
        if len(set(topology.radices)) != 1:
            raise ValueError(f"transpose needs equal radices, got {topology.radices}")
        image = coords[:, ::-1]
    else:
        image = radices - 1 - coords
    out = np.asarray(image @ topology.strides, dtype=np.int64)
    bad = faults.node_mask(topology) if faults is not None else np.zeros(topology.num_nodes, dtype=bool)
    out[(out == np.arange(topology.num_nodes)) | bad[out] | bad] = -1
    return out
