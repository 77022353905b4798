"""Evaluation of Azizoglu & Eğecioğlu's placements and link loads over a (d, k, t) grid.

For every dimension ``d``, radix ``k`` and number of classes ``t`` (``t = 1``: linear placement
``sum p_i = 0 mod k``; ``t >= 2``: multiple linear placement, classes ``0..t-1``; optionally the fully
populated torus) the exact link loads of complete exchange are computed with :func:`torus_lab.loads.link_loads`
for ODR, UDR and all shortest paths, next to the lower bounds (1) and Lemma 1 (natural cuts + greedy cut search)
and the bound the paper claims for that case.

The paper has no figures; this study produces tables of those quantities, the data of the notebook's figures
(drawn by :mod:`torus_lab.plots.loads`), a brute-force check of Corollary 1 on tiny tori, and the claims table,
built by :func:`torus_lab.studies.loads_claims.claims` as the last step of :func:`run`.  :func:`run` is the entry
point: it takes one preset of ``experiments/loads.yaml``.

Examples
--------
>>> out = evaluate_point(2, 5, 1, "linear")
>>> sorted(row["routing"] for row in out["summary"])
['odr', 'shortest', 'udr']
>>> all(row["e_max"] >= row["lb_cut"] - 1e-9 for row in out["summary"])
True
"""

from __future__ import annotations

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
    check_real_array,
    check_sequence,
    check_str,
)
from torus_lab.loads import (
    MAX_EXHAUSTIVE_NODES,
    MAX_STEPS,
    ROUTINGS,
    all_placement_bisection_widths,
    balanced_cut_search,
    bisection_slack_search,
    bisection_width_upper_bound,
    certified_bisection_width,
    e_max,
    linear_placement,
    link_loads,
    load_frame,
    multiple_linear_placement,
    natural_bisection_width,
    natural_cut_bound,
    node_placement,
    optimal_routing_load,
    placement_bisection_width_bruteforce,
    random_placements,
    residue_placement,
    single_node_bound,
)
from torus_lab.studies.loads_claims import claims
from torus_lab.sweep import sweep
from torus_lab.timing import split_timing, timing_key
from torus_lab.topology import Torus

__all__ = [
    "CSV_COLUMNS",
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
    "fit_exponent",
    "COROLLARY_TORI",
    "COROLLARY_RANDOM",
    "COROLLARY_SEARCH",
    "bisection_exhaustive_row",
    "bisection_any_row",
    "BLAUM_TORI",
    "best_routing_row",
]


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
    bounds = _point_bounds(torus, chosen, seed, cut_search_max_nodes, cut_steps)
    point = {"d": d, "k": k, "t": t, "placement": placement}
    summary, per_dimension = [], []
    for routing in routings:
        if routing == "shortest" and shortest_max_nodes is not None and torus.num_nodes > shortest_max_nodes:
            continue
        start = time.perf_counter()
        loads = link_loads(torus, chosen, routing)
        seconds = time.perf_counter() - start
        frame = load_frame(torus, loads, chosen)
        summary.append({**_summary_row(point, routing, chosen, loads, frame, bounds), "seconds": seconds,
                        "cut_seed": seed})  # fmt: skip
        per_dimension += _per_dimension_rows(point, routing, frame)
    return {"summary": summary, "per_dimension": per_dimension}


def _point_bounds(torus: Torus, chosen: np.ndarray, seed: int, cut_search_max_nodes: int,
                  cut_steps: int) -> dict[str, float]:  # fmt: skip
    """The lower bounds on the largest link load of a placement (single node, natural cuts, the greedy cut search
    where the torus has at most ``cut_search_max_nodes`` nodes, the better cut) and the bisection widths.

    Examples
    --------
    >>> torus = Torus(2, 6)
    >>> bounds = _point_bounds(torus, _placement(torus, 1, "linear"), 0, 4096, 10)
    >>> bounds["lb_cut"] == max(bounds["lb_natural"], bounds["lb_search"])
    True
    """
    natural = natural_cut_bound(torus, chosen, widths="all")
    searched = (
        balanced_cut_search(torus, chosen, seed=seed, max_steps=cut_steps).value
        if torus.num_nodes <= cut_search_max_nodes
        else math.nan
    )
    bisection = natural_bisection_width(torus, chosen)
    return {
        "lb_single": single_node_bound(torus, chosen),
        "lb_cut": float(np.nanmax([natural.value, searched])),
        "lb_natural": natural.value,
        "lb_search": searched,
        "bisection_natural": math.nan if bisection is None else bisection,
        "bisection_bound": bisection_width_upper_bound(torus),
    }


def _summary_row(point: dict, routing: str, chosen: np.ndarray, loads: np.ndarray, frame: pd.DataFrame,
                 bounds: dict[str, float]) -> dict:  # fmt: skip
    """The summary row of one routing at a point (``d``, ``k``, ``t``, ``placement``): loads, bounds, the paper's
    claimed bound and where the first maximal link is (``frame``: :func:`~torus_lab.loads.load_frame`)."""
    at_max = _at_max(loads)
    top = frame.iloc[int(np.flatnonzero(at_max)[0])]  # the first maximal link (frame rows are channels)
    return {
        **point, "routing": routing, "processors": chosen.size,
        "e_max": float(loads.max()), "e_mean": float(loads.mean()), "lb_single": bounds["lb_single"],
        "lb_cut": bounds["lb_cut"],
        "claimed_bound": claimed_bound(point["d"], point["k"], point["t"], point["placement"], routing),
        "lb_natural": bounds["lb_natural"], "lb_search": bounds["lb_search"],
        "bisection_natural": bounds["bisection_natural"], "bisection_bound": bounds["bisection_bound"],
        "e_max_dim": int(top["dim"]), "e_max_sign": int(top["sign"]), "e_max_residue": int(top["residue"]),
        "links_at_e_max": int(at_max.sum()),
    }  # fmt: skip


def _per_dimension_rows(point: dict, routing: str, frame: pd.DataFrame) -> list[dict]:
    """One row per dimension and sign: the largest, mean and smallest link load, and the residue of the first
    link at the largest."""
    return [
        {**point, "routing": routing, "dim": int(dim), "sign": int(sign), "max": float(group["load"].max()),
         "mean": float(group["load"].mean()), "min": float(group["load"].min()),
         "max_residue": int(group["residue"].iloc[_first_at_max(group["load"].to_numpy())])}
        for (dim, sign), group in frame.groupby(["dim", "sign"])
    ]  # fmt: skip


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


#: Tori (d, k) on which Corollary 1 is checked over random and adversarial placements (certified cuts).
COROLLARY_TORI = ((2, 8), (2, 16), (2, 32), (3, 6), (3, 8), (4, 4), (4, 5), (5, 3))
#: Random placements per torus of ``COROLLARY_TORI`` (sizes uniform in 2..N, :func:`torus_lab.loads.random_placements`).
COROLLARY_RANDOM = 100
#: The adversarial search per torus: (restarts, steps) of :func:`torus_lab.loads.bisection_slack_search`.
COROLLARY_SEARCH = (8, 250)


def _small_torus(dims: object, radix: object, rng: object) -> Torus:
    """The torus of a Corollary 1 / best-routing row, its arguments checked (``rng`` a Generator or None)."""
    dims = check_int("dims", dims, minimum=1, maximum=8)
    radix = check_int("radix", radix, minimum=2, maximum=1024)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    return Torus(dims, radix)


def bisection_exhaustive_row(dims: int, radix: int, rng: np.random.Generator | None = None) -> dict[str, Any]:
    """Corollary 1 on every placement (at least two processors) of a tiny torus: the exact ``|d_b P|`` of each
    (:func:`torus_lab.loads.all_placement_bisection_widths`), the largest, the bound and the least slack, with a
    placement that reaches it (node ids).  Deterministic (``rng`` unused).

    >>> row = bisection_exhaustive_row(2, 3)
    >>> row["placements"], row["max_width"], row["bound"], row["min_slack"]
    (502, 16, 36, 20)
    """
    torus = _small_torus(dims, radix, rng)
    widths = all_placement_bisection_widths(torus)
    sizes = np.array([bin(m).count("1") for m in range(len(widths))])
    valid = np.flatnonzero(sizes >= 2)
    worst = int(valid[np.argmax(widths[valid])])
    bound = bisection_width_upper_bound(torus)
    return {"d": dims, "k": radix, "placements": int(valid.size), "max_width": int(widths[valid].max()),
            "bound": bound, "min_slack": bound - int(widths[valid].max()),
            "worst_placement": " ".join(str(i) for i in range(torus.num_nodes) if worst >> i & 1)}


def bisection_any_row(dims: int, radix: int, rng: np.random.Generator) -> dict[str, Any]:
    """Corollary 1 on ``COROLLARY_RANDOM`` random placements and an adversarial search (``COROLLARY_SEARCH``)
    of one torus: the widths are certified upper bounds on ``|d_b P|``
    (:func:`torus_lab.loads.certified_bisection_width`), so a slack >= 0 proves the bound for that placement.

    >>> row = bisection_any_row(2, 4, np.random.default_rng(1))
    >>> row["random"], row["random_over_bound"], row["search_slack"] >= 0
    (100, 0, True)
    """
    torus = _small_torus(dims, radix, rng)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    seeds = np.random.SeedSequence(int(rng.integers(2**63))).spawn(2)
    widths = np.array([certified_bisection_width(torus, p)
                       for p in random_placements(torus, COROLLARY_RANDOM, seed=seeds[0])])
    restarts, steps = COROLLARY_SEARCH
    found = bisection_slack_search(torus, seed=seeds[1], restarts=restarts, steps=steps, objective="certified")
    bound = bisection_width_upper_bound(torus)
    return {"d": dims, "k": radix, "random": int(widths.size), "random_max_width": int(widths.max()),
            "random_over_bound": int((widths > bound).sum()), "bound": bound,
            "random_min_slack": bound - int(widths.max()), "search_restarts": restarts, "search_steps": steps,
            "search_evaluations": found.evaluations, "search_width": found.width, "search_slack": found.slack,
            "search_processors": found.placement.size}


#: Tori (d, k) of Blaum et al.'s dimensions on which the best routing of the linear placement is computed.
BLAUM_TORI = tuple((2, k) for k in (4, 5, 6, 7, 8, 9, 12, 13, 16, 17)) + tuple((3, k) for k in (3, 4, 5))


def best_routing_row(dims: int, radix: int, rng: np.random.Generator | None = None) -> dict[str, Any]:
    """The linear placement of one torus: bound (1), the least ``E_max`` over every routing on shortest paths
    (:func:`torus_lab.loads.optimal_routing_load`, any fractional split) and ODR's and UDR's ``E_max``.
    Deterministic (``rng`` unused).

    >>> row = best_routing_row(2, 4)
    >>> row["lb_single"], row["e_max_best"], row["e_max_udr"]
    (0.75, 0.75, 1.0)
    """
    torus = _small_torus(dims, radix, rng)
    placement = linear_placement(torus)
    return {"d": dims, "k": radix, "processors": placement.size, "lb_single": single_node_bound(torus, placement),
            "e_max_best": optimal_routing_load(torus, placement),
            **{f"e_max_{r}": float(e_max(link_loads(torus, placement, r))) for r in ("odr", "udr")}}


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
        ``bisection_tiny_summary`` (:func:`bisection_tiny_summary`), ``claims`` (last, from those tables by
        :func:`torus_lab.studies.loads_claims.claims`); and the timing frame
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

    tiny_all = [{"dims": int(t["dims"]), "radix": int(t["radix"])} for t in params["tiny_tori"]
                if int(t["radix"]) ** int(t["dims"]) <= MAX_EXHAUSTIVE_NODES]  # fmt: skip
    exhaustive = pd.DataFrame(sweep(bisection_exhaustive_row, tiny_all, seed=seed, desc="every placement"),
                              columns=["d", "k", "placements", "max_width", "bound", "min_slack", "worst_placement"])
    anywhere = pd.DataFrame(sweep(bisection_any_row, [{"dims": d, "radix": k} for d, k in COROLLARY_TORI],
                                  seed=seed, desc="random and adversarial placements")).assign(seed=seed)

    best = pd.DataFrame(sweep(best_routing_row, [{"dims": d, "radix": k} for d, k in BLAUM_TORI], seed=seed,
                              desc="best routing of the linear placement"))

    science_details, details_timing = split_timing(details, TIMING_COLUMNS, DETAIL_KEYS)
    tables = {
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
        "bisection_exhaustive": exhaustive,
        "bisection_any_placement": anywhere,
        "best_routing": best,
    }
    return {**tables, "claims": claims(tables, params), timing_key("loads_details"): details_timing}


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


# ---------------------------------------------------------------------- fits
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
