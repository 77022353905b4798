"""Figures of the BookSim2 validation study (:mod:`torus_lab.studies.booksim_validation`).

Each ``fig_*`` function takes the tables of :func:`torus_lab.studies.booksim_validation.run` and the experiment
parameters and returns a Matplotlib figure (the notebook saves and shows it with ``run.show``).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import pandas as pd
>>> points = pd.DataFrame({"config": "c", "load": [0.001, 0.1, 1.0], "mode": ["latency"] * 2 + ["throughput"],
...     "latency_mean": [30.0, 32.0, 900.0], "latency_ci": 1.0, "accepted_mean": [0.001, 0.1, 0.3],
...     "accepted_ci": 0.01, "bs_latency": [31.0, 33.0, 1e4], "bs_accepted": [0.001, 0.1, 0.31],
...     "bs_status": "ok"})
>>> saturation = pd.DataFrame({"config": ["c"], "bs_max_stable": [0.3], "max_stable": [0.3]})
>>> params = {"latency_cap": 500, "tolerances": {"below_fraction": 0.8, "latency_rel": 0.05}}
>>> len(fig_overlay({"points": points, "saturation": saturation}, params, "c").axes)
2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter, ScalarFormatter

from torus_lab._validate import check_mapping, check_results, check_str
from torus_lab.plotting import (
    MARKERS,
    PALETTE,
    SATURATION_LABEL,
    SATURATION_MARK,
    apply_style,
    color_cycle,
    new_figure,
)

__all__ = ["config_words", "fig_overlay", "overlay_figures", "fig_latency_differences"]

_OURS, _THEIRS = "torus_lab (booksim router)", "BookSim2"
#: Line styles of the configurations of the difference figure: solid for the first palette's worth, then dashed.
_LINESTYLES = ("-", "--")


def config_words(config: Mapping[str, Any]) -> str:
    """A configuration of the study (an entry of ``configs``) in words, for titles and legends.

    Examples
    --------
    >>> config_words({"network": "torus", "dims": 2, "radix": 8, "vcs": 2, "packet_length": 1, "router": {}})
    '8x8 torus, 2 VCs, 1-flit packets'
    >>> config_words({"network": "mesh", "dims": 3, "radix": 4, "vcs": 4, "packet_length": 4,
    ...               "router": {"speculative": True}})
    '4x4x4 mesh, 4 VCs, 4-flit packets, minimal router pipeline'
    """
    check_mapping("config", config, ["network", "dims", "radix", "vcs", "packet_length"])
    shape = "x".join([str(int(config["radix"]))] * int(config["dims"]))
    words = f"{shape} {config['network']}, {int(config['vcs'])} VCs, {int(config['packet_length'])}-flit packets"
    return words + (", minimal router pipeline" if config.get("router") else "")


def _config_titles(params: Mapping[str, Any]) -> dict[str, str]:
    """Configuration name -> :func:`config_words` (names without an entry in ``params["configs"]`` stay as they are)."""
    return {str(c["name"]): config_words(c) for c in params.get("configs", ())}


def fig_overlay(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any], config: str):
    """One configuration: latency (left, log scale) and accepted rate (right) against offered load, BookSim2's runs
    (markers; one seed) over ours (line with 95% Student-t intervals over replicas); dotted lines mark BookSim2's
    highest stable load and the limit of the latency comparison (``below_fraction`` of it).  Our latency curve
    stops at our highest stable load (``max_stable`` of ``saturation``), ringed on both panels
    (:data:`torus_lab.plotting.SATURATION_MARK`); the title is the configuration in words (:func:`config_words`)."""
    check_results("results", results, {"points": ["config", "load", "mode"],
                                       "saturation": ["config", "bs_max_stable", "max_stable"]})  # fmt: skip
    check_mapping("params", params, ["latency_cap", "tolerances"])
    check_str("config", config, sorted(set(results["points"].config)))
    apply_style()
    points = results["points"]
    part = points[(points.config == config) & (points["mode"] == "latency")].sort_values("load")
    over = points[(points.config == config) & (points["mode"] == "throughput")]
    row = results["saturation"].set_index("config").loc[config]
    knee, ours_knee = float(row["bs_max_stable"]), float(row["max_stable"])
    limit = knee * params["tolerances"]["below_fraction"]
    ours, theirs = color_cycle(2)
    fig, (ax_lat, ax_acc) = new_figure(1, 2)
    stable = part[part.bs_status == "ok"]
    shown = part[part.load <= ours_knee + 1e-9]
    ax_lat.errorbar(shown.load, shown.latency_mean, yerr=shown.latency_ci.fillna(0), color=ours, marker="o", ms=3,
                    capsize=2, label=_OURS)  # fmt: skip
    ax_lat.plot(stable.load, stable.bs_latency, "s", mfc="none", color=theirs, ms=6, label=f"{_THEIRS} (stable runs)")
    ax_lat.set_yscale("log")
    ax_lat.yaxis.set_major_formatter(ScalarFormatter())
    ax_lat.yaxis.set_minor_formatter(NullFormatter())
    ax_lat.set(xlabel="offered load (flits/node/cycle)", ylabel="mean packet latency (cycles)", title="latency")
    curve = pd.concat([part, over])
    ax_acc.errorbar(curve.load, curve.accepted_mean, yerr=curve.accepted_ci.fillna(0), color=ours, marker="o", ms=3,
                    capsize=2, label=_OURS)  # fmt: skip
    ax_acc.plot(curve.load, curve.bs_accepted, "s", mfc="none", color=theirs, ms=6, label=_THEIRS)
    ax_acc.plot([0, 1], [0, 1], color="0.7", lw=0.8, zorder=0, label="accepted = offered")
    ax_acc.set(xlabel="offered load (flits/node/cycle)", ylabel="accepted rate (flits/node/cycle)",
               title="accepted rate (offered 1.0: throughput mode)", ylim=(0, max(1.05 * curve.accepted_mean.max(),
                                                                                   1.05 * knee)))  # fmt: skip
    at_knee = part[np.isclose(part.load, ours_knee)]
    if len(at_knee) and (part.load > ours_knee + 1e-9).any():  # saturated inside the sweep: ring the last point
        ax_lat.scatter(at_knee.load, at_knee.latency_mean, **SATURATION_MARK, label=f"our {SATURATION_LABEL}")
        ax_acc.scatter(at_knee.load, at_knee.accepted_mean, **SATURATION_MARK, label=f"our {SATURATION_LABEL}")
    for ax in (ax_lat, ax_acc):
        ax.axvline(knee, color=theirs, ls=":", lw=1, label=f"{_THEIRS} highest stable load")
        ax.axvline(limit, color="0.5", ls="--", lw=0.8, label=f"{params['tolerances']['below_fraction']:.0%} of it")
    ax_lat.legend(loc="upper left", fontsize="small")
    ax_acc.legend(loc="lower right", fontsize="small")
    fig.suptitle(_config_titles(params).get(config, config) + ": dimension-order routing, uniform traffic")
    return fig


def overlay_figures(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`fig_overlay` of every configuration, keyed ``overlay_<configuration>`` (file stems)."""
    check_results("results", results, {"saturation": ["config"]})
    return {f"overlay_{name}": fig_overlay(results, params, name) for name in results["saturation"].config}


def fig_latency_differences(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]):
    """Relative latency difference (ours / BookSim2 - 1, with our 95% interval) at every offered load up to
    ``below_fraction`` of BookSim2's highest stable load, one line per configuration; the band is the tolerance."""
    check_results("results", results, {"points": ["config", "load", "mode", "latency_diff"],
                                       "saturation": ["config", "bs_max_stable"]})  # fmt: skip
    check_mapping("params", params, ["tolerances"])
    apply_style()
    tol = params["tolerances"]
    points = results["points"]
    knee = points.config.map(results["saturation"].set_index("config").bs_max_stable)
    below = points[(points["mode"] == "latency") & (points.load <= knee * tol["below_fraction"] + 1e-9)]
    configs = list(dict.fromkeys(below.config))
    titles = _config_titles(params)
    fig, ax = new_figure(1, 1, figsize=(9, 6.5))
    for i, (color, name) in enumerate(zip(color_cycle(len(configs)), configs, strict=True)):
        part = below[below.config == name].sort_values("load")
        relative_ci = part.latency_ci.fillna(0) / part.bs_latency
        ax.errorbar(part.load / knee[part.index], 100 * part.latency_diff, yerr=100 * relative_ci, color=color,
                    marker=MARKERS[i % len(MARKERS)], ms=3, capsize=2, ls=_LINESTYLES[i // len(PALETTE) % 2],
                    label=titles.get(name, name))  # fmt: skip
    ax.axhspan(-100 * tol["latency_rel"], 100 * tol["latency_rel"], color="0.9", zorder=0,
               label=f"tolerance +-{tol['latency_rel']:.0%}")  # fmt: skip
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set(xlabel="offered load / BookSim2's highest stable load", ylabel="latency difference (%)",
           title="Latency: torus_lab's booksim router against BookSim2 (95% CI over replicas)")  # fmt: skip
    ax.legend(fontsize="small", ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    ax.set_xlim(0, max(1.0, float(np.nanmax((below.load / knee[below.index]).to_numpy())) + 0.05))
    return fig
