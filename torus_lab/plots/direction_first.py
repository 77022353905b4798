"""Figures of the direction-first e-cube study (:mod:`torus_lab.studies.direction_first`).

Each ``fig_*`` function takes the tables of :func:`torus_lab.studies.direction_first.run` and the experiment
parameters and returns a Matplotlib figure (the notebook saves and shows it with ``run.show``).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import pandas as pd
>>> summary = pd.DataFrame({"misroute": ["y"] * 2, "nodes": [16, 32], "faults": [0, 0],
...     **{f"{m}_{s}": [1.0, 2.0] for m in ("latency", "hops", "extra_hops") for s in ("mean", "ci")}})
>>> params = {"policies": ["y"], "long_warmup": 10, "long_measure": 20}
>>> fig = fig_fig4_paper({"fig4_paper_summary": summary}, params, "y")
>>> len(fig.axes)
3
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from torus_lab._validate import check_mapping, check_results
from torus_lab.plotting import apply_style, color_cycle, latency_load_figure, new_figure

__all__ = ["fig_fig4_paper", "fig_fig4_long", "fig_latency_vs_load"]

#: Panels of the Fig. 4 figures: (metric, y label, panel title).
_METRICS = [("latency", "latency (steps)", "(a) latency"), ("hops", "hops", "(b) hops"),
            ("extra_hops", "extra hops", "(c) extra hops (hops above the fault-free distance)")]


#: The fault policies in words (``docs/conventions.md#df-faults``), for titles.
POLICY_WORDS = {"y": "a blocked message misroutes one hop along y (the paper's rule)",
                "detour": "a blocked message detours through any fault-free dimension (ours)",
                "none": "no misrouting"}


def _fig4(summary: pd.DataFrame, policy: str, params: Mapping[str, Any], title: str):
    if policy not in params["policies"]:
        raise ValueError(f"policy {policy!r} is not one of the study's policies {params['policies']}")
    apply_style()
    summary = summary[summary.misroute == policy]
    fig, axes = new_figure(1, 3, figsize=(15, 5.0))
    colors = color_cycle(len(summary.faults.unique()))
    for ax, (metric, label, panel_title) in zip(axes, _METRICS, strict=True):
        for color, (faults, group) in zip(colors, summary.groupby("faults"), strict=True):
            ax.errorbar(group.nodes, group[f"{metric}_mean"], yerr=group[f"{metric}_ci"].fillna(0), marker="o",
                        ms=3, capsize=2, color=color, label=f"{faults}")  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set(xlabel="nodes (hypercube)", ylabel=label, title=panel_title)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside right center", title="faulty links")
    fig.suptitle(f"{title}\n{POLICY_WORDS.get(policy, f'fault policy {policy}')}")
    return fig


def fig_fig4_paper(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any], policy: str):
    """Fig. 4 set-up (30 injection steps, then drain): latency, hops, extra hops vs nodes per fault count."""
    check_results("results", results, {"fig4_paper_summary": ()})
    check_mapping("params", params, ["policies"])
    return _fig4(results["fig4_paper_summary"], policy, params,
                 "Fig. 4 as the paper ran it: faulty hypercubes, injection at p = 0.2 for 30 steps, then drain "
                 "(95% CI over seeds)")  # fmt: skip


def fig_fig4_long(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any], policy: str):
    """The Fig. 4 question with long runs (continuous injection), one fault policy."""
    check_results("results", results, {"fig4_long_summary": ()})
    check_mapping("params", params, ["long_measure", "long_warmup", "policies"])
    return _fig4(results["fig4_long_summary"], policy, params,
                 f"The Fig. 4 question with long runs: faulty hypercubes, warm-up {params['long_warmup']}, "
                 f"{params['long_measure']} measured steps (95% CI over seeds)")  # fmt: skip


def fig_latency_vs_load(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]):
    """Mean packet latency vs offered load (95% t-interval over seeds as a band, ``load_curve_summary``), one
    panel per network, one line per routing (:func:`torus_lab.plotting.latency_load_figure`; the table's
    ``mean_latency_ci`` half-width gives the ``_low``/``_high`` bounds); each curve stops at its saturation load
    (``saturation`` table), ringed."""
    check_results("results", results, {"load_curve_summary": (),
                                       "saturation": ("network", "algorithm", "saturation_load")})
    check_mapping("params", params, ["curve_routings"])
    summary = results["load_curve_summary"]
    half = summary.mean_latency_ci
    frame = summary.assign(mean_latency_low=summary.mean_latency_mean - half,
                           mean_latency_high=summary.mean_latency_mean + half)
    labels = [entry["label"] for entry in params["curve_routings"]]
    return latency_load_figure(frame, hue="algorithm", col="network", log_y=True,
                               hue_order=[label for label in labels if label in set(frame.algorithm)],
                               metrics=[("mean_latency", "Latency", "mean packet latency (cycles)")],
                               saturation=results["saturation"])
