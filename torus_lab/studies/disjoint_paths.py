"""Evaluation of Bossard & Kaneko's pairwise disjoint-path routing (Sensors 2018, Section 7, Figs. 9 and 10).

Set-up of the paper: ``(n, max(5, n + 1))``-tori for ``n = 2..7``, ``c = n`` pairs, 10,000 random instances
per ``n``; per instance the maximum path length is recorded and every solution is checked.  Instances are
``2c`` distinct vertices drawn uniformly without replacement (``docs/conventions.md#bk-instances``; the paper allows
``s_i = d_i`` but does not say how its random instances were drawn), paired as ``(v0, v1), (v2, v3), ...``.

:func:`run` is the notebook's single entry point: it computes every table of ``notebooks/disjoint_paths.ipynb``
from the parameters of ``experiments/disjoint_paths.yaml``; the figures are drawn by
:mod:`torus_lab.plots.disjoint_paths` from its result, and the claims table, the last step of :func:`run`, is built
from its tables by :func:`torus_lab.studies.disjoint_paths_claims.claims`.

Randomness: every random instance comes from the generator :func:`torus_lab.sweep.sweep` passes to the grid
item that draws it (a chunk of the evaluation, an optimum comparison, an adversarial family, a drawn
instance), so results depend only on the parameters, never on the sweep backend.

Examples
--------
>>> rows = evaluate_chunk(3, 5, 3, 4, ("paper",), 0, np.random.default_rng(0))
>>> len(rows), rows[0]['paper_violation'], rows[0]['max_len'] <= rows[0]['bound']
(4, '', True)
>>> summary = summarize(pd.DataFrame(rows))
>>> summary.loc[0, "variant"], int(summary.loc[0, "instances"]), int(summary.loc[0, "failures"])
('paper', 4, 0)
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import (
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_sequence,
    check_str,
)
from torus_lab.routing.baselines import GREEDY_ORDERS, greedy_disjoint_paths, lee_lower_bound, solve_min_max_milp
from torus_lab.routing.disjoint_paths import (
    DisjointPathsError,
    DisjointPathsRun,
    disjoint_paths_run,
    format_trace,
    length_bound,
    verify_disjoint_paths,
)
from torus_lab.stats import power_law_fit
from torus_lab.studies.disjoint_paths_claims import WORST_CASE_EXPONENT, claims
from torus_lab.sweep import grid, sweep, sweep_frame
from torus_lab.timing import split_timing, timing_key
from torus_lab.topology import definition_torus_properties, lee_ball

__all__ = [
    "run",
    "VARIANTS",
    "INSTANCE_KINDS",
    "SUMMARY_COLUMNS",
    "paper_radix",
    "random_instance",
    "evaluate_chunk",
    "run_study",
    "summarize",
    "solve_fixed_instance",
    "solve_random_instance",
    "optimum_items",
    "table1_torus",
]

#: Algorithm variants evaluated on the same instances: choose_T="paper" (faithful) and "short" (future work).
VARIANTS = ("paper", "short")
#: Instance families: the paper's uniform draw and adversarial ones for tests and stress runs.
INSTANCE_KINDS = ("uniform", "ball", "surrounded", "one_subtorus", "two_subtori", "neighbours", "self_pairs", "mixed")
#: Columns of the per-(n, variant) science table plus the variant name, fallback count and the
#: deterministic work per instance (``work`` of :class:`torus_lab.routing.disjoint_paths.DisjointPathsRun`).
SUMMARY_COLUMNS = [
    "n", "k", "c", "variant", "instances", "max_len_max", "max_len_mean", "max_len_std", "bound",
    "work_mean", "work_median", "failures", "fallback_instances",
]  # fmt: skip
#: Measured times per (n, variant), written apart as timing (``timing/disjoint_paths.csv``).
SUMMARY_TIMING_COLUMNS = ["time_mean_s", "time_median_s", "cpu_mean_s", "cpu_median_s"]
#: Key columns of a per-(n, variant) row (they join the science and timing tables).
SUMMARY_KEYS = ["n", "k", "c", "variant"]


#: (choose_T, lemma2) configurations compared on adversarial instances.
ADVERSARIAL_CONFIGS = (("paper", "first"), ("paper", "blocked"), ("short", "first"))


#: Largest dimension and number of instances per call the study helpers accept (beyond, a call would not end).
MAX_DIMS = 12
MAX_INSTANCES = 10_000_000


def _check_nkc(n: object, k: object, c: object) -> tuple[int, int, int]:
    """``n`` dimensions, radix ``k`` and ``c`` pairs of a random instance: ``2c <= k**n <= 2**62``."""
    n = check_int("n", n, minimum=1, maximum=MAX_DIMS)
    k = check_int("k", k, minimum=2)
    c = check_int("c", c, minimum=1)
    if k**n > 2**62:
        raise ValueError(f"k = {k} with n = {n} gives k**n = {k**n} nodes, above 2**62")
    if 2 * c > k**n:
        raise ValueError(f"c = {c} pairs need {2 * c} distinct nodes, the torus has k**n = {k**n}")
    return n, k, c


def paper_radix(n: int) -> int:
    """The paper's radix ``max(5, n + 1)`` for dimension ``n`` (Section 7).

    Examples
    --------
    >>> [paper_radix(n) for n in range(2, 8)]
    [5, 5, 5, 6, 7, 8]
    """
    n = check_int("n", n, minimum=1, maximum=MAX_DIMS)
    return max(5, n + 1)


def _node(v: int, n: int, k: int) -> tuple[int, ...]:
    return tuple([(v // k**d) % k for d in range(n)])


def random_instance(n: int, k: int, c: int, rng: np.random.Generator, kind: str = "uniform") -> list[tuple]:
    """One random instance of ``c`` pairs in the ``(n, k)``-torus.

    kind : one of :data:`INSTANCE_KINDS`

    * ``"uniform"``: ``2c`` distinct vertices uniformly at random (the evaluation's instances);
    * ``"ball"``: distinct vertices within Lee distance 2 of a random centre (clustered);
    * ``"surrounded"``: like ``"ball"`` but the centre is the first source, so the other vertices crowd its
      candidate paths (the situation of the paper's Lemma 2, Figs. 5 and 6);
    * ``"one_subtorus"`` / ``"two_subtori"``: all vertices in one random subtorus ``{v_i = g}``, or in two
      neighbouring ones (uniform for n = 1);
    * ``"neighbours"``: every destination is a neighbour of its source;
    * ``"self_pairs"``: uniform, but about half of the pairs have ``s_i = d_i``;
    * ``"mixed"``: one of the above at random.

    Examples
    --------
    >>> random_instance(2, 5, 2, np.random.default_rng(3))
    [((0, 1), (1, 0)), ((4, 0), (2, 3))]
    """
    n, k, c = _check_nkc(n, k, c)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_str("kind", kind, INSTANCE_KINDS)
    if kind not in INSTANCE_KINDS:
        raise ValueError(f"kind must be one of {INSTANCE_KINDS}, got {kind!r}")
    if kind == "mixed":
        kind = INSTANCE_KINDS[int(rng.integers(0, len(INSTANCE_KINDS) - 1))]
    size = k**n
    if kind == "uniform":
        ids = rng.choice(size, size=2 * c, replace=False)
        nodes = [_node(int(v), n, k) for v in ids]
        return [(nodes[2 * i], nodes[2 * i + 1]) for i in range(c)]
    if kind == "self_pairs":
        ids = rng.choice(size, size=2 * c, replace=False)
        nodes = [_node(int(v), n, k) for v in ids]
        return [(nodes[2 * i], nodes[2 * i] if rng.random() < 0.5 else nodes[2 * i + 1]) for i in range(c)]
    if kind == "neighbours":
        chosen: set[tuple] = set()
        pairs = []
        while len(pairs) < c:
            s = _node(int(rng.integers(0, size)), n, k)
            dim, sign = int(rng.integers(0, n)), int(rng.choice((-1, 1)))
            d = s[:dim] + ((s[dim] + sign) % k,) + s[dim + 1 :]
            if s not in chosen and d not in chosen:
                chosen.update((s, d))
                pairs.append((s, d))
        return pairs
    if kind in ("ball", "surrounded"):
        centre = _node(int(rng.integers(0, size)), n, k)
        ball = lee_ball(centre, k)
        if 2 * c > len(ball):
            raise ValueError(f"c = {c} pairs need {2 * c} distinct vertices within Lee distance 2 of a vertex; the "
                             f"({n}, {k})-torus has {len(ball)}")  # fmt: skip
        if kind == "surrounded":  # the centre (ball[0]) is the first source; the others are drawn around it
            pool = [centre] + [ball[1 + int(i)] for i in rng.choice(len(ball) - 1, size=2 * c - 1, replace=False)]
        else:
            pool = [ball[int(i)] for i in rng.choice(len(ball), size=2 * c, replace=False)]
        return [(pool[2 * i], pool[2 * i + 1]) for i in range(c)]
    # one or two neighbouring subtori along a random dimension (a ring, n = 1, is its own only subtorus)
    if n == 1:
        return random_instance(n, k, c, rng, "uniform")
    dim, g = int(rng.integers(0, n)), int(rng.integers(0, k))
    layers = [g] if kind == "one_subtorus" else [g, (g + 1) % k]
    sub_size = k ** (n - 1)
    nodes = []
    for v in rng.choice(sub_size * len(layers), size=2 * c, replace=False):
        rest, layer = _node(int(v) % sub_size, n - 1, k), layers[int(v) // sub_size]
        nodes.append(rest[:dim] + (layer,) + rest[dim:])
    return [(nodes[2 * i], nodes[2 * i + 1]) for i in range(c)]


def _greedy_best(n: int, k: int, pairs) -> tuple[bool, float]:
    """Greedy baseline over ``GREEDY_ORDERS``: (any order succeeded, best max length or NaN).

    Greedy paths are verified too; only the paper's length bound (which is not greedy's) may be exceeded.
    """
    best = np.nan
    for order in GREEDY_ORDERS:
        paths = greedy_disjoint_paths((n, k), pairs, order=order)
        if paths is None:
            continue
        violation = verify_disjoint_paths((n, k), pairs, paths)
        if violation is not None and violation.kind != "too_long":
            raise AssertionError(f"greedy produced invalid paths on {pairs}: {violation}")
        length = max(len(p) - 1 for p in paths)
        best = length if np.isnan(best) else min(best, length)
    return not np.isnan(best), best


def evaluate_chunk(
    n: int,
    k: int,
    c: int,
    instances: int,
    variants: Sequence[str],
    greedy_instances: int,
    rng: np.random.Generator,
    kind: str = "uniform",
    chunk: int = 0,
) -> list[dict]:
    """Solve ``instances`` random instances with every variant; one row per instance.

    Row fields: ``n, k, c, kind, chunk, instance``, ``bound`` (Theorem 1), ``lower_bound`` (the trivial lower
    bound on any solution: the largest Lee distance of a pair) and per variant ``<v>_max_len``, ``<v>_mean_len``,
    ``<v>_work`` (the algorithm's vertex operations, deterministic; -1 where it raised), ``<v>_time_s``
    (wall-clock of the algorithm call only), ``<v>_cpu_s`` (its thread CPU time, robust to other
    load on a shared machine), ``<v>_fallbacks``, ``<v>_violation`` ("" if the
    verifier accepts).  For convenience the first variant's values are also under ``max_len``, ``time_s``,
    ``failure``, ``fallbacks``.  The first ``greedy_instances`` instances are also solved by the greedy
    baseline (``greedy_ok``, ``greedy_max_len``; NaN where not run).
    """
    n, k, c = _check_nkc(n, k, c)
    check_int("instances", instances, minimum=0, maximum=MAX_INSTANCES)
    variants = [check_str("variants", v, VARIANTS) for v in check_sequence("variants", variants)]
    check_int("greedy_instances", greedy_instances, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_str("kind", kind, INSTANCE_KINDS)
    check_int("chunk", chunk, minimum=0)
    rows = []
    bound = length_bound(n, k, c)
    for index in range(instances):
        pairs = random_instance(n, k, c, rng, kind)
        row: dict = {"n": n, "k": k, "c": c, "kind": kind, "chunk": chunk, "instance": index, "bound": bound,
                     "lower_bound": lee_lower_bound((n, k), pairs)}
        for variant in variants:
            start, start_cpu = time.perf_counter(), time.thread_time()
            try:
                run = disjoint_paths_run((n, k), pairs, choose_T=variant, trace=False)
                elapsed, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
                violation = verify_disjoint_paths((n, k), pairs, run.paths)
                lengths = [len(p) - 1 for p in run.paths]
                row[f"{variant}_violation"] = "" if violation is None else str(violation)
                row[f"{variant}_max_len"] = max(lengths)
                row[f"{variant}_mean_len"] = float(np.mean(lengths))
                row[f"{variant}_fallbacks"] = len(run.fallbacks)
                row[f"{variant}_work"] = run.work
            except DisjointPathsError as exc:
                elapsed, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
                row[f"{variant}_violation"] = f"error: {exc}"
                row[f"{variant}_max_len"] = np.nan
                row[f"{variant}_mean_len"] = np.nan
                row[f"{variant}_fallbacks"] = -1
                row[f"{variant}_work"] = -1
            row[f"{variant}_time_s"] = elapsed
            row[f"{variant}_cpu_s"] = cpu
        first = variants[0]
        row["max_len"], row["time_s"] = row[f"{first}_max_len"], row[f"{first}_time_s"]
        row["failure"] = row[f"{first}_violation"] != ""
        row["fallbacks"] = row[f"{first}_fallbacks"]
        if index < greedy_instances:
            row["greedy_ok"], row["greedy_max_len"] = _greedy_best(n, k, pairs)
        else:
            row["greedy_ok"], row["greedy_max_len"] = np.nan, np.nan
        rows.append(row)
    return rows


def run_study(
    ns: Sequence[int],
    instances: int,
    *,
    seed: int,
    variants: Sequence[str] = VARIANTS,
    chunk_size: int = 500,
    greedy_per_chunk: int = 0,
    backend: str = "auto",
    workers: int | None = None,
) -> pd.DataFrame:
    """Per-instance results for every ``n`` in ``ns`` (``k = max(5, n+1)``, ``c = n``), chunked over processes.

    Chunk ``j`` of dimension ``n`` is one :func:`torus_lab.sweep.sweep` item; its generator depends only on
    ``seed`` and the item's content (``n, k, c``, its size, the variants, the greedy share and ``j``), so every
    backend gives identical instances and lengths.  ``backend="auto"`` reads the environment.

    Examples
    --------
    >>> df = run_study([2], 3, seed=1, chunk_size=2, backend="serial")
    >>> df[["n", "chunk", "instance"]].values.tolist()
    [[2, 0, 0], [2, 0, 1], [2, 1, 0]]
    """
    ns = [check_int("ns", n, minimum=1, maximum=MAX_DIMS) for n in check_sequence("ns", ns)]
    check_int("instances", instances, minimum=0, maximum=MAX_INSTANCES)
    check_int("seed", seed, minimum=0)
    variants = check_sequence("variants", variants)
    check_int("chunk_size", chunk_size)
    check_int("greedy_per_chunk", greedy_per_chunk, minimum=0)
    check_str("backend", backend)
    if workers is not None:
        check_int("workers", workers, minimum=1)
    for variant in variants:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if instances < 1 or chunk_size < 1:
        raise ValueError(f"instances and chunk_size must be >= 1, got {instances!r}, {chunk_size!r}")
    items = []
    for n in ns:
        chunks = -(-instances // chunk_size)
        for j in range(chunks):
            size = min(chunk_size, instances - j * chunk_size)
            items.append({"n": n, "k": paper_radix(n), "c": n, "instances": size, "variants": list(variants),
                          "greedy_instances": min(greedy_per_chunk, size), "chunk": j})  # fmt: skip
    frame = sweep_frame(evaluate_chunk, items, seed=seed, backend=backend, workers=workers)
    drop = ["instances", "variants", "greedy_instances"]
    return frame.drop(columns=[c for c in drop if c in frame]).reset_index(drop=True)


def summarize(per_instance: pd.DataFrame, variants: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (n, variant) with :data:`SUMMARY_COLUMNS` then ``SUMMARY_TIMING_COLUMNS``; variant
    ``"greedy"`` where it was run (its work and times are NaN: it is a baseline, not instrumented).

    ``max_len_*`` and ``work_*`` are over solved instances; ``failures`` counts instances whose paths the
    verifier rejected or where the algorithm raised (for greedy: where no pair order succeeded).
    """
    check_frame("per_instance", per_instance, ["n", "k", "c"])
    if variants is None:
        variants = [v for v in VARIANTS if f"{v}_max_len" in per_instance]
    rows = []
    for (n, k, c), group in per_instance.groupby(["n", "k", "c"], sort=True):
        n, k, c = int(n), int(k), int(c)
        for variant in variants:
            lengths = group[f"{variant}_max_len"].dropna()
            times, cpu = group[f"{variant}_time_s"], group[f"{variant}_cpu_s"]
            work = group[f"{variant}_work"][group[f"{variant}_work"] >= 0]
            rows.append({
                "n": n, "k": k, "c": c, "variant": variant, "instances": len(group),
                "max_len_max": lengths.max(), "max_len_mean": lengths.mean(), "max_len_std": lengths.std(ddof=0),
                "bound": length_bound(n, k, c), "work_mean": work.mean(), "work_median": work.median(),
                "time_mean_s": times.mean(), "time_median_s": times.median(),
                "cpu_mean_s": cpu.mean(), "cpu_median_s": cpu.median(),
                "failures": int((group[f"{variant}_violation"] != "").sum()),
                "fallback_instances": int((group[f"{variant}_fallbacks"] != 0).sum()),
            })  # fmt: skip
        if "greedy_ok" in group and group["greedy_ok"].notna().any():
            ran = group[group["greedy_ok"].notna()]
            lengths = ran["greedy_max_len"].dropna()
            rows.append({
                "n": n, "k": k, "c": c, "variant": "greedy", "instances": len(ran),
                "max_len_max": lengths.max(), "max_len_mean": lengths.mean(), "max_len_std": lengths.std(ddof=0),
                "bound": length_bound(n, k, c), "work_mean": np.nan, "work_median": np.nan,
                "time_mean_s": np.nan, "time_median_s": np.nan,
                "cpu_mean_s": np.nan, "cpu_median_s": np.nan,
                "failures": int((~ran["greedy_ok"].astype(bool)).sum()), "fallback_instances": 0,
            })  # fmt: skip
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS + SUMMARY_TIMING_COLUMNS)


def optimum_comparison(n: int, kind: str, count: int, rng: np.random.Generator, *, node_limit: int) -> list[dict]:
    """Paper variant, "short" variant, greedy, the trivial lower bound and the MILP optimum of the longest path on
    ``count`` instances of family ``kind`` (:func:`random_instance`) in the paper's ``(n, max(5, n+1))``-torus,
    ``c = n``.

    When the best of ``paper``, ``short`` and ``greedy`` attains the trivial lower bound (``lower_bound``, the
    largest Lee distance of a pair) it is the optimum (``proof = "lower_bound"``, no solver).  Otherwise the MILP
    (:func:`torus_lab.routing.baselines.solve_min_max_milp`, with that best solution as an upper cut;
    ``proof = "milp"``) stops at ``node_limit`` branch-and-bound nodes, a deterministic limit: ``status`` is
    ``"optimal"`` or ``"node_limit"`` on every machine alike, and ``optimum`` is NaN unless proved
    (``optimum_upper``/``optimum_lower`` are the best solution found and the proved lower bound).
    ``optimum_time_s`` (the solver's wall clock, 0 without a solver) is timing, reported apart.  Use small tori
    only (the MILP takes 20-50 s per ``n = 5`` instance on a loaded machine).

    Examples
    --------
    >>> rows = optimum_comparison(2, "surrounded", 1, np.random.default_rng(0), node_limit=100)
    >>> row = rows[0]
    >>> row["status"], row["lower_bound"] <= row["optimum"] <= min(row["paper"], row["short"])
    ('optimal', True)
    """
    check_int("n", n, minimum=1, maximum=MAX_DIMS)
    check_str("kind", kind, INSTANCE_KINDS)
    check_int("count", count, minimum=0, maximum=MAX_INSTANCES)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    node_limit = check_int("node_limit", node_limit, minimum=1, maximum=2**31 - 1)
    k, rows = paper_radix(n), []
    for index in range(count):
        pairs = random_instance(n, k, n, rng, kind)
        row = {"n": n, "k": k, "c": n, "kind": kind, "instance": index, "pairs": json.dumps(pairs),
               "lower_bound": lee_lower_bound((n, k), pairs)}  # fmt: skip
        for variant in VARIANTS:
            paths = disjoint_paths_run((n, k), pairs, choose_T=variant, trace=False).paths
            row[variant] = max(len(p) - 1 for p in paths)
        row["greedy_ok"], row["greedy"] = _greedy_best(n, k, pairs)
        best = int(np.nanmin([row["paper"], row["short"], row["greedy"]]))
        if best == row["lower_bound"]:  # a solution attains the trivial lower bound: it is optimal, no MILP needed
            row.update(optimum_time_s=0.0, proof="lower_bound", status="optimal", nodes=0, optimum_lower=best,
                       optimum_upper=best, optimum=best)  # fmt: skip
            rows.append(row)
            continue
        start = time.perf_counter()
        result = solve_min_max_milp((n, k), pairs, node_limit=node_limit, upper_bound=best)
        row["optimum_time_s"] = time.perf_counter() - start
        if result.paths is not None and verify_disjoint_paths((n, k), pairs, result.paths) is not None:
            raise AssertionError(f"MILP paths invalid on {pairs}")
        row.update(proof="milp", status=result.status, nodes=result.nodes, optimum_lower=result.lower,
                   optimum_upper=np.nan if result.upper is None else result.upper,
                   optimum=np.nan if result.optimum is None else result.optimum)  # fmt: skip
        rows.append(row)
    return rows


def difficulty_by_c(n: int, c: int, count: int, rng: np.random.Generator) -> list[dict]:
    """One row: ``count`` uniform instances of ``c`` pairs in the paper's ``(n, max(5, n+1))``-torus solved by the
    REC algorithm: the mean and maximum of the per-instance longest path, the mean work and the instances that
    needed a fallback or failed.  Section 7 sets ``c = n`` "to maximize the routing difficulty"; comparing
    ``c = 1..n`` tests that reading (:func:`torus_lab.studies.disjoint_paths_claims.hardest_c`).

    Examples
    --------
    >>> row = difficulty_by_c(3, 2, 5, np.random.default_rng(0))[0]
    >>> row["instances"], row["failures"], row["max_len_mean"] <= row["max_len_max"]
    (5, 0, True)
    """
    n, k, c = _check_nkc(n, paper_radix(n), c)
    check_int("count", count, minimum=1, maximum=MAX_INSTANCES)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    if c > n:
        raise ValueError(f"c must be at most n = {n}, got c = {c}")
    lengths, work, fallbacks, failures = [], [], 0, 0
    for _ in range(count):
        pairs = random_instance(n, k, c, rng)
        try:
            run = disjoint_paths_run((n, k), pairs, trace=False)
        except DisjointPathsError:
            failures += 1
            continue
        failures += verify_disjoint_paths((n, k), pairs, run.paths) is not None
        lengths.append(max(len(p) - 1 for p in run.paths))
        work.append(run.work)
        fallbacks += bool(run.fallbacks)
    return [{"n": n, "k": k, "c": c, "instances": count, "max_len_mean": float(np.mean(lengths)),
             "max_len_max": int(max(lengths)), "work_mean": float(np.mean(work)), "fallback_instances": fallbacks,
             "failures": failures}]  # fmt: skip


#: Per-step measurements of one traced run (``step_lengths``): counts of the paths and levels checked, and
#: the largest value seen (NaN where nothing was checked).  Bounds: Lemma 1 ``k + 1``, Lemma 2 ``k``, one
#: general level ``2k`` per pair (Section 6's recurrence), the base case ``n' floor(k/2)`` (excess <= 0),
#: the special case ``3k - 1`` (Section 6's ``L(2, 2)``).
STEP_COUNTS = ("lemma1_paths", "lemma2_paths", "level_pairs", "base_levels", "special_levels", "special_through",
               "special_swaps", "lemma2_threats", "lemma2_swaps")  # fmt: skip
#: Names of the per-step maxima of ``step_lengths`` (bounds as for ``STEP_COUNTS``).
STEP_MAXIMA = ("lemma1_hops_max", "lemma2_hops_max", "level_pair_hops_max", "base_excess_max", "special_len_max")


def step_lengths(run: DisjointPathsRun, k: int) -> dict[str, float]:
    """The per-step path lengths of one traced run, to check the lemmas' bounds step by step.

    * ``lemma1_*``: every path routing a pair vertex to ``T`` or ``T'`` (general and special levels; in the
      special case not the path that crosses ``T'``, which Section 3.3 adds): Lemma 1 bounds it by ``k + 1``;
    * ``lemma2_*``: the same paths at general levels with ``c >= 3`` pairs: Lemma 2 bounds them by ``k``;
    * ``level_pair_*``: per pair and general level, source path plus destination path: the proof of Theorem 1
      adds at most ``2k`` per level (``L(c, n) = 2k + L(c - 1, n - 1)``, Section 6);
    * ``base_*``: the dimension-order path of a ``c = 1`` level, and of a pair's completion inside ``T'`` at a
      general level (Step 4), minus ``n' floor(k/2)`` (Algorithm 1; ``n'`` the free dimensions of that
      subtorus), at most 0;
    * ``special_*``: each pair's path of a special level (``n = 2, c = 2``; Section 3.3): at most ``3k - 1``;
      ``special_through`` / ``special_swaps`` count the cases of Fig. 8 (a) and (b);
    * ``lemma2_threats`` / ``lemma2_swaps``: general levels where Lemma 2's threat check fired / swapped
      (Figs. 5 and 6).

    Examples
    --------
    >>> run = disjoint_paths_run((2, 5), [((4, 0), (3, 4)), ((1, 1), (4, 4))])
    >>> steps = step_lengths(run, 5)
    >>> steps["special_levels"], steps["special_through"], steps["special_len_max"] <= 3 * 5 - 1
    (1, 1, True)
    """
    check_instance("run", run, DisjointPathsRun)
    k = check_int("k", k, minimum=2)
    counts = dict.fromkeys(STEP_COUNTS, 0)
    values: dict[str, list[int]] = {name: [] for name in STEP_MAXIMA}
    for level in run.trace:
        if level.case == "base":
            counts["base_levels"] += 1
            values["base_excess_max"].append(len(level.base_path) - 1 - len(level.free_dims) * (k // 2))
            continue
        hops = {key: len(path) - 1 for key, path in {**level.to_t_prime, **level.to_t}.items()}
        if level.case == "special":
            counts["special_levels"] += 1
            counts["special_through"] += level.through_t_prime is not None
            counts["special_swaps"] += bool(level.swapped)
            lemma1 = [h for key, h in hops.items() if key != level.through_t_prime]
            for pair in level.pairs:
                if pair in level.merged:
                    length = len(level.merged[pair]) - 1
                else:
                    length = hops[(pair, "s")] + len(level.completions[pair]) - 1 + hops[(pair, "d")]
                values["special_len_max"].append(length)
        else:
            lemma1 = list(hops.values())
            counts["lemma2_threats"] += level.threatened is not None
            counts["lemma2_swaps"] += bool(level.swapped)
            if len(level.pairs) >= 3:
                values["lemma2_hops_max"] += lemma1
            for pair in level.pairs:
                values["level_pair_hops_max"].append(hops.get((pair, "s"), 0) + hops.get((pair, "d"), 0))
            counts["level_pairs"] += len(level.pairs)
            for path in level.completions.values():  # Step 4: the base case inside T' (one dimension fewer)
                counts["base_levels"] += 1
                values["base_excess_max"].append(len(path) - 1 - (len(level.free_dims) - 1) * (k // 2))
        values["lemma1_hops_max"] += lemma1
    counts["lemma1_paths"] = len(values["lemma1_hops_max"])
    counts["lemma2_paths"] = len(values["lemma2_hops_max"])
    maxima = {name: float(max(v)) if v else math.nan for name, v in values.items()}
    return {**counts, **maxima}


def _adversarial_tally(n: int, kind: str, count: int, rng: np.random.Generator) -> list[dict]:
    """Fallbacks and failures of each of ``ADVERSARIAL_CONFIGS`` on ``count`` instances of family ``kind``.

    Instances have ``c = n`` pairs in the paper's ``(n, max(5, n+1))``-torus.  One row per configuration with
    ``instances``, ``failures`` (verifier rejects or the algorithm raises), ``fallback_instances``,
    ``retry_fallbacks``, ``bfs_fallbacks``, ``max_len_max`` with ``max_len_example`` (the first instance that
    attains it), one ``example`` instance with a fallback, and for the REC configuration (``paper``, ``first``),
    run with its trace, the per-step measurements of ``step_lengths`` summed (``STEP_COUNTS``) and
    maximised (``STEP_MAXIMA``) over the instances (NaN for the other configurations).

    Examples
    --------
    >>> rows = _adversarial_tally(3, "ball", 5, np.random.default_rng(0))
    >>> [(r["choose_T"], r["lemma2"], r["instances"], r["failures"]) for r in rows][0]
    ('paper', 'first', 5, 0)
    >>> rows[0]["lemma1_hops_max"] <= 5 + 1, math.isnan(rows[1]["lemma1_hops_max"])
    (True, True)
    """
    check_int("n", n, minimum=1, maximum=MAX_DIMS)
    check_str("kind", kind, INSTANCE_KINDS)
    check_int("count", count, minimum=0, maximum=MAX_INSTANCES)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    k = paper_radix(n)
    traced = ADVERSARIAL_CONFIGS[0]
    tallies = [
        {"n": n, "k": k, "c": n, "kind": kind, "choose_T": choose_t, "lemma2": lemma2, "instances": 0, "failures": 0,
         "fallback_instances": 0, "retry_fallbacks": 0, "bfs_fallbacks": 0, "max_len_max": 0, "max_len_example": "",
         "example": "",
         **{name: 0 if (choose_t, lemma2) == traced else math.nan for name in STEP_COUNTS},
         **dict.fromkeys(STEP_MAXIMA, math.nan)}
        for choose_t, lemma2 in ADVERSARIAL_CONFIGS
    ]  # fmt: skip
    for _ in range(count):
        pairs = random_instance(n, k, n, rng, kind)
        for tally, config in zip(tallies, ADVERSARIAL_CONFIGS, strict=True):
            tally["instances"] += 1
            try:
                run = disjoint_paths_run((n, k), pairs, choose_T=config[0], lemma2=config[1], trace=config == traced)
            except DisjointPathsError:
                tally["failures"] += 1
                continue
            if verify_disjoint_paths((n, k), pairs, run.paths) is not None:
                tally["failures"] += 1
            longest = max(len(p) - 1 for p in run.paths)
            if longest > tally["max_len_max"] or not tally["max_len_example"]:
                tally["max_len_max"], tally["max_len_example"] = max(longest, tally["max_len_max"]), json.dumps(pairs)
            if config == traced:
                steps = step_lengths(run, k)
                for name in STEP_COUNTS:
                    tally[name] += steps[name]
                for name in STEP_MAXIMA:
                    tally[name] = float(np.fmax(tally[name], steps[name]))
            if run.fallbacks:
                tally["fallback_instances"] += 1
                tally["retry_fallbacks"] += sum(f.kind == "retry" for f in run.fallbacks)
                tally["bfs_fallbacks"] += sum(f.kind == "bfs_in_T_prime" for f in run.fallbacks)
                tally["example"] = tally["example"] or repr(pairs)
    return tallies


# ------------------------------------------------------------------------------------ fixed and drawn instances
#: The paper's Section 4 example (Table 2): pairs of the (4,5)-torus.
TABLE2_PAIRS = (
    ((2, 1, 0, 4), (0, 0, 4, 4)), ((0, 2, 1, 2), (3, 2, 0, 2)),
    ((2, 4, 0, 2), (0, 4, 0, 3)), ((4, 4, 4, 1), (0, 4, 0, 2)),
)  # fmt: skip
#: A (3,5)-torus instance on which the Lemma-2 rule "first" needs counted retries (an xfail test).
LEMMA2_COUNTEREXAMPLE = (((3, 2, 4), (3, 1, 4)), ((4, 2, 0), (4, 2, 3)), ((4, 1, 4), (4, 2, 4)))
#: Fixed instances by name: ``(shape (n, k), pairs)``.
FIXED_INSTANCES = {"table2": ((4, 5), TABLE2_PAIRS), "lemma2_counterexample": ((3, 5), LEMMA2_COUNTEREXAMPLE)}
#: Runs of the fixed instances the notebook shows: ``(instance, lemma2 rule)``.
FIXED_RUNS = (("table2", "first"), ("lemma2_counterexample", "first"), ("lemma2_counterexample", "blocked"))
#: Dimensions of the two drawn solved instances (one 2D and one 3D drawing; ``k = paper_radix(n)``, ``c = n``).
DRAWN_DIMS = (2, 3)


def solve_fixed_instance(instance: str, lemma2: str, rng: np.random.Generator | None = None) -> dict[str, Any]:
    """Solve one of ``FIXED_INSTANCES`` with Lemma-2 rule ``lemma2`` (deterministic; ``rng`` is unused).

    Returns the shape, the bound, the path lengths, the counted fallbacks, the verifier's verdict (``""`` when
    it accepts) and ``trace``: the Table-2-style text of each recursion level (a list of strings).

    Examples
    --------
    >>> row = solve_fixed_instance("table2", "first")
    >>> row["path_lengths"], row["bound"], row["fallbacks"], row["violation"]
    ('4, 11, 4, 11', 38, 0, '')
    >>> row["trace"][0].splitlines()[0]
    "level 1 (n=4, general): pairs 1, 2, 3, 4; delta=1, gamma(T')=1, gamma(T)=3, rho=pair 1"
    """
    check_str("instance", instance, sorted(FIXED_INSTANCES))
    check_str("lemma2", lemma2)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    if instance not in FIXED_INSTANCES:
        raise ValueError(f"instance must be one of {sorted(FIXED_INSTANCES)}, got {instance!r}")
    (n, k), pairs = FIXED_INSTANCES[instance]
    run = disjoint_paths_run((n, k), list(pairs), lemma2=lemma2)
    violation = verify_disjoint_paths((n, k), list(pairs), run.paths)
    lengths = [len(p) - 1 for p in run.paths]
    return {
        "n": n, "k": k, "c": len(pairs), "bound": length_bound(n, k, len(pairs)),
        "path_lengths": ", ".join(str(length) for length in lengths), "max_len": max(lengths),
        "fallbacks": len(run.fallbacks), "fallback_details": "; ".join(f.detail for f in run.fallbacks),
        "violation": "" if violation is None else str(violation),
        "trace": [format_trace([level]) for level in run.trace],
    }  # fmt: skip


def solve_random_instance(n: int, k: int, c: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    """One uniform random instance of ``c`` pairs in the ``(n, k)``-torus, solved; one row per pair.

    ``source``, ``destination`` and ``path`` are JSON lists of coordinates (so they survive a CSV round trip).

    Examples
    --------
    >>> rows = solve_random_instance(2, 5, 2, np.random.default_rng(3))
    >>> [(r["pair"], r["source"], r["destination"], r["hops"]) for r in rows]
    [(1, '[0, 1]', '[1, 0]', 2), (2, '[4, 0]', '[2, 3]', 4)]
    """
    n, k, c = _check_nkc(n, k, c)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    pairs = random_instance(n, k, c, rng)
    paths = disjoint_paths_run((n, k), pairs, trace=False).paths
    return [
        {"pair": i + 1, "source": json.dumps(list(s)), "destination": json.dumps(list(d)), "hops": len(path) - 1,
         "path": json.dumps([list(v) for v in path])}
        for i, ((s, d), path) in enumerate(zip(pairs, paths, strict=True))
    ]  # fmt: skip


# ------------------------------------------------------------------------------------ analysis of the evaluation
def max_len_histogram(per_instance: pd.DataFrame, variants: Sequence[str] = VARIANTS) -> pd.DataFrame:
    """Instances per ``(n, k, variant, path_length)``, the per-instance maximum path length.

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2, 2], "k": [5, 5], "paper_max_len": [3, 3], "short_max_len": [2, 3]})
    >>> max_len_histogram(frame).values.tolist()
    [[2, 5, 'paper', 3, 2], [2, 5, 'short', 2, 1], [2, 5, 'short', 3, 1]]
    """
    check_frame("per_instance", per_instance, ["n", "k"])
    columns = [f"{v}_max_len" for v in variants]
    return (per_instance[["n", "k", *columns]]
            .melt(id_vars=["n", "k"], var_name="variant", value_name="path_length")
            .assign(variant=lambda d: d["variant"].str.removesuffix("_max_len"))
            .groupby(["n", "k", "variant", "path_length"]).size().rename("instances").reset_index())  # fmt: skip


#: Time measures fitted by a power law in ``n`` (Fig. 10).
TIME_MEASURES = ("cpu_mean_s", "time_mean_s", "cpu_p99_s")


def time_growth(per_instance: pd.DataFrame, summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fig. 10's data: times per ``n`` of the ``paper`` variant and power-law fits of ``TIME_MEASURES``.

    The first frame has per ``n`` the wall-clock and CPU mean/median from ``summary``, the 99th percentile of
    the CPU time (``cpu_p99_s``), ``worst_case_scaled_s`` (``n c^4 = n^5`` scaled to the CPU mean at the
    smallest ``n``), ``cpu_fit_s`` (the power law fitted to the CPU mean) and ``worst_case_fitted_s`` (``n^5``
    with its constant fitted to the CPU mean in log-log); the second has one row per measure with ``exponent``
    and ``log_prefactor``.

    Examples
    --------
    >>> per = pd.DataFrame({"n": [2, 2, 4, 4], "paper_cpu_s": [1.0, 1.0, 4.0, 4.0]})
    >>> summ = pd.DataFrame({"n": [2, 4], "variant": ["paper"] * 2, "time_mean_s": [1.0, 4.0],
    ...                      "time_median_s": [1.0, 4.0], "cpu_mean_s": [1.0, 4.0], "cpu_median_s": [1.0, 4.0]})
    >>> times, fits = time_growth(per, summ)
    >>> times["worst_case_scaled_s"].tolist(), fits["exponent"].round(6).tolist()
    ([1.0, 32.0], [2.0, 2.0, 2.0])
    """
    check_frame("per_instance", per_instance, ["n"])
    check_frame("summary", summary, ["variant"])
    paper = summary[summary["variant"] == "paper"].set_index("n").sort_index()
    times = paper[["time_mean_s", "time_median_s", "cpu_mean_s", "cpu_median_s"]].copy()
    times["cpu_p99_s"] = per_instance.groupby("n")["paper_cpu_s"].quantile(0.99)
    fits = _growth_columns(times, TIME_MEASURES, scaled="worst_case_scaled_s", fit="cpu_fit_s",
                           through="worst_case_fitted_s")
    return times.reset_index(), fits


def _growth_columns(table: pd.DataFrame, measures: Sequence[str], *, scaled: str, fit: str,
                    through: str) -> pd.DataFrame:  # fmt: skip
    """Add to ``table`` (indexed by ``n``) the worst-case curve ``n^5`` scaled to the first measure at the
    smallest ``n`` (column ``scaled``), the power law fitted to the first measure (column ``fit``) and ``n^5`` with
    its constant fitted to the first measure (column ``through``: least squares in log-log, so the reference
    slope runs through the middle of the data, not from its first point); return the power-law fits of every
    measure (``measure``, ``exponent``, ``log_prefactor``)."""
    n_values = table.index.to_numpy(dtype=float)
    worst = n_values**WORST_CASE_EXPONENT
    table[scaled] = worst / worst[0] * table[measures[0]].iloc[0] if len(table) else []
    fits = pd.DataFrame([
        {"measure": m, **dict(zip(("exponent", "log_prefactor"), power_law_fit(n_values, table[m]), strict=True))}
        for m in measures
    ])  # fmt: skip
    exponent, log_prefactor = fits.loc[0, "exponent"], fits.loc[0, "log_prefactor"]
    table[fit] = np.exp(log_prefactor) * n_values**exponent
    first = table[measures[0]].to_numpy(dtype=float)
    usable = first > 0
    constant = np.exp(np.mean(np.log(first[usable]) - np.log(worst[usable]))) if usable.any() else np.nan
    table[through] = constant * worst
    return fits


#: Work measures fitted by a power law in ``n`` (the deterministic side of Fig. 10 and its claims).
WORK_MEASURES = ("work_mean", "work_p99")


def work_growth(per_instance: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Work per instance of the ``paper`` variant per ``n`` and power-law fits of ``WORK_MEASURES``.

    Work is ``work`` of :class:`~torus_lab.routing.disjoint_paths.DisjointPathsRun` (vertex operations), so both frames
    are the same on every machine.  The first frame has per ``n``: ``work_mean``, ``work_median``, ``work_p99``
    (99th percentile, linear interpolation), ``work_max``, ``worst_case_scaled`` (``n c^4 = n^5`` scaled to the
    mean at the smallest ``n``), ``work_fit`` (the power law fitted to the mean) and ``worst_case_fitted``
    (``n^5`` with its constant fitted to the mean in log-log: the reference slope through the data); the second
    has one row per measure with ``exponent`` and ``log_prefactor``.

    Examples
    --------
    >>> per = pd.DataFrame({"n": [2, 2, 4, 4], "paper_work": [4, 4, 16, 16]})
    >>> work, fits = work_growth(per)
    >>> work["worst_case_scaled"].tolist(), fits["exponent"].round(6).tolist()
    ([4.0, 128.0], [2.0, 2.0])
    >>> work["worst_case_fitted"].round(6).tolist()   # through the middle: 4 / sqrt(8) and 16 * sqrt(8)
    [1.414214, 45.254834]
    """
    check_frame("per_instance", per_instance, ["n", "paper_work"])
    solved = per_instance[per_instance["paper_work"] >= 0]
    grouped = solved.groupby("n", sort=True)["paper_work"]
    work = pd.DataFrame({
        "work_mean": grouped.mean(), "work_median": grouped.median(), "work_p99": grouped.quantile(0.99),
        "work_max": grouped.max(),
    })  # fmt: skip
    fits = _growth_columns(work, WORK_MEASURES, scaled="worst_case_scaled", fit="work_fit",
                           through="worst_case_fitted")
    return work.reset_index(), fits


def variant_gain(per_instance: pd.DataFrame) -> pd.DataFrame:
    """Per ``n``: mean per-instance maximum of ``paper`` and ``short`` and how often ``short`` is shorter/longer.

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2, 2], "paper_max_len": [4, 6], "short_max_len": [3, 6]})
    >>> variant_gain(frame).values.tolist()
    [[2.0, 5.0, 4.5, 0.5, 0.0]]
    """
    check_frame("per_instance", per_instance, ["paper_max_len", "short_max_len", "n"])
    paper, short = per_instance["paper_max_len"], per_instance["short_max_len"]
    frame = pd.DataFrame({
        "n": per_instance["n"], "paper_mean": paper, "short_mean": short,
        "short_shorter": (short < paper).astype(float), "short_longer": (short > paper).astype(float),
    })  # fmt: skip
    return frame.groupby("n", as_index=False).mean()


def optimum_summary(optimum: pd.DataFrame) -> pd.DataFrame:
    """Per ``(n, kind)`` of the MILP comparison (``optimum_comparison``): the gap of each method to the optimum.

    Columns: ``instances``, ``milp`` (instances the MILP had to solve: no heuristic attained the trivial lower
    bound), ``solved`` (status ``optimal``; the other columns are over solved instances only),
    means of ``lower_bound``, ``optimum``, ``paper``, ``short``, ``greedy``; ``paper_over_optimum`` and
    ``short_over_optimum`` (mean ratios), ``paper_gap`` and ``short_gap`` (mean excess in hops), shares
    ``paper_optimal``, ``short_optimal``, ``greedy_optimal`` (equal to the optimum) and ``optimum_above_lower``
    (the optimum exceeds the trivial lower bound: where the exact baseline says more than the Lee distance).
    The solver's time is timing, not science: see ``_optimum_timing``.

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2, 2], "kind": ["ball"] * 2, "instance": [0, 1], "status": ["optimal"] * 2,
    ...                       "proof": ["lower_bound", "milp"], "lower_bound": [4, 4], "optimum": [4, 5],
    ...                       "paper": [4, 6], "short": [4, 5], "greedy": [5, 5]})
    >>> table = optimum_summary(frame)
    >>> table[["n", "milp", "solved", "paper_optimal", "short_optimal", "optimum_above_lower"]].values.tolist()
    [[2.0, 1.0, 2.0, 0.5, 1.0, 0.5]]
    """
    check_frame("optimum", optimum, ["n", "kind", "instance", "status", "proof", "lower_bound", "optimum", "paper",
                                     "short", "greedy"])  # fmt: skip
    solved = optimum[optimum["status"] == "optimal"]
    frame = solved.assign(
        paper_over_optimum=solved["paper"] / solved["optimum"], short_over_optimum=solved["short"] / solved["optimum"],
        paper_gap=solved["paper"] - solved["optimum"], short_gap=solved["short"] - solved["optimum"],
        paper_optimal=(solved["paper"] == solved["optimum"]).astype(float),
        short_optimal=(solved["short"] == solved["optimum"]).astype(float),
        greedy_optimal=(solved["greedy"] == solved["optimum"]).astype(float),
        optimum_above_lower=(solved["optimum"] > solved["lower_bound"]).astype(float),
    )  # fmt: skip
    counts = optimum.assign(milp=optimum["proof"] == "milp").groupby(["n", "kind"]).agg(
        instances=("instance", "size"), milp=("milp", "sum"))
    means = frame.groupby(["n", "kind"]).agg(
        solved=("instance", "size"), lower_bound_mean=("lower_bound", "mean"), optimum_mean=("optimum", "mean"),
        paper_mean=("paper", "mean"), short_mean=("short", "mean"), greedy_mean=("greedy", "mean"),
        paper_over_optimum=("paper_over_optimum", "mean"), short_over_optimum=("short_over_optimum", "mean"),
        paper_gap=("paper_gap", "mean"), short_gap=("short_gap", "mean"), paper_optimal=("paper_optimal", "mean"),
        short_optimal=("short_optimal", "mean"), greedy_optimal=("greedy_optimal", "mean"),
        optimum_above_lower=("optimum_above_lower", "mean"),
    )  # fmt: skip
    table = counts.join(means, how="left").reset_index()
    table["solved"] = table["solved"].fillna(0).astype(int)
    return table


def _optimum_timing(optimum: pd.DataFrame) -> pd.DataFrame:
    """Per ``(n, kind)`` of the MILP comparison: instances and the solver's mean and maximum wall-clock time (timing).

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2, 2], "kind": ["ball"] * 2, "instance": [0, 1], "optimum_time_s": [0.1, 0.3]})
    >>> _optimum_timing(frame).round(3).values.tolist()
    [[2, 'ball', 2, 0.2, 0.3]]
    """
    check_frame("optimum", optimum, ["n", "kind", "instance", "optimum_time_s"])
    return optimum.groupby(["n", "kind"], as_index=False).agg(
        instances=("instance", "size"), solver_mean_s=("optimum_time_s", "mean"),
        solver_max_s=("optimum_time_s", "max"),
    )  # fmt: skip


def _lower_bound_summary(per_instance: pd.DataFrame) -> pd.DataFrame:
    """Per ``n``: the per-instance maximum path length of each variant against the trivial lower bound.

    The lower bound of an instance is the largest Lee distance of a pair (no solution can do better).  Columns:
    ``instances``, ``lower_bound_mean``, ``<v>_over_lower`` (mean ratio), ``<v>_over_lower_max``, ``<v>_at_lower``
    (share of instances where the variant attains the lower bound, hence is optimal) for ``v`` in
    :data:`VARIANTS`; ratios skip instances with a zero lower bound.

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2, 2], "lower_bound": [2, 4], "paper_max_len": [4, 4], "short_max_len": [2, 6]})
    >>> _lower_bound_summary(frame)[["n", "paper_over_lower", "short_at_lower"]].values.tolist()
    [[2.0, 1.5, 0.5]]
    """
    check_frame("per_instance", per_instance, ["n", "lower_bound", *(f"{v}_max_len" for v in VARIANTS)])
    lower = per_instance["lower_bound"].where(per_instance["lower_bound"] > 0)
    frame = pd.DataFrame({"n": per_instance["n"], "lower_bound": per_instance["lower_bound"]})
    aggregations = {"instances": ("lower_bound", "size"), "lower_bound_mean": ("lower_bound", "mean")}
    for v in VARIANTS:
        frame[f"{v}_ratio"] = per_instance[f"{v}_max_len"] / lower
        frame[f"{v}_at"] = (per_instance[f"{v}_max_len"] == per_instance["lower_bound"]).astype(float)
        aggregations.update({f"{v}_over_lower": (f"{v}_ratio", "mean"), f"{v}_over_lower_max": (f"{v}_ratio", "max"),
                             f"{v}_at_lower": (f"{v}_at", "mean")})  # fmt: skip
    return frame.groupby("n", as_index=False).agg(**aggregations)


def bound_attainment(per_instance: pd.DataFrame, adversarial: pd.DataFrame) -> pd.DataFrame:
    """Per ``n``: how close any instance came to Theorem 1's bound (is it attained? Section 8 asks).

    Over the random instances (``per_instance``, paper variant) and the adversarial ones (REC configuration of
    ``_adversarial_tally``): ``bound``, ``random_max`` and the random instance attaining it (chunk, index),
    ``adversarial_max`` with its family and instance, and ``max_over_bound`` (the larger of the two / bound).

    Examples
    --------
    >>> per = pd.DataFrame({"n": [2, 2], "k": [5, 5], "c": [2, 2], "chunk": [0, 0], "instance": [0, 1],
    ...                     "paper_max_len": [9, 11]})
    >>> adv = pd.DataFrame({"n": [2], "kind": ["ball"], "choose_T": ["paper"], "lemma2": ["first"],
    ...                     "max_len_max": [12], "max_len_example": ["[...]"]})
    >>> row = bound_attainment(per, adv).iloc[0]
    >>> int(row["bound"]), int(row["random_max"]), int(row["adversarial_max"]), round(float(row["max_over_bound"]), 3)
    (14, 11, 12, 0.857)
    """
    check_frame("per_instance", per_instance, ["n", "k", "c", "chunk", "instance", "paper_max_len"])
    check_frame("adversarial", adversarial, ["n", "kind", "choose_T", "lemma2", "max_len_max", "max_len_example"])
    rec = adversarial[(adversarial["choose_T"] == ADVERSARIAL_CONFIGS[0][0])
                      & (adversarial["lemma2"] == ADVERSARIAL_CONFIGS[0][1])]  # fmt: skip
    rows = []
    for n, group in per_instance.groupby("n", sort=True):
        top = group.loc[group["paper_max_len"].idxmax()]
        row = {"n": int(n), "k": int(top["k"]), "c": int(top["c"]),
               "bound": length_bound(int(n), int(top["k"]), int(top["c"])), "random_max": int(top["paper_max_len"]),
               "random_instance": f"chunk {int(top['chunk'])}, instance {int(top['instance'])}",
               "adversarial_max": math.nan, "adversarial_kind": "", "adversarial_instance": ""}  # fmt: skip
        mine = rec[rec["n"] == n]
        if len(mine):
            worst = mine.loc[mine["max_len_max"].idxmax()]
            row.update(adversarial_max=int(worst["max_len_max"]), adversarial_kind=worst["kind"],
                       adversarial_instance=worst["max_len_example"])  # fmt: skip
        row["max_over_bound"] = float(np.nanmax([row["random_max"], row["adversarial_max"]]) / row["bound"])
        rows.append(row)
    return pd.DataFrame(rows)


def step_bounds(adversarial: pd.DataFrame) -> pd.DataFrame:
    """Per ``n``: the per-step measurements of ``step_lengths`` over every family of the adversarial run (REC
    configuration), against the lemmas' bounds.

    Columns: ``n``, ``k``, ``instances``, then per step ``<step>_checked`` (paths, pairs or levels checked),
    ``<step>_max`` and ``<step>_bound`` for ``lemma1`` (``k + 1``), ``lemma2`` (``k``), ``level_pair`` (``2k``),
    ``base_excess`` (0) and ``special_len`` (``3k - 1``); and the counts ``special_through``, ``special_swaps``,
    ``lemma2_threats``, ``lemma2_swaps``.

    Examples
    --------
    >>> rows = _adversarial_tally(3, "surrounded", 4, np.random.default_rng(1))
    >>> table = step_bounds(pd.DataFrame(rows))
    >>> bool(table.loc[0, "lemma1_max"] <= table.loc[0, "lemma1_bound"]), int(table.loc[0, "lemma1_bound"])
    (True, 6)
    """
    check_frame("adversarial", adversarial, ["n", "k", "choose_T", "lemma2", "instances", *STEP_COUNTS, *STEP_MAXIMA])
    rec = adversarial[(adversarial["choose_T"] == ADVERSARIAL_CONFIGS[0][0])
                      & (adversarial["lemma2"] == ADVERSARIAL_CONFIGS[0][1])]  # fmt: skip
    steps = {"lemma1": ("lemma1_paths", "lemma1_hops_max", lambda k: k + 1),
             "lemma2": ("lemma2_paths", "lemma2_hops_max", lambda k: k),
             "level_pair": ("level_pairs", "level_pair_hops_max", lambda k: 2 * k),
             "base_excess": ("base_levels", "base_excess_max", lambda k: 0),
             "special_len": ("special_levels", "special_len_max", lambda k: 3 * k - 1)}  # fmt: skip
    rows = []
    for (n, k), group in rec.groupby(["n", "k"], sort=True):
        row = {"n": int(n), "k": int(k), "instances": int(group["instances"].sum())}
        for name, (checked, maximum, bound) in steps.items():
            row[f"{name}_checked"] = int(group[checked].sum())
            row[f"{name}_max"] = float(group[maximum].max())
            row[f"{name}_bound"] = bound(int(k))
        for name in ("special_through", "special_swaps", "lemma2_threats", "lemma2_swaps"):
            row[name] = int(group[name].sum())
        rows.append(row)
    return pd.DataFrame(rows)


#: The paper's Table 2 (Section 4), entry by entry: ``(level, entry) -> value``.  Entries are ``"delta"`` (1-based),
#: ``"gamma(T')"``, ``"gamma(T)"``, a routed vertex (``"to T': s1"``, ``"to T: d4"``, ...: the path as printed,
#: starting at the vertex), ``"completion in T': pair i"`` (the path inside ``T'``), ``"en route: pair i"`` (a pair
#: whose paths met on the way to ``T``: the merged path) and, at the last level, ``"DOR: pair i"`` (the base
#: case path from s'' to d'').  Pairs are numbered from 1 as in the paper.
TABLE2_ENTRIES: Mapping[tuple[int, str], Any] = {
    (1, "delta"): 1, (1, "gamma(T')"): 1, (1, "gamma(T)"): 3,
    (1, "to T': s1"): ((2, 1, 0, 4), (1, 1, 0, 4)), (1, "to T': d1"): ((0, 0, 4, 4), (1, 0, 4, 4)),
    (1, "to T: s4"): ((4, 4, 4, 1), (3, 4, 4, 1)),
    (1, "to T: d4"): ((0, 4, 0, 2), (0, 3, 0, 2), (4, 3, 0, 2), (3, 3, 0, 2)),
    (1, "to T: s3"): ((2, 4, 0, 2), (3, 4, 0, 2)), (1, "to T: d3"): ((0, 4, 0, 3), (4, 4, 0, 3), (3, 4, 0, 3)),
    (1, "to T: s2"): ((0, 2, 1, 2), (4, 2, 1, 2), (3, 2, 1, 2)), (1, "to T: d2"): ((3, 2, 0, 2),),
    (1, "completion in T': pair 1"): ((1, 1, 0, 4), (1, 0, 0, 4), (1, 0, 4, 4)),
    (2, "delta"): 2, (2, "gamma(T')"): 0, (2, "gamma(T)"): 1,
    (2, "to T': s2"): ((3, 2, 1, 2), (3, 3, 1, 2), (3, 4, 1, 2), (3, 0, 1, 2)),
    (2, "to T': d2"): ((3, 2, 0, 2), (3, 2, 4, 2), (3, 3, 4, 2), (3, 4, 4, 2), (3, 0, 4, 2)),
    (2, "to T: s3"): ((3, 4, 0, 2), (3, 4, 0, 3), (3, 3, 0, 3), (3, 2, 0, 3), (3, 1, 0, 3)),
    (2, "to T: d3"): ((3, 4, 0, 3), (3, 3, 0, 3), (3, 2, 0, 3), (3, 1, 0, 3)),
    (2, "to T: s4"): ((3, 4, 4, 1), (3, 3, 4, 1), (3, 2, 4, 1), (3, 1, 4, 1)),
    (2, "to T: d4"): ((3, 3, 0, 2), (3, 3, 0, 1), (3, 2, 0, 1), (3, 1, 0, 1)),
    (2, "completion in T': pair 2"): ((3, 0, 1, 2), (3, 0, 0, 2), (3, 0, 4, 2)),
    (2, "en route: pair 3"): ((3, 4, 0, 2), (3, 4, 0, 3)),
    (3, "DOR: pair 4"): ((3, 1, 4, 1), (3, 1, 0, 1)),
}  # fmt: skip


def _trace_entries(run: DisjointPathsRun) -> dict[tuple[int, str], Any]:
    """The entries of ``TABLE2_ENTRIES``'s form read from a recursion trace."""
    out: dict[tuple[int, str], Any] = {}
    for t in run.trace:
        if t.case == "base":
            (pair,) = t.pairs
            out[(t.level, f"DOR: pair {pair + 1}")] = t.base_path
            continue
        out.update({(t.level, "delta"): t.delta + 1, (t.level, "gamma(T')"): t.gamma_t_prime,
                    (t.level, "gamma(T)"): t.gamma_t})  # fmt: skip
        for title, routes in (("to T'", t.to_t_prime), ("to T", t.to_t)):
            out.update({(t.level, f"{title}: {role}{p + 1}"): path for (p, role), path in routes.items()})
        out.update({(t.level, f"completion in T': pair {p + 1}"): path for p, path in t.completions.items()})
        out.update({(t.level, f"en route: pair {p + 1}"): path for p, path in t.merged.items()})
    return out


def table2_check(run: DisjointPathsRun | None = None) -> pd.DataFrame:
    """Every entry of the paper's Table 2 (``TABLE2_ENTRIES``) against our trace of the same instance.

    ``run`` defaults to the REC run of ``TABLE2_PAIRS`` in the ``(4, 5)``-torus.  One row per entry of the
    paper and per entry only we produce: ``level``, ``entry``, ``paper``, ``ours`` (text; empty where absent) and
    ``agrees``.

    Examples
    --------
    >>> table = table2_check()
    >>> len(table), int(table["agrees"].sum())
    (24, 24)
    """
    if run is None:
        run = disjoint_paths_run((4, 5), list(TABLE2_PAIRS))
    check_instance("run", run, DisjointPathsRun)
    ours = _trace_entries(run)
    keys = list(TABLE2_ENTRIES) + [key for key in ours if key not in TABLE2_ENTRIES]

    def text(value: Any) -> str:
        return "" if value is None else (" -> ".join(map(str, value)) if isinstance(value, tuple) else str(value))

    return pd.DataFrame([
        {"level": level, "entry": entry, "paper": text(TABLE2_ENTRIES.get((level, entry))),
         "ours": text(ours.get((level, entry))),
         "agrees": (level, entry) in ours and TABLE2_ENTRIES.get((level, entry)) == ours[(level, entry)]}
        for level, entry in keys
    ])  # fmt: skip


#: Tori whose Table 1 properties are measured (``k**n`` at most 4096).
TABLE1_SHAPES = tuple((n, k) for n in (1, 2, 3, 4) for k in (5, 6, 7, 8) if k**n <= 4096)


def table1_torus(shapes: Sequence[tuple[int, int]] = TABLE1_SHAPES) -> pd.DataFrame:
    """Table 1's (n, k)-torus row measured on graphs built from Definition 1: order, degree, diameter (BFS),
    cost (degree x diameter) and links, against the table's formulas ``k^n``, ``2n``, ``n floor(k/2)``,
    ``2 n^2 floor(k/2)``, ``n k^n``; ``agrees`` when all five match.

    Examples
    --------
    >>> table1_torus([(2, 5)])[["order", "degree", "diameter", "cost", "links", "agrees"]].values.tolist()
    [[25, 4, 4, 16, 50, True]]
    """
    checked = []
    for i, shape in enumerate(check_sequence("shapes", shapes)):
        pair = check_sequence(f"shapes[{i}]", shape)
        if len(pair) != 2:
            raise ValueError(f"shapes[{i}] must be an (n, k) pair, got {shape!r}")
        n, k = check_int("n", pair[0], minimum=1, maximum=6), check_int("k", pair[1], minimum=3, maximum=64)
        if k**n > 2**16:
            raise ValueError(f"shapes[{i}] = {shape!r} has k**n = {k**n} vertices, above the 65,536 measured here")
        checked.append((n, k))
    shapes = checked
    rows = []
    for n, k in shapes:
        measured = definition_torus_properties(n, k)
        order, degree, diameter, links = (measured[key] for key in ("order", "degree", "diameter", "links"))
        formula = (k**n, 2 * n, n * (k // 2), 2 * n * n * (k // 2), n * k**n)
        rows.append({"n": n, "k": k, "order": order, "degree": degree, "diameter": diameter,
                     "cost": degree * diameter, "links": links, "order_table": formula[0], "degree_table": formula[1],
                     "diameter_table": formula[2], "cost_table": formula[3], "links_table": formula[4],
                     "agrees": (order, degree, diameter, degree * diameter, links) == formula
                     and measured["regular"]})  # fmt: skip
    return pd.DataFrame(rows)


#: Counters of ``_adversarial_tally`` summed over families and ``n`` per configuration.
ADVERSARIAL_COUNTERS = ["instances", "failures", "fallback_instances", "retry_fallbacks", "bfs_fallbacks"]


def adversarial_summary(adversarial: pd.DataFrame) -> pd.DataFrame:
    """``ADVERSARIAL_COUNTERS`` summed per ``(choose_T, lemma2)`` configuration.

    Examples
    --------
    >>> frame = pd.DataFrame({"choose_T": ["paper", "paper"], "lemma2": ["first", "first"], "instances": [5, 5],
    ...                       "failures": [0, 0], "fallback_instances": [1, 0], "retry_fallbacks": [2, 0],
    ...                       "bfs_fallbacks": [0, 0]})
    >>> adversarial_summary(frame).values.tolist()
    [['paper', 'first', 10, 0, 1, 2, 0]]
    """
    check_frame("adversarial", adversarial, ["choose_T", "lemma2"])
    return adversarial.groupby(["choose_T", "lemma2"], as_index=False)[ADVERSARIAL_COUNTERS].sum()


def fallback_examples(adversarial: pd.DataFrame) -> pd.DataFrame:
    """The adversarial tallies with at least one fallback, with their example instance.

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [3, 4], "kind": ["ball", "ball"], "choose_T": ["paper"] * 2,
    ...                       "lemma2": ["first"] * 2, "fallback_instances": [0, 2], "example": ["", "[...]"]})
    >>> fallback_examples(frame).values.tolist()
    [[4, 'ball', 'paper', 'first', 2, '[...]']]
    """
    check_frame("adversarial", adversarial, ["fallback_instances"])
    columns = ["n", "kind", "choose_T", "lemma2", "fallback_instances", "example"]
    return adversarial.loc[adversarial["fallback_instances"] > 0, columns].reset_index(drop=True)


def overview(summary: pd.DataFrame, optimum: pd.DataFrame, lower: pd.DataFrame) -> pd.DataFrame:
    """Per ``n``: the bound, the ``paper`` maximum, the mean per-instance maximum of every method, the mean ratio of
    ``paper`` and ``short`` to the trivial lower bound (``lower``, a frame of ``_lower_bound_summary``), and on
    the solved instances of the MILP comparison (``optimum``, rows of ``optimum_comparison``, every family
    together) their number and the mean optimum and ``paper``.

    Examples
    --------
    >>> summ = pd.DataFrame({"n": [2, 2], "variant": ["paper", "short"], "bound": [14, 14], "max_len_max": [9, 8],
    ...                      "max_len_mean": [4.5, 4.0], "failures": [0, 0]})
    >>> low = pd.DataFrame({"n": [2], "paper_over_lower": [1.5], "short_over_lower": [1.2]})
    >>> table = overview(summ, pd.DataFrame(columns=["n", "status", "optimum", "paper"]), low)
    >>> table[["n", "bound", "paper_max", "paper_mean", "short_mean", "paper_over_lower"]].values.tolist()
    [[2.0, 14.0, 9.0, 4.5, 4.0, 1.5]]
    >>> bool(table[["greedy_mean", "optimum_mean"]].isna().all(axis=None))
    True
    """
    check_frame("summary", summary, ["n", "variant"])
    check_frame("optimum", optimum, ["n", "status", "optimum", "paper"])
    check_frame("lower", lower, ["n", "paper_over_lower", "short_over_lower"])
    table = summary.pivot(index="n", columns="variant")
    out = pd.DataFrame({
        "bound": table["bound"]["paper"], "paper_max": table["max_len_max"]["paper"],
        "paper_mean": table["max_len_mean"]["paper"], "short_mean": table["max_len_mean"]["short"],
    })  # fmt: skip
    has_greedy = "greedy" in table["max_len_mean"]
    out["greedy_mean"] = table["max_len_mean"]["greedy"] if has_greedy else np.nan
    out["greedy_failures"] = table["failures"]["greedy"] if has_greedy else np.nan
    lower = lower.set_index("n")
    out["paper_over_lower"] = lower["paper_over_lower"].reindex(out.index)
    out["short_over_lower"] = lower["short_over_lower"].reindex(out.index)
    solved = optimum[optimum["status"] == "optimal"].astype({"optimum": float, "paper": float})
    grouped = solved.groupby("n")
    out["optimum_instances"] = grouped.size().reindex(out.index)
    out["optimum_mean"] = grouped["optimum"].mean().reindex(out.index)
    out["optimum_paper_mean"] = grouped["paper"].mean().reindex(out.index)
    return out.reset_index()


def work_instances(per_instance: pd.DataFrame) -> pd.DataFrame:
    """The deterministic work (vertex operations), the maximum path length and the trivial lower bound of every
    random instance and variant.

    Columns n, k, c, chunk, instance, then ``<variant>_work``, ``<variant>_max_len`` and ``lower_bound`` (the
    largest Lee distance of a pair: no solution is shorter); the per-instance evidence of the running-time and
    path-length claims (no measured times: those go to the timing tables).

    Examples
    --------
    >>> frame = pd.DataFrame({"n": [2], "k": [5], "c": [2], "chunk": [0], "instance": [0], "paper_work": [40],
    ...                       "short_work": [35], "paper_max_len": [4], "short_max_len": [3], "lower_bound": [3],
    ...                       "paper_time_s": [1e-4]})
    >>> work_instances(frame).columns.tolist()[5:]
    ['paper_work', 'short_work', 'paper_max_len', 'short_max_len', 'lower_bound']
    """
    columns = ["n", "k", "c", "chunk", "instance", *(f"{v}_work" for v in VARIANTS),
               *(f"{v}_max_len" for v in VARIANTS), "lower_bound"]
    check_frame("per_instance", per_instance, columns)
    return per_instance[columns].reset_index(drop=True)


# ------------------------------------------------------------------------------------ the notebook's entry point
def _with_seed(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "seed", seed)
    return frame


def optimum_items(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sweep items of the MILP comparison: one per ``(n, family)``, ``optimum_instances[i]`` instances for
    ``optimum_ns[i]`` and the deterministic ``optimum_node_limit``.

    Examples
    --------
    >>> optimum_items({"optimum_ns": [2, 5], "optimum_instances": [3, 1], "optimum_kinds": ["ball"],
    ...                "optimum_node_limit": 50})
    [{'n': 2, 'kind': 'ball', 'count': 3, 'node_limit': 50}, {'n': 5, 'kind': 'ball', 'count': 1, 'node_limit': 50}]
    """
    check_mapping("params", params, ["optimum_ns", "optimum_instances", "optimum_kinds", "optimum_node_limit"])
    ns = check_sequence("optimum_ns", params["optimum_ns"])
    counts = check_sequence("optimum_instances", params["optimum_instances"])
    if len(ns) != len(counts):
        raise ValueError(f"optimum_instances must give one count per entry of optimum_ns ({len(ns)}), got {counts!r}")
    kinds = [check_str("optimum_kinds", kind, INSTANCE_KINDS) for kind in check_sequence("optimum_kinds",
                                                                                        params["optimum_kinds"])]
    node_limit = check_int("optimum_node_limit", params["optimum_node_limit"], minimum=1, maximum=2**31 - 1)
    return [{"n": check_int("optimum_ns", n, minimum=1, maximum=MAX_DIMS), "kind": kind,
             "count": check_int("optimum_instances", count, minimum=0), "node_limit": node_limit}
            for n, count in zip(ns, counts, strict=True) for kind in kinds]  # fmt: skip


def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of the notebook, from one preset of ``experiments/disjoint_paths.yaml``.

    Keys (CSV stems): ``disjoint_paths`` (per ``(n, variant)`` summary, :data:`SUMMARY_COLUMNS`),
    ``max_len_histogram``, ``work_per_instance``, ``work_fit`` and ``work_instances`` (Fig. 10 and its claims: work
    per n and per instance), ``variant_gain``,
    ``optimum_comparison`` and ``optimum_summary`` (MILP on crowded families, :func:`optimum_items`),
    ``lower_bound`` (the trivial lower bound per n), ``bound_attainment`` (Theorem 1's bound: the closest
    instances), ``step_bounds`` (the lemmas' per-step bounds), ``table2_check`` (Table 2 entry by entry),
    ``table1_torus`` (Table 1's torus row), ``difficulty_by_c`` (``c = 1..n``: is ``c = n`` the hardest?),
    ``adversarial``, ``adversarial_summary`` and
    ``fallback_examples``, ``fixed_instances`` and ``traces`` (Table 2, the Lemma-2 counterexample),
    ``solved_instances`` (the drawn instances), ``overview`` and ``claims`` (last, from those tables by
    :func:`torus_lab.studies.disjoint_paths_claims.claims`).  Frames with random content carry
    the experiment ``seed``.  Every grid runs over :func:`torus_lab.sweep.sweep` (backend from the environment).
    Measured times are returned apart under timing keys (:mod:`torus_lab.timing`): ``disjoint_paths_timing``
    (``SUMMARY_TIMING_COLUMNS`` per ``(n, variant)``), ``time_per_instance_timing`` and ``time_fit_timing``
    (Fig. 10's time panel), ``optimum_comparison_timing`` and ``optimum_summary_timing`` (MILP solver times).

    Examples
    --------
    >>> params = {"seed": 1, "ns": [2, 3], "instances": 2, "chunk_size": 2, "greedy_per_chunk": 1,
    ...           "optimum_ns": [2], "optimum_instances": [1], "optimum_kinds": ["surrounded"],
    ...           "optimum_node_limit": 100, "adversarial_count": 1, "adversarial_kinds": ["uniform", "ball"],
    ...           "difficulty_instances": 2}
    >>> results = run(params)  # doctest: +SKIP
    >>> results["claims"]["claim_id"].tolist()[:3]  # doctest: +SKIP
    ['length_bound', 'correctness', 'bound_tight_small_n']
    """
    check_mapping("params", params, [
        "seed", "instances", "optimum_ns", "ns", "chunk_size", "greedy_per_chunk", "optimum_instances",
        "optimum_kinds", "optimum_node_limit", "adversarial_kinds", "adversarial_count", "difficulty_instances",
    ])
    seed, ns = int(params["seed"]), [int(n) for n in params["ns"]]
    per_instance = run_study(ns, int(params["instances"]), seed=seed, chunk_size=int(params["chunk_size"]),
                             greedy_per_chunk=int(params["greedy_per_chunk"]))  # fmt: skip
    optimum = sweep_frame(optimum_comparison, optimum_items(params), seed=seed)
    adversarial = sweep_frame(_adversarial_tally, grid(n=ns, kind=list(params["adversarial_kinds"]),
                                                      count=[int(params["adversarial_count"])]), seed=seed)  # fmt: skip
    difficulty = sweep_frame(difficulty_by_c, [{"n": n, "c": c, "count": int(params["difficulty_instances"])}
                                                for n in ns for c in range(1, n + 1)], seed=seed)  # fmt: skip
    fixed = _fixed_tables(seed)
    drawn = sweep_frame(solve_random_instance, [{"n": n, "k": paper_radix(n), "c": n} for n in DRAWN_DIMS], seed=seed)
    science, timing = _random_tables(per_instance, optimum, seed)
    overview_table = science.pop("overview")
    tables = {
        **science, **_adversarial_tables(per_instance, adversarial, seed), "table2_check": table2_check(),
        "table1_torus": table1_torus(), "difficulty_by_c": _with_seed(difficulty, seed),
        **_adversarial_summaries(adversarial, seed), **fixed, "solved_instances": _with_seed(drawn, seed),
        "overview": overview_table,
    }  # fmt: skip
    tables["claims"] = claims(tables, params)
    return {**tables, **timing}


def _random_tables(per_instance: pd.DataFrame, optimum: pd.DataFrame,
                   seed: int) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:  # fmt: skip
    """The science tables of the random instances and of the MILP comparison, ``overview`` last (each with the
    ``seed`` column), and their timing tables under their timing keys (:func:`run`)."""
    summary = summarize(per_instance)
    summary_science, summary_timing = split_timing(summary, SUMMARY_TIMING_COLUMNS, SUMMARY_KEYS)
    times, fits = time_growth(per_instance, summary)
    work, work_fits = work_growth(per_instance)
    optimum_science, optimum_times = split_timing(optimum, ["optimum_time_s"], ["n", "kind", "instance"])
    lower = _lower_bound_summary(per_instance)
    science = {
        "disjoint_paths": summary_science, "max_len_histogram": max_len_histogram(per_instance),
        "work_per_instance": work, "work_fit": work_fits, "work_instances": work_instances(per_instance),
        "variant_gain": variant_gain(per_instance), "optimum_comparison": optimum_science,
        "optimum_summary": optimum_summary(optimum), "lower_bound": lower,
        "overview": overview(summary, optimum_science, lower),
    }  # fmt: skip
    timing = {"disjoint_paths": summary_timing, "time_per_instance": times, "time_fit": fits,
              "optimum_comparison": optimum_times, "optimum_summary": _optimum_timing(optimum)}  # fmt: skip
    return ({key: _with_seed(frame, seed) for key, frame in science.items()},
            {timing_key(key): _with_seed(frame, seed) for key, frame in timing.items()})  # fmt: skip


def _adversarial_tables(per_instance: pd.DataFrame, adversarial: pd.DataFrame, seed: int) -> dict[str, pd.DataFrame]:
    """``bound_attainment`` and ``step_bounds`` (Theorem 1's bound and the lemmas' per-step bounds), with ``seed``."""
    return {"bound_attainment": _with_seed(bound_attainment(per_instance, adversarial), seed),
            "step_bounds": _with_seed(step_bounds(adversarial), seed)}  # fmt: skip


def _adversarial_summaries(adversarial: pd.DataFrame, seed: int) -> dict[str, pd.DataFrame]:
    """``adversarial``, ``adversarial_summary`` and ``fallback_examples``, with ``seed``."""
    return {"adversarial": _with_seed(adversarial, seed),
            "adversarial_summary": _with_seed(adversarial_summary(adversarial), seed),
            "fallback_examples": _with_seed(fallback_examples(adversarial), seed)}  # fmt: skip


def _fixed_tables(seed: int) -> dict[str, pd.DataFrame]:
    """``fixed_instances`` and ``traces``: the fixed instances of ``FIXED_RUNS`` (Table 2, the Lemma-2
    counterexample) solved with their recursion traces."""
    fixed_rows = sweep(solve_fixed_instance, [{"instance": i, "lemma2": r} for i, r in FIXED_RUNS], seed=seed)
    traces = pd.DataFrame([
        {"instance": instance, "lemma2": lemma2, "level": level, "text": line}
        for (instance, lemma2), row in zip(FIXED_RUNS, fixed_rows, strict=True)
        for level, text in enumerate(row["trace"], start=1) for line in text.splitlines()
    ])  # fmt: skip
    fixed = pd.DataFrame([{"instance": i, "lemma2": r, **{key: v for key, v in row.items() if key != "trace"}}
                          for (i, r), row in zip(FIXED_RUNS, fixed_rows, strict=True)])  # fmt: skip
    return {"fixed_instances": fixed, "traces": traces}
