"""Wormhole simulator speed: router-cycles per CPU second beside the targets, both router models; start-up.

Set-ups: dimension-order routing with datelines, 2 VCs, uniform traffic at offered 0.1 flit/node/cycle:
the 8x8 torus with 1-flit and 4-flit packets, and the 4096-node 16-ary 3-cube with 4-flit packets.  A rate is
``routers x simulated cycles / CPU seconds of the simulate call`` (set-up included; best of three seeds, after
one compile/warm-up run).  Also: the BookSim-compatible model's speed as a fraction of the simple model's on the
same set-up (target: within 1.5x) and the state memory per node of each model.

Start-up (first, and alone with ``python -m benchmarks.bench_sim --start-up``), for each router model: one
process -- a fresh interpreter that imports ``torus_lab.sim``, builds e-cube routing with datelines on the 8x8
torus and runs one small simulation (offered 0.1, warm-up 100, measurement 500 cycles; the booksim preset or the
default simple model) -- timed as the CPU seconds (user + system) of the whole process, read from this process's
rusage of its children:

* *fresh*: numba's cache empty (``NUMBA_CACHE_DIR`` a new temporary folder), so every kernel the run uses
  compiles; target <= 20 s per model;
* *warm*: the same process again with the cache that run filled; target <= 1 s per model (best of three), its
  wall time beside it (target <= 3 s).

Python's own bytecode cache is warm in both (the child runs without ``PYTHONDONTWRITEBYTECODE``; an earlier
import wrote it), so neither figure counts compiling the libraries' Python source.  Each line also gives the
process's own split (imports, routing tables, the ``simulate`` call) and the floor no change to torus_lab can
cut: the interpreter, ``import numpy, numba`` and numba's first use of a cached function (which loads its
typing and lowering registries, importing ``scipy.linalg`` and ``cffi``).

Measure on a quiet machine: the figures scale with whatever else runs.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks._timing import child_cpu, machine_load
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus

#: (label, dims, radix, packet length, target router-cycles per CPU second of the simple model)
SETUPS = [("8x8 torus, 1-flit", 2, 8, 1, 4_000_000), ("8x8 torus, 4-flit", 2, 8, 4, 8_000_000),
          ("16-ary 3-cube (4096 nodes), 4-flit", 3, 16, 4, 3_000_000)]  # fmt: skip
BOOKSIM_SLOWDOWN_TARGET = 1.5
WARM_START_TARGET = 3.0
FRESH_START_CPU_TARGET = 20.0
WARM_START_CPU_TARGET = 1.0
_START_UP = """
import json, sys, time
t0 = time.process_time()
from benchmarks._timing import child_cpu, machine_load
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
t1 = time.process_time()
routing = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 8))
t2 = time.process_time()
run_length = dict(offered_load=0.1, warmup=100, measure=500)
config = SimConfig.preset("booksim", **run_length) if sys.argv[1] == "booksim" else SimConfig(**run_length)
simulate(routing, config, seed=0)
t3 = time.process_time()
print(json.dumps({"imports": t1 - t0, "routing": t2 - t1, "simulate": t3 - t2,
                  "libraries": [m for m in ("pandas", "scipy.stats", "networkx", "matplotlib") if m in sys.modules]}))
"""
_FLOOR = """
import numba

@numba.njit(cache=True)
def one(x):
    return x + 1

one(1)
"""


def _start_up_process(router: str, cache_dir: str) -> tuple[float, float, dict]:
    """(CPU s of the whole process, wall s, its own split) of one start-up process whose numba cache is
    ``cache_dir``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    cpu, done = child_cpu([sys.executable, "-c", _START_UP, router], env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"start-up run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return cpu, wall, json.loads(done.stdout.strip().splitlines()[-1])


def _floor_cpu() -> float:
    """CPU s of a process that imports numpy and numba and calls one cached function (best of three)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "floor.py"
        script.write_text(_FLOOR)
        env["NUMBA_CACHE_DIR"] = folder
        child_cpu([sys.executable, str(script)], env)  # compiles, fills the cache
        return min(child_cpu([sys.executable, str(script)], env)[0] for _ in range(3))


def _verdict(value: float, target: float) -> str:
    return "meets" if value <= target else "MISSES"


def _split(figures: dict) -> str:
    extra = f"; also imported: {', '.join(figures['libraries'])}" if figures["libraries"] else ""
    return (f"imports {figures['imports']:.2f}, routing {figures['routing']:.2f}, simulate "
            f"{figures['simulate']:.2f}{extra}")  # fmt: skip


def start_up() -> None:
    """Print the fresh and warm start-up of each router model beside the targets (module docstring)."""
    print(f"start-up (1-minute load average {machine_load():.1f} on {os.cpu_count()} CPUs); one process each: "
          f"interpreter, import, 8x8 e-cube routing, one small simulation; CPU s of the whole process", flush=True)
    for router in ("simple", "booksim"):
        with tempfile.TemporaryDirectory() as cache_dir:
            fresh, _, fresh_split = _start_up_process(router, cache_dir)
            warm_runs = [_start_up_process(router, cache_dir) for _ in range(3)]
        warm, wall, warm_split = min(warm_runs, key=lambda run: run[0])
        print(f"  {router:8s} fresh (empty numba cache) {fresh:5.1f} CPU s ({_verdict(fresh, FRESH_START_CPU_TARGET)}"
              f" the {FRESH_START_CPU_TARGET:.0f} s target; {_split(fresh_split)})", flush=True)
        print(f"  {router:8s} warm  (numba cache filled) {warm:5.2f} CPU s ({_verdict(warm, WARM_START_CPU_TARGET)} "
              f"the {WARM_START_CPU_TARGET:.0f} s target; {_split(warm_split)}), {wall:.2f} s wall "
              f"({_verdict(wall, WARM_START_TARGET)} the {WARM_START_TARGET:.0f} s target)", flush=True)
    print(f"  floor: interpreter + numpy + numba + numba's first cached call {_floor_cpu():.2f} CPU s", flush=True)


def _config(router: str, length: int, cycles: int) -> SimConfig:
    run_length = dict(offered_load=0.1, packet_length=length, warmup=cycles // 10, measure=cycles, drain=cycles // 10)
    if router == "booksim":
        return SimConfig.preset("booksim", **run_length)
    return SimConfig(buffer_depth=8, **run_length)


def _rate(routing, config: SimConfig, seeds: int = 3) -> tuple[float, object]:
    simulate(routing, config.replace(warmup=10, measure=50, drain=50), seed=0)  # compile / load from the cache
    best, result = 0.0, None
    for seed in range(seeds):
        start = time.process_time()
        result = simulate(routing, config, seed=seed, keep_state=True)
        rate = routing.topology.num_nodes * result.cycles / (time.process_time() - start)
        best = max(best, rate)
    return best, result


def _state_bytes(result) -> int:
    state = result.state  # a BookSimRun (its BookSimState in .state) or a SimState (its SimpleState in .arrays)
    arrays = (state.state if hasattr(state, "state") else state.arrays)._asdict().values()
    return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))


def run() -> None:
    start_up()
    for label, dims, radix, length, target in SETUPS:
        topology = Torus(dims, radix)
        routing = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, topology)
        cycles = 20_000 if topology.num_nodes <= 64 else 2_000
        rates = {}
        for router in ("simple", "booksim"):
            rates[router], result = _rate(routing, _config(router, length, cycles))
            per_node = _state_bytes(result) / topology.num_nodes
            print(f"{label:36s} {router:8s} {rates[router]:>13,.0f} router-cycles/CPU s; state {per_node:,.0f} "
                  f"bytes/node")  # fmt: skip
        verdict = "meets" if rates["simple"] >= target else "MISSES"
        slowdown = rates["simple"] / rates["booksim"]
        print(f"  simple model: {verdict} the {target:,} target; booksim model {slowdown:.2f}x slower "
              f"({'meets' if slowdown <= BOOKSIM_SLOWDOWN_TARGET else 'MISSES'} the "
              f"{BOOKSIM_SLOWDOWN_TARGET}x target)", flush=True)  # fmt: skip


if __name__ == "__main__":
    start_up() if sys.argv[1:] == ["--start-up"] else run()
