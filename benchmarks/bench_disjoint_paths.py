"""Speed of Bossard & Kaneko's pairwise disjoint-path routing, and a stress run over adversarial instances.

``run()`` (called by ``make bench``) prints, for the paper's tori ``(n, max(5, n+1))`` with ``c = n``:

* instances per second of the algorithm alone and of algorithm + verification, per ``n`` (one process);
* the wall-clock time of the ``paper`` preset's workload (10,000 instances per ``n = 2..7``, every one
  verified, faithful variant) on two processes - the issue's target is under 60 s on a 2-core machine.

``python -m benchmarks.bench_disjoint_paths --stress [COUNT]`` solves ``COUNT`` (default 100,000) instances of
every family of :data:`torus_lab.studies.disjoint_paths.INSTANCE_KINDS` over every admissible ``(n, k)`` with
``n <= 7`` (three radices each), ``1 <= c <= n``, both ``choose_T`` variants, verifies each and prints failures
and counted fallbacks.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

import numpy as np

from torus_lab.routing.disjoint_paths import DisjointPathsError, disjoint_paths_run, verify_disjoint_paths
from torus_lab.studies.disjoint_paths import INSTANCE_KINDS, paper_radix, random_instance, run_study

PAPER_NS = range(2, 8)


def throughput(per_n: int = 1000, seed: int = 0) -> list[tuple[int, float, float]]:
    """(n, algorithm instances/s, algorithm+verification instances/s) on one process, pre-generated instances."""
    out = []
    for n in PAPER_NS:
        k = paper_radix(n)
        rng = np.random.default_rng([seed, n])
        instances = [random_instance(n, k, n, rng) for _ in range(per_n)]
        start = time.perf_counter()
        results = [disjoint_paths_run((n, k), pairs, trace=False).paths for pairs in instances]
        algo = time.perf_counter() - start
        start = time.perf_counter()
        checks = [verify_disjoint_paths((n, k), pairs, paths) for pairs, paths in zip(instances, results, strict=True)]
        bad = sum(check is not None for check in checks)
        verify = time.perf_counter() - start
        if bad:
            raise AssertionError(f"{bad} invalid solutions for n = {n}")
        out.append((n, per_n / algo, per_n / (algo + verify)))
    return out


def paper_workload(instances: int = 10_000, workers: int = 2, seed: int = 2018) -> float:
    """Seconds for the paper preset's evaluation (faithful variant, every instance verified) on ``workers``."""
    start = time.perf_counter()
    frame = run_study(PAPER_NS, instances, seed=seed, variants=("paper",), chunk_size=1000, backend="processes",
                      workers=workers)  # fmt: skip
    elapsed = time.perf_counter() - start
    if frame["failure"].any():
        raise AssertionError(f"{int(frame['failure'].sum())} failures in the paper workload")
    return elapsed


def stress(count: int = 100_000, seed: int = 7) -> Counter:
    """Solve ``count`` adversarial/random instances; return counts of outcomes (see module docstring)."""
    rng = np.random.default_rng(seed)
    shapes = [(n, k) for n in range(1, 8) for k in range(max(5, n + 1), max(5, n + 1) + 3)]
    tally: Counter = Counter()
    examples: dict[str, list] = {}
    for index in range(count):
        n, k = shapes[index % len(shapes)]
        c = int(rng.integers(1, n + 1))
        kind = INSTANCE_KINDS[index // len(shapes) % len(INSTANCE_KINDS)]
        pairs = random_instance(n, k, c, rng, kind)
        variant = ("paper", "short")[index % 2]
        tally["instances"] += 1
        try:
            run = disjoint_paths_run((n, k), pairs, choose_T=variant, trace=False)
        except DisjointPathsError:
            tally["errors"] += 1
            examples.setdefault("error", pairs)
            continue
        if verify_disjoint_paths((n, k), pairs, run.paths) is not None:
            tally["invalid"] += 1
            examples.setdefault("invalid", pairs)
        if run.fallbacks:
            tally[f"instances with fallbacks ({variant})"] += 1
            for fallback in run.fallbacks:
                tally[f"fallback {fallback.kind}"] += 1
            examples.setdefault(f"fallback {variant}", ((n, k), pairs))
    for name, pairs in examples.items():
        print(f"  example {name}: {pairs}")
    return tally


def run() -> None:
    """Print instances/s per n and the paper-preset wall-clock time (target < 60 s on 2 cores)."""
    print("disjoint_paths: (n, max(5, n+1))-torus, c = n, random instances")
    print(f"{'n':>3} {'k':>3} {'algorithm inst/s':>18} {'+ verification inst/s':>22}")
    for n, algo, total in throughput():
        print(f"{n:>3} {paper_radix(n):>3} {algo:>18.0f} {total:>22.0f}")
    workers = min(2, os.cpu_count() or 1)
    elapsed = paper_workload(workers=workers)
    verdict = "meets" if elapsed < 60 else "MISSES"
    print(f"paper preset workload (60,000 instances, verified, {workers} processes): {elapsed:.1f} s "
          f"({verdict} the 60 s target)")  # fmt: skip


if __name__ == "__main__":
    if "--stress" in sys.argv:
        arguments = [a for a in sys.argv[1:] if a != "--stress"]
        total = int(arguments[0]) if arguments else 100_000
        start = time.perf_counter()
        result = stress(total)
        print(dict(result), f"{time.perf_counter() - start:.0f} s")
    else:
        run()
