"""What a referee checks on every figure, read from the matplotlib objects: latency curves stop at saturation and
ring it, reference lines are told apart and listed, ticks sit on the values measured, processors show on every
colour of a heat map, witness-cycle labels are legible at page width and wraparound channels re-enter the grid,
titles say in words what is shown, and reference slopes run through the data."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.patches import FancyArrowPatch  # noqa: E402
from matplotlib.text import Annotation, Text  # noqa: E402

from torus_lab.experiment import load_experiment  # noqa: E402
from torus_lab.plots import booksim_validation as bv_plots  # noqa: E402
from torus_lab.plots import bring_your_own_routing as byor_plots  # noqa: E402
from torus_lab.plots import direction_first as df_plots  # noqa: E402
from torus_lab.plots import disjoint_paths as dp_plots  # noqa: E402
from torus_lab.plots import fault_tolerant as ft_plots  # noqa: E402
from torus_lab.plots import loads as loads_plots  # noqa: E402
from torus_lab.plots import virtual_mesh as vm_plots  # noqa: E402
from torus_lab.plotting import (  # noqa: E402
    PAGE_WIDTH,
    SATURATION_LABEL,
    channel_segments,
    draw_torus_3d,
    latency_load_figure,
    node_ticks,
)
from torus_lab.topology import Torus, make_network  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _committed(experiment: str, *stems: str) -> dict[str, pd.DataFrame]:
    """Committed result tables of ``experiment`` (the figures' real inputs: only the columns matter here)."""
    return {stem: pd.read_csv(ROOT / "data" / experiment / f"{stem}.csv") for stem in stems}


def _paper(experiment: str) -> dict:
    return dict(load_experiment(experiment).presets["paper"])


def _rings(ax) -> list[tuple[float, float]]:
    """Centres of the saturation rings of ``ax``: unfilled scatter markers with a black edge."""
    found = []
    for c in ax.collections:
        if isinstance(c, PathCollection) and len(c.get_offsets()) and len(c.get_facecolors()) == 0 \
                and np.allclose(c.get_edgecolors()[0][:3], 0):
            found += [tuple(map(float, xy)) for xy in c.get_offsets()]
    return found


def _curve(routing: str, loads, latency, accepted) -> pd.DataFrame:
    latency, accepted = np.asarray(latency, dtype=float), np.asarray(accepted, dtype=float)
    return pd.DataFrame({"routing": routing, "offered_load": loads, "mean_latency_mean": latency,
                         "mean_latency_low": latency - 1, "mean_latency_high": latency + 1,
                         "accepted_throughput_mean": accepted, "accepted_throughput_low": accepted - 0.01,
                         "accepted_throughput_high": accepted + 0.01})


# ---------------------------------------------------------------------- saturation
def test_latency_curves_stop_at_saturation_and_ring_it_throughput_keeps_its_points():
    curves = pd.concat([_curve("a", [0.1, 0.2, 0.3, 0.4], [10, 12, 30, 300], [0.1, 0.2, 0.25, 0.25]),
                        _curve("b", [0.1, 0.2, 0.3, 0.4], [9, 10, 11, 12], [0.1, 0.2, 0.3, 0.4])])
    saturation = pd.DataFrame({"routing": ["a", "b"], "saturation_load": [0.2, 0.4]})   # b never saturates
    fig = byor_plots.fig_latency_load({"latency_load": curves, "saturation": saturation}, {})
    latency, throughput = fig.axes[:2]
    drawn = sorted(line.get_xdata().tolist() for line in latency.get_lines())
    assert drawn == [[0.1, 0.2], [0.1, 0.2, 0.3, 0.4]]                      # a stops at 0.2, b is whole
    assert _rings(latency) == [(0.2, 12.0)]                                  # only a saturated inside the grid
    assert sorted(len(line.get_xdata()) for line in throughput.get_lines()) == [4, 4]
    assert _rings(throughput) == [(0.2, 0.2)]
    assert SATURATION_LABEL in [t.get_text() for t in fig.legends[0].get_texts()]
    plt.close(fig)


def test_every_latency_figure_of_a_study_stops_at_the_saturation_of_its_table():
    results = _committed("direction_first", "load_curve_summary", "saturation")
    fig = df_plots.fig_latency_vs_load(results, _paper("direction_first"))
    sat = results["saturation"]
    for ax in fig.axes[:3]:
        network = ax.get_title()
        limit = sat[sat.network == network].saturation_load.max()
        assert max(max(line.get_xdata()) for line in ax.get_lines()) <= limit + 1e-9, network
        assert _rings(ax), network
    plt.close(fig)
    results = _committed("virtual_mesh", "latency_summary", "saturation")
    fig = vm_plots.fig_latency_vs_load(results, _paper("virtual_mesh"))
    assert all(_rings(ax) for ax in fig.axes[:2])
    plt.close(fig)


def test_latency_load_figure_refuses_a_saturation_table_without_its_columns():
    curves = _curve("a", [0.1, 0.2], [1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="saturation"):
        latency_load_figure(curves, hue="routing", saturation=pd.DataFrame({"routing": ["a"]}))
    with pytest.raises(TypeError, match="saturation"):
        latency_load_figure(curves, hue="routing", saturation="0.2")


def test_booksim_overlay_stops_our_latency_at_our_highest_stable_load_and_names_the_configuration():
    results = _committed("booksim_validation", "points", "saturation")
    params = _paper("booksim_validation")
    config = "torus88_dor_vc2_p1"
    fig = bv_plots.fig_overlay(results, params, config)
    ax_lat, ax_acc = fig.axes
    ours = float(results["saturation"].set_index("config").loc[config, "max_stable"])
    line = next(c for c in ax_lat.containers if c.get_label() == "torus_lab (booksim router)").lines[0]
    assert max(line.get_xdata()) == pytest.approx(ours)
    assert [x for x, _ in _rings(ax_lat)] == [pytest.approx(ours)] and _rings(ax_acc)
    title = fig.get_suptitle()
    assert config not in title and "8x8 torus, 2 VCs, 1-flit packets" in title
    plt.close(fig)


# ---------------------------------------------------------------------- reference lines
def test_the_papers_vc_counts_are_each_their_own_line_style_and_listed():
    fig = vm_plots.fig_vc_counts(_committed("virtual_mesh", "vc_counts"), _paper("virtual_mesh"))
    ax = fig.axes[0]
    references = [ln for ln in ax.get_lines() if ln.get_label().startswith("paper:")]
    assert len(references) == len(vm_plots.VC_COUNT_REFERENCES)
    assert len({ln.get_color() for ln in references}) == len(references)      # one colour each
    assert all(ln.get_linestyle() not in ("-", ":") for ln in references)    # not the curves' solid or dotted
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert all(ln.get_label() in legend for ln in references)
    plt.close(fig)


def test_oracle_curves_are_dotted_in_their_curves_colour_and_in_the_legend():
    results = _committed("fault_tolerant", "fault_tolerant", "algorithms")
    params = _paper("fault_tolerant")
    fig = ft_plots.fig_success_chain_figs_4_5(results, params)
    for ax in fig.axes[:2]:
        solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-" and len(ln.get_xdata()) > 1]
        dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
        assert len(dotted) == len(solid) == 6
        assert {ln.get_color() for ln in dotted} == {ln.get_color() for ln in solid}
        assert any("oracle" in t.get_text() for t in ax.get_legend().get_texts())
    plt.close(fig)


def test_loads_reference_of_the_paper_is_a_dashed_line_in_the_legend():
    results = _committed("loads", "loads", "odr_constant")
    fig = loads_plots.fig_odr_constant(results, _paper("loads"))
    ax = fig.axes[0]
    paper = [ln for ln in ax.get_lines() if ln.get_label().startswith("paper")]
    assert len(paper) == 1 and paper[0].get_linestyle() == "--" and np.allclose(paper[0].get_ydata(), 1 / 8)
    assert paper[0].get_label() in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)


# ---------------------------------------------------------------------- ticks on the values measured
def test_fault_rate_ticks_are_the_rates_measured():
    results = _committed("fault_tolerant", "fault_tolerant", "algorithms", "improvement_ratios")
    params = _paper("fault_tolerant")
    measured = sorted(100 * r for r in results["fault_tolerant"].fault_rate.unique())
    for fig in (ft_plots.fig_success_chain_figs_4_5(results, params),
                ft_plots.fig_improvement_adaptive_square_vs_chain_figs_8_9(results, params),
                ft_plots.fig_path_plus_adaptive_square_figs_10_11(results, params),
                ft_plots.fig_gap_to_oracle(results, params)):
        for ax in fig.axes:
            assert ax.get_xticks().tolist() == pytest.approx(measured), ax.get_title()
        plt.close(fig)


def test_path_length_ticks_are_the_dimensions_measured_and_tori_are_ticked_on_their_nodes():
    summary = pd.DataFrame({"variant": ["paper"] * 3, "n": [2, 3, 5], "bound": [14, 26, 63],
                            "max_len_max": [11, 17, 33], "max_len_mean": [5.0, 8.0, 18.0],
                            "max_len_std": [1.0, 1.0, 2.0], "instances": 10})
    fig = dp_plots.fig_fig9_path_lengths({"disjoint_paths": summary}, {})
    assert fig.axes[0].get_xticks().tolist() == [2, 3, 5]
    plt.close(fig)
    assert node_ticks(8) == list(range(8)) and node_ticks(64) == list(range(0, 64, 4))
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    draw_torus_3d(ax, Torus(3, 5))
    assert [axis.get_ticklocs().tolist() for axis in (ax.xaxis, ax.yaxis, ax.zaxis)] == [list(range(5))] * 3
    plt.close(fig)


# ---------------------------------------------------------------------- heat maps
def _heatmap(k: int) -> pd.DataFrame:
    rows = [{"routing": "odr", "k": k, "x0": x0, "x1": x1, "dim": dim, "sign": sign, "residue": (x0 + x1) % k,
             "processor": (x0 + x1) % k == 0, "load": float((x0 * 3 + x1 + dim) % 5)}
            for x0 in range(k) for x1 in range(k) for dim in (0, 1) for sign in (-1, 1)]
    return pd.DataFrame(rows)


def test_processors_show_white_with_a_black_edge_on_every_colour_and_every_node_is_ticked():
    k = 6
    fig = loads_plots.fig_heatmap_2d({"heatmap_2d": _heatmap(k)}, {"heatmap_k_2d": k, "routings": ["odr"]})
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 4
    for ax in panels:
        marks = [c for c in ax.collections if isinstance(c, PathCollection)]
        assert len(marks) == 1 and len(marks[0].get_offsets()) == k
        assert np.allclose(marks[0].get_facecolors()[:, :3], 1) and np.allclose(marks[0].get_edgecolors()[:, :3], 0)
        assert ax.get_xticks().tolist() == list(range(k)) and ax.get_yticks().tolist() == list(range(k))
    plt.close(fig)


# ---------------------------------------------------------------------- witness cycles
def _wrap_channel(topology: Torus) -> int:
    return next(c for c in range(topology.num_channels) if topology.is_wraparound(c))


def test_a_wraparound_channel_leaves_the_grid_and_re_enters_it_at_its_destination():
    topology = Torus(2, 4)
    cid = _wrap_channel(topology)
    (leave_from, leave_to), (enter_from, enter_to) = channel_segments(topology, cid)
    src = topology.coords(int(topology.channel_src[cid]))
    dst = topology.coords(int(topology.channel_dst[cid]))
    assert leave_from == tuple(map(float, src)) and enter_to == tuple(map(float, dst))
    for x, y in (leave_to, enter_from):
        assert not (0 <= x <= 3 and 0 <= y <= 3)                            # both stubs reach outside the grid
    inner = next(c for c in range(topology.num_channels) if not topology.is_wraparound(c))
    check = pd.DataFrame({"routing": ["r"], "cycle_length": [2], "cycle_channels": [f"{cid}:0 {inner}:1"]})
    fig = byor_plots.fig_cdg_witness_cycle({"cdg_check": check}, {"cdg_radix": 4})
    arrows = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 3                                                  # the wraparound channel drawn twice
    title = fig.axes[0].get_title()
    assert "Torus(" not in title and "4 x 4 torus" in title
    plt.close(fig)


def _witness_results(k: int) -> dict[str, pd.DataFrame]:
    rows, lines = [], []
    for kind, routing, _ in vm_plots.WITNESS_PANELS:
        topology = make_network(kind, k)
        wrap = _wrap_channel(topology) if kind != "mesh" else 3
        rows.append({"kind": kind, "k": k, "routing": routing, "acyclic": routing.endswith("count"),
                     "cycle_channels": f"{wrap}:0 1:1 2:2"})
        lines.append({"kind": kind, "k": k, "routing": routing, "datelines": json.dumps([[0, 1, k - 1]])})
    return {"cdg_verdicts": pd.DataFrame(rows), "cdg_datelines": pd.DataFrame(lines)}


def test_witness_cycle_labels_are_legible_at_page_width_and_titles_are_words():
    fig = vm_plots.fig_cdg_witness_cycles(_witness_results(4), {"ks": [4]})
    fig.canvas.draw()
    box = fig.get_tightbbox(fig.canvas.get_renderer())
    scale = min(1.0, PAGE_WIDTH / box.width)                                 # as read on a page
    assert box.width <= PAGE_WIDTH + 0.5
    labels = [t for ax in fig.axes for t in ax.texts if ":v" in t.get_text()]
    assert labels and min(t.get_fontsize() for t in labels) * scale >= 8
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert min(t.get_fontsize() for t in texts) * scale >= 8, min((t.get_fontsize(), t.get_text()) for t in texts)
    for ax, (_, routing, words) in zip(fig.axes, vm_plots.WITNESS_PANELS, strict=True):
        assert words in ax.get_title() and routing not in ax.get_title()
    plt.close(fig)


def test_cdg_cycle_arrows_re_enter_the_grid():
    topology = Torus(2, 4)
    cid = _wrap_channel(topology)
    fig, ax = plt.subplots()
    inner = next(c for c in range(topology.num_channels) if not topology.is_wraparound(c))
    vm_plots.draw_cdg_cycle(ax, topology, [(cid, 0), (inner, 1)])
    arrows = [c for c in ax.get_children() if isinstance(c, Annotation) and c.arrow_patch is not None]
    assert len(arrows) == 3
    dst = topology.coords(int(topology.channel_dst[cid]))
    ends = [np.asarray(a.xy) for a in arrows]
    assert any(np.linalg.norm(end - np.asarray(dst, dtype=float)) < 0.2 for end in ends)  # arrives at its node
    plt.close(fig)


# ---------------------------------------------------------------------- titles in words
def test_titles_carry_no_internal_ids():
    summary = pd.DataFrame({"misroute": ["y"] * 2, "nodes": [16, 32], "faults": [0, 0],
                            **{f"{m}_{s}": [1.0, 2.0] for m in ("latency", "hops", "extra_hops")
                               for s in ("mean", "ci")}})
    params = {"policies": ["y"], "long_warmup": 10, "long_measure": 20}
    fig = df_plots.fig_fig4_paper({"fig4_paper_summary": summary}, params, "y")
    assert "'y'" not in fig.get_suptitle() and "misroutes" in fig.get_suptitle()
    plt.close(fig)
    results = _committed("fault_tolerant", "fault_tolerant", "algorithms")
    fig = ft_plots.fig_success_chain_figs_4_5(results, _paper("fault_tolerant"))
    assert "Success rate of Chain" in fig.get_suptitle()
    assert all("#" not in ax.get_title() for ax in fig.axes)
    plt.close(fig)
    fig = loads_plots.fig_heatmap_3d(_committed("loads", "heatmap_3d"), {"heatmap_k_3d": 6, "routings": ["odr"]})
    assert "T_3" not in fig.axes[0].get_title() and "6x6x6 torus" in fig.axes[0].get_title()
    plt.close(fig)


# ---------------------------------------------------------------------- reference slopes
def test_the_worst_case_slope_runs_through_the_data_not_from_its_first_point():
    from torus_lab.studies.disjoint_paths import work_growth
    from torus_lab.timing import timing_key

    per = pd.DataFrame({"n": np.repeat([2, 3, 4, 5, 6], 3), "paper_work": np.repeat([16, 40, 80, 150, 250], 3)})
    work, fits = work_growth(per)
    ratio = np.log(work.work_mean / work.worst_case_fitted)
    assert abs(ratio.sum()) < 1e-9 and (ratio > 0).any() and (ratio < 0).any()  # fitted: through the middle
    times = work.rename(columns={"work_mean": "cpu_mean_s", "worst_case_fitted": "worst_case_fitted_s",
                                 "work_fit": "cpu_fit_s"}).assign(time_mean_s=lambda t: t.cpu_mean_s,
                                                                  cpu_p99_s=lambda t: t.cpu_mean_s)
    results = {"work_per_instance": work, "work_fit": fits,
               timing_key("time_per_instance"): times, timing_key("time_fit"): fits.replace("work_mean", "cpu_mean_s")}
    fig = dp_plots.fig_fig10_time(results, {})
    for ax in fig.axes[:2]:
        slope = next(ln for ln in ax.get_lines() if "slope" in ln.get_label())
        mean = next(ln for ln in ax.get_lines() if ln.get_label().startswith("mean"))
        above = np.asarray(slope.get_ydata()) > np.asarray(mean.get_ydata())
        assert above.any() and not above.all()                               # it crosses the data
        assert ax.get_xticks().tolist() == [2, 3, 4, 5, 6]
    plt.close(fig)
