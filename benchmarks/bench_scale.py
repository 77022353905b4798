"""Scale: the simulator's memory per router and peak memory on large tori, and a latency-load sweep on the
4096-node 16-ary 3-cube through ``sweep`` on the serial, processes and Dask backends (the tables must be identical;
the wall times are printed).

Memory: the state of both router models on a 3-D torus with 2 VCs, 8-flit buffers and 4-flit packets, by array
(``state_layout``, which the memory check sums and the tests hold equal to the allocation), beside the target of
16 KB per router; the packet records of the measurement window, which grow with the run, are counted apart.
Then the peak resident memory of a short low-load run of each model, each in a fresh process, on the 32-ary 3-cube
(32,768 routers), the 1,048,576-node 32-ary 4-cube and the 100,000-node 10-ary 5-cube: the state's estimate (what
the memory check adds up before allocating) is printed first, and a network whose estimate does not fit in
:data:`FIT_SHARE` of the available memory is not run (the run's ``TORUS_LAB_MEMORY_LIMIT`` is that share).

Set-up: e-cube with datelines, 2 VCs, 4-flit packets, uniform traffic, 10 offered loads x 3 seeds
(:func:`torus_lab.studies.routing_bench.latency_load_runs`), short runs (warm-up 300, measurement 1,000 cycles) so
the three backends take minutes, not hours.  The cache is off, so every backend computes every run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from torus_lab._memory import available_memory
from torus_lab.sim import SimConfig, booksim, simple
from torus_lab.sim.engine import _record_capacity, initial_queue_width, pool_headroom
from torus_lab.sim.packets import initial_pool_size
from torus_lab.studies.routing_bench import latency_load_runs
from torus_lab.topology import Torus

#: Bytes per router the simulator's state should stay within (packet records of the run apart).
TARGET_BYTES_PER_ROUTER = 16 * 1024
#: Share of the available memory a large network's estimated state must fit in to be run (its memory limit).
FIT_SHARE = 0.75
#: Arrays that grow with the packets of a run: the packet pool, the source queues and the measured packets' records.
PER_PACKET = ("pk_src", "pk_dst", "pk_gen", "pk_inj", "pk_hops", "pk_meas", "pk_state", "free_stack", "q_buf")
RECORDS = ("rec",)
_ROOT = Path(__file__).resolve().parents[1]
_CONFIGS = {"simple": SimConfig(buffer_depth=8, packet_length=4, offered_load=0.05, warmup=50, measure=100,
                                drain=2000),
            "booksim": SimConfig.preset("booksim", packet_length=4, offered_load=0.05, warmup=50, measure=100,
                                        drain=2000)}  # fmt: skip

_PEAK = """
import json, resource, sys, time
from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
n, k, router = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
config = SimConfig.from_mapping(json.loads(sys.argv[4]))
routing = ecube_routing(Torus(n, k), datelines=True, vcs=2)
start = time.perf_counter()
result = simulate(routing, config, seed=1)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": time.perf_counter() - start, "peak": peak, "delivered": result.delivered,
                  "deadlock": result.deadlock}))
"""


def layout(router: str, topology: Torus) -> dict[str, int]:
    """Bytes of each array of ``router``'s state at the start of a run of :data:`_CONFIGS` on ``topology``."""
    config = _CONFIGS[router]
    nn, nch, vcs = topology.num_nodes, topology.num_channels, 2
    rec_cap = _record_capacity(config, nn)
    if router == "simple":
        pool = initial_pool_size(nn, nch * vcs + nn, config.queue_capacity, pool_headroom(topology))
        return simple.state_layout(topology, vcs, 8, config.queue_capacity, rec_cap, pool)
    pool = initial_pool_size(nn, (nch + 2 * nn) * vcs + nn, config.queue_capacity, pool_headroom(topology))
    return booksim.state_layout(topology, vcs, 8, config.queue_capacity, rec_cap, pool,
                                queue_width=initial_queue_width(topology, config.queue_capacity),
                                speculative=config.speculative)  # fmt: skip


def memory_breakdown() -> None:
    """Bytes per router of both models on the 4096-node 16-ary 3-cube, by kind and by largest array."""
    topology = Torus(3, 16)
    nn = topology.num_nodes
    for router in _CONFIGS:
        sizes = layout(router, topology)
        records = sum(sizes[name] for name in RECORDS) / nn
        packets = sum(sizes[name] for name in PER_PACKET) / nn
        network = sum(sizes.values()) / nn - records - packets
        state = network + packets
        verdict = "ok" if state <= TARGET_BYTES_PER_ROUTER else "OVER TARGET"
        largest = sorted(((size / nn, name) for name, size in sizes.items()), reverse=True)[:5]
        print(f"{router:8s} 16-ary 3-cube, 2 VCs, 8-flit buffers: {state / 1024:.1f} KB per router (network "
              f"{network / 1024:.1f} KB + packet pool and source queues {packets / 1024:.1f} KB; target <= "
              f"{TARGET_BYTES_PER_ROUTER / 1024:.0f} KB): {verdict}; measured-packet records {records / 1024:.1f} KB"
              f" per router more (they grow with the window)", flush=True)  # fmt: skip
        print("         largest: " + ", ".join(f"{name} {size / 1024:.1f} KB" for size, name in largest), flush=True)


def _python(code: str, *args: str, environ: dict[str, str] | None = None) -> str:
    environ = dict(os.environ, **(environ or {}))
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=environ)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


def peak_memory(sizes: tuple[tuple[int, int], ...] = ((3, 32), (4, 32), (5, 10))) -> None:
    """Peak resident memory of a short low-load run of each model on the ``(n, k)`` tori (each in a fresh
    process), after the state's estimate per router."""
    for n, k in sizes:
        topology = Torus(n, k)
        for router, config in _CONFIGS.items():
            arrays = layout(router, topology)
            estimate = sum(arrays.values())
            records = sum(arrays[name] for name in RECORDS)
            per_router = (estimate - records) / topology.num_nodes
            name = f"{k}-ary {n}-cube ({topology.num_nodes:,} routers), {router}"
            print(f"{name}: state estimated at {estimate / 1e9:.2f} GB: {per_router / 1024:.1f} KB per router "
                  f"(target <= {TARGET_BYTES_PER_ROUTER / 1024:.0f} KB) + measured-packet records "
                  f"{records / 1e9:.2f} GB", flush=True)  # fmt: skip
            limit = int(FIT_SHARE * available_memory())
            if estimate > limit:
                print(f"    more than {FIT_SHARE:.0%} of the available memory: not run", flush=True)
                continue
            case = json.loads(_python(_PEAK, str(n), str(k), router, json.dumps(config.as_dict()),
                                      environ={"TORUS_LAB_MEMORY_LIMIT": str(limit)}))  # fmt: skip
            print(f"    peak RSS {case['peak'] / 1e9:.2f} GB ({case['peak'] / topology.num_nodes / 1024:.1f} KB per "
                  f"router all included: state, topology, routing tables, interpreter), {case['seconds']:.1f} s for "
                  f"{config.warmup + config.measure} cycles and the drain, {case['delivered']} packets measured, "
                  f"deadlock: {case['deadlock']}", flush=True)  # fmt: skip

LOADS = [0.02 * i for i in range(1, 11)]
SEEDS = 3


def _sweep(backend: str) -> tuple[pd.DataFrame, float]:
    start = time.perf_counter()
    runs = latency_load_runs([{"name": "ecube", "datelines": True, "vcs": 2}], dims=3, radix=16, loads=LOADS,
                             seeds=SEEDS, seed=14, backend=backend, warmup=300, measure=1000, drain=2000,
                             packet_length=4)  # fmt: skip
    return runs, time.perf_counter() - start


def run() -> None:
    memory_breakdown()
    peak_memory()
    os.environ["TORUS_LAB_CACHE"] = ""  # no result cache: every backend computes every run
    serial, wall = _sweep("serial")
    print(f"serial:    {len(serial)} runs (4096 nodes, {len(LOADS)} loads x {SEEDS} seeds) in {wall:.1f} s", flush=True)
    for backend in ("processes", "dask"):
        table, wall = _sweep(backend)
        same = table.equals(serial)
        print(f"{backend:10s} {len(table)} runs in {wall:.1f} s; identical to serial: {same}", flush=True)
        if not same:
            raise AssertionError(f"the {backend} backend's table differs from the serial one")
