"""CPU time of child processes and the provenance a speed record carries (shared by the simulator-rate benchmarks).

A child's CPU time is read from this process's rusage of its waited-for children (user + system), before and
after: the child runs alone in this thread, so the difference is that child's, start-up and teardown included,
whatever else runs on the machine (other processes change the wall time, much less the CPU time).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child_cpu(command: list[str], environ: dict[str, str] | None = None,
              timeout: float | None = None) -> tuple[float, subprocess.CompletedProcess]:  # fmt: skip
    """Run ``command`` to its end; return its CPU seconds (user + system, the whole process) and its outcome."""
    before = _children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, env=environ, timeout=timeout, cwd=ROOT)
    return _children_cpu() - before, done


def run_ours(dims: int, radix: int, config: dict[str, Any], seed: int = 1,
             environ: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    """One torus_lab simulation in a fresh interpreter (``benchmarks._child``): its own figures plus
    ``process_cpu_s``, the CPU time of the whole process."""
    environ = dict(os.environ, **(environ or {}))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH", "")]))
    spec = json.dumps({"dims": dims, "radix": radix, "config": config, "seed": seed})
    cpu, done = child_cpu([sys.executable, "-m", "benchmarks._child", spec], environ)
    if done.returncode != 0:
        raise RuntimeError(f"torus_lab run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]), process_cpu_s=cpu)


#: What a benchmark itself writes while it runs (its results and the figure drawn from them): not counted as a change
#: of the code measured.
OUTPUTS = ("benchmarks/results", "docs/_static/performance")


def commit_of(folder: Path = ROOT) -> str:
    """The git commit of ``folder`` (``+dirty`` when tracked files other than the benchmarks' own outputs,
    :data:`OUTPUTS`, differ from it), or ``"unknown"``."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                *(f":(exclude){path}" for path in OUTPUTS)], cwd=folder,
                               capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty else "")


def machine_load() -> float:
    """The 1-minute load average (runnable processes; 2 or more on 2 cores means sharing)."""
    return round(os.getloadavg()[0], 2)
