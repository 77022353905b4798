"""Fast feedback for a developer: collecting the tests, importing each module warm, (``FEEDBACK_FULL=1``) the
CPU time of the whole test suite and (``FEEDBACK_FRESH=1``) of ``make test`` in a fresh clone, each beside its target.

Every figure is measured in a fresh interpreter (``sys.executable``), after one untimed warm-up that fills the
bytecode and numba caches.  The figure held against a target is CPU time (the child processes' user + system
time, ``resource``): a busy machine (other jobs on the two cores) stretches wall time, not CPU time; wall time
is printed beside it.

The fresh-clone figure is what a new contributor pays: ``git clone`` of the committed ``HEAD`` into a temporary
folder, then ``make test`` there (virtual environment, pip installs, Jupyter kernel, ruff and the suite with two
workers, whose site test builds the docs; every numba kernel compiled from an empty cache).  It takes many
minutes, so it runs only when asked; the same figure by hand: ``git clone -q . /some/scratch/clone &&
cd /some/scratch/clone && /usr/bin/time -f '%U user + %S sys' make test``.
"""

from __future__ import annotations

import os
import pkgutil
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torus_lab

ROOT = Path(__file__).resolve().parents[1]
#: Targets: collecting the tests (wall s), importing any one module warm (wall s), the suite (CPU minutes).
COLLECT_TARGET_S = 15.0
IMPORT_TARGET_S = 2.0
SUITE_TARGET_CPU_MIN = 8.0
#: Target: ``make test`` in a fresh clone, venv creation and installs included (CPU minutes).
FRESH_TARGET_CPU_MIN = 8.0
FRESH_HOW = "git clone of HEAD into a temporary folder, then `make test` there"


def _timed(command: list[str], cwd: Path = ROOT) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, children's CPU s, result) of ``command`` run from ``cwd`` (the project root by default)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
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
    if os.environ.get("FEEDBACK_FRESH"):
        cpu, wall, last = _fresh_clone_make_test()
        print(f"make test in a fresh clone: {cpu / 60:.1f} CPU min (target <= {FRESH_TARGET_CPU_MIN:g}), "
              f"{wall / 60:.1f} min wall ({FRESH_HOW}): {last}")
    else:
        print(f"make test in a fresh clone (target <= {FRESH_TARGET_CPU_MIN:g} CPU min): set FEEDBACK_FRESH=1 to "
              f"measure it ({FRESH_HOW}; many minutes)")


def _fresh_clone_make_test() -> tuple[float, float, str]:
    """(CPU s, wall s, last line of output) of ``make test`` in a fresh clone of the committed ``HEAD``."""
    with tempfile.TemporaryDirectory(prefix="torus-lab-fresh-") as scratch:
        clone = Path(scratch) / "clone"
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", head.stdout.strip()], cwd=clone, check=True)
        wall, cpu, done = _timed(["make", "test"], cwd=clone)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return cpu, wall, (lines[-1] if lines else "") + ("" if done.returncode == 0 else f" (exit {done.returncode})")
