"""Figures of the ``fault_tolerant`` experiment (Li, Peng & Chu, Figs. 4-15, gap to the oracle, one faulty torus).

Every function takes the results of :func:`torus_lab.studies.fault_tolerant.run` and the experiment's parameters
and returns a :class:`matplotlib.figure.Figure`; the notebook shows and saves it under the function's name
without the ``fig_`` prefix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import check_mapping, check_results, check_sequence
from torus_lab.plotting import MARKERS, PALETTE, apply_style, new_figure

__all__ = [
    "fig_success_chain_figs_4_5",
    "fig_success_adaptive_square_figs_6_7",
    "fig_success_heuristic_square_figs_12_13",
    "fig_success_backtracking_square_figs_ours",
    "fig_improvement_adaptive_square_vs_chain_figs_8_9",
    "fig_improvement_heuristic_square_vs_adaptive_square_figs_14_15",
    "fig_improvement_backtracking_square_vs_heuristic_square_figs_ours",
    "fig_path_plus_adaptive_square_figs_10_11",
    "fig_gap_to_oracle",
    "fig_faulty_torus_example",
]

Results = Mapping[str, pd.DataFrame]
Params = Mapping[str, Any]


def _labels(results: Results) -> dict[str, str]:
    """The algorithms compared, in their order, and their names (the ``algorithms`` table of the results)."""
    check_results("results", results, {"algorithms": ("algorithm", "label")})
    return dict(zip(results["algorithms"]["algorithm"], results["algorithms"]["label"], strict=True))


def _group(params: Params, group: int) -> list[tuple[int, int]]:
    return [(int(p["radix"]), int(p["m"])) for p in params[f"group{group}"]]


def _suptitle(what: str, figs: str) -> str:
    """The figure's title: ``what`` it shows in words, then where it is in the paper."""
    return f"{what} (our variant, not in the paper)" if figs == "ours" else \
        f"{what} (Li, Peng & Chu, Figs. {figs.replace('_', ' and ')})"


def _group_words(pairs) -> str:
    """The tori of a group in words: ``"N = 16 and 32"``."""
    sizes = list(dict.fromkeys(radix for radix, _ in pairs))
    return "N = " + (", ".join(map(str, sizes[:-1])) + " and " if len(sizes) > 1 else "") + str(sizes[-1])


def _fault_axis(ax, rates) -> None:
    """x axis of faulty nodes in percent, ticked at the fault rates measured (``rates``: fractions)."""
    ticks = sorted({round(100 * float(rate), 6) for rate in rates})
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel("faulty nodes (%)")


#: Legend entry of the oracle curves: dotted, hollow markers, in the colour of the curve they belong to.
_ORACLE_STYLE = {"ls": ":", "lw": 1.4, "mfc": "white", "ms": 4}


def _oracle_handle(what: str = "oracle"):
    from matplotlib.lines import Line2D

    return Line2D([0], [0], color="0.3", marker="o", **_ORACLE_STYLE, label=f"{what} (dotted)")


#: Legend of a panel of the two-panel figures: under the panel, where no curve crosses it.
_UNDER_PANEL = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.15), "ncol": 3, "title": "(N, m)"}
#: Size of the two-panel figures (room for the legends under the panels).
_TWO_PANELS = (12.8, 5.6)


def _rate_panel(ax, table: pd.DataFrame, pairs, group: int, algorithm: str, label: str) -> None:
    for c, (radix, m) in enumerate(pairs):
        rows = table[(table.N == radix) & (table.m == m) & (table.algorithm == algorithm)].sort_values("fault_rate")
        ax.errorbar(100 * rows.fault_rate, rows.success_rate,
                    yerr=[rows.success_rate - rows.ci_low, rows.ci_high - rows.success_rate],
                    color=PALETTE[c], marker=MARKERS[c], ms=4, capsize=2, label=f"({radix}, {m})")
        orc = table[(table.N == radix) & (table.m == m) & (table.algorithm == "oracle")].sort_values("fault_rate")
        ax.plot(100 * orc.fault_rate, orc.success_rate, color=PALETTE[c], marker=MARKERS[c], **_ORACLE_STYLE)
    _fault_axis(ax, table.fault_rate)
    ax.set(ylabel="successful routing rate", title=f"{label}, tori of {_group_words(pairs)}")
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, _oracle_handle()], [*labels, _oracle_handle().get_label()], **_UNDER_PANEL)


def _success(results: Results, params: Params, algorithm: str, figs: str):
    apply_style()
    fig, axes = new_figure(1, 2, sharey=True, figsize=_TWO_PANELS)
    label = _labels(results)[algorithm]
    for ax, group in zip(axes, (1, 2), strict=True):
        _rate_panel(ax, results["fault_tolerant"], _group(params, group), group, algorithm, label)
    fig.suptitle(_suptitle(f"Success rate of {label} against the share of faulty nodes", figs))
    return fig


def _ratio_panel(ax, ratios: pd.DataFrame, pairs, group: int, numerator: str, denominator: str,
                 labels: Mapping[str, str]) -> None:  # fmt: skip
    for c, (radix, m) in enumerate(pairs):
        rows = ratios[(ratios.N == radix) & (ratios.m == m) & (ratios.numerator == numerator)
                      & (ratios.denominator == denominator)].sort_values("fault_rate")
        ax.errorbar(100 * rows.fault_rate, rows.ratio, yerr=[rows.ratio - rows.ci_low, rows.ci_high - rows.ratio],
                    color=PALETTE[c], marker=MARKERS[c], ms=4, capsize=2, label=f"({radix}, {m})")
    ax.axhline(1, color="grey", lw=0.8)
    _fault_axis(ax, ratios.fault_rate)
    ax.set(ylabel="improvement (ratio of success rates)",
           title=f"{labels[numerator]} / {labels[denominator]}, tori of {_group_words(pairs)}")
    ax.legend(**_UNDER_PANEL)


def _improvement(results: Results, params: Params, numerator: str, denominator: str, figs: str):
    apply_style()
    fig, axes = new_figure(1, 2, figsize=_TWO_PANELS)
    labels = _labels(results)
    for ax, group in zip(axes, (1, 2), strict=True):
        _ratio_panel(ax, results["improvement_ratios"], _group(params, group), group, numerator, denominator, labels)
    fig.suptitle(_suptitle(f"Improvement of {labels[numerator]} over {labels[denominator]} (ratio of success "
                           "rates on the same trials)", figs))
    return fig


def fig_success_chain_figs_4_5(results: Results, params: Params):
    """Figs. 4/5: success rate of Chain per group, 95% Wilson bars, the oracle dotted."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _success(results, params, "chain", "4_5")


def fig_success_adaptive_square_figs_6_7(results: Results, params: Params):
    """Figs. 6/7: success rate of Adaptive-Square per group."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _success(results, params, "adaptive_square", "6_7")


def fig_success_heuristic_square_figs_12_13(results: Results, params: Params):
    """Figs. 12/13: success rate of Heuristic-Square per group."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _success(results, params, "heuristic_square", "12_13")


def fig_success_backtracking_square_figs_ours(results: Results, params: Params):
    """Success rate of our Backtracking-Square per group."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _success(results, params, "backtracking_square", "ours")


def fig_improvement_adaptive_square_vs_chain_figs_8_9(results: Results, params: Params):
    """Figs. 8/9: Adaptive-Square / Chain success ratio with paired 95% intervals."""
    check_results("results", results, {"improvement_ratios": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _improvement(results, params, "adaptive_square", "chain", "8_9")


def fig_improvement_heuristic_square_vs_adaptive_square_figs_14_15(results: Results, params: Params):
    """Figs. 14/15: Heuristic-Square / Adaptive-Square success ratio."""
    check_results("results", results, {"improvement_ratios": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _improvement(results, params, "heuristic_square", "adaptive_square", "14_15")


def fig_improvement_backtracking_square_vs_heuristic_square_figs_ours(results: Results, params: Params):
    """Our Backtracking-Square / Heuristic-Square success ratio."""
    check_results("results", results, {"improvement_ratios": ()})
    check_mapping("params", params, ["group1", "group2"])
    return _improvement(results, params, "backtracking_square", "heuristic_square", "ours")


def fig_path_plus_adaptive_square_figs_10_11(results: Results, params: Params):
    """Figs. 10/11: path plus of Adaptive-Square; dotted, the oracle's on the same successful trials."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["group1", "group2"])
    apply_style()
    table = results["fault_tolerant"]
    fig, axes = new_figure(1, 2, sharey=True, figsize=_TWO_PANELS)
    for ax, group in zip(axes, (1, 2), strict=True):
        pairs = _group(params, group)
        for c, (radix, m) in enumerate(pairs):
            rows = table[(table.N == radix) & (table.m == m)
                         & (table.algorithm == "adaptive_square")].sort_values("fault_rate")
            ax.plot(100 * rows.fault_rate, rows.path_plus_mean, color=PALETTE[c], marker=MARKERS[c], ms=4,
                    label=f"({radix}, {m})")
            ax.plot(100 * rows.fault_rate, rows.oracle_path_plus_on_successes, color=PALETTE[c], marker=MARKERS[c],
                    **_ORACLE_STYLE)
        _fault_axis(ax, table.fault_rate)
        ax.set(ylabel="path plus = |P| / distance(s, t)", title=f"tori of {_group_words(pairs)}")
        handles, labels = ax.get_legend_handles_labels()
        oracle = _oracle_handle("shortest fault-free path")
        ax.legend([*handles, oracle], [*labels, oracle.get_label()], **_UNDER_PANEL)
    fig.suptitle(_suptitle("Path plus of Adaptive-Square against the share of faulty nodes", "10_11"))
    return fig


def fig_gap_to_oracle(results: Results, params: Params):
    """Every algorithm and the oracle at the ``focus`` points (one panel each)."""
    check_results("results", results, {"fault_tolerant": ()})
    check_mapping("params", params, ["focus"])
    apply_style()
    table = results["fault_tolerant"]
    labels = _labels(results)
    focus = [(int(p["radix"]), int(p["m"])) for p in params["focus"]]
    fig, axes = new_figure(1, len(focus), sharey=True, squeeze=False)
    for ax, (radix, m) in zip(axes[0], focus, strict=True):
        sub = table[(table.N == radix) & (table.m == m)]
        for c, algorithm in enumerate(labels):
            rows = sub[sub.algorithm == algorithm].sort_values("fault_rate")
            ax.errorbar(100 * rows.fault_rate, rows.success_rate,
                        yerr=[rows.success_rate - rows.ci_low, rows.ci_high - rows.success_rate],
                        color=PALETTE[c] if algorithm != "oracle" else "black", marker=MARKERS[c], ms=4, capsize=2,
                        ls=":" if algorithm == "oracle" else "-", label=labels[algorithm])
        _fault_axis(ax, sub.fault_rate)
        ax.set(ylabel="successful routing rate", title=f"Every algorithm and the oracle, N = {radix}, m = {m}")
        ax.legend()
    return fig


#: Colours of a hop of the example walk: first traversal of its link, and a link traversed again (backtracking).
WALK_COLORS = (PALETTE[3], PALETTE[4])
#: Sideways shift (grid units) of each further traversal of the same link, so that repeated hops stay visible.
REPEAT_SHIFT = 0.2
#: Most squares counted in the shading (darker = covered by more squares visited).
MAX_SHADE = 4


def _grid_node(node: object) -> tuple[int, int]:
    items = check_sequence("walk", node)
    if len(items) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items):
        raise TypeError(f"walk must hold (x0, x1) pairs of ints, got {node!r}")
    return int(items[0]), int(items[1])


def walk_segments(walk: Sequence[tuple[int, int]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Line segments drawing a walk on the ``k x k`` grid: a hop between grid neighbours is one segment, a
    wraparound hop two half-cell stubs leaving the grid at both ends.

    Examples
    --------
    >>> walk_segments([(0, 0), (1, 0)])
    [((0, 0), (1, 0))]
    >>> walk_segments([(0, 0), (7, 0)])  # wraparound hop 0 -> 7 in an 8-ring
    [((0, 0), (-0.5, 0)), ((7, 0), (7.5, 0))]
    """
    walk = [_grid_node(v) for v in check_sequence("walk", walk)]
    segments = []
    for (x0, y0), (x1, y1) in zip(walk[:-1], walk[1:], strict=True):
        if abs(x1 - x0) + abs(y1 - y0) == 1:
            segments.append(((x0, y0), (x1, y1)))
        else:
            dx = float(np.sign(x1 - x0) * -0.5) if x1 != x0 else 0
            dy = float(np.sign(y1 - y0) * -0.5) if y1 != y0 else 0
            segments.append(((x0, y0), (x0 + dx, y0 + dy)))
            segments.append(((x1, y1), (x1 - dx, y1 - dy)))
    return segments


def walk_arrows(walk) -> list[tuple[tuple[float, float], tuple[float, float], int]]:
    """``(start, end, repeat)`` arrows drawing ``walk`` in the direction it is walked: one per grid hop, two
    half-cell stubs per wraparound hop (leaving, then entering the grid), shifted sideways by
    ``repeat * REPEAT_SHIFT`` where ``repeat`` counts the earlier traversals of the same link (either way).

    Examples
    --------
    >>> walk_arrows([(0, 0), (1, 0), (0, 0)])
    [((0, 0), (1, 0), 0), ((1.0, 0.2), (0.0, 0.2), 1)]
    """
    arrows, seen = [], {}
    for a, b in zip(walk[:-1], walk[1:], strict=True):
        link = frozenset((tuple(a), tuple(b)))
        repeat = seen.get(link, 0)
        seen[link] = repeat + 1
        segments = walk_segments([a, b])
        if len(segments) == 2:  # wraparound: the second stub is drawn from the grid edge into b
            segments = [segments[0], (segments[1][1], segments[1][0])]
        for (x0, y0), (x1, y1) in segments:
            if repeat:
                nx, ny = (0.0, REPEAT_SHIFT * repeat) if y0 == y1 else (REPEAT_SHIFT * repeat, 0.0)
                x0, y0, x1, y1 = x0 + nx, y0 + ny, x1 + nx, y1 + ny
            arrows.append(((x0, y0), (x1, y1), repeat))
    return arrows


def _draw_walk(ax, row: pd.Series) -> None:
    """One panel of the example: a row of ``faulty_torus_example_walks``."""
    radix = int(row["N"])
    shade = np.full((radix, radix), np.nan)
    for x, y, count in json.loads(row["covered"]):
        shade[y, x] = min(count, MAX_SHADE)
    ax.imshow(shade, origin="lower", cmap="Blues", vmin=0, vmax=MAX_SHADE + 1)
    faulty = np.array(json.loads(row["faulty"]), dtype=int).reshape(-1, 2)
    ax.scatter(faulty[:, 0], faulty[:, 1], marker="s", s=42, color="black")
    for start, end, repeat in walk_arrows([tuple(node) for node in json.loads(row["walk"])]):
        ax.annotate("", xy=end, xytext=start, zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": WALK_COLORS[min(repeat, 1)], "lw": 1.8,
                                "mutation_scale": 11, "shrinkA": 0, "shrinkB": 0})
    ax.scatter(*json.loads(row["source"]), marker="o", s=90, color=PALETTE[2], zorder=5)
    ax.scatter(*json.loads(row["target"]), marker="*", s=160, color=PALETTE[1], zorder=5)
    status = f"found, {int(row['length'])} hops" if bool(row["success"]) else "failed"
    ax.set(title=f"{row['label']}: {status}", xlabel="x0", ylabel="x1",
           xlim=(-0.6, radix - 0.4), ylim=(-0.6, radix - 0.4))
    ax.set_xticks(range(0, radix, 2))
    ax.set_yticks(range(0, radix, 2))
    ax.grid(False)


def _example_legend_handles() -> list:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.pyplot import get_cmap

    blues = get_cmap("Blues")
    return [
        Line2D([0], [0], marker="o", ls="", ms=9, color=PALETTE[2], label="s (source)"),
        Line2D([0], [0], marker="*", ls="", ms=12, color=PALETTE[1], label="t (destination)"),
        Line2D([0], [0], marker="s", ls="", ms=7, color="black", label="faulty node"),
        Line2D([0], [0], color=WALK_COLORS[0], lw=1.8, marker=">", ms=6, label="walk (arrow: direction)"),
        Line2D([0], [0], color=WALK_COLORS[1], lw=1.8, marker=">", ms=6,
               label="link walked again (backtracking), drawn beside"),
        Patch(facecolor=blues(1 / (MAX_SHADE + 1)), label="node inside a square visited"),
        Patch(facecolor=blues(MAX_SHADE / (MAX_SHADE + 1)), label=f"inside {MAX_SHADE}+ squares visited"),
    ]


def fig_faulty_torus_example(results: Results, params: Params):
    """The example trial (``faulty_torus_example_walks``): faults, squares visited (shaded by how many cover a
    node) and the walk of each algorithm as arrows (``walk_arrows``: a link walked again is drawn beside the
    first traversal, in another colour), with every mark in the legend."""
    check_results("results", results, {"faulty_torus_example_walks": ("N", "m", "fault_count", "label", "walk",
                                                                      "covered", "faulty", "source", "target")})
    check_mapping("params", params, [])
    apply_style()
    walks = results["faulty_torus_example_walks"]
    first = walks.iloc[0]
    fig, axes = new_figure(2, 2, figsize=(10, 12))
    for ax, (_, row) in zip(axes.ravel(), walks.iterrows(), strict=True):
        _draw_walk(ax, row)
    fig.legend(handles=_example_legend_handles(), loc="outside upper center", ncol=3,
               title=f"N = {int(first['N'])}, m = {int(first['m'])}, {int(first['fault_count'])} faulty nodes")
    return fig
