"""Compare routing algorithms on the same bench: latency-load curves over seeds, with confidence intervals.

A study any researcher can point at their own algorithm: routings are registry specs
(:func:`torus_lab.routing.make_routing`), so a kernel registered at run time is compared with the papers'
algorithms in the same grid, on any :func:`torus_lab.sweep.sweep` backend.  Used by the
``bring_your_own_routing`` study (:mod:`torus_lab.studies.bring_your_own_routing`).

* :func:`latency_load_runs` -- one :func:`~torus_lab.sweep.sweep` item (:func:`latency_point`) per
  (routing, load, replica), each simulation seeded from its item's generator;
* :func:`curves_from_runs` / :func:`latency_load_curves` -- means and 95% intervals per (routing, load);
* :func:`saturation_by_routing` -- :func:`torus_lab.sim.saturation.saturation_table` with :data:`SATURATION`.

Examples
--------
>>> df = latency_load_curves([{"name": "ecube", "datelines": True, "vcs": 2}], dims=2, radix=4,
...                          loads=[0.1], seeds=2, seed=1, warmup=50, measure=100, backend="serial")
>>> df[["routing", "offered_load", "runs"]].values.tolist()
[['ecube+dateline', 0.1, 2]]
"""

from __future__ import annotations

import json
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
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.saturation import Saturation, saturation_table
from torus_lab.stats import summarize
from torus_lab.sweep import grid, sweep
from torus_lab.topology import Torus

__all__ = ["SATURATION", "latency_point", "latency_load_runs", "curves_from_runs", "latency_load_curves",
           "saturation_by_routing"]

#: The bench's saturation rule: no deadlocked run and mean accepted throughput >= 95% of the generated load
#: (no latency test).
SATURATION = Saturation(accept_ratio=0.95, latency_factor=None)
_RUN_COLUMNS = ("mean_latency", "accepted_throughput", "generated_throughput", "deadlock", "delivered", "mean_hops")


def latency_point(routing: Mapping[str, Any] | str, dims: int, radix: int, load: float, replica: int,
                  config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:  # fmt: skip
    """One simulation of ``routing`` on ``Torus(dims, radix)`` at offered ``load`` (a
    :func:`~torus_lab.sweep.sweep` item function): ``config`` holds further :class:`torus_lab.sim.SimConfig`
    fields, the simulator seed is drawn from ``rng``; ``replica`` only tells the runs of one grid point apart.

    >>> row = latency_point("ecube", 1, 4, 0.1, 0, {"warmup": 20, "measure": 50}, np.random.default_rng(0))
    >>> row["routing"], row["deadlock"]
    ('ecube', False)
    """
    if not isinstance(routing, str):
        check_mapping("routing", routing, ["name"])
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    load = check_real("load", load, minimum=0)
    check_int("replica", replica, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_mapping("config", config, [])
    rf = make_routing(routing, Torus(dims, radix))
    cfg = SimConfig.from_mapping({**config, "offered_load": float(load)})
    row = simulate(rf, cfg, seed=int(rng.integers(2**62))).summary()
    return {"routing": rf.name, **{k: row[k] for k in _RUN_COLUMNS}}


def latency_load_runs(routings: Sequence[Mapping[str, Any] | str], *, dims: int, radix: int, loads: Sequence[float],
                      seeds: int, seed: int, backend: str = "auto", **sim_options: Any) -> pd.DataFrame:  # fmt: skip
    """One row per simulation: ``seeds`` replicas of every (routing, offered load), run over
    :func:`~torus_lab.sweep.sweep` with root ``seed``; ``sim_options`` are :class:`torus_lab.sim.SimConfig`
    fields.  Columns: routing (the routing function's name), offered_load, replica, mean_latency,
    accepted_throughput, generated_throughput, deadlock, delivered, mean_hops, seed.
    """
    routings = check_sequence("routings", routings)
    for r in routings:
        if not isinstance(r, str):
            check_mapping("routings", r, ["name"])
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    loads = [check_real("loads", x, minimum=0) for x in check_sequence("loads", loads)]
    check_int("seed", seed, minimum=0)
    check_str("backend", backend)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise ValueError(f"seeds must be an int >= 1, got {seeds!r}")
    SimConfig.from_mapping(sim_options)  # fail early, naming a bad option
    specs = [r if isinstance(r, str) else json.loads(json.dumps(dict(r))) for r in routings]
    items = [dict(i, config=dict(sim_options)) for i in grid(routing=specs, dims=[dims], radix=[radix],
                                                               load=[float(x) for x in loads],
                                                               replica=list(range(seeds)))]
    results = sweep(latency_point, items, seed=seed, backend=backend, desc="latency-load")
    rows = [{**res, "offered_load": item["load"], "replica": item["replica"]}
            for item, res in zip(items, results, strict=True)]
    runs = pd.DataFrame(rows, columns=["routing", "offered_load", "replica", *_RUN_COLUMNS])
    runs["seed"] = int(seed)
    return runs


def curves_from_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean latency and accepted throughput per (routing, offered load) of :func:`latency_load_runs`, with 95% CIs.

    Returns one row per routing and load: ``routing``, ``offered_load``, ``mean_latency_mean``/``_low``/``_high``
    (Student t interval over runs), the same for ``accepted_throughput``, ``runs``, ``deadlocks`` (runs that
    deadlocked) and ``seed``.

    >>> runs = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.1], "replica": [0, 1],
    ...                      "mean_latency": [10.0, 12.0], "accepted_throughput": [0.1, 0.1],
    ...                      "deadlock": [False, True], "seed": [3, 3]})
    >>> row = curves_from_runs(runs).iloc[0]
    >>> float(row.mean_latency_mean), int(row.runs), int(row.deadlocks), int(row.seed)
    (11.0, 2, 1, 3)
    """
    check_frame("runs", runs, ["seed"])
    by = ["routing", "offered_load"]
    out = summarize(runs, by, ["mean_latency", "accepted_throughput"])
    counts = runs.groupby(by).agg(runs=("replica", "size"), deadlocks=("deadlock", "sum")).reset_index()
    out = out.merge(counts, on=by)
    for col in ("mean_latency", "accepted_throughput"):
        out[f"{col}_low"] = out[f"{col}_mean"] - out[f"{col}_ci"]
        out[f"{col}_high"] = out[f"{col}_mean"] + out[f"{col}_ci"]
    out["deadlocks"] = out["deadlocks"].astype(int)
    out["seed"] = int(runs["seed"].iloc[0]) if len(runs) else None
    keep = ["routing", "offered_load", "mean_latency_mean", "mean_latency_low", "mean_latency_high",
            "accepted_throughput_mean", "accepted_throughput_low", "accepted_throughput_high", "runs", "deadlocks",
            "seed"]
    return out[keep].sort_values(by, kind="stable").reset_index(drop=True)


def latency_load_curves(routings: Sequence[Mapping[str, Any] | str], *, dims: int, radix: int, loads: Sequence[float],
                        seeds: int, seed: int, backend: str = "auto", **sim_options: Any) -> pd.DataFrame:  # fmt: skip
    """:func:`curves_from_runs` of :func:`latency_load_runs` (same arguments)."""
    check_sequence("routings", routings)
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    check_sequence("loads", loads)
    check_int("seed", seed, minimum=0)
    check_str("backend", backend)
    return curves_from_runs(latency_load_runs(routings, dims=dims, radix=radix, loads=loads, seeds=seeds, seed=seed,
                                              backend=backend, **sim_options))


def saturation_by_routing(runs: pd.DataFrame, *, criterion: Saturation = SATURATION) -> pd.DataFrame:
    """Per routing of :func:`latency_load_runs` (sorted by name): the highest offered load of the grid such that
    it and every lighter load are sustained under ``criterion`` (default :data:`SATURATION`: no deadlocked
    run, mean accepted throughput >= 95% of the mean generated load), via
    :func:`torus_lab.sim.saturation.saturation_table`; plus ``saturation_throughput``, ``loads`` and ``seed``.

    >>> runs = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.5], "accepted_throughput": [0.1, 0.3],
    ...                      "generated_throughput": [0.1, 0.5], "mean_latency": [10.0, 50.0],
    ...                      "deadlock": [False, False], "seed": [1, 1]})
    >>> saturation_by_routing(runs)[["routing", "saturation_load"]].values.tolist()
    [['a', 0.1]]
    """
    check_frame("runs", runs, ["seed"])
    sat = saturation_table(runs, ["routing"], criterion).sort_values("routing", kind="stable").reset_index(drop=True)
    sat["seed"] = int(runs["seed"].iloc[0]) if len(runs) else None
    return sat[["routing", "saturation_load", "saturation_throughput", "loads", "seed"]]
