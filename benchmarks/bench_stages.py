"""Where the BookSim-compatible model's time goes, stage by stage, on the 32-ary 3-cube (32,768 routers): the figures
behind the note on running one simulation on several cores (docs/clusters.md, One large simulation).

The stages of :func:`torus_lab.sim.booksim.run_booksim` run in its order in a copy of its cycle loop that reads the
process's CPU time between stages (numba's object mode, a few microseconds per reading, against milliseconds per
stage on this network; CPU time, not wall time, so that a machine shared with other jobs does not charge their
time to whichever stage was running), at a low and a high offered load: e-cube with datelines, 2 VCs, 4-flit
packets, uniform traffic.  Each stage is classed by what a multi-core version would need to keep the run identical
to one core: per node (injection), per block with a prefix sum (the listing of ready VCs), per head with a prefix
count of the random draws (routing), per router (both allocators), two phases (traversal: pop and send, then
receive), or serial (generation: one random stream drawn node after node).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from torus_lab.routing.ecube import ecube_routing
from torus_lab.routing.interface import compile_for_kernel, kernel_handle
from torus_lab.sim import SimConfig, booksim
from torus_lab.sim.packets import CN_NOW, watch_progress
from torus_lab.topology import Torus

STAGES = ("generate", "inject", "list_ready", "route", "allocate_vcs", "allocate_switch", "traverse")
#: how a multi-core version could run each stage with results identical to one core
PLAN = {"generate": "serial (one random stream, node after node)", "inject": "per node",
        "list_ready": "per block + prefix sum", "route": "per head + prefix sum of draws",
        "allocate_vcs": "per router", "allocate_switch": "per router", "traverse": "two phases"}  # fmt: skip


@numba.njit
def _clock():
    with numba.objmode(t="float64"):
        t = time.process_time()
    return t


@numba.njit  # numba's own: compiled afresh per process (object-mode clock readings are not cached)
def _timed_cycles(route, tables, st, cycles, spent):
    """:func:`torus_lab.sim.booksim.run_booksim`'s stages for ``cycles`` cycles, adding each stage's seconds to
    ``spent`` (in :data:`STAGES` order)."""
    counters = st.counters
    for _ in range(cycles):
        now = counters[CN_NOW]
        t0 = _clock()
        booksim.generate_packets(st, now)
        t1 = _clock()
        moved = booksim.inject_flits(st, now)
        t2 = _clock()
        booksim.list_ready(st, now)
        t3 = _clock()
        booksim.route_heads(route, tables, st, now)
        t4 = _clock()
        booksim.allocate_vcs(route, tables, st, now)
        t5 = _clock()
        moved += booksim.allocate_switch(st, now)
        t6 = _clock()
        booksim.traverse_switch(st, now)
        t7 = _clock()
        watch_progress(st, moved, 10**9)
        counters[CN_NOW] = now + 1
        spent[0] += t1 - t0
        spent[1] += t2 - t1
        spent[2] += t3 - t2
        spent[3] += t4 - t3
        spent[4] += t5 - t4
        spent[5] += t6 - t5
        spent[6] += t7 - t6


CYCLES, WARM = 200, 150


def stage_shares(load: float, cycles: int = CYCLES, warm: int = WARM, topology: Torus | None = None) -> np.ndarray:
    """CPU seconds per stage (:data:`STAGES`) over ``cycles`` cycles after ``warm`` cycles of warm-up at ``load``."""
    topology = Torus(3, 32) if topology is None else topology
    routing = ecube_routing(topology, datelines=True, vcs=2)
    config = SimConfig.preset("booksim", packet_length=4, offered_load=load, warmup=10**6, measure=10**6,
                              drain=0, queue_capacity=64)  # fmt: skip
    st = booksim.state_for(routing, config)  # the full pool of 64-packet queues: it never runs dry
    spent = np.zeros(len(STAGES))
    args = (kernel_handle(routing.kernel), routing.tables, st, warm, spent)
    runner = compile_for_kernel(_timed_cycles, args)
    runner(*args)
    spent[:] = 0
    runner(kernel_handle(routing.kernel), routing.tables, st, cycles, spent)
    return spent


def run() -> None:
    for load in (0.05, 0.2):
        start = time.perf_counter()
        spent = stage_shares(load)
        total = spent.sum()
        print(f"32-ary 3-cube, booksim model, e-cube, offered {load}: {total / CYCLES * 1e3:.1f} ms of CPU per cycle "
              f"(stages timed over {CYCLES} cycles after {WARM}; {time.perf_counter() - start:.0f} s with warm-up and "
              f"compilation)",
              flush=True)  # fmt: skip
        for name, seconds in zip(STAGES, spent, strict=True):
            print(f"    {name:16s} {seconds / total:6.1%}   {PLAN[name]}", flush=True)
        serial = spent[STAGES.index("generate")] / total
        print(f"    serial share {serial:.1%}: at most {1 / (serial + (1 - serial) / 2):.2f}x on 2 cores "
              f"(Amdahl), before the cost of the two-phase traversal and the prefix sums", flush=True)  # fmt: skip
