"""Simulation rate against network size, both router models: router-cycles per CPU second from 64 to 1,048,576 nodes.

Set-up on every size (:data:`SIZES`): torus with dimension-order routing (BookSim2's ``dim_order_torus``: dateline
classes, 2 VCs), 8-flit VC buffers, 4-flit packets, uniform traffic at offered :data:`OFFERED` flits/node/cycle,
fixed run length: warm-up :data:`WARMUP` cycles, then a measurement window of about :data:`WORK` router-cycles (at
least :data:`MIN_MEASURE` cycles), then the drain of the measured packets.  The ``simple`` model runs
``SimConfig(buffer_depth=8)``, the ``booksim`` model ``SimConfig.preset("booksim")``.

Each run is one fresh process (:mod:`benchmarks._child`, after a small run that fills the numba cache).  Rate =
nodes x simulated cycles / CPU seconds of the ``simulate`` call (``cpu_s``: the state's allocation included);
``setup_cpu_s`` is the CPU time the process spent before it (interpreter, imports, cached kernels, topology and
routing tables).  A network runs only when :data:`FIT_SHARE` of the available memory is at least its state's
estimate (``TORUS_LAB_MEMORY_LIMIT`` is set to that share); the 1,048,576-node 32-ary 4-cube also needs
``TORUS_LAB_BENCH_HUGE=1`` and :data:`HUGE_MIN_AVAILABLE` bytes available (its simple-model run takes about 10 GB
and a quarter of an hour); ``TORUS_LAB_BENCH_MIN_NODES`` leaves out the smaller networks.  Rows go to
``benchmarks/results/sim_rate_by_size.csv`` (:data:`RESULTS`; a size not run keeps its previous rows) and the
site's figure is redrawn (:mod:`benchmarks.plot_rates`, from the rows at :data:`OFFERED`).

Speed flat in size (:func:`flatness`): at equal work per router, offered load ``1/k`` on a k-ary 3-cube (an eighth of
its uniform capacity), the rate on the 32-ary 3-cube (32,768 routers) over the rate on the 8-ary 3-cube (512), per
model, printed beside :data:`FLAT_RATIO_TARGET`; its rows join the CSV with their own offered load.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from benchmarks import plot_rates
from benchmarks._timing import ROOT, commit_of, run_ours
from benchmarks.bench_scale import layout
from torus_lab._memory import available_memory
from torus_lab.sim import SimConfig
from torus_lab.topology import Torus

#: (network, dims, radix)
SIZES = [("8x8 torus", 2, 8), ("8-ary 3-cube", 3, 8), ("16-ary 3-cube", 3, 16), ("32-ary 3-cube", 3, 32),
         ("10-ary 5-cube", 5, 10), ("32-ary 4-cube", 4, 32)]  # fmt: skip
#: The low load of the BookSim2 comparison: far below saturation on every size (the 32-ary cubes' channels carry
#: k/8 x 0.05 = 0.2 flit/cycle under uniform traffic), so that the rate is that of a network in steady state.
OFFERED = 0.05
WARMUP = 300
MIN_MEASURE = 200
#: Router-cycles of the measurement window.
WORK = 10_000_000
FIT_SHARE = 0.75
HUGE_NODES = 1 << 20
HUGE_MIN_AVAILABLE = 14 * 2**30
RESULTS = ROOT / "benchmarks" / "results" / "sim_rate_by_size.csv"
#: Networks of the flatness ratio (numerator last); their offered load is ``1 / radix``.
FLAT_SIZES = [("8-ary 3-cube", 3, 8), ("32-ary 3-cube", 3, 32)]
#: The 32-ary 3-cube's rate over the 8-ary 3-cube's should be at least this, in both models.
FLAT_RATIO_TARGET = 0.5
COLUMNS = ["network", "nodes", "router_model", "offered_load", "cycles", "router_cycles_per_cpu_s", "cpu_s",
           "setup_cpu_s", "commit"]  # fmt: skip


def config(router: str, nodes: int, offered: float = OFFERED) -> SimConfig:
    """The run of ``router`` on a network of ``nodes`` nodes at ``offered`` flits/node/cycle."""
    window = dict(packet_length=4, offered_load=offered, warmup=WARMUP, measure=max(MIN_MEASURE, WORK // nodes),
                  drain=5_000)  # fmt: skip
    return SimConfig.preset("booksim", **window) if router == "booksim" else SimConfig(buffer_depth=8, **window)


def runnable(dims: int, radix: int, router: str) -> tuple[bool, str, int]:
    """Whether the network fits now (and, for the 32-ary 4-cube, is asked for), why not, and the memory limit."""
    topology = Torus(dims, radix)
    available = available_memory()
    limit = int(FIT_SHARE * available)
    if topology.num_nodes >= HUGE_NODES:
        if os.environ.get("TORUS_LAB_BENCH_HUGE") != "1":
            return False, "set TORUS_LAB_BENCH_HUGE=1 to run it", limit
        if available < HUGE_MIN_AVAILABLE:
            return False, f"{available / 2**30:.1f} GiB available, {HUGE_MIN_AVAILABLE / 2**30:.0f} needed", limit
    estimate = sum(layout(router, topology).values())
    if estimate > limit:
        return False, f"state estimated at {estimate / 2**30:.1f} GiB, limit {limit / 2**30:.1f} GiB", limit
    return True, "", limit


def measure_size(network: str, dims: int, radix: int, commit: str, offered: float = OFFERED) -> list[dict[str, Any]]:
    """One run of each router model on one network at ``offered`` (the rows of :data:`COLUMNS`); a model that does
    not fit is skipped with a line saying why."""
    nodes, rows = radix**dims, []
    for router in ("simple", "booksim"):
        fits, why, limit = runnable(dims, radix, router)
        if not fits:
            print(f"{network:14s} ({nodes:>9,} nodes) {router:8s} not run: {why}", flush=True)
            continue
        cfg = config(router, nodes, offered)
        out = run_ours(dims, radix, cfg.as_dict(), environ={"TORUS_LAB_MEMORY_LIMIT": str(limit)})
        rate = nodes * out["cycles"] / out["cpu_s"]
        rows.append({"network": network, "nodes": nodes, "router_model": router, "offered_load": offered,
                     "cycles": out["cycles"], "router_cycles_per_cpu_s": round(rate), "cpu_s": round(out["cpu_s"], 3),
                     "setup_cpu_s": round(out["setup_cpu_s"], 3), "commit": commit})  # fmt: skip
        print(f"{network:14s} ({nodes:>9,} nodes) {router:8s} {rate:>13,.0f} router-cycles/CPU s ({out['cycles']:,} "
              f"cycles in {out['cpu_s']:.1f} CPU s; set-up {out['setup_cpu_s']:.1f} CPU s)", flush=True)  # fmt: skip
    return rows


def merge(previous: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``new`` rows replace the rows of the same network, router model and offered load in ``previous``."""
    if previous.empty:
        return new[COLUMNS]
    def key(frame: pd.DataFrame) -> list[tuple]:
        return list(zip(frame.network, frame.router_model, frame.offered_load.round(6), strict=True))

    keys = set(key(new))
    kept = previous[[k not in keys for k in key(previous)]]
    return pd.concat([kept, new], ignore_index=True)[COLUMNS].sort_values(["nodes", "router_model"])


def flatness(commit: str) -> list[dict[str, Any]]:
    """Both models on :data:`FLAT_SIZES` at offered ``1/k``; prints each model's 32-ary over 8-ary rate beside
    :data:`FLAT_RATIO_TARGET` and returns the rows."""
    rows = [row for network, dims, radix in FLAT_SIZES for row in measure_size(network, dims, radix, commit, 1 / radix)]
    for router in ("simple", "booksim"):
        rate = {r["network"]: r["router_cycles_per_cpu_s"] for r in rows if r["router_model"] == router}
        if len(rate) < len(FLAT_SIZES):
            continue
        ratio = rate[FLAT_SIZES[-1][0]] / rate[FLAT_SIZES[0][0]]
        verdict = "meets" if ratio >= FLAT_RATIO_TARGET else "MISSES"
        print(f"   {router} model at offered 1/k: {FLAT_SIZES[-1][0]} / {FLAT_SIZES[0][0]} = {ratio:.2f} "
              f"({verdict} the >= {FLAT_RATIO_TARGET} target)", flush=True)  # fmt: skip
    return rows


def run() -> None:
    run_ours(2, 4, config("simple", 16).replace(warmup=10, measure=50, drain=100).as_dict())  # numba cache
    run_ours(2, 4, config("booksim", 16).replace(warmup=10, measure=50, drain=100).as_dict())
    commit = commit_of()
    smallest = int(os.environ.get("TORUS_LAB_BENCH_MIN_NODES", "0"))  # to re-run only the large networks
    rows = [row for network, dims, radix in SIZES if radix**dims >= smallest
            for row in measure_size(network, dims, radix, commit)]  # fmt: skip
    if os.environ.get("TORUS_LAB_BENCH_FLAT", "1") == "1":  # 0 to skip the flatness runs
        rows += flatness(commit)
    previous = pd.read_csv(RESULTS) if RESULTS.is_file() else pd.DataFrame(columns=COLUMNS)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    merge(previous, pd.DataFrame(rows, columns=COLUMNS)).to_csv(RESULTS, index=False)
    figure = plot_rates.draw(offered=OFFERED)
    print(f"   rows written to {RESULTS.relative_to(ROOT)}; figure: {figure.relative_to(ROOT)}")
