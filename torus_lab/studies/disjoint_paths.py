"""Evaluation of Bossard & Kaneko's pairwise disjoint-path routing (Sensors 2018, Section 7, Figs. 9 and 10).

Set-up of the paper: ``(n, max(5, n + 1))``-tori for ``n = 2..7``, ``c = n`` pairs, 10,000 random instances
per ``n``; per instance the maximum path length is recorded and every solution is checked.  Instances are
``2c`` distinct vertices drawn uniformly without replacement (REC of the guide, section 1.6; the paper allows
``s_i = d_i`` but does not say how its random instances were drawn), paired as ``(v0, v1), (v2, v3), ...``.

Randomness: the instances of chunk ``j`` of dimension ``n`` come from the generator that
:func:`torus_lab.sweep.sweep` derives from ``SeedSequence(seed)`` for that grid item, so results are identical
whether the chunks run serially or on several processes.

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

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from torus_lab.routing.baselines import GREEDY_ORDERS, greedy_disjoint_paths, optimal_disjoint_paths
from torus_lab.routing.disjoint_paths import (
    DisjointPathsError,
    disjoint_paths_run,
    length_bound,
    verify_disjoint_paths,
)

__all__ = [
    "ADVERSARIAL_CONFIGS",
    "INSTANCE_KINDS",
    "VARIANTS",
    "SUMMARY_COLUMNS",
    "adversarial_tally",
    "evaluate_chunk",
    "optimum_comparison",
    "paper_radix",
    "random_instance",
    "run_study",
    "summarize",
]

#: Algorithm variants evaluated on the same instances: choose_T="paper" (faithful) and "short" (future work).
VARIANTS = ("paper", "short")
#: Instance families: the paper's uniform draw and adversarial ones for tests and stress runs.
INSTANCE_KINDS = ("uniform", "ball", "surrounded", "one_subtorus", "two_subtori", "neighbours", "self_pairs", "mixed")
#: Columns of the per-(n, variant) table (issue #3) plus the variant name and fallback count.
SUMMARY_COLUMNS = [
    "n", "k", "c", "variant", "instances", "max_len_max", "max_len_mean", "max_len_std", "bound",
    "time_mean_s", "time_median_s", "cpu_mean_s", "cpu_median_s", "failures", "fallback_instances",
]  # fmt: skip


#: (choose_T, lemma2) configurations compared on adversarial instances.
ADVERSARIAL_CONFIGS = (("paper", "first"), ("paper", "blocked"), ("short", "first"))


def paper_radix(n: int) -> int:
    """The paper's radix ``max(5, n + 1)`` for dimension ``n`` (Section 7).

    Examples
    --------
    >>> [paper_radix(n) for n in range(2, 8)]
    [5, 5, 5, 6, 7, 8]
    """
    return max(5, n + 1)


def _node(v: int, n: int, k: int) -> tuple[int, ...]:
    return tuple((v // k**d) % k for d in range(n))


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
        centre = np.asarray(_node(int(rng.integers(0, size)), n, k))
        pool: list[tuple] = [tuple(int(x) for x in centre)] if kind == "surrounded" else []
        seen = set(pool)
        while len(pool) < 2 * c:
            offset = rng.integers(-2, 3, size=n)
            if np.abs(offset).sum() > 2:
                continue
            v = tuple(int(x) for x in (centre + offset) % k)
            if v not in seen:
                seen.add(v)
                pool.append(v)
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
    """Greedy baseline over :data:`GREEDY_ORDERS`: (any order succeeded, best max length or NaN).

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

    Row fields: ``n, k, c, kind, chunk, instance`` and per variant ``<v>_max_len``, ``<v>_mean_len``,
    ``<v>_time_s`` (wall-clock of the algorithm call only), ``<v>_cpu_s`` (its thread CPU time, robust to other
    load on a shared machine), ``<v>_fallbacks``, ``<v>_violation`` ("" if the
    verifier accepts).  For convenience the first variant's values are also under ``max_len``, ``time_s``,
    ``failure``, ``fallbacks``.  The first ``greedy_instances`` instances are also solved by the greedy
    baseline (``greedy_ok``, ``greedy_max_len``; NaN where not run).
    """
    rows = []
    bound = length_bound(n, k, c)
    for index in range(instances):
        pairs = random_instance(n, k, c, rng, kind)
        row: dict = {"n": n, "k": k, "c": c, "kind": kind, "chunk": chunk, "instance": index, "bound": bound}
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
            except DisjointPathsError as exc:
                elapsed, cpu = time.perf_counter() - start, time.thread_time() - start_cpu
                row[f"{variant}_violation"] = f"error: {exc}"
                row[f"{variant}_max_len"] = np.nan
                row[f"{variant}_mean_len"] = np.nan
                row[f"{variant}_fallbacks"] = -1
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
    ``seed`` and the grid, so ``backend="serial"`` and ``"processes"`` give identical instances and lengths.

    Examples
    --------
    >>> df = run_study([2], 3, seed=1, chunk_size=2, backend="serial")
    >>> df[["n", "chunk", "instance"]].values.tolist()
    [[2, 0, 0], [2, 0, 1], [2, 1, 0]]
    """
    from torus_lab.sweep import sweep_frame

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
            items.append({"n": n, "k": paper_radix(n), "c": n, "instances": size, "variants": tuple(variants),
                          "greedy_instances": min(greedy_per_chunk, size), "chunk": j})  # fmt: skip
    frame = sweep_frame(evaluate_chunk, items, seed=seed, backend=backend, workers=workers)
    drop = ["instances", "variants", "greedy_instances"]
    return frame.drop(columns=[c for c in drop if c in frame]).reset_index(drop=True)


def summarize(per_instance: pd.DataFrame, variants: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per (n, variant) with :data:`SUMMARY_COLUMNS`; variant ``"greedy"`` where it was run.

    ``max_len_*`` are over solved instances; ``failures`` counts instances whose paths the verifier rejected or
    where the algorithm raised (for greedy: where no pair order succeeded).
    """
    if variants is None:
        variants = [v for v in VARIANTS if f"{v}_max_len" in per_instance]
    rows = []
    for (n, k, c), group in per_instance.groupby(["n", "k", "c"], sort=True):
        n, k, c = int(n), int(k), int(c)
        for variant in variants:
            lengths = group[f"{variant}_max_len"].dropna()
            times, cpu = group[f"{variant}_time_s"], group[f"{variant}_cpu_s"]
            rows.append({
                "n": n, "k": k, "c": c, "variant": variant, "instances": len(group),
                "max_len_max": lengths.max(), "max_len_mean": lengths.mean(), "max_len_std": lengths.std(ddof=0),
                "bound": length_bound(n, k, c), "time_mean_s": times.mean(), "time_median_s": times.median(),
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
                "bound": length_bound(n, k, c), "time_mean_s": np.nan, "time_median_s": np.nan,
                "cpu_mean_s": np.nan, "cpu_median_s": np.nan,
                "failures": int((~ran["greedy_ok"].astype(bool)).sum()), "fallback_instances": 0,
            })  # fmt: skip
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def optimum_comparison(n: int, count: int, rng: np.random.Generator, *, time_limit: float = 60.0) -> list[dict]:
    """Paper variant, "short" variant, greedy and the MILP optimum of the longest path on ``count`` instances.

    Use small tori only (``n <= 3``; ``n = 4`` takes seconds per instance).  ``optimum`` is NaN where the
    solver hit ``time_limit``.
    """
    k, rows = paper_radix(n), []
    for index in range(count):
        pairs = random_instance(n, k, n, rng)
        row = {"n": n, "k": k, "c": n, "instance": index}
        for variant in VARIANTS:
            paths = disjoint_paths_run((n, k), pairs, choose_T=variant, trace=False).paths
            row[variant] = max(len(p) - 1 for p in paths)
        row["greedy_ok"], row["greedy"] = _greedy_best(n, k, pairs)
        start = time.perf_counter()
        best = optimal_disjoint_paths((n, k), pairs, time_limit=time_limit)
        row["optimum_time_s"] = time.perf_counter() - start
        row["optimum"] = np.nan if best is None else max(len(p) - 1 for p in best)
        if best is not None and verify_disjoint_paths((n, k), pairs, best) is not None:
            raise AssertionError(f"MILP paths invalid on {pairs}")
        rows.append(row)
    return rows


def adversarial_tally(n: int, kind: str, count: int, rng: np.random.Generator) -> list[dict]:
    """Fallbacks and failures of each of :data:`ADVERSARIAL_CONFIGS` on ``count`` instances of family ``kind``.

    Instances have ``c = n`` pairs in the paper's ``(n, max(5, n+1))``-torus.  One row per configuration with
    ``instances``, ``failures`` (verifier rejects or the algorithm raises), ``fallback_instances``,
    ``retry_fallbacks``, ``bfs_fallbacks``, ``max_len_max`` and one ``example`` instance with a fallback.

    Examples
    --------
    >>> rows = adversarial_tally(3, "ball", 5, np.random.default_rng(0))
    >>> [(r["choose_T"], r["lemma2"], r["instances"], r["failures"]) for r in rows][0]
    ('paper', 'first', 5, 0)
    """
    k = paper_radix(n)
    tallies = [
        {"n": n, "k": k, "c": n, "kind": kind, "choose_T": choose_t, "lemma2": lemma2, "instances": 0, "failures": 0,
         "fallback_instances": 0, "retry_fallbacks": 0, "bfs_fallbacks": 0, "max_len_max": 0, "example": ""}
        for choose_t, lemma2 in ADVERSARIAL_CONFIGS
    ]  # fmt: skip
    for _ in range(count):
        pairs = random_instance(n, k, n, rng, kind)
        for tally, (choose_t, lemma2) in zip(tallies, ADVERSARIAL_CONFIGS, strict=True):
            tally["instances"] += 1
            try:
                run = disjoint_paths_run((n, k), pairs, choose_T=choose_t, lemma2=lemma2, trace=False)
            except DisjointPathsError:
                tally["failures"] += 1
                continue
            if verify_disjoint_paths((n, k), pairs, run.paths) is not None:
                tally["failures"] += 1
            tally["max_len_max"] = max(tally["max_len_max"], max(len(p) - 1 for p in run.paths))
            if run.fallbacks:
                tally["fallback_instances"] += 1
                tally["retry_fallbacks"] += sum(f.kind == "retry" for f in run.fallbacks)
                tally["bfs_fallbacks"] += sum(f.kind == "bfs_in_T_prime" for f in run.fallbacks)
                tally["example"] = tally["example"] or repr(pairs)
    return tallies
