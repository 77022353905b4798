"""The one latency-load pipeline: sweep items -> one row per run -> per-point summary -> saturation.

Every study that draws latency-load curves runs its simulations through this module, on any
:func:`torus_lab.sweep.sweep` backend; routings are registry specs (:func:`torus_lab.routing.make_routing`), so a
kernel registered at run time is compared with the papers' algorithms in the same grid.

* :func:`latency_point` -- the sweep item function: one simulation of (routing, network, traffic, load,
  replica), its simulator seed drawn from the item's content-derived generator;
* :func:`latency_runs` -- one row per item (:func:`latency_point` over :func:`~torus_lab.sweep.sweep`), the
  experiment seed in a ``seed`` column; :func:`latency_load_runs` builds the grid of routings x loads x
  replicas on one torus;
* :func:`point_summary` -- per curve and offered load: runs, deadlocked runs, and the mean of each metric with
  its Student-t interval as ``<metric>_mean``/``_low``/``_high`` (plus ``_ci`` and ``_n``), optionally over the
  runs that did not deadlock; :func:`curves_from_runs` / :func:`latency_load_curves` are its bench layout;
* :func:`curve_saturation` -- per curve, :func:`torus_lab.sim.saturation.saturation_table` (the one definition)
  with the study's criterion, plus deadlocked runs and the lightest load at which a run deadlocked;
  :func:`saturation_by_routing` is its bench layout with :data:`SATURATION`.

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
from torus_lab.sim.saturation import RUN_COLUMNS, Saturation, saturation_table
from torus_lab.stats import summarize
from torus_lab.sweep import grid, sweep
from torus_lab.topology import Torus, make_network

__all__ = [
    "SATURATION", "CURVE_CONFIG", "NETWORKS", "POINT_EXTRAS", "latency_point", "latency_runs", "latency_load_runs",
    "point_summary", "curves_from_runs", "latency_load_curves", "curve_saturation", "saturation_by_routing",
]  # fmt: skip

#: The bench's saturation rule: no deadlocked run and mean accepted throughput >= 95% of the generated load
#: (no latency test).
SATURATION = Saturation(accept_ratio=0.95, latency_factor=None)
#: Simulator settings of an item without a ``config``: warm-up and measurement come from the item, these fill
#: in the rest (short drain).
CURVE_CONFIG: dict[str, Any] = {"packet_length": 4, "buffer_depth": 4, "drain": 4000, "deadlock_cycles": 500}
#: Network names of a k x k item (``network`` key) -> topology kind of :func:`torus_lab.topology.make_network`.
NETWORKS = {"torus": "bidirectional", "mesh": "mesh"}
#: Largest k of a k x k item network.
MAX_K = 4096
_RUN_COLUMNS = ("mean_latency", "accepted_throughput", "generated_throughput", "deadlock", "delivered", "mean_hops")
_METRICS = ("mean_latency", "accepted_throughput")
#: Columns :func:`latency_point` adds to the simulator's summary (the rest of a row is the summary).
POINT_EXTRAS = ("label", "network", "scheme", "spec", "dims", "radix", "k", "replica", "replicate", "algorithm")


def _plain(spec: Mapping[str, Any] | str) -> Mapping[str, Any] | str:
    return spec if isinstance(spec, str) else json.loads(json.dumps(dict(spec)))


def latency_point(routing: Mapping[str, Any] | str, load: float, rng: np.random.Generator, *,
                  dims: int | None = None, radix: int | None = None, k: int | None = None,
                  network: str | None = None, traffic: str | None = None, config: Mapping[str, Any] | None = None,
                  warmup: int | None = None, measure: int | None = None, replica: int | None = None,
                  replicate: int | None = None, algorithm: str | None = None) -> dict[str, Any]:  # fmt: skip
    """One simulation of a latency-load curve (the :func:`~torus_lab.sweep.sweep` item function of every study).

    The item's keys are the parameters (its content seeds ``rng``, so a study keeps the keys its grid has
    always had).

    Parameters
    ----------
    routing : str or mapping
        Registry spec (:func:`torus_lab.routing.make_routing`).
    load : float
        Offered load (flits/node/cycle).
    rng : numpy.random.Generator
        The item's generator; the simulator seed is drawn from it.
    dims, radix : int, optional
        The network ``Torus(dims, radix)`` (when ``network`` is None).
    k, network : int and str, optional
        The k x k network named ``network`` (a key of :data:`NETWORKS`), instead of ``dims``/``radix``.
    traffic : str, optional
        Traffic pattern (default: the config's).
    config : mapping, optional
        :class:`torus_lab.sim.SimConfig` fields; None: :data:`CURVE_CONFIG`.
    warmup, measure : int, optional
        Warm-up and measurement cycles over ``config``.
    replica, replicate : int, optional
        Index of the run at its point (either spelling; only recorded).
    algorithm : str, optional
        Curve label (default: the routing function's name).

    Returns
    -------
    dict
        :meth:`torus_lab.sim.SimResult.summary` without the wall-clock time, the simulator seed as ``sim_seed``;
        ``label``, ``network`` (the k x k network's topology kind, else ``"<radix>-ary <dims>-cube"``),
        ``scheme`` and ``spec`` (the complete spec, JSON) of the routing, and the item's keys given of
        ``dims``, ``radix``, ``k``, ``replica``, ``replicate``, ``algorithm``.

    Examples
    --------
    >>> row = latency_point("ecube", 0.1, np.random.default_rng(0), dims=1, radix=4, replica=0,
    ...                     config={"warmup": 20, "measure": 50})
    >>> row["routing"], row["network"], row["deadlock"], "wall_seconds" in row
    ('ecube', '4-ary 1-cube', False, False)
    """
    if not isinstance(routing, str):
        check_mapping("routing", routing, ["name"])
    load = check_real("load", load, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    topology, name, k = _point_network(dims, radix, k, network)
    if traffic is not None:
        check_str("traffic", traffic)
    if config is not None:
        check_mapping("config", config, [])
    for key, value in (("warmup", warmup), ("measure", measure), ("replica", replica), ("replicate", replicate)):
        if value is not None:
            check_int(key, value, minimum=0)
    if algorithm is not None:
        check_str("algorithm", algorithm)
    overrides = {"warmup": warmup, "measure": measure, "traffic": traffic}
    cfg = SimConfig.from_mapping({**(CURVE_CONFIG if config is None else config),  # checks every field, naming it
                                  **{key: value for key, value in overrides.items() if value is not None},
                                  "offered_load": float(load)})  # fmt: skip
    rf = make_routing(routing, topology)
    row = simulate(rf, cfg, seed=int(rng.integers(2**62))).summary()
    row.pop("wall_seconds", None)
    row["sim_seed"] = row.pop("seed")
    row.update(label=rf.name if algorithm is None else algorithm, network=rf.topology.kind if name is None else name,
               scheme=rf.spec.get("scheme"), spec=json.dumps(rf.spec, separators=(",", ":")))
    row.update({key: value for key, value in (("dims", dims), ("radix", radix), ("k", k), ("replica", replica),
                                              ("replicate", replicate), ("algorithm", algorithm))
                if value is not None})
    return row


def _point_network(dims: int | None, radix: int | None, k: int | None,
                   network: str | None) -> tuple[Torus, str | None, int | None]:  # fmt: skip
    """The network of a :func:`latency_point` item, checked: ``Torus(dims, radix)`` named ``"<radix>-ary
    <dims>-cube"``, or the k x k ``network`` (no name: its topology kind names it); and ``k`` as an int.

    Examples
    --------
    >>> _point_network(2, 4, None, None)[1:], _point_network(None, None, 4, "mesh")[1:]
    (('4-ary 2-cube', None), (None, 4))
    """
    if network is None:
        if dims is None or radix is None:
            raise ValueError(f"dims and radix must be given without network, got dims={dims!r}, radix={radix!r}")
        check_int("dims", dims, minimum=1)
        check_int("radix", radix, minimum=2)
        return Torus(dims, radix), f"{radix}-ary {dims}-cube", k
    check_str("network", network, tuple(NETWORKS))
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    return make_network(NETWORKS[network], k), None, k


def latency_runs(items: Sequence[Mapping[str, Any]], *, seed: int, columns: Sequence[str] | None = None,
                 extras: Sequence[str] | None = None, backend: str = "auto", desc: str = "latency-load",
                 progress: bool | None = None) -> pd.DataFrame:  # fmt: skip
    """One row per item: :func:`latency_point` of every item over :func:`~torus_lab.sweep.sweep` with root
    ``seed``, then the experiment seed as a ``seed`` column.

    ``columns`` picks and orders the rows' columns; ``extras`` instead keeps every column of the simulator's
    summary followed by these of :data:`POINT_EXTRAS`; default: every column.  A study's table keeps its layout so.
    ``progress``: the sweep's progress bar (default: :func:`torus_lab.sweep.shows_progress`).

    Examples
    --------
    >>> runs = latency_runs([{"routing": "ecube", "dims": 1, "radix": 4, "load": 0.1, "replica": r,
    ...                       "config": {"warmup": 20, "measure": 50}} for r in range(2)], seed=3,
    ...                     columns=["routing", "replica", "deadlock"], backend="serial")
    >>> runs.values.tolist()
    [['ecube', 0, False, 3], ['ecube', 1, False, 3]]
    """
    items = [check_mapping("items", item, ["routing", "load"]) for item in check_sequence("items", items)]
    seed = check_int("seed", seed, minimum=0)
    if columns is not None:
        columns = [check_str("columns", c) for c in check_sequence("columns", columns)]
    if extras is not None:
        extras = [check_str("extras", c, POINT_EXTRAS) for c in check_sequence("extras", extras)]
        if columns is not None:
            raise ValueError("columns and extras cannot both be given")
    check_str("backend", backend)
    check_str("desc", desc)
    if progress is not None:
        check_instance("progress", progress, bool, "a bool or None")
    rows = sweep(latency_point, items, seed=seed, backend=backend, desc=desc, progress=progress)
    if extras is not None:
        columns = [*(c for c in (rows[0] if rows else {}) if c not in POINT_EXTRAS), *extras]
    runs = pd.DataFrame(rows) if columns is None else pd.DataFrame(rows, columns=columns)
    runs["seed"] = seed
    return runs


def latency_load_runs(routings: Sequence[Mapping[str, Any] | str], *, dims: int, radix: int, loads: Sequence[float],
                      seeds: int, seed: int, backend: str = "auto", **sim_options: Any) -> pd.DataFrame:  # fmt: skip
    """One row per simulation: ``seeds`` replicas of every (routing, offered load) on ``Torus(dims, radix)``
    (:func:`latency_runs` of items ``routing, dims, radix, load, replica, config``); ``sim_options`` are
    :class:`torus_lab.sim.SimConfig` fields.  Columns: routing (the routing function's name), offered_load,
    replica, mean_latency, accepted_throughput, generated_throughput, deadlock, delivered, mean_hops, seed.

    Examples
    --------
    >>> runs = latency_load_runs(["ecube"], dims=1, radix=4, loads=[0.1], seeds=2, seed=1, warmup=20,
    ...                          measure=50, backend="serial")
    >>> runs[["routing", "replica", "seed"]].values.tolist()
    [['ecube', 0, 1], ['ecube', 1, 1]]
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
    check_int("seeds", seeds, minimum=1)
    SimConfig.from_mapping(sim_options)  # fail early, naming a bad option
    items = [dict(i, config=dict(sim_options)) for i in grid(routing=[_plain(r) for r in routings], dims=[dims],
                                                               radix=[radix], load=[float(x) for x in loads],
                                                               replica=list(range(seeds)))]
    return latency_runs(items, seed=seed, backend=backend,
                        columns=["routing", "offered_load", "replica", *_RUN_COLUMNS])


def point_summary(runs: pd.DataFrame, curves: Sequence[str], *, metrics: Sequence[str] = _METRICS,
                  exclude_deadlocked: bool = False, sort: bool = False,
                  level: float = 0.95) -> pd.DataFrame:  # fmt: skip
    """Per curve (the ``curves`` columns) and offered load of a table of runs: the mean of each of ``metrics``
    with its Student-t ``level`` interval (:func:`torus_lab.stats.summarize`).

    Columns: ``curves``, ``offered_load``, ``runs``, ``deadlocks`` (runs that stopped in deadlock), per metric
    ``<metric>_mean``, ``_ci`` (half-width), ``_n`` (finite values), ``_low``, ``_high`` (NaN bounds with fewer
    than two runs), and ``seed`` (the runs' first).  With ``exclude_deadlocked`` the statistics are over the runs
    that did not deadlock (a deadlocked run's latency describes only the packets delivered before the stall;
    NaN mean and ``_n`` 0 with none).  Curves in order of appearance (``sort``: by their keys), loads ascending.

    Examples
    --------
    >>> runs = pd.DataFrame({"routing": "r", "offered_load": 0.1, "mean_latency": [10.0, 12.0, 14.0, 99.0],
    ...                      "accepted_throughput": 0.1, "deadlock": [False, False, False, True], "seed": 7})
    >>> row = point_summary(runs, ["routing"], exclude_deadlocked=True).iloc[0]
    >>> int(row.runs), int(row.deadlocks), float(row.mean_latency_mean), int(row.mean_latency_n)
    (4, 1, 12.0, 3)
    >>> round(float(row.mean_latency_low), 2), round(float(row.mean_latency_high), 2)
    (7.03, 16.97)
    """
    curves = [check_str("curves", c) for c in check_sequence("curves", curves, min_length=1)]
    metrics = [check_str("metrics", m) for m in check_sequence("metrics", metrics, min_length=1)]
    check_frame("runs", runs, [*curves, "offered_load", *metrics, "deadlock", "seed"])
    check_instance("exclude_deadlocked", exclude_deadlocked, bool, "a bool")
    check_instance("sort", sort, bool, "a bool")
    level = check_real("level", level, minimum=0)
    keys = [*curves, "offered_load"]
    dead = runs.deadlock.astype(bool)
    counts = (runs.assign(deadlock=dead).groupby(keys, sort=False)
              .agg(runs=("deadlock", "size"), deadlocks=("deadlock", "sum"), seed=("seed", "first")).reset_index())
    used = runs[~dead] if exclude_deadlocked else runs
    if len(used):
        stats = summarize(used, keys, metrics, level)
    else:
        stats = pd.DataFrame(columns=[*keys, *(f"{m}_{s}" for m in metrics for s in ("mean", "ci", "n"))])
    out = counts.merge(stats, on=keys, how="left")
    for metric in metrics:
        out[f"{metric}_low"] = out[f"{metric}_mean"] - out[f"{metric}_ci"]
        out[f"{metric}_high"] = out[f"{metric}_mean"] + out[f"{metric}_ci"]
    out["deadlocks"] = out["deadlocks"].astype(int)
    if sort:
        return out.sort_values(keys, kind="stable").reset_index(drop=True)
    order = {curve: i for i, curve in enumerate(dict.fromkeys(zip(*(out[c] for c in curves), strict=True)))}
    out["_curve"] = [order[curve] for curve in zip(*(out[c] for c in curves), strict=True)]
    return out.sort_values(["_curve", "offered_load"], kind="stable").drop(columns="_curve").reset_index(drop=True)


def curves_from_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean latency and accepted throughput per (routing, offered load) of :func:`latency_load_runs`, with 95% CIs.

    :func:`point_summary` over every run, sorted: ``routing``, ``offered_load``,
    ``mean_latency_mean``/``_low``/``_high`` (Student t interval over runs), the same for
    ``accepted_throughput``, ``runs``, ``deadlocks`` (runs that deadlocked) and ``seed``.

    >>> runs = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.1], "replica": [0, 1],
    ...                      "mean_latency": [10.0, 12.0], "accepted_throughput": [0.1, 0.1],
    ...                      "deadlock": [False, True], "seed": [3, 3]})
    >>> row = curves_from_runs(runs).iloc[0]
    >>> float(row.mean_latency_mean), int(row.runs), int(row.deadlocks), int(row.seed)
    (11.0, 2, 1, 3)
    """
    check_frame("runs", runs, ["seed"])
    out = point_summary(runs, ["routing"], sort=True)
    out["seed"] = int(runs["seed"].iloc[0]) if len(runs) else None
    keep = ["routing", "offered_load", "mean_latency_mean", "mean_latency_low", "mean_latency_high",
            "accepted_throughput_mean", "accepted_throughput_low", "accepted_throughput_high", "runs", "deadlocks",
            "seed"]
    return out[keep]


def latency_load_curves(routings: Sequence[Mapping[str, Any] | str], *, dims: int, radix: int, loads: Sequence[float],
                        seeds: int, seed: int, backend: str = "auto", **sim_options: Any) -> pd.DataFrame:  # fmt: skip
    """:func:`curves_from_runs` of :func:`latency_load_runs` (same arguments).

    >>> latency_load_curves(["ecube"], dims=1, radix=4, loads=[0.1], seeds=2, seed=1, warmup=20, measure=50,
    ...                     backend="serial").runs.tolist()
    [2]
    """
    check_sequence("routings", routings)
    check_int("dims", dims, minimum=1)
    check_int("radix", radix, minimum=2)
    check_sequence("loads", loads)
    check_int("seed", seed, minimum=0)
    check_str("backend", backend)
    return curves_from_runs(latency_load_runs(routings, dims=dims, radix=radix, loads=loads, seeds=seeds, seed=seed,
                                              backend=backend, **sim_options))


def curve_saturation(runs: pd.DataFrame, curves: Sequence[str], criterion: Saturation, *,
                     sort: bool = False) -> pd.DataFrame:  # fmt: skip
    """Saturation of every latency-load curve (the ``curves`` columns) of a table of runs.

    :func:`torus_lab.sim.saturation.saturation_table` with ``criterion`` (``saturation_load``: highest offered
    load of the grid such that it and every lighter load are sustained; ``saturation_throughput``; ``loads``),
    plus ``deadlocked_runs`` and ``first_deadlock_load`` (the lightest load at which a run deadlocked, NaN if
    none).  Curves in order of appearance (``sort``: by their keys).  Resolution: the sweep's grid.

    Examples
    --------
    >>> runs = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.5], "accepted_throughput": [0.1, 0.3],
    ...                      "generated_throughput": [0.1, 0.5], "mean_latency": [10.0, 50.0],
    ...                      "deadlock": [False, True]})
    >>> curve_saturation(runs, ["routing"], SATURATION)[["saturation_load", "deadlocked_runs",
    ...                                                  "first_deadlock_load"]].values.tolist()
    [[0.1, 1.0, 0.5]]
    """
    curves = [check_str("curves", c) for c in check_sequence("curves", curves, min_length=1)]
    check_frame("runs", runs, [*curves, *RUN_COLUMNS])
    check_instance("criterion", criterion, Saturation, "a Saturation")
    check_instance("sort", sort, bool, "a bool")
    dead = runs.deadlock.astype(bool)
    per_curve = runs.assign(deadlock=dead, _dead_load=runs.offered_load.where(dead)).groupby(curves, sort=False)
    extra = per_curve.agg(deadlocked_runs=("deadlock", "sum"), first_deadlock_load=("_dead_load", "min"))
    extra = extra.reset_index().astype({"deadlocked_runs": int, "first_deadlock_load": float})
    out = runs[curves].drop_duplicates().merge(saturation_table(runs, curves, criterion), on=curves, how="left")
    out = out.merge(extra, on=curves, how="left").reset_index(drop=True)
    return out.sort_values(curves, kind="stable").reset_index(drop=True) if sort else out


def saturation_by_routing(runs: pd.DataFrame, *, criterion: Saturation = SATURATION) -> pd.DataFrame:
    """Per routing of :func:`latency_load_runs` (sorted by name): :func:`curve_saturation` under ``criterion``
    (default :data:`SATURATION`: no deadlocked run, mean accepted throughput >= 95% of the mean generated load):
    ``routing``, ``saturation_load``, ``saturation_throughput``, ``loads`` and ``seed``.

    >>> runs = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.5], "accepted_throughput": [0.1, 0.3],
    ...                      "generated_throughput": [0.1, 0.5], "mean_latency": [10.0, 50.0],
    ...                      "deadlock": [False, False], "seed": [1, 1]})
    >>> saturation_by_routing(runs)[["routing", "saturation_load"]].values.tolist()
    [['a', 0.1]]
    """
    check_frame("runs", runs, ["seed"])
    sat = curve_saturation(runs, ["routing"], criterion, sort=True)
    sat["seed"] = int(runs["seed"].iloc[0]) if len(runs) else None
    return sat[["routing", "saturation_load", "saturation_throughput", "loads", "seed"]]
