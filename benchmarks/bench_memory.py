"""Bounded memory: exact link loads of a linear placement on T_4^64 (16.8 M nodes) for ODR and UDR,
each in a fresh process, seconds and peak resident memory beside the targets (<= 120 s, <= 4 GB on the 2-core,
24 GB machine); and the up-front refusal of a torus above the memory limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TARGET_SECONDS = 120.0
TARGET_BYTES = 4 * 10**9
_ROOT = Path(__file__).resolve().parents[1]

_CASE = """
import json, resource, sys, time
from torus_lab.loads import linear_placement, link_loads
from torus_lab.topology import Torus
d, k, routing = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
start = time.perf_counter()
torus = Torus(d, k)
placement = linear_placement(torus)
built = time.perf_counter()
loads = link_loads(torus, placement, routing)
done = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
print(json.dumps({"placement": built - start, "loads": done - built, "peak": peak, "channels": int(loads.size),
                  "e_max": float(loads.max())}))
"""

_REFUSE = """
import time
from torus_lab._memory import MemoryLimitError
from torus_lab.loads import linear_placement, link_loads
from torus_lab.topology import Torus
torus = Torus(8, 9)
placement = linear_placement(torus)
start = time.perf_counter()
try:
    link_loads(torus, placement, "udr")
except MemoryLimitError as error:
    print(f"{(time.perf_counter() - start) * 1e3:.1f} ms: {error}")
"""


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=environ)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def run() -> None:
    for routing in ("odr", "udr"):
        case = json.loads(_python(_CASE, "4", "64", routing))
        seconds = case["placement"] + case["loads"]
        verdict = "ok" if seconds <= TARGET_SECONDS and case["peak"] <= TARGET_BYTES else "OVER TARGET"
        print(f"T_4^64 linear {routing.upper()} ({case['channels']:,} links, E_max = {case['e_max']:.6g}): "
              f"{seconds:.2f} s (placement {case['placement']:.2f} s + loads {case['loads']:.2f} s; target <= "
              f"{TARGET_SECONDS:.0f} s), peak RSS {case['peak'] / 1e9:.2f} GB (target <= {TARGET_BYTES / 1e9:.0f} GB):"
              f" {verdict}")  # fmt: skip
    refusal = _python(_REFUSE, env={"TORUS_LAB_MEMORY_LIMIT": "1G"})
    print(f"T_8^9 UDR under TORUS_LAB_MEMORY_LIMIT=1G, refused in {refusal}")
