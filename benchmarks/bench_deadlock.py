"""Deadlock toolkit: CDG construction (reachable-state search) and Duato's extended CDG on 2D tori."""

from __future__ import annotations

import time

from torus_lab.deadlock import cdg_verdict, duato_check
from torus_lab.routing.turn_model import duato_routing, pfnf_routing
from torus_lab.topology import Torus


def run() -> None:
    cdg_verdict(pfnf_routing(Torus(2, 4), scheme="paper"))  # compile / load the cached search
    for k in (8, 10):
        rf = pfnf_routing(Torus(2, k), scheme="paper")
        start = time.perf_counter()
        res = cdg_verdict(rf)
        elapsed = time.perf_counter() - start
        print(f"PFNF paper mapping, {k}x{k} torus: CDG {res.num_vertices} VCs, {res.num_edges} dependencies, "
              f"verdict {'acyclic' if res.acyclic else 'cyclic'} in {elapsed:.2f} s")
    rf = duato_routing(Torus(2, 8))
    start = time.perf_counter()
    res = duato_check(rf, [0, 1])
    print(f"Duato design, 8x8 torus: extended CDG {res.num_edges} dependencies, deadlock-free={res.deadlock_free} "
          f"in {time.perf_counter() - start:.2f} s")
