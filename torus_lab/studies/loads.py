"""Evaluation of Azizoglu & Eğecioğlu's placements and link loads over a (d, k, t) grid.

For every dimension ``d``, radix ``k`` and number of classes ``t`` (``t = 1``: linear placement
``sum p_i = 0 mod k``; ``t >= 2``: multiple linear placement, classes ``0..t-1``; optionally the fully
populated torus) the exact link loads of complete exchange are computed with :func:`torus_lab.loads.link_loads`
for ODR, UDR and all shortest paths, next to the lower bounds (1) and Lemma 1 (natural cuts + greedy cut search)
and the bound the paper claims for that case.

The paper has no figures; this study produces tables of those quantities, the data of the notebook's figures
(drawn by :mod:`torus_lab.plots.loads`), a brute-force check of Corollary 1 on tiny tori, and the claims table
(:func:`claims_rows`, :func:`bruteforce_claim`) with verdicts computed from the measured numbers by the rules written
in their docstrings.  :func:`run` is the entry point: it takes one preset of ``experiments/loads.yaml``.

Examples
--------
>>> out = evaluate_point(2, 5, 1, "linear")
>>> sorted(row["routing"] for row in out["summary"])
['odr', 'shortest', 'udr']
>>> all(row["e_max"] >= row["lb_cut"] - 1e-9 for row in out["summary"])
True
"""

from __future__ import annotations

import dataclasses
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
    check_real,
    check_real_array,
    check_sequence,
    check_str,
)
from torus_lab.claims import Claim, Rule, claims_table
from torus_lab.loads import (
    MAX_STEPS,
    ROUTINGS,
    balanced_cut_search,
    bisection_width_upper_bound,
    linear_placement,
    link_loads,
    load_frame,
    multiple_linear_placement,
    natural_bisection_width,
    natural_cut_bound,
    node_placement,
    placement_bisection_width_bruteforce,
    residue_placement,
    single_node_bound,
)
from torus_lab.sweep import sweep
from torus_lab.timing import split_timing, timing_key
from torus_lab.topology import Torus

__all__ = [
    "PAPER_RESULTS",
    "CSV_COLUMNS",
    "UPPER_SLACK",
    "LOWER_SLACK",
    "TIE_TOLERANCE",
    "run",
    "grid_items",
    "check_params",
    "claimed_bound",
    "evaluate_point",
    "odr_constant_table",
    "per_dimension_maxima",
    "heaviest_links",
    "heatmap_3d_frame",
    "bisection_tiny_summary",
    "fit_leading_constant",
    "fit_exponent",
    "asymptotic_exponent",
    "constant_matches",
    "claims_rows",
    "coverage_rows",
    "placement_size_check",
    "load_per_processor_by_t",
    "optimality_by_dimension",
    "bruteforce_claim",
]

#: Every numbered result of the paper, in paper order, spelled as the claims' ``location`` column spells it (the
#: paper has no table or figure; its numbered bounds (1)-(6) are equations, covered by the rows of their sections).
PAPER_RESULTS: tuple[str, ...] = (
    "Lemma 1", "Theorem 1", "Corollary 1", "Theorem 2", "Theorem 3", "Theorem 4", "Theorem 5", "Theorem 6",
)

#: First columns of ``data/loads/loads.csv``, in order; :func:`run` adds ``seed`` after them
#: (and diagnostics in ``loads_details.csv``).
CSV_COLUMNS = [
    "d", "k", "t", "placement", "routing", "processors", "e_max", "e_mean", "lb_single", "lb_cut", "claimed_bound",
]  # fmt: skip


def claimed_bound(d: int, k: int, t: int, placement: str, routing: str) -> float:
    """The paper's stated value for ``E_max`` in this case, NaN when it states none.

    * ODR, linear (Theorem 3): ``k^(d-1)/8`` (the leading term of ``k^(d-1)/8 + o(k^(d-1))``);
    * ODR, multiple linear (Theorem 4): ``t^2 k^(d-1)`` (upper bound);
    * UDR, linear (Theorem 5): ``2^(d-1) k^(d-1)`` (upper bound);
    * UDR, multiple linear (Theorem 6), all shortest paths, fully populated: none.

    Examples
    --------
    >>> claimed_bound(3, 8, 1, "linear", "odr")
    8.0
    >>> claimed_bound(3, 8, 2, "multiple_linear", "odr")
    256.0
    """
    check_int("d", d, minimum=1, maximum=64)
    check_int("k", k, minimum=2)
    check_int("t", t, minimum=1)
    check_str("placement", placement)
    check_str("routing", routing)
    if routing == "odr" and placement == "linear":
        return k ** (d - 1) / 8
    if routing == "odr" and placement == "multiple_linear":
        return float(t**2 * k ** (d - 1))
    if routing == "udr" and placement == "linear":
        return float(2 ** (d - 1) * k ** (d - 1))
    return math.nan


def _placement(torus: Torus, t: int, placement: str):
    if placement == "full":
        return residue_placement(torus, range(torus.radices[0]), kind="full")
    if placement == "linear":
        return multiple_linear_placement(torus, 1)
    return multiple_linear_placement(torus, t)


def evaluate_point(
    d: int,
    k: int,
    t: int,
    placement: str,
    *,
    routings: Sequence[str] = ROUTINGS,
    cut_search_max_nodes: int = 4096,
    cut_steps: int = 100,
    shortest_max_nodes: int | None = None,
    rng: np.random.Generator | None = None,
) -> dict[str, list[dict]]:
    """Loads and bounds of one placement under every routing.

    Parameters
    ----------
    d, k, t : int
        Torus ``T_d^k`` and number of residue classes (1 for ``"linear"``, ``k`` for ``"full"``).
    placement : {"linear", "multiple_linear", "full"}
    routings : sequence of {"odr", "udr", "shortest"}
        Default ties (``+`` for ODR/UDR, both for all shortest paths; ``docs/conventions.md#loads-ties``).
    cut_search_max_nodes, cut_steps : int
        The greedy Lemma 1 cut search (:func:`torus_lab.loads.balanced_cut_search`) runs only on tori with at
        most this many nodes, with this many moves per start; otherwise ``lb_cut`` uses natural cuts only.
    shortest_max_nodes : int, optional
        Skip the ``"shortest"`` routing on tori with more nodes (it is the slowest of the three).
    rng : numpy.random.Generator, optional
        Draws the seed of the cut search (``cut_seed``; the loads are deterministic).

    Returns
    -------
    dict
        ``"summary"``: one row per routing (:data:`CSV_COLUMNS` + diagnostics: ``lb_natural``, ``lb_search``,
        ``bisection_natural``, ``bisection_bound``, ``e_max_dim``, ``e_max_sign``, ``e_max_residue``,
        ``links_at_e_max``, ``seconds``, ``cut_seed``); ``"per_dimension"``: one row per routing, dimension and sign.

    Examples
    --------
    >>> out = evaluate_point(2, 6, 1, "linear", routings=["odr"])
    >>> row = out["summary"][0]
    >>> row["e_max"], row["claimed_bound"], row["lb_cut"]
    (3.0, 0.75, 1.25)
    """
    d = check_int("d", d, minimum=1, maximum=62)
    k = check_int("k", k, minimum=2)
    if k**d > 2**62:
        raise ValueError(f"k = {k} with d = {d} gives k**d = {k**d} nodes, above 2**62")
    check_int("t", t, minimum=1)
    check_str("placement", placement, ("full", "linear", "multiple_linear"))
    routings = [check_str("routings", r, ("odr", "udr", "shortest")) for r in check_sequence("routings", routings)]
    check_int("cut_search_max_nodes", cut_search_max_nodes, minimum=0)
    check_int("cut_steps", cut_steps, minimum=0, maximum=MAX_STEPS)
    if shortest_max_nodes is not None:
        check_int("shortest_max_nodes", shortest_max_nodes, minimum=0)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    torus = Torus(d, k)
    chosen = _placement(torus, t, placement)
    seed = int(rng.integers(0, 2**32)) if rng is not None else 0
    lb_single = single_node_bound(torus, chosen)
    natural = natural_cut_bound(torus, chosen, widths="all")
    searched = (
        balanced_cut_search(torus, chosen, seed=seed, max_steps=cut_steps).value
        if torus.num_nodes <= cut_search_max_nodes
        else math.nan
    )
    lb_cut = float(np.nanmax([natural.value, searched]))
    bisection = natural_bisection_width(torus, chosen)
    summary, per_dimension = [], []
    for routing in routings:
        if routing == "shortest" and shortest_max_nodes is not None and torus.num_nodes > shortest_max_nodes:
            continue
        start = time.perf_counter()
        loads = link_loads(torus, chosen, routing)
        seconds = time.perf_counter() - start
        frame = load_frame(torus, loads, chosen)
        at_max = _at_max(loads)
        top = frame.iloc[int(np.flatnonzero(at_max)[0])]  # the first maximal link (frame rows are channels)
        summary.append({
            "d": d, "k": k, "t": t, "placement": placement, "routing": routing, "processors": chosen.size,
            "e_max": float(loads.max()), "e_mean": float(loads.mean()), "lb_single": lb_single, "lb_cut": lb_cut,
            "claimed_bound": claimed_bound(d, k, t, placement, routing),
            "lb_natural": natural.value, "lb_search": searched,
            "bisection_natural": math.nan if bisection is None else bisection,
            "bisection_bound": bisection_width_upper_bound(torus),
            "e_max_dim": int(top["dim"]), "e_max_sign": int(top["sign"]), "e_max_residue": int(top["residue"]),
            "links_at_e_max": int(at_max.sum()),
            "seconds": seconds, "cut_seed": seed,
        })  # fmt: skip
        for (dim, sign), group in frame.groupby(["dim", "sign"]):
            per_dimension.append({
                "d": d, "k": k, "t": t, "placement": placement, "routing": routing, "dim": int(dim),
                "sign": int(sign), "max": float(group["load"].max()), "mean": float(group["load"].mean()),
                "min": float(group["load"].min()),
                "max_residue": int(group["residue"].iloc[_first_at_max(group["load"].to_numpy())]),
            })  # fmt: skip
    return {"summary": summary, "per_dimension": per_dimension}


#: Loads within this relative (and absolute) tolerance of the maximum count as maximal: flows are sums of
#: fractions, so links with equal loads can differ in the last bits (and by the order of summation).
TIE_TOLERANCE = 1e-12


def _at_max(values: np.ndarray) -> np.ndarray:
    """Mask of the values equal to the maximum up to :data:`TIE_TOLERANCE`.

    >>> _at_max(np.array([1.0, 3.0, 3.0 - 1e-15, 2.0])).tolist()
    [False, True, True, False]
    """
    values = np.asarray(values, dtype=float)
    return np.isclose(values, values.max(), rtol=TIE_TOLERANCE, atol=TIE_TOLERANCE)


def _first_at_max(values: np.ndarray) -> int:
    """Position of the first maximal value (``_at_max``): a tie is broken by order, not by rounding.

    >>> _first_at_max(np.array([1.0, 3.0 - 1e-15, 3.0]))
    1
    """
    return int(np.flatnonzero(_at_max(values))[0])


def check_params(params: Mapping[str, Any]) -> None:
    """The rules of a loads parameter set the schema cannot express (``t < k`` for every radix and ``t``); the
    runner calls this before the notebook starts (:func:`torus_lab.experiment.check_study_rules`).

    Examples
    --------
    >>> check_params({"radices_by_dim": [{"dims": 2, "radices": [3, 4]}], "ts": [1, 2]})
    >>> check_params({"radices_by_dim": [{"dims": 2, "radices": [3]}], "ts": [3]})
    Traceback (most recent call last):
    ...
    ValueError: ts holds t = 3 but radices_by_dim (dims 2) holds k = 3: ...
    """
    grid_items(params)


def grid_items(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The points of the (d, k, t) grid, as sweep items (named, JSON-like values).

    Every radix ``k`` of ``params["radices_by_dim"]`` (records ``{dims, radices}``) is evaluated for every ``t``
    of ``params["ts"]`` (``t = 1``: linear placement, otherwise multiple linear).  ``t`` residue classes out of
    ``k`` form a multiple linear placement only for ``t < k``, so a grid holding ``t >= k`` is refused, naming
    both (``t = k`` is the fully populated torus, asked for by ``full_radices_by_dim``, which adds one
    ``placement = "full"``, ``t = k`` item per radix).  A radix below 2 is refused too (the experiment's
    schema refuses it as well).

    Examples
    --------
    >>> items = grid_items({"radices_by_dim": [{"dims": 2, "radices": [3]}], "ts": [1, 2],
    ...                     "full_radices_by_dim": [{"dims": 2, "radices": [4]}]})
    >>> [(item["d"], item["k"], item["t"], item["placement"]) for item in items]
    [(2, 3, 1, 'linear'), (2, 3, 2, 'multiple_linear'), (2, 4, 4, 'full')]
    >>> grid_items({"radices_by_dim": [{"dims": 2, "radices": [2, 3]}], "ts": [1, 2]})
    Traceback (most recent call last):
    ...
    ValueError: ts holds t = 2 but radices_by_dim (dims 2) holds k = 2: a multiple linear placement needs t < k ...
    """
    check_mapping("params", params, ["radices_by_dim", "ts"])
    ts = [check_int(f"ts[{i}]", t, minimum=1) for i, t in enumerate(check_sequence("ts", params["ts"]))]
    items = []
    for dims, radices in _grid_records(params, "radices_by_dim"):
        for k in radices:
            for t in ts:
                if t >= k:
                    raise ValueError(f"ts holds t = {t} but radices_by_dim (dims {dims}) holds k = {k}: a "
                                     "multiple linear placement needs t < k (t = k is the full torus: "
                                     "full_radices_by_dim)")  # fmt: skip
                items.append({"d": dims, "k": k, "t": t, "placement": "linear" if t == 1 else "multiple_linear"})
    for dims, radices in _grid_records(params, "full_radices_by_dim"):
        items.extend({"d": dims, "k": k, "t": k, "placement": "full"} for k in radices)
    return items


def _grid_records(params: Mapping[str, Any], key: str) -> list[tuple[int, list[int]]]:
    """``(dims, radices)`` of every ``{dims, radices}`` record of ``params[key]`` (absent or None: none), each
    value checked and named by its path (``radices_by_dim[1].radices[0]``)."""
    records = []
    for i, record in enumerate(check_sequence(key, params.get(key) or [])):
        name = f"{key}[{i}]"
        check_mapping(name, record, ["dims", "radices"])
        dims = check_int(f"{name}.dims", record["dims"], minimum=1)
        radices = [check_int(f"{name}.radices[{j}]", k, minimum=2)
                   for j, k in enumerate(check_sequence(f"{name}.radices", record["radices"]))]  # fmt: skip
        records.append((dims, radices))
    return records


def _evaluate_item(d, k, t, placement, routings, cut_search_max_nodes, cut_steps, shortest_max_nodes, rng):
    return evaluate_point(d, k, t, placement, routings=routings, cut_search_max_nodes=cut_search_max_nodes,
                          cut_steps=cut_steps, shortest_max_nodes=shortest_max_nodes, rng=rng)  # fmt: skip


def _heatmap_item(dims: int, radix: int, routing: str, rng: np.random.Generator) -> list[dict]:
    """Load of every directed link of ``T_dims^radix`` under the linear placement (deterministic)."""
    torus = Torus(dims, radix)
    placement = linear_placement(torus)
    frame = load_frame(torus, link_loads(torus, placement, routing), placement).drop(columns="channel")
    return frame.assign(routing=routing, k=radix).to_dict("records")


def _tiny_item(dims: int, radix: int, trial: int, rng: np.random.Generator) -> dict[str, Any]:
    """Exact bisection width of one random placement on a tiny torus (size and nodes drawn from ``rng``)."""
    torus = Torus(dims, radix)
    size = int(rng.integers(2, torus.num_nodes + 1))
    ids = rng.choice(torus.num_nodes, size=size, replace=False)
    placement = node_placement(torus, [torus.coords(int(v)) for v in ids])
    return {"d": dims, "k": radix, "trial": trial, "processors": size,
            "bisection_width": placement_bisection_width_bruteforce(torus, placement),
            "natural_bisection": natural_bisection_width(torus, placement),
            "corollary_1_bound": bisection_width_upper_bound(torus)}  # fmt: skip


#: Measured (machine-dependent) columns of the per-point details, kept apart as timing.
TIMING_COLUMNS = ["seconds"]
#: Columns that identify one row of ``loads_details`` (they join it with its timing file).
DETAIL_KEYS = ["d", "k", "t", "placement", "routing"]


def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Everything ``notebooks/loads.ipynb`` shows, as DataFrames keyed by CSV file stem.

    Parameters
    ----------
    params : mapping
        One preset of ``experiments/loads.yaml`` (its ``schema`` block documents every key).

    Returns
    -------
    dict of DataFrame
        ``loads`` (:data:`CSV_COLUMNS` + ``seed``), ``loads_details`` (+ diagnostics, see :func:`evaluate_point`),
        ``loads_per_dimension``, ``odr_constant`` (:func:`odr_constant_table`), ``per_dimension_max``
        (:func:`per_dimension_maxima`), ``heaviest_links`` (:func:`heaviest_links`), ``heatmap_2d`` /
        ``heatmap_3d`` (link loads of the heat maps, :func:`heatmap_3d_frame`), ``bisection_tiny`` and
        ``bisection_tiny_summary`` (:func:`bisection_tiny_summary`), ``claims``; and the timing frame
        ``loads_details_timing`` (the ``seconds`` of each :func:`torus_lab.loads.link_loads` call per point and
        routing, written apart as ``timing/loads_details.csv``, see :mod:`torus_lab.timing`).

    Notes
    -----
    Three sweeps (:func:`torus_lab.sweep.sweep`, backend from the environment): the (d, k, t) grid
    (:func:`grid_items`; the item's generator seeds the greedy cut search), the heat-map tori (one item per
    dimension and routing; deterministic) and the brute-force bisection trials (one item per tiny torus and
    trial; the generator draws the random placement).  Frames with random content (``loads``,
    ``loads_details``, ``bisection_tiny``) carry the experiment ``seed``.

    Examples
    --------
    >>> params = {"seed": 1, "radices_by_dim": [{"dims": 2, "radices": [4, 5]}], "ts": [1, 2],
    ...           "routings": ["odr", "udr", "shortest"], "full_radices_by_dim": [{"dims": 2, "radices": [4]}],
    ...           "cut_search_max_nodes": 64, "cut_steps": 10, "shortest_max_nodes": 1000, "heatmap_k_2d": 4,
    ...           "heatmap_k_3d": 3, "tiny_tori": [{"dims": 2, "radix": 3}], "tiny_trials": 2}
    >>> results = run(params)  # doctest: +SKIP
    """
    check_mapping("params", params, [
        "seed", "shortest_max_nodes", "routings", "cut_search_max_nodes", "cut_steps", "tiny_tori", "tiny_trials",
    ])
    seed = int(params["seed"])
    options = {"routings": list(params["routings"]), "cut_search_max_nodes": int(params["cut_search_max_nodes"]),
               "cut_steps": int(params["cut_steps"]), "shortest_max_nodes": params["shortest_max_nodes"]}  # fmt: skip
    points = sweep(_evaluate_item, [{**item, **options} for item in grid_items(params)], seed=seed,
                   desc="loads grid")  # fmt: skip
    details = pd.DataFrame([row for result in points for row in result["summary"]]).assign(seed=seed)
    per_dimension = pd.DataFrame([row for result in points for row in result["per_dimension"]])

    maps = [{"dims": dims, "radix": int(params[f"heatmap_k_{dims}d"]), "routing": routing}
            for dims in (2, 3) for routing in params["routings"]]  # fmt: skip
    frames = sweep(_heatmap_item, maps, seed=seed, desc="loads heat maps")
    heatmap_2d = pd.DataFrame([row for item, rows in zip(maps, frames, strict=True) if item["dims"] == 2
                               for row in rows])  # fmt: skip
    heatmap_2d["processor"] = heatmap_2d["residue"] == 0  # the linear placement is the class r = 0
    heatmap_3d = pd.DataFrame([row for item, rows in zip(maps, frames, strict=True) if item["dims"] == 3
                               for row in rows])  # fmt: skip

    trials = [{"dims": int(torus["dims"]), "radix": int(torus["radix"]), "trial": trial}
              for torus in params["tiny_tori"] for trial in range(int(params["tiny_trials"]))]  # fmt: skip
    tiny = pd.DataFrame(sweep(_tiny_item, trials, seed=seed, desc="bisection brute force")).assign(seed=seed)

    rows = claims_rows(details)
    rows.append(bruteforce_claim(tiny))
    science_details, details_timing = split_timing(details, TIMING_COLUMNS, DETAIL_KEYS)
    return {
        "loads": details[[*CSV_COLUMNS, "seed"]],
        "loads_details": science_details,
        "loads_per_dimension": per_dimension,
        "odr_constant": odr_constant_table(details),
        "per_dimension_max": per_dimension_maxima(per_dimension),
        "heaviest_links": heaviest_links(details),
        "heatmap_2d": heatmap_2d[["routing", "k", "x0", "x1", "dim", "sign", "residue", "processor", "load"]],
        "heatmap_3d": heatmap_3d_frame(heatmap_3d),
        "bisection_tiny": tiny,
        "bisection_tiny_summary": bisection_tiny_summary(tiny),
        "claims": claims_table("loads", rows),
        timing_key("loads_details"): details_timing,
    }


# ---------------------------------------------------------------------- tables the notebook shows
def odr_constant_table(summary: pd.DataFrame) -> pd.DataFrame:
    """ODR on the linear placement: ``E_max`` and the mean link load over ``k^(d-1)``, next to the single-source
    row count ``floor(k/2) k^(d-2)`` (``e_max_is_row_count``: whether ``E_max`` equals it).

    Examples
    --------
    >>> summary = pd.DataFrame({"d": [2, 2], "k": [6, 6], "routing": ["odr", "udr"],
    ...                         "placement": ["linear"] * 2, "e_max": [3.0, 1.5], "e_mean": [0.6, 0.6]})
    >>> odr_constant_table(summary)[["k", "e_max/k^(d-1)", "e_max_is_row_count"]].to_dict("records")
    [{'k': 6, 'e_max/k^(d-1)': 0.5, 'e_max_is_row_count': True}]
    """
    check_frame("summary", summary, ["routing", "placement", "d", "k", "e_max", "e_mean"])
    odr = summary[(summary["routing"] == "odr") & (summary["placement"] == "linear")]
    scale = odr["k"] ** (odr["d"] - 1)
    row_count = (odr["k"] // 2) * odr["k"] ** (odr["d"] - 2)
    table = pd.DataFrame({
        "d": odr["d"], "k": odr["k"], "e_max": odr["e_max"], "e_max/k^(d-1)": odr["e_max"] / scale,
        "e_mean/k^(d-1)": odr["e_mean"] / scale, "row_count floor(k/2) k^(d-2)": row_count,
        "e_max_is_row_count": np.isclose(odr["e_max"], row_count),
    })  # fmt: skip
    return table.reset_index(drop=True)


def per_dimension_maxima(per_dimension: pd.DataFrame) -> pd.DataFrame:
    """Largest radix per dimension, linear placement: the maximum load per (dimension, sign) over ``k^(d-1)``,
    one row per ``(d, k, routing)``, one column ``"dim <j> <sign>"`` per (dimension, sign).

    Examples
    --------
    >>> per_dimension = pd.DataFrame({"d": [2] * 4, "k": [4, 4, 6, 6], "t": [1] * 4, "placement": ["linear"] * 4,
    ...     "routing": ["odr"] * 4, "dim": [0, 1, 0, 1], "sign": [1, 1, 1, 1], "max": [2.0, 1.0, 3.0, 1.5]})
    >>> per_dimension_maxima(per_dimension).to_dict("records")
    [{'d': 2, 'k': 6, 'routing': 'odr', 'dim 0 +1': 0.5, 'dim 1 +1': 0.25}]
    """
    check_frame("per_dimension", per_dimension, ["placement", "max", "k", "d", "routing", "dim", "sign"])
    linear = per_dimension[per_dimension["placement"] == "linear"]
    linear = linear.assign(ratio=linear["max"] / linear["k"] ** (linear["d"] - 1))
    largest = linear[linear.groupby("d")["k"].transform("max") == linear["k"]]
    table = largest.pivot_table(index=["d", "k", "routing"], columns=["dim", "sign"], values="ratio")
    table.columns = [f"dim {dim} {sign:+d}" for dim, sign in table.columns]
    return table.reset_index()


def heaviest_links(summary: pd.DataFrame) -> pd.DataFrame:
    """Where the heaviest link sits for the largest radix per ``(d, routing)`` on the linear placement.

    Examples
    --------
    >>> summary = pd.DataFrame({"d": [2, 2], "k": [4, 6], "routing": ["odr"] * 2, "placement": ["linear"] * 2,
    ...     "e_max": [2.0, 3.0], "e_max_dim": [0, 0], "e_max_sign": [1, 1], "e_max_residue": [0, 0],
    ...     "links_at_e_max": [4, 6]})
    >>> heaviest_links(summary)["k"].tolist()
    [6]
    """
    columns = ["d", "k", "routing", "e_max", "e_max_dim", "e_max_sign", "e_max_residue", "links_at_e_max"]
    check_frame("summary", summary, ["placement", *columns])
    linear = summary[summary["placement"] == "linear"]
    return linear.loc[linear.groupby(["d", "routing"])["k"].idxmax(), columns].reset_index(drop=True)


def heatmap_3d_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Maximum load per ``(routing, k, dim, sign, residue)`` of a :func:`torus_lab.loads.load_frame` with a
    ``routing`` and ``k`` column (for a union of residue classes it is the load of every such link).

    Examples
    --------
    >>> frame = pd.DataFrame({"routing": ["odr"] * 3, "k": [3] * 3, "dim": [0, 0, 0], "sign": [1, 1, 1],
    ...                       "residue": [0, 0, 1], "load": [2.0, 2.0, 1.0]})
    >>> heatmap_3d_frame(frame)["load"].tolist()
    [2.0, 1.0]
    """
    check_frame("frame", frame, ["routing", "k", "dim", "sign", "residue", "load"])
    return frame.groupby(["routing", "k", "dim", "sign", "residue"], as_index=False, sort=False)["load"].max()


def bisection_tiny_summary(tiny: pd.DataFrame) -> pd.DataFrame:
    """Per tiny torus: the largest exact bisection width found, Corollary 1's bound and the number of trials.

    Examples
    --------
    >>> tiny = pd.DataFrame({"d": [2, 2], "k": [3, 3], "trial": [0, 1], "bisection_width": [4, 6],
    ...                      "corollary_1_bound": [36, 36]})
    >>> bisection_tiny_summary(tiny).to_dict("records")
    [{'d': 2, 'k': 3, 'max_width': 6, 'bound': 36, 'trials': 2}]
    """
    check_frame("tiny", tiny, ["d", "k", "bisection_width", "corollary_1_bound", "trial"])
    return tiny.groupby(["d", "k"], as_index=False).agg(
        max_width=("bisection_width", "max"), bound=("corollary_1_bound", "first"), trials=("trial", "count")
    )


# ---------------------------------------------------------------------- fits and claims
def fit_leading_constant(radices: Sequence[int], ratios: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit ``ratio = a + b / k``; returns ``(a, b)`` (``a`` = the constant as ``k -> oo``).

    With a single radix, ``a`` is that ratio and ``b = 0``.

    Examples
    --------
    >>> a, b = fit_leading_constant([5, 9, 17], [0.5 - 0.5 / 5, 0.5 - 0.5 / 9, 0.5 - 0.5 / 17])
    >>> round(a, 6), round(b, 6)
    (0.5, -0.5)
    """
    k = check_real_array("radices", radices, ndim=1)
    y = check_real_array("ratios", ratios, ndim=1)
    if k.size == 0 or k.size != y.size:
        raise ValueError(f"need equally many radices and ratios (at least one), got {k.size} and {y.size}")
    if not (np.isfinite(k) & (k >= 2)).all():  # 1 / k must be finite for the fit
        raise ValueError(f"radices must be finite numbers >= 2, got {k.tolist()!r:.80}")
    if not np.isfinite(y).all():
        raise ValueError(f"ratios must be finite, got {y.tolist()!r:.80}")
    if np.unique(k).size == 1:
        return float(y.mean()), 0.0
    design = np.column_stack([np.ones_like(k), 1 / k])
    (a, b), *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(a), float(b)


def fit_exponent(processors: Sequence[float], e_max: Sequence[float]) -> float:
    """Least-squares slope of ``log E_max`` against ``log |P|`` (1 = linear load; > 1 = superlinear).

    Examples
    --------
    >>> round(fit_exponent([16, 64, 256], [2, 8, 32]), 6)
    1.0
    """
    processors = check_real_array("processors", processors, ndim=1)
    e_max = check_real_array("e_max", e_max, ndim=1)
    if processors.size != e_max.size:
        raise ValueError(f"processors and e_max must have equal lengths, got {processors.size} and {e_max.size}")
    for name, values in (("processors", processors), ("e_max", e_max)):
        if not (np.isfinite(values) & (values > 0)).all():
            raise ValueError(f"{name} must hold finite positive numbers, got {values.tolist()!r:.80}")
    x, y = np.log(processors), np.log(e_max)
    if x.size < 2 or np.unique(x).size < 2:
        raise ValueError(f"processors: need at least two different placement sizes to fit an exponent, got {x.size}")
    return float(np.polyfit(x, y, 1)[0])


def asymptotic_exponent(group: pd.DataFrame) -> list[tuple[str, float, list[int]]]:
    """Exponent ``alpha`` of ``E_max ~ |P|^alpha`` per parity of ``k``: ``[(parity, alpha, radices), ...]``.

    Odd and even ``k`` are fitted apart (for ODR ``E_max = floor(k/2) k^(d-2)``).  With three or more radices the
    fit is ``log E_max = alpha log |P| + beta + gamma / k``, which absorbs the ``O(1/k)`` convergence of
    ``E_max/|P|`` seen at small ``k``; with two it is the slope between them; a parity with one radix is skipped.

    Examples
    --------
    >>> k = np.array([8, 12, 16, 24])
    >>> frame = pd.DataFrame({"k": k, "processors": k**2, "e_max": 0.5 * np.exp(-2 / k) * k**2})
    >>> [(parity, round(alpha, 3), ks) for parity, alpha, ks in asymptotic_exponent(frame)]
    [('even', 1.0, [8, 12, 16, 24])]
    """
    check_frame("group", group, ["k", "processors", "e_max"])
    out = []
    for parity, name in ((0, "even"), (1, "odd")):
        part = group[group["k"] % 2 == parity].drop_duplicates("k").sort_values("k")
        if len(part) < 2:
            continue
        x = np.log(part["processors"].to_numpy(dtype=float))
        y = np.log(part["e_max"].to_numpy(dtype=float))
        if len(part) >= 3:
            design = np.column_stack([x, np.ones_like(x), 1.0 / part["k"].to_numpy(dtype=float)])
            alpha = float(np.linalg.lstsq(design, y, rcond=None)[0][0])
        else:
            alpha = float((y[1] - y[0]) / (x[1] - x[0]))
        out.append((name, alpha, [int(v) for v in part["k"]]))
    return out


# ---------------------------------------------------------------------- claims
#: Relative slack of an upper bound (``measured / bound <= 1 + UPPER_SLACK`` holds): float round-off only.
UPPER_SLACK = 1e-12
#: Absolute slack of a lower bound (``measured - bound >= -LOWER_SLACK`` holds): float round-off only.
LOWER_SLACK = 1e-9


def constant_matches(measured: float, claimed: float, tolerance: float) -> bool:
    """Whether a fitted constant is within ``tolerance`` (relative to ``claimed``) of the claimed one; NaN: no.

    Examples
    --------
    >>> constant_matches(0.1875, 0.125, 0.5), constant_matches(0.19, 0.125, 0.5)
    (True, False)
    """
    measured = check_real("measured", measured, finite=False)
    claimed = check_real("claimed", claimed, finite=False)
    tolerance = check_real("tolerance", tolerance, minimum=0)
    return bool(abs(measured - claimed) <= tolerance * abs(claimed))


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _scope(part: pd.DataFrame) -> str:
    """The (d, k) range of ``part`` in words."""
    if part.empty:
        return "no case"
    return "; ".join(f"d={d}: k {int(g['k'].min())}..{int(g['k'].max())}" for d, g in part.groupby("d"))


_EXACT = ("exact link loads of complete exchange (every processor sends one message to every other), computed, not "
          "simulated; ODR = one fixed dimension order, UDR = every dimension order equally weighted (conventions "
          "page, Azizoglu & Egecioglu section)")
_EVIDENCE = ("data/loads/loads.csv",)


def _upper_bound(claim_id: str, location: str, statement: str, paper_text: str, part: pd.DataFrame,
                 measured: str, bound: str) -> Claim:  # fmt: skip
    """A claimed upper bound: the largest ``measured / bound`` over ``part`` at most 1 (round-off slack)."""
    part = part.dropna(subset=[measured, bound])
    ratio = part[measured] / part[bound]
    text = "no data"
    if len(part):
        worst = part.loc[ratio.idxmax()]
        text = (f"max {measured}/bound = {_fmt(ratio.max())} (d={worst['d']}, k={worst['k']}"
                + (f", t={worst['t']}" if "t" in part else "") + f") over {len(part)} cases")
    return Claim(claim_id=claim_id, location=location, statement=statement, conditions=f"{_scope(part)}; {_EXACT}",
                 paper_value=1.0, paper_text=paper_text, measured_value=float(ratio.max()) if len(part) else math.nan,
                 measured_text=text, rule=Rule("at_most", {"bound": 1 + UPPER_SLACK}), evidence=_EVIDENCE)


def _lower_bound(claim_id: str, location: str, statement: str, paper_text: str, part: pd.DataFrame,
                 bound: pd.Series) -> Claim:  # fmt: skip
    """A claimed lower bound: every ``E_max`` at least ``bound`` (round-off slack); measured is the least margin."""
    keep = part["e_max"].notna() & bound.notna()
    margin = part["e_max"][keep] - bound[keep]
    ratio = part["e_max"][keep] / bound[keep]
    return Claim(
        claim_id=claim_id, location=location, statement=statement, conditions=f"{_scope(part[keep])}; {_EXACT}",
        paper_value=0.0, paper_text=paper_text, measured_value=float(margin.min()) if keep.any() else math.nan,
        measured_text=(f"least E_max - bound = {_fmt(margin.min())}, least E_max/bound = {_fmt(ratio.min())} over "
                       f"{int(keep.sum())} cases" if keep.any() else "no data"),
        rule=Rule("at_least", {"bound": -LOWER_SLACK}), evidence=_EVIDENCE)


def claims_rows(summary: pd.DataFrame, *, min_k_fit: int = 6, tolerance: float = 0.10,
                linear_exponent_max: float = 1.1) -> list[Claim]:  # fmt: skip
    """The claims of the paper from ``summary`` (``loads_details`` of :func:`run`), verdicts from their rules.

    Rules (fixed before looking at the data):

    * Theorem 3's constant 1/8: every (d, parity of k) fit :func:`fit_leading_constant` on ``k >= min_k_fit``
      within ``tolerance`` (relative) of 1/8 (``all_of``);
    * upper bounds (Theorems 4, 5; Corollary 1): the largest ``measured / bound`` at most 1 (``at_most``);
    * "linear load" (Theorems 3-6): every ``(d, t, parity)`` exponent of :func:`asymptotic_exponent` over
      ``k >= min_k_fit`` at most ``linear_exponent_max`` (``all_of``);
    * lower bounds ((1), Lemma 1, the fully populated ``k^(d+1)/8``): the least ``E_max - bound`` at least 0
      (``at_least``; float round-off slack only);
    * Theorem 2's constant independent of d: the natural-cut constants' spread ``(max - min) / max`` at most
      ``tolerance`` (``at_most``);
    * Blaum et al.'s optimality: ``E_max / (1) <= 1 + tolerance`` at the largest radix of d = 2 and of d = 3
      (``all_of``; d = 2 alone gives "holds under conditions");
    * a claim without rows (or only NaN) to test it on is "not testable here".

    Asymptotic statements are probed on the measured range of ``k`` only; the conditions say which.

    Examples
    --------
    >>> summary = pd.DataFrame([row for d in (2, 3) for k in (6, 8) for t in (1, 2)
    ...     for row in evaluate_point(d, k, t, "linear" if t == 1 else "multiple_linear")["summary"]])
    >>> rows = claims_rows(summary)
    >>> {r.claim_id: r.verdict for r in rows}["udr_linear_bound"]
    'holds'
    """
    check_frame("summary", summary, ["k", "e_max", "placement", "routing", "d"])
    rows = []
    big = summary[summary["k"] >= min_k_fit]
    fit_note = f"fits over k >= {min_k_fit}, separately for even and odd k"

    # Theorem 3: ODR linear E_max = k^(d-1)/8 + o(k^(d-1)), regardless of the parity of k
    odr_lin = big[(big["routing"] == "odr") & (big["placement"] == "linear")]
    per_dim, flags, mean_fits = [], [], []
    for d, group in odr_lin.groupby("d"):
        for parity, part in group.groupby(group["k"] % 2):
            a, _ = fit_leading_constant(part["k"], part["e_max"] / part["k"] ** (d - 1))
            m, _ = fit_leading_constant(part["k"], part["e_mean"] / part["k"] ** (d - 1))
            per_dim.append(f"d={d} {'odd' if parity else 'even'} k: {_fmt(a)}")
            mean_fits.append(m)
            flags.append(constant_matches(a, 1 / 8, tolerance))
    rows.append(Claim(
        claim_id="odr_linear_constant", location="Theorem 3",
        statement="ODR on a linear placement gives E_max = k^(d-1)/8 + o(k^(d-1)), for either parity of k",
        conditions=f"linear placement, ODR; {_scope(odr_lin)}; {fit_note}: E_max/k^(d-1) = a + b/k, a within "
                   f"{tolerance:.0%} of 1/8; {_EXACT}",
        paper_value=0.125, paper_text="E_max/k^(d-1) -> 1/8", measured_value=sum(flags) if flags else math.nan,
        measured_text=("fitted a: " + "; ".join(per_dim) + f"; within {tolerance:.0%} of 1/8 for {sum(flags)} of "
                       f"{len(flags)}" + (f" (the mean link load/k^(d-1) -> {_fmt(min(mean_fits))}.."
                                          f"{_fmt(max(mean_fits))})" if mean_fits else "") if flags else "no data"),
        rule=Rule("all_of", {"n": len(flags)}), evidence=_EVIDENCE))

    def exponent_claim(claim_id: str, location: str, statement: str, routing: str, placement: str) -> None:
        part = big[(big["routing"] == routing) & (big["placement"] == placement)]
        texts, ok = [], []
        for (d, t), group in part.groupby(["d", "t"]):
            for parity, alpha, ks in asymptotic_exponent(group):
                texts.append(f"d={d} t={t} {parity} k {ks[0]}..{ks[-1]}: {_fmt(alpha)}")
                ok.append(bool(alpha <= linear_exponent_max))
        rows.append(Claim(
            claim_id=claim_id, location=location, statement=statement,
            conditions=f"{placement.replace('_', ' ')} placement, {routing.upper()}; {_scope(part)}; exponent of "
                       f"E_max against |P|, {fit_note}; linear read as an exponent <= {linear_exponent_max}; {_EXACT}",
            paper_value=1.0, paper_text="E_max = O(|P|) (exponent 1)", measured_value=sum(ok) if ok else math.nan,
            measured_text=(f"exponent <= {linear_exponent_max} in {sum(ok)} of {len(ok)} fits: " + "; ".join(texts)
                           if ok else "no data"),
            rule=Rule("all_of", {"n": len(ok)}), evidence=_EVIDENCE))

    exponent_claim("odr_linear_linear", "Theorem 3", "linear placement + ODR has linear load", "odr", "linear")
    exponent_claim("odr_multiple_linear", "Theorem 4", "multiple linear placement + ODR has linear load", "odr",
                   "multiple_linear")  # fmt: skip
    exponent_claim("udr_linear_linear", "Theorem 5", "linear placement + UDR has linear load", "udr", "linear")
    exponent_claim("udr_multiple_linear", "Theorem 6", "multiple linear placement + UDR has linear load", "udr",
                   "multiple_linear")  # fmt: skip

    # Section 5: "linear placements themselves do not guarantee the linearity of the load on edges"
    shortest = big[(big["routing"] == "shortest") & (big["placement"] == "linear")]
    texts, superlinear = [], []
    for d, group in shortest.groupby("d"):
        for parity, alpha, ks in asymptotic_exponent(group):
            texts.append(f"d={d} {parity} k {ks[0]}..{ks[-1]}: {_fmt(alpha)}")
            superlinear.append(bool(alpha > linear_exponent_max))
    rows.append(Claim(
        claim_id="placement_alone", location="Section 5",
        statement="a linear placement alone does not guarantee linear load (the routing matters)",
        conditions=f"linear placement with one other routing, all shortest paths equally weighted; {_scope(shortest)}"
                   f"; {fit_note}; superlinear read as an exponent > {linear_exponent_max}; an existence claim: a "
                   "routing without superlinear load would not refute it, so that case is not testable here",
        paper_text="some shortest-path routing has superlinear load",
        measured_value=sum(superlinear) if any(superlinear) else math.nan,
        measured_text=(f"superlinear in {sum(superlinear)} of {len(superlinear)} fits: " + "; ".join(texts)
                       if superlinear else "no data"),
        rule=Rule("at_least", {"bound": 1}), evidence=_EVIDENCE))

    rows.append(_upper_bound(
        "odr_multiple_bound", "Theorem 4", "multiple linear + ODR has E_max <= t^2 k^(d-1)", "t^2 k^(d-1)",
        summary[(summary["routing"] == "odr") & (summary["placement"] == "multiple_linear")], "e_max",
        "claimed_bound"))
    rows.append(_upper_bound(
        "udr_linear_bound", "Theorem 5", "linear + UDR has E_max <= 2^(d-1) k^(d-1)", "2^(d-1) k^(d-1)",
        summary[(summary["routing"] == "udr") & (summary["placement"] == "linear")], "e_max", "claimed_bound"))

    # lower bounds (1) and Lemma 1 must sit below every measured E_max
    rows.append(_lower_bound("bound_1", "Section 1", "E_max >= (|P|-1)/(2d) for every "
                             "routing", "lower bound for every routing", summary, summary["lb_single"]))
    rows.append(_lower_bound("lemma_1", "Lemma 1", "E_max >= 2|S|(|P|-|S|)/|dS| for every cut S (the best cut "
                             "we found)", "lower bound for every routing", summary, summary["lb_cut"]))

    # Theorem 2 / bound (2): a cut bound c k^(d-1) with c independent of d, tighter than (1) for large d
    lin = summary[(summary["placement"] == "linear") & (summary["routing"] == summary["routing"].iloc[0])]
    spread, text = math.nan, "no data"
    if not lin.empty:
        by_d = lin.assign(c=lin["lb_natural"] / lin["k"] ** (lin["d"] - 1)).groupby("d")["c"].min()
        better = lin[lin["lb_cut"] > lin["lb_single"]]["d"].unique()
        spread = float((by_d.max() - by_d.min()) / by_d.max())
        text = ("natural-cut c per d: " + ", ".join(f"d={d}: {_fmt(c)}" for d, c in by_d.items())
                + f" (spread {spread:.1%}); cut bound > (1) for d in {sorted(int(v) for v in better)}")
    rows.append(Claim(
        claim_id="improved_bound", location="Theorem 2; Section 4",
        statement="E_max >= c k^(d-1) with c independent of d; tighter than (1) for d >= 4",
        conditions=f"linear placements; {_scope(lin)}; c from the natural bisecting cut, its least value per d; "
                   f"'independent of d' read as a spread (max - min)/max <= {tolerance:.0%}",
        paper_text="c independent of d", measured_value=spread, measured_text=text,
        rule=Rule("at_most", {"bound": tolerance}), evidence=_EVIDENCE))

    # Corollary 1: bisection width w.r.t. P <= 6 d k^(d-1)
    rows.append(_upper_bound(
        "corollary_1", "Theorem 1; Corollary 1", "|d_b P| <= 6 d k^(d-1) for any placement (the natural bisecting "
        "cut, an upper bound on |d_b P|)", "6 d k^(d-1)", summary, "bisection_natural", "bisection_bound"))

    # Section 1: Blaum et al.'s placements (k for d = 2, k^2 for d = 3) achieve bound (1)
    for routing in ("odr", "udr"):
        part = summary[(summary["placement"] == "linear") & (summary["routing"] == routing)
                       & summary["d"].isin([2, 3])]  # fmt: skip
        texts, flags, d2 = [], [], []
        for d, group in part.groupby("d"):
            last = group.loc[group["k"].idxmax()]
            ratio = last["e_max"] / last["lb_single"]
            texts.append(f"d={d}, k={last['k']}: E_max/(1) = {_fmt(ratio)}")
            flags.append(bool(ratio <= 1 + tolerance))
            if d == 2:
                d2.append(flags[-1])
        rows.append(Claim(
            claim_id=f"blaum_optimal_{routing}", location="Section 1",
            statement=f"the linear placement meets bound (1) for d = 2 and 3 under {routing.upper()}",
            conditions=f"linear placement, {routing.upper()}, at the largest radix of each d ({_scope(part)}; a d "
                       f"not run counts as not met); 'meets' read as E_max/(1) <= 1 + {tolerance:.0%}; {_EXACT}",
            paper_text="E_max = (|P|-1)/(2d)", measured_value=sum(flags) if flags else math.nan,
            measured_text="; ".join(texts) or "no data",
            rule=Rule("all_of", {"n": 2 if flags else 0, "condition": "d = 2", "conditional_k": sum(d2),
                                 "conditional_n": len(d2)}),
            evidence=_EVIDENCE))

    # Section 1 / Theorem 1: optimal placements have Theta(k^(d-1)) processors; fully populated is superlinear
    full = summary[summary["placement"] == "full"]
    if not full.empty:
        even = full[full["k"] % 2 == 0]
        texts = [f"d={d} {routing} {parity} k {ks[0]}..{ks[-1]}: {_fmt(alpha)}"
                 for (d, routing), group in full.groupby(["d", "routing"])
                 for parity, alpha, ks in asymptotic_exponent(group)]  # fmt: skip
        claim = _lower_bound("full_torus", "Section 1", "a fully populated torus (k even) has a link with load >= "
                             "k^(d+1)/8: superlinear", "E_max >= k^(d+1)/8", even, even["k"] ** (even["d"] + 1) / 8)
        rows.append(dataclasses.replace(claim, measured_text=f"{claim.measured_text}; exponent of E_max vs |P|: "
                                                             + "; ".join(texts)))
    rows.extend(coverage_rows(summary, tolerance=tolerance))
    return rows


def placement_size_check(summary: pd.DataFrame) -> pd.DataFrame:
    """Per constructed placement of ``summary`` (linear, multiple linear, full): its size against ``t k^(d-1)``.

    One row per (d, k, t, placement): processors, expected (``t k^(d-1)``; the fully populated torus has t = k),
    equal.  The paper (Section 5): "there are exactly k^(d-1) processors satisfying p_1 + ... + p_d = c (mod k)";
    multiple linear placements have ``t k^(d-1)``.

    Examples
    --------
    >>> s = pd.DataFrame({"d": [3, 3], "k": [4, 4], "t": [1, 2], "placement": ["linear", "multiple_linear"],
    ...                   "processors": [16, 32], "routing": ["odr", "odr"]})
    >>> placement_size_check(s)[["t", "expected", "equal"]].values.tolist()
    [[1, 16, True], [2, 32, True]]
    """
    check_frame("summary", summary, ["d", "k", "t", "placement", "processors"])
    sizes = summary.drop_duplicates(["d", "k", "t", "placement"])[["d", "k", "t", "placement", "processors"]]
    expected = sizes["t"].astype(int) * sizes["k"].astype(int) ** (sizes["d"].astype(int) - 1)
    return sizes.assign(expected=expected.astype(int), equal=sizes["processors"].astype(int) == expected) \
        .reset_index(drop=True)


def load_per_processor_by_t(summary: pd.DataFrame, routings: Sequence[str] = ("odr", "udr")) -> pd.DataFrame:
    """How the load per processor grows with the placement size ``|P| = t k^(d-1)`` at fixed (d, k).

    One row per (d, k, routing) with at least two values of t (linear t = 1, multiple linear t >= 2, full t = k):
    ts, per_processor (``E_max / |P|`` in t order), per_processor_over_t (``E_max / (t |P|)``), grows
    (``E_max / |P|`` non-decreasing in t and larger at the largest t than at the smallest), increasing (strictly
    increasing at every step).  A load linear in ``|P|`` would keep ``E_max / |P|`` flat; the paper's Section 3.1
    (optimal placements have ``O(k^(d-1))`` processors) predicts growth with t.  At small k the values can level
    off as t nears k (the fully populated torus caps them), hence the two columns.

    Examples
    --------
    >>> s = pd.DataFrame({"d": [2, 2, 2], "k": [6, 6, 6], "t": [1, 2, 6], "routing": ["odr"] * 3,
    ...                   "processors": [6, 12, 36], "e_max": [3.0, 8.0, 36.0]})
    >>> load_per_processor_by_t(s)[["ts", "per_processor", "grows", "increasing"]].values.tolist()
    [['1 2 6', '0.5 0.6667 1', True, True]]
    """
    check_frame("summary", summary, ["d", "k", "t", "routing", "processors", "e_max"])
    routings = [check_str("routings[i]", r) for r in check_sequence("routings", routings)]
    rows = []
    part = summary[summary["routing"].isin(routings)].dropna(subset=["e_max"])
    for (d, k, routing), group in part.groupby(["d", "k", "routing"]):
        group = group.sort_values("t")
        if group["t"].nunique() < 2:
            continue
        per = (group["e_max"] / group["processors"]).to_numpy(dtype=float)
        rows.append({"d": int(d), "k": int(k), "routing": routing, "ts": " ".join(str(int(t)) for t in group["t"]),
                     "per_processor": " ".join(_fmt(v) for v in per),
                     "per_processor_over_t": " ".join(_fmt(v) for v in per / group["t"].to_numpy(dtype=float)),
                     "grows": bool(np.all(np.diff(per) >= 0) and per[-1] > per[0]),
                     "increasing": bool(np.all(np.diff(per) > 0))})
    return pd.DataFrame(rows, columns=["d", "k", "routing", "ts", "per_processor", "per_processor_over_t",
                                       "grows", "increasing"])


def optimality_by_dimension(summary: pd.DataFrame, routings: Sequence[str] = ("odr", "udr")) -> pd.DataFrame:
    """The linear placement's ``E_max`` against the lower bounds, per dimension, at the largest radix of each d.

    One row per (routing, d): k, processors, e_max, ratio_bound_2 (``E_max / lb_cut``, the best Lemma 1 cut bound
    found: the concrete form of bound (2), ``c k^(d-1)``), ratio_bound_1 (``E_max / (1)``).  An optimal placement in
    the paper's sense keeps ``ratio_bound_2`` bounded as d grows (bound (2)'s constant is independent of d).

    Examples
    --------
    >>> s = pd.DataFrame({"d": [2, 2, 3], "k": [5, 9, 5], "placement": "linear", "routing": "odr",
    ...                   "processors": [5, 9, 25], "e_max": [2.0, 4.0, 12.0], "lb_cut": [1.0, 1.0, 4.0],
    ...                   "lb_single": [1.0, 2.0, 4.0]})
    >>> optimality_by_dimension(s)[["routing", "d", "k", "ratio_bound_2"]].values.tolist()
    [['odr', 2, 9, 4.0], ['odr', 3, 5, 3.0]]
    """
    check_frame("summary", summary, ["d", "k", "placement", "routing", "processors", "e_max", "lb_cut", "lb_single"])
    routings = [check_str("routings[i]", r) for r in check_sequence("routings", routings)]
    lin = summary[(summary["placement"] == "linear") & summary["routing"].isin(routings)].dropna(
        subset=["e_max", "lb_cut"])
    rows = []
    for (routing, d), group in lin.groupby(["routing", "d"]):
        last = group.loc[group["k"].idxmax()]
        rows.append({"routing": routing, "d": int(d), "k": int(last["k"]), "processors": int(last["processors"]),
                     "e_max": float(last["e_max"]), "ratio_bound_2": float(last["e_max"] / last["lb_cut"]),
                     "ratio_bound_1": float(last["e_max"] / last["lb_single"])})
    return pd.DataFrame(rows, columns=["routing", "d", "k", "processors", "e_max", "ratio_bound_2",
                                       "ratio_bound_1"])


def coverage_rows(summary: pd.DataFrame, *, tolerance: float = 0.10) -> list[Claim]:
    """The rows of :func:`claims_rows` that cover the paper's remaining statements: the sizes
    of the constructed placements, the ``Theta(k^(d-1))`` size of optimal placements, the optimality of linear
    placements against bound (2) as d grows, and the fully populated torus's bisection width ``4k^(d-1)``.

    Rules: sizes equal ``t k^(d-1)`` in every case; ``E_max / |P|`` grows with t (non-decreasing, larger at the
    largest t) in every (d, k, routing) group; the ratio ``E_max / bound (2)`` at the largest d at most
    ``1 + tolerance`` times the ratio at the smallest d, per routing (ODR, UDR); the natural cut of every fully
    populated torus with k even equals ``4k^(d-1)`` directed edges.

    Examples
    --------
    >>> s = pd.DataFrame({"d": [2, 3], "k": [5, 5], "t": [1, 1], "placement": "linear", "routing": "odr",
    ...                   "processors": [5, 25], "e_max": [2.0, 10.0], "lb_cut": [1.0, 5.0], "lb_single": [1.0, 4.0]})
    >>> {r.claim_id: r.verdict for r in coverage_rows(s)}["linear_optimal_bound_2"]
    'holds'
    """
    check_frame("summary", summary, ["d", "k", "t", "placement", "routing", "processors", "e_max"])
    tolerance = check_real("tolerance", tolerance, minimum=0)
    rows = []
    sizes = placement_size_check(summary)
    built = sizes[sizes["placement"].isin(["linear", "multiple_linear"])]
    rows.append(Claim(
        claim_id="placement_sizes", location="Section 5",
        statement="a linear placement has exactly k^(d-1) processors; a multiple linear placement t k^(d-1)",
        conditions=f"every constructed placement: {_scope(built)}; t in {sorted(int(t) for t in built['t'].unique())}"
                   "; processors counted from the placement's node set",
        paper_text="|P| = t k^(d-1)", measured_value=int(built["equal"].sum()) if len(built) else math.nan,
        measured_text=f"|P| = t k^(d-1) in {int(built['equal'].sum())} of {len(built)} placements",
        rule=Rule("all_of", {"n": len(built)}), evidence=_EVIDENCE))
    growth = load_per_processor_by_t(summary)
    grows, inc = int(growth["grows"].sum()), int(growth["increasing"].sum())
    sample = growth.iloc[-1] if len(growth) else None
    rows.append(Claim(
        claim_id="optimal_size_theta", location="Section 3.1; Section 8",
        statement="an optimal placement (linear load) has Theta(k^(d-1)) processors: placements of c k^(d-1) "
                  "processors lose linear load as c grows",
        conditions=f"what the workbench can show: at fixed (d, k) the placements of t k^(d-1) processors (linear "
                   "t = 1, multiple linear t >= 2, fully populated t = k) under ODR and UDR; load per processor "
                   "E_max/|P| read as growing when non-decreasing in t and larger at the largest t than at t = 1; "
                   f"{_scope(growth)}; the O(k^(d-1)) bound "
                   f"over every placement is a proof (Lemma 1 + Corollary 1), not testable by enumeration; {_EXACT}",
        paper_text="|P| = Theta(k^(d-1))", measured_value=grows if len(growth) else math.nan,
        measured_text=(f"E_max/|P| grows with t in {grows} of {len(growth)} (d, k, routing) groups (strictly at "
                       f"every step in {inc}; the others level off as t nears k at small k); e.g. "
                       f"d={sample['d']}, k={sample['k']}, {sample['routing']}: t = {sample['ts']} -> E_max/|P| = "
                       f"{sample['per_processor']}" if len(growth) else "no (d, k) with two placement sizes"),
        rule=Rule("all_of", {"n": len(growth)}), evidence=_EVIDENCE))
    opt = optimality_by_dimension(summary) if {"lb_cut", "lb_single"} <= set(summary) else pd.DataFrame()
    texts, flags = [], []
    for routing, group in opt.groupby("routing") if len(opt) else []:
        group = group.sort_values("d")
        texts.append(f"{routing.upper()}: " + ", ".join(f"d={r.d} (k={r.k}): {_fmt(r.ratio_bound_2)}"
                                                         for r in group.itertuples()))
        if len(group) >= 2:
            flags.append(bool(group["ratio_bound_2"].iloc[-1] <= (1 + tolerance) * group["ratio_bound_2"].iloc[0]))
    rows.append(Claim(
        claim_id="linear_optimal_bound_2", location="Section 4; Section 8",
        statement="linear placements with ODR / UDR are optimal: their E_max stays within a constant factor of the "
                  "lower bound (2) as d grows",
        conditions=f"linear placements, ODR and UDR, at the largest radix of each d ({_scope(opt)}); bound (2) "
                   "read as the best Lemma 1 cut bound found (natural bisecting cut and greedy search, 'lb_cut'); "
                   f"'bounded as d grows' read as the ratio at the largest d <= (1 + {tolerance:.0%}) x the ratio at "
                   "the smallest d; asymptotics probed on the measured d only",
        paper_text="E_max = Theta(bound (2)), constant independent of d",
        measured_value=sum(flags) if flags else math.nan,
        measured_text=("E_max / bound (2): " + "; ".join(texts)
                       + f"; not growing with d for {sum(flags)} of {len(flags)} routings" if flags
                       else "fewer than two dimensions in this run"),
        rule=Rule("all_of", {"n": len(flags)}), evidence=_EVIDENCE))
    full = summary[(summary["placement"] == "full") & (summary["k"] % 2 == 0)]
    if "bisection_natural" in full:
        full = full.drop_duplicates(["d", "k"]).dropna(subset=["bisection_natural"])
        widths = 4 * full["k"].astype(int) ** (full["d"].astype(int) - 1)
        equal = int((full["bisection_natural"].astype(int) == widths).sum())
    else:
        full, equal = full.iloc[0:0], 0
    rows.append(Claim(
        claim_id="full_bisection_width", location="Section 1",
        statement="the fully populated d-dimensional k-torus (k even) has bisection width 4k^(d-1)",
        conditions=f"fully populated tori with k even ({_scope(full)}); the natural bisecting cut (two hyperplanes "
                   "of one dimension, directed edges both ways) counted; that no cut is smaller is the known "
                   "bisection width of the torus, not re-derived here",
        paper_text="4k^(d-1)", measured_value=equal if len(full) else math.nan,
        measured_text=(f"natural cut = 4k^(d-1) directed edges in {equal} of {len(full)} tori"
                       if len(full) else "no fully populated torus with k even in this run"),
        rule=Rule("all_of", {"n": len(full)}), evidence=("data/loads/loads_details.csv",)))
    return rows


def bruteforce_claim(tiny: pd.DataFrame) -> Claim:
    """The claim ``corollary_1_bruteforce``: every exact ``|d_b P|`` of ``tiny`` (the ``bisection_tiny`` table)
    is at most Corollary 1's ``6 d k^(d-1)`` (no rows with both values: "not testable here").

    Examples
    --------
    >>> tiny = pd.DataFrame({"bisection_width": [4, 36], "corollary_1_bound": [36, 36], "dims": 2, "radix": 3})
    >>> bruteforce_claim(tiny).verdict, bruteforce_claim(tiny).measured_text
    ('holds', 'max exact |d_b P| / 6dk^(d-1) = 1 over 2 placements')
    """
    check_frame("tiny", tiny, ["bisection_width", "corollary_1_bound"])
    valid = tiny.dropna(subset=["bisection_width", "corollary_1_bound"])
    ratio = valid["bisection_width"] / valid["corollary_1_bound"]
    tori = sorted({(int(r.dims), int(r.radix)) for r in valid.itertuples()}) if {"dims", "radix"} <= set(valid) else []
    return Claim(
        claim_id="corollary_1_bruteforce", location="Theorem 1; Corollary 1",
        statement="on tiny tori, the exact |d_b P| <= 6 d k^(d-1) for random placements",
        conditions=f"(d, k) in {tori}; random placements; exact minimum bisection by brute force",
        paper_value=1.0, paper_text="6 d k^(d-1)", measured_value=float(ratio.max()) if len(valid) else math.nan,
        measured_text=(f"max exact |d_b P| / 6dk^(d-1) = {ratio.max():.3g} over {len(valid)} placements"
                       if len(valid) else "no data"),
        rule=Rule("at_most", {"bound": 1 + UPPER_SLACK}), evidence=("data/loads/bisection_tiny.csv",))

