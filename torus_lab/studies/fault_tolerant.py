"""Evaluation of Li, Peng & Chu's online fault-tolerant routing in 2D tori (ISPA 2005, Section 6, Figs. 4-15).

Set-up of the paper (``docs/conventions.md#square-trials``): group 1 ``N = 16, 32`` with ``m = 3, 4, 5``; group 2
``N = 64, 128`` with ``m = 6, 7, 8``; uniform random node faults of 5..25% in 5% steps; 10,000 trials per ``(N, m, f)``.

Trial (REC): exactly ``round(f * N^2)`` faulty nodes drawn uniformly, then a uniform pair of distinct
non-faulty nodes ``(s, t)``; success = a path is returned.  Every algorithm and the oracle (BFS over the whole
faulty torus: connected? shortest fault-free distance) run on the **same** trials (paired comparison).

Theorems 1-4 (Sections 2-5) are checked apart (:func:`theorem_checks`): Theorem 1 on maximal random
locally-safe fault sets (``docs/conventions.md#square-local-safety``), Theorems 2-4 as linear bounds on the local
routings and valid outputs in every trial (``docs/conventions.md#square-termination``).  The claims table, the
last step of :func:`run`, is built by :func:`torus_lab.studies.fault_tolerant_claims.claims`.

Entry point: :func:`run` (the experiment ``fault_tolerant``, parameters of ``experiments/fault_tolerant.yaml``).
Every point ``(N, m, f)`` is one item of :func:`torus_lab.sweep.sweep` (``point_item``); the search for the
example trial drawn in the notebook is one more item (``_example_item``).

Randomness: the only source is the ``rng`` that ``sweep`` hands to each item (its seed derives from the
experiment seed and the item).  It draws one 64-bit seed per trial (:func:`trial_seeds`), and
:func:`torus_lab.routing.square.draw_trial` expands that seed (SplitMix64 partial Fisher-Yates) into the fault set
and the pair inside the numba kernel.  Results therefore do not depend on the sweep backend, on the number of
processes or on the number of numba threads.

Parallelism: points run in parallel over the sweep's workers; inside a worker process each point's trials run on
one thread (the batch kernel compiled without ``prange``, see ``in_worker_process``), so ``P`` workers use
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

import json
import multiprocessing
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

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
from torus_lab.routing.square import (
    ALGORITHMS,
    PAPER_ALGORITHMS,
    REASONS,
    RoutingResult,
    chain_band,
    draw_trial,
    evaluate_batch,
    local_routing_bound,
    locally_safe,
    oracle,
    route,
    saturated_safe_faults,
    square_cover,
    step_progress,
    torus_connected,
    walk_is_fault_free,
)
from torus_lab.stats import paired_ratio_interval, wilson_interval
from torus_lab.studies.fault_tolerant_claims import claims
from torus_lab.sweep import sweep
from torus_lab.timing import split_timing, timing_key
from torus_lab.topology import Torus

__all__ = [
    "run",
    "PAPER_GROUPS",
    "PAPER_FAULT_RATES",
    "TABLE_COLUMNS",
    "RATIOS",
    "fault_count",
    "trial_seeds",
    "run_point",
    "run_points",
    "theorem_checks",
    "example_routes",
    "example_walks",
]

#: (N, m) pairs of the paper's two groups.
PAPER_GROUPS = {
    1: [(16, 3), (16, 4), (16, 5), (32, 3), (32, 4), (32, 5)],
    2: [(64, 6), (64, 7), (64, 8), (128, 6), (128, 7), (128, 8)],
}
PAPER_FAULT_RATES = [0.05, 0.10, 0.15, 0.20, 0.25]
#: Columns of the success table of :func:`run_points` (the CSV, then diagnostics of ours); the
#: science CSV ``fault_tolerant.csv`` holds all but ``TABLE_TIMING_COLUMNS``.
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
    """``algorithms`` as a list of names from ``ALGORITHMS``."""
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


def _summarize_point(radix: int, m: int, fault_rate: float, seed: int, out: dict[str, np.ndarray],
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
    >>> rows = _summarize_point(16, 4, 0.2, 5, out)
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


def _ratio_rows(radix: int, m: int, fault_rate: float, out: dict[str, np.ndarray],
               algorithms: Sequence[str] = ALGORITHMS) -> list[dict]:
    """Improvement ratios (success rate of A / success rate of B) of :data:`RATIOS` with paired 95% CIs.

    Examples
    --------
    >>> out = run_point(16, 3, 0.25, 300, np.random.default_rng(2))
    >>> row = _ratio_rows(16, 3, 0.25, out)[0]
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
        ratio, low, high = paired_ratio_interval(outcome[numerator], outcome[denominator])
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
    rows = _summarize_point(radix, m, fault_rate, -1, out)
    _fail_counts(out, rows)
    for row in rows:
        del row["seed"]
    result = {"rows": rows, "ratios": _ratio_rows(radix, m, fault_rate, out), "after_fallback": []}
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
    """Run every ``(N, m)`` of ``pairs`` at every fault rate, one ``point_item`` per point over
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
def _example_item(radix: int, m: int, fault_rate: float, search_trials: int, rng: np.random.Generator) -> dict:
    """One sweep item: the first of ``search_trials`` random trials (in draw order) in which the three paper
    algorithms do not all agree and ``s, t`` are connected (the notebook's picture); the last trial searched
    when there is none (``disagree`` False).

    Examples
    --------
    >>> pick = _example_item(16, 3, 0.2, 500, np.random.default_rng(4))
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


def _example_frame(pick: Mapping[str, Any], fault_rate: float, seed: int) -> pd.DataFrame:
    """The example trial as a table: one row per algorithm and one for the oracle.

    Examples
    --------
    >>> pick = {"radix": 16, "m": 3, "fault_count": 51, "trial": 0, "trial_seed": 7, "disagree": False}
    >>> list(_example_frame(pick, 0.2, 1)["algorithm"])[-1]
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


def example_walks(pick: Mapping[str, Any], seed: int) -> pd.DataFrame:
    """What the example figure draws of the example trial: one row per algorithm (in the order of
    :data:`~torus_lab.routing.square.ALGORITHMS`), with its walk, the nodes inside the squares it visited (and
    how many of them cover each) and the trial's faulty nodes, as JSON text.

    Columns: ``N``, ``m``, ``fault_count``, ``trial_seed``, ``algorithm``, ``label`` (the paper's name),
    ``success``, ``length``, ``source``, ``target`` (``[x0, x1]``), ``walk`` (``[[x0, x1], ...]``, the walk
    built before stopping), ``covered`` (``[[x0, x1, squares], ...]``) and ``faulty`` (``[[x0, x1], ...]``).

    Examples
    --------
    >>> pick = {"radix": 16, "m": 3, "fault_count": 51, "trial": 0, "trial_seed": 7, "disagree": False}
    >>> walks = example_walks(pick, 1)
    >>> list(walks["algorithm"]) == list(ALGORITHMS), json.loads(walks["walk"].iloc[0])[0] == json.loads(
    ...     walks["source"].iloc[0])
    (True, True)
    """
    check_int("seed", seed)
    check_mapping("pick", pick, ["radix", "m", "fault_count", "trial_seed"])
    radix = pick["radix"]
    mask, s, t, results, _ = example_routes(radix, pick["m"], pick["fault_count"], pick["trial_seed"])
    faulty = [[int(node % radix), int(node // radix)] for node in np.flatnonzero(mask)]
    rows = []
    for name in ALGORITHMS:
        result = results[name]
        cover = square_cover(result.squares, radix)
        covered = [[int(x), int(y), int(cover[x, y])] for x, y in zip(*np.nonzero(cover), strict=True)]
        rows.append({"N": radix, "m": pick["m"], "fault_count": pick["fault_count"], "trial_seed": pick["trial_seed"],
                     "algorithm": name, "label": LABEL[name], "success": result.success, "length": result.length,
                     "source": json.dumps([int(v) for v in s]), "target": json.dumps([int(v) for v in t]),
                     "walk": json.dumps([[int(v) for v in node] for node in result.walked]),
                     "covered": json.dumps(covered), "faulty": json.dumps(faulty)})  # fmt: skip
    frame = pd.DataFrame(rows)
    frame["length"] = frame["length"].astype("Int64")
    frame["seed"] = seed
    return frame


# ---------------------------------------------------------------------------------------------- analysis tables
def _rows_at(frame: pd.DataFrame, fault_rates: Sequence[float]) -> pd.Series:
    return np.isclose(frame["fault_rate"].to_numpy()[:, None], np.asarray(fault_rates, dtype=float)[None, :]).any(1)


def _oracle_gap(table: pd.DataFrame, fault_rates: Sequence[float] | None = None) -> pd.DataFrame:
    """Success among connected pairs (``success_given_connected``) per point and algorithm, and the share of
    Heuristic-Square's gap to the oracle that Backtracking-Square closes; only ``fault_rates`` if given.

    Examples
    --------
    >>> table = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.25, "algorithm": list(ALGORITHMS),
    ...                       "success_given_connected": [0.5, 0.6, 0.8, 0.9]})
    >>> float(_oracle_gap(table)["share_of_heuristic_gap_closed_by_ours"].iloc[0])
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


def _backtracking_cost(table: pd.DataFrame, pairs: Sequence[tuple[int, int]], fault_rate: float) -> pd.DataFrame:
    """The price of backtracking at ``fault_rate`` for each ``(N, m)`` of ``pairs``: success rate, local
    routings per trial, path plus and hops travelled / Lee distance of every local algorithm.

    Examples
    --------
    >>> table = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.25, "algorithm": ["chain", "oracle"],
    ...                       "success_rate": [0.5, 0.9], "local_routings_mean": [2.0, np.nan],
    ...                       "path_plus_mean": 1.0, "travelled_plus_mean": 1.0})
    >>> _backtracking_cost(table, [(16, 3)], 0.25)["algorithm"].tolist()
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


def _after_fallback_differences(alt: pd.DataFrame) -> pd.DataFrame:
    """Successes of Heuristic-Square REC (``max``) and ALT (``previous``) per point, and whether they differ.

    Examples
    --------
    >>> alt = pd.DataFrame({"N": 16, "m": 3, "fault_rate": 0.2, "variant": ["max", "previous"],
    ...                     "successes": [90, 90]})
    >>> _after_fallback_differences(alt)[["max", "previous", "differ"]].values.tolist()
    [[90, 90, False]]
    """
    check_frame("alt", alt, ["N", "m", "fault_rate", "variant", "successes"])
    wide = alt.pivot_table(index=["N", "m", "fault_rate"], columns="variant", values="successes")
    wide.columns.name = None
    wide = wide.astype(int).reset_index()
    wide["differ"] = wide["max"] != wide["previous"]
    return wide


def _failure_reasons(table: pd.DataFrame) -> pd.DataFrame:
    """Failures summed over all points, by reason (rows) and algorithm (columns).

    Examples
    --------
    >>> table = pd.DataFrame({"algorithm": ["chain", "oracle"], "fail_1": [3, 0], "fail_2": [1, 0]})
    >>> _failure_reasons(table)["chain"].tolist()
    [3, 1]
    """
    check_frame("table", table, ["algorithm"])
    codes = [c for c in table.columns if c.startswith("fail_")]
    sums = table[table["algorithm"] != "oracle"].groupby("algorithm", sort=False)[codes].sum().astype(int).T
    sums.columns.name = None
    sums.insert(0, "reason", [REASONS[int(c.split("_")[1])][:60] for c in codes])
    sums.insert(0, "code", [int(c.split("_")[1]) for c in codes])
    return sums.reset_index(drop=True)


def _summary_by_algorithm(table: pd.DataFrame, gap: pd.DataFrame, fault_rate: float) -> pd.DataFrame:
    """One row per local algorithm at ``fault_rate``: success range over ``(N, m)``, mean success among
    connected pairs, mean local routings per trial, mean hops travelled / Lee distance; the Backtracking-Square
    row also has the range and mean of the share of Heuristic-Square's gap it closes (from ``_oracle_gap``).

    Examples
    --------
    >>> table = pd.DataFrame({"N": [16, 32], "m": 3, "fault_rate": 0.25, "algorithm": "chain",
    ...                       "success_rate": [0.5, 0.7], "success_given_connected": [0.5, 0.7],
    ...                       "local_routings_mean": 2.0, "travelled_plus_mean": 1.0})
    >>> row = _summary_by_algorithm(table, pd.DataFrame(columns=["fault_rate"]), 0.25).iloc[0]
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


# ---------------------------------------------------------------------------------------------- theorems 1-4
#: Columns of the ``termination`` table (``termination_item``), before ``seed``.
TERMINATION_COLUMNS = ["N", "m", "fault_rate", "algorithm", "trials", "successes", "valid_outputs", "within_bound",
                       "checked", "max_local_routings", "max_routings_per_radix", "exit_steps",
                       "steps_below_m_minus_2", "min_step_progress"]
#: Columns of the ``local_safety`` table (``local_safety_item``), before ``seed``.
SAFETY_COLUMNS = ["N", "m", "instances", "locally_safe", "connected", "fault_rate_min", "fault_rate_mean",
                  "fault_rate_max", "pairs", "chain_successes", "adaptive_square_successes",
                  "heuristic_square_successes"]
#: Columns of the ``adaptive_worst_step`` table (``adaptive_worst_step``).
WORST_STEP_COLUMNS = ["N", "m", "source", "target", "faults", "first_step_progress", "paper_worst_case", "success"]
_CAP_REASON = REASONS[3]  # the safety cap (status 3 of torus_lab.routing.square.REASONS): never a stated failure


def adaptive_worst_step(radix: int, m: int) -> dict:
    """A constructed Adaptive-Square step that gains less than the ``m - 2`` the proof of Theorem 3 calls its worst
    case: ``s = (0, 0)``, ``t = (m, 0)`` (so ``d(r_1, t_1) = 0``), and the exit column ``x_0 = m - 1`` of the first
    square faulty except its far row ``x_1 = -(m - 2)``; the step ends there, ``m - 1`` ahead in dimension 0 but
    ``m - 2`` off in dimension 1: a gain of 1.  Needs ``N >= 2m``.

    Returns the row ``N, m, source, target, faults, first_step_progress, paper_worst_case (m - 2), success``.

    Examples
    --------
    >>> row = adaptive_worst_step(16, 6)
    >>> row["first_step_progress"], row["paper_worst_case"], row["success"]
    (1, 4, True)
    """
    radix = check_int("radix", radix, 6)
    m = check_int("m", m, 3, radix // 2)
    faults = sorted((m - 1, (1 - b) % radix) for b in range(m - 1))  # square rows b = 0 .. m-2 (x_1 = 1, 0, -1, ..)
    source, target = (0, 0), (m, 0)
    result = route("adaptive_square", Torus(2, radix), set(faults), source, target, m)
    return {"N": radix, "m": m, "source": str(source), "target": str(target), "faults": str(faults),
            "first_step_progress": step_progress(result, radix, target)[0], "paper_worst_case": m - 2,
            "success": result.success}


#: Columns of the ``chain_band`` table (``chain_band_table``).
CHAIN_BAND_COLUMNS = ["N", "m", "pairs", "satisfied", "condition_pairs", "condition_satisfied", "largest_excess",
                      "example"]


def chain_band_table(pairs: Sequence[tuple[int, int]]) -> pd.DataFrame:
    """Section 3's property of Chain_Routing's first chain, checked on every ``(s_1, t_1)`` of each ``(N, m)`` of
    ``pairs``: "for any ``v`` in ``ch_0``, ``d(v_1, t_1) <= d(s_1, t_1) + 1``", with ``ch_0``'s band as Algorithm 1
    prints it (:func:`torus_lab.routing.square.chain_band`; ``docs/conventions.md#chain``).  Deterministic and
    exhaustive (``N^2`` pairs per row); the band overshoots ``t_1`` by up to ``m - 2 - d(s_1, t_1)`` rows, so the
    property needs ``2 d(s_1, t_1) >= m - 3``, the condition the row counts apart.

    Returns one row per ``(N, m)``: ``pairs``, ``satisfied`` (pairs with the property), ``condition_pairs`` and
    ``condition_satisfied`` (the same among the pairs with ``2 d(s_1, t_1) >= m - 3``), ``largest_excess`` (the most
    ``max d(v_1, t_1)`` exceeds ``d(s_1, t_1) + 1``; <= 0 when the property holds everywhere) and ``example`` (a
    pair of that excess in words).

    Examples
    --------
    >>> row = chain_band_table([(16, 5)]).iloc[0]
    >>> int(row.pairs), int(row.satisfied), int(row.condition_satisfied) == int(row.condition_pairs)
    (256, 240, True)
    >>> int(row.largest_excess), row.example
    (2, 's_1 = 0, t_1 = 0: band (1, 0, 15, 14, 13), d(v_1, t_1) up to 3 > d(s_1, t_1) + 1 = 1')
    """
    rows = []
    for radix, m in (_check_pair("pairs", p) for p in check_sequence("pairs", pairs)):
        satisfied = inside = inside_ok = 0
        worst = (-radix, "")
        for s1 in range(radix):
            for t1 in range(radix):
                band = chain_band(radix, m, s1, t1)
                d = min(abs(s1 - t1), radix - abs(s1 - t1))
                far = max(min(abs(v - t1), radix - abs(v - t1)) for v in band)
                ok = far <= d + 1
                satisfied += ok
                if 2 * d >= m - 3:
                    inside, inside_ok = inside + 1, inside_ok + ok
                if far - d - 1 > worst[0]:
                    worst = (far - d - 1, f"s_1 = {s1}, t_1 = {t1}: band {band}, d(v_1, t_1) up to {far} "
                                          f"{'>' if not ok else '<='} d(s_1, t_1) + 1 = {d + 1}")
        rows.append([radix, m, radix * radix, satisfied, inside, inside_ok, worst[0], worst[1]])
    return pd.DataFrame(rows, columns=CHAIN_BAND_COLUMNS)


def _checked_outcome(result: RoutingResult, grid: np.ndarray, source, target) -> bool:
    """A fault-free walk from source to target on success; a stated reason (not the safety cap) and a
    fault-free partial walk from source on failure."""
    if result.success:
        return result.path is not None and walk_is_fault_free(result.path, grid, source, target)
    return bool(result.reason) and result.reason != _CAP_REASON and walk_is_fault_free(result.walked, grid, source)


def termination_item(radix: int, m: int, fault_rate: float, trials: int, rng: np.random.Generator) -> list[dict]:
    """One sweep item of the Theorems 2-4 check: ``trials`` random trials of the point ``(N, m, f)`` (drawn as in
    the success table), each routed by the three paper algorithms; one row per algorithm.

    Columns: ``valid_outputs`` (a fault-free walk from ``s`` to ``t``, or a failure with its reason and a
    fault-free partial walk; never the safety cap), ``within_bound`` (local routings <=
    :func:`~torus_lab.routing.square.local_routing_bound`), ``checked`` (both), ``max_local_routings``,
    ``max_routings_per_radix`` (local routings / N), ``exit_steps``, ``steps_below_m_minus_2`` and
    ``min_step_progress`` (of :func:`~torus_lab.routing.square.step_progress`; square algorithms only).

    Examples
    --------
    >>> rows = termination_item(16, 3, 0.2, 20, np.random.default_rng(1))
    >>> [(r["algorithm"], r["checked"]) for r in rows]
    [('chain', 20), ('adaptive_square', 20), ('heuristic_square', 20)]
    """
    radix = check_int("radix", radix, 3)
    m = check_int("m", m, 3, radix)
    fault_rate = check_real("fault_rate", fault_rate, 0, 1, open_maximum=True)
    trials = check_int("trials", trials, 1)
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    torus = Torus(2, radix)
    count = fault_count(radix, fault_rate)
    stats = {name: {"valid": 0, "bound": 0, "checked": 0, "successes": 0, "max": 0, "steps": [], "lee": 0}
             for name in PAPER_ALGORITHMS}
    for trial_seed in trial_seeds(rng, trials):
        mask, s, t = draw_trial(radix, count, int(trial_seed))
        grid = mask.reshape(radix, radix).T
        for name in PAPER_ALGORITHMS:
            result = route(name, torus, mask, s, t, m)
            entry = stats[name]
            valid = _checked_outcome(result, grid, s, t)
            bounded = result.local_routings <= local_routing_bound(name, radix, m, s, t)
            entry["valid"] += valid
            entry["bound"] += bounded
            entry["checked"] += valid and bounded
            entry["successes"] += result.success
            entry["max"] = max(entry["max"], result.local_routings)
            if name != "chain":
                entry["steps"] += step_progress(result, radix, t)
    rows = []
    for name, entry in stats.items():
        steps = np.asarray(entry["steps"], dtype=int)
        rows.append({"N": radix, "m": m, "fault_rate": fault_rate, "algorithm": name, "trials": trials,
                     "successes": entry["successes"], "valid_outputs": entry["valid"],
                     "within_bound": entry["bound"], "checked": entry["checked"],
                     "max_local_routings": entry["max"], "max_routings_per_radix": entry["max"] / radix,
                     "exit_steps": len(steps), "steps_below_m_minus_2": int((steps < m - 2).sum()),
                     "min_step_progress": int(steps.min()) if len(steps) else -1})
    return rows


def local_safety_item(radix: int, m: int, instances: int, pairs: int, rng: np.random.Generator) -> dict:
    """One sweep item of the Theorem 1 check: ``instances`` maximal random locally-``m``-safe fault sets
    (:func:`~torus_lab.routing.square.saturated_safe_faults`) of the ``N x N`` torus; for each, whether the
    torus is connected and, on ``pairs`` random pairs of distinct non-faulty nodes, whether each paper algorithm
    with the same ``m`` routes them (Adaptive- and Heuristic-Square need ``m >= 3``; -1 otherwise).

    Examples
    --------
    >>> row = local_safety_item(8, 3, 2, 5, np.random.default_rng(2))
    >>> row["connected"], row["pairs"], row["chain_successes"]
    (2, 10, 10)
    """
    radix = check_int("radix", radix, 3)
    m = check_int("m", m, 2, radix - 1)
    instances = check_int("instances", instances, 1)
    pairs = check_int("pairs", pairs, 1)
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    check_memory(8 * instances * (radix * radix + 4 * pairs), f"{instances} locally-safe instances of {pairs} pairs")
    torus = Torus(2, radix)
    names = PAPER_ALGORITHMS if m >= 3 else ("chain",)  # the square algorithms need m >= 3
    successes = dict.fromkeys(PAPER_ALGORITHMS, 0)
    connected = safe = 0
    densities = []
    for _ in range(instances):
        grid = saturated_safe_faults(radix, m, rng)
        safe += locally_safe(grid, m)
        connected += torus_connected(grid)
        densities.append(grid.mean())
        up = np.flatnonzero(~grid.T.ravel())  # node ids x0 + N x1 of the non-faulty nodes
        mask = grid.T.ravel()
        for _ in range(pairs):
            s, t = (divmod(int(v), radix)[::-1] for v in rng.choice(up, 2, replace=False))
            for name in names:
                successes[name] += route(name, torus, mask, s, t, m).success
    return {"N": radix, "m": m, "instances": instances, "locally_safe": safe, "connected": connected,
            "fault_rate_min": float(min(densities)), "fault_rate_mean": float(np.mean(densities)),
            "fault_rate_max": float(max(densities)), "pairs": instances * pairs,
            **{f"{name}_successes": successes[name] if name in names else -1 for name in PAPER_ALGORITHMS}}


def theorem_checks(termination_points: Sequence[tuple[int, int]], fault_rates: Sequence[float], trials: int,
                   safety_points: Sequence[tuple[int, int]], instances: int, pairs: int, seed: int, *,
                   backend: str = "auto") -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The tables of the Theorem 1-4 checks over :func:`torus_lab.sweep.sweep`: ``termination`` (one row per
    ``(N, m, f)`` of ``termination_points x fault_rates`` and paper algorithm, ``termination_item``),
    ``local_safety`` (one row per ``(N, m)`` of ``safety_points``, ``local_safety_item``), both with a
    ``seed`` column, and ``adaptive_worst_step`` (``adaptive_worst_step`` for every termination point with
    ``N >= 2m``; deterministic).

    Examples
    --------
    >>> term, safe, worst = theorem_checks([(8, 3)], [0.2], 5, [(8, 2)], 1, 3, seed=1, backend="serial")
    >>> len(term), int(safe["connected"].iloc[0]), worst["first_step_progress"].tolist()
    (3, 1, [1])
    """
    termination_points = [_check_pair("termination_points", p) for p in check_sequence("termination_points",
                                                                                      termination_points)]
    fault_rates = [check_real("fault_rates", r, 0, 1) for r in check_sequence("fault_rates", fault_rates)]
    safety_points = [_check_pair("safety_points", p) for p in check_sequence("safety_points", safety_points)]
    seed = check_int("seed", seed, 0)
    check_str("backend", backend)
    items = [{"radix": radix, "m": m, "fault_rate": float(f), "trials": check_int("trials", trials, 1)}
             for radix, m in termination_points for f in fault_rates]
    termination = pd.DataFrame([row for rows in sweep(termination_item, items, seed=seed, backend=backend,
                                                      desc="fault_tolerant Theorems 2-4") for row in rows])
    items = [{"radix": radix, "m": m, "instances": check_int("instances", instances, 1),
              "pairs": check_int("pairs", pairs, 1)} for radix, m in safety_points]
    safety = pd.DataFrame(sweep(local_safety_item, items, seed=seed, backend=backend,
                                desc="fault_tolerant Theorem 1"))
    worst = pd.DataFrame([adaptive_worst_step(radix, m) for radix, m in sorted(set(termination_points))
                          if radix >= 2 * m], columns=WORST_STEP_COLUMNS)
    return termination.assign(seed=seed), safety.assign(seed=seed), worst


# ---------------------------------------------------------------------------------------------- entry point
def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Everything the notebook shows, from the parameters of ``experiments/fault_tolerant.yaml``.

    Keys (CSV stems): ``fault_tolerant`` (success table), ``improvement_ratios``, ``heuristic_after_fallback``
    (REC vs ALT on the ``focus`` points), ``oracle_gap``, ``backtracking_cost``, ``after_fallback_differences``,
    ``failure_reasons``, ``summary_by_algorithm``, ``faulty_torus_example``, the Theorem 1-4 checks
    ``termination``, ``local_safety`` and ``adaptive_worst_step`` (:func:`theorem_checks` on ``termination_radices
    x termination_m`` at ``fault_rates`` and ``safety_radices x safety_m``, pairs with ``m`` too large for ``N``
    left out), ``chain_band`` (Algorithm 1's first chain, ``chain_band_table`` on the success table's ``(N, m)``)
    and ``claims``; the success
    table's ``TABLE_TIMING_COLUMNS`` (kernel seconds per point) go to the timing frame
    ``fault_tolerant_timing`` (written as ``timing/fault_tolerant.csv``, see :mod:`torus_lab.timing`).
    """
    check_mapping("params", params, [
        "seed", "focus", "fault_rates", "trials", "group1", "group2", "picture_fault_rate", "picture_radix",
        "picture_m", "picture_search_trials", "gap_fault_rates", "summary_fault_rate", "termination_radices",
        "termination_m", "termination_trials", "safety_radices", "safety_m", "safety_instances", "safety_pairs",
    ])
    seed = params["seed"]
    pairs = _pairs(params["group1"]) + _pairs(params["group2"])
    focus = _pairs(params["focus"])
    missing = [p for p in focus if p not in pairs]
    if missing:
        raise ValueError(f"focus points {missing} are not in group1 + group2")
    table, ratios, alt = run_points(pairs, params["fault_rates"], params["trials"], seed, after_fallback_pairs=focus)
    pick = sweep(_example_item, [{"radix": params["picture_radix"], "m": params["picture_m"],
                                 "fault_rate": float(params["picture_fault_rate"]),
                                 "search_trials": params["picture_search_trials"]}], seed=seed)[0]
    all_gap = _oracle_gap(table)
    termination, safety, worst = theorem_checks(
        [(radix, m) for radix in params["termination_radices"] for m in params["termination_m"] if m <= radix],
        params["fault_rates"], params["termination_trials"],
        [(radix, m) for radix in params["safety_radices"] for m in params["safety_m"] if m < radix],
        params["safety_instances"], params["safety_pairs"], seed)
    science, timing = split_timing(table, TABLE_TIMING_COLUMNS, POINT_KEYS)
    tables = {
        "fault_tolerant": science,
        "improvement_ratios": ratios,
        "heuristic_after_fallback": alt,
        "oracle_gap": _oracle_gap(table, params["gap_fault_rates"]).assign(seed=seed),
        "backtracking_cost": _backtracking_cost(table, focus, params["summary_fault_rate"]).assign(seed=seed),
        "after_fallback_differences": _after_fallback_differences(alt).assign(seed=seed),
        "failure_reasons": _failure_reasons(table).assign(seed=seed),
        "summary_by_algorithm": _summary_by_algorithm(table, all_gap, params["summary_fault_rate"]).assign(seed=seed),
        "faulty_torus_example": _example_frame(pick, float(params["picture_fault_rate"]), seed),
        "faulty_torus_example_walks": example_walks(pick, seed),
        "algorithms": pd.DataFrame({"algorithm": [*ALGORITHMS, "oracle"],
                                    "label": [LABEL[name] for name in [*ALGORITHMS, "oracle"]]}),
        "termination": termination,
        "local_safety": safety,
        "adaptive_worst_step": worst,
        "chain_band": chain_band_table(pairs),
    }
    tables["claims"] = claims(tables, params)
    tables[timing_key("fault_tolerant")] = timing.drop_duplicates(POINT_KEYS).reset_index(drop=True).assign(seed=seed)
    return tables
