"""The whole paper preset: ``torus-lab reproduce --preset paper`` with an empty result cache, then again with the
cache it filled (targets: <= 6 minutes cold, <= 1 minute warm, on 2 cores).

Outputs go to a temporary folder (the committed ``data/``, ``figures/``, ``reports/`` are not touched) and the
cache to a temporary ``TORUS_LAB_CACHE``.  "Cold" means an empty *result* cache; numba's compiled-code cache
is whatever the machine already holds (it is reported, not cleared, since CI and a researcher's machine keep
it between runs).  Per-experiment times come from the runner's own report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"cold": 6 * 60.0, "warm": 60.0}


def _reproduce(out: Path, cache: Path) -> tuple[float, str]:
    env = dict(os.environ, TORUS_LAB_CACHE=str(cache))
    command = [sys.executable, "-m", "torus_lab.cli", "reproduce", "--preset", "paper", "--out", str(out)]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"reproduce failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return seconds, done.stdout


def run() -> None:
    with tempfile.TemporaryDirectory(prefix="torus-lab-bench-") as tmp:
        tmp = Path(tmp)
        for label in ("cold", "warm"):
            seconds, report = _reproduce(tmp / label, tmp / "cache")
            verdict = "ok" if seconds <= TARGETS[label] else "OVER TARGET"
            print(f"reproduce --preset paper, {label} result cache: {seconds:.0f} s "
                  f"(target <= {TARGETS[label]:.0f} s: {verdict})")  # fmt: skip
            for line in report.splitlines():
                if line.strip().endswith("(paper)"):
                    print(f"    {line.strip()}")
