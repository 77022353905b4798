"""Routing explorer: how long one change on an 8x8 torus takes to be recomputed and redrawn (target: < 1 s).

Each routing is first shown once on a 4x4 torus (compiling, or loading from the disk cache, its kernels and the
CDG search); then, on an 8x8 torus, every change is timed from the control's new value to the end of the
canvas's render (``canvas.draw()``: the Agg image ipympl sends to the page): a routing never analysed on 8x8
(its CDG verdict and, for duato, Duato's check are computed), an option, a clicked source and destination.  Wall
time is the target; CPU time is printed beside it, with the load average, since a busy machine stretches the wall.
"""

from __future__ import annotations

import os
import time

from torus_lab.explore import routing_explorer

#: Seconds a change may take to be redrawn.
TARGET_S = 1.0
ROUTINGS = ("ecube", "west-first", "direction-first", "duato", "pfnf", "turn-model")


def timed(explorer, change) -> tuple[float, float]:
    """Wall and CPU seconds of ``change`` and the render that follows (every explorer bench times with it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    change()
    explorer.figure.canvas.draw()
    assert explorer.error == "", explorer.error
    return time.perf_counter() - wall, time.process_time() - cpu


def run() -> None:
    warm = routing_explorer(k=4)
    for name in ROUTINGS:  # compile (or load) every kernel the explorer runs
        warm.routing.value = name
    warm.close()
    explorer = routing_explorer(k=8, destination=(5, 3))
    explorer.figure.canvas.draw()
    timings = []
    for name in ROUTINGS[1:] + ROUTINGS[:1]:
        timings.append((f"routing -> {name}", timed(explorer, lambda name=name: setattr(explorer.routing, "value",
                                                                                           name))))  # fmt: skip
    timings.append(("options vcs 2, datelines (2 redraws)", timed(explorer, lambda: (explorer.set_option("vcs", 2),
                                                                            explorer.set_option("datelines", True)))))
    timings.append(("click: source (6, 6)", timed(explorer, lambda: explorer.click_node((6, 6)))))
    timings.append(("click: destination (1, 2)", timed(explorer, lambda: explorer.click_node((1, 2)))))
    explorer.close()
    for what, (wall, cpu) in timings:
        print(f"routing explorer, 8x8 torus, {what:38s} redrawn in {wall:.2f} s wall, {cpu:.2f} s CPU  "
              f"(target < {TARGET_S:.0f} s)")
    worst = max(wall for _, (wall, _) in timings)
    worst_cpu = max(cpu for _, (_, cpu) in timings)
    verdict = "meets" if worst < TARGET_S else "MISSES"
    print(f"routing explorer, 8x8 torus: slowest change redrawn in {worst:.2f} s wall ({worst_cpu:.2f} s CPU), "
          f"{verdict} the {TARGET_S:.0f} s target (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
