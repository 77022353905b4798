"""The claims of the BookSim2 validation, from the study's tables.

The one entry point is :func:`claims` (the tables :func:`torus_lab.studies.booksim_validation.run` assembled and
the experiment's parameters -> the claims table, :func:`torus_lab.claims.claims_table`): per configuration, four
checks against BookSim2's own runs, each an ``at_most`` rule (:class:`torus_lab.claims.Rule`) on the absolute
difference, with the tolerances of the parameters.  :func:`run_conditions` words what one configuration's runs
assumed (the claims' ``conditions``); :data:`ZERO_LOAD` and :data:`OVERLOAD` are the reference's two special
offered loads, which the study simulates and these conditions name.

Examples
--------
>>> claims({"points": None}, {})
Traceback (most recent call last):
...
ValueError: tables lacks the key(s) 'zero_load', 'saturation'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from torus_lab._validate import check_frame, check_mapping, check_sequence
from torus_lab.claims import Claim, Rule, claims_table, data_file

__all__ = ["claims", "run_conditions", "ZERO_LOAD", "OVERLOAD", "RUN_LENGTHS"]

#: BookSim2's zero-load point of the reference runs, flits/node/cycle.
ZERO_LOAD = 0.001
#: BookSim2's overload (throughput-mode) point of the reference runs, flits/node/cycle.
OVERLOAD = 1.0
#: The parameters' SimConfig run-length blocks (main sweep, zero-load point, overload point).
RUN_LENGTHS = ("run_length", "zero_load_run_length", "overload_run_length")


def run_conditions(config: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    """What the runs of one configuration assumed, in words (the ``conditions`` of its claims).

    >>> run_conditions({"name": "c", "router": {}, "channel_latency": 2}, {"seeds": 2, "run_length": {"measure": 9},
    ...                 "zero_load_run_length": {"measure": 90}, "overload_run_length": {"measure": 8}})
    "c: booksim preset, channel latency 2, 2 replicas, run length {'measure': 9} (offered 0.001: {'measure': 90}; \
offered 1.0: {'measure': 8})"
    """
    check_mapping("config", config, ["name", "router", "channel_latency"])
    check_mapping("config['router']", config["router"], [])
    check_mapping("params", params, ["seeds", *RUN_LENGTHS])
    router = ", ".join(f"{k}={v}" for k, v in config["router"].items())
    text = (f"{config['name']}: booksim preset{', ' + router if router else ''}, channel latency "
            f"{config['channel_latency']}, {params['seeds']} replicas, run length {dict(params['run_length'])} "
            f"(offered {ZERO_LOAD}: {dict(params['zero_load_run_length'])}; offered {OVERLOAD}: "
            f"{dict(params['overload_run_length'])})")  # fmt: skip
    text += f"; routing {config['routing']}" if config.get("routing") else ""
    return text + (f"; not modelled: {config['not_modelled']}" if config.get("not_modelled") else "")


def _below_knee(points: pd.DataFrame, saturation: pd.DataFrame, below_fraction: float) -> pd.DataFrame:
    knee = saturation.set_index("config").bs_max_stable
    limit = points.config.map(knee) * below_fraction + 1e-9
    return points[(points["mode"] == "latency") & (points.load > ZERO_LOAD) & (points.load <= limit)]


#: Where every claim's reference comes from (the claims' ``location``).
_WHERE = ("BookSim2 reference runs (reference/booksim2), the acceptance rule of "
          "docs/conventions.md#sim-booksim-validation")
_EVIDENCE = {key: (data_file("booksim_validation", f"{key}.csv"),) for key in ("points", "zero_load", "saturation")}


def _config_claims(name: str, zero: pd.Series, saturation: pd.Series, below: pd.DataFrame,
                   tol: Mapping[str, float], conditions: str) -> list[Claim]:  # fmt: skip
    """The four checks of one configuration: zero-load latency (relative), the largest relative latency difference
    at loads up to ``below_fraction`` of BookSim2's highest stable load, the highest stable load and the accepted
    rate at offered 1.0 (flit/node/cycle), each an ``at_most`` rule on the absolute difference from BookSim2."""
    z, s = zero, saturation
    part = below[below.config == name]
    worst = float(part.latency_diff.abs().max()) if len(part) else math.nan
    common = dict(location=_WHERE, conditions=conditions)
    return [
        Claim(claim_id=f"{name}_zero_load", statement=f"{name}: zero-load latency (offered {ZERO_LOAD}) within "
              f"{tol['zero_load_rel']:.0%} of BookSim2's", paper_value=float(z.bs_latency),
              paper_text=f"BookSim2 {z.bs_latency:.2f} cycles", measured_value=abs(float(z["diff"])),
              measured_text=f"{z.latency_mean:.2f} +- {z.latency_ci:.2f} cycles ({z['diff']:+.2%})",
              rule=Rule("at_most", {"bound": tol["zero_load_rel"]}), evidence=_EVIDENCE["zero_load"], **common),
        Claim(claim_id=f"{name}_latency", statement=f"{name}: mean packet latency within "
              f"{tol['latency_rel']:.0%} of BookSim2's at every offered load up to "
              f"{tol['below_fraction']:.0%} of BookSim2's highest stable load",
              paper_text=f"BookSim2 at {len(part)} loads", measured_value=worst,
              measured_text=f"largest |relative difference| {worst:.2%} over {len(part)} loads",
              rule=Rule("at_most", {"bound": tol["latency_rel"]}), evidence=_EVIDENCE["points"], **common),
        Claim(claim_id=f"{name}_max_stable", statement=f"{name}: highest stable offered load within "
              f"{tol['saturation_abs']} flit/node/cycle of BookSim2's", paper_value=float(s.bs_max_stable),
              paper_text=f"BookSim2 {s.bs_max_stable:.2f}", measured_value=round(abs(float(s.max_stable_diff)), 9),
              measured_text=f"{s.max_stable:.2f} ({s.max_stable_diff:+.3f})",
              rule=Rule("at_most", {"bound": tol["saturation_abs"]}), evidence=_EVIDENCE["saturation"], **common),
        Claim(claim_id=f"{name}_accepted_at_1", statement=f"{name}: accepted rate at offered 1.0 within "
              f"{tol['saturation_abs']} flit/node/cycle of BookSim2's", paper_value=float(s.bs_accepted_at_1),
              paper_text=f"BookSim2 {s.bs_accepted_at_1:.4f}", measured_value=abs(float(s.accepted_at_1_diff)),
              measured_text=f"{s.accepted_at_1:.4f} +- {s.accepted_at_1_ci:.4f} ({s.accepted_at_1_diff:+.4f})",
              rule=Rule("at_most", {"bound": tol["saturation_abs"]}), evidence=_EVIDENCE["saturation"], **common),
    ]  # fmt: skip


def claims(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    """The claims table of the validation from the study's tables (keys of
    :func:`torus_lab.studies.booksim_validation.run`).

    ``points``, ``zero_load`` and ``saturation`` are required; per configuration of ``saturation``, in its order,
    four checks (``_config_claims``) with the ``tolerances`` of ``params``; each claim's conditions are what its
    configuration's runs assumed (:func:`run_conditions` of the matching record of ``params["configs"]``).

    Parameters
    ----------
    tables : Mapping[str, pandas.DataFrame]
        The study's result tables as ``run`` assembled them.
    params : Mapping[str, Any]
        The experiment's parameters: ``tolerances`` (``zero_load_rel``, ``latency_rel``, ``saturation_abs``,
        ``below_fraction``), ``configs``, ``seeds`` and the run-length blocks (:data:`RUN_LENGTHS`).

    Returns
    -------
    pandas.DataFrame
        One row per claim, columns :data:`torus_lab.claims.CLAIM_COLUMNS`.

    Examples
    --------
    >>> points = pd.DataFrame({"config": "c", "load": [0.001, 0.1], "mode": "latency", "latency_diff": [0.0, 0.01]})
    >>> zero = pd.DataFrame({"config": ["c"], "bs_latency": [30.0], "latency_mean": [30.0], "latency_ci": [0.1],
    ...                      "diff": [0.0]})
    >>> saturation = pd.DataFrame({"config": ["c"], "bs_max_stable": [0.3], "max_stable": [0.3],
    ...                            "max_stable_diff": [0.0], "bs_accepted_at_1": [0.2], "accepted_at_1": [0.2],
    ...                            "accepted_at_1_ci": [0.001], "accepted_at_1_diff": [0.0]})
    >>> params = {"tolerances": {"zero_load_rel": 0.02, "latency_rel": 0.05, "saturation_abs": 0.02,
    ...                          "below_fraction": 0.8}, "seeds": 1, "run_length": {}, "zero_load_run_length": {},
    ...           "overload_run_length": {}, "configs": [{"name": "c", "router": {}, "channel_latency": 1}]}
    >>> claims({"points": points, "zero_load": zero, "saturation": saturation}, params).verdict.tolist()
    ['holds', 'holds', 'holds', 'holds']
    """
    check_mapping("tables", tables, ["points", "zero_load", "saturation"])
    check_mapping("params", params, ["tolerances", "configs", "seeds", *RUN_LENGTHS])
    points = check_frame("points", tables["points"], ["config", "load", "mode", "latency_diff"])
    zero = check_frame("zero_load", tables["zero_load"], ["config", "bs_latency", "latency_mean", "latency_ci",
                                                          "diff"])  # fmt: skip
    saturation = check_frame("saturation", tables["saturation"], [
        "config", "bs_max_stable", "max_stable", "max_stable_diff", "bs_accepted_at_1", "accepted_at_1",
        "accepted_at_1_ci", "accepted_at_1_diff"])  # fmt: skip
    tol = check_mapping("params['tolerances']", params["tolerances"],
                        ["zero_load_rel", "latency_rel", "saturation_abs", "below_fraction"])  # fmt: skip
    conditions = {c["name"]: run_conditions(c, params) for c in check_sequence("params['configs']", params["configs"])}
    below = _below_knee(points, saturation, tol["below_fraction"])
    zero, by_config = zero.set_index("config"), saturation.set_index("config")
    rows = [claim for name in saturation.config for claim in _config_claims(
        name, zero.loc[name], by_config.loc[name], below, tol, conditions.get(name, name))]  # fmt: skip
    return claims_table("booksim_validation", rows)
