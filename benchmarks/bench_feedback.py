"""Fast feedback for a developer: collecting the tests, importing each module warm, and (``FEEDBACK_FULL=1``) the
CPU time of the whole test suite, each beside its target.

Every figure is measured in a fresh interpreter (``sys.executable``), after one untimed warm-up that fills the
bytecode and numba caches.  The figure held against a target is CPU time (the child processes' user + system
time, ``resource``): a busy machine (other jobs on the two cores) stretches wall time, not CPU time; wall time
is printed beside it.
"""

from __future__ import annotations

import os
import pkgutil
import resource
import subprocess
import sys
import time
from pathlib import Path

import torus_lab

ROOT = Path(__file__).resolve().parents[1]
#: Targets: collecting the tests (wall s), importing any one module warm (wall s), the suite (CPU minutes).
COLLECT_TARGET_S = 15.0
IMPORT_TARGET_S = 2.0
SUITE_TARGET_CPU_MIN = 8.0


def _timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, children's CPU s, result) of ``command`` run from the project root."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def _modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(torus_lab.__path__, "torus_lab."))


def run() -> None:
    python = sys.executable
    _timed([python, "-m", "pytest", "--collect-only", "-q"])  # warm-up
    wall, cpu, done = _timed([python, "-m", "pytest", "--collect-only", "-q"])
    counted = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-200:]
    print(f"collecting the tests: {cpu:.1f} s CPU (target <= {COLLECT_TARGET_S:g} s), {wall:.1f} s wall: {counted}")
    slowest = []
    modules = _modules()
    _timed([python, "-c", "; ".join(f"import {module}" for module in modules)])  # warm-up: every cache
    for module in modules:
        wall, cpu, done = _timed([python, "-c", f"import {module}"])
        if done.returncode != 0:
            print(f"  import {module} failed: {done.stderr.strip().splitlines()[-1]}")
            continue
        slowest.append((cpu, wall, module))
    slowest.sort(reverse=True)
    over = [m for c, _, m in slowest if c > IMPORT_TARGET_S]
    print(f"importing one module warm (fresh interpreter, CPU s, target <= {IMPORT_TARGET_S:g} s): slowest "
          + ", ".join(f"{m} {c:.2f} s ({w:.2f} s wall)" for c, w, m in slowest[:5])
          + (f"; over the target: {', '.join(over)}" if over else "; every module within the target"))
    if os.environ.get("FEEDBACK_FULL"):
        wall, cpu, done = _timed([python, "-m", "pytest", "-n", "2", "--dist", "loadfile", "-q"])
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        print(f"the test suite: {cpu / 60:.1f} CPU min (target <= {SUITE_TARGET_CPU_MIN:g}), {wall / 60:.1f} min "
              f"wall: {last}")
    else:
        print("the test suite's CPU time: set FEEDBACK_FULL=1 to measure it (runs the whole suite)")
