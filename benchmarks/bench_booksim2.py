"""BookSim2 beside torus_lab's BookSim2-compatible router model: router-cycles per CPU second, same configurations.

Runs only when ``BOOKSIM2_BIN`` names a BookSim2 binary (``BOOKSIM2_COMMIT`` may give its commit for the record);
otherwise it prints that the comparison is skipped and how to build BookSim2 (:data:`RECIPE`).

Configurations: the shared reference configs' network and router (BookSim2's default input-queued router,
``dim_order`` routing on a torus, 2 VCs, 8-flit VC buffers, 4-flit packets, uniform Bernoulli traffic with
``injection_rate_uses_flits = 1``, ``seed = 1``) and run method (``sim_type = latency``: ``warmup_periods = 3``,
convergence over 3 periods, at most ``max_samples = 10`` periods, ``latency_thres = 500``, then the drain) on
the 8x8 torus, the 8-ary 3-cube and the 16-ary 3-cube at offered 0.05 and 0.15 flits/node/cycle
(:data:`SIZES`, :data:`LOADS`; the sample period shrinks with the network so that one BookSim2 run takes
seconds).  torus_lab runs ``SimConfig.preset("booksim")`` with the same run method (``run_control="adaptive"``,
:mod:`torus_lab.sim.runlength`).

Method: each pair runs BookSim2, then torus_lab, one process each, one at a time, :data:`REPEATS` times in turn
(interleaved, so a change of machine load hits both alike); the CPU time (user + system) of each whole process
comes from the child rusage.  BookSim2's simulated cycles are parsed from its output ("Time taken is N cycles":
warm-up, measurement and drain), torus_lab's are its result's ``cycles``.  Rate = nodes x cycles / CPU seconds
(routers = nodes).  Whole-process rates include everything that cannot be left out of a BookSim2 run: start-up,
configuration and network construction; for torus_lab that is the interpreter, the imports, loading the cached
numba kernels and the routing tables.  A second ratio leaves the set-up out of both: torus_lab's ``simulate``
call alone against BookSim2's CPU time less that of a run of the same network that stops after a few cycles.
The ratio torus_lab / BookSim2 is printed beside the target :data:`TARGET_RATIO`; the rows are written to
``benchmarks/results/booksim2_speed.csv`` (:data:`RESULTS`; ``BOOKSIM2_MIN_NODES`` and ``BOOKSIM2_MAX_NODES``
re-measure only the networks at least / at most that large and keep the other rows, so that the largest network can
run fewer repeats) and the site's rate figure is redrawn.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks import plot_rates
from benchmarks._timing import ROOT, child_cpu, commit_of, machine_load, run_ours
from torus_lab.sim import SimConfig
from torus_lab.studies.booksim_validation import unbounded_queue_capacity

#: (network, dims, radix, sample period in cycles)
SIZES = [("8x8 torus", 2, 8, 10_000), ("8-ary 3-cube", 3, 8, 2_000), ("16-ary 3-cube", 3, 16, 500)]
#: Offered loads, flits/node/cycle: low and mid (the 8x8 torus saturates near 0.35 with this router).
LOADS = (0.05, 0.15)
REPEATS = int(os.environ.get("BOOKSIM2_REPEATS", "3"))
TARGET_RATIO = 20.0
RESULTS = ROOT / "benchmarks" / "results" / "booksim2_speed.csv"
PACKET_LENGTH = 4
#: BookSim2 parameters every run shares (the reference configs' values); k, n, sample_period, injection_rate vary.
BOOKSIM2_FIXED: dict[str, Any] = {
    "topology": "torus", "routing_function": "dim_order", "num_vcs": 2, "vc_buf_size": 8,
    "packet_size": PACKET_LENGTH, "traffic": "uniform", "injection_process": "bernoulli",
    "injection_rate_uses_flits": 1, "sim_type": "latency", "warmup_periods": 3, "max_samples": 10,
    "latency_thres": 500.0, "seed": 1,
}  # fmt: skip
RECIPE = """\
   To compare, build BookSim2 outside this repository and name its binary:
     (BookSim2's public repository, github.com/booksim/booksim2, cloned or unpacked into booksim2/)
     apt-get install -y flex bison g++ make
     make -C booksim2/src            # the flags its Makefile sets (-O3 -g)
     BOOKSIM2_BIN=$PWD/booksim2/src/booksim BOOKSIM2_COMMIT=$(git -C booksim2 rev-parse HEAD) \\
       .venv/bin/python -m benchmarks booksim2"""
_TIME_TAKEN = re.compile(r"^Time taken is (\d+) cycles", re.M)
_UNSTABLE = "Simulation unstable"


def booksim2_text(dims: int, radix: int, sample_period: int, load: float) -> str:
    """A BookSim2 configuration file for one run."""
    fields = dict(BOOKSIM2_FIXED, k=radix, n=dims, sample_period=sample_period, injection_rate=load)
    return "".join(f"{name} = {value};\n" for name, value in fields.items())


def ours_config(sample_period: int, load: float) -> SimConfig:
    """torus_lab's configuration of the same run: the booksim preset, BookSim2's latency-mode run length."""
    config = SimConfig.preset("booksim", packet_length=PACKET_LENGTH, offered_load=load, run_control="adaptive",
                              sample_period=sample_period, warmup_periods=3, max_periods=10, stop_rule="converged",
                              stop_threshold=0.05, converged_periods=3, latency_cap=500.0, drain=20_000)  # fmt: skip
    return dataclasses.replace(config, queue_capacity=max(config.queue_capacity, unbounded_queue_capacity(config)))


def run_booksim2(binary: str, text: str, folder: Path) -> tuple[float, int]:
    """CPU seconds of one BookSim2 process on config ``text`` and the cycles it simulated."""
    path = folder / "run.cfg"
    path.write_text(text, encoding="utf-8")
    cpu, done = child_cpu([binary, str(path)])
    found = _TIME_TAKEN.findall(done.stdout)  # its exit status is not a verdict: a finished run exits non-zero
    if not found or _UNSTABLE in done.stdout:
        raise RuntimeError(f"BookSim2 did not finish the run ({done.returncode}): {done.stdout[-1500:]}"
                           f"{done.stderr[-500:]}")  # fmt: skip
    return cpu, int(found[-1])


def booksim2_setup(binary: str, dims: int, radix: int, folder: Path) -> float:
    """CPU seconds of a BookSim2 process that builds the network and stops after a few cycles (best of 3)."""
    fields = dict(BOOKSIM2_FIXED, k=radix, n=dims, sample_period=20, injection_rate=0.05, warmup_periods=1,
                  max_samples=2)
    text = "".join(f"{name} = {value};\n" for name, value in fields.items())
    return min(run_booksim2(binary, text, folder)[0] for _ in range(3))


def _row(network: str, nodes: int, load: float, period: int, repeat: int, simulator: str, cycles: int,
         cpu: float, sim_cpu: float, load_avg: float, end_rule: str) -> dict[str, Any]:  # fmt: skip
    return {"network": network, "nodes": nodes, "offered_load": load, "sample_period": period, "repeat": repeat,
            "simulator": simulator, "cycles": cycles, "cpu_s": round(cpu, 3), "sim_cpu_s": round(sim_cpu, 3),
            "router_cycles_per_cpu_s": round(nodes * cycles / cpu), "end_rule": end_rule,
            "machine_load_1min": load_avg}  # fmt: skip


def measure(binary: str, sizes: list[tuple[str, int, int, int]], kept: pd.DataFrame,
            record: Path | None = None) -> pd.DataFrame:  # fmt: skip
    """Every (size, load, repeat) of ``sizes``: BookSim2 then torus_lab; one row per run (:func:`_row`'s columns)
    after the rows ``kept``.  With ``record``, the rows so far are written there after every pair (an interrupted
    run keeps what it measured)."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        run_ours(2, 4, ours_config(100, 0.05).as_dict())  # fills the numba cache: no compilation is timed
        for network, dims, radix, period in sizes:
            nodes = radix**dims
            setup = booksim2_setup(binary, dims, radix, Path(folder))
            for load in LOADS:
                text, config = booksim2_text(dims, radix, period, load), ours_config(period, load).as_dict()
                for repeat in range(REPEATS):
                    load_avg = machine_load()
                    cpu, cycles = run_booksim2(binary, text, Path(folder))
                    rows.append(_row(network, nodes, load, period, repeat, "booksim2", cycles, cpu,
                                     cpu - setup, load_avg, "converged-or-max"))  # fmt: skip
                    ours = run_ours(dims, radix, config)
                    rows.append(_row(network, nodes, load, period, repeat, "torus_lab-booksim", ours["cycles"],
                                     ours["process_cpu_s"], ours["cpu_s"], machine_load(), ours["end_rule"]))
                    if record is not None:
                        pd.concat([kept, _provenance(pd.DataFrame(rows))]).to_csv(record, index=False)
                    print(f"   {network} offered {load}: BookSim2 {nodes * cycles / cpu:,.0f}, torus_lab "
                          f"{nodes * ours['cycles'] / ours['process_cpu_s']:,.0f} router-cycles/CPU s",
                          flush=True)  # fmt: skip
    return pd.concat([kept, _provenance(pd.DataFrame(rows))], ignore_index=True)


def _provenance(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with the commit of torus_lab, BookSim2's (``BOOKSIM2_COMMIT``) and the date."""
    return runs.assign(torus_lab_commit=commit_of(), booksim2_commit=os.environ.get("BOOKSIM2_COMMIT", "unknown"),
                       date=datetime.date.today().isoformat())  # fmt: skip


def ratios(runs: pd.DataFrame) -> pd.DataFrame:
    """Per network and load (and per network over both loads, ``offered_load`` "all"): the rate of each simulator
    (total router-cycles / total CPU seconds of its runs), whole process and set-up left out, and their ratios."""
    out = []
    for (network, load), group in [*runs.groupby(["network", "offered_load"]),
                                   *((k, g) for k, g in runs.assign(offered_load="all").groupby(
                                       ["network", "offered_load"]))]:  # fmt: skip
        rate = {}
        for simulator, part in group.groupby("simulator"):
            work = (part.nodes * part.cycles).sum()
            rate[simulator] = (work / part.cpu_s.sum(), work / part.sim_cpu_s.sum())
        ours, theirs = rate["torus_lab-booksim"], rate["booksim2"]
        out.append({"network": network, "nodes": int(group.nodes.iloc[0]), "offered_load": load,
                    "booksim2": theirs[0], "torus_lab": ours[0], "ratio": ours[0] / theirs[0],
                    "booksim2_no_setup": theirs[1], "torus_lab_no_setup": ours[1],
                    "ratio_no_setup": ours[1] / theirs[1]})  # fmt: skip
    return pd.DataFrame(out).sort_values("nodes", kind="stable")  # each network: its loads, then "all"


def report(table: pd.DataFrame) -> None:
    """Print the ratios beside :data:`TARGET_RATIO`."""
    for row in table.itertuples():
        verdict = "meets" if row.ratio >= TARGET_RATIO else "BELOW"
        print(f"{row.network:14s} ({row.nodes:>5,} nodes) offered {row.offered_load!s:4s}: BookSim2 "
              f"{row.booksim2:>11,.0f}, torus_lab {row.torus_lab:>12,.0f} router-cycles/CPU s: ratio "
              f"{row.ratio:5.1f}x ({verdict} the {TARGET_RATIO:.0f}x target); set-up left out of both: "
              f"{row.ratio_no_setup:5.1f}x", flush=True)  # fmt: skip


def run() -> None:
    binary = os.environ.get("BOOKSIM2_BIN", "")
    if not binary or not Path(binary).is_file():
        print(f"BookSim2 comparison skipped: BOOKSIM2_BIN {'is not set' if not binary else 'names no file'}.")
        print(RECIPE)
        return
    smallest = int(os.environ.get("BOOKSIM2_MIN_NODES", "0"))  # to re-measure only the larger networks
    largest = int(os.environ.get("BOOKSIM2_MAX_NODES", str(2**62)))  # or only the smaller ones
    sizes = [size for size in SIZES if smallest <= size[2] ** size[1] <= largest]
    previous = pd.read_csv(RESULTS) if RESULTS.is_file() else pd.DataFrame(columns=["network"])
    kept = previous[~previous.network.isin([size[0] for size in sizes])]
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    runs = measure(binary, sizes, kept, RESULTS)
    report(ratios(runs))
    runs.to_csv(RESULTS, index=False)
    print(f"   rows written to {RESULTS.relative_to(ROOT)}")
    if plot_rates.RATES.is_file():
        print(f"   figure redrawn: {plot_rates.draw().relative_to(ROOT)}")
