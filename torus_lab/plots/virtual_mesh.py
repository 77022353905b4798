"""Figures of ``notebooks/virtual_mesh.ipynb``: ``fig_<name>(results, params)`` for the results of
:func:`torus_lab.studies.virtual_mesh.run`, and the two drawing helpers :func:`draw_virtual_mesh` and
:func:`draw_cdg_cycle`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from torus_lab._validate import check_instance, check_int, check_mapping, check_results, check_sequence, check_str
from torus_lab.plotting import MARKERS, PALETTE, apply_style, draw_torus_2d, grid_axes, new_figure
from torus_lab.studies import virtual_mesh as study
from torus_lab.topology import Torus

__all__ = ["draw_virtual_mesh", "draw_cdg_cycle", "fig_vc_counts", "fig_virtual_mesh", "fig_cdg_witness_cycles",
           "fig_adaptivity", "fig_latency_vs_load"]

Results = Mapping[str, pd.DataFrame]


def draw_virtual_mesh(ax, topology, combos: Mapping[int, tuple[int, ...]], vc_names: Sequence[str], *,
                      title: str | None = None):
    """Draw a 2D torus with every channel coloured by the set of VCs it carries (the virtual mesh).

    ``combos``: channel -> indices of its VCs (:func:`torus_lab.studies.virtual_mesh.vc_combos`); ``vc_names``:
    legend names of the VCs.  Each direction of a link is drawn offset to its right; wraparound channels are
    stubs at the border.
    """
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

    check_instance("ax", ax, Axes, "a matplotlib Axes")
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    check_mapping("combos", combos)
    for channel, vcs in combos.items():
        check_int("combos", channel, 0, topology.num_channels - 1)
        check_sequence("combos", vcs)
    vc_names = [check_str("vc_names", name) for name in check_sequence("vc_names", vc_names)]
    if title is not None:
        check_str("title", title)
    topo = topology
    kinds = sorted(set(combos.values()), key=lambda c: (len(c), c))
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(kinds)}
    names = list(vc_names)
    for cid in range(topo.num_channels):
        combo = combos.get(cid)
        if not combo:
            continue
        x0, y0 = topo.coords(int(topo.channel_src[cid]))
        dim, sign = int(topo.channel_dim[cid]), int(topo.channel_sign[cid])
        L = 0.42 if topo.is_wraparound(cid) else 1.0
        dx, dy = (sign * L, 0.0) if dim == 0 else (0.0, sign * L)
        off = 0.1
        ox, oy = (dy / L * off, -dx / L * off) if L else (0, 0)
        ax.annotate("", xy=(x0 + dx * 0.88 + ox, y0 + dy * 0.88 + oy), xytext=(x0 + ox, y0 + oy),
                    arrowprops={"arrowstyle": "-|>", "color": colour[combo], "lw": 1.0 + 0.8 * len(combo),
                                "shrinkA": 0, "shrinkB": 0})
    coords = topo.all_coords()
    ax.scatter(coords[:, 0], coords[:, 1], s=14, color="0.3", zorder=3)
    handles = [Line2D([0], [0], color=colour[c], lw=1.0 + 0.8 * len(c), label="+".join(names[v] for v in c))
               for c in kinds]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="VCs used")
    grid_axes(ax, topo.radices, title=title, margin=0.7, labels=("x (dimension 0)", "y (dimension 1)"),
              title_size=9)
    plt.setp(ax.get_xticklabels(), fontsize=7)
    return ax


def draw_cdg_cycle(ax, topology, cycle: Sequence[tuple[int, int]] | None, *, title: str | None = None):
    """Draw a CDG witness cycle on the 2D torus ``topology``: thick arrows labelled with their position and VC."""
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if cycle is not None:
        cycle = [tuple(check_int("cycle", x, minimum=0) for x in check_sequence("cycle", v, min_length=2))[:2]
                 for v in check_sequence("cycle", cycle)]  # fmt: skip
        if any(cid >= topology.num_channels for cid, _ in cycle):
            raise ValueError(f"cycle holds a channel id outside 0..{topology.num_channels - 1}")
    topo = topology
    draw_torus_2d(ax, topo, title=title)
    if not cycle:
        ax.text(0.5, 0.5, "acyclic", transform=ax.transAxes, ha="center", va="center", fontsize=14,
                color=PALETTE[2])
        return ax
    for i, (cid, vc) in enumerate(cycle):
        x0, y0 = topo.coords(int(topo.channel_src[cid]))
        dim, sign = int(topo.channel_dim[cid]), int(topo.channel_sign[cid])
        L = 0.45 if topo.is_wraparound(int(cid)) else 1.0
        dx, dy = (sign * L, 0.0) if dim == 0 else (0.0, sign * L)
        ox, oy = (dy / L * 0.08, -dx / L * 0.08)
        col = PALETTE[[3, 0, 4, 2, 1, 5][vc % 6]]
        ax.annotate("", xy=(x0 + dx * 0.9 + ox, y0 + dy * 0.9 + oy), xytext=(x0 + ox, y0 + oy),
                    arrowprops={"arrowstyle": "-|>", "color": col, "lw": 2.4, "shrinkA": 0, "shrinkB": 0})
        ax.text(x0 + dx * 0.5 + 2.2 * ox, y0 + dy * 0.5 + 2.2 * oy, f"{i}:v{vc}", fontsize=6, color=col,
                ha="center", va="center")
    return ax


#: Curves of the VC-count figure: (topology kind, routing label, legend label).
VC_COUNT_CURVES = (
    ("unidirectional", "dor+dateline", "unidirectional, 1 mesh VN"),
    ("bidirectional", "dor+dateline", "bidirectional, 1 mesh VN"),
    ("bidirectional", "pfnf-reconstruction+paper", "bidirectional, PFNF (2 mesh VNs)"),
)
#: The paper's statements drawn as reference lines: (value, text).
VC_COUNT_REFERENCES = ((2, "paper: 2 VNs (unidirectional)"), (1.5, "paper: 3/2 VNs (bidirectional)"),
                       (3, "paper: 3 VCs (PFNF)"))


def fig_vc_counts(results: Results, params: Mapping[str, Any]):
    """VCs in use per channel and most VCs on a channel against k, beside the paper's counts."""
    check_results("results", results, {"vc_counts": ()})
    check_mapping("params", params, ["vc_ks"])
    apply_style()
    vc = results["vc_counts"]
    fig, ax = new_figure()
    for i, (kind, routing, label) in enumerate(VC_COUNT_CURVES):
        sub = vc[(vc.kind == kind) & (vc.routing == routing)]
        ax.plot(sub.k, sub.vns_equiv, marker=MARKERS[i], color=PALETTE[i], label=f"{label}: VCs in use / channel")
        ax.plot(sub.k, sub.max_vcs, ls=":", marker=MARKERS[i], color=PALETTE[i], alpha=0.6,
                label=f"{label}: max per channel")
    for y, txt in VC_COUNT_REFERENCES:
        ax.axhline(y, color="0.5", lw=0.8, ls="--")
        ax.text(min(params["vc_ks"]), y + 0.03, txt, fontsize=7, color="0.3")
    ax.set(xlabel="radix k (k x k torus)", ylabel="virtual channels",
           title="VC requirements of the virtual mesh mappings")
    ax.legend(fontsize=6, loc="center right")
    return fig


#: Titles of the virtual-mesh panels, in the order of :data:`torus_lab.studies.virtual_mesh.DRAWN_ROUTINGS`.
VIRTUAL_MESH_TITLES = ("unidirectional {k}x{k} torus, DOR + dateline",
                       "bidirectional {k}x{k}, one mesh VN (negative-first)",
                       "PFNF on the {k}x{k} torus, halfway datelines")


def fig_virtual_mesh(results: Results, params: Mapping[str, Any]):
    """The three virtual meshes of :data:`torus_lab.studies.virtual_mesh.DRAWN_ROUTINGS` on draw_k x draw_k,
    drawn from ``channel_vcs``."""
    check_results("results", results, {"channel_vcs": ()})
    check_mapping("params", params, ["draw_k"])
    apply_style()
    k = params["draw_k"]
    listing = results["channel_vcs"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    routings = listing.routing.drop_duplicates().tolist()         # in the order of DRAWN_ROUTINGS
    for ax, (kind, _, names), routing, title in zip(axes, study.DRAWN_ROUTINGS, routings, VIRTUAL_MESH_TITLES,
                                                     strict=True):
        rows = listing[listing.routing == routing]
        combos = study.vc_combos(rows, names)
        legend = ([n.replace("-", " ") for n in names] if names is not None
                  else [f"VC{v + 1}" for v in range(1 + max(max(c) for c in combos.values()))])
        draw_virtual_mesh(ax, study.make_topology(kind, k), combos, legend, title=title.format(k=k))
    return fig


#: Witness cycles drawn at the smallest k: (topology kind, routing label).
WITNESS_PANELS = (("bidirectional", "dor"), ("bidirectional", "negative-first+paper"),
                  ("bidirectional", "pfnf-reconstruction+paper"), ("unidirectional", "pfnf-reconstruction+paper"),
                  ("mesh", "pfnf-switch"), ("bidirectional", "pfnf-reconstruction+count"))


def fig_cdg_witness_cycles(results: Results, params: Mapping[str, Any]):
    """CDG witness cycles (from ``cdg_verdicts``) of ``WITNESS_PANELS`` at the smallest k."""
    check_results("results", results, {"cdg_verdicts": ()})
    check_mapping("params", params, ["ks"])
    apply_style()
    k0 = min(params["ks"])
    fig, axes = plt.subplots(2, 3, figsize=(14, 9))
    for ax, (kind, name) in zip(axes.ravel(), WITNESS_PANELS, strict=True):
        cycle = study.witness_cycle(results["cdg_verdicts"], kind, k0, name)
        verdict = "acyclic" if cycle is None else f"cycle of {len(cycle)}"
        draw_cdg_cycle(ax, study.make_topology(kind, k0), cycle, title=f"{name} on {kind} {k0}x{k0}: {verdict}")
    return fig


#: Routings of the adaptivity bar chart.
ADAPTIVITY_BARS = ("pfnf-reconstruction", "pfnf-mirror", "pfnf-literal", "pfnf-switch", "negative-first",
                   "west-first", "dor")


def fig_adaptivity(results: Results, params: Mapping[str, Any]):
    """Fraction of pairs with every minimal path usable (ties resolved +), mesh and torus, at the largest k."""
    check_results("results", results, {"adaptivity": ()})
    check_mapping("params", params, ["adaptivity_ks"])
    apply_style()
    adapt = results["adaptivity"]
    sel = list(ADAPTIVITY_BARS)
    fig, ax = new_figure()
    kk = max(params["adaptivity_ks"])
    for i, kind in enumerate(["mesh", "bidirectional"]):
        sub = adapt[(adapt.kind == kind) & (adapt.k == kk)].set_index("routing").reindex(sel)
        ax.bar(np.arange(len(sel)) + 0.4 * i, sub.fully_adaptive_tie_pairs, width=0.4, color=PALETTE[i],
               label=f"{kind} {kk}x{kk}")
    ax.set_xticks(np.arange(len(sel)) + 0.2, sel, rotation=30, ha="right")
    ax.set(ylabel="fraction of pairs with every minimal path usable", title="Measured adaptivity (ties resolved +)")
    ax.legend()
    return fig


def fig_latency_vs_load(results: Results, params: Mapping[str, Any]):
    """Mean latency against offered load per traffic pattern; deadlocked runs as crosses along the top."""
    check_results("results", results, {"latency": ()})
    check_mapping("params", params, ["sim_k", "sim_traffics"])
    apply_style()
    sweep = results["latency"]
    traffics = list(params["sim_traffics"])
    k = params["sim_k"]
    curves = list(sweep[["routing", "network"]].drop_duplicates().itertuples(index=False, name=None))  # run order
    fig, axes = plt.subplots(1, len(traffics), figsize=(6.4 * len(traffics), 4.4), squeeze=False)
    for ax, traffic in zip(axes[0], traffics, strict=True):
        for i, (name, network) in enumerate(curves):
            sub = sweep[(sweep.routing == name) & (sweep.network == network) & (sweep.traffic == traffic)]
            sub = sub.sort_values("offered_load")
            dead_mask = sub.deadlock.astype(bool)
            ok = sub[~dead_mask]
            label = name if network == "torus" else f"{name} ({network})"
            ax.plot(ok.offered_load, ok.mean_latency, marker=MARKERS[i % len(MARKERS)], color=PALETTE[i % len(PALETTE)],
                    label=label)
            dead = sub[dead_mask]
            if len(dead):  # deadlocked runs: crosses along the top of the panel, one row per routing
                ax.scatter(dead.offered_load, np.full(len(dead), 0.97 - 0.04 * i), marker="x", s=60,
                           color=PALETTE[i % len(PALETTE)], transform=ax.get_xaxis_transform(), zorder=5,
                           clip_on=False)
        ax.text(0.01, 0.99, "x = run stopped in deadlock", transform=ax.transAxes, fontsize=7, va="top")
        ax.set_yscale("log")
        ax.set(xlabel="offered load (flits/node/cycle)", ylabel="mean latency (cycles)",
               title=f"{traffic} traffic, {k}x{k}")
    axes[0][0].legend(fontsize=7, loc="center left")
    return fig
