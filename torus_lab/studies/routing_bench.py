"""Compare routing algorithms on the same bench: latency-load curves over seeds, with confidence intervals.

A study any researcher can point at their own algorithm: routings are registry specs
(:func:`torus_lab.routing.make_routing`), so a kernel registered at run time is compared with the papers'
algorithms in the same grid, on any :func:`torus_lab.sweep.sweep` backend.  Used by the
``bring_your_own_routing`` notebook.

Examples
--------
>>> df = latency_load_curves([{"name": "ecube", "datelines": True, "vcs": 2}], dims=2, radix=4,
...                          loads=[0.1], seeds=2, seed=1, warmup=50, measure=100, backend="serial")
>>> df[["routing", "offered_load", "runs"]].values.tolist()
[['ecube+dateline', 0.1, 2]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab.routing import make_routing
from torus_lab.sim import simulate, summarize
from torus_lab.sweep import grid, sweep_frame
from torus_lab.topology import Torus

__all__ = ["latency_point", "latency_load_curves", "saturation_by_routing"]


def latency_point(routing: Mapping[str, Any], dims: int, radix: int, load: float, replica: int,
                  rng: np.random.Generator, **sim_options: Any) -> dict[str, Any]:  # fmt: skip
    """One simulation of ``routing`` on ``Torus(dims, radix)`` at ``load`` (a :func:`~torus_lab.sweep.sweep`
    item; ``replica`` only distinguishes the seeds of one grid point)."""
    topology = Torus(dims, radix)
    rf = make_routing(routing, topology)
    res = simulate(topology, rf, offered_load=float(load), seed=int(rng.integers(2**62)), **sim_options)
    row = res.summary()
    row.pop("wall_seconds", None)
    return {"routing_label": rf.name, **{k: row[k] for k in (
        "mean_latency", "accepted_throughput", "generated_throughput", "deadlock", "delivered", "mean_hops")}}


def latency_load_curves(routings: Sequence[Mapping[str, Any]], *, dims: int, radix: int, loads: Sequence[float],
                        seeds: int, seed: int, backend: str = "auto", **sim_options: Any) -> pd.DataFrame:  # fmt: skip
    """Mean latency and accepted throughput per (routing, offered load) over ``seeds`` runs, with 95% CIs.

    Returns one row per routing and load: ``routing`` (the routing function's name), ``offered_load``,
    ``mean_latency_mean``/``_low``/``_high`` (Student t interval over runs), the same for
    ``accepted_throughput``, ``runs`` and ``deadlocks`` (runs that deadlocked).
    """
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be an int >= 1, got {seeds!r}")
    items = grid(routing=list(routings), dims=[dims], radix=[radix], load=list(loads), replica=list(range(seeds)))
    runs = sweep_frame(_point, [dict(i, sim_options=sim_options) for i in items], seed=seed, backend=backend,
                       desc="latency-load")  # fmt: skip
    runs["offered_load"] = runs["load"]
    out = summarize(runs, ["routing_label", "offered_load"], ["mean_latency", "accepted_throughput"])
    counts = runs.groupby(["routing_label", "offered_load"]).agg(runs=("replica", "size"),
                                                                 deadlocks=("deadlock", "sum")).reset_index()
    out = out.merge(counts, on=["routing_label", "offered_load"]).rename(columns={"routing_label": "routing"})
    for col in ("mean_latency", "accepted_throughput"):
        out[f"{col}_low"] = out[f"{col}_mean"] - out[f"{col}_ci"]
        out[f"{col}_high"] = out[f"{col}_mean"] + out[f"{col}_ci"]
    keep = ["routing", "offered_load", "mean_latency_mean", "mean_latency_low", "mean_latency_high",
            "accepted_throughput_mean", "accepted_throughput_low", "accepted_throughput_high", "runs", "deadlocks"]
    return out[keep].sort_values(["routing", "offered_load"], kind="stable").reset_index(drop=True)


def _point(routing, dims, radix, load, replica, sim_options, rng):
    return latency_point(routing, dims, radix, load, replica, rng, **sim_options)


def saturation_by_routing(curves: pd.DataFrame, *, accept_ratio: float = 0.95) -> pd.DataFrame:
    """Per routing, the highest offered load whose mean accepted throughput is at least ``accept_ratio`` times
    the offered load and at which no run deadlocked (a coarse saturation estimate on the sweep's grid).

    >>> c = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.5],
    ...                   "accepted_throughput_mean": [0.1, 0.3], "deadlocks": [0, 0]})
    >>> saturation_by_routing(c).values.tolist()
    [['a', 0.1]]
    """
    ok = curves[(curves.accepted_throughput_mean >= accept_ratio * curves.offered_load) & (curves.deadlocks == 0)]
    best = ok.groupby("routing").offered_load.max()
    return best.reindex(sorted(curves.routing.unique())).rename("saturation_load").reset_index()
