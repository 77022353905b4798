"""Figures of ``notebooks/virtual_mesh.ipynb``: ``fig_<name>(results, params)`` for the results of
:func:`torus_lab.studies.virtual_mesh.run`, and the drawing helpers :func:`draw_virtual_mesh`,
:func:`draw_cdg_cycle` and :func:`draw_datelines`.

Datelines are drawn the way the paper defines them (Section 3.1: "the set of nodes which force a transition of
channels"): a grey line through the dateline nodes -- row ``D`` for the y direction, column ``D`` for x --
dashed for the ``+`` direction, dotted for ``-``, black for VN0 and grey for VN1, listed in the legend.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> fig, ax = plt.subplots()
>>> handles = draw_datelines(ax, Torus(2, 5), [(0, 1, 4), (1, 1, 1)])
>>> [h.get_label() for h in handles]
['VN0 +x/+y dateline: column/row 4', 'VN1 +x/+y dateline: column/row 1']
>>> plt.close(fig)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from torus_lab._validate import (
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_results,
    check_sequence,
    check_str,
)
from torus_lab.plotting import (
    MARKERS,
    PAGE_WIDTH,
    PALETTE,
    apply_style,
    channel_segments,
    draw_torus_2d,
    grid_axes,
    latency_load_figure,
    new_figure,
)
from torus_lab.topology import Torus, make_network

__all__ = ["CYCLE_LABEL_SIZE", "draw_virtual_mesh", "draw_cdg_cycle", "draw_datelines", "vc_combos", "witness_cycle",
           "fig_vc_counts", "fig_virtual_mesh",
           "fig_cdg_witness_cycles", "fig_adaptivity", "fig_latency_vs_load"]

Results = Mapping[str, pd.DataFrame]


#: Line style of a dateline by ring direction (sign) and colour by virtual network.
DATELINE_STYLE = {1: "--", -1: ":"}
DATELINE_COLOR = {0: "0.1", 1: "0.55"}


def draw_datelines(ax, topology, positions: Sequence[tuple[int, int, int]], *, margin: float = 0.7) -> list:
    """Draw the datelines ``positions`` (``(vn, sign, node)``, as from
    :func:`torus_lab.routing.turn_model.dateline_positions`) on a 2D torus: a line through column ``node``
    (the x dateline) and one through row ``node`` (the y dateline), under the channels.  Returns one legend
    handle per dateline."""
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

    check_instance("ax", ax, Axes, "a matplotlib Axes")
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    kx, ky = topology.radices
    handles = []
    for entry in check_sequence("positions", positions):
        vn, sign, node = (check_int("positions", v) for v in check_sequence("positions", entry, min_length=3)[:3])
        if vn not in DATELINE_COLOR or sign not in DATELINE_STYLE or not 0 <= node < min(kx, ky):
            raise ValueError(f"positions must hold (vn in 0..1, sign +1/-1, node in 0..{min(kx, ky) - 1}), "
                             f"got {tuple(entry)!r}")
        style = {"color": DATELINE_COLOR[vn], "ls": DATELINE_STYLE[sign], "lw": 1.6, "zorder": 0.5}
        s = "+" if sign > 0 else "-"
        label = f"VN{vn} {s}x/{s}y dateline: column/row {node}"
        ax.plot([node, node], [-margin, ky - 1 + margin], **style)
        ax.plot([-margin, kx - 1 + margin], [node, node], **style, label=label)  # one legend entry per dateline
        handles.append(Line2D([0], [0], **style, label=label))
    return handles


def draw_virtual_mesh(ax, topology, combos: Mapping[int, tuple[int, ...]], vc_names: Sequence[str], *,
                      title: str | None = None, datelines: Sequence[tuple[int, int, int]] = ()):
    """Draw a 2D torus with every channel coloured by the set of VCs it carries (the virtual mesh).

    ``combos``: channel -> indices of its VCs (:func:`vc_combos`); ``vc_names``:
    legend names of the VCs; ``datelines``: ``(vn, sign, node)`` drawn by :func:`draw_datelines`.  Each direction
    of a link is drawn offset to its right; wraparound channels are stubs at the border.  The legend (VC sets,
    then datelines) sits under the panel.
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
    handles += draw_datelines(ax, topo, datelines)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.14), title="VCs used; datelines",
              handlelength=2.6)
    grid_axes(ax, topo.radices, title=title, margin=0.7, labels=("x (dimension 0)", "y (dimension 1)"))
    return ax


#: Font size (points) of the labels of a witness cycle's channels, read at :data:`torus_lab.plotting.PAGE_WIDTH`.
CYCLE_LABEL_SIZE = 8.5


def draw_cdg_cycle(ax, topology, cycle: Sequence[tuple[int, int]] | None, *, title: str | None = None,
                   datelines: Sequence[tuple[int, int, int]] = ()):
    """Draw a CDG witness cycle on the 2D torus ``topology``: thick arrows labelled with their position and VC
    (:data:`CYCLE_LABEL_SIZE`; a wraparound channel leaves the grid and re-enters it on the other side,
    :func:`torus_lab.plotting.channel_segments`), over the routing's ``datelines`` (:func:`draw_datelines`: each
    dateline is one labelled artist of ``ax``, for a legend)."""
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if cycle is not None:
        cycle = [tuple(check_int("cycle", x, minimum=0) for x in check_sequence("cycle", v, min_length=2))[:2]
                 for v in check_sequence("cycle", cycle)]  # fmt: skip
        if any(cid >= topology.num_channels for cid, _ in cycle):
            raise ValueError(f"cycle holds a channel id outside 0..{topology.num_channels - 1}")
    topo = topology
    draw_torus_2d(ax, topo, title=title)
    draw_datelines(ax, topo, datelines)
    if not cycle:
        ax.text(0.5, 0.5, "acyclic", transform=ax.transAxes, ha="center", va="center", fontsize=14,
                color=PALETTE[2])
        return ax
    for i, (cid, vc) in enumerate(cycle):
        col = PALETTE[[3, 0, 4, 2, 1, 5][vc % 6]]
        for part, ((x0, y0), (x1, y1)) in enumerate(channel_segments(topo, int(cid))):
            length = abs(x1 - x0) + abs(y1 - y0)
            ox, oy = (y1 - y0) / length * 0.08, -(x1 - x0) / length * 0.08  # to the right of the direction
            ax.annotate("", xy=(x0 + (x1 - x0) * 0.9 + ox, y0 + (y1 - y0) * 0.9 + oy), xytext=(x0 + ox, y0 + oy),
                        arrowprops={"arrowstyle": "-|>", "color": col, "lw": 2.4, "shrinkA": 0, "shrinkB": 0})
            if part == 0:
                ax.text((x0 + x1) / 2 + 3.2 * ox, (y0 + y1) / 2 + 3.2 * oy, f"{i}:v{vc}", fontsize=CYCLE_LABEL_SIZE,
                        color=col, ha="center", va="center", zorder=8,
                        bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8})
    return ax


#: Curves of the VC-count figure: (topology kind, routing label, legend label).
VC_COUNT_CURVES = (
    ("unidirectional", "dor+dateline", "unidirectional, 1 mesh VN"),
    ("bidirectional", "dor+dateline", "bidirectional, 1 mesh VN"),
    ("bidirectional", "pfnf-reconstruction+paper", "bidirectional, PFNF (2 mesh VNs)"),
)
#: The paper's statements drawn as reference lines: (value, legend text, index of the curve it is about in
#: ``VC_COUNT_CURVES`` (its colour), line style) -- each its own colour and dash pattern, listed in the legend.
VC_COUNT_REFERENCES = ((2, "paper: 2 VNs (unidirectional)", 0, (0, (7, 3))),
                       (1.5, "paper: 3/2 VNs (bidirectional)", 1, (0, (7, 2, 1.5, 2))),
                       (3, "paper: 3 VCs (PFNF)", 2, (0, (2, 2, 2, 2, 7, 2))))


def fig_vc_counts(results: Results, params: Mapping[str, Any]):
    """VCs in use per channel and most VCs on a channel against k, beside the paper's counts (reference lines in
    the colour of the curve each is about, each with its own dash pattern, in the legend)."""
    check_results("results", results, {"vc_counts": ()})
    check_mapping("params", params, ["vc_ks"])
    apply_style()
    vc = results["vc_counts"]
    fig, ax = new_figure(figsize=(8.5, 6.0))
    for i, (kind, routing, label) in enumerate(VC_COUNT_CURVES):
        sub = vc[(vc.kind == kind) & (vc.routing == routing)]
        ax.plot(sub.k, sub.vns_equiv, marker=MARKERS[i], color=PALETTE[i], label=f"{label}: VCs in use / channel")
        ax.plot(sub.k, sub.max_vcs, ls=":", marker=MARKERS[i], color=PALETTE[i], alpha=0.6,
                label=f"{label}: max per channel")
    for y, txt, curve, dashes in VC_COUNT_REFERENCES:
        ax.axhline(y, color=PALETTE[curve], lw=1.3, ls=dashes, alpha=0.9, zorder=0, label=txt)
    ax.set(xlabel="radix k (k x k torus)", ylabel="virtual channels",
           title="VC requirements of the virtual mesh mappings")
    ax.set_xticks(sorted(set(params["vc_ks"])))
    fig.legend(loc="outside lower center", ncol=2)
    return fig


#: Titles of the virtual-mesh panels, in the order of the rows of ``drawn_virtual_meshes``.
VIRTUAL_MESH_TITLES = ("unidirectional {k}x{k} torus, DOR + dateline",
                       "bidirectional {k}x{k}, one mesh VN (negative-first)",
                       "PFNF on the {k}x{k} torus, halfway datelines")


def vc_combos(channels: pd.DataFrame, vc_names: Sequence[str] | None = None) -> dict[int, tuple[int, ...]]:
    """Drawing data of one routing's rows of a ``channel_vcs`` table: channel -> the indices of the VCs
    it carries (channels carrying none are left out).  ``vc_names`` are the listing's VC names (default
    ``VC1``, ``VC2``, ...).

    >>> rows = pd.DataFrame({"channel": [0, 1, 2], "vcs": ["VC1 VC2", "VC2", ""]})
    >>> vc_combos(rows)
    {0: (0, 1), 1: (1,)}
    >>> vc_combos(pd.DataFrame({"channel": [4], "vcs": ["b"]}), ["a", "b"])
    {4: (1,)}
    """
    check_frame("channels", channels, ["channel", "vcs"])
    def index(name: str) -> int:
        return list(vc_names).index(name) if vc_names is not None else int(name[2:]) - 1

    return {int(c): tuple(sorted(index(n) for n in str(v).split())) for c, v in zip(channels.channel,
                                                                                     channels.vcs.fillna(""),
                                                                                     strict=True) if str(v).split()}


def witness_cycle(cdg: pd.DataFrame, kind: str, k: int, routing: str) -> list[tuple[int, int]] | None:
    """The witness cycle ``[(channel, vc), ...]`` of one row of ``cdg_verdicts`` (None when acyclic).

    >>> cdg = pd.DataFrame({"kind": ["mesh"], "k": [4], "routing": ["a"], "acyclic": [False],
    ...                     "cycle_channels": ["3:0 7:1"]})
    >>> witness_cycle(cdg, "mesh", 4, "a")
    [(3, 0), (7, 1)]
    """
    check_frame("cdg", cdg, ["routing", "kind", "k"])
    row = cdg[(cdg.kind == kind) & (cdg.k == k) & (cdg.routing == routing)]
    if row.empty:
        raise KeyError(f"no CDG verdict for {routing!r} on {kind} k={k}")
    if bool(row.acyclic.iloc[0]):
        return None
    return [tuple(int(x) for x in cv.split(":")) for cv in str(row.cycle_channels.iloc[0]).split()]


def _datelines(text: str) -> list[tuple[int, int, int]]:
    """``(vn, sign, node)`` datelines from their JSON text in the results."""
    return [tuple(int(v) for v in d) for d in json.loads(text)]


def fig_virtual_mesh(results: Results, params: Mapping[str, Any]):
    """The three virtual meshes of ``drawn_virtual_meshes`` (their kinds, VC names and datelines) on
    draw_k x draw_k, drawn from ``channel_vcs``."""
    check_results("results", results, {"channel_vcs": (), "drawn_virtual_meshes": ("routing", "kind", "k",
                                                                                   "vc_names", "datelines")})
    check_mapping("params", params, [])
    apply_style()
    listing, drawn = results["channel_vcs"], results["drawn_virtual_meshes"]
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 7.0))
    for ax, row, title in zip(axes, drawn.itertuples(index=False), VIRTUAL_MESH_TITLES, strict=True):
        names = json.loads(row.vc_names) if isinstance(row.vc_names, str) and row.vc_names else None
        combos = vc_combos(listing[listing.routing == row.routing], names)
        legend = ([n.replace("-", " ") for n in names] if names is not None
                  else [f"VC{v + 1}" for v in range(1 + max(max(c) for c in combos.values()))])
        draw_virtual_mesh(ax, make_network(row.kind, int(row.k)), combos, legend, title=title.format(k=int(row.k)),
                          datelines=_datelines(row.datelines))
    return fig


#: Witness cycles drawn at the smallest k: (topology kind, routing label, the routing in words).
WITNESS_PANELS = (("bidirectional", "dor", "dimension order, no datelines"),
                  ("bidirectional", "negative-first+paper", "negative-first, the paper's dateline VCs"),
                  ("bidirectional", "pfnf-reconstruction+paper", "PFNF, the paper's dateline VCs"),
                  ("unidirectional", "pfnf-reconstruction+paper", "PFNF, the paper's dateline VCs"),
                  ("mesh", "pfnf-switch", "PFNF choosing its VN hop by hop"),
                  ("bidirectional", "pfnf-reconstruction+count", "PFNF, VC = datelines crossed"))


def fig_cdg_witness_cycles(results: Results, params: Mapping[str, Any]):
    """CDG witness cycles (from ``cdg_verdicts``) of ``WITNESS_PANELS`` at the smallest k, titled by the routing in
    words, at :data:`torus_lab.plotting.PAGE_WIDTH` so that its labels are read at their size."""
    check_results("results", results, {"cdg_verdicts": (), "cdg_datelines": ("kind", "k", "routing", "datelines")})
    check_mapping("params", params, ["ks"])
    apply_style()
    k0 = min(params["ks"])
    datelines = results["cdg_datelines"].set_index(["kind", "k", "routing"])["datelines"]
    fig, axes = plt.subplots(2, 3, figsize=(PAGE_WIDTH, 7.4))
    legend: dict[str, Any] = {}
    for ax, (kind, name, words) in zip(axes.ravel(), WITNESS_PANELS, strict=True):
        cycle = witness_cycle(results["cdg_verdicts"], kind, k0, name)
        verdict = "acyclic" if cycle is None else f"cycle of {len(cycle)}"
        draw_cdg_cycle(ax, make_network(kind, k0), cycle, title=f"{words}\n{kind} {k0}x{k0}: {verdict}",
                       datelines=_datelines(datelines.loc[(kind, k0, name)]))
        ax.title.set_fontsize(CYCLE_LABEL_SIZE + 0.5)
        ax.set_xlabel("x", fontsize=CYCLE_LABEL_SIZE)
        ax.set_ylabel("y", fontsize=CYCLE_LABEL_SIZE)
        ax.tick_params(labelsize=CYCLE_LABEL_SIZE)
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    if legend:  # one entry per dateline style (same k in every panel, so the same rows and columns)
        fig.legend(list(legend.values()), list(legend), loc="outside lower center", ncol=min(2, len(legend)),
                   handlelength=2.6, fontsize=CYCLE_LABEL_SIZE)
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
    ax.set(ylabel="fraction of pairs with\nevery minimal path usable", title="Measured adaptivity (ties resolved +)")
    ax.legend()
    return fig


def fig_latency_vs_load(results: Results, params: Mapping[str, Any]):
    """Mean latency against offered load per traffic pattern, mean over ``sim_seeds`` runs with its 95% t-interval
    as a band (``latency_summary``); a load where any run deadlocked is left off its curve and marked by a cross
    along the top of the panel (one row of crosses per routing; :func:`torus_lab.plotting.latency_load_figure`);
    each curve stops at its saturation load (``saturation`` table), ringed."""
    check_results("results", results, {"latency_summary": (), "saturation": ("routing", "network", "traffic",
                                                                           "saturation_load")})
    check_mapping("params", params, ["sim_k", "sim_traffics"])
    summary = results["latency_summary"]
    k = params["sim_k"]
    curves = list(summary[["routing", "network"]].drop_duplicates().itertuples(index=False, name=None))  # run order
    label = {curve: curve[0] if curve[1] == "torus" else f"{curve[0]} ({curve[1]})" for curve in curves}
    frame = summary.assign(curve=[label[c] for c in zip(summary.routing, summary.network, strict=True)])
    sat = results["saturation"]
    sat = sat.assign(curve=[label.get(c, c[0]) for c in zip(sat.routing, sat.network, strict=True)])
    runs = int(summary.runs.min()) if len(summary) else 0
    return latency_load_figure(frame, hue="curve", hue_order=[label[c] for c in curves], col="traffic",
                               col_order=list(params["sim_traffics"]), log_y=True, mark_deadlocks=True,
                               col_title=f"{{col_name}} traffic, {k}x{k}",
                               legend_title=f"routing\n(mean of {runs} runs,\nband: 95% t-interval;\n"
                                            "x: a run deadlocked)", saturation=sat)  # fmt: skip
