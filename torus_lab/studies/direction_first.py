"""Evaluation of Demaine & Srinivas' direction-first e-cube (IJHSC 8(1), 1996).

The entry point is :func:`run` (parameters of ``experiments/direction_first.yaml`` -> one table per data
file); the notebook only shows its tables and figures.  Item functions are pure (parameters + ``rng`` -> dict)
and mapped over their grids with :func:`torus_lab.sweep.sweep`, which gives every item its own generator:

* :func:`fig4_run`: the paper's Fig. 4 set-up (``docs/conventions.md#df-fig4``): hypercube ``Q_n``, ``F`` random faulty
  links (connected fault sets only), every node generates a single-flit message with probability 0.2 per step for
  30 steps, then the network drains (cap 10,000 steps); one hop per link per step (1 VC, buffer depth 1);
  a message with no permitted output is dropped after ``drop_after = 1`` step, one with ``8 n`` hops too.
  ``mode="long"``: warm-up, thousands of measured cycles with continuous injection.
* :func:`load_curve_run`: latency vs offered load on a torus for one routing named by a registry spec
  (:func:`torus_lab.routing.make_routing`); the ``curve_routings`` parameter lists e-cube (datelines),
  west-first and direction-first e-cube as ``{label, routing}`` records (:func:`routing_applies` skips
  west-first on tori that are not 2D).
* :func:`route_property_rows`: per topology and wrap rule, the CDG verdict and route-length statistics
  over every adaptive choice (exhaustive, path form), and the preferred route's minimality.
* :func:`heavy_load_run`: simulation at heavy load looking for a real deadlock.
* :func:`header_table`: Theorem 5.4's header size.

Analysis helpers (:func:`growth_fits`, :func:`fault_effect_table`, :func:`load_curve_summary`,
:func:`heavy_load_summary`,
:func:`route_examples`) and the claims' verdict rules (``*_verdict``, :func:`claims_rows`) are small pure
functions of those tables.

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
    check_real_array,
    check_sequence,
    check_str,
)
from torus_lab.claims import claim, claims_table
from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table
from torus_lab.routing import make_routing
from torus_lab.routing.direction_first import header_size_bits
from torus_lab.sim import SimConfig, simulate, summarize
from torus_lab.sim.saturation import Saturation, saturation_table
from torus_lab.sweep import sweep
from torus_lab.topology import Faults, Torus, bfs_distances, random_link_faults

__all__ = [
    "SATURATION",
    "METRICS",
    "SUMMARY_COLUMNS",
    "run",
    "connected_link_faults",
    "fig4_run",
    "fig4_items",
    "load_curve_run",
    "routing_applies",
    "curve_items",
    "route_property_rows",
    "property_items",
    "heavy_load_run",
    "heavy_items",
    "header_table",
    "log_fit",
    "growth_fits",
    "fault_effect",
    "fault_effect_table",
    "load_curve_summary",
    "heavy_load_summary",
    "route_examples",
    "log_growth_verdict",
    "fault_effect_verdict",
    "extra_hops_verdict",
    "minimality_verdict",
    "deadlock_k_gt_2_verdict",
    "hypercube_verdict",
    "livelock_verdict",
    "header_verdict",
    "claims_rows",
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

# verdict thresholds of the claims (see the *_verdict functions)
LOG_R2_MIN = 0.9  #: smallest R^2 of the log fit for "latency grows logarithmically"
FAULT_EFFECT_MAX = 0.10  #: largest |relative latency change| (most faults vs none) that is "very little"
LOST_MAX = 0.01  #: fraction of undelivered messages below which faults cost nothing but latency
EXTRA_HOPS_MAX = 1.0  #: a run's mean extra hops must stay below this for "only a few extra hops"
DELIVERED_MIN = 0.99  #: mean delivered fraction above which "few extra hops" holds without caveat


def _sim_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**62))


# ---------------------------------------------------------------------- item functions
def connected_link_faults(topology: Torus, count: int, rng: np.random.Generator, tries: int = 1000) -> Faults:
    """``count`` uniformly random faulty links that leave the network connected (rejection sampling).

    Examples
    --------
    >>> f = connected_link_faults(Torus(3, 2), 2, np.random.default_rng(0))
    >>> len(f.links)
    4
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    check_int("count", count, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_int("tries", tries, minimum=1)
    if count == 0:
        return Faults()
    for _ in range(tries):
        faults = random_link_faults(topology, count=count, seed=rng)
        if (bfs_distances(topology, topology.coords(0), faults) >= 0).all():
            return faults
    raise ValueError(f"no connected fault set with {count} links found in {tries} tries on {topology!r}")


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
        dropped (no permitted output / hop limit), undelivered (still in flight at the end), deadlock, and
        ``sim_seed`` (the simulator's seed, drawn from ``rng``).
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
    p = res.packets[res.packets.dropped == 0]
    return {
        "mode": mode,
        "misroute": misroute,
        "replicate": replicate,
        "n": n,
        "nodes": topo.num_nodes,
        "faults": faults,
        "sim_seed": seed,
        "latency": res.mean_latency,
        "latency_median": float(p.latency.median()) if len(p) else math.nan,
        "hops": res.mean_hops,
        "extra_hops": res.mean_extra_hops,
        "min_hops": float(p.min_hops.mean()) if len(p) else math.nan,
        "frac_nonminimal": float((p.extra_hops > 0).mean()) if len(p) else math.nan,
        "delivered": res.delivered,
        "dropped": res.dropped,
        "delivered_fraction": res.delivered / max(1, res.delivered + res.dropped + res.undelivered),
        "hop_limit_drops": res.counters["hop_limit_drops"],
        "undelivered": res.undelivered,
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


def load_curve_run(
    dims: int,
    radix: int,
    routing: str | Mapping[str, Any],
    load: float,
    rng: np.random.Generator,
    *,
    algorithm: str | None = None,
    packet_length: int = 4,
    buffer_depth: int = 4,
    warmup: int = 1000,
    measure: int = 4000,
    drain: int = 4000,
    replicate: int = 0,
) -> dict:
    """One point of latency vs offered load (uniform traffic) on the ``radix``-ary ``dims``-cube.

    ``routing`` is a registry spec (``{"name": "ecube", "datelines": True, "vcs": 2}``, see
    :func:`torus_lab.routing.make_routing`); ``algorithm`` is the label recorded in the row (default: the
    routing function's name).  ``replicate`` is only recorded; the randomness comes from ``rng``.  The row is
    :meth:`torus_lab.sim.SimResult.summary` with the simulator's seed as ``sim_seed`` and without the
    wall-clock time (rows are seed-deterministic).

    Examples
    --------
    >>> row = load_curve_run(2, 4, {"name": "direction-first", "vcs": 2}, 0.05, np.random.default_rng(0),
    ...                      algorithm="direction-first", warmup=50, measure=100, drain=200)
    >>> row["algorithm"], row["network"], row["deadlock"], "wall_seconds" in row
    ('direction-first', '4-ary 2-cube', False, False)
    """
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    load = check_real("load", load, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_int("replicate", replicate, minimum=0)
    config = SimConfig(  # checks packet_length, buffer_depth, warmup, measure and drain, naming them
        offered_load=load, packet_length=packet_length, buffer_depth=buffer_depth, warmup=warmup,
        measure=measure, drain=drain, deadlock_cycles=500,
    )  # fmt: skip
    rf = make_routing(routing, Torus(dims, radix))
    row = simulate(rf, config, seed=_sim_seed(rng)).summary()
    row["sim_seed"] = row.pop("seed")
    row.pop("wall_seconds", None)
    row.update(dims=dims, radix=radix, algorithm=rf.name if algorithm is None else algorithm,
               network=f"{radix}-ary {dims}-cube", replicate=replicate)
    return row


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
    cycle = find_dependency_cycle(channel_dependency_graph(routing))
    table = route_length_table(routing)
    preferred = np.array(
        [len(routing.route_hops(int(s), int(d))) for s, d in zip(table.src, table.dst, strict=True)]
    )
    extra = table.max_hops - table.lee
    return {
        "network": f"{radix}-ary {dims}-cube",
        "dims": dims,
        "radix": radix,
        "nodes": topo.num_nodes,
        "wraps": wraps,
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


# ---------------------------------------------------------------------- analysis helpers
def log_fit(nodes: Sequence[float], values: Sequence[float]) -> dict:
    """Least-squares fits ``v = a + b log2 N`` and ``v = a + b N``; R^2 of each (which growth fits better).

    Examples
    --------
    >>> fit = log_fit([16, 32, 64, 128], [4, 5, 6, 7])
    >>> round(fit["log_slope"], 3), round(fit["log_r2"], 3)
    (1.0, 1.0)
    """
    nodes = check_real_array("nodes", nodes, ndim=1)
    values = check_real_array("values", values, ndim=1)
    if nodes.shape != values.shape or nodes.size < 2:
        raise ValueError(f"nodes and values must have equal lengths >= 2, got {nodes.size} and {values.size}")
    if not (np.isfinite(nodes) & (nodes > 0)).all():
        raise ValueError(f"nodes must be finite and positive, got {nodes.tolist()!r:.80}")
    if np.unique(nodes).size < 2:
        raise ValueError(f"nodes: need two different network sizes to fit a growth, got {nodes.tolist()!r:.80}")
    if not np.isfinite(values).all():
        raise ValueError(f"values must be finite, got {values.tolist()!r:.80}")
    x = np.log2(np.asarray(nodes, dtype=float))
    y = np.asarray(values, dtype=float)
    out = {}
    for name, xs in (("log", x), ("linear", np.asarray(nodes, dtype=float))):
        slope, intercept = np.polyfit(xs, y, 1)
        resid = y - (intercept + slope * xs)
        total = ((y - y.mean()) ** 2).sum()
        out[f"{name}_slope"] = float(slope)
        out[f"{name}_intercept"] = float(intercept)
        out[f"{name}_r2"] = float(1 - (resid**2).sum() / total) if total > 0 else math.nan
    return out


_FIT_COLUMNS = ["runs", "misroute", "faults", "log_slope", "log_intercept", "log_r2", "linear_slope",
                "linear_intercept", "linear_r2"]  # fmt: skip


def growth_fits(summaries: Mapping[str, pd.DataFrame], min_points: int = 3) -> pd.DataFrame:
    """:func:`log_fit` of mean latency vs nodes per runs label, fault policy and fault count.

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
    """:func:`fault_effect` of each runs label (``"paper"`` / ``"long"`` -> per-run frame) and policy.

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
    """Mean packet latency with its 95% CI half-width over seeds per network, algorithm and offered load.

    Networks and algorithms keep their order of appearance in ``curves`` (the figure's panels and lines).

    Examples
    --------
    >>> c = pd.DataFrame({"network": ["n"] * 3, "algorithm": ["a"] * 3, "offered_load": [0.2, 0.1, 0.1],
    ...                   "mean_latency": [30.0, 10.0, 12.0]})
    >>> load_curve_summary(c)[["offered_load", "mean_latency_mean", "mean_latency_n"]].values.tolist()
    [[0.1, 11.0, 2.0], [0.2, 30.0, 1.0]]
    """
    check_frame("curves", curves, ["network", "algorithm"])
    parts = [
        summarize(group, ["offered_load"], ["mean_latency"]).assign(network=network, algorithm=algorithm)
        for (network, algorithm), group in curves.groupby(["network", "algorithm"], sort=False)
    ]
    columns = ["network", "algorithm", "offered_load", "mean_latency_mean", "mean_latency_ci", "mean_latency_n"]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


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
#: A pair whose minimal way crosses a wrap on its second hop (rule 1 forbids it): 5-ary 2-cube, (3,0) -> (0,0).
NONMINIMAL = {"dims": 2, "radix": 5, "src": (3, 0), "dst": (0, 0)}


def _digits(path: Sequence[Sequence[int]]) -> str:
    return " -> ".join("".join(str(d) for d in reversed(v)) for v in path)


def route_examples() -> pd.DataFrame:
    """The allowed routes of the paper's Fig. 3 example and the preferred route of a non-minimal pair.

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
    for example, case, every in (("fig3", FIG3, True), ("nonminimal", NONMINIMAL, False)):
        topo = Torus(case["dims"], case["radix"])
        routing = make_routing("direction-first", topo)
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


# ---------------------------------------------------------------------- verdict rules
def _missing(*values: float) -> bool:
    return any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values)


def _check_optional_real(name: str, value: object) -> float | None:
    """A verdict input: None (not measured) or a number (NaN allowed), as a float."""
    return None if value is None else check_real(name, value, finite=False)


def _check_optional_int(name: str, value: object) -> None:
    """A verdict count: None (not measured) or an int >= 0."""
    if value is not None:
        check_int(name, value, minimum=0)


def log_growth_verdict(log_r2: float, linear_r2: float, min_r2: float = LOG_R2_MIN) -> str:
    """Logarithmic growth "holds" when the log fit has R^2 >= ``min_r2`` and fits at least as well as the linear one.

    Examples
    --------
    >>> log_growth_verdict(0.9, 0.8), log_growth_verdict(0.95, 0.96), log_growth_verdict(float("nan"), 0.5)
    ('holds', 'does not hold', 'not tested')
    """
    log_r2 = _check_optional_real("log_r2", log_r2)
    linear_r2 = _check_optional_real("linear_r2", linear_r2)
    min_r2 = check_real("min_r2", min_r2)
    if _missing(log_r2, linear_r2):
        return "not tested"
    return "holds" if log_r2 >= min_r2 and log_r2 >= linear_r2 else "does not hold"


def fault_effect_verdict(
    worst_change: float, deadlock_fraction: float, lost_fraction: float,
    max_change: float = FAULT_EFFECT_MAX, max_lost: float = LOST_MAX,
) -> str:  # fmt: skip
    """Faults change latency very little: ``|change| <= max_change`` ("holds" only without deadlocks and with
    fewer than ``max_lost`` undelivered messages, else "partly holds"); larger changes "do not hold".

    Examples
    --------
    >>> fault_effect_verdict(0.10, 0.0, 0.0), fault_effect_verdict(0.05, 0.2, 0.0)
    ('holds', 'partly holds')
    >>> fault_effect_verdict(0.11, 0.0, 0.0), fault_effect_verdict(float("nan"), 0.0, 0.0)
    ('does not hold', 'not tested')
    """
    worst_change = _check_optional_real("worst_change", worst_change)
    deadlock_fraction = _check_optional_real("deadlock_fraction", deadlock_fraction)
    lost_fraction = _check_optional_real("lost_fraction", lost_fraction)
    max_change = check_real("max_change", max_change)
    max_lost = check_real("max_lost", max_lost)
    if _missing(worst_change):
        return "not tested"
    if deadlock_fraction is None or lost_fraction is None:
        raise ValueError("deadlock_fraction and lost_fraction must be numbers when worst_change is measured, "
                         f"got {deadlock_fraction!r} and {lost_fraction!r}")
    if worst_change > max_change:
        return "does not hold"
    return "holds" if deadlock_fraction == 0 and lost_fraction < max_lost else "partly holds"


def extra_hops_verdict(
    max_extra_hops: float, delivered_fraction: float, max_extra: float = EXTRA_HOPS_MAX,
    min_delivered: float = DELIVERED_MIN,
) -> str:  # fmt: skip
    """Few extra hops: every run's mean below ``max_extra`` and more than ``min_delivered`` delivered ->
    "holds", otherwise "partly holds" (messages are routed around faults, at a cost).

    Examples
    --------
    >>> extra_hops_verdict(0.5, 0.995), extra_hops_verdict(1.0, 0.995), extra_hops_verdict(0.5, 0.99)
    ('holds', 'partly holds', 'partly holds')
    >>> extra_hops_verdict(float("nan"), 1.0)
    'not tested'
    """
    max_extra_hops = _check_optional_real("max_extra_hops", max_extra_hops)
    delivered_fraction = _check_optional_real("delivered_fraction", delivered_fraction)
    max_extra = check_real("max_extra", max_extra)
    min_delivered = check_real("min_delivered", min_delivered)
    if _missing(max_extra_hops, delivered_fraction):
        return "not tested"
    return "holds" if max_extra_hops < max_extra and delivered_fraction > min_delivered else "partly holds"


def minimality_verdict(all_routes_minimal: float, preferred_minimal: float) -> str:
    """Fully minimal: every allowed route minimal for every pair ("holds"); only the preferred route
    ("partly holds"); else "does not hold".  Arguments are the smallest fractions over the networks.

    Examples
    --------
    >>> minimality_verdict(1.0, 1.0), minimality_verdict(0.99, 1.0), minimality_verdict(0.5, 0.84)
    ('holds', 'partly holds', 'does not hold')
    """
    all_routes_minimal = _check_optional_real("all_routes_minimal", all_routes_minimal)
    preferred_minimal = _check_optional_real("preferred_minimal", preferred_minimal)
    if _missing(all_routes_minimal, preferred_minimal):
        return "not tested"
    if all_routes_minimal == 1:
        return "holds"
    return "partly holds" if preferred_minimal == 1 else "does not hold"


def deadlock_k_gt_2_verdict(networks: int, cyclic_networks: int, heavy_deadlocks: int) -> str:
    """Theorem 5.1: acyclic CDGs on every k > 2 network -> "holds"; a cyclic CDG (a potential deadlock) and a
    deadlocked heavy-load run -> "does not hold"; cyclic but no deadlock found -> "partly holds".

    Examples
    --------
    >>> deadlock_k_gt_2_verdict(4, 0, 0), deadlock_k_gt_2_verdict(4, 1, 0), deadlock_k_gt_2_verdict(4, 1, 1)
    ('holds', 'partly holds', 'does not hold')
    >>> deadlock_k_gt_2_verdict(0, 0, 0)
    'not tested'
    """
    check_int("networks", networks, minimum=0)
    check_int("cyclic_networks", cyclic_networks, minimum=0)
    check_int("heavy_deadlocks", heavy_deadlocks, minimum=0)
    if networks == 0:
        return "not tested"
    if cyclic_networks == 0:
        return "holds"
    return "does not hold" if heavy_deadlocks > 0 else "partly holds"


def hypercube_verdict(networks: int, acyclic_networks: int) -> str:
    """Deadlock-free hypercubes: every checked hypercube's CDG is acyclic.

    Examples
    --------
    >>> hypercube_verdict(2, 2), hypercube_verdict(2, 1), hypercube_verdict(0, 0)
    ('holds', 'does not hold', 'not tested')
    """
    check_int("networks", networks, minimum=0)
    check_int("acyclic_networks", acyclic_networks, minimum=0)
    if networks == 0:
        return "not tested"
    return "holds" if acyclic_networks == networks else "does not hold"


def livelock_verdict(can_loop: bool, hop_limit_drops: int) -> str:
    """Livelock-free: no fault-free route loops and no message hit the hop guard ("holds"); routes cannot
    loop but faulty runs hit the guard ("partly holds"); a fault-free route loops ("does not hold").

    Examples
    --------
    >>> livelock_verdict(False, 0), livelock_verdict(False, 1), livelock_verdict(True, 0)
    ('holds', 'partly holds', 'does not hold')
    """
    if can_loop is not None:
        check_instance("can_loop", can_loop, (bool, np.bool_), "a bool or None")
    _check_optional_int("hop_limit_drops", hop_limit_drops)
    if can_loop is None:
        return "not tested"
    if can_loop:
        return "does not hold"
    return "holds" if hop_limit_drops == 0 else "partly holds"


def header_verdict(header: pd.DataFrame) -> str:
    """Theorem 5.4: the REC header has the theorem's whole-field size for every case.

    Examples
    --------
    >>> header_verdict(header_table([{"k": 3, "n": 3}])), header_verdict(header_table([]))
    ('holds', 'not tested')
    """
    if check_frame("header", header).empty:
        return "not tested"
    check_frame("header", header, ["rec_header_bits", "bits_ceil"])
    return "holds" if (header.rec_header_bits == header.bits_ceil).all() else "does not hold"


# ---------------------------------------------------------------------- claims
def claims_rows(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> list[dict[str, str]]:
    """The claims of the study from its tables (keys of :func:`run`), one row per claim id."""
    check_mapping("tables", tables, [
        "fault_effects", "fig4_paper", "fig4_long", "latency_growth_fits", "route_properties", "heavy_load",
        "header_size",
    ])
    check_mapping("params", params, ["policies", "wrap_rules"])
    fig4, long, fits = tables["fig4_paper"], tables["fig4_long"], tables["latency_growth_fits"]
    props, heavy, header = tables["route_properties"], tables["heavy_load"], tables["header_size"]
    effects = tables["fault_effects"]
    runs = {"paper": fig4, "long": long}
    rows = []
    # logarithmic latency growth (fault-free curves)
    for label in ("paper", "long"):
        f0 = fits[(fits.runs == label) & (fits.faults == 0)]
        statement = f"average latency grows logarithmically with network size ({label} runs, 0 faults)"
        if len(f0):
            r = f0.iloc[0]
            measured = (f"latency = {r.log_intercept:.2f} + {r.log_slope:.2f} log2 N, R2 {r.log_r2:.3f} "
                        f"(linear R2 {r.linear_r2:.3f})")  # fmt: skip
            verdict = log_growth_verdict(r.log_r2, r.linear_r2)
        else:
            measured, verdict = "no fault-free fit (fewer than 3 sizes)", "not tested"
        rows.append(claim(f"log_latency_{label}", statement, "log growth (Fig. 4, no values)", measured, verdict,
                          f"latency_growth_fits.csv, fig4_{label}.csv"))  # fmt: skip
    # faults barely change latency (per fault policy)
    for label, frame in runs.items():
        for policy in params["policies"]:
            part = frame[(frame.misroute == policy) & (frame.faults > 0)]
            effect = effects[(effects.runs == label) & (effects.misroute == policy)].relative_latency_change
            worst = float(effect.abs().max()) if len(effect) else math.nan
            dl = float(part.deadlock.mean()) if len(part) else math.nan
            lost = 1 - float(part.delivered_fraction.mean()) if len(part) else math.nan
            rows.append(claim(
                f"fault_effect_{label}_{policy}",
                f"the number of faults (0-{frame.faults.max()}) changes latency very little ({label} runs, "
                f"fault policy {policy!r})",
                "little effect",
                f"max |relative latency change| {worst:.1%} over sizes (runs without deadlock); with faults {dl:.0%} "
                f"of runs deadlocked and {lost:.1%} of messages were not delivered",
                fault_effect_verdict(worst, dl, lost), f"fig4_{label}.csv"))  # fmt: skip
    faulty = pd.concat([fig4, long])
    faulty = faulty[faulty.faults > 0]
    for policy, part in faulty.groupby("misroute"):
        rows.append(claim(
            f"few_extra_hops_{policy}", f"with faults, only a few extra hops are needed (fault policy {policy!r})",
            "minimal number of extra hops",
            f"mean extra hops per delivered message {part.extra_hops.mean():.3f} (largest run mean "
            f"{part.extra_hops.max():.3f}); {1 - part.delivered_fraction.mean():.1%} of messages not delivered "
            "(blocked west hop, livelock guard, deadlock)",
            extra_hops_verdict(float(part.extra_hops.max()), float(part.delivered_fraction.mean())),
            "fig4_paper.csv, fig4_long.csv"))  # fmt: skip
    # fully minimal without faults
    rec = props[props.wraps == "phase"]
    if len(rec):
        worst_all = rec.loc[rec.all_routes_minimal.idxmin()]
        worst_pref = rec.loc[rec.preferred_minimal.idxmin()]
        measured = (f"all allowed routes minimal for {worst_all.all_routes_minimal:.0%} of pairs in the "
                    f"{worst_all.network}; preferred route minimal for {worst_pref.preferred_minimal:.0%} in the "
                    f"{worst_pref.network}; hypercubes: "
                    + ", ".join(f"{r.all_routes_minimal:.0%}" for r in rec[rec.radix == 2].itertuples()))  # fmt: skip
        verdict = minimality_verdict(rec.all_routes_minimal.min(), rec.preferred_minimal.min())
    else:
        measured, verdict = "no network checked with the REC wrap rule", "not tested"
    rows.append(claim("fully_minimal", "in the absence of faults the algorithm is fully minimal",
                      "every route minimal", measured, verdict, "route_properties.csv"))  # fmt: skip
    # deadlock freedom without VCs, k > 2
    k3 = rec[rec.radix > 2]
    cyclic = k3[~k3.cdg_acyclic.astype(bool)]
    heavy_rec = heavy[heavy.wraps == "phase"]
    heavy_ctrl = heavy[heavy.wraps != "phase"]
    if cyclic.empty:
        measured = "CDG acyclic for every k > 2 network checked"
    else:
        variants_ok = [w for w in params["wrap_rules"]
                       if props[(props.wraps == w) & (props.radix > 2)].cdg_acyclic.all()]  # fmt: skip
        measured = (f"REC per-phase wraps: CDG cyclic (a potential deadlock) for {', '.join(cyclic.network)}; wrap "
                    f"rules acyclic on every k > 2 network checked: {variants_ok}; deadlocked heavy-load runs, REC: "
                    + ", ".join(f"{a} {int(g.deadlock.sum())}/{len(g)}" for a, g in heavy_rec.groupby("vc_allocation"))
                    + f"; other wrap rules: {int(heavy_ctrl.deadlock.sum())}/{len(heavy_ctrl)}")  # fmt: skip
    rows.append(claim("deadlock_free_k_gt_2", "deadlock-free without virtual channels for k > 2 (Theorem 5.1)",
                      "deadlock-free", measured,
                      deadlock_k_gt_2_verdict(len(k3), len(cyclic), int(heavy_rec.deadlock.sum())),
                      "route_properties.csv, heavy_load.csv"))  # fmt: skip
    hyper = rec[rec.radix == 2]
    allruns = pd.concat([fig4, long])
    rows.append(claim(
        "deadlock_free_hypercube", "deadlock-free on hypercubes (k = 2, the simulated case), fault-free",
        "deadlock-free (by the Lemma)",
        f"CDG acyclic: {bool(hyper.cdg_acyclic.all())} ({', '.join(hyper.network)}); fault-free runs deadlocked: "
        f"{int(allruns[allruns.faults == 0].deadlock.sum())}; with faults and the REC policy "
        f"{int(allruns[(allruns.faults > 0) & (allruns.misroute == 'y')].deadlock.sum())} runs deadlocked "
        "(U-turns, not covered by the theorem)",
        hypercube_verdict(len(hyper), int(hyper.cdg_acyclic.astype(bool).sum())),
        "route_properties.csv, fig4_*.csv"))  # fmt: skip
    # livelock
    loops = bool(props.can_loop.any()) if len(props) else None
    rows.append(claim(
        "livelock_free", "livelock-free (Theorem 5.2)", "no message circulates forever",
        f"fault-free: routes can loop = {loops}; with faults: "
        f"{int(faulty[faulty.misroute == 'y'].hop_limit_drops.sum())} (REC policy) / "
        f"{int(faulty[faulty.misroute != 'y'].hop_limit_drops.sum())} (other policies) messages hit the 8n-hop guard",
        livelock_verdict(loops, int(faulty.hop_limit_drops.sum())), "route_properties.csv, fig4_*.csv"))  # fmt: skip
    # header size
    rows.append(claim(
        "header_size", "header size 2 log2 n + n log2 k + 1 bits (Theorem 5.4)", "2 log2 n + n log2 k + 1",
        "REC header (dest, x, y, started) has the same fields; whole-field sizes: "
        + ", ".join(f"k={r.k},n={r.n}: {r.bits_ceil}" for r in header.itertuples()),
        header_verdict(header), "header_size.csv"))  # fmt: skip
    return rows


# ---------------------------------------------------------------------- the study
def _with_seed(rows: Sequence[Mapping[str, Any]], seed: int) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows))
    frame["seed"] = seed
    return frame


def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of the study for the parameters of one preset of ``experiments/direction_first.yaml``.

    Keys (data file stems): ``fig4_paper``, ``fig4_paper_summary``, ``fig4_long``, ``fig4_long_summary``,
    ``latency_growth_fits``, ``fault_effects``, ``load_curves``, ``load_curve_summary``, ``saturation``,
    ``route_properties``, ``heavy_load``, ``heavy_load_summary``, ``route_examples``, ``header_size``,
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

    curves = _with_seed(sweep(load_curve_run, curve_items(params), seed=seed, desc="load curves"), seed)
    curve_summary = load_curve_summary(curves).assign(seed=seed)
    deadlocked = curves.groupby(["network", "algorithm"], sort=False).deadlock.sum().astype(int)
    saturation = saturation_table(curves, ["network", "algorithm"], SATURATION)
    saturation = deadlocked.rename("deadlocked_runs").reset_index().merge(saturation, on=["network", "algorithm"])
    saturation = saturation[[c for c in saturation.columns if c != "deadlocked_runs"] + ["deadlocked_runs"]]
    saturation["seed"] = seed

    props = pd.DataFrame(sweep(route_property_rows, property_items(params), seed=seed, desc="route properties"))
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
        "load_curves": curves,
        "load_curve_summary": curve_summary,
        "saturation": saturation,
        "route_properties": props,
        "heavy_load": heavy,
        "heavy_load_summary": heavy_summary,
        "route_examples": route_examples(),
        "header_size": header_table(params["header_cases"]),
    }
    tables["claims"] = claims_table("direction_first", claims_rows(tables, params))
    return tables
