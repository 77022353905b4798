"""Figures of ``notebooks/loads.ipynb`` (Azizoglu & Eğecioğlu), drawn from :func:`torus_lab.studies.loads.run`.

Each ``fig_<name>(results, params)`` takes the study's results (DataFrames keyed by CSV stem) and the preset's
parameters and returns a matplotlib figure; the notebook saves it as ``figures/loads/<name>.{png,svg}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from torus_lab._validate import check_mapping, check_results
from torus_lab.plotting import PALETTE, apply_style, new_figure

__all__ = ["fig_emax_vs_k", "fig_emax_per_processor", "fig_odr_constant", "fig_heatmap_2d", "fig_heatmap_3d"]

#: How a processor is marked on a heat map: white with a black edge, visible on every colour of the map.
PROCESSOR_MARK = {"marker": "o", "s": 30, "facecolors": "white", "edgecolors": "black", "linewidths": 1.0, "zorder": 3}
#: One colour per routing.
COLORS = {"odr": PALETTE[0], "udr": PALETTE[1], "shortest": PALETTE[2]}


def _dimension_title(d: int) -> str:
    """A panel's title: the tori it shows in words."""
    return f"{int(d)}-dimensional tori (d = {int(d)})"


def _panels(summary: pd.DataFrame):
    dims = sorted(summary["d"].unique())
    ncols = min(2, len(dims))
    fig, axes = new_figure((len(dims) + ncols - 1) // ncols, ncols, squeeze=False)
    return dims, fig, axes


def _log_k_axes(ax, part: pd.DataFrame) -> None:
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(sorted(part["k"].unique())[:: max(1, part["k"].nunique() // 6)])


def _legend_below(fig: Figure, axes, dims) -> None:
    handles, labels = axes[0][0].get_legend_handles_labels()
    for ax in list(axes.flat)[len(dims) :]:
        ax.set_visible(False)
    fig.legend(handles, labels, loc="outside lower center", ncol=5)


def _dimension_panels(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]):
    """Checked inputs and one panel per dimension: ``(dims, fig, axes, [(ax, d, rows of d), ...])``."""
    check_results("results", results, {"loads": ()})
    check_mapping("params", params, ["routings"])
    apply_style()
    summary = results["loads"]
    dims, fig, axes = _panels(summary)
    return dims, fig, axes, [(ax, d, summary[summary["d"] == d]) for ax, d in zip(axes.flat, dims, strict=False)]


def fig_emax_vs_k(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """``E_max`` against ``k`` per dimension (t = 1 solid, t = 2 dashed), with bound (1), the best Lemma 1 cut
    and the paper's ``k^(d-1)/8`` for the linear placement."""
    dims, fig, axes, panels = _dimension_panels(results, params)
    for ax, d, part in panels:
        for routing in params["routings"]:
            for t, style in [(1, "-"), (2, "--")]:
                line = part[(part["routing"] == routing) & (part["t"] == t)].sort_values("k")
                if not line.empty:
                    ax.plot(line["k"], line["e_max"], style, marker="o", ms=3, color=COLORS[routing],
                            label=f"{routing.upper()} t={t}")  # fmt: skip
        lin = part[(part["placement"] == "linear") & (part["routing"] == "odr")].sort_values("k")
        ax.plot(lin["k"], lin["lb_single"], ":", color="grey", label="bound (1), t=1")
        ax.plot(lin["k"], lin["lb_cut"], "-.", color="grey", label="Lemma 1 cut, t=1")
        ax.plot(lin["k"], lin["claimed_bound"], "x", color="black", label="paper: k^(d-1)/8")
        ax.set(xscale="log", yscale="log", xlabel="k", ylabel="E_max (messages per link)", title=_dimension_title(d))
        _log_k_axes(ax, part)
    _legend_below(fig, axes, dims)
    return fig


def fig_emax_per_processor(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """``E_max / |P|`` against ``k`` per dimension, every ``t`` and the fully populated torus for contrast."""
    dims, fig, axes, panels = _dimension_panels(results, params)
    for ax, d, part in panels:
        for routing in params["routings"]:
            for (placement, t), line in part[part["routing"] == routing].groupby(["placement", "t"]):
                if placement == "full":
                    continue
                line = line.sort_values("k")
                ax.plot(line["k"], line["e_max"] / line["processors"], marker="o", ms=3, color=COLORS[routing],
                        alpha=1.0 if t == 1 else 0.5, ls=["-", "--", ":"][min(t, 3) - 1],
                        label=f"{routing.upper()} t={t}")  # fmt: skip
            full = part[(part["routing"] == routing) & (part["placement"] == "full")].sort_values("k")
            if not full.empty:
                ax.plot(full["k"], full["e_max"] / full["processors"], marker="s", ms=4, color=COLORS[routing],
                        ls="-.", label=f"{routing.upper()} full torus")  # fmt: skip
        ax.set(xscale="log", yscale="log", xlabel="k", ylabel="E_max / |P|", title=_dimension_title(d))
        _log_k_axes(ax, part)
    _legend_below(fig, axes, dims)
    return fig


def fig_odr_constant(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """Linear placement: ODR ``E_max`` and mean link load over ``k^(d-1)`` (``odr_constant`` table), UDR
    ``E_max`` over ``k^(d-1)``, per dimension and parity of ``k``, against the paper's 1/8."""
    check_results("results", results, {"loads": (), "odr_constant": ()})
    check_mapping("params", params, [])
    apply_style()
    odr_lin = results["odr_constant"]
    summary = results["loads"]
    udr_lin = summary[(summary["routing"] == "udr") & (summary["placement"] == "linear")]
    dims = sorted(summary["d"].unique())
    fig, ax = new_figure(figsize=(7.5, 4.6))
    for i, d in enumerate(dims):
        for parity, ls, face in [(0, "-", PALETTE[i]), (1, ":", "white")]:
            tag = "even k" if parity == 0 else "odd k"
            line = odr_lin[(odr_lin["d"] == d) & (odr_lin["k"] % 2 == parity)].sort_values("k")
            ax.plot(line["k"], line["e_max/k^(d-1)"], marker="o", ms=4, ls=ls, color=PALETTE[i], mfc=face,
                    label=f"ODR E_max, d={d}, {tag}")  # fmt: skip
            ax.plot(line["k"], line["e_mean/k^(d-1)"], marker=".", ls=ls, color=PALETTE[i], alpha=0.6,
                    label=f"ODR mean load, d={d}, {tag}")  # fmt: skip
            uline = udr_lin[(udr_lin["d"] == d) & (udr_lin["k"] % 2 == parity)].sort_values("k")
            ax.plot(uline["k"], uline["e_max"] / uline["k"] ** (d - 1), marker="^", ms=4, ls=ls, color=PALETTE[i],
                    mfc=face, alpha=0.8, label=f"UDR E_max, d={d}, {tag}")  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.axhline(1 / 8, color="black", lw=1.4, ls="--", zorder=0, label="paper: E_max = k^(d-1)/8")
    ax.set(xlabel="k", ylabel="load / k^(d-1)",
           title="Linear placement: largest and mean link load, divided by k^(d-1)")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    return fig


def fig_heatmap_2d(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """Load of every directed link of ``T_2^k`` (``k = heatmap_k_2d``) under the linear placement: one panel per
    (dimension, sign), one row per routing; processors (link sources in the placement) marked white with a black
    edge (``PROCESSOR_MARK``), every node ticked."""
    check_results("results", results, {"heatmap_2d": ()})
    check_mapping("params", params, ["heatmap_k_2d", "routings"])
    apply_style()
    frame = results["heatmap_2d"]
    k = int(params["heatmap_k_2d"])
    routings = params["routings"]
    fig, axes = new_figure(len(routings), 4, squeeze=False, figsize=(13, 3.2 * len(routings)))
    vmax = frame["load"].max()
    procs = frame[frame["processor"]][["x0", "x1"]].drop_duplicates().to_numpy()
    image = None
    for row, routing in enumerate(routings):
        loads = frame[frame["routing"] == routing]
        for col, (dim, sign) in enumerate([(0, -1), (0, 1), (1, -1), (1, 1)]):
            part = loads[(loads["dim"] == dim) & (loads["sign"] == sign)]
            grid = np.zeros((k, k))
            grid[part["x1"], part["x0"]] = part["load"]
            ax = axes[row][col]
            image = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=vmax)
            ax.scatter(procs[:, 0], procs[:, 1], **PROCESSOR_MARK)
            ax.set(title=f"{routing.upper()}: links going {'+' if sign > 0 else '-'}x{dim}", xlabel="x0 (link source)",
                   ylabel="x1")
            ax.set_xticks(range(k))
            ax.set_yticks(range(k))
            ax.grid(False)
    fig.colorbar(image, ax=axes, shrink=0.6, label="load E(l)")
    return fig


def fig_heatmap_3d(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """``T_3^k`` (``k = heatmap_k_3d``), linear placement: the load as a (dimension, sign) x class ``r`` map, one
    panel per routing."""
    check_results("results", results, {"heatmap_3d": ()})
    check_mapping("params", params, ["heatmap_k_3d", "routings"])
    apply_style()
    frame = results["heatmap_3d"]
    k = int(params["heatmap_k_3d"])
    routings = params["routings"]
    fig, axes = new_figure(1, len(routings), squeeze=False, figsize=(5.6 * len(routings), 3.4))
    for ax, routing in zip(axes[0], routings, strict=True):
        grid = frame[frame["routing"] == routing].pivot_table(index=["dim", "sign"], columns="residue",
                                                              values="load", aggfunc="max")  # fmt: skip
        image = ax.imshow(grid.values, cmap="viridis", aspect="auto")
        ax.set_yticks(range(len(grid.index)), [f"links going {'+' if s > 0 else '-'}x{d}" for d, s in grid.index])
        ax.set_xticks(range(k))
        ax.set(xlabel="class r = x0+x1+x2 mod k of the link's source",
               title=f"{routing.upper()}, {k}x{k}x{k} torus")
        ax.grid(False)
        fig.colorbar(image, ax=ax, label="load")
    return fig
