"""Li, Peng & Chu fault-tolerant routing: trials per second of the batch evaluation at N = 128.

Target: the whole ``paper`` preset (600,000 trials x 3 algorithms + oracle) in under 5 minutes on 2 cores.
"""

from __future__ import annotations

import time

import numpy as np

from torus_lab.routing.square import evaluate_batch
from torus_lab.studies.fault_tolerant import PAPER_FAULT_RATES, PAPER_GROUPS, fault_count, trial_seeds

PAPER_ALGORITHMS = ("chain", "adaptive_square", "heuristic_square")


def _timed(radix: int, m: int, rate: float, trials: int, algorithms: tuple[str, ...]) -> float:
    seeds = trial_seeds(np.random.default_rng(0), trials)
    start = time.perf_counter()
    evaluate_batch(radix, m, fault_count(radix, rate), seeds, algorithms)
    return time.perf_counter() - start


def run() -> None:
    start = time.perf_counter()
    evaluate_batch(16, 3, 10, trial_seeds(np.random.default_rng(0), 8))  # compile (or load the numba cache)
    print(f"numba compile / cache load: {time.perf_counter() - start:.1f} s")
    trials = 5_000
    for algorithms, label in ((PAPER_ALGORITHMS, "3 paper algorithms + oracle"),
                              (PAPER_ALGORITHMS + ("backtracking_square",), "3 paper + backtracking + oracle")):
        for m in (6, 8):
            for rate in (0.05, 0.15, 0.25):
                seconds = _timed(128, m, rate, trials, algorithms)
                print(f"N=128 m={m} f={rate:.2f} [{label}]: {trials / seconds:,.0f} trials/s")
    # estimate of the whole paper preset: every point at 1,000 trials, scaled to 10,000
    sample, total = 1_000, 0.0
    for pairs in PAPER_GROUPS.values():
        for radix, m in pairs:
            for rate in PAPER_FAULT_RATES:
                total += _timed(radix, m, rate, sample, PAPER_ALGORITHMS + ("backtracking_square",))
    print(f"paper preset estimate (60 points x 10,000 trials, 4 algorithms + oracle): {total * 10:.0f} s "
          f"(target < 300 s)")


if __name__ == "__main__":
    run()
