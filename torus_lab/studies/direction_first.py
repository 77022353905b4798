"""Evaluation of Demaine & Srinivas' direction-first e-cube (IJHSC 8(1), 1996; spec sections 5.6-5.7).

Pure functions (parameters + ``rng`` -> dict or DataFrame) shared by the notebook, the tests and the
benchmark; grids are mapped with :func:`torus_lab.sweep.sweep`, which gives every item its own generator.

* :func:`fig4_run`: the paper's Fig. 4 set-up (spec 5.7 REC): hypercube ``Q_n``, ``F`` random faulty links
  (connected fault sets only), every node generates a single-flit message with probability 0.2 per step for
  30 steps, then the network drains (cap 10,000 steps); one hop per link per step (1 VC, buffer depth 1);
  a message with no permitted output is dropped after ``drop_after = 1`` step, one with ``8 n`` hops too.
  ``mode="long"``: warm-up, thousands of measured cycles with continuous injection.
* :func:`load_curve_run`: latency vs offered load on a torus for one routing named by a registry spec
  (:func:`torus_lab.routing.make_routing`); the notebook compares e-cube (datelines), west-first and
  direction-first e-cube, named in its ``curve_routings`` parameter (label -> spec).
* :func:`route_property_rows`: per topology and wrap rule, the CDG verdict and route-length statistics
  over every adaptive choice (exhaustive, path form), and the preferred route's minimality.
* :func:`heavy_load_run`: simulation at heavy load looking for a real deadlock.
* :func:`header_table`: Theorem 5.4's header size.

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

from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table
from torus_lab.routing import make_routing
from torus_lab.routing.direction_first import header_size_bits
from torus_lab.sim import simulate
from torus_lab.topology import Faults, Torus, bfs_distances, random_link_faults

__all__ = [
    "connected_link_faults",
    "fig4_run",
    "load_curve_run",
    "saturation_table",
    "route_property_rows",
    "heavy_load_run",
    "header_table",
    "log_fit",
]


def _sim_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**62))


def connected_link_faults(topology: Torus, count: int, rng: np.random.Generator, tries: int = 1000) -> Faults:
    """``count`` uniformly random faulty links that leave the network connected (rejection sampling).

    Examples
    --------
    >>> f = connected_link_faults(Torus(3, 2), 2, np.random.default_rng(0))
    >>> len(f.links)
    4
    """
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
        Steps a message with no permitted output (blocked west hop) waits before it is dropped (spec 5.5's
        W_max; our choice 1: faults are static, so waiting longer only blocks other traffic).
    replicate : int
        Replicate number (only recorded; the randomness comes from ``rng``).

    Returns
    -------
    dict
        latency (steps, generation to delivery), hops, extra hops (hops - Hamming distance), delivered,
        dropped (no permitted output / hop limit), undelivered (still in flight at the end), deadlock.
    """
    if mode not in ("paper", "long"):
        raise ValueError(f"mode must be 'paper' or 'long', got {mode!r}")
    topo = Torus(n, 2)
    fault_set = connected_link_faults(topo, faults, rng)
    routing = make_routing({"name": "direction-first", "misroute": misroute}, topo, faults=fault_set)
    seed = _sim_seed(rng)
    common = dict(
        offered_load=prob, packet_length=1, buffer_depth=buffer_depth, drain=drain, seed=seed,
        hop_limit=8 * n if hop_limit is None else hop_limit, drop_after=drop_after, deadlock_cycles=200,
    )  # fmt: skip
    if mode == "paper":
        res = simulate(topo, routing, warmup=0, measure=steps, inject_during_drain=False, **common)
    else:
        res = simulate(topo, routing, warmup=warmup, measure=measure, **common)
    p = res.packets[res.packets.dropped == 0]
    return {
        "mode": mode,
        "misroute": misroute,
        "replicate": replicate,
        "n": n,
        "nodes": topo.num_nodes,
        "faults": faults,
        "seed": seed,
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
    routing function's name).  ``replicate`` is only recorded; the randomness comes from ``rng``.

    Examples
    --------
    >>> row = load_curve_run(2, 4, {"name": "direction-first", "vcs": 2}, 0.05, np.random.default_rng(0),
    ...                      algorithm="direction-first", warmup=50, measure=100, drain=200)
    >>> row["algorithm"], row["network"], row["deadlock"]
    ('direction-first', '4-ary 2-cube', False)
    """
    topo = Torus(dims, radix)
    rf = make_routing(routing, topo)
    res = simulate(
        topo, rf, offered_load=load, packet_length=packet_length, buffer_depth=buffer_depth, warmup=warmup,
        measure=measure, drain=drain, seed=_sim_seed(rng), deadlock_cycles=500,
    )  # fmt: skip
    row = res.summary()
    row.update(dims=dims, radix=radix, algorithm=rf.name if algorithm is None else algorithm,
               network=f"{radix}-ary {dims}-cube", replicate=replicate)
    return row


def saturation_table(curves: pd.DataFrame, accept_ratio: float = 0.95) -> pd.DataFrame:
    """Per network and algorithm: saturation throughput (largest mean accepted throughput of the sweep) and
    saturation load (largest offered load whose mean accepted throughput is >= ``accept_ratio`` x offered).

    Examples
    --------
    >>> df = pd.DataFrame({"network": ["a"] * 3, "algorithm": ["x"] * 3, "offered_load": [0.1, 0.2, 0.3],
    ...                    "accepted_throughput": [0.1, 0.2, 0.22], "deadlock": [False] * 3})
    >>> saturation_table(df)[["saturation_load", "saturation_throughput"]].values.tolist()
    [[0.2, 0.22]]
    """
    rows = []
    for (network, algorithm), group in curves.groupby(["network", "algorithm"], sort=False):
        mean = group.groupby("offered_load").accepted_throughput.mean()
        ok = mean[mean >= accept_ratio * mean.index.to_numpy()]
        rows.append(
            {
                "network": network,
                "algorithm": algorithm,
                "saturation_load": float(ok.index.max()) if len(ok) else math.nan,
                "saturation_throughput": float(mean.max()),
                "deadlocked_runs": int(group.deadlock.sum()),
            }
        )
    return pd.DataFrame(rows)


def route_property_rows(dims: int, radix: int, wraps: str) -> dict:
    """Exhaustive fault-free properties of direction-first e-cube (1 VC) with wrap rule ``wraps``.

    CDG verdict and cycle (path form, all adaptive/random choices), fraction of pairs whose *preferred*
    route (first candidate at every hop) is minimal, fraction with *some* minimal route, fraction whose
    *every* route is minimal, and the largest extra hop count over all routes.

    Examples
    --------
    >>> row = route_property_rows(3, 2, "phase")
    >>> row["cdg_acyclic"], row["all_routes_minimal"]
    (True, 1.0)
    """
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
    """
    topo = Torus(dims, radix)
    seed = _sim_seed(rng)
    routing = make_routing({"name": "direction-first", "wraps": wraps}, topo)
    res = simulate(
        topo, routing, offered_load=load, packet_length=packet_length,
        buffer_depth=buffer_depth, warmup=0, measure=measure, drain=0, deadlock_cycles=300, seed=seed,
        vc_allocation=vc_allocation,
    )  # fmt: skip
    return {
        "network": f"{radix}-ary {dims}-cube",
        "dims": dims,
        "radix": radix,
        "wraps": wraps,
        "vc_allocation": vc_allocation,
        "packet_length": packet_length,
        "buffer_depth": buffer_depth,
        "replicate": replicate,
        "seed": seed,
        "deadlock": res.deadlock,
        "cycle_length": len(res.deadlock_cycle),
        "cycle": " -> ".join(f"{topo.channel(c)}" for c, _ in res.deadlock_cycle),
        "cycle_has_wrap": any(topo.is_wraparound(c) for c, _ in res.deadlock_cycle),
        "accepted_throughput": res.accepted_throughput,
        "cycles": res.cycles,
    }


def header_table(cases: Sequence[tuple[int, int]]) -> pd.DataFrame:
    """Theorem 5.4's header size for each ``(k, n)``: exact formula, whole-field bits, and the REC header.

    The REC header (spec 5.3) carries (dest, x, y, started): the same field sizes; the ``"first"`` wrap
    variant adds one bit.

    Examples
    --------
    >>> header_table([(2, 4)]).bits_ceil.tolist()
    [9]
    """
    rows = []
    for k, n in cases:
        rows.append(
            {
                "k": k,
                "n": n,
                "nodes": k**n,
                "bits_exact": header_size_bits(k, n, rounding="exact"),
                "bits_ceil": header_size_bits(k, n),
                "rec_header_bits": header_size_bits(k, n),
                "rec_first_wrap_bits": header_size_bits(k, n) + 1,
            }
        )
    return pd.DataFrame(rows)


def log_fit(nodes: Sequence[float], values: Sequence[float]) -> dict:
    """Least-squares fits ``v = a + b log2 N`` and ``v = a + b N``; R^2 of each (which growth fits better).

    Examples
    --------
    >>> fit = log_fit([16, 32, 64, 128], [4, 5, 6, 7])
    >>> round(fit["log_slope"], 3), round(fit["log_r2"], 3)
    (1.0, 1.0)
    """
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
