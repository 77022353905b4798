"""The latency explorer's first point: 8 loads x 1 seed on an 8x8 torus, the time from pressing *Run* to the
figure showing its first point, once the simulator is compiled.

A first run compiles (and starts the sweep's worker pool); the second, with another seed and the sweep cache
off so that nothing is read back, is timed: wall seconds from :meth:`LatencyExplorer.run` until the widget's
image holds a figure, then until the last point.  The explorer's default backend (local worker processes, a
batch per worker) is used, as in a notebook.
"""

from __future__ import annotations

import os
import time

from torus_lab.explore.latency import LatencyExplorer, LatencyQuery

#: Target: wall seconds from Run to the first point drawn, after the first compile.
FIRST_POINT_TARGET_S = 5.0
LOADS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)
POLL_S = 0.01


def _timed_run(seed: int) -> tuple[float, float, int]:
    """(seconds to the first point drawn, seconds to the end, points) of one explorer run."""
    query = LatencyQuery(routings=("duato",), n=2, k=8, loads=LOADS, seeds=1, seed=seed)
    explorer = LatencyExplorer(query)
    start = time.perf_counter()
    run = explorer.run()
    assert run is not None, explorer.status.value
    while not explorer.image.value and run.state == "running":
        time.sleep(POLL_S)
    first = time.perf_counter() - start
    run.wait()
    if run.state != "done":
        raise RuntimeError(f"explorer run ended {run.state}: {run.error}")
    return first, time.perf_counter() - start, run.done


def run() -> None:
    before = os.environ.get("TORUS_LAB_CACHE")
    os.environ["TORUS_LAB_CACHE"] = "off"  # time simulations, not cache reads
    try:
        first, total, points = _timed_run(seed=1)
        print(f"first run (compiles, starts workers): first point {first:.2f} s, {points} points in {total:.1f} s")
        first, total, points = _timed_run(seed=2)
        verdict = "ok" if first <= FIRST_POINT_TARGET_S else "SLOW"
        print(f"latency explorer, 8 loads x 1 seed, 8x8 torus: first point drawn after {first:.2f} s "
              f"(target <= {FIRST_POINT_TARGET_S:g} s) [{verdict}]; {points} points in {total:.1f} s")
    finally:
        if before is None:
            os.environ.pop("TORUS_LAB_CACHE", None)
        else:
            os.environ["TORUS_LAB_CACHE"] = before


if __name__ == "__main__":
    run()
