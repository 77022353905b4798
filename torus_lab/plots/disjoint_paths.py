"""Figures of ``notebooks/disjoint_paths.ipynb`` (Bossard & Kaneko), drawn from
:func:`torus_lab.studies.disjoint_paths.run`.

Each ``fig_<name>(results, params)`` takes the study's results (DataFrames keyed by CSV stem) and the preset's
parameters and returns a matplotlib figure; the notebook saves it as ``figures/disjoint_paths/<name>.{png,svg}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from torus_lab._validate import check_frame, check_int, check_mapping, check_results
from torus_lab.plotting import MARKERS, PALETTE, apply_style, draw_torus_2d, draw_torus_3d, new_figure
from torus_lab.timing import timing_key
from torus_lab.topology import Torus

__all__ = ["drawn_paths", "fig_fig9_path_lengths", "fig_fig10_time", "fig_variants_path_lengths",
           "fig_solved_instances"]

#: Variants compared on the same instances, in the order (and with the markers) of the comparison figure.
COMPARED_VARIANTS = ("paper", "short", "greedy")
#: The variants in words, for the legend.
VARIANT_WORDS = {"paper": "paper's algorithm", "short": "'short' choice of T (the paper's future work)",
                 "greedy": "greedy shortest paths (baseline)"}


def _paper_rows(results: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    summary = results["disjoint_paths"]
    return summary[summary["variant"] == "paper"].set_index("n").sort_index()


def fig_fig9_path_lengths(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """Fig. 9: maximum and mean (± std) per-instance maximum path length of ``paper`` against the bound."""
    check_results("results", results, {"disjoint_paths": ()})
    check_mapping("params", params, [])
    apply_style()
    paper = _paper_rows(results)
    fig, ax = new_figure()
    ax.plot(paper.index, paper["bound"], color=PALETTE[3], marker="^", label="bound $2k(c-1)+n\\lfloor k/2\\rfloor$")
    ax.plot(paper.index, paper["max_len_max"], color=PALETTE[0], marker="o", label="maximum over instances")
    ax.errorbar(paper.index, paper["max_len_mean"], yerr=paper["max_len_std"], color=PALETTE[1], marker="s",
                capsize=3, label="mean ± std")  # fmt: skip
    ax.set(xlabel="n (torus dimension; k = max(5, n+1), c = n)", ylabel="maximum path length per instance (hops)",
           title=f"Fig. 9: longest disjoint path per instance, {int(paper['instances'].iloc[0])} random instances "
                 "per n")  # fmt: skip
    ax.set_xticks(sorted(paper.index))
    ax.legend()
    return fig


#: Legend placement of the Fig. 10 panels: under the axes, where no curve (the steep n c^4 bound) can cross it.
_BELOW_PANEL = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.16), "ncol": 2}


def fig_fig10_time(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """Fig. 10 in two panels: (a) the algorithm's work per instance (deterministic: mean, 99th percentile,
    ``n c^4`` with its constant fitted to the mean -- the worst case's slope drawn through the data -- and the
    power-law fit), (b) the measured time per instance (CPU and wall-clock mean, CPU 99th percentile, ``n c^4``
    fitted to the CPU mean and the power-law fit), read from the timing frames
    ``time_per_instance_timing`` and ``time_fit_timing`` (:mod:`torus_lab.timing`).  Each legend sits under its
    panel, so no curve crosses it."""
    check_results("results", results, {
        "work_per_instance": ("n", "work_mean", "work_p99", "worst_case_fitted", "work_fit"),
        "work_fit": ("measure", "exponent"),
        timing_key("time_per_instance"): ("n", "cpu_mean_s", "time_mean_s", "cpu_p99_s", "worst_case_fitted_s",
                                          "cpu_fit_s"),
        timing_key("time_fit"): ("measure", "exponent"),
    })  # fmt: skip
    check_mapping("params", params, [])
    apply_style()
    fig, (ax_work, ax_time) = new_figure(1, 2, figsize=(13, 5.6))
    work = results["work_per_instance"].sort_values("n")
    work_exponent = results["work_fit"].set_index("measure").loc["work_mean", "exponent"]
    n_work = work["n"].to_numpy(dtype=float)
    ax_work.plot(n_work, work["work_mean"], marker="o", label="mean")
    ax_work.plot(n_work, work["work_p99"], marker="v", ls="-.", label="99th percentile")
    ax_work.plot(n_work, work["worst_case_fitted"], color="0.4", ls="--",
                 label="slope of $n c^4$ (c = n), through the mean")
    ax_work.plot(n_work, work["work_fit"], color=PALETTE[3], ls=":", label=f"fit to mean: $n^{{{work_exponent:.2f}}}$")
    ax_work.set(yscale="log", xlabel="n (c = n)", ylabel="vertex operations per instance",
                title="(a) work per instance (deterministic)")  # fmt: skip
    ax_work.legend(**_BELOW_PANEL)
    times = results[timing_key("time_per_instance")].sort_values("n")
    exponent = results[timing_key("time_fit")].set_index("measure").loc["cpu_mean_s", "exponent"]
    n_values = times["n"].to_numpy(dtype=float)
    ax_time.plot(n_values, times["cpu_mean_s"] * 1e3, marker="o", label="mean (CPU time)")
    ax_time.plot(n_values, times["time_mean_s"] * 1e3, marker="s", ls=":", label="mean (wall clock)")
    ax_time.plot(n_values, times["cpu_p99_s"] * 1e3, marker="v", ls="-.", label="99th percentile (CPU time)")
    ax_time.plot(n_values, times["worst_case_fitted_s"] * 1e3, color="0.4", ls="--",
                 label="slope of $n c^4$ (c = n), through the CPU mean")  # fmt: skip
    ax_time.plot(n_values, times["cpu_fit_s"] * 1e3, color=PALETTE[3], ls=":",
                 label=f"fit to CPU mean: $n^{{{exponent:.2f}}}$")  # fmt: skip
    ax_time.set(yscale="log", xlabel="n (c = n)", ylabel="time per instance (ms)",
                title="(b) measured time per instance (machine-dependent)")  # fmt: skip
    ax_time.legend(**_BELOW_PANEL)
    fig.suptitle("Fig. 10: cost of building the disjoint paths of one instance")
    for ax in (ax_work, ax_time):
        ax.set_xticks(sorted(set(n_work) | set(n_values)))
    return fig


def fig_variants_path_lengths(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """Mean per-instance maximum path length of ``paper``, ``short`` and ``greedy`` on the same instances."""
    check_results("results", results, {"disjoint_paths": ()})
    check_mapping("params", params, [])
    apply_style()
    summary = results["disjoint_paths"]
    paper = _paper_rows(results)
    fig, ax = new_figure()
    for marker, variant in zip(MARKERS, COMPARED_VARIANTS, strict=False):
        rows = summary[summary["variant"] == variant].sort_values("n")
        if len(rows):
            ax.plot(rows["n"], rows["max_len_mean"], marker=marker, label=f"{VARIANT_WORDS[variant]} (mean)")
    ax.plot(paper.index, paper["bound"], color=PALETTE[3], ls="--", label="bound $2k(c-1)+n\\lfloor k/2\\rfloor$")
    ax.set(xlabel="n (c = n)", ylabel="maximum path length per instance (hops)",
           title="Longest path per instance: the paper's algorithm, its variant and greedy, same instances")
    ax.set_xticks(sorted(summary["n"].unique()))
    ax.legend()
    return fig


def drawn_paths(solved: pd.DataFrame, n: int) -> tuple[list[list[tuple[int, ...]]], list[str], int]:
    """Paths (coordinate tuples), legend labels and radix of the drawn instance of dimension ``n`` in ``solved``.

    Examples
    --------
    >>> solved = pd.DataFrame([{"n": 2, "k": 5, "pair": 1, "hops": 1, "path": "[[0, 0], [1, 0]]"}])
    >>> drawn_paths(solved, 2)
    ([[(0, 0), (1, 0)]], ['pair 1: 1 hops'], 5)
    """
    check_int("n", n, minimum=1)
    check_frame("solved", solved, ["n", "k", "pair", "path", "hops"])
    rows = solved[solved["n"] == n].sort_values("pair")
    if rows.empty:
        raise ValueError(f"solved holds no instance of dimension n = {n}")
    paths = [[tuple(v) for v in json.loads(p)] for p in rows["path"]]
    labels = [f"pair {int(p)}: {int(h)} hops" for p, h in zip(rows["pair"], rows["hops"], strict=True)]
    return paths, labels, int(rows["k"].iloc[0])



def fig_solved_instances(results: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> Figure:
    """The drawn solved instances: a ``(2,5)``-torus with ``c = 2`` and a ``(3,5)``-torus with ``c = 3``."""
    check_results("results", results, {"solved_instances": ()})
    check_mapping("params", params, [])
    apply_style()
    solved = results["solved_instances"]
    fig = plt.figure(figsize=(12, 5))
    paths2, labels2, k2 = drawn_paths(solved, 2)
    ax2 = fig.add_subplot(1, 2, 1)
    draw_torus_2d(ax2, Torus(2, k2), paths=paths2, path_labels=labels2,
                  title=f"2 disjoint paths (c = 2) in the (2,{k2})-torus")
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)
    paths3, labels3, k3 = drawn_paths(solved, 3)
    ax3 = fig.add_subplot(1, 2, 2, projection="3d")
    draw_torus_3d(ax3, Torus(3, k3), paths=paths3, path_labels=labels3,
                  title=f"3 disjoint paths (c = 3) in the (3,{k3})-torus")
    ax3.legend(loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=3)
    return fig
