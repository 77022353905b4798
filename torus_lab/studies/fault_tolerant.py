"""Evaluation of Li, Peng & Chu's online fault-tolerant routing in 2D tori (ISPA 2005, Section 6, Figs. 4-15).

Set-up of the paper (guide section 3.5): group 1 ``N = 16, 32`` with ``m = 3, 4, 5``; group 2 ``N = 64, 128``
with ``m = 6, 7, 8``; uniform random node faults of 5..25% in 5% steps; 10,000 trials per ``(N, m, f)``.

Trial (REC): exactly ``round(f * N^2)`` faulty nodes drawn uniformly, then a uniform pair of distinct
non-faulty nodes ``(s, t)``; success = a path is returned.  Every algorithm and the oracle (BFS over the whole
faulty torus: connected? shortest fault-free distance) run on the **same** trials (paired comparison).

Randomness: each point ``(N, m, f)`` has its own ``SeedSequence([seed, N, m, round(1000 f)])``; a
``numpy.random.Generator`` from it draws one 64-bit seed per trial, and :func:`torus_lab.routing.square.
draw_trial` expands that seed (SplitMix64 partial Fisher-Yates) into the fault set and the pair inside the
numba kernel.  A point's trials therefore do not depend on which other points are run, nor on thread count.

Examples
--------
>>> table, ratios = run_study([(16, 3)], [0.1], trials=200, seed=1)
>>> sorted(table["algorithm"].unique())[:2]
['adaptive_square', 'backtracking_square']
>>> bool((table["ci_low"] <= table["success_rate"]).all())
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

from torus_lab.routing.square import ALGORITHMS, REASONS, evaluate_batch

__all__ = [
    "PAPER_GROUPS",
    "PAPER_FAULT_RATES",
    "TABLE_COLUMNS",
    "RATIOS",
    "point_seeds",
    "fault_count",
    "run_point",
    "summarize_point",
    "ratio_rows",
    "run_study",
    "wilson_interval",
    "approx_verdict",
    "after_fallback_comparison",
]

#: (N, m) pairs of the paper's two groups.
PAPER_GROUPS = {
    1: [(16, 3), (16, 4), (16, 5), (32, 3), (32, 4), (32, 5)],
    2: [(64, 6), (64, 7), (64, 8), (128, 6), (128, 7), (128, 8)],
}
PAPER_FAULT_RATES = [0.05, 0.10, 0.15, 0.20, 0.25]
#: Columns of the CSV of issue #4, then diagnostics of ours.
TABLE_COLUMNS = [
    "N", "m", "fault_rate", "algorithm", "trials", "successes", "success_rate", "ci_low", "ci_high",
    "path_plus_mean", "oracle_connected_rate",
    "fault_count", "success_given_connected", "oracle_stretch_mean", "local_routings_mean", "travelled_plus_mean",
    "oracle_path_plus_on_successes", "cap_hits", "seed", "seconds",
]  # fmt: skip
#: Improvement ratios: the paper's two (Figs. 8-9, 14-15), ours, and every algorithm against the oracle.
RATIOS = [
    ("adaptive_square", "chain"),
    ("heuristic_square", "adaptive_square"),
    ("backtracking_square", "heuristic_square"),
    ("chain", "oracle"),
    ("adaptive_square", "oracle"),
    ("heuristic_square", "oracle"),
    ("backtracking_square", "oracle"),
]


def wilson_interval(successes: int | np.ndarray, trials: int | np.ndarray, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(90, 100)]
    [0.8256, 0.9448]
    """
    z = norm.ppf(0.5 + confidence / 2)
    n = np.asarray(trials, dtype=float)
    p = np.asarray(successes, dtype=float) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = np.minimum(centre - half, p)  # the interval contains p; guard against rounding at p = 0 or 1
    high = np.maximum(centre + half, p)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def fault_count(radix: int, fault_rate: float) -> int:
    """Number of faulty nodes of a trial: ``round(fault_rate * N^2)``.

    Examples
    --------
    >>> fault_count(16, 0.05)
    13
    """
    if not 0 <= fault_rate < 1:
        raise ValueError(f"fault_rate must be in [0, 1), got {fault_rate!r}")
    return int(round(fault_rate * radix * radix))


def point_seeds(seed: int, radix: int, m: int, fault_rate: float, trials: int) -> np.ndarray:
    """Per-trial uint64 seeds of the point ``(N, m, f)`` from ``SeedSequence([seed, N, m, round(1000 f)])``.

    Examples
    --------
    >>> bool((point_seeds(1, 16, 3, 0.1, 5) == point_seeds(1, 16, 3, 0.1, 8)[:5]).all())
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be a non-negative int, got {seed!r}")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials!r}")
    sequence = np.random.SeedSequence([int(seed), int(radix), int(m), int(round(1000 * fault_rate))])
    return np.random.default_rng(sequence).integers(0, 2**64 - 1, size=int(trials), dtype=np.uint64, endpoint=True)


def run_point(radix: int, m: int, fault_rate: float, trials: int, seed: int,
              algorithms: Sequence[str] = ALGORITHMS) -> dict[str, np.ndarray]:
    """Per-trial results of one point (see :func:`torus_lab.routing.square.evaluate_batch`), plus timing.

    Examples
    --------
    >>> out = run_point(16, 3, 0.1, 50, seed=3)
    >>> out["status"].shape
    (50, 4)
    """
    start = time.perf_counter()
    out = evaluate_batch(radix, m, fault_count(radix, fault_rate), point_seeds(seed, radix, m, fault_rate, trials),
                         tuple(algorithms))
    out["seconds"] = np.array(time.perf_counter() - start)
    return out


def summarize_point(radix: int, m: int, fault_rate: float, seed: int, out: dict[str, np.ndarray],
                    algorithms: Sequence[str] = ALGORITHMS) -> list[dict]:
    """CSV rows of one point: one per algorithm and one for the oracle (its successes = connected pairs).

    ``path_plus_mean`` is the mean of ``|P| / Lee distance(s, t)`` over successes (the paper's path plus);
    ``oracle_stretch_mean`` the mean of ``|P| / fault-free distance`` over successes; ``local_routings_mean``
    the mean number of square BFS evaluations per trial (all trials); ``travelled_plus_mean`` the hops the
    message actually moved (with Backtracking-Square's walks back) / Lee distance, over successes;
    ``oracle_path_plus_on_successes`` the shortest fault-free distance / Lee distance on the same successful
    trials (the best path plus possible on the pairs this algorithm routed).

    Examples
    --------
    >>> out = run_point(16, 4, 0.2, 100, seed=5)
    >>> rows = summarize_point(16, 4, 0.2, 5, out)
    >>> [r["algorithm"] for r in rows][-1], rows[-1]["success_rate"] == rows[-1]["oracle_connected_rate"]
    ('oracle', True)
    """
    trials = out["status"].shape[0]
    connected = out["oracle"] >= 0
    connected_rate = float(connected.mean())
    common = {"N": radix, "m": m, "fault_rate": fault_rate, "trials": trials,
              "oracle_connected_rate": connected_rate, "fault_count": fault_count(radix, fault_rate), "seed": seed,
              "seconds": float(out["seconds"])}
    rows = []
    for a, name in enumerate(list(algorithms) + ["oracle"]):
        if name == "oracle":
            ok = connected
            length = out["oracle"]
        else:
            ok = out["status"][:, a] == 0
            length = out["length"][:, a]
        successes = int(ok.sum())
        low, high = wilson_interval(successes, trials)
        path_plus = float((length[ok] / out["lee"][ok]).mean()) if successes else float("nan")
        stretch = float((length[ok] / out["oracle"][ok]).mean()) if successes else float("nan")
        best = float((out["oracle"][ok] / out["lee"][ok]).mean()) if successes else float("nan")
        cap_hits = 0 if name == "oracle" else int((out["status"][:, a] == 3).sum())
        if name == "oracle":
            routings, travelled = float("nan"), path_plus
        else:
            routings = float(out["local_routings"][:, a].mean())
            travelled = float((out["travelled"][ok, a] / out["lee"][ok]).mean()) if successes else float("nan")
        rows.append({**common, "algorithm": name, "successes": successes, "success_rate": successes / trials,
                     "ci_low": low, "ci_high": high, "path_plus_mean": path_plus,
                     "success_given_connected": successes / max(int(connected.sum()), 1),
                     "oracle_stretch_mean": stretch, "local_routings_mean": routings,
                     "travelled_plus_mean": travelled, "oracle_path_plus_on_successes": best,
                     "cap_hits": cap_hits})
    return rows


def _paired_ratio(x: np.ndarray, y: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Ratio mean(x)/mean(y) of paired 0/1 outcomes with a delta-method CI on the log scale."""
    n = len(x)
    px, py = x.mean(), y.mean()
    if px == 0 or py == 0:
        return (float("nan"),) * 3
    cov = np.cov(np.vstack([x, y]).astype(float), ddof=1) if n > 1 else np.zeros((2, 2))
    var = (cov[0, 0] / px**2 + cov[1, 1] / py**2 - 2 * cov[0, 1] / (px * py)) / n
    z = norm.ppf(0.5 + confidence / 2)
    ratio = px / py
    half = z * np.sqrt(max(var, 0.0))
    return float(ratio), float(ratio * np.exp(-half)), float(ratio * np.exp(half))


def ratio_rows(radix: int, m: int, fault_rate: float, out: dict[str, np.ndarray],
               algorithms: Sequence[str] = ALGORITHMS) -> list[dict]:
    """Improvement ratios (success rate of A / success rate of B) of :data:`RATIOS` with paired 95% CIs.

    Examples
    --------
    >>> out = run_point(16, 3, 0.25, 300, seed=2)
    >>> row = ratio_rows(16, 3, 0.25, out)[0]
    >>> row["numerator"], row["denominator"], row["ci_low"] <= row["ratio"] <= row["ci_high"]
    ('adaptive_square', 'chain', True)
    """
    names = list(algorithms)
    outcome = {name: out["status"][:, a] == 0 for a, name in enumerate(names)}
    outcome["oracle"] = out["oracle"] >= 0
    rows = []
    for numerator, denominator in RATIOS:
        if numerator not in outcome or denominator not in outcome:
            continue
        ratio, low, high = _paired_ratio(outcome[numerator], outcome[denominator])
        rows.append({"N": radix, "m": m, "fault_rate": fault_rate, "numerator": numerator, "denominator": denominator,
                     "ratio": ratio, "ci_low": low, "ci_high": high})
    return rows


def run_study(pairs: Sequence[tuple[int, int]], fault_rates: Sequence[float], trials: int, seed: int,
              algorithms: Sequence[str] = ALGORITHMS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run every ``(N, m)`` of ``pairs`` at every fault rate; returns (success table, improvement ratios).

    The success table has :data:`TABLE_COLUMNS`; failures of each algorithm are broken down by reason in the
    extra columns ``fail_<code>`` (see :data:`torus_lab.routing.square.REASONS`).
    """
    rows, ratios = [], []
    for radix, m in pairs:
        for rate in fault_rates:
            out = run_point(radix, m, rate, trials, seed, algorithms)
            point_rows = summarize_point(radix, m, rate, seed, out, algorithms)
            for a, row in enumerate(point_rows[:-1]):
                for code in REASONS:
                    if code:
                        row[f"fail_{code}"] = int((out["status"][:, a] == code).sum())
            rows += point_rows
            ratios += ratio_rows(radix, m, rate, out, algorithms)
    table = pd.DataFrame(rows)
    extra = [c for c in table.columns if c.startswith("fail_")]
    return table[TABLE_COLUMNS + extra], pd.DataFrame(ratios)


def approx_verdict(measured: float, paper: float, ci_low: float, ci_high: float, *, tolerance: float = 0.10) -> str:
    """Verdict for a paper's "about X": holds if within ``tolerance`` (relative) of X or X lies in the 95% CI,
    partly holds if within twice the tolerance, otherwise does not hold; "not tested" for NaN.

    Examples
    --------
    >>> approx_verdict(1.25, 1.2, 1.2, 1.3), approx_verdict(1.4, 1.2, 1.35, 1.45), approx_verdict(2.0, 1.2, 1.9, 2.1)
    ('holds', 'partly holds', 'does not hold')
    """
    if not np.isfinite(measured):
        return "not tested"
    error = abs(measured - paper) / paper
    if error <= tolerance or ci_low <= paper <= ci_high:
        return "holds"
    if error <= 2 * tolerance:
        return "partly holds"
    return "does not hold"


def after_fallback_comparison(pairs: Sequence[tuple[int, int]], fault_rates: Sequence[float], trials: int,
                              seed: int) -> pd.DataFrame:
    """Heuristic-Square REC (``after_fallback="max"``) against ALT (``"previous"``) on the same trials.

    Examples
    --------
    >>> df = after_fallback_comparison([(16, 3)], [0.2], 200, seed=1)
    >>> list(df["variant"])
    ['max', 'previous']
    """
    rows = []
    for radix, m in pairs:
        for rate in fault_rates:
            seeds = point_seeds(seed, radix, m, rate, trials)
            for variant in ("max", "previous"):
                out = evaluate_batch(radix, m, fault_count(radix, rate), seeds, ("heuristic_square",),
                                     after_fallback=variant, with_oracle=False)
                successes = int((out["status"][:, 0] == 0).sum())
                low, high = wilson_interval(successes, trials)
                rows.append({"N": radix, "m": m, "fault_rate": rate, "variant": variant, "trials": trials,
                             "successes": successes, "success_rate": successes / trials, "ci_low": low,
                             "ci_high": high, "seed": seed})
    return pd.DataFrame(rows)
