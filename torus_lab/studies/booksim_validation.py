"""BookSim2 validation: the BookSim-compatible router model beside BookSim2's own runs.

The study of ``notebooks/booksim_validation.ipynb``.  For every configuration of the reference set
(``reference/booksim2/``: BookSim2 runs of the 8x8 torus, the 4-ary 3-cube and the 8x8 mesh with dimension-order
routing, 1- and 4-flit packets), :func:`run` simulates :mod:`torus_lab.sim.booksim` with BookSim2's defaults
(:meth:`torus_lab.sim.SimConfig.preset` ``"booksim"``) on the same network, routing, VCs and packet length, at
the reference's zero-load point (offered 0.001), at every offered load of its latency sweep, and at offered 1.0
(BookSim2's overload / throughput-mode point), ``seeds`` replicas each, over :func:`torus_lab.sweep.sweep`.

It then compares, by the rules of the issue (tolerances are parameters):

* **zero-load latency** within ``zero_load_rel`` (2%) of BookSim2's;
* **latency** within ``latency_rel`` (5%) at every offered load up to ``below_fraction`` (80%) of BookSim2's
  highest stable load;
* **saturation**: the highest stable offered load of the same grid, and the accepted rate at offered 1.0, each
  within ``saturation_abs`` (0.02 flit/node/cycle).

A load is *stable* (:func:`stability`) when no replica deadlocked or ended unstable, the mean latency is at most
``latency_cap`` cycles (BookSim2's abort threshold in the reference runs) and the accepted rate is at least
``accept_ratio`` times the generated rate; the highest stable load is the highest grid load that is stable
together with every lighter one.  Nothing is fitted to the reference: the model's parameters are BookSim2's
documented defaults, and what still differs is reported.

Examples
--------
>>> cfg = {"name": "t", "network": "torus", "dims": 1, "radix": 4, "vcs": 2, "packet_length": 1,
...        "channel_latency": 2, "router": {}}
>>> row = simulate_point(cfg, 0.05, "latency", 0, {"warmup": 50, "measure": 200, "drain": 500},
...                      np.random.default_rng(1))
>>> row["status"], row["routers"] > 1
('ok', True)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
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
    naming,
)
from torus_lab.routing import make_routing
from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.booksim import booksim_zero_load_latency
from torus_lab.sim.saturation import Saturation, saturation_table
from torus_lab.stats import summarize
from torus_lab.studies.booksim_validation_claims import OVERLOAD, RUN_LENGTHS, ZERO_LOAD, claims
from torus_lab.sweep import sweep
from torus_lab.topology import Mesh, Torus

__all__ = ["REFERENCE_FILES", "BOOKSIM_ROUTINGS", "read_reference", "check_configs", "network_routing",
           "unbounded_queue_capacity", "simulate_point", "validation_items", "point_table", "stability",
           "zero_load_table", "saturation_comparison", "run",
           "check_params"]  # fmt: skip

#: The reference files (``reference/booksim2/``) the study reads.
REFERENCE_FILES = ("booksim2_runs.csv", "booksim2_summary.csv")
_RUN_COLUMNS = ("config", "offered_flit_rate", "sim_type", "status", "packet_latency_avg", "accepted_flit_rate",
                "hops_avg")  # fmt: skip
_SUMMARY_COLUMNS = ("config", "topology", "k", "n", "num_vcs", "packet_size", "zero_load_packet_latency",
                    "max_stable_offered", "overload_accepted_at_offered_1")  # fmt: skip
_CONFIG_KEYS = ("name", "network", "dims", "radix", "vcs", "packet_length", "channel_latency", "router")
_RECORD_ONLY = ("not_modelled",)  # configuration keys that describe, not configure
#: Our routing entry for each BookSim2 routing function of the reference (None: the default dimension order of
#: :func:`network_routing`, the configuration record has no ``routing``).
BOOKSIM_ROUTINGS = {"dim_order_torus": None, "dim_order_mesh": None, "min_adapt_torus": "booksim-min-adapt"}
#: A run's status from the rule that ended it (:data:`torus_lab.sim.runlength.END_RULES`).
_STATUS = {"deadlocked": "deadlocked", "unstable": "unstable"}


def read_reference(folder: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BookSim2's runs and per-configuration summary from ``folder`` (:data:`REFERENCE_FILES`), columns checked.

    >>> from torus_lab.experiment import project_root
    >>> runs, summary = read_reference(project_root() / "reference" / "booksim2")
    >>> "torus88_dor_vc2_p1" in set(summary.config)
    True
    """
    folder = Path(check_instance("folder", folder, (str, Path), "a folder path"))
    missing = [name for name in REFERENCE_FILES if not (folder / name).is_file()]
    if missing:
        raise ValueError(f"folder {str(folder)!r} is not a BookSim2 reference folder: it lacks {missing}")
    runs = pd.read_csv(folder / REFERENCE_FILES[0])
    summary = pd.read_csv(folder / REFERENCE_FILES[1])
    check_frame(REFERENCE_FILES[0], runs, _RUN_COLUMNS)
    check_frame(REFERENCE_FILES[1], summary, _SUMMARY_COLUMNS)
    return runs, summary


def check_configs(configs: Sequence[Mapping[str, Any]], summary: pd.DataFrame) -> list[dict[str, Any]]:
    """The configuration records (YAML ``configs``) as plain dicts, each checked against BookSim2's summary row
    of the same name: network kind, radix, dimensions, VCs and packet length must agree (a ValueError names the
    first field that does not).

    >>> _, summary = read_reference(__import__("torus_lab.experiment").experiment.project_root()
    ...                             / "reference" / "booksim2")
    >>> check_configs([{"name": "mesh88_dor_vc2_p4", "network": "mesh", "dims": 2, "radix": 8, "vcs": 2,
    ...                 "packet_length": 4, "channel_latency": 1, "router": {}}], summary)[0]["radix"]
    8
    """
    check_frame("summary", summary, _SUMMARY_COLUMNS)
    records = [dict(check_mapping(f"configs[{i}]", c, _CONFIG_KEYS)) for i, c in enumerate(check_sequence(
        "configs", configs, min_length=1))]  # fmt: skip
    table = summary.set_index("config")
    for record in records:
        name = record["name"]
        if name not in table.index:
            raise ValueError(f"configs: {name!r} is not a configuration of the reference (it has {list(table.index)})")
        ref = table.loc[name]
        expected = {"network": ref["topology"], "radix": int(ref["k"]), "dims": int(ref["n"]),
                    "vcs": int(ref["num_vcs"]), "packet_length": int(ref["packet_size"])}  # fmt: skip
        for key, value in expected.items():
            if record[key] != value:
                raise ValueError(f"configs: {name!r} has {key}={record[key]!r} but BookSim2 ran {key}={value!r}")
        if "routing_function" in table.columns:
            _check_routing(name, record.get("routing"), str(ref["routing_function"]))
    return records


def _check_routing(name: str, spec: Any, booksim_routing: str) -> None:
    """ValueError unless routing ``spec`` of configuration ``name`` is our entry for BookSim2's ``booksim_routing``."""
    ours = spec.get("name") if isinstance(spec, Mapping) else spec
    if booksim_routing not in BOOKSIM_ROUTINGS or BOOKSIM_ROUTINGS[booksim_routing] != ours:
        want = BOOKSIM_ROUTINGS.get(booksim_routing, "none of ours")
        raise ValueError(f"configs: {name!r} has routing={spec!r} but BookSim2 ran {booksim_routing} (routing: {want})")


def network_routing(config: Mapping[str, Any]):
    """The topology and routing function of a configuration record: the record's ``routing`` spec when it has one
    (a name or mapping for :func:`torus_lab.routing.make_routing`, e.g. ``{"name": "booksim-min-adapt"}``, BookSim2's
    ``min_adapt``; its VCs must be the record's), else BookSim2's ``dim_order_torus`` (dateline VC classes chosen on
    entering a dimension, a random direction when both are minimal) or ``dim_order_mesh`` (every VC usable).

    >>> network_routing({"network": "mesh", "dims": 2, "radix": 4, "vcs": 2}).name
    'ecube'
    >>> network_routing({"network": "torus", "dims": 2, "radix": 4, "vcs": 4,
    ...                  "routing": {"name": "booksim-min-adapt", "vcs": 4}}).name
    'booksim-min-adapt'
    """
    check_mapping("config", config, ["network", "dims", "radix", "vcs"])
    with naming("config"):
        network = check_str("network", config["network"], ("torus", "mesh"))
        shape = Torus if network == "torus" else Mesh
        topology = shape(config["dims"], config["radix"])
        if config.get("routing") is not None:
            routing = make_routing(config["routing"], topology)
            if routing.num_vcs != config["vcs"]:
                raise ValueError(f"config: routing {config['routing']!r} has {routing.num_vcs} VCs, the record "
                                 f"{config['vcs']}")
            return routing
        if network == "torus":
            return ecube_routing(topology, datelines=True, vcs=config["vcs"], dateline_rule="entry", tie="random")
        return ecube_routing(topology, datelines=False, vcs=config["vcs"])


def unbounded_queue_capacity(config: SimConfig) -> int:
    """A source-queue capacity (packets) that no node fills in a run of ``config``: BookSim2's source queues are
    unbounded, and a load near saturation must queue its packets, not turn them away.

    A queue never holds more packets than its node generates while generation lasts (``warmup + measure``, or
    ``max_periods * sample_period`` under adaptive control, plus ``drain`` when ``inject_during_drain``).  With
    Bernoulli injection that count is binomial: the capacity is its mean plus ten standard deviations plus 16
    (exceeded with probability below 1e-20); other injection processes get one packet per cycle, the most any
    node can generate.  Used for the latency-mode points; at offered 1.0 (throughput mode) every queue is full by
    design and only the accepted rate counts, so the default capacity stays.

    >>> cfg = SimConfig.preset("booksim", offered_load=0.5, packet_length=1, warmup=100, measure=900, drain=0)
    >>> unbounded_queue_capacity(cfg)
    675
    >>> unbounded_queue_capacity(dataclasses.replace(cfg, injection="on-off"))
    1000
    """
    check_instance("config", config, SimConfig, "a SimConfig")
    cycles = (config.max_periods * config.sample_period if config.run_control == "adaptive"
              else config.warmup + config.measure)  # fmt: skip
    if config.inject_during_drain:
        cycles += config.drain
    if config.injection != "bernoulli":
        return max(int(cycles), 1)
    p = min(1.0, config.offered_load / config.packet_length)
    return max(1, min(int(cycles), math.ceil(cycles * p + 10 * math.sqrt(cycles * p * (1 - p)) + 16)))


def simulate_point(config: Mapping[str, Any], load: float, mode: str, replica: int, run_length: Mapping[str, Any],
                   rng: np.random.Generator) -> dict[str, Any]:  # fmt: skip
    """One simulation of configuration ``config`` at offered ``load`` (a :func:`~torus_lab.sweep.sweep` item).

    ``mode`` ``"latency"`` measures and drains as ``run_length`` (SimConfig run-length fields) says;
    ``"throughput"`` (BookSim2's mode at offered 1.0) does not drain, only the accepted rate counts.  Returns
    ``status`` (``"ok"``, ``"deadlocked"``, or ``"unstable"`` when adaptive run-length control aborted the run),
    ``end_rule`` (the rule that ended it), mean packet and network latency, ``routers`` (routers traversed:
    channel hops + 1, as BookSim2 counts), accepted and generated flit rates, undelivered packets, and
    ``t0_formula`` (the model's zero-load formula on this run's own hops).
    """
    check_mapping("config", config, _CONFIG_KEYS)
    load = check_real("load", load, minimum=0, maximum=float(config["packet_length"]))
    check_str("mode", mode, ("latency", "throughput"))
    check_int("replica", replica, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    with naming("run_length"):
        SimConfig.preset("booksim", **check_mapping("run_length", run_length, []))
    fields = {**dict(config["router"]), **dict(run_length), "packet_length": config["packet_length"],
              "channel_latency": config["channel_latency"], "offered_load": float(load)}  # fmt: skip
    if mode == "throughput":
        fields["drain"] = 0
    cfg = SimConfig.preset("booksim", **fields)
    if mode == "latency":
        cfg = dataclasses.replace(cfg, queue_capacity=max(cfg.queue_capacity, unbounded_queue_capacity(cfg)))
    result = simulate(network_routing(config), cfg, seed=int(rng.integers(2**62)))
    delivered = result.packets[result.packets.dropped == 0]
    formula = booksim_zero_load_latency(delivered.hops.to_numpy(), cfg.packet_length, routing_delay=cfg.routing_delay,
                                        vc_alloc_delay=cfg.vc_alloc_delay, sw_alloc_delay=cfg.sw_alloc_delay,
                                        st_final_delay=cfg.st_final_delay, channel_latency=cfg.channel_latency,
                                        speculative=cfg.speculative)  # fmt: skip
    return {
        "status": _STATUS.get(result.end_rule, "ok"),
        "end_rule": result.end_rule,
        "latency": result.mean_latency,
        "network_latency": result.mean_network_latency,
        "routers": result.mean_hops + 1,
        "accepted": result.accepted_throughput,
        "generated": result.generated_throughput,
        "undelivered": int(result.undelivered),
        "queue_overflow": int(result.counters["queue_overflow"]),
        "t0_formula": float(np.mean(formula)) if len(delivered) else math.nan,
    }


def validation_items(configs: Sequence[Mapping[str, Any]], reference_runs: pd.DataFrame, *, seeds: int,
                     run_length: Mapping[str, Any], zero_load_run_length: Mapping[str, Any],
                     overload_run_length: Mapping[str, Any],
                     loads_per_config: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Sweep items: for every configuration, the zero-load point, the offered loads of BookSim2's latency sweep
    (all of them, or ``loads_per_config`` spread over the sweep, the heaviest included) and the overload point;
    ``seeds`` replicas each.  Each point kind has its own run length (SimConfig run-length fields):
    ``zero_load_run_length`` at offered 0.001, ``run_length`` over the sweep, ``overload_run_length`` at 1.0.

    >>> runs = pd.DataFrame({"config": "c", "sim_type": "latency", "offered_flit_rate": [0.001, 0.1, 0.2, 0.3]})
    >>> items = validation_items([{"name": "c"}], runs, seeds=1, run_length={"measure": 10},
    ...                          zero_load_run_length={"measure": 50}, overload_run_length={"measure": 20},
    ...                          loads_per_config=2)
    >>> [(i["load"], i["mode"], i["run_length"]["measure"]) for i in items]
    [(0.001, 'latency', 50), (0.1, 'latency', 10), (0.3, 'latency', 10), (1.0, 'throughput', 20)]
    """
    configs = [check_mapping(f"configs[{i}]", c, ["name"]) for i, c in enumerate(check_sequence("configs", configs))]
    check_frame("reference_runs", reference_runs, ["config", "sim_type", "offered_flit_rate"])
    seeds = check_int("seeds", seeds, minimum=1, maximum=1000)
    zero_load_run_length = check_mapping("zero_load_run_length", zero_load_run_length, [])
    overload_run_length = check_mapping("overload_run_length", overload_run_length, [])
    run_length = check_mapping("run_length", run_length, [])
    if loads_per_config is not None:
        loads_per_config = check_int("loads_per_config", loads_per_config, minimum=2)
    items = []
    for config in configs:
        sweep_loads = sorted(float(x) for x in reference_runs.loc[
            (reference_runs.config == config["name"]) & (reference_runs.sim_type == "latency")
            & (reference_runs.offered_flit_rate > ZERO_LOAD), "offered_flit_rate"].unique())  # fmt: skip
        if loads_per_config is not None and len(sweep_loads) > loads_per_config:
            picks = np.linspace(0, len(sweep_loads) - 1, loads_per_config).round().astype(int)
            sweep_loads = [sweep_loads[i] for i in sorted(set(picks))]
        points = [(ZERO_LOAD, "latency", zero_load_run_length), *((x, "latency", run_length) for x in sweep_loads),
                  (OVERLOAD, "throughput", overload_run_length)]  # fmt: skip
        for load, mode, length in points:
            items += [{"config": dict(config), "load": load, "mode": mode, "replica": r, "run_length": dict(length)}
                      for r in range(seeds)]  # fmt: skip
    return items


def point_table(runs: pd.DataFrame, reference_runs: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and offered load: our means with 95% Student-t half-widths over replicas beside
    BookSim2's packet latency, accepted rate, routers traversed and status (one seed, no interval), with the
    relative latency difference ``latency_diff`` (ours / BookSim2 - 1).

    >>> runs = pd.DataFrame({"config": "c", "load": 0.1, "mode": "latency", "latency": [10.0, 12.0],
    ...     "accepted": 0.1, "generated": 0.1, "routers": 3.0, "status": "ok", "undelivered": 0, "queue_overflow": 0})
    >>> ref = pd.DataFrame({"config": ["c"], "offered_flit_rate": [0.1], "sim_type": ["latency"], "status": ["ok"],
    ...     "packet_latency_avg": [10.0], "accepted_flit_rate": [0.1], "hops_avg": [3.0]})
    >>> round(float(point_table(runs, ref).latency_diff.iloc[0]), 3)
    0.1
    """
    check_frame("runs", runs, ["config", "load", "mode", "latency", "accepted", "generated", "routers", "status",
                              "undelivered", "queue_overflow"])
    check_frame("reference_runs", reference_runs, _RUN_COLUMNS)
    ours = summarize(runs, ["config", "load", "mode"], ["latency", "accepted", "generated", "routers"])
    flags = runs.groupby(["config", "load", "mode"], sort=True).agg(
        replicas=("status", "size"), deadlocked=("status", lambda s: int((s == "deadlocked").sum())),
        unstable=("status", lambda s: int((s == "unstable").sum())), undelivered=("undelivered", "sum"),
        queue_overflow=("queue_overflow", "sum"),
    ).reset_index()  # fmt: skip
    ours = ours.merge(flags, on=["config", "load", "mode"])
    ref = reference_runs.rename(columns={"offered_flit_rate": "load", "sim_type": "mode", "status": "bs_status",
                                         "packet_latency_avg": "bs_latency", "accepted_flit_rate": "bs_accepted",
                                         "hops_avg": "bs_routers"})[
        ["config", "load", "mode", "bs_status", "bs_latency", "bs_accepted", "bs_routers"]]  # fmt: skip
    ref = ref.assign(load=ref.load.round(6))
    table = ours.assign(load=ours.load.round(6)).merge(ref, on=["config", "load", "mode"], how="left")
    table["latency_diff"] = table.latency_mean / table.bs_latency - 1
    table["accepted_diff"] = table.accepted_mean - table.bs_accepted
    return table


def _criterion(latency_cap: float, accept_ratio: float) -> Saturation:
    latency_cap = check_real("latency_cap", latency_cap, minimum=0)
    accept_ratio = check_real("accept_ratio", accept_ratio, minimum=0, maximum=1)
    return Saturation(accept_ratio=accept_ratio, latency_factor=None, latency_cap=latency_cap)


def _as_runs(points: pd.DataFrame) -> pd.DataFrame:
    """The latency-mode points as a table of runs for :mod:`torus_lab.sim.saturation` (one "run" per point, its
    means over replicas); a point with a deadlocked replica is deadlocked, one with a replica aborted as unstable or
    with a full source queue is unstable."""
    unstable = (points.unstable > 0) | (points.queue_overflow > 0)
    return points.assign(offered_load=points.load, accepted_throughput=points.accepted_mean,
                         generated_throughput=points.generated_mean, mean_latency=points.latency_mean,
                         deadlock=points.deadlocked > 0, end_rule=np.where(unstable, "unstable", ""))[
        points["mode"] == "latency"]  # fmt: skip


def stability(points: pd.DataFrame, *, latency_cap: float, accept_ratio: float) -> pd.Series:
    """Whether each point of :func:`point_table` is stable: latency mode and sustained by the
    :class:`~torus_lab.sim.saturation.Saturation` criterion with ``accept_ratio`` (against the mean generated
    rate: at offered 0.001 the nominal load would fail light points by chance) and the absolute ``latency_cap``,
    no replica deadlocked, aborted as unstable (adaptive run length) or with a full source queue (BookSim2's are
    unbounded: a packet our ``queue_capacity`` turns away is missing from the generated rate).

    >>> pts = pd.DataFrame({"mode": "latency", "load": 0.1, "deadlocked": 0, "unstable": 0, "queue_overflow": 0,
    ...                     "latency_mean": [30.0, 600.0], "accepted_mean": 0.1, "generated_mean": 0.1})
    >>> stability(pts, latency_cap=500, accept_ratio=0.97).tolist()
    [True, False]
    """
    check_frame("points", points, ["mode", "load", "deadlocked", "unstable", "queue_overflow", "latency_mean",
                                   "accepted_mean", "generated_mean"])
    criterion = _criterion(latency_cap, accept_ratio)
    runs = _as_runs(points)
    sustained = [criterion.sustained(deadlock=bool(r.deadlock), accepted=r.accepted_throughput,
                                     generated=r.generated_throughput, latency=r.mean_latency,
                                     base_latency=math.nan, unstable=r.end_rule == "unstable")
                 for r in runs.itertuples()]  # fmt: skip
    return pd.Series(sustained, index=runs.index, dtype=bool).reindex(points.index, fill_value=False)


def zero_load_table(points: pd.DataFrame, runs: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: BookSim2's zero-load packet latency, ours (mean, half-width), the model's formula on our
    own sampled hops, and the relative difference ``diff`` (ours / BookSim2 - 1)."""
    check_frame("points", points, ["config", "load", "mode", "latency_mean", "latency_ci"])
    check_frame("runs", runs, ["config", "load", "t0_formula"])
    check_frame("summary", summary, ["config", "zero_load_packet_latency"])
    zero = points[(points.load == round(ZERO_LOAD, 6)) & (points["mode"] == "latency")]
    formula = runs[runs.load == ZERO_LOAD].groupby("config").t0_formula.mean().rename("formula")
    ref = summary.set_index("config").zero_load_packet_latency.rename("bs_latency")
    table = zero.set_index("config")[["latency_mean", "latency_ci"]].join(formula).join(ref, how="left")
    table["diff"] = table.latency_mean / table.bs_latency - 1
    return table.reset_index()


def saturation_comparison(points: pd.DataFrame, summary: pd.DataFrame, *, latency_cap: float,
                          accept_ratio: float) -> pd.DataFrame:  # fmt: skip
    """Per configuration: the highest stable offered load of the grid (ours: the saturation load of
    :func:`torus_lab.sim.saturation.saturation_table` with the criterion of :func:`stability`; BookSim2's from its
    summary), and the accepted rate at offered 1.0 (ours: mean and half-width), with differences."""
    check_frame("points", points, ["config", "mode", "accepted_mean", "accepted_ci"])
    check_frame("summary", summary, ["config", "max_stable_offered", "overload_accepted_at_offered_1"])
    knees = saturation_table(_as_runs(points), ["config"], _criterion(latency_cap, accept_ratio)).set_index(
        "config").saturation_load  # fmt: skip
    ref = summary.set_index("config")
    rows = []
    for name, part in points.groupby("config", sort=False):
        over = part[part["mode"] == "throughput"]
        rows.append({
            "config": name,
            "max_stable": float(knees.get(name, math.nan)),
            "bs_max_stable": float(ref.loc[name, "max_stable_offered"]),
            "accepted_at_1": float(over.accepted_mean.iloc[0]) if len(over) else math.nan,
            "accepted_at_1_ci": float(over.accepted_ci.iloc[0]) if len(over) else math.nan,
            "bs_accepted_at_1": float(ref.loc[name, "overload_accepted_at_offered_1"]),
        })  # fmt: skip
    out = pd.DataFrame(rows)
    out["max_stable_diff"] = out.max_stable - out.bs_max_stable
    out["accepted_at_1_diff"] = out.accepted_at_1 - out.bs_accepted_at_1
    return out


def check_params(params: Mapping[str, Any]) -> None:
    """Rules the schema cannot express: configuration names are unique; each run-length block holds only
    :class:`~torus_lab.sim.SimConfig` run-length fields; the overload point runs fixed windows (at offered 1.0 every
    source queue fills by design, which adaptive run-length control would abort as unstable).

    >>> check_params({"configs": [{"name": "a"}], "run_length": {}, "zero_load_run_length": {},
    ...               "overload_run_length": {"run_control": "adaptive"}})
    Traceback (most recent call last):
    ...
    ValueError: params['overload_run_length']: run_control must be 'fixed' at offered 1.0 (every source queue \
overflows there by design), got 'adaptive'
    """
    check_mapping("params", params, ["configs", *RUN_LENGTHS])
    configs = check_sequence("params['configs']", params["configs"])
    names = [check_mapping(f"configs[{i}]", c, ["name"])["name"] for i, c in enumerate(configs)]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"configs: name(s) {duplicated} appear more than once")
    for key in RUN_LENGTHS:
        with naming(f"params[{key!r}]"):
            SimConfig.preset("booksim", **check_mapping(key, params[key], []))
    control = params["overload_run_length"].get("run_control", "fixed")
    if control != "fixed":
        raise ValueError(f"params['overload_run_length']: run_control must be 'fixed' at offered {OVERLOAD} (every "
                         f"source queue overflows there by design), got {control!r}")


def run(params: Mapping[str, Any], root: str | Path) -> dict[str, pd.DataFrame]:
    """Every table of the notebook from the parameters of ``experiments/booksim_validation.yaml``; ``root`` is
    the folder the parameter ``reference`` is relative to (the project root).

    Keys (CSV stems): ``runs`` (one row per simulation), ``points`` (:func:`point_table`), ``zero_load``
    (:func:`zero_load_table`), ``saturation`` (:func:`saturation_comparison`), ``claims`` (last, from those tables
    by :func:`torus_lab.studies.booksim_validation_claims.claims`).
    """
    p = check_mapping("params", params, ["seed", "reference", "configs", "seeds", "loads_per_config", *RUN_LENGTHS,
                                         "latency_cap", "accept_ratio", "tolerances"])
    root = Path(check_instance("root", root, (str, Path), "a folder path"))
    check_params(p)
    with naming("root"):
        reference_runs, summary = read_reference(root / p["reference"])
    configs = check_configs(p["configs"], summary)
    items = validation_items(configs, reference_runs, seeds=p["seeds"], run_length=p["run_length"],
                             zero_load_run_length=p["zero_load_run_length"],
                             overload_run_length=p["overload_run_length"], loads_per_config=p["loads_per_config"])
    results = sweep(simulate_point, items, seed=p["seed"], desc="booksim validation")
    runs = pd.DataFrame([{"config": i["config"]["name"], "load": i["load"], "mode": i["mode"],
                          "replica": i["replica"], **r} for i, r in zip(items, results, strict=True)])  # fmt: skip
    runs["seed"] = int(p["seed"])
    points = point_table(runs, reference_runs)
    ref_summary = summary[summary.config.isin([c["name"] for c in configs])]
    saturation = saturation_comparison(points, ref_summary, latency_cap=p["latency_cap"],
                                       accept_ratio=p["accept_ratio"])
    zero = zero_load_table(points, runs, ref_summary)
    tables = {"runs": runs, "points": points, "zero_load": zero, "saturation": saturation}
    return {**tables, "claims": claims(tables, p)}
