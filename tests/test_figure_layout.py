"""Figure layout: no text of one panel runs into another panel's text (the loads x-label ran into the
next panel's title; legends count as their panel's text, figure legends as nobody's), and no curve runs through a
legend (the Fig. 10 bound line crossed it), checked on rendered figures of quick studies and of small frames."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from torus_lab.experiment import load_experiment  # noqa: E402
from torus_lab.plots import loads as loads_plots  # noqa: E402
from torus_lab.studies import loads as loads_study  # noqa: E402


def _drawn_tick_labels(axis):
    """Tick labels inside the axis's view (matplotlib keeps labels for ticks outside it, never drawn)."""
    low, high = sorted(axis.get_view_interval())
    return [tick.label1 for tick in axis.get_major_ticks() if low <= tick.get_loc() <= high]


def _legend_texts(legend):
    return [legend.get_title(), *legend.get_texts()] if legend is not None else []


def _panel_texts(fig):
    """(panel index, text, window bbox) of every visible, non-empty title, axis label, tick label and legend
    text (a figure legend's texts get index -1: they belong to no panel)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for index, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *_drawn_tick_labels(ax.xaxis), *_drawn_tick_labels(ax.yaxis),
                 *_legend_texts(ax.get_legend())]
        out += [(index, text.get_text(), text.get_window_extent(renderer)) for text in texts
                if text.get_visible() and text.get_text().strip()]
    for legend in fig.legends:
        out += [(-1, text.get_text(), text.get_window_extent(renderer)) for text in _legend_texts(legend)
                if text.get_visible() and text.get_text().strip()]
    return out


def overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of texts of different panels whose boxes intersect."""
    texts = _panel_texts(fig)
    return [(a[1], b[1]) for a, b in itertools.combinations(texts, 2) if a[0] != b[0] and a[2].overlaps(b[2])]


def legend_crossings(fig, samples: int = 64) -> list[tuple[str, str]]:
    """(legend's first entry, line label) for every drawn curve segment passing through a legend's box (inside
    its axes, where it is drawn).  Marker-only lines are skipped."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    steps = np.linspace(0.0, 1.0, samples)[:, None]
    out = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        name = legend.get_texts()[0].get_text() if legend.get_texts() else "legend"
        for ax in fig.axes:
            panel = ax.get_window_extent(renderer)
            for line in ax.get_lines():
                if not line.get_visible() or line.get_linestyle() in ("None", "", " "):
                    continue
                xy = np.column_stack([np.asarray(line.get_xdata(), dtype=float),
                                      np.asarray(line.get_ydata(), dtype=float)])
                points = line.get_transform().transform(xy)
                for p, q in zip(points[:-1], points[1:], strict=True):
                    if not (np.isfinite(p).all() and np.isfinite(q).all()):
                        continue
                    pts = p + (q - p) * steps
                    drawn = ((pts[:, 0] >= panel.x0) & (pts[:, 0] <= panel.x1) & (pts[:, 1] >= panel.y0)
                             & (pts[:, 1] <= panel.y1))
                    inside = ((pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0)
                              & (pts[:, 1] < box.y1))
                    if (drawn & inside).any():
                        out.append((name, line.get_label()))
                        break
    return out


def test_the_legend_check_sees_a_curve_through_the_legend():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1], label="a")
    ax.plot([0, 1], [1, 1], label="b")
    ax.legend(loc="upper left")
    ax.plot([0, 1], [0.97, 0.97], label="through the legend")
    assert ("a", "through the legend") in legend_crossings(fig)
    ax.get_legend().remove()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15))
    assert legend_crossings(fig) == []
    plt.close(fig)


def test_the_overlap_check_sees_an_overlap():
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(3, 2), layout="none")
    fig.subplots_adjust(hspace=0.0)
    top.set_xlabel("a long x label")
    bottom.set_title("a long title")
    assert overlaps(fig)
    plt.close(fig)


@pytest.fixture(scope="module")
def loads_results():
    params = dict(load_experiment("loads").presets["quick"])
    # four dimensions: two rows of panels, where the paper-preset figure's x-label ran into the next row's title
    params["radices_by_dim"] = [*params["radices_by_dim"], {"dims": 4, "radices": [4, 5]}, {"dims": 5, "radices": [4]}]
    return loads_study.run(params), params


@pytest.mark.parametrize("name", loads_plots.__all__)
def test_loads_figures_have_no_overlapping_text(loads_results, name):
    results, params = loads_results
    fig = getattr(loads_plots, name)(results, params)
    assert overlaps(fig) == []
    plt.close(fig)


def test_the_overlap_check_sees_a_legend_over_another_panel():
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(3, 3), layout="none")
    top.plot([0, 1], label="a line")
    bottom.set_title("title under it")
    top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), bbox_transform=bottom.transAxes)
    assert ("a line", "title under it") in overlaps(fig)
    plt.close(fig)


# ---------------------------------------------------------------------- disjoint_paths Fig. 10: the steep bound
def _fig10_results():
    from torus_lab.timing import timing_key

    n = np.arange(2, 8)
    work = 50.0 * n ** 1.6
    bound = n * n ** 4 * (work[0] / (2 * 2 ** 4))  # n c^4 scaled to the mean at the smallest n: steep
    return {
        "work_per_instance": pd.DataFrame({"n": n, "work_mean": work, "work_p99": 2 * work, "worst_case_fitted": bound,
                                           "work_fit": work}),
        "work_fit": pd.DataFrame({"measure": ["work_mean"], "exponent": [1.6]}),
        timing_key("time_per_instance"): pd.DataFrame({"n": n, "cpu_mean_s": work * 1e-6, "time_mean_s": work * 2e-6,
                                                      "cpu_p99_s": work * 3e-6, "worst_case_fitted_s": bound * 1e-6,
                                                      "cpu_fit_s": work * 1e-6}),
        timing_key("time_fit"): pd.DataFrame({"measure": ["cpu_mean_s"], "exponent": [1.6]}),
    }


def test_fig10_bound_line_does_not_cross_the_legend_and_texts_do_not_overlap():
    from torus_lab.plots import disjoint_paths as dp_plots

    fig = dp_plots.fig_fig10_time(_fig10_results(), {})
    assert legend_crossings(fig) == []
    assert overlaps(fig) == []
    plt.close(fig)


# ---------------------------------------------------------------------- fault_tolerant example, direction_first Fig. 4
def test_faulty_torus_example_has_arrows_and_the_square_shading_in_its_legend():
    from matplotlib.text import Annotation

    from torus_lab.plots import fault_tolerant as ft_plots
    from torus_lab.studies.fault_tolerant import example_routes, example_walks

    seed = 6  # a trial where the square algorithms walk a link twice (backtracking)
    _, _, _, routes, _ = example_routes(16, 3, 51, seed)
    pick = {"radix": 16, "m": 3, "fault_count": 51, "trial_seed": seed}
    walks = example_walks(pick, 1)
    fig = ft_plots.fig_faulty_torus_example({"faulty_torus_example_walks": walks}, {})
    assert overlaps(fig) == []
    for ax, name in zip(fig.axes, walks["algorithm"], strict=True):
        arrows = [c for c in ax.get_children() if isinstance(c, Annotation) and c.arrow_patch is not None]
        assert len(arrows) >= len(routes[name].walked) - 1   # one arrow per hop (two per wraparound hop)
    walks_again = [a for a in ft_plots.walk_arrows(routes["backtracking_square"].walked) if a[2] > 0]
    assert walks_again, "the chosen trial must revisit a link"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("square" in label for label in labels) and any("again" in label for label in labels)
    plt.close(fig)


def test_fig4_panels_have_titles():
    from torus_lab.plots import direction_first as df_plots

    summary = pd.DataFrame({"misroute": ["y"] * 4, "nodes": [16, 32, 16, 32], "faults": [0, 0, 2, 2],
                            **{f"{m}_{s}": [1.0, 2.0, 1.5, 2.5] for m in ("latency", "hops", "extra_hops")
                               for s in ("mean", "ci")}})
    params = {"policies": ["y"], "long_warmup": 10, "long_measure": 20}
    for fig in (df_plots.fig_fig4_paper({"fig4_paper_summary": summary}, params, "y"),
                df_plots.fig_fig4_long({"fig4_long_summary": summary}, params, "y")):
        titles = [ax.get_title() for ax in fig.axes]
        assert all(titles) and len(set(titles)) == 3
        assert fig.get_suptitle() not in titles   # the figure title says what the whole figure shows
        assert legend_crossings(fig) == []
        assert overlaps(fig) == []
        plt.close(fig)


# ---------------------------------------------------------------------- virtual_mesh on a tiny study
@pytest.fixture(scope="module")
def virtual_mesh_results():
    from torus_lab.studies import virtual_mesh as vm_study

    params = dict(load_experiment("virtual_mesh").presets["quick"])
    params.update(ks=[4], vc_ks=[4, 5], sim_routings=[{"name": "ecube", "datelines": True, "vcs": 2}],
                  sim_mesh_routings=[{"name": "pfnf"}], sim_loads=[0.05, 0.3], sim_warmup=20, sim_measure=80,
                  sim_drain=300, provoke_routings=[{"name": "ecube"}], provoke_seeds=1)
    return vm_study.run(params), params


def _virtual_mesh_figures():
    from torus_lab.plots import virtual_mesh as vm_plots

    return [name for name in vm_plots.__all__ if name.startswith("fig_")]


@pytest.mark.parametrize("name", _virtual_mesh_figures())
def test_virtual_mesh_figures_have_no_overlapping_text_and_readable_fonts(virtual_mesh_results, name):
    from torus_lab.plots import virtual_mesh as vm_plots

    results, params = virtual_mesh_results
    fig = getattr(vm_plots, name)(results, params)
    assert overlaps(fig) == []
    assert legend_crossings(fig) == []
    sizes = [size for _, size in _font_sizes(fig)]
    assert min(sizes) >= 8, _font_sizes(fig)[int(np.argmin(sizes))]
    plt.close(fig)


def _font_sizes(fig):
    """(text, size in points) of every visible text of the figure."""
    from matplotlib.text import Text

    return [(t.get_text(), t.get_fontsize()) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def test_virtual_mesh_pictures_draw_the_datelines(virtual_mesh_results):
    from torus_lab.plots import virtual_mesh as vm_plots

    results, params = virtual_mesh_results
    fig = vm_plots.fig_virtual_mesh(results, params)
    k = params["draw_k"]
    expected = [["VN0 +x/+y dateline: column/row 4"],
                ["VN0 +x/+y dateline: column/row 4", "VN0 -x/-y dateline: column/row 0"],
                ["VN0 +x/+y dateline: column/row 4", "VN0 -x/-y dateline: column/row 0",
                 "VN1 +x/+y dateline: column/row 1", "VN1 -x/-y dateline: column/row 2"]]
    assert k == 5
    for ax, datelines in zip(fig.axes, expected, strict=True):
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert [label for label in labels if "dateline" in label] == datelines
        rows = {float(line.get_ydata()[0]) for line in ax.get_lines() if line.get_label().startswith("VN")}
        assert rows == {float(label.rsplit(" ", 1)[1]) for label in datelines}   # rows where the legend says
    plt.close(fig)
