"""Scale: a latency-load sweep on the 4096-node 16-ary 3-cube through ``sweep`` on the serial,
processes and Dask backends; the tables must be identical and the wall times are printed.

Set-up: e-cube with datelines, 2 VCs, 4-flit packets, uniform traffic, 10 offered loads x 3 seeds
(:func:`torus_lab.studies.routing_bench.latency_load_runs`), short runs (warm-up 300, measurement 1,000 cycles) so
the three backends take minutes, not hours.  The cache is off, so every backend computes every run.
"""

from __future__ import annotations

import os
import time

import pandas as pd

from torus_lab.studies.routing_bench import latency_load_runs

LOADS = [0.02 * i for i in range(1, 11)]
SEEDS = 3


def _sweep(backend: str) -> tuple[pd.DataFrame, float]:
    start = time.perf_counter()
    runs = latency_load_runs([{"name": "ecube", "datelines": True, "vcs": 2}], dims=3, radix=16, loads=LOADS,
                             seeds=SEEDS, seed=14, backend=backend, warmup=300, measure=1000, drain=2000,
                             packet_length=4)  # fmt: skip
    return runs, time.perf_counter() - start


def run() -> None:
    os.environ["TORUS_LAB_CACHE"] = ""  # no result cache: every backend computes every run
    serial, wall = _sweep("serial")
    print(f"serial:    {len(serial)} runs (4096 nodes, {len(LOADS)} loads x {SEEDS} seeds) in {wall:.1f} s", flush=True)
    for backend in ("processes", "dask"):
        table, wall = _sweep(backend)
        same = table.equals(serial)
        print(f"{backend:10s} {len(table)} runs in {wall:.1f} s; identical to serial: {same}", flush=True)
        if not same:
            raise AssertionError(f"the {backend} backend's table differs from the serial one")
