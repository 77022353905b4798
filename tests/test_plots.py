"""Plot functions on small frames: the seaborn interval helper draws the study's intervals, the
latency-load figures of virtual_mesh, direction_first and bring_your_own_routing run on a few rows, and the same
data gives the same PNG and SVG bytes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection, PolyCollection  # noqa: E402

from torus_lab.plots import bring_your_own_routing as byor_plots  # noqa: E402
from torus_lab.plots import direction_first as df_plots  # noqa: E402
from torus_lab.plots import virtual_mesh as vm_plots  # noqa: E402
from torus_lab.plotting import THEME, interval_lineplot, save_figure  # noqa: E402


def _curves() -> pd.DataFrame:
    return pd.DataFrame({"load": [0.1, 0.2, 0.3] * 2, "lat": [10.0, 12.0, 20.0, 11.0, 15.0, 40.0],
                         "lo": [9.0, 11.0, 15.0, np.nan, 13.0, 30.0], "hi": [11.0, 13.0, 25.0, np.nan, 17.0, 50.0],
                         "routing": ["a"] * 3 + ["b"] * 3, "panel": "p"})


def _band_limits(ax) -> list[tuple[float, float]]:
    """(lowest, highest) y of the band polygons of ``ax``, one per band."""
    return [(float(p.get_paths()[0].vertices[:, 1].min()), float(p.get_paths()[0].vertices[:, 1].max()))
            for p in ax.collections if isinstance(p, PolyCollection) and len(p.get_paths())]


def test_interval_lineplot_draws_the_given_intervals_not_a_bootstrap():
    grid = interval_lineplot(_curves(), x="load", y="lat", low="lo", high="hi", hue="routing", col="panel")
    ax = grid.axes_dict["p"]
    assert _band_limits(ax) == [(9.0, 25.0), (13.0, 50.0)]   # b's band starts where its interval does
    means = [line.get_ydata().tolist() for line in ax.get_lines()]
    assert [10.0, 12.0, 20.0] in means and [11.0, 15.0, 40.0] in means
    assert [t.get_text() for t in grid.legend.get_texts()] == ["a", "b"]
    plt.close(grid.figure)


def test_interval_lineplot_orders_panels_and_lines_and_rejects_bad_columns():
    frame = pd.concat([_curves(), _curves().assign(panel="q")], ignore_index=True)
    grid = interval_lineplot(frame, x="load", y="lat", low="lo", high="hi", hue="routing", col="panel",
                             col_order=["q", "p"], hue_order=["b", "a"], log_y=True, col_title="panel {col_name}")
    assert [ax.get_title() for ax in grid.axes.flat] == ["panel q", "panel p"]
    assert [t.get_text() for t in grid.legend.get_texts()] == ["b", "a"]
    assert grid.axes.flat[0].get_yscale() == "log"
    plt.close(grid.figure)
    with pytest.raises(ValueError, match="low"):
        interval_lineplot(_curves(), x="load", y="lat", low="missing", high="hi", hue="routing")
    with pytest.raises(ValueError, match="hue_order"):
        interval_lineplot(_curves(), x="load", y="lat", low="lo", high="hi", hue="routing", hue_order=["a"])


def test_the_theme_is_seaborn_based_and_machine_independent():
    assert THEME["font.sans-serif"] == ["DejaVu Sans"] and THEME["svg.hashsalt"] == "torus_lab"
    assert THEME["xtick.labelsize"] >= 9 and THEME["legend.fontsize"] >= 9


def _vm_summary() -> pd.DataFrame:
    rows = []
    for routing, network, base in (("pfnf", "torus", 10.0), ("pfnf", "mesh", 12.0)):
        for traffic in ("uniform", "transpose"):
            for load in (0.1, 0.3, 0.5):
                dead = routing == "pfnf" and network == "torus" and load == 0.5 and traffic == "uniform"
                mean = np.nan if dead else base * (1 + 4 * load)
                rows.append({"routing": routing, "network": network, "traffic": traffic, "offered_load": load,
                             "runs": 3, "deadlocks": 1 if dead else 0, "mean_latency_mean": mean,
                             "mean_latency_low": mean - 1, "mean_latency_high": mean + 1, "mean_latency_n": 3,
                             "seed": 1})
    return pd.DataFrame(rows)


def _vm_saturation(summary: pd.DataFrame) -> pd.DataFrame:
    """Every curve sustained up to its heaviest load (no saturation inside the grid)."""
    return (summary.groupby(["routing", "network", "traffic"], as_index=False).offered_load.max()
            .rename(columns={"offered_load": "saturation_load"}))


def test_virtual_mesh_latency_figure_marks_deadlocked_loads_and_draws_bands():
    summary = _vm_summary()
    fig = vm_plots.fig_latency_vs_load({"latency_summary": summary, "saturation": _vm_saturation(summary)},
                                       {"sim_k": 4, "sim_traffics": ["uniform", "transpose"]})
    uniform, transpose = fig.axes[:2]
    assert uniform.get_title() == "uniform traffic, 4x4" and transpose.get_title() == "transpose traffic, 4x4"
    crosses = [c for c in uniform.collections if isinstance(c, PathCollection) and len(c.get_offsets()) == 1]
    assert any(np.isclose(c.get_offsets()[0][0], 0.5) for c in crosses)           # the deadlocked load
    torus_line = [ln for ln in uniform.get_lines() if len(ln.get_xdata()) == 2]
    assert torus_line and list(torus_line[0].get_xdata()) == [0.1, 0.3]           # left off its curve
    assert len(_band_limits(transpose)) == 2
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["pfnf", "pfnf (mesh)"]
    plt.close(fig)


def test_direction_first_and_byor_latency_figures_run_on_small_frames():
    summary = pd.DataFrame({"network": ["8-ary 2-cube"] * 4, "algorithm": ["df", "df", "ecube", "ecube"],
                            "offered_load": [0.1, 0.2] * 2, "mean_latency_mean": [10.0, 20.0, 11.0, 30.0],
                            "mean_latency_ci": [1.0, 2.0, np.nan, 3.0], "mean_latency_n": [3, 3, 1, 3]})
    params = {"curve_routings": [{"label": "ecube"}, {"label": "df"}, {"label": "unused"}]}
    saturation = pd.DataFrame({"network": "8-ary 2-cube", "algorithm": ["df", "ecube"], "saturation_load": 0.2})
    fig = df_plots.fig_latency_vs_load({"load_curve_summary": summary, "saturation": saturation}, params)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["ecube", "df"]
    assert sorted(_band_limits(fig.axes[0])) == [(9.0, 22.0), (27.0, 33.0)]   # NaN interval: no band there
    plt.close(fig)
    curves = pd.DataFrame({"routing": ["a", "a"], "offered_load": [0.1, 0.3], "mean_latency_mean": [8.0, 12.0],
                           "mean_latency_low": [7.0, 10.0], "mean_latency_high": [9.0, 14.0],
                           "accepted_throughput_mean": [0.1, 0.3], "accepted_throughput_low": [0.09, 0.28],
                           "accepted_throughput_high": [0.11, 0.32]})
    fig = byor_plots.fig_latency_load({"latency_load": curves, "saturation": pd.DataFrame(
        {"routing": ["a"], "saturation_load": [0.3]})}, {})
    assert [ax.get_ylabel() for ax in fig.axes[:2]] == ["mean latency (cycles)", "accepted (flits/node/cycle)"]
    assert _band_limits(fig.axes[0]) == [(7.0, 14.0)]
    plt.close(fig)


def test_same_data_gives_the_same_png_and_svg_bytes(tmp_path):
    params = {"sim_k": 4, "sim_traffics": ["uniform", "transpose"]}
    written = []
    for folder in ("a", "b"):
        fig = vm_plots.fig_latency_vs_load({"latency_summary": _vm_summary(),
                                            "saturation": _vm_saturation(_vm_summary())}, params)
        written.append([path.read_bytes() for path in save_figure(fig, tmp_path / folder, "latency")])
        plt.close(fig)
    assert written[0] == written[1]
    assert b"Date" not in written[0][1]   # no timestamp in the SVG metadata


def test_virtual_mesh_latency_figure_when_every_run_of_a_curve_deadlocked():
    params = {"sim_k": 4, "sim_traffics": ["uniform", "transpose"]}
    summary = _vm_summary()
    summary.loc[summary.network == "mesh", "deadlocks"] = 1
    fig = vm_plots.fig_latency_vs_load({"latency_summary": summary, "saturation": _vm_saturation(summary)}, params)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["pfnf", "pfnf (mesh)"]   # still named
    plt.close(fig)
    summary["deadlocks"] = 1                       # nothing to draw but crosses: the figure still renders
    fig = vm_plots.fig_latency_vs_load({"latency_summary": summary, "saturation": _vm_saturation(summary)}, params)
    crosses = [c for ax in fig.axes[:2] for c in ax.collections if isinstance(c, PathCollection)]
    assert sum(len(c.get_offsets()) for c in crosses) == len(summary)
    fig.canvas.draw()
    plt.close(fig)


def test_a_saved_figure_is_laid_out_once_for_all_its_formats_and_keeps_its_layout_engine(tmp_path, monkeypatch):
    """The PNG's layout serves the SVG (one constrained-layout pass per figure, the same positions in both files);
    afterwards the figure lays itself out again (a colorbar's figure too)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    with plt.rc_context(THEME):
        fig, axes = plt.subplots(1, 2)
        image = axes[0].imshow(np.arange(12).reshape(3, 4))
        fig.colorbar(image, ax=axes[0])
        axes[1].plot([0, 1], [0, 1], label="a line")
        fig.legend(loc="outside lower center")
    engine = fig.get_layout_engine()
    calls = []
    original = ConstrainedLayoutEngine.execute
    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", lambda self, f: calls.append(f) or original(self, f))
    paths = save_figure(fig, tmp_path, "two_panels", formats=("png", "svg", "pdf"))
    assert [p.suffix for p in paths] == [".png", ".svg", ".pdf"] and all(p.stat().st_size > 0 for p in paths)
    assert len(calls) == 1
    assert fig.get_layout_engine() is engine
    fig.canvas.draw()
    assert len(calls) == 2
    plt.close(fig)


def test_latency_load_figure_one_convention_panels_and_deadlock_crosses():
    from torus_lab.plotting import latency_load_figure

    curves = pd.DataFrame({"routing": ["a", "a", "b", "b"], "offered_load": [0.1, 0.3] * 2,
                           "mean_latency_mean": [8.0, 12.0, 9.0, 40.0], "mean_latency_low": [7.0, 10.0, 8.0, 30.0],
                           "mean_latency_high": [9.0, 14.0, 10.0, 50.0], "deadlocks": [0, 0, 0, 1],
                           "accepted_throughput_mean": 0.1, "accepted_throughput_low": 0.09,
                           "accepted_throughput_high": 0.11})
    fig = latency_load_figure(curves, hue="routing", mark_deadlocks=True)
    assert sorted(_band_limits(fig.axes[0])) == [(7.0, 14.0), (8.0, 10.0)]     # the deadlocked point left off
    crosses = [c for c in fig.axes[0].collections if isinstance(c, PathCollection)]
    assert [list(c.get_offsets()[:, 0]) for c in crosses] == [[0.3]]
    plt.close(fig)
    panels = (("mean_latency", "Latency", "cycles"), ("accepted_throughput", "Throughput", "flits"))
    fig = latency_load_figure(curves, hue="routing", metrics=panels)
    assert [ax.get_ylabel() for ax in fig.axes[:2]] == ["cycles", "flits"]
    plt.close(fig)
    with pytest.raises(ValueError, match="col"):
        latency_load_figure(curves, hue="routing", metrics=panels, col="routing")
    with pytest.raises(ValueError, match="mean_latency_low"):
        latency_load_figure(curves.drop(columns="mean_latency_low"), hue="routing")
