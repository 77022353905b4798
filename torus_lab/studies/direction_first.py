"""Evaluation of Demaine & Srinivas' direction-first e-cube (IJHSC 8(1), 1996).

The entry point is :func:`run` (parameters of ``experiments/direction_first.yaml`` -> one table per data
file); the notebook only shows its tables and figures.  Item functions are pure (parameters + ``rng`` -> dict)
and mapped over their grids with :func:`torus_lab.sweep.sweep`, which gives every item its own generator:

* :func:`fig4_run`: the paper's Fig. 4 set-up (``docs/conventions.md#df-fig4``): hypercube ``Q_n``, ``F`` random faulty
  links (connected fault sets only), every node generates a single-flit message with probability 0.2 per step for
  30 steps, then the network drains (cap 10,000 steps); one hop per link per step (1 VC, buffer depth 1);
  a message with no permitted output is dropped after ``drop_after = 1`` step, one with ``8 n`` hops too.
  ``mode="long"``: warm-up, thousands of measured cycles with continuous injection.
* :func:`curve_items`: latency vs offered load on a torus, the items of the one latency-load pipeline
  (:func:`torus_lab.studies.routing_bench.latency_point`: ``dims``, ``radix``, ``routing`` (registry spec),
  ``algorithm`` (label), ``load``, ``warmup``, ``measure``, ``replicate``; packets of 4 flits, buffers of 4,
  drain 4000 cycles: :data:`~torus_lab.studies.routing_bench.CURVE_CONFIG`); the ``curve_routings`` parameter
  lists e-cube (datelines), west-first and direction-first e-cube as ``{label, routing}`` records
  (:func:`routing_applies` skips west-first on tori that are not 2D).
* :func:`route_property_rows`: per topology and wrap rule, the CDG verdict and route-length statistics
  over every adaptive choice (exhaustive, path form), and the preferred route's minimality.
* :func:`ecube_lemma_rows`: Section 4.2's Lemma (double e-cube is e-cube) on every pair, against
  :func:`~torus_lab.routing.direction_first.double_ecube_route` written out from the text;
  :func:`west_first_route_rows`: Section 4.3's "all paths are minimal" for west-first (grids:
  ``lemma_items``, from ``prop_cases``).
* :func:`heavy_load_run`: simulation at heavy load looking for a real deadlock.
* :func:`header_table`: Theorem 5.4's header size.

Analysis helpers (:func:`growth_fits`, ``fault_effect_table``, ``latency_change_table``, ``load_curve_summary``,
``load_curve_saturation``, ``heavy_load_summary``, ``route_examples``) are small pure functions of those tables;
the claims table is built from them by :func:`torus_lab.studies.direction_first_claims.claims`, the last step of
:func:`run`.

Examples
--------
>>> import numpy as np
>>> row = fig4_run(4, 0, np.random.default_rng(1))
>>> row["nodes"], row["deadlock"], row["delivered"] > 0
(16, False, True)
"""

from __future__ import annotations

import math
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
    check_sequence,
    check_str,
)
from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table
from torus_lab.routing import RoutingFunction, make_routing
from torus_lab.routing.direction_first import double_ecube_route, header_size_bits
from torus_lab.sim import SimConfig, SimResult, simulate
from torus_lab.sim.saturation import Saturation
from torus_lab.stats import log_fit, summarize
from torus_lab.studies.direction_first_claims import claims, latency_changes
from torus_lab.studies.routing_bench import curve_saturation, latency_runs, point_summary
from torus_lab.sweep import sweep
from torus_lab.topology import Torus, connected_link_faults

__all__ = [
    "run",
    "METRICS",
    "SUMMARY_COLUMNS",
    "fig4_run",
    "curve_items",
    "load_curve_summary",
    "load_curve_saturation",
    "routing_applies",
    "route_property_rows",
    "ecube_lemma_rows",
    "west_first_route_rows",
    "heavy_load_run",
    "header_table",
    "growth_fits",
    "latency_changes",
]

#: Saturation of a latency-load curve: the highest load up to which every load is sustained, a load being
#: sustained when no run deadlocked and the accepted throughput is >= 95% of the generated one (no latency
#: test: the rule of the study before the shared definition, "accepted >= 0.95 x offered").
SATURATION = Saturation(accept_ratio=0.95, latency_factor=None)
#: Per-run metrics of the Fig. 4 runs, summarised with 95% CIs over seeds.
METRICS = ["latency", "hops", "extra_hops"]
_EXTRA_COLUMNS = ["deadlock", "dropped", "delivered_fraction", "hop_limit_drops"]
#: Columns of the Fig. 4 summaries the notebook shows.
SUMMARY_COLUMNS = [
    "misroute", "nodes", "faults", "latency_mean", "latency_ci", "hops_mean", "extra_hops_mean", "deadlock_mean",
    "delivered_fraction_mean",
]  # fmt: skip


def _sim_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**62))


# ---------------------------------------------------------------------- item functions
class _RowsWhere:
    """The rows of ``table`` where ``mask`` holds, one column at a time: ``rows("latency")`` is that column's
    values there as a Series (pandas' reductions on exactly the values of the filtered table, without copying
    every column); ``count`` is the number of rows.

    >>> rows = _RowsWhere(pd.DataFrame({"a": [1, 5, 2]}), np.array([True, False, True]))
    >>> rows.count, rows("a").tolist(), float(rows("a").mean())
    (2, [1, 2], 1.5)
    """

    def __init__(self, table: pd.DataFrame, mask: np.ndarray) -> None:
        self.table, self.mask, self.count = table, mask, int(mask.sum())

    def __call__(self, column: str) -> pd.Series:
        return pd.Series(self.table[column].to_numpy()[self.mask])


def fig4_run(
    n: int,
    faults: int,
    rng: np.random.Generator,
    *,
    mode: str = "paper",
    prob: float = 0.2,
    steps: int = 30,
    warmup: int = 1000,
    measure: int = 5000,
    drain: int = 10000,
    buffer_depth: int = 1,
    hop_limit: int | None = None,
    misroute: str = "y",
    drop_after: int = 1,
    replicate: int = 0,
) -> dict:
    """One run of the Fig. 4 experiment on the hypercube ``Q_n`` with ``faults`` faulty links.

    Parameters
    ----------
    n : int
        Hypercube dimension (``2**n`` nodes).
    faults : int
        Faulty bidirectional links (connected fault sets only).
    rng : numpy Generator
        Draws the fault set and the simulator seed.
    mode : {"paper", "long"}
        ``"paper"``: inject for ``steps`` steps with probability ``prob`` per node, then drain.
        ``"long"``: continuous injection, ``warmup`` then ``measure`` measured cycles, then drain.
    hop_limit : int or None
        Livelock guard (default ``8 n``): a message with that many hops is dropped and counted.
    misroute : {"y", "detour", "none"}
        Fault policy of the ``direction-first`` registry entry (REC ``"y"``).
    drop_after : int
        Steps a message with no permitted output (blocked west hop) waits before it is dropped
        (``docs/conventions.md#df-faults``; our choice 1: faults are static, so waiting longer only blocks other
        traffic).
    replicate : int
        Replicate number (only recorded, and it makes the items of a grid distinct; the randomness comes
        from ``rng``).

    Returns
    -------
    dict
        latency (steps, generation to delivery), hops, extra hops (hops - Hamming distance), delivered,
        dropped (no permitted output / hop limit), undelivered (still in flight at the end), not_injected
        (measured messages never injected), queue_overflow (messages discarded by a full source queue),
        max_source_wait (largest injection - generation of an injected message, steps; Corollary 5.3),
        deadlock, and ``sim_seed`` (the simulator's seed, drawn from ``rng``).
    """
    check_int("n", n, minimum=2)
    check_int("faults", faults, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_str("mode", mode)
    prob = check_real("prob", prob, minimum=0, maximum=1)
    check_int("steps", steps, minimum=0)
    check_int("warmup", warmup, minimum=0)
    check_int("measure", measure, minimum=0)
    check_int("drain", drain, minimum=0)
    check_int("drop_after", drop_after, minimum=0)
    check_int("replicate", replicate, minimum=0)
    check_int("buffer_depth", buffer_depth, minimum=1)
    if hop_limit is not None:
        check_int("hop_limit", hop_limit, minimum=1)
    check_str("misroute", misroute)
    if mode not in ("paper", "long"):
        raise ValueError(f"mode must be 'paper' or 'long', got {mode!r}")
    topo = Torus(n, 2)
    fault_set = connected_link_faults(topo, faults, rng)
    routing = make_routing({"name": "direction-first", "misroute": misroute}, topo, faults=fault_set)
    seed = _sim_seed(rng)
    config = SimConfig(
        offered_load=prob, packet_length=1, buffer_depth=buffer_depth, drain=drain,
        hop_limit=8 * n if hop_limit is None else hop_limit, drop_after=drop_after, deadlock_cycles=200,
    )  # fmt: skip
    if mode == "paper":
        config = config.replace(warmup=0, measure=steps, inject_during_drain=False)
    else:
        config = config.replace(warmup=warmup, measure=measure)
    res = simulate(routing, config, seed=seed)
    return {
        "mode": mode,
        "misroute": misroute,
        "replicate": replicate,
        "n": n,
        "nodes": topo.num_nodes,
        "faults": faults,
        "sim_seed": seed,
        **_fig4_measures(res),
    }


def _fig4_measures(res: SimResult) -> dict[str, Any]:
    """The measured columns of a :func:`fig4_run` row: latency and hop statistics of the delivered messages,
    delivery and drop counts, injection waits (Corollary 5.3), deadlock, throughput, cycles."""
    delivered = _RowsWhere(res.packets, res.packets["dropped"].to_numpy() == 0)
    injected = _RowsWhere(res.packets, res.packets["inject"].to_numpy() >= 0)
    waits = injected("inject") - injected("gen")
    return {
        "latency": res.mean_latency,
        "latency_median": float(delivered("latency").median()) if delivered.count else math.nan,
        "hops": res.mean_hops,
        "extra_hops": res.mean_extra_hops,
        "min_hops": float(delivered("min_hops").mean()) if delivered.count else math.nan,
        "frac_nonminimal": float((delivered("extra_hops") > 0).mean()) if delivered.count else math.nan,
        "delivered": res.delivered,
        "dropped": res.dropped,
        "delivered_fraction": res.delivered / max(1, res.delivered + res.dropped + res.undelivered),
        "hop_limit_drops": res.counters["hop_limit_drops"],
        "undelivered": res.undelivered,
        "not_injected": len(res.packets) - injected.count,
        "queue_overflow": res.counters["queue_overflow"],
        "max_source_wait": float(waits.max()) if injected.count else math.nan,
        "deadlock": res.deadlock,
        "accepted_throughput": res.accepted_throughput,
        "cycles": res.cycles,
    }


def fig4_items(params: Mapping[str, Any], mode: str) -> list[dict[str, Any]]:
    """The Fig. 4 grid of one ``mode`` (``"paper"``: ``fig4_*`` parameters, ``"long"``: ``long_*``).

    Order: policy, size, faults, replicate (last fastest).

    Examples
    --------
    >>> p = {"policies": ["y"], "drop_after": 1, "fig4_ns": [4], "fig4_faults": [0, 1], "fig4_seeds": 2}
    >>> [(i["faults"], i["replicate"]) for i in fig4_items(p, "paper")]
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    >>> q = {"policies": ["y"], "drop_after": 1, "long_ns": [4], "long_faults": [5], "long_seeds": 1,
    ...      "long_warmup": 10, "long_measure": 20}
    >>> fig4_items(q, "long")[0]["measure"]
    20
    """
    check_str("mode", mode, ("paper", "long"))
    per_mode = ["fig4_ns", "fig4_faults", "fig4_seeds"] if mode == "paper" else [
        "long_ns", "long_faults", "long_seeds", "long_warmup", "long_measure"]
    check_mapping("params", params, ["drop_after", "policies", *per_mode])
    if mode == "paper":
        ns, faults, seeds, extra = params["fig4_ns"], params["fig4_faults"], params["fig4_seeds"], {}
    elif mode == "long":
        ns, faults, seeds = params["long_ns"], params["long_faults"], params["long_seeds"]
        extra = {"warmup": params["long_warmup"], "measure": params["long_measure"]}
    else:
        raise ValueError(f"mode must be 'paper' or 'long', got {mode!r}")
    return [
        {"n": n, "faults": f, "mode": mode, **extra, "misroute": policy, "drop_after": params["drop_after"],
         "replicate": r}
        for policy in params["policies"] for n in ns for f in faults for r in range(seeds)
    ]  # fmt: skip


def routing_applies(spec: str | Mapping[str, Any], dims: int) -> bool:
    """Whether the routing named by registry ``spec`` is defined on a ``dims``-dimensional torus.

    West-first (a 2D turn model) exists only for ``dims == 2``; every other routing of the study is defined
    for any dimension.

    Examples
    --------
    >>> routing_applies({"name": "west-first", "vcs": 2}, 2), routing_applies("west-first", 3)
    (True, False)
    >>> routing_applies({"name": "direction-first"}, 3)
    True
    """
    if not isinstance(spec, str):
        check_mapping("spec", spec, ["name"])
    check_int("dims", dims, minimum=1)
    name = spec if isinstance(spec, str) else spec["name"]
    return name != "west-first" or dims == 2


def curve_items(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The latency-load grid: network, routing (where :func:`routing_applies`), load, replicate.

    Examples
    --------
    >>> p = {"curve_networks": [{"dims": 3, "radix": 4}], "curve_loads": [0.1], "curve_seeds": 1,
    ...      "curve_warmup": 10, "curve_measure": 20,
    ...      "curve_routings": [{"label": "wf", "routing": {"name": "west-first", "vcs": 2}},
    ...                         {"label": "df", "routing": {"name": "direction-first", "vcs": 2}}]}
    >>> [i["algorithm"] for i in curve_items(p)]
    ['df']
    """
    check_mapping("params", params, [
        "curve_warmup", "curve_measure", "curve_networks", "curve_routings", "curve_loads", "curve_seeds",
    ])
    return [
        {"dims": net["dims"], "radix": net["radix"], "routing": dict(entry["routing"]), "algorithm": entry["label"],
         "load": load, "warmup": params["curve_warmup"], "measure": params["curve_measure"], "replicate": r}
        for net in params["curve_networks"]
        for entry in params["curve_routings"]
        if routing_applies(entry["routing"], net["dims"])
        for load in params["curve_loads"]
        for r in range(params["curve_seeds"])
    ]  # fmt: skip


def route_property_rows(dims: int, radix: int, wraps: str, rng: np.random.Generator | None = None) -> dict:
    """Exhaustive fault-free properties of direction-first e-cube (1 VC) with wrap rule ``wraps``.

    CDG verdict and cycle (path form, all adaptive/random choices), fraction of pairs whose *preferred*
    route (first candidate at every hop) is minimal, fraction with *some* minimal route, fraction whose
    *every* route is minimal, and the largest extra hop count over all routes.  Deterministic: ``rng``
    (passed by :func:`torus_lab.sweep.sweep`) is not used.

    Examples
    --------
    >>> row = route_property_rows(3, 2, "phase")
    >>> row["cdg_acyclic"], row["all_routes_minimal"]
    (True, 1.0)
    """
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    check_str("wraps", wraps)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = Torus(dims, radix)
    routing = make_routing({"name": "direction-first", "wraps": wraps}, topo)
    return {"network": f"{radix}-ary {dims}-cube", "dims": dims, "radix": radix, "nodes": topo.num_nodes,
            "wraps": wraps, **_route_statistics(routing)}  # fmt: skip


def _route_statistics(routing: RoutingFunction) -> dict:
    """Exhaustive fault-free route properties of ``routing``: CDG verdict and route lengths over every choice.

    Keys: pairs; cdg_acyclic, cdg_cycle_length, cdg_cycle (path form, all adaptive/random choices);
    preferred_minimal (fraction of pairs whose first-candidate route is minimal), some_route_minimal,
    all_routes_minimal; max_extra_hops (over all routes), mean_preferred_extra_hops; can_loop.

    Examples
    --------
    >>> row = _route_statistics(make_routing("ecube", Torus(3, 2)))
    >>> row["pairs"], row["cdg_acyclic"], row["all_routes_minimal"]
    (56, True, 1.0)
    """
    check_instance("routing", routing, RoutingFunction, "a RoutingFunction")
    topo = routing.topology
    cycle = find_dependency_cycle(channel_dependency_graph(routing))
    table = route_length_table(routing)
    preferred = np.array(
        [len(routing.route_hops(int(s), int(d))) for s, d in zip(table.src, table.dst, strict=True)]
    )
    extra = table.max_hops - table.lee
    return {
        "pairs": len(table),
        "cdg_acyclic": cycle is None,
        "cdg_cycle_length": 0 if cycle is None else len(cycle),
        "cdg_cycle": "" if cycle is None else " -> ".join(f"{topo.channel(c)}" for c, _ in cycle),
        "preferred_minimal": float((preferred == table.lee.to_numpy()).mean()),
        "some_route_minimal": float((table.min_hops == table.lee).mean()),
        "all_routes_minimal": float((table.max_hops == table.lee).mean()),
        "max_extra_hops": float(extra.max()),
        "mean_preferred_extra_hops": float((preferred - table.lee.to_numpy()).mean()),
        "can_loop": bool(np.isinf(table.max_hops).any()),
    }


def property_items(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The route-property grid: ``prop_cases`` x ``wrap_rules``.

    Examples
    --------
    >>> property_items({"prop_cases": [{"dims": 2, "radix": 3}], "wrap_rules": ["phase", "none"]})
    [{'dims': 2, 'radix': 3, 'wraps': 'phase'}, {'dims': 2, 'radix': 3, 'wraps': 'none'}]
    """
    check_mapping("params", params, ["prop_cases", "wrap_rules"])
    return [
        {"dims": case["dims"], "radix": case["radix"], "wraps": wraps}
        for case in params["prop_cases"]
        for wraps in params["wrap_rules"]
    ]


def heavy_load_run(
    dims: int,
    radix: int,
    wraps: str,
    rng: np.random.Generator,
    *,
    load: float = 1.0,
    packet_length: int = 8,
    buffer_depth: int = 2,
    vc_allocation: str = "atomic",
    measure: int = 3000,
    replicate: int = 0,
) -> dict:
    """Direction-first e-cube with 1 VC at heavy uniform load: did the run deadlock?

    ``vc_allocation="nonatomic"`` is plain wormhole flow control without VCs (a channel's buffer may hold
    the tail of one packet and the head of the next).  ``replicate`` is only recorded.

    Examples
    --------
    >>> row = heavy_load_run(2, 4, "first", np.random.default_rng(0), measure=100)
    >>> row["network"], row["deadlock"], row["cycle"]
    ('4-ary 2-cube', False, '')
    """
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    check_str("wraps", wraps)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    load = check_real("load", load, minimum=0)
    check_int("packet_length", packet_length, minimum=1)
    check_int("buffer_depth", buffer_depth, minimum=1)
    check_str("vc_allocation", vc_allocation)
    check_int("measure", measure, minimum=0)
    check_int("replicate", replicate, minimum=0)
    topo = Torus(dims, radix)
    seed = _sim_seed(rng)
    routing = make_routing({"name": "direction-first", "wraps": wraps}, topo)
    config = SimConfig(
        offered_load=load, packet_length=packet_length, buffer_depth=buffer_depth, warmup=0, measure=measure,
        drain=0, deadlock_cycles=300, vc_allocation=vc_allocation,
    )  # fmt: skip
    res = simulate(routing, config, seed=seed)
    return {
        "network": f"{radix}-ary {dims}-cube",
        "dims": dims,
        "radix": radix,
        "wraps": wraps,
        "vc_allocation": vc_allocation,
        "packet_length": packet_length,
        "buffer_depth": buffer_depth,
        "replicate": replicate,
        "sim_seed": seed,
        "deadlock": res.deadlock,
        "cycle_length": len(res.deadlock_cycle),
        "cycle": " -> ".join(f"{topo.channel(c)}" for c, _ in res.deadlock_cycle),
        "cycle_has_wrap": any(topo.is_wraparound(c) for c, _ in res.deadlock_cycle),
        "accepted_throughput": res.accepted_throughput,
        "cycles": res.cycles,
    }


def heavy_items(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The heavy-load grid: case, wrap rule, flow-control configuration, replicate.

    Examples
    --------
    >>> p = {"heavy_cases": [{"dims": 2, "radix": 4}], "wrap_rules": ["phase"], "heavy_seeds": 1,
    ...      "heavy_measure": 50,
    ...      "heavy_configs": [{"vc_allocation": "nonatomic", "packet_length": 2, "buffer_depth": 1}]}
    >>> heavy_items(p)[0]["vc_allocation"], heavy_items(p)[0]["packet_length"]
    ('nonatomic', 2)
    """
    check_mapping("params", params, ["heavy_measure", "heavy_cases", "wrap_rules", "heavy_configs", "heavy_seeds"])
    return [
        {"dims": case["dims"], "radix": case["radix"], "wraps": wraps, "vc_allocation": cfg["vc_allocation"],
         "packet_length": cfg["packet_length"], "buffer_depth": cfg["buffer_depth"],
         "measure": params["heavy_measure"], "replicate": r}
        for case in params["heavy_cases"]
        for wraps in params["wrap_rules"]
        for cfg in params["heavy_configs"]
        for r in range(params["heavy_seeds"])
    ]  # fmt: skip


def header_table(cases: Sequence[Mapping[str, int]]) -> pd.DataFrame:
    """Theorem 5.4's header size for each ``{k, n}`` record: exact formula, whole-field bits, REC header.

    The REC header (``docs/conventions.md#df-header``) carries (dest, x, y, started): the same field sizes; the
    ``"first"`` wrap variant adds one bit.

    Examples
    --------
    >>> header_table([{"k": 2, "n": 4}]).bits_ceil.tolist()
    [9]
    """
    cases = [check_mapping("cases", case, ["k", "n"]) for case in check_sequence("cases", cases)]
    rows = [
        {
            "k": case["k"],
            "n": case["n"],
            "nodes": case["k"] ** case["n"],
            "bits_exact": header_size_bits(case["k"], case["n"], rounding="exact"),
            "bits_ceil": header_size_bits(case["k"], case["n"]),
            "rec_header_bits": header_size_bits(case["k"], case["n"]),
            "rec_first_wrap_bits": header_size_bits(case["k"], case["n"]) + 1,
        }
        for case in cases
    ]
    return pd.DataFrame(rows)


def ecube_lemma_rows(dims: int, radix: int, rng: np.random.Generator | None = None) -> dict:
    """The Lemma of Section 4.2 on the fault-free ``radix``-ary ``dims``-cube, every (src, dst) pair.

    Counts the pairs whose registry double e-cube route (``variant="double"``), registry e-cube route and
    :func:`~torus_lab.routing.direction_first.double_ecube_route` (both readings) are the same node sequence,
    the pairs whose e-cube route is minimal (Lee distance; Section 4.1), and the channel dependency graph verdict
    of double e-cube with one VC and no datelines (the Lemma's "deadlock free", meant for hypercubes).  ``rng``
    is not used.

    Examples
    --------
    >>> row = ecube_lemma_rows(3, 2)
    >>> row["pairs"] == row["double_equals_ecube"] == row["ecube_minimal"], row["cdg_acyclic"]
    (True, True)
    """
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = Torus(dims, radix)
    ecube = make_routing("ecube", topo)
    double = make_routing({"name": "ecube", "variant": "double"}, topo)
    nodes, coords = topo.nodes(), topo.all_coords()
    same = hop_same = minimal = 0
    for src_id, src in enumerate(nodes):  # routes asked by node id, the written-out ones by coordinates
        lee = topo.lee_distance(np.broadcast_to(coords[src_id], coords.shape), coords).tolist()
        for dst_id, dst in enumerate(nodes):
            if src_id == dst_id:
                continue
            route = ecube.route(src_id, dst_id)
            same += route == double.route(src_id, dst_id) == double_ecube_route(topo, src, dst)
            hop_same += route == double_ecube_route(topo, src, dst, reading="hop")
            minimal += len(route) - 1 == lee[dst_id]
    cycle = find_dependency_cycle(channel_dependency_graph(double))
    return {
        "network": f"{radix}-ary {dims}-cube",
        "dims": dims,
        "radix": radix,
        "pairs": len(nodes) * (len(nodes) - 1),
        "double_equals_ecube": same,
        "hop_reading_equals_ecube": hop_same,
        "ecube_minimal": minimal,
        "cdg_acyclic": cycle is None,
    }


def west_first_route_rows(dims: int, radix: int, rng: np.random.Generator | None = None) -> dict:
    """Section 4.3's west-first on the fault-free ``radix``-ary 2-cube: route lengths over every adaptive choice.

    The columns of ``_route_statistics`` (exhaustive, every (src, dst) pair).  ``rng`` is not used.

    Examples
    --------
    >>> row = west_first_route_rows(2, 3)
    >>> row["network"], round(row["some_route_minimal"] * row["pairs"])  # (2,2) -> (0,0) needs two wraps
    ('3-ary 2-cube', 68)
    """
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    if dims != 2:
        raise ValueError(f"dims: west-first is defined on 2D tori only, got {dims}")
    topo = Torus(dims, radix)
    return {"network": f"{radix}-ary {dims}-cube", "dims": dims, "radix": radix, "nodes": topo.num_nodes,
            **_route_statistics(make_routing("west-first", topo))}  # fmt: skip


def lemma_items(params: Mapping[str, Any]) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """The exhaustive checks' grids from ``prop_cases``: every case for the Lemma (double e-cube), the 2D cases
    for west-first.

    Examples
    --------
    >>> lemma, west = lemma_items({"prop_cases": [{"dims": 2, "radix": 4}, {"dims": 3, "radix": 2}]})
    >>> len(lemma), west
    (2, [{'dims': 2, 'radix': 4}])
    """
    check_mapping("params", params, ["prop_cases"])
    cases = [{"dims": case["dims"], "radix": case["radix"]} for case in params["prop_cases"]]
    return cases, [case for case in cases if case["dims"] == 2]


# ---------------------------------------------------------------------- analysis helpers
_FIT_COLUMNS = ["runs", "misroute", "faults", "log_slope", "log_intercept", "log_r2", "linear_slope",
                "linear_intercept", "linear_r2"]  # fmt: skip


def growth_fits(summaries: Mapping[str, pd.DataFrame], min_points: int = 3) -> pd.DataFrame:
    """``log_fit`` of mean latency vs nodes per runs label, fault policy and fault count.

    ``summaries`` maps a runs label (``"paper"``, ``"long"``) to a Fig. 4 summary (``latency_mean`` per
    misroute, nodes, faults); groups with fewer than ``min_points`` sizes with a latency are skipped.

    Examples
    --------
    >>> s = pd.DataFrame({"misroute": ["y"] * 3, "faults": [0] * 3, "nodes": [16, 32, 64],
    ...                   "latency_mean": [4.0, 5.0, 6.0]})
    >>> growth_fits({"paper": s})[["runs", "faults", "log_slope"]].round(6).values.tolist()
    [['paper', 0, 1.0]]
    >>> len(growth_fits({"paper": s.head(2)}))
    0
    """
    check_int("min_points", min_points, minimum=2)
    check_mapping("summaries", summaries, [])
    rows = []
    for label, frame in summaries.items():
        check_frame(f"summaries[{label!r}]", frame, ["misroute", "faults", "nodes", "latency_mean"])
        for (policy, faults), group in frame.groupby(["misroute", "faults"]):
            good = group.dropna(subset=["latency_mean"])
            if len(good) >= min_points:
                rows.append({"runs": label, "misroute": policy, "faults": faults,
                             **log_fit(good.nodes, good.latency_mean)})  # fmt: skip
    return pd.DataFrame(rows, columns=_FIT_COLUMNS)


def fault_effect(runs: pd.DataFrame, policy: str) -> pd.Series:
    """Relative change of mean latency, most faults vs none, per size (index: nodes), fault policy ``policy``.

    Over the runs that did not deadlock; sizes without both fault counts are left out (empty Series when
    there is no fault-free or no faulty column).

    Examples
    --------
    >>> runs = pd.DataFrame({"misroute": ["y"] * 4, "deadlock": [False] * 4, "nodes": [16, 16, 32, 32],
    ...                      "faults": [0, 5, 0, 5], "latency": [4.0, 4.4, 5.0, 5.0]})
    >>> fault_effect(runs, "y").round(3).to_dict()
    {16: 0.1, 32: 0.0}
    """
    check_str("policy", policy)
    check_frame("runs", runs, ["misroute", "deadlock"])
    part = runs[(runs.misroute == policy) & ~runs.deadlock.astype(bool)]
    mean = part.groupby(["nodes", "faults"]).latency.mean().unstack()
    if mean.empty or 0 not in mean.columns or mean.columns.max() == 0:
        return pd.Series(dtype=float, name="relative_latency_change")
    effect = ((mean[mean.columns.max()] - mean[0]) / mean[0]).dropna()
    return effect.rename("relative_latency_change")


def fault_effect_table(runs: Mapping[str, pd.DataFrame], policies: Sequence[str]) -> pd.DataFrame:
    """``fault_effect`` of each runs label (``"paper"`` / ``"long"`` -> per-run frame) and policy.

    Columns runs, misroute, nodes, max_faults (the fault count compared with none), relative_latency_change.

    Examples
    --------
    >>> runs = pd.DataFrame({"misroute": ["y"] * 2, "deadlock": [False] * 2, "nodes": [16, 16],
    ...                      "faults": [0, 5], "latency": [4.0, 5.0]})
    >>> fault_effect_table({"paper": runs}, ["y"]).relative_latency_change.tolist()
    [0.25]
    """
    policies = [check_str("policies", p) for p in check_sequence("policies", policies)]
    check_mapping("runs", runs, [])
    rows = []
    for label, frame in runs.items():
        for policy in policies:
            effect = fault_effect(frame, policy)
            ok = frame[(frame.misroute == policy) & ~frame.deadlock.astype(bool)]
            rows += [{"runs": label, "misroute": policy, "nodes": int(nodes), "max_faults": int(ok.faults.max()),
                      "relative_latency_change": float(value)} for nodes, value in effect.items()]  # fmt: skip
    return pd.DataFrame(rows, columns=["runs", "misroute", "nodes", "max_faults", "relative_latency_change"])


def load_curve_summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean packet latency with its 95% CI half-width over seeds per network, algorithm and offered load
    (:func:`torus_lab.studies.routing_bench.point_summary`, the study's columns).

    Networks and algorithms keep their order of appearance in ``curves`` (the figure's panels and lines).

    Examples
    --------
    >>> c = pd.DataFrame({"network": ["n"] * 3, "algorithm": ["a"] * 3, "offered_load": [0.2, 0.1, 0.1],
    ...                   "mean_latency": [30.0, 10.0, 12.0], "deadlock": False, "seed": 1})
    >>> load_curve_summary(c)[["offered_load", "mean_latency_mean", "mean_latency_n"]].values.tolist()
    [[0.1, 11.0, 2.0], [0.2, 30.0, 1.0]]
    """
    check_frame("curves", curves, ["network", "algorithm"])
    columns = ["network", "algorithm", "offered_load", "mean_latency_mean", "mean_latency_ci", "mean_latency_n"]
    if not len(curves):
        return pd.DataFrame(columns=columns)
    return point_summary(curves, ["network", "algorithm"], metrics=["mean_latency"])[columns]


def load_curve_saturation(curves: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Saturation of every latency-load curve under ``SATURATION``, per network and algorithm in order of
    appearance (:func:`torus_lab.studies.routing_bench.curve_saturation`), with the deadlocked runs and ``seed``.

    Examples
    --------
    >>> c = pd.DataFrame({"network": "n", "algorithm": "a", "offered_load": [0.1, 0.2],
    ...                   "accepted_throughput": [0.1, 0.1], "generated_throughput": [0.1, 0.2],
    ...                   "mean_latency": [10.0, 90.0], "deadlock": False})
    >>> load_curve_saturation(c, 3)[["algorithm", "saturation_load", "deadlocked_runs", "seed"]].values.tolist()
    [['a', 0.1, 0, 3]]
    """
    check_frame("curves", curves, ["network", "algorithm"])
    seed = check_int("seed", seed, minimum=0)
    sat = curve_saturation(curves, ["network", "algorithm"], SATURATION)
    sat = sat[["network", "algorithm", "saturation_load", "saturation_throughput", "loads", "deadlocked_runs"]]
    return sat.assign(seed=seed)


def heavy_load_summary(heavy: pd.DataFrame) -> pd.DataFrame:
    """Deadlocked runs and runs per flow control, wrap rule and network of the heavy-load table.

    Examples
    --------
    >>> h = pd.DataFrame({"vc_allocation": ["atomic"] * 2, "wraps": ["phase"] * 2, "network": ["n"] * 2,
    ...                   "deadlock": [True, False]})
    >>> heavy_load_summary(h)[["deadlocked_runs", "runs"]].values.tolist()
    [[1, 2]]
    """
    check_frame("heavy", heavy, ["vc_allocation", "wraps", "network"])
    grouped = heavy.groupby(["vc_allocation", "wraps", "network"], sort=False).deadlock
    out = grouped.agg(deadlocked_runs="sum", runs="count").reset_index()
    out["deadlocked_runs"] = out.deadlocked_runs.astype(int)
    return out


#: The paper's Fig. 3 example: 011 -> 222 in a 3-ary 3-cube (our tuples are the digit strings reversed).
FIG3 = {"dims": 3, "radix": 3, "src": (1, 1, 0), "dst": (2, 2, 2), "paper_route": [(1, 1, 0), (2, 1, 0), (2, 2, 0),
                                                                                     (2, 2, 2)]}  # fmt: skip
#: The paper's Fig. 1 example: e-cube 0000 -> 0111 on the 4-D hypercube; the route follows Section 4.1's rule
#: (lowest differing bit first), as the drawing's route is not in the text.
FIG1 = {"dims": 4, "radix": 2, "src": (0, 0, 0, 0), "dst": (1, 1, 1, 0), "routing": "ecube",
        "paper_route": [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0)]}  # fmt: skip
#: A pair whose minimal way crosses a wrap on its second hop (rule 1 forbids it): 5-ary 2-cube, (3,0) -> (0,0).
NONMINIMAL = {"dims": 2, "radix": 5, "src": (3, 0), "dst": (0, 0)}


def _digits(path: Sequence[Sequence[int]]) -> str:
    return " -> ".join("".join(str(d) for d in reversed(v)) for v in path)


def route_examples() -> pd.DataFrame:
    """The allowed routes of the paper's Fig. 3 example (direction-first e-cube), the e-cube route of its Fig. 1
    example and the preferred route of a non-minimal pair.

    One row per distinct route (node sequence): example, network, source, destination, route (digit strings
    ``s_{n-1} .. s_0``), hops, Lee distance, whether it is the paper's route and whether it is the preferred
    route (first candidate at every hop).  Fig. 3 routes are ordered by length.

    Examples
    --------
    >>> t = route_examples()
    >>> bool(t[t.example == "fig3"].paper_route.any())
    True
    >>> t[t.example == "nonminimal"][["route", "hops", "lee"]].values.tolist()
    [['03 -> 02 -> 01 -> 00', 3, 2]]
    """
    rows = []
    for example, case, every in (("fig1", FIG1, False), ("fig3", FIG3, True), ("nonminimal", NONMINIMAL, False)):
        topo = Torus(case["dims"], case["radix"])
        routing = make_routing(case.get("routing", "direction-first"), topo)
        src, dst = case["src"], case["dst"]
        preferred = routing.route(src, dst)
        routes = [routing.hops_to_nodes(src, h) for h in routing.enumerate_routes(src, dst)] if every else [preferred]
        routes = list(dict.fromkeys(tuple(route) for route in routes))  # distinct node sequences
        lee = int(topo.lee_distance(src, dst))
        for route in sorted(routes, key=len):
            rows.append({"example": example, "network": f"{case['radix']}-ary {case['dims']}-cube",
                         "src": _digits([src]), "dst": _digits([dst]), "route": _digits(route),
                         "hops": len(route) - 1, "lee": lee, "paper_route": list(route) == case.get("paper_route"),
                         "preferred": list(route) == preferred})  # fmt: skip
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- latency changes (faults against none)
def latency_change_table(runs: Mapping[str, pd.DataFrame], policies: Sequence[str],
                         family_alpha: float = 0.05) -> pd.DataFrame:  # fmt: skip
    """:func:`latency_changes` of each runs label (``"paper"`` / ``"long"`` -> per-run frame) and fault policy,
    with columns runs and misroute first (each label and policy is one family of simultaneous intervals).

    Examples
    --------
    >>> runs = pd.DataFrame({"misroute": ["y"] * 4, "deadlock": [False] * 4, "nodes": [16] * 4,
    ...                      "faults": [0, 0, 2, 2], "latency": [4.0, 4.2, 3.0, 3.2]})
    >>> latency_change_table({"paper": runs}, ["y", "detour"])[["runs", "misroute", "faults"]].values.tolist()
    [['paper', 'y', 2]]
    """
    policies = [check_str("policies", p) for p in check_sequence("policies", policies)]
    check_mapping("runs", runs, [])
    parts = [latency_changes(frame, policy, family_alpha).assign(runs=label, misroute=policy)
             for label, frame in runs.items() for policy in policies]  # fmt: skip
    parts = [part for part in parts if len(part)]
    columns = ["runs", "misroute", *latency_changes(pd.DataFrame(columns=[
        "misroute", "deadlock", "nodes", "faults", "latency"]), "y").columns]  # fmt: skip
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


# ---------------------------------------------------------------------- the study
def _with_seed(rows: Sequence[Mapping[str, Any]], seed: int) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows))
    frame["seed"] = seed
    return frame


def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of the study for the parameters of one preset of ``experiments/direction_first.yaml``.

    Keys (data file stems): ``fig4_paper``, ``fig4_paper_summary``, ``fig4_long``, ``fig4_long_summary``,
    ``latency_growth_fits``, ``fault_effects``, ``latency_changes``, ``load_curves``, ``load_curve_summary``,
    ``saturation``, ``route_properties``, ``ecube_lemma``, ``west_first_routes``, ``heavy_load``,
    ``heavy_load_summary``, ``route_examples``, ``header_size``,
    ``claims``.  Every grid runs over :func:`torus_lab.sweep.sweep` (backend from the environment) with the
    experiment ``seed``; tables with random content carry it in a ``seed`` column (the simulator seed of a
    run is ``sim_seed``).
    """
    check_mapping("params", params, ["seed", "policies", "header_cases"])
    seed = int(params["seed"])
    fig4_grid = fig4_items(params, "paper") + fig4_items(params, "long")
    fig4_all = _with_seed(sweep(fig4_run, fig4_grid, seed=seed, desc="fig4"), seed)
    fig4 = fig4_all[fig4_all["mode"] == "paper"].reset_index(drop=True)
    long = fig4_all[fig4_all["mode"] == "long"].reset_index(drop=True)
    by = ["misroute", "nodes", "faults"]
    fig4_summary = summarize(fig4, by, METRICS + _EXTRA_COLUMNS).assign(seed=seed)
    long_summary = summarize(long, by, METRICS + _EXTRA_COLUMNS).assign(seed=seed)
    fits = growth_fits({"paper": fig4_summary, "long": long_summary})
    fits["seed"] = seed
    effects = fault_effect_table({"paper": fig4, "long": long}, params["policies"])
    effects["seed"] = seed
    changes = latency_change_table({"paper": fig4, "long": long}, params["policies"]).assign(seed=seed)

    curves = latency_runs(curve_items(params), seed=seed, desc="load curves",
                          extras=["dims", "radix", "algorithm", "network", "replicate"])
    curve_summary = load_curve_summary(curves).assign(seed=seed)
    saturation = load_curve_saturation(curves, seed)

    props = pd.DataFrame(sweep(route_property_rows, property_items(params), seed=seed, desc="route properties"))
    lemma_cases, west_cases = lemma_items(params)
    lemma = pd.DataFrame(sweep(ecube_lemma_rows, lemma_cases, seed=seed, desc="double e-cube lemma"))
    west = pd.DataFrame(sweep(west_first_route_rows, west_cases, seed=seed, desc="west-first routes"))
    heavy = _with_seed(sweep(heavy_load_run, heavy_items(params), seed=seed, desc="heavy load"), seed)
    heavy_summary = heavy_load_summary(heavy)
    heavy_summary["seed"] = seed

    tables = {
        "fig4_paper": fig4,
        "fig4_paper_summary": fig4_summary,
        "fig4_long": long,
        "fig4_long_summary": long_summary,
        "latency_growth_fits": fits,
        "fault_effects": effects,
        "latency_changes": changes,
        "load_curves": curves,
        "load_curve_summary": curve_summary,
        "saturation": saturation,
        "route_properties": props,
        "ecube_lemma": lemma,
        "west_first_routes": west,
        "heavy_load": heavy,
        "heavy_load_summary": heavy_summary,
        "route_examples": route_examples(),
        "header_size": header_table(params["header_cases"]),
    }
    tables["claims"] = claims(tables, params)
    return tables
