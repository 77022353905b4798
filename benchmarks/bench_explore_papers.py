"""The paper explorers: how long one change takes to be recomputed and redrawn (target: < 1 s).

Each change is timed from the control's new value to the end of the canvas's render (``canvas.draw()``: the Agg
image ipympl sends to the page), after a first warm-up explorer has compiled (or loaded) every kernel.

* disjoint paths, a (2, 8)-torus with c = 2 (three drawings): new random pairs (a seed), a clicked pair end,
  ``choose_T``, a new radix (the three networks redrawn); a (4, 5)-torus with c = 4 (the table; the integer
  programme asked for the optimum);
* loads, a 16 x 16 torus (1024 links coloured one by one): routing, tie rule, placement, radix; a T_3^12 class map.

Wall time is the target; CPU time is printed beside it, with the load average, since a busy machine stretches the
wall.
"""

from __future__ import annotations

import os

from benchmarks.bench_explore import timed
from torus_lab.explore import disjoint_paths_explorer, loads_explorer

#: Seconds a change may take to be redrawn.
TARGET_S = 1.0


def _disjoint() -> list[tuple[str, tuple[float, float]]]:
    warm = disjoint_paths_explorer(n=3, k=5, c=3)  # compile or load what the explorer runs
    warm.close()
    timings = []
    explorer = disjoint_paths_explorer(n=2, k=8, c=2, seed=1)
    explorer.figure.canvas.draw()
    timings.append(("(2,8), c=2: seed -> new random pairs", timed(explorer, lambda: setattr(explorer.seed, "value",
                                                                                          5))))  # fmt: skip
    timings.append(("(2,8), c=2: click a pair end (3, 3)", timed(explorer, lambda: explorer.click_node((3, 3)))))
    timings.append(("(2,8), c=2: choose_T -> short", timed(explorer, lambda: setattr(explorer.choose_T, "value",
                                                                                   "short"))))  # fmt: skip
    timings.append(("(2,8) -> (2,9): three networks redrawn", timed(explorer, lambda: setattr(explorer.k, "value",
                                                                                            9))))  # fmt: skip
    explorer.close()
    explorer = disjoint_paths_explorer(n=4, k=5, c=4, seed=1)
    timings.append(("(4,5), c=4 (table, optimum): seed", timed(explorer, lambda: setattr(explorer.seed, "value",
                                                                                       2))))  # fmt: skip
    explorer.close()
    return [(f"disjoint paths {what}", t) for what, t in timings]


def _loads() -> list[tuple[str, tuple[float, float]]]:
    warm = loads_explorer(d=2, k=4)
    for routing in ("udr", "shortest"):
        warm.routing.value = routing
    warm.d.value = 3
    warm.close()
    timings = []
    explorer = loads_explorer(d=2, k=16, routing="odr")
    explorer.figure.canvas.draw()
    timings.append(("T_2^16: routing ODR -> UDR", timed(explorer, lambda: setattr(explorer.routing, "value", "udr"))))
    timings.append(("T_2^16: tie + -> both", timed(explorer, lambda: setattr(explorer.tie, "value", "both"))))
    timings.append(("T_2^16: multiple linear placement, t = 2", timed(explorer, lambda: setattr(
        explorer.placement, "value", "multiple_linear"))))  # fmt: skip
    timings.append(("T_2^16 -> T_2^15", timed(explorer, lambda: setattr(explorer.k, "value", 15))))
    explorer.close()
    explorer = loads_explorer(d=3, k=12, routing="odr")
    timings.append(("T_3^12 (class map): routing ODR -> UDR", timed(explorer, lambda: setattr(
        explorer.routing, "value", "udr"))))  # fmt: skip
    explorer.close()
    return [(f"loads {what}", t) for what, t in timings]


def run() -> None:
    timings = _disjoint() + _loads()
    for what, (wall, cpu) in timings:
        print(f"{what:62s} redrawn in {wall:.2f} s wall, {cpu:.2f} s CPU  (target < {TARGET_S:.0f} s)")
    for name in ("disjoint paths", "loads"):
        mine = [(wall, cpu) for what, (wall, cpu) in timings if what.startswith(name)]
        worst, worst_cpu = max(w for w, _ in mine), max(c for _, c in mine)
        verdict = "meets" if worst < TARGET_S else "MISSES"
        print(f"{name} explorer: slowest change redrawn in {worst:.2f} s wall ({worst_cpu:.2f} s CPU), {verdict} the "
              f"{TARGET_S:.0f} s target (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
