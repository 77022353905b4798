"""Deadlock toolkit: CDG construction (reachable-state search) and Duato's extended CDG on 2D tori."""

from __future__ import annotations

import time

from torus_lab.deadlock import cdg_verdict, duato_check
from torus_lab.routing import make_routing
from torus_lab.topology import Torus

#: PFNF (REC) with the paper's virtual-mesh mapping (routing registry spec).
PFNF_PAPER = {"name": "pfnf", "scheme": "paper"}


def run() -> None:
    cdg_verdict(make_routing(PFNF_PAPER, Torus(2, 4)))  # compile / load the cached search
    for k in (8, 10):
        rf = make_routing(PFNF_PAPER, Torus(2, k))
        start = time.perf_counter()
        res = cdg_verdict(rf)
        elapsed = time.perf_counter() - start
        print(f"PFNF paper mapping, {k}x{k} torus: CDG {res.num_vertices} VCs, {res.num_edges} dependencies, "
              f"verdict {'acyclic' if res.acyclic else 'cyclic'} in {elapsed:.2f} s")
    rf = make_routing({"name": "duato"}, Torus(2, 8))
    start = time.perf_counter()
    res = duato_check(rf, list(rf.options["escape_vcs"]))
    print(f"Duato design, 8x8 torus: extended CDG {res.num_edges} dependencies, deadlock-free={res.deadlock_free} "
          f"in {time.perf_counter() - start:.2f} s")
