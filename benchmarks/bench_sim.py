"""Wormhole simulator speed: router-cycles per CPU second beside the targets, both router models.

Set-ups: dimension-order routing with datelines, 2 VCs, uniform traffic at offered 0.1 flit/node/cycle:
the 8x8 torus with 1-flit and 4-flit packets, and the 4096-node 16-ary 3-cube with 4-flit packets.  A rate is
``routers x simulated cycles / CPU seconds of the simulate call`` (set-up included; best of three seeds, after
one compile/warm-up run).  Also: the BookSim-compatible model's speed as a fraction of the simple model's on the
same set-up (target: within 1.5x), the warm start (a fresh interpreter importing torus_lab and running one small
simulation with the numba cache warm; target <= 3 s) and the state memory per node of each model.

Measure on a quiet machine: the figures scale with whatever else runs.
"""

from __future__ import annotations

import subprocess
import sys
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
_WARM_START = """
import time; t = time.perf_counter()
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
simulate(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 8)),
         SimConfig(offered_load=0.1, warmup=100, measure=500), seed=0)
print(time.perf_counter() - t)
"""


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
