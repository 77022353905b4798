"""Wormhole simulator speed: router-cycles per CPU second beside the targets, both router models.

Set-ups: dimension-order routing with datelines, 2 VCs, uniform traffic at offered 0.1 flit/node/cycle:
the 8x8 torus with 1-flit and 4-flit packets, and the 4096-node 16-ary 3-cube with 4-flit packets.  A rate is
``routers x simulated cycles / CPU seconds of the simulate call`` (set-up included; best of three seeds, after
one compile/warm-up run).  Also: the BookSim-compatible model's speed as a fraction of the simple model's on the
same set-up (target: within 1.5x), the state memory per node of each model, and the start-up of each model: the CPU
seconds of the first simulation (a short e-cube run on the 4x4 torus) in a fresh interpreter, with an empty numba
cache (everything compiles; target <= 20 s) and again with the cache that run filled (target <= 1 s), the import of
torus_lab shown beside them, and the wall time of a warm start, import included (target <= 3 s).

Measure on a quiet machine: the figures scale with whatever else runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

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
_WARM_START = """
import time; t = time.perf_counter()
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
simulate(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 8)),
         SimConfig(offered_load=0.1, warmup=100, measure=500), seed=0)
print(time.perf_counter() - t)
"""
_FIRST_RUN = """
import sys, time; t0 = time.process_time()
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
t1 = time.process_time()
run_length = dict(offered_load=0.1, warmup=100, measure=500)
config = SimConfig.preset("booksim", **run_length) if sys.argv[1] == "booksim" else SimConfig(**run_length)
simulate(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 4)), config, seed=0)
print(t1 - t0, time.process_time() - t1)
"""


def _first_run(router: str, cache_dir: str) -> tuple[float, float]:
    """CPU seconds of (import, first simulation) in a fresh interpreter whose numba cache is ``cache_dir``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", _FIRST_RUN, router], capture_output=True, text=True, check=True,
                         env=env)  # fmt: skip
    load, first = out.stdout.split()[-2:]
    return float(load), float(first)


def _start_up() -> None:
    for router in ("simple", "booksim"):
        with tempfile.TemporaryDirectory() as cache_dir:
            load, fresh = _first_run(router, cache_dir)
            warm = min(_first_run(router, cache_dir)[1] for _ in range(3))
        print(f"start-up, {router:8s} model: first simulation {fresh:5.1f} CPU s with an empty numba cache "
              f"({'meets' if fresh <= FRESH_START_CPU_TARGET else 'MISSES'} the {FRESH_START_CPU_TARGET:.0f} s "
              f"target), {warm:.2f} CPU s with it warm ({'meets' if warm <= WARM_START_CPU_TARGET else 'MISSES'} "
              f"the {WARM_START_CPU_TARGET:.0f} s target); import of torus_lab {load:.1f} CPU s", flush=True)


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


def _warm_start() -> float:
    out = subprocess.run([sys.executable, "-c", _WARM_START], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def run() -> None:
    _start_up()
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
    _warm_start()  # fill the numba cache for the subprocess's exact call
    warm = min(_warm_start() for _ in range(3))
    print(f"warm start (import + one small simulation, fresh interpreter): {warm:.2f} s "
          f"({'meets' if warm <= WARM_START_TARGET else 'MISSES'} the {WARM_START_TARGET} s target)")
