"""Figure layout: no text of one panel runs into another panel's text (issue 17: the loads x-label ran into the
next panel's title), checked on the rendered figures of a quick study."""

from __future__ import annotations

import itertools

import matplotlib

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


def _panel_texts(fig):
    """(panel index, text, window bbox) of every visible, non-empty title, axis label and tick label."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for index, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *_drawn_tick_labels(ax.xaxis), *_drawn_tick_labels(ax.yaxis)]
        for text in texts:
            if text.get_visible() and text.get_text().strip():
                out.append((index, text.get_text(), text.get_window_extent(renderer)))
    return out


def overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of texts of different panels whose boxes intersect."""
    texts = _panel_texts(fig)
    return [(a[1], b[1]) for a, b in itertools.combinations(texts, 2) if a[0] != b[0] and a[2].overlaps(b[2])]


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
