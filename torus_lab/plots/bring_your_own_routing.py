"""Figures of ``notebooks/bring_your_own_routing.ipynb`` (results of
:func:`torus_lab.studies.bring_your_own_routing.run`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from torus_lab._validate import check_mapping, check_results
from torus_lab.plotting import apply_style, draw_torus_2d, new_figure
from torus_lab.studies.bring_your_own_routing import witness_channels
from torus_lab.topology import Torus

__all__ = ["fig_cdg_witness_cycle", "fig_latency_load"]

Results = Mapping[str, pd.DataFrame]


def fig_cdg_witness_cycle(results: Results, params: Mapping[str, Any]):
    """The witness cycle of the plain CDG drawn on ``Torus(2, cdg_radix)``."""
    check_results("results", results, {"cdg_check": ()})
    check_mapping("params", params, ["cdg_radix"])
    apply_style()
    check = results["cdg_check"]
    radix = params["cdg_radix"]
    fig, ax = new_figure()
    draw_torus_2d(ax, Torus(2, radix), cycle=witness_channels(check),
                  title=f"Witness cycle of the plain CDG ({int(check.cycle_length.iloc[0])} VCs), Torus(2, {radix})")
    return fig


def fig_latency_load(results: Results, params: Mapping[str, Any]):
    """Mean latency and accepted throughput against offered load, per routing, with 95% intervals."""
    check_results("results", results, {"latency_load": ()})
    check_mapping("params", params, [])
    apply_style()
    curves = results["latency_load"]
    fig, axes = new_figure(1, 2)
    for name, group in curves.groupby("routing"):
        x = group.offered_load
        axes[0].errorbar(x, group.mean_latency_mean, yerr=group.mean_latency_high - group.mean_latency_mean,
                         marker="o", capsize=3, label=name)
        axes[1].errorbar(x, group.accepted_throughput_mean, capsize=3, marker="o", label=name,
                         yerr=group.accepted_throughput_high - group.accepted_throughput_mean)
    axes[0].set(xlabel="offered load (flits/node/cycle)", ylabel="mean latency (cycles)", title="Latency")
    axes[1].set(xlabel="offered load (flits/node/cycle)", ylabel="accepted (flits/node/cycle)", title="Throughput")
    axes[0].legend()
    return fig
