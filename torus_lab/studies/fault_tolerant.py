"""Evaluation of Li, Peng & Chu's online fault-tolerant routing in 2D tori (ISPA 2005, Section 6, Figs. 4-15).

Set-up of the paper (``docs/conventions.md#square-trials``): group 1 ``N = 16, 32`` with ``m = 3, 4, 5``; group 2
``N = 64, 128`` with ``m = 6, 7, 8``; uniform random node faults of 5..25% in 5% steps; 10,000 trials per ``(N, m, f)``.

Trial (REC): exactly ``round(f * N^2)`` faulty nodes drawn uniformly, then a uniform pair of distinct
non-faulty nodes ``(s, t)``; success = a path is returned.  Every algorithm and the oracle (BFS over the whole
faulty torus: connected? shortest fault-free distance) run on the **same** trials (paired comparison).

Entry point: :func:`run` (the experiment ``fault_tolerant``, parameters of ``experiments/fault_tolerant.yaml``).
Every point ``(N, m, f)`` is one item of :func:`torus_lab.sweep.sweep` (:func:`point_item`); the search for the
example trial drawn in the notebook is one more item (:func:`example_item`).

Randomness: the only source is the ``rng`` that ``sweep`` hands to each item (its seed derives from the
experiment seed and the item).  It draws one 64-bit seed per trial (:func:`trial_seeds`), and
:func:`torus_lab.routing.square.draw_trial` expands that seed (SplitMix64 partial Fisher-Yates) into the fault set
and the pair inside the numba kernel.  Results therefore do not depend on the sweep backend, on the number of
processes or on the number of numba threads.

Parallelism: points run in parallel over the sweep's workers; inside a worker process each point's trials run on
one thread (the batch kernel compiled without ``prange``, see :func:`in_worker_process`), so ``P`` workers use
``P`` threads in all, not ``P x cores``, and workers forked from a process that already used numba's GNU OpenMP
threading layer never touch it (that would abort them).  In the calling process (serial backend, or a single
item) the trials of a point run in parallel over numba's threads as before.

Examples
--------
>>> table, ratios = run_points([(16, 3)], [0.1], trials=200, seed=1, backend="serial")
>>> sorted(table["algorithm"].unique())[:2]
['adaptive_square', 'backtracking_square']
>>> bool((table["ci_low"] <= table["success_rate"]).all())
True
"""

from __future__ import annotations

import math
import multiprocessing
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm

from torus_lab._memory import check_memory
from torus_lab._validate import (
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_real,
    check_sequence,
    check_str,
)
from torus_lab.claims import Claim, Rule, claims_table, data_file
from torus_lab.routing.square import ALGORITHMS, REASONS, Square, draw_trial, evaluate_batch, oracle, route
from torus_lab.sweep import sweep
from torus_lab.timing import split_timing, timing_key
from torus_lab.topology import Torus

__all__ = [
    "PAPER_GROUPS",
    "PAPER_FAULT_RATES",
    "TABLE_COLUMNS",
    "TABLE_TIMING_COLUMNS",
    "RATIOS",
    "LABEL",
    "CLAIM_FAULT_RATE",
    "run",
    "trial_seeds",
    "in_worker_process",
    "fault_count",
    "run_point",
    "summarize_point",
    "ratio_rows",
    "point_item",
    "run_points",
    "example_item",
    "example_routes",
    "example_frame",
    "square_cover",
    "walk_segments",
    "oracle_gap",
    "backtracking_cost",
    "after_fallback_differences",
    "failure_reasons",
    "summary_by_algorithm",
    "wilson_interval",
    "trend_counts",
    "claims_frame",
]

#: (N, m) pairs of the paper's two groups.
PAPER_GROUPS = {
    1: [(16, 3), (16, 4), (16, 5), (32, 3), (32, 4), (32, 5)],
    2: [(64, 6), (64, 7), (64, 8), (128, 6), (128, 7), (128, 8)],
}
PAPER_FAULT_RATES = [0.05, 0.10, 0.15, 0.20, 0.25]
#: Columns of the success table of :func:`run_points` (issue #4's CSV, then diagnostics of ours); the
#: science CSV ``fault_tolerant.csv`` holds all but :data:`TABLE_TIMING_COLUMNS`.
TABLE_COLUMNS = [
    "N", "m", "fault_rate", "algorithm", "trials", "successes", "success_rate", "ci_low", "ci_high",
    "path_plus_mean", "oracle_connected_rate",
    "fault_count", "success_given_connected", "oracle_stretch_mean", "local_routings_mean", "travelled_plus_mean",
    "oracle_path_plus_on_successes", "cap_hits", "seed", "seconds",
]  # fmt: skip
#: Measured (machine-dependent) columns of the success table: written apart as timing, never as science.
TABLE_TIMING_COLUMNS = ["seconds"]
#: Columns that identify one point of the success table (its timing file has one row per point).
POINT_KEYS = ["N", "m", "fault_rate"]
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
#: Display names of the algorithms and the oracle (figure titles and legends).
LABEL = {"chain": "Chain", "adaptive_square": "Adaptive-Square", "heuristic_square": "Heuristic-Square",
         "backtracking_square": "Backtracking-Square (ours)", "oracle": "oracle (connected)"}
#: The fault rate of the paper's numeric claims (its text quotes ratios at 25% faults).
CLAIM_FAULT_RATE = 0.25


def _counts(name: str, values: object) -> np.ndarray:
    """``values`` (a number or an array of numbers) as a float array, refusing bools, strings and NaN."""
    try:
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {values!r:.200}") from None
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a number or an array of numbers, got {values!r}")
    array = array.astype(float)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite, got {values!r}")
    return array


def wilson_interval(successes: int | np.ndarray, trials: int | np.ndarray, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes, trials : int or array of int
        Elementwise ``trials >= 1`` and ``0 <= successes <= trials`` (broadcast against each other).
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    (low, high)
        Floats for scalar input, arrays otherwise.

    Raises
    ------
    ValueError
        For ``trials < 1``, ``successes`` outside ``0..trials`` or ``confidence`` outside ``(0, 1)``
        (elementwise; the message names the first offending entry).

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(90, 100)]
    [0.8256, 0.9448]
    >>> wilson_interval(5, 3)
    Traceback (most recent call last):
    ...
    ValueError: successes must be in 0..trials, got successes = 5 with trials = 3
    """
    n = _counts("trials", trials)
    x = _counts("successes", successes)
    confidence = check_real("confidence", confidence, 0, 1, open_maximum=True)
    if confidence == 0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    try:
        x, n = np.broadcast_arrays(x, n)
    except ValueError:
        raise ValueError(f"successes and trials must have compatible shapes, got {np.shape(successes)} and "
                         f"{np.shape(trials)}") from None  # fmt: skip
    if (n < 1).any():
        raise ValueError(f"trials must be >= 1, got {_first(n, n < 1)}")
    bad = (x < 0) | (x > n)
    if bad.any():
        where = tuple(np.argwhere(bad)[0])
        raise ValueError(f"successes must be in 0..trials, got successes = {_num(x[where])} with trials = "
                         f"{_num(n[where])}")  # fmt: skip
    z = norm.ppf(0.5 + confidence / 2)
    p = x / n
    centre = (p + z * z / 2 / n) / (1 + z * z / n)  # divided step by step: no n * n overflow for huge trials
    half = z * np.sqrt(p * (1 - p) / n + (z / 2 / n) ** 2) / (1 + z * z / n)
    low = np.minimum(centre - half, p)  # the interval contains p; guard against rounding at p = 0 or 1
    high = np.maximum(centre + half, p)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _first(values: np.ndarray, bad: np.ndarray) -> int | float:
    return _num(values[tuple(np.argwhere(bad)[0])])


def fault_count(radix: int, fault_rate: float) -> int:
    """Number of faulty nodes of a trial: ``round(fault_rate * N^2)``.

    ``fault_rate`` must leave two non-faulty nodes (the source and the target): ``round(fault_rate * N^2) <=
    N^2 - 2``.

    Examples
    --------
    >>> fault_count(16, 0.05)
    13
    >>> fault_count(16, 0.999)
    Traceback (most recent call last):
    ...
    ValueError: fault_rate must be in [0, 0.9922] for N = 16 (at most N^2 - 2 = 254 faulty nodes), got 0.999
    """
    radix = check_int("radix", radix, 2)
    rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    total = radix * radix
    count = int(round(rate * total))
    if count > total - 2:
        limit = (total - 2) / total
        raise ValueError(f"fault_rate must be in [0, {limit:.4g}] for N = {radix} (at most N^2 - 2 = {total - 2} "
                         f"faulty nodes), got {fault_rate!r}")  # fmt: skip
    return count


def _check_algorithms(algorithms: object) -> list[str]:
    """``algorithms`` as a list of names from :data:`ALGORITHMS`."""
    return [check_str("algorithms", name, ALGORITHMS) for name in check_sequence("algorithms", algorithms)]


def _check_pair(name: str, pair: object) -> tuple[int, int]:
    """A ``(radix, m)`` pair or an ``(x, y)`` node: two ints."""
    items = check_sequence(name, pair)
    if len(items) != 2:
        raise ValueError(f"{name} must hold pairs of two ints, got {pair!r}")
    return check_int(name, items[0]), check_int(name, items[1])


def _check_optional_real(name: str, value: object) -> float | None:
    """A verdict input: None (not measured) or a number (NaN allowed), as a float."""
    return None if value is None else check_real(name, value, finite=False)


def trial_seeds(rng: np.random.Generator, trials: int) -> np.ndarray:
    """One uint64 seed per trial, drawn from ``rng`` (the generator :func:`torus_lab.sweep.sweep` gives an item).

    Examples
    --------
    >>> a = trial_seeds(np.random.default_rng(1), 5)
    >>> b = trial_seeds(np.random.default_rng(1), 8)
    >>> a.dtype.name, bool((a == b[:5]).all())
    ('uint64', True)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {rng!r}")
    trials = check_int("trials", trials, 1)
    check_memory(8 * trials, f"{trials} trial seeds")
    return rng.integers(0, 2**64 - 1, size=trials, dtype=np.uint64, endpoint=True)


def in_worker_process() -> bool:
    """True inside a worker process of a parallel sweep (a multiprocessing child: local processes or a Dask
    worker), where :func:`run_point` runs the batch kernel on one thread (``evaluate_batch(parallel=False)``).

    Examples
    --------
    >>> in_worker_process()  # the calling process is not a multiprocessing child
    False
    """
    return multiprocessing.parent_process() is not None


def run_point(radix: int, m: int, fault_rate: float, trials: int, rng: np.random.Generator,
              algorithms: Sequence[str] = ALGORITHMS) -> dict[str, np.ndarray]:
    """Per-trial results of one point (see :func:`torus_lab.routing.square.evaluate_batch`), plus timing.

    Also returns the trial seeds (``"seeds"``) so that other variants can be run on the same trials.

    Examples
    --------
    >>> out = run_point(16, 3, 0.1, 50, np.random.default_rng(3))
    >>> out["status"].shape, out["seeds"].shape
    ((50, 4), (50,))
    """
    check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_int("trials", trials, minimum=1)
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    algorithms = _check_algorithms(algorithms)
    count = fault_count(radix, fault_rate)
    seeds = trial_seeds(rng, trials)
    start = time.perf_counter()
    out = evaluate_batch(radix, m, count, seeds, tuple(algorithms), parallel=not in_worker_process())
    out["seconds"] = np.array(time.perf_counter() - start)
    out["seeds"] = seeds
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
    >>> out = run_point(16, 4, 0.2, 100, np.random.default_rng(5))
    >>> rows = summarize_point(16, 4, 0.2, 5, out)
    >>> [r["algorithm"] for r in rows][-1], rows[-1]["success_rate"] == rows[-1]["oracle_connected_rate"]
    ('oracle', True)
    """
    check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_int("seed", seed)
    check_mapping("out", out, ["status", "oracle", "seconds"])
    algorithms = _check_algorithms(algorithms)
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
    >>> out = run_point(16, 3, 0.25, 300, np.random.default_rng(2))
    >>> row = ratio_rows(16, 3, 0.25, out)[0]
    >>> row["numerator"], row["denominator"], row["ci_low"] <= row["ratio"] <= row["ci_high"]
    ('adaptive_square', 'chain', True)
    """
    check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_mapping("out", out, ["status", "oracle", "seconds"])
    algorithms = _check_algorithms(algorithms)
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


def _fail_counts(out: dict[str, np.ndarray], rows: list[dict]) -> None:
    """Add the failure counts by reason (``fail_<code>``) to each algorithm's row (not the oracle's)."""
    for a, row in enumerate(rows[:-1]):
        for code in REASONS:
            if code:
                row[f"fail_{code}"] = int((out["status"][:, a] == code).sum())


def point_item(radix: int, m: int, fault_rate: float, trials: int, compare_after_fallback: bool,
               rng: np.random.Generator) -> dict[str, list[dict]]:
    """One sweep item: every algorithm and the oracle on ``trials`` random trials of the point ``(N, m, f)``.

    Returns the CSV rows of the point (``"rows"``, with ``fail_<code>`` counts, ``seed`` left to the caller),
    its improvement ratios (``"ratios"``) and, when ``compare_after_fallback``, Heuristic-Square REC
    (``after_fallback="max"``, the ``heuristic_square`` column of the same run) against ALT (``"previous"``)
    on the same trials (``"after_fallback"``).

    Examples
    --------
    >>> out = point_item(16, 3, 0.2, 100, True, np.random.default_rng(1))
    >>> [row["variant"] for row in out["after_fallback"]], len(out["rows"])
    (['max', 'previous'], 5)
    """
    check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_int("trials", trials, minimum=1)
    check_instance("compare_after_fallback", compare_after_fallback, (bool, np.bool_), "a bool")
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    out = run_point(radix, m, fault_rate, trials, rng)
    rows = summarize_point(radix, m, fault_rate, -1, out)
    _fail_counts(out, rows)
    for row in rows:
        del row["seed"]
    result = {"rows": rows, "ratios": ratio_rows(radix, m, fault_rate, out), "after_fallback": []}
    if compare_after_fallback:
        alt = evaluate_batch(radix, m, fault_count(radix, fault_rate), out["seeds"], ("heuristic_square",),
                             after_fallback="previous", with_oracle=False, parallel=not in_worker_process())
        rec = out["status"][:, list(ALGORITHMS).index("heuristic_square")]
        for variant, status in (("max", rec), ("previous", alt["status"][:, 0])):
            successes = int((status == 0).sum())
            low, high = wilson_interval(successes, trials)
            result["after_fallback"].append({
                "N": radix, "m": m, "fault_rate": fault_rate, "variant": variant, "trials": trials,
                "successes": successes, "success_rate": successes / trials, "ci_low": low, "ci_high": high})
    return result


def _pairs(records: Sequence[Mapping[str, int]]) -> list[tuple[int, int]]:
    return [(int(r["radix"]), int(r["m"])) for r in records]


def run_points(pairs: Sequence[tuple[int, int]], fault_rates: Sequence[float], trials: int, seed: int, *,
               after_fallback_pairs: Sequence[tuple[int, int]] = (), backend: str = "auto"
               ) -> tuple[pd.DataFrame, pd.DataFrame] | tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Run every ``(N, m)`` of ``pairs`` at every fault rate, one :func:`point_item` per point over
    :func:`torus_lab.sweep.sweep`; returns (success table, improvement ratios), plus the REC/ALT comparison of
    Heuristic-Square when ``after_fallback_pairs`` is not empty.

    The success table has :data:`TABLE_COLUMNS`; failures of each algorithm are broken down by reason in the
    extra columns ``fail_<code>`` (see :data:`torus_lab.routing.square.REASONS`).  Every frame has a ``seed``
    column (the experiment seed).
    """
    pairs = [_check_pair("pairs", p) for p in check_sequence("pairs", pairs)]
    fault_rates = [check_real("fault_rates", r, 0, 1) for r in check_sequence("fault_rates", fault_rates)]
    check_int("trials", trials, minimum=1)
    check_int("seed", seed, minimum=0)
    after_fallback_pairs = [_check_pair("after_fallback_pairs", p)
                            for p in check_sequence("after_fallback_pairs", after_fallback_pairs)]
    check_str("backend", backend)
    focus = {tuple(p) for p in after_fallback_pairs}
    items = [{"radix": int(radix), "m": int(m), "fault_rate": float(rate), "trials": int(trials),
              "compare_after_fallback": (radix, m) in focus} for radix, m in pairs for rate in fault_rates]
    outs = sweep(point_item, items, seed=seed, backend=backend, desc="fault_tolerant points")
    table = pd.DataFrame([row for out in outs for row in out["rows"]])
    table["seed"] = seed
    extra = [c for c in table.columns if c.startswith("fail_")]
    table = table[TABLE_COLUMNS + extra]
    ratios = pd.DataFrame([row for out in outs for row in out["ratios"]])
    ratios.insert(0, "seed", seed)
    if not focus:
        return table, ratios
    alt = pd.DataFrame([row for out in outs for row in out["after_fallback"]])
    alt["seed"] = seed
    return table, ratios, alt


# ---------------------------------------------------------------------------------------------- example trial
def example_item(radix: int, m: int, fault_rate: float, search_trials: int, rng: np.random.Generator) -> dict:
    """One sweep item: the first of ``search_trials`` random trials (in draw order) in which the three paper
    algorithms do not all agree and ``s, t`` are connected (the notebook's picture); the last trial searched
    when there is none (``disagree`` False).

    Examples
    --------
    >>> pick = example_item(16, 3, 0.2, 500, np.random.default_rng(4))
    >>> sorted(pick)
    ['disagree', 'fault_count', 'm', 'radix', 'trial', 'trial_seed']
    """
    check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_int("search_trials", search_trials, minimum=1)
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    torus = Torus(2, radix)
    count = fault_count(radix, fault_rate)
    seeds = trial_seeds(rng, search_trials)
    for q, trial_seed in enumerate(seeds):  # sequential search: stops at the first hit
        mask, s, t = draw_trial(radix, count, int(trial_seed))
        outcome = {route(name, torus, mask, s, t, m).success for name in ALGORITHMS[:3]}
        if len(outcome) > 1 and oracle(torus, mask, s, t).connected:
            return {"radix": radix, "m": m, "fault_count": count, "trial": q, "trial_seed": int(trial_seed),
                    "disagree": True}
    return {"radix": radix, "m": m, "fault_count": count, "trial": len(seeds) - 1, "trial_seed": int(seeds[-1]),
            "disagree": False}


def example_routes(radix: int, m: int, fault_count: int, trial_seed: int):
    """The trial ``trial_seed`` and every algorithm's routing on it: ``(mask, s, t, {algorithm: RoutingResult},
    OracleResult)`` (drawing data of the example figure).

    Examples
    --------
    >>> mask, s, t, results, best = example_routes(16, 3, 51, 7)
    >>> sorted(results) == sorted(ALGORITHMS), best.connected == (best.distance is not None)
    (True, True)
    """
    radix = check_int("radix", radix, minimum=2)
    check_int("m", m, minimum=1)
    fault_count = check_int("fault_count", fault_count, minimum=0)
    check_int("trial_seed", trial_seed, minimum=0, maximum=2**64 - 1)  # a uint64 seed of draw_trial
    if fault_count > radix * radix - 2:
        raise ValueError(f"fault_count must be at most radix * radix - 2 = {radix * radix - 2}, got {fault_count}")
    torus = Torus(2, radix)
    mask, s, t = draw_trial(radix, fault_count, int(trial_seed))
    results = {name: route(name, torus, mask, s, t, m) for name in ALGORITHMS}
    return mask, s, t, results, oracle(torus, mask, s, t)


def example_frame(pick: Mapping[str, Any], fault_rate: float, seed: int) -> pd.DataFrame:
    """The example trial as a table: one row per algorithm and one for the oracle.

    Examples
    --------
    >>> pick = {"radix": 16, "m": 3, "fault_count": 51, "trial": 0, "trial_seed": 7, "disagree": False}
    >>> list(example_frame(pick, 0.2, 1)["algorithm"])[-1]
    'oracle'
    """
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_int("seed", seed)
    check_mapping("pick", pick, ["radix", "m", "fault_count", "trial_seed", "trial", "disagree"])
    mask, s, t, results, best = example_routes(pick["radix"], pick["m"], pick["fault_count"], pick["trial_seed"])
    lee = Torus(2, pick["radix"]).lee_distance(s, t)
    common = {"N": pick["radix"], "m": pick["m"], "fault_rate": fault_rate, "fault_count": pick["fault_count"],
              "trial": pick["trial"], "trial_seed": pick["trial_seed"], "disagree": pick["disagree"],
              "source": str(s), "target": str(t), "lee_distance": lee}
    rows = [{**common, "algorithm": name, "success": r.success, "squares": len(r.squares), "length": r.length,
             "reason": r.reason} for name, r in results.items()]
    rows.append({**common, "algorithm": "oracle", "success": best.connected, "squares": 0, "length": best.distance,
                 "reason": ""})
    frame = pd.DataFrame(rows)
    frame["length"] = frame["length"].astype("Int64")
    frame["seed"] = seed
    return frame


def square_cover(squares, radix: int) -> np.ndarray:
    """How many of ``squares`` (:class:`torus_lab.routing.square.Square`) cover each node, as a
    ``radix x radix`` array indexed ``[x0, x1]``.

    Examples
    --------
    >>> from torus_lab.routing.square import Square
    >>> cover = square_cover([Square(0, (0, 0), (1, 1), (1, 1), 2)] * 2, 4)
    >>> int(cover[0, 0]), int(cover[2, 2]), int(cover.sum())
    (2, 0, 8)
    """
    squares = check_sequence("squares", squares)
    check_int("radix", radix, minimum=1)
    for square in squares:
        check_instance("squares", square, Square, "routing Squares")
    cover = np.zeros((radix, radix))
    for square in squares:
        for x, y in square.nodes(radix):
            cover[x, y] += 1
    return cover


def walk_segments(walk: Sequence[tuple[int, int]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Line segments drawing a walk on the ``k x k`` grid: a hop between grid neighbours is one segment, a
    wraparound hop two half-cell stubs leaving the grid at both ends.

    Examples
    --------
    >>> walk_segments([(0, 0), (1, 0)])
    [((0, 0), (1, 0))]
    >>> walk_segments([(0, 0), (7, 0)])  # wraparound hop 0 -> 7 in an 8-ring
    [((0, 0), (-0.5, 0)), ((7, 0), (7.5, 0))]
    """
    walk = [_check_pair("walk", v) for v in check_sequence("walk", walk)]
    segments = []
    for (x0, y0), (x1, y1) in zip(walk[:-1], walk[1:], strict=True):
        if abs(x1 - x0) + abs(y1 - y0) == 1:
            segments.append(((x0, y0), (x1, y1)))
        else:
            dx = float(np.sign(x1 - x0) * -0.5) if x1 != x0 else 0
            dy = float(np.sign(y1 - y0) * -0.5) if y1 != y0 else 0
            segments.append(((x0, y0), (x0 + dx, y0 + dy)))
            segments.append(((x1, y1), (x1 - dx, y1 - dy)))
    return segments


# ---------------------------------------------------------------------------------------------- analysis tables
def _rows_at(frame: pd.DataFrame, fault_rates: Sequence[float]) -> pd.Series:
    return np.isclose(frame["fault_rate"].to_numpy()[:, None], np.asarray(fault_rates, dtype=float)[None, :]).any(1)


def oracle_gap(table: pd.DataFrame, fault_rates: Sequence[float] | None = None) -> pd.DataFrame:
    """Success among connected pairs (``success_given_connected``) per point and algorithm, and the share of
    Heuristic-Square's gap to the oracle that Backtracking-Square closes; only ``fault_rates`` if given.

    Examples
    --------
    >>> table = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.25, "algorithm": list(ALGORITHMS),
    ...                       "success_given_connected": [0.5, 0.6, 0.8, 0.9]})
    >>> float(oracle_gap(table)["share_of_heuristic_gap_closed_by_ours"].iloc[0])
    0.5
    """
    if fault_rates is not None:
        fault_rates = [check_real("fault_rates", r, 0, 1) for r in check_sequence("fault_rates", fault_rates)]
    check_frame("table", table, ["N", "m", "fault_rate", "algorithm", "success_given_connected"])
    gap = table.pivot_table(index=["N", "m", "fault_rate"], columns="algorithm", values="success_given_connected")
    gap = gap[list(ALGORITHMS)]
    gap.columns.name = None
    closed = (gap["backtracking_square"] - gap["heuristic_square"]) / (1 - gap["heuristic_square"])
    gap["share_of_heuristic_gap_closed_by_ours"] = closed
    gap = gap.reset_index()
    if fault_rates is not None:
        gap = gap[_rows_at(gap, fault_rates)].reset_index(drop=True)
    return gap


def backtracking_cost(table: pd.DataFrame, pairs: Sequence[tuple[int, int]], fault_rate: float) -> pd.DataFrame:
    """The price of backtracking at ``fault_rate`` for each ``(N, m)`` of ``pairs``: success rate, local
    routings per trial, path plus and hops travelled / Lee distance of every local algorithm.

    Examples
    --------
    >>> table = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.25, "algorithm": ["chain", "oracle"],
    ...                       "success_rate": [0.5, 0.9], "local_routings_mean": [2.0, np.nan],
    ...                       "path_plus_mean": 1.0, "travelled_plus_mean": 1.0})
    >>> backtracking_cost(table, [(16, 3)], 0.25)["algorithm"].tolist()
    ['chain']
    """
    pairs = [_check_pair("pairs", p) for p in check_sequence("pairs", pairs)]
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_frame("table", table, ["algorithm", "N", "m"])
    columns = ["success_rate", "local_routings_mean", "path_plus_mean", "travelled_plus_mean"]
    keep = (table["algorithm"] != "oracle") & _rows_at(table, [fault_rate])
    keep &= pd.Series(list(zip(table["N"], table["m"], strict=True)), index=table.index).isin(
        [tuple(p) for p in pairs])
    return table.loc[keep, ["N", "m", "algorithm", *columns]].reset_index(drop=True)


def after_fallback_differences(alt: pd.DataFrame) -> pd.DataFrame:
    """Successes of Heuristic-Square REC (``max``) and ALT (``previous``) per point, and whether they differ.

    Examples
    --------
    >>> alt = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.2, "variant": ["max", "previous"],
    ...                     "successes": [90, 90]})
    >>> after_fallback_differences(alt)[["max", "previous", "differ"]].values.tolist()
    [[90, 90, False]]
    """
    check_frame("alt", alt, ["N", "m", "fault_rate", "variant", "successes"])
    wide = alt.pivot_table(index=["N", "m", "fault_rate"], columns="variant", values="successes")
    wide.columns.name = None
    wide = wide.astype(int).reset_index()
    wide["differ"] = wide["max"] != wide["previous"]
    return wide


def failure_reasons(table: pd.DataFrame) -> pd.DataFrame:
    """Failures summed over all points, by reason (rows) and algorithm (columns).

    Examples
    --------
    >>> table = pd.DataFrame({"algorithm": ["chain", "oracle"], "fail_1": [3, 0], "fail_2": [1, 0]})
    >>> failure_reasons(table)["chain"].tolist()
    [3, 1]
    """
    check_frame("table", table, ["algorithm"])
    codes = [c for c in table.columns if c.startswith("fail_")]
    sums = table[table["algorithm"] != "oracle"].groupby("algorithm", sort=False)[codes].sum().astype(int).T
    sums.columns.name = None
    sums.insert(0, "reason", [REASONS[int(c.split("_")[1])][:60] for c in codes])
    sums.insert(0, "code", [int(c.split("_")[1]) for c in codes])
    return sums.reset_index(drop=True)


def summary_by_algorithm(table: pd.DataFrame, gap: pd.DataFrame, fault_rate: float) -> pd.DataFrame:
    """One row per local algorithm at ``fault_rate``: success range over ``(N, m)``, mean success among
    connected pairs, mean local routings per trial, mean hops travelled / Lee distance; the Backtracking-Square
    row also has the range and mean of the share of Heuristic-Square's gap it closes (from :func:`oracle_gap`).

    Examples
    --------
    >>> table = pd.DataFrame({"N": [16, 32], "m": 3, "fault_rate": 0.25, "algorithm": "chain",
    ...                       "success_rate": [0.5, 0.7], "success_given_connected": [0.5, 0.7],
    ...                       "local_routings_mean": 2.0, "travelled_plus_mean": 1.0})
    >>> row = summary_by_algorithm(table, pd.DataFrame(columns=["fault_rate"]), 0.25).iloc[0]
    >>> float(row["success_min"]), float(row["success_max"])
    (0.5, 0.7)
    """
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    check_frame("table", table, ["algorithm"])
    check_frame("gap", gap, [])
    at = table[_rows_at(table, [fault_rate]) & (table["algorithm"] != "oracle")]
    rows = []
    closed = gap.loc[_rows_at(gap, [fault_rate]), "share_of_heuristic_gap_closed_by_ours"] if len(gap) else []
    for algorithm, sub in at.groupby("algorithm", sort=False):
        ours = algorithm == "backtracking_square" and len(closed)
        rows.append({"algorithm": algorithm, "fault_rate": fault_rate, "success_min": sub["success_rate"].min(),
                     "success_max": sub["success_rate"].max(),
                     "success_given_connected_mean": sub["success_given_connected"].mean(),
                     "local_routings_mean": sub["local_routings_mean"].mean(),
                     "travelled_plus_mean": sub["travelled_plus_mean"].mean(),
                     "heuristic_gap_closed_min": float(np.min(closed)) if ours else np.nan,
                     "heuristic_gap_closed_max": float(np.max(closed)) if ours else np.nan,
                     "heuristic_gap_closed_mean": float(np.mean(closed)) if ours else np.nan})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- claims
#: Tolerance of the paper's "about X" ratios: on the improvement X - 1 (relative), not on the ratio; "holds" within
#: :data:`RATIO_TOLERANCE` (or X inside the 95% CI), "holds approximately" within :data:`RATIO_APPROX`.
RATIO_TOLERANCE = 0.10
RATIO_APPROX = 0.25  #: see :data:`RATIO_TOLERANCE`
#: Largest improvement (ratio - 1) we read as "not much better" (the paper gives no number).
NOT_MUCH_BETTER = 0.10
_RATIO_CI = "delta method on the log of the paired ratio, 95%"


def trend_counts(table: pd.DataFrame, kind: str,
                 algorithms: Sequence[str] = ALGORITHMS[:3]) -> tuple[int, int, int, int]:  # fmt: skip
    """Comparisons in which a trend holds strictly, ties, reversals within noise (the two 95% CIs overlap) and
    the number of comparisons.

    ``kind="m"``: success at ``(N, m + 1, f)`` > at ``(N, m, f)``; ``kind="N"``: success at ``(2N, m, f)`` <
    at ``(N, m, f)``; for each algorithm of ``algorithms``.  A tie (equal success rates, e.g. both 1.0) does
    not count as the trend; ties count as within noise.

    Examples
    --------
    >>> table = pd.DataFrame({"N": [16, 16, 32], "m": [3, 4, 3], "fault_rate": 0.1, "algorithm": "chain",
    ...                       "success_rate": [0.8, 0.9, 0.8], "ci_low": [0.7, 0.8, 0.7], "ci_high": 0.95})
    >>> trend_counts(table, "m", ["chain"]), trend_counts(table, "N", ["chain"])
    ((1, 0, 0, 1), (0, 1, 0, 1))
    """
    check_str("kind", kind, ("m", "N"))
    algorithms = _check_algorithms(algorithms)
    check_frame("table", table, ["algorithm", "N", "m", "fault_rate", "success_rate", "ci_low", "ci_high"])
    strict = ties = noise = total = 0
    for algorithm in algorithms:
        sub = table[table["algorithm"] == algorithm].set_index(["N", "m", "fault_rate"])
        for key, row in sub.iterrows():
            radix, m, f = key
            other_key = (radix, m + 1, f) if kind == "m" else (2 * radix, m, f)
            if other_key not in sub.index:
                continue
            other = sub.loc[other_key]
            total += 1
            if other.success_rate == row.success_rate:
                ties += 1
            elif (other.success_rate > row.success_rate) == (kind == "m"):
                strict += 1
            else:
                noise += int(other.ci_low <= row.ci_high and row.ci_low <= other.ci_high)
    return strict, ties, noise, total


def _ratio_row(ratios: pd.DataFrame, radix: int, m: int, fault_rate: float, numerator: str, denominator: str):
    row = ratios[(ratios["N"] == radix) & (ratios["m"] == m) & _rows_at(ratios, [fault_rate])
                 & (ratios["numerator"] == numerator) & (ratios["denominator"] == denominator)]
    return row.iloc[0] if len(row) else None


#: The paper's "about X" ratios at 25% faults: (claim id, (N, m), numerator, denominator, X, location).
PAPER_RATIOS = [
    ("sq_vs_chain_32_3", (32, 3), "adaptive_square", "chain", 1.2, "Section 6, Fig. 8"),
    ("sq_vs_chain_128_6", (128, 6), "adaptive_square", "chain", 1.3, "Section 6, Fig. 9"),
    ("heur_vs_sq_32_3", (32, 3), "heuristic_square", "adaptive_square", 1.7, "Section 6, Fig. 14"),
    ("heur_vs_sq_128_6", (128, 6), "heuristic_square", "adaptive_square", 1.85, "Section 6, Fig. 15"),
]


def _conditions(table: pd.DataFrame, scope: str) -> str:
    """The measurement conditions shared by every claim, with ``scope`` (the points the claim uses) first."""
    trials = sorted(set(table["trials"])) if "trials" in table and len(table) else []
    seeds = sorted(set(table["seed"])) if "seed" in table and len(table) else []
    return (f"{scope}; {', '.join(map(str, trials)) or '?'} trials per point (exactly round(f N^2) faulty nodes, "
            "uniform, then a uniform pair of distinct non-faulty nodes; every algorithm on the same fault set and "
            f"pair); experiment seed {', '.join(map(str, seeds)) or '?'}; local routing BFS; readings of the "
            "pseudo-code as on the conventions page (Li, Peng & Chu section)")


def _evidence(*names: str) -> tuple[str, ...]:
    return tuple(data_file("fault_tolerant", name) for name in names)


def claims_frame(table: pd.DataFrame, ratios: pd.DataFrame) -> pd.DataFrame:
    """The claims table of the paper from the success table and the improvement ratios of :func:`run_points`.

    Verdicts come from :func:`torus_lab.claims.evaluate`: the "about X" ratios with a tolerance on the
    improvement X - 1 (``RATIO_TOLERANCE``, ``RATIO_APPROX``) or X inside the 95% CI; trends counted
    strictly (:func:`trend_counts`).  A claim whose points are not in the run is "not testable here".

    Examples
    --------
    >>> table, ratios = run_points([(16, 3), (16, 4)], [0.25], trials=100, seed=1, backend="serial")
    >>> claims = claims_frame(table, ratios)
    >>> claims.set_index("claim_id").loc["sq_vs_chain_32_3", "verdict"]
    'not testable here'
    """
    check_frame("table", table, ["algorithm", "fault_rate", "N", "m", "success_rate"])
    check_frame("ratios", ratios, ["numerator", "denominator", "N", "m", "fault_rate", "ratio", "ci_low", "ci_high"])
    rows = []
    scope = table[(table["algorithm"] == "heuristic_square") & (table["fault_rate"] <= 0.15 + 1e-9)]
    met = int((scope["success_rate"] >= 0.9).sum())
    if len(scope):
        worst = scope.loc[scope["success_rate"].idxmin()]
        measured = (f"{met} of {len(scope)} points >= 0.90; lowest {worst.success_rate:.3f} at (N={worst.N}, "
                    f"m={worst.m}, f={worst.fault_rate:.2f})")
    else:
        measured = "no point with f <= 0.15 in this run"
    points = sorted({(int(r.N), int(r.m)) for r in scope.itertuples()})
    rows.append(Claim(
        claim_id="heuristic_90pct", location="Abstract; Section 6, Figs. 12-13",
        statement="Heuristic-Square finds a fault-free path with probability >= 90% in tori up to 128x128 with up "
                  "to 15% faulty nodes",
        conditions=_conditions(table, f"(N, m) in {points}, fault rates <= 0.15"),
        paper_value=0.9, paper_text=">= 0.90 at every point", measured_value=met if len(scope) else math.nan,
        measured_text=measured, rule=Rule("all_of", {"n": len(scope)}), evidence=_evidence("fault_tolerant.csv")))
    for cid, (radix, m), num, den, paper, location in PAPER_RATIOS:
        r = _ratio_row(ratios, radix, m, CLAIM_FAULT_RATE, num, den)
        rows.append(Claim(
            claim_id=cid, location=location,
            statement=f"{LABEL[num]} / {LABEL[den]} success ratio at 25% faults, N={radix}, m={m} is about {paper}",
            conditions=_conditions(table, f"N={radix}, m={m}, 25% faulty nodes"),
            paper_value=paper, paper_text=f"about {paper} (improvement {paper - 1:.0%})",
            measured_value=r.ratio if r is not None else math.nan,
            measured_text=(f"{r.ratio:.3f} (improvement {r.ratio - 1:.1%})" if r is not None
                           else "point not in this run"),
            ci_low=r.ci_low if r is not None else math.nan, ci_high=r.ci_high if r is not None else math.nan,
            ci_method=_RATIO_CI if r is not None else "",
            rule=Rule("ratio_excess_within", {"tolerance": RATIO_TOLERANCE, "approx": RATIO_APPROX}),
            evidence=_evidence("improvement_ratios.csv")))
    r = _ratio_row(ratios, 16, 4, CLAIM_FAULT_RATE, "adaptive_square", "chain")
    rows.append(Claim(
        claim_id="sq_vs_chain_16_4", location="Section 6, Fig. 8",
        statement="Adaptive-Square is not much better than Chain for N=16, m=4",
        conditions=_conditions(table, "N=16, m=4, 25% faulty nodes (the paper names no fault rate; 25% is the rate "
                                      "of its other numbers)"),
        paper_text=f"not much better (no number; we read it as an improvement <= {NOT_MUCH_BETTER:.0%})",
        measured_value=r.ratio - 1 if r is not None else math.nan,
        measured_text=(f"ratio {r.ratio:.3f}, improvement {r.ratio - 1:.1%}" if r is not None
                       else "point not in this run"),
        ci_low=r.ci_low - 1 if r is not None else math.nan, ci_high=r.ci_high - 1 if r is not None else math.nan,
        ci_method=_RATIO_CI + " (of ratio - 1)" if r is not None else "",
        rule=Rule("at_most", {"bound": NOT_MUCH_BETTER}), evidence=_evidence("improvement_ratios.csv")))
    better = ratios[(ratios["numerator"] == "adaptive_square") & (ratios["denominator"] == "chain")]
    share = float((better["ratio"] > 1).mean()) if len(better) else math.nan
    rows.append(Claim(
        claim_id="sq_better_most", location="Section 6, Figs. 8-9",
        statement="Adaptive-Square is better than Chain in most cases",
        conditions=_conditions(table, f"all {len(better)} (N, m, f) points of the run"),
        paper_text="most points (we test: ratio > 1 at half of the points or more)",
        measured_value=share,
        measured_text=(f"ratio > 1 at {int((better['ratio'] > 1).sum())} of {len(better)} points" if len(better)
                       else "no point in this run"),
        rule=Rule("at_least", {"bound": 0.5}), evidence=_evidence("improvement_ratios.csv")))
    for cid, kind, text, location in (
            ("larger_m_helps", "m", "For a given N, a larger m gives a higher success rate (all three algorithms)",
             "Section 6, Figs. 4-7 and 12-13"),
            ("smaller_torus_better", "N", "For a given m, a smaller torus gives a higher success rate (all three "
             "algorithms)", "Section 6, Figs. 4-7 and 12-13")):  # fmt: skip
        strict, ties, noise, n = trend_counts(table, kind)
        rows.append(Claim(
            claim_id=cid, location=location, statement=text,
            conditions=_conditions(table, f"{n} comparisons of neighbouring {'m' if kind == 'm' else 'N (N vs 2N)'}"
                                          " at equal fault rate and algorithm; a tie is not a higher rate"),
            paper_text="qualitative (every comparison)", measured_value=strict if n else math.nan,
            measured_text=(f"strictly true in {strict} of {n} comparisons; {ties} ties; {n - strict - ties} reversed"
                           f", {noise} of them within noise (overlapping 95% Wilson CIs)" if n
                           else "no comparison in this run"),
            rule=Rule("all_of", {"n": n, "within_noise_k": strict + ties + noise}),
            evidence=_evidence("fault_tolerant.csv")))
    heur = ratios[(ratios["numerator"] == "heuristic_square") & (ratios["denominator"] == "adaptive_square")
                  & _rows_at(ratios, [CLAIM_FAULT_RATE])]
    above = int((heur["ci_low"] > 1).sum())
    rows.append(Claim(
        claim_id="heuristic_significant", location="Section 6, Figs. 14-15",
        statement="The improvement of Heuristic-Square over Adaptive-Square is significant (at 25% faults)",
        conditions=_conditions(table, f"{len(heur)} (N, m) points at 25% faulty nodes; 'significant' read as the "
                                      f"95% CI of the ratio above 1 ({_RATIO_CI})"),
        paper_text="significant (qualitative)", measured_value=above if len(heur) else math.nan,
        measured_text=(f"95% CI above 1 at {above} of {len(heur)} points; ratios {heur.ratio.min():.2f}-"
                       f"{heur.ratio.max():.2f}" if len(heur) else "no point at 25% faults in this run"),
        rule=Rule("all_of", {"n": len(heur)}), evidence=_evidence("improvement_ratios.csv")))
    return claims_table("fault_tolerant", rows)


# ---------------------------------------------------------------------------------------------- entry point
def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Everything the notebook shows, from the parameters of ``experiments/fault_tolerant.yaml``.

    Keys (CSV stems): ``fault_tolerant`` (success table), ``improvement_ratios``, ``heuristic_after_fallback``
    (REC vs ALT on the ``focus`` points), ``oracle_gap``, ``backtracking_cost``, ``after_fallback_differences``,
    ``failure_reasons``, ``summary_by_algorithm``, ``faulty_torus_example`` and ``claims``; the success
    table's :data:`TABLE_TIMING_COLUMNS` (kernel seconds per point) go to the timing frame
    ``fault_tolerant_timing`` (written as ``timing/fault_tolerant.csv``, see :mod:`torus_lab.timing`).
    """
    check_mapping("params", params, [
        "seed", "focus", "fault_rates", "trials", "group1", "group2", "picture_fault_rate", "picture_radix",
        "picture_m", "picture_search_trials", "gap_fault_rates", "summary_fault_rate",
    ])
    seed = params["seed"]
    pairs = _pairs(params["group1"]) + _pairs(params["group2"])
    focus = _pairs(params["focus"])
    missing = [p for p in focus if p not in pairs]
    if missing:
        raise ValueError(f"focus points {missing} are not in group1 + group2")
    table, ratios, alt = run_points(pairs, params["fault_rates"], params["trials"], seed, after_fallback_pairs=focus)
    pick = sweep(example_item, [{"radix": params["picture_radix"], "m": params["picture_m"],
                                 "fault_rate": float(params["picture_fault_rate"]),
                                 "search_trials": params["picture_search_trials"]}], seed=seed)[0]
    all_gap = oracle_gap(table)
    science, timing = split_timing(table, TABLE_TIMING_COLUMNS, POINT_KEYS)
    return {
        "fault_tolerant": science,
        "improvement_ratios": ratios,
        "heuristic_after_fallback": alt,
        "oracle_gap": oracle_gap(table, params["gap_fault_rates"]).assign(seed=seed),
        "backtracking_cost": backtracking_cost(table, focus, params["summary_fault_rate"]).assign(seed=seed),
        "after_fallback_differences": after_fallback_differences(alt).assign(seed=seed),
        "failure_reasons": failure_reasons(table).assign(seed=seed),
        "summary_by_algorithm": summary_by_algorithm(table, all_gap, params["summary_fault_rate"]).assign(seed=seed),
        "faulty_torus_example": example_frame(pick, float(params["picture_fault_rate"]), seed),
        "claims": claims_frame(table, ratios),
        timing_key("fault_tolerant"): timing.drop_duplicates(POINT_KEYS).reset_index(drop=True).assign(seed=seed),
    }
