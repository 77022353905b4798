"""One figure style for the whole project: colour-blind-safe palette, labelled axes, PNG + SVG output.

The theme (:data:`THEME`: seaborn's ``ticks`` style and ``notebook`` context with the project's overrides) is set
here and nowhere else; :func:`apply_style` / :func:`figure_style` install it, every ``torus_lab.plots`` figure
calls one of them.  :func:`interval_lineplot` draws line plots with precomputed confidence intervals (the exact
statistic each study computes: t-intervals over seeds, Wilson intervals for success rates) as bands, one panel
per facet, on a seaborn ``FacetGrid``.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import tempfile
>>> with figure_style():
...     fig, ax = new_figure()
...     _ = ax.plot([1, 2], [3, 4], label="e-cube")
...     paths = save_figure(fig, tempfile.mkdtemp(), "example")
>>> sorted(p.suffix for p in paths)
['.png', '.svg']
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import Normalize

from torus_lab._validate import check_instance, check_int, check_real, check_real_array, check_sequence, check_str
from torus_lab.settings import FIGURE_METADATA_KEY, current_settings

__all__ = [
    "PALETTE", "MARKERS", "figure_style", "apply_style", "new_figure", "save_figure", "show_figure", "color_cycle",
    "draw_torus_2d", "draw_paths_2d", "draw_torus_3d", "THEME", "interval_lineplot",
    "LATENCY_PANEL", "latency_load_figure", "SATURATION_MARK", "SATURATION_LABEL", "WRAP_STUB", "channel_segments",
    "PAGE_WIDTH", "node_ticks", "MAX_NODE_TICKS",
]  # fmt: skip

#: Okabe & Ito colour-blind-safe palette (black last).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
#: Width (inches) at which a figure is read: a printed page's text or the site's content column.  A figure meant to
#: be read at that width is saved at it, so that its font sizes are the sizes read.
PAGE_WIDTH = 7.5
#: Marker per line, in order (used with :data:`PALETTE`).
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]

_RC = {
    "figure.figsize": (6.4, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "figure.constrained_layout.use": True,  # panels, labels and figure legends never overlap
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "font.sans-serif": ["DejaVu Sans"],  # shipped with matplotlib: the same glyphs (and bytes) on every machine
    "image.cmap": "viridis",
    "legend.frameon": False,
    "svg.hashsalt": "torus_lab",  # deterministic SVG ids
    "svg.fonttype": "none",
}


def _theme() -> dict:
    from cycler import cycler

    return {**sns.axes_style("ticks"), **sns.plotting_context("notebook", font_scale=0.9), **_RC,
            "axes.prop_cycle": cycler(color=PALETTE)}


#: The project's rcParams: seaborn's ``ticks`` style and ``notebook`` context (font scale 0.9: 10.8 pt labels
#: and titles, 9.9 pt tick labels and legends), then the overrides above.
THEME = _theme()


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """Context manager applying the project theme :data:`THEME` (palette cycle, grid, sizes)."""
    with plt.rc_context(THEME):
        yield


def apply_style() -> None:
    """Apply the project theme :data:`THEME` globally (notebooks and every ``torus_lab.plots`` figure)."""
    plt.rcParams.update(THEME)


#: Most colours :func:`color_cycle` hands out (a figure never needs more).
MAX_COLORS = 10_000


def color_cycle(n: int) -> list[str]:
    """``n`` colours from the palette, repeating if needed."""
    n = check_int("n", n, minimum=0, maximum=MAX_COLORS)
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


#: Most rows or columns of panels :func:`new_figure` makes.
MAX_PANELS = 50


def new_figure(nrows: int = 1, ncols: int = 1, **kwargs):
    """``plt.subplots`` with the project's size scaled to the grid."""
    nrows = check_int("nrows", nrows, minimum=1, maximum=MAX_PANELS)
    ncols = check_int("ncols", ncols, minimum=1, maximum=MAX_PANELS)
    width, height = _RC["figure.figsize"]
    kwargs.setdefault("figsize", (width * ncols, height * nrows))
    return plt.subplots(nrows, ncols, **kwargs)


def _check_figure(fig: object) -> None:
    from matplotlib.figure import Figure

    check_instance("fig", fig, Figure, "a matplotlib Figure")


def _check_axes(ax: object) -> None:
    from matplotlib.axes import Axes

    check_instance("ax", ax, Axes, "a matplotlib Axes")


def _check_axes_2d(ax: object, topology: object) -> None:
    """``ax`` a matplotlib Axes and ``topology`` a 2-D torus or mesh (what the 2-D drawings take)."""
    from torus_lab.topology import Torus

    _check_axes(ax)
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if topology.n != 2:
        raise ValueError(f"topology must be 2-dimensional, got {topology!r}")


def save_figure(fig, figures_dir: str | Path, name: str, *, formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Save ``fig`` as ``figures_dir/name.<fmt>`` for each format (PNG for reports, SVG for papers).

    SVG metadata dates are dropped so re-running gives identical files.  The figure's layout (constrained layout,
    :data:`THEME`) is computed once, when the first format is drawn, and the other formats reuse it: every file
    shows the same layout, and a figure costs one layout pass instead of one per format (a layout is most of a
    draw: about 40% of the time of saving a figure of several panels).  The layout engine is restored after.

    Examples
    --------
    >>> import tempfile
    >>> fig, ax = new_figure()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> [p.suffix for p in save_figure(fig, tempfile.mkdtemp(), "line")]
    ['.png', '.svg']
    >>> type(fig.get_layout_engine()).__name__
    'ConstrainedLayoutEngine'
    """
    _check_figure(fig)
    out_dir = Path(check_instance("figures_dir", figures_dir, (str, os.PathLike), "a folder path"))
    if "\0" in str(figures_dir):
        raise ValueError(f"figures_dir must be a folder path without NUL characters, got {str(figures_dir)!r}")
    if not check_str("name", name) or any(c in name for c in "/\\\0"):
        raise ValueError(f"name must be a file stem (no path separators or NUL), got {name!r}")
    formats = [check_str("formats", fmt, ("png", "svg", "pdf", "jpg")) for fmt in check_sequence("formats", formats)]
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    engine = fig.get_layout_engine()
    try:
        for fmt in formats:
            path = out_dir / f"{name}.{fmt}"
            metadata = {"Date": None} if fmt == "svg" else {"Software": None} if fmt == "png" else None
            fig.savefig(path, format=fmt, metadata=metadata)
            paths.append(path)
            if engine is not None and len(paths) == 1:
                fig.set_layout_engine("none")  # the next formats keep the layout this draw computed
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)
    return paths


# ---------------------------------------------------------------------- figures inside executed notebooks
# FIGURE_METADATA_KEY: key of the display metadata in which show_figure records a figure's name, file and caption;
# defined in torus_lab.settings (the site reads it back without the plotting stack).
__all__ += ["FIGURE_METADATA_KEY", "figure_html"]  # the figures of executed notebooks


def figure_html(experiment: str, name: str, caption: str | None) -> str:
    """The HTML an executed notebook shows for figure ``name`` of ``experiment``: the PNG by its path relative to
    ``reports/<experiment>/`` in a ``<figure>`` (id ``figure-<name>``) with ``caption`` as its ``<figcaption>``.

    The site (:mod:`torus_lab.site`) copies ``figures/`` beside the executed notebook's page, so the path resolves.

    Examples
    --------
    >>> figure_html("loads", "emax_vs_k", "E_max against k & the bounds")  # doctest: +NORMALIZE_WHITESPACE
    '<figure class="torus-lab-figure" id="figure-emax_vs_k"><img src="../../figures/loads/emax_vs_k.png"
    alt="E_max against k &amp; the bounds"><figcaption>E_max against k &amp; the bounds</figcaption></figure>'
    """
    from html import escape

    for label, value in (("experiment", experiment), ("name", name)):
        if not check_str(label, value) or any(c in value for c in "/\\\0\"'<>&"):
            raise ValueError(f"{label} must be a file stem without path separators, quotes or markup, got {value!r}")
    if caption is not None:
        check_str("caption", caption)
    text = escape(caption if caption is not None else name)
    figcaption = f"<figcaption>{escape(caption)}</figcaption>" if caption is not None else ""
    return (f'<figure class="torus-lab-figure" id="figure-{name}"><img src="../../figures/{experiment}/{name}.png" '
            f'alt="{text}">{figcaption}</figure>')


def show_figure(fig, figures_dir: str | Path, name: str, *, caption: str | None = None) -> list[Path]:
    """Save ``fig`` (PNG + SVG) and show it: inline when exploring, as a captioned image link under the runner.

    Under the runner the executed notebook (and its page on the site) refer to ``../../figures/<experiment>/<name>.png``
    (:func:`figure_html`), so the ``.ipynb`` stays small; the site shows the PNG beside it.  ``caption`` says what
    the figure shows (one or two sentences, plain text); it is the figure's ``<figcaption>`` and is recorded in
    the display metadata under :data:`~torus_lab.settings.FIGURE_METADATA_KEY` (``{"name", "file",
    "caption"}``), where ``torus-lab report`` finds it.
    """
    if caption is not None and not check_str("caption", caption).strip():
        raise ValueError(f"caption must be a non-empty text saying what the figure shows, got {caption!r}")
    paths = save_figure(fig, figures_dir, name)
    if current_settings().under_runner:
        from IPython.display import HTML, display

        experiment = Path(figures_dir).name
        record = {"name": name, "file": f"figures/{experiment}/{name}.png", "caption": caption}
        display(HTML(figure_html(experiment, name, caption)), metadata={FIGURE_METADATA_KEY: record})
        plt.close(fig)
    return paths


# ---------------------------------------------------------------------- lines with confidence bands
def _check_columns(data: pd.DataFrame, **columns: str | None) -> None:
    for parameter, column in columns.items():
        if column is not None and column not in data.columns:
            raise ValueError(f"{parameter} must name a column of data, got {column!r} (columns: {list(data.columns)})")


def _levels(data: pd.DataFrame, column: str, order, parameter: str) -> list:
    """The values of ``column`` in ``order`` (default: first appearance), checked against the data."""
    present = list(dict.fromkeys(data[column]))
    if order is None:
        return present
    order = list(check_sequence(parameter, order))
    missing = [value for value in present if value not in order]
    if missing:
        raise ValueError(f"{parameter} must list every value of column {column!r}; missing {missing}")
    return order


def _log_floor(data: pd.DataFrame, columns: list[str]) -> float | None:
    """Bottom of a log axis: half the smallest positive value of ``columns`` (None if there is none).  Interval
    bounds at or below zero are drawn down to it (the band then runs to the bottom of the panel)."""
    values = data[columns].to_numpy(dtype=float).ravel()
    positive = values[np.isfinite(values) & (values > 0)]
    return float(positive.min()) / 2 if positive.size else None


def interval_lineplot(data: pd.DataFrame, *, x: str, y: str, low: str, high: str, hue: str, col: str | None = None,
                      hue_order=None, col_order=None, log_y: bool = False, xlabel: str | None = None,
                      ylabel: str | None = None, col_title: str = "{col_name}", legend_title: str | None = None,
                      height: float = 4.2, aspect: float = 1.35, band_alpha: float = 0.2, sharey: bool = True,
                      extra_legend: Mapping[str, Any] | None = None):
    """Mean curves with *precomputed* confidence bands: one line per ``hue`` value, one panel per ``col`` value.

    A seaborn ``FacetGrid`` lays out the panels and ``sns.lineplot`` draws the lines (colours from
    :data:`PALETTE` and markers from :data:`MARKERS` by ``hue``, one shared legend outside the panels); the bands
    are ``fill_between(low, high)``, so the interval is the one the study computed (Student t over seeds from
    :func:`torus_lab.stats.summarize`, Wilson for success rates), never seaborn's bootstrap.  A row whose
    ``low``/``high`` is NaN (a single run) gets no band; with ``log_y`` a lower bound at or below zero is drawn
    down to the bottom of the panel (half the smallest positive value plotted), and a grid with no positive
    value keeps linear axes.

    Parameters
    ----------
    data : DataFrame
        One row per (col, hue, x) point with columns ``x``, ``y`` (the mean), ``low``, ``high``, ``hue``, ``col``.
    x, y, low, high, hue, col : str
        Column names; ``col`` None gives one panel.
    hue_order, col_order : sequence, optional
        Order of lines and panels (default: first appearance in ``data``).
    log_y : bool
        Logarithmic y axis.
    xlabel, ylabel, col_title, legend_title : str, optional
        Axis labels, panel-title template (``{col_name}``) and legend title.
    height, aspect, band_alpha : float
        Panel height (inches), width / height of a panel, opacity of the bands.
    sharey : bool
        One y scale for every panel (False when the panels show different quantities).
    extra_legend : mapping of str to matplotlib artist, optional
        Legend entries after the curves' (label -> handle), for marks drawn on the panels afterwards.

    Returns
    -------
    seaborn.FacetGrid
        ``.figure`` is the figure, ``.axes_dict`` maps each ``col`` value to its panel.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> frame = pd.DataFrame({"load": [0.1, 0.2, 0.1, 0.2], "lat": [10.0, 20.0, 12.0, 30.0],
    ...                       "lo": [9.0, 18.0, 11.0, 25.0], "hi": [11.0, 22.0, 13.0, 35.0], "routing": list("aabb")})
    >>> g = interval_lineplot(frame, x="load", y="lat", low="lo", high="hi", hue="routing")
    >>> len(g.figure.axes), [t.get_text() for t in g.legend.get_texts()]
    (1, ['a', 'b'])
    >>> plt.close(g.figure)
    """
    check_instance("data", data, pd.DataFrame, "a pandas DataFrame")
    for parameter, column in (("x", x), ("y", y), ("low", low), ("high", high), ("hue", hue)):
        check_str(parameter, column)
    if col is not None:
        check_str("col", col)
    _check_columns(data, x=x, y=y, low=low, high=high, hue=hue, col=col)
    for parameter, value in (("height", height), ("aspect", aspect)):
        check_real(parameter, value, minimum=0.1, maximum=100)
    band_alpha = check_real("band_alpha", band_alpha, minimum=0, maximum=1)
    check_instance("sharey", sharey, bool, "True or False")
    check_str("col_title", col_title)
    extra = _check_extra_legend(extra_legend)
    hues = _levels(data, hue, hue_order, "hue_order")
    cols = _levels(data, col, col_order, "col_order") if col is not None else None
    style = _LineStyle(dict(zip(hues, color_cycle(len(hues)), strict=True)),
                       {value: MARKERS[i % len(MARKERS)] for i, value in enumerate(hues)}, band_alpha)  # fmt: skip
    apply_style()
    with plt.rc_context({"figure.constrained_layout.use": False}):  # the FacetGrid lays itself out
        grid = sns.FacetGrid(data, col=col, col_order=cols, height=height, aspect=aspect, sharex=True, sharey=sharey,
                             despine=False)
        floor = _log_floor(data, [y, low, high]) if log_y else None
        for key, ax in (grid.axes_dict.items() if col is not None else [(None, grid.ax)]):
            panel = data if col is None else data[data[col] == key]
            _draw_interval_panel(ax, panel, (x, y, low, high, hue), hues, style, floor)
        if col is not None:
            grid.set_titles(col_template=col_title)
        grid.set_axis_labels(xlabel if xlabel is not None else x, ylabel if ylabel is not None else y)
        from matplotlib.lines import Line2D

        handles = {str(value): Line2D([0], [0], color=style.palette[value], marker=style.markers[value])
                   for value in hues}  # fmt: skip
        handles.update(extra)
        grid.add_legend(legend_data=handles, title=legend_title, label_order=list(handles))
    return grid


def _check_extra_legend(extra_legend) -> dict[str, Any]:
    """``extra_legend`` of :func:`interval_lineplot` as a dict of label -> matplotlib artist (empty for None)."""
    from matplotlib.artist import Artist

    if extra_legend is None:
        return {}
    check_instance("extra_legend", extra_legend, Mapping, "a mapping of labels to matplotlib artists")
    return {check_str("extra_legend", label): check_instance("extra_legend", handle, Artist, "a matplotlib artist")
            for label, handle in extra_legend.items()}


@dataclass(frozen=True)
class _LineStyle:
    """Colour and marker of each ``hue`` value of :func:`interval_lineplot`, and the opacity of its bands."""

    palette: dict
    markers: dict
    band_alpha: float


def _draw_interval_panel(ax, panel: pd.DataFrame, columns: tuple[str, str, str, str, str], hues: list,
                         style: _LineStyle, floor: float | None) -> None:  # fmt: skip
    """One panel of :func:`interval_lineplot`: a band per ``hue`` value, then the mean lines (none when the panel
    has no point); with ``floor`` (log y), bands clipped at it and a log axis starting there."""
    x, y, low, high, hue = columns
    for value in hues:
        line = panel[panel[hue] == value].sort_values(x)
        lows = line[low] if floor is None else line[low].clip(lower=floor)
        ax.fill_between(line[x], lows, line[high], color=style.palette[value], alpha=style.band_alpha, lw=0)
    if panel[y].notna().any():  # a panel without a point (e.g. every run deadlocked) stays empty
        sns.lineplot(data=panel, x=x, y=y, hue=hue, hue_order=hues, style=hue, style_order=hues,
                     palette=style.palette, markers=style.markers, dashes=False, errorbar=None, estimator=None,
                     sort=True, legend=False, ax=ax)  # fmt: skip
    if floor is not None:  # log_y and something positive to show
        ax.set_yscale("log")
        ax.set_ylim(bottom=floor)


#: The default panel of :func:`latency_load_figure`: (column stem, panel title, y label).
LATENCY_PANEL = ("mean_latency", "Latency", "mean latency (cycles)")


def latency_load_figure(curves: pd.DataFrame, *, hue: str, metrics=(LATENCY_PANEL,), col: str | None = None,
                        hue_order=None, col_order=None, log_y: bool = False, mark_deadlocks: bool = False,
                        col_title: str = "{col_name}", ylabel: str | None = None,
                        legend_title: str = "routing\n(band: 95% CI)", saturation: pd.DataFrame | None = None):
    """Latency-load curves: each metric's mean against offered load with its interval as a band.

    The one latency figure of the project: reads ``<stem>_mean``, ``<stem>_low`` and ``<stem>_high`` of every
    metric from one row per (curve, offered load) and draws them with :func:`interval_lineplot`.

    Parameters
    ----------
    curves : DataFrame
        Columns ``offered_load``, ``hue``, ``col`` (when given), the metrics' ``_mean``/``_low``/``_high`` and,
        with ``mark_deadlocks``, ``deadlocks`` (runs that deadlocked at the point).
    hue : str
        Column naming the curves (one line each).
    metrics : sequence of (stem, title, ylabel)
        Quantities drawn; more than one gives one panel each (then ``col`` must be None).
    col : str, optional
        Column giving one panel per value (one metric only).
    hue_order, col_order : sequence, optional
        Order of lines and panels (default: first appearance).
    log_y : bool
        Logarithmic y axis.
    mark_deadlocks : bool
        Leave points where a run deadlocked off their curve and mark them by a cross along the top of the panel,
        one row of crosses per curve.
    col_title, ylabel, legend_title : str, optional
        Panel-title template (``{col_name}``), y label (default: the metric's), legend title.
    saturation : DataFrame, optional
        The study's saturation table: columns ``hue`` (and ``col``, when given) and ``saturation_load`` (the
        highest load up to which every load of the curve is sustained, :mod:`torus_lab.sim.saturation`).  A curve
        that saturates inside the grid (a load beyond its saturation load was run) stops there on the latency
        panels (metric stems holding ``latency``: no point beyond is drawn; throughput panels keep theirs) and its
        saturation point is ringed (:data:`SATURATION_MARK`, listed in the legend).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> curves = pd.DataFrame({"routing": "a", "offered_load": [0.1, 0.2], "mean_latency_mean": [10.0, 20.0],
    ...                        "mean_latency_low": [9.0, 18.0], "mean_latency_high": [11.0, 22.0]})
    >>> fig = latency_load_figure(curves, hue="routing")
    >>> fig.axes[0].get_ylabel()
    'mean latency (cycles)'
    >>> sat = pd.DataFrame({"routing": ["a"], "saturation_load": [0.1]})
    >>> fig = latency_load_figure(curves, hue="routing", saturation=sat)
    >>> [line.get_xdata().tolist() for line in fig.axes[0].get_lines()]   # stops at the saturation load
    [[0.1]]
    """
    check_instance("curves", curves, pd.DataFrame, "a pandas DataFrame")
    check_str("hue", hue)
    metrics = _check_metrics(metrics, col)
    check_instance("log_y", log_y, bool, "a bool")
    check_instance("mark_deadlocks", mark_deadlocks, bool, "a bool")
    check_str("col_title", col_title)
    check_str("legend_title", legend_title)
    if ylabel is not None:
        check_str("ylabel", ylabel)
    needed = ["offered_load", hue, *([col] if col else []), *(["deadlocks"] if mark_deadlocks else []),
              *(f"{stem}_{s}" for stem, _, _ in metrics for s in ("mean", "low", "high"))]
    missing = [c for c in needed if c not in curves.columns]
    if missing:
        raise ValueError(f"curves lacks column(s) {missing} (it has {list(curves.columns)})")
    if len(metrics) > 1:
        frame = pd.concat([curves.assign(_panel=title, _mean=curves[f"{stem}_mean"], _low=curves[f"{stem}_low"],
                                         _high=curves[f"{stem}_high"]) for stem, title, _ in metrics],
                          ignore_index=True)
        col, sharey, label = "_panel", False, ""
    else:
        stem, _, label = metrics[0]
        frame = curves.assign(_mean=curves[f"{stem}_mean"], _low=curves[f"{stem}_low"], _high=curves[f"{stem}_high"])
        sharey, label = True, label if ylabel is None else ylabel
    dead = frame.deadlocks > 0 if mark_deadlocks else pd.Series(False, index=frame.index)
    if hue_order is None:
        hue_order = list(dict.fromkeys(frame[hue]))
    beyond, marks = _saturation_cut(frame, saturation, hue, col, metrics)
    extra = {SATURATION_LABEL: _saturation_handle()} if len(marks) else None
    grid = interval_lineplot(frame[~dead & ~beyond], x="offered_load", y="_mean", low="_low", high="_high", hue=hue,
                             hue_order=hue_order, col=col, col_order=col_order, log_y=log_y,
                             xlabel="offered load (flits/node/cycle)", ylabel=label, col_title=col_title,
                             legend_title=legend_title, sharey=sharey, extra_legend=extra)
    _mark_saturation(grid, marks[~dead.loc[marks.index]] if len(marks) else marks, col)
    if len(metrics) > 1:
        for _, title, axis_label in metrics:
            grid.axes_dict[title].set_ylabel(axis_label)
            grid.axes_dict[title].yaxis.set_tick_params(labelleft=True)
    if mark_deadlocks:
        _mark_deadlocked_loads(grid, frame, dead, hue, hue_order, col)
    return grid.figure


#: How a curve's saturation point is marked: a black ring around the curve's marker.
SATURATION_MARK = {"marker": "o", "s": 150, "facecolors": "none", "edgecolors": "black", "linewidths": 1.6,
                   "zorder": 6}
#: Legend entry of :data:`SATURATION_MARK`.
SATURATION_LABEL = "saturation (latency curve ends)"


def _saturation_handle():
    from matplotlib.lines import Line2D

    return Line2D([0], [0], ls="", marker="o", ms=11, mfc="none", mec="black", mew=1.6)


def _saturation_cut(frame: pd.DataFrame, saturation: pd.DataFrame | None, hue: str, col: str | None,
                    metrics: list[tuple[str, str, str]]) -> tuple[pd.Series, pd.DataFrame]:
    """Rows of ``frame`` beyond their curve's saturation load on a latency panel (a boolean Series), and the rows
    at the saturation point of every curve that saturates inside the grid (to be ringed).

    Examples
    --------
    >>> frame = pd.DataFrame({"r": ["a"] * 3, "offered_load": [0.1, 0.2, 0.3], "_mean": [1.0, 2.0, 9.0]})
    >>> beyond, marks = _saturation_cut(frame, pd.DataFrame({"r": ["a"], "saturation_load": [0.2]}), "r", None,
    ...                                 [("mean_latency", "L", "y")])
    >>> beyond.tolist(), marks.offered_load.tolist()
    ([False, False, True], [0.2])
    """
    none = pd.Series(False, index=frame.index)
    if saturation is None:
        return none, frame.iloc[:0]
    check_instance("saturation", saturation, pd.DataFrame, "a pandas DataFrame")
    keys = [hue, *([col] if col is not None and col in saturation.columns else [])]
    missing = [c for c in [*keys, "saturation_load"] if c not in saturation.columns]
    if missing:
        raise ValueError(f"saturation lacks column(s) {missing} (it has {list(saturation.columns)})")
    table = saturation[[*keys, "saturation_load"]].drop_duplicates(keys)
    load = frame[keys].merge(table, on=keys, how="left")["saturation_load"].to_numpy(dtype=float)
    over = pd.Series(frame.offered_load.to_numpy(dtype=float) > load + 1e-9, index=frame.index)
    curve = [frame[c] for c in keys] + ([frame["_panel"]] if "_panel" in frame.columns else [])
    saturates = over.groupby(curve).transform("any")
    at = saturates & pd.Series(np.isclose(frame.offered_load.to_numpy(dtype=float), load), index=frame.index)
    latency = {title for stem, title, _ in metrics if "latency" in stem}
    on_latency = frame["_panel"].isin(latency) if "_panel" in frame.columns else \
        pd.Series(any("latency" in stem for stem, _, _ in metrics), index=frame.index)
    return over & on_latency, frame[at & frame["_mean"].notna()]


def _mark_saturation(grid, marks: pd.DataFrame, col: str | None) -> None:
    """Ring each row of ``marks`` (a curve's saturation point) on its panel (:data:`SATURATION_MARK`)."""
    for value, ax in (grid.axes_dict.items() if col is not None else [(None, grid.ax)]):
        here = marks if col is None else marks[marks[col] == value]
        if len(here):
            ax.scatter(here.offered_load, here["_mean"], **SATURATION_MARK)


def _check_metrics(metrics, col: str | None) -> list[tuple[str, str, str]]:
    """``metrics`` of :func:`latency_load_figure` as ``(stem, title, ylabel)`` triples of str; with more than one,
    ``col`` must be None.

    Examples
    --------
    >>> _check_metrics([("mean_latency", "Latency", "cycles", "ignored")], None)
    [('mean_latency', 'Latency', 'cycles')]
    """
    metrics = [tuple(check_sequence("metrics", m, min_length=3)[:3]) for m in check_sequence("metrics", metrics,
                                                                                              min_length=1)]
    for stem, title, label in metrics:
        check_str("metrics", stem), check_str("metrics", title), check_str("metrics", label)
    if col is not None:
        check_str("col", col)
        if len(metrics) > 1:
            raise ValueError(f"col must be None with more than one metric, got {col!r}")
    return metrics


def _mark_deadlocked_loads(grid, frame: pd.DataFrame, dead: pd.Series, hue: str, hue_order: list,
                           col: str | None) -> None:  # fmt: skip
    """Crosses along the top of each panel at the loads where a run deadlocked, one row per curve."""
    panels = grid.axes_dict.items() if col is not None else [(None, grid.ax)]
    for value, ax in panels:
        for i, name in enumerate(hue_order):
            at = dead & (frame[hue] == name) & ((frame[col] == value) if col is not None else True)
            crosses = frame[at]
            if len(crosses):
                ax.scatter(crosses.offered_load, np.full(len(crosses), 0.97 - 0.04 * i), marker="x", s=60,
                           color=PALETTE[i % len(PALETTE)], transform=ax.get_xaxis_transform(), zorder=5,
                           clip_on=False)


# ---------------------------------------------------------------------- drawing tori
def grid_axes(ax, radices: tuple[int, int], *, title: str | None = None, margin: float = 0.8,
              labels: tuple[str, str] = ("dimension 0 (x)", "dimension 1 (y)"), title_size: float | None = None):
    """Frame ``ax`` around the nodes of a 2D torus or mesh with ``radices``: equal aspect, ``margin`` around
    the outer nodes, axis labels, no grid, optional title.

    Examples
    --------
    >>> fig, ax = plt.subplots()
    >>> [float(x) for x in grid_axes(ax, (4, 5), title="T").get_xlim()], ax.get_title()
    ([-0.8, 3.8], 'T')
    >>> plt.close(fig)
    """
    kx, ky = radices
    ax.set_xlim(-margin, kx - 1 + margin)
    ax.set_ylim(-margin, ky - 1 + margin)
    ax.set_xticks(node_ticks(kx))
    ax.set_yticks(node_ticks(ky))
    ax.set_aspect("equal")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.grid(False)
    if title:
        ax.set_title(title, fontsize=title_size)
    return ax


#: Most ticks :func:`node_ticks` puts on a ring (every node up to this many).
MAX_NODE_TICKS = 16


def node_ticks(k: int) -> list[int]:
    """Tick positions on a ring of ``k`` nodes: every node, or every few nodes (from 0) past
    :data:`MAX_NODE_TICKS`, so that every tick is a node.

    Examples
    --------
    >>> node_ticks(5), node_ticks(32)[:3]
    ([0, 1, 2, 3, 4], [0, 2, 4])
    """
    k = check_int("k", k, minimum=1, maximum=10**6)
    return list(range(0, k, -(-k // MAX_NODE_TICKS)))


def _node_xy(node: tuple[int, ...]) -> tuple[float, float]:
    return float(node[0]), float(node[1])


def _check_paths(topology, paths, path_labels) -> tuple[list, list]:
    """``paths`` as lists of node tuples and ``path_labels`` (one str or None per path), checked."""
    checked = [[topology.check_node(v, f"paths[{i}] node") for v in check_sequence(f"paths[{i}]", path, min_length=1)]
               for i, path in enumerate(check_sequence("paths", paths))]  # fmt: skip
    if path_labels is None:
        return checked, [None] * len(checked)
    labels = [None if label is None else check_str("path_labels", label) for label in
              check_sequence("path_labels", path_labels)]  # fmt: skip
    if len(labels) != len(checked):
        raise ValueError(f"path_labels must hold one label per path ({len(checked)}), got {len(labels)}")
    return checked, labels


def _check_overlays(topology, faults, title) -> None:
    """``faults`` (None or Faults of ``topology``) and ``title`` (None or str)."""
    from torus_lab.topology import Faults

    if faults is not None:
        check_instance("faults", faults, Faults).validate(topology)
    if title is not None:
        check_str("title", title)


def draw_torus_2d(
    ax,
    topology,
    *,
    paths=(),
    path_labels=None,
    faults=None,
    squares=(),
    link_loads=None,
    cycle=None,
    highlight=(),
    title: str | None = None,
):
    """Draw a 2D torus or mesh as a grid (dim 0 across, dim 1 up) with optional overlays.

    Parameters
    ----------
    ax : matplotlib Axes
    topology : Torus with ``n == 2``
    paths : sequence of node sequences, drawn as coloured polylines (wraparound hops as short stubs)
    faults : Faults, faulty nodes drawn as black crosses and faulty links dashed grey
    squares : sequence of ``(x0, y0, width, height)`` rectangles in node coordinates (e.g. routing squares)
    link_loads : array indexed by channel id, drawn as a heat map of channel colours with a colour bar
    cycle : sequence of channel ids (e.g. a CDG witness cycle), drawn as thick red arrows
    highlight : nodes to ring (e.g. sources and destinations)

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from torus_lab.topology import Torus
    >>> fig, ax = plt.subplots()
    >>> _ = draw_torus_2d(ax, Torus(2, 4), paths=[[(0, 0), (1, 0), (1, 1)]])
    >>> plt.close(fig)
    """
    _check_axes_2d(ax, topology)
    paths, path_labels = _check_paths(topology, paths, path_labels)
    _check_overlays(topology, faults, title)
    squares = _check_squares(squares)
    link_loads = _check_link_loads(topology, link_loads)
    if cycle is not None:
        cycle = [check_int("cycle", cid, 0, topology.num_channels - 1) for cid in check_sequence("cycle", cycle)]
    highlight = [topology.check_node(v, "highlight node") for v in check_sequence("highlight", highlight)]
    faulty_nodes = set(faults.nodes) if faults is not None else set()
    faulty_links = set(faults.links) if faults is not None else set()
    norm = _draw_channels(ax, topology, faulty_links, link_loads)
    _draw_nodes(ax, topology, faulty_nodes)
    _draw_squares(ax, squares)
    _draw_paths_2d(ax, topology, paths, path_labels)
    for node in highlight:
        ax.scatter(*_node_xy(tuple(node)), s=90, facecolors="none", edgecolors="black", zorder=6)
    if cycle is not None:
        _draw_cycle(ax, topology, cycle)
    if norm is not None:
        mappable = plt.cm.ScalarMappable(norm=norm, cmap="viridis")
        ax.figure.colorbar(mappable, ax=ax, label="link load (messages)")
    return grid_axes(ax, tuple(topology.radices), title=title)


def draw_paths_2d(ax, topology, *, paths=(), path_labels=None, highlight=()) -> list:
    """Draw ``paths`` and ``highlight`` rings on a 2D drawing made by :func:`draw_torus_2d` (as it draws them), and
    return the artists added: an interactive view redraws only these over an unchanged network.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from torus_lab.topology import Torus
    >>> fig, ax = plt.subplots()
    >>> _ = draw_torus_2d(ax, Torus(2, 4))
    >>> len(draw_paths_2d(ax, Torus(2, 4), paths=[[(0, 0), (1, 0)]], highlight=[(0, 0)]))
    4
    >>> plt.close(fig)
    """
    _check_axes_2d(ax, topology)
    paths, path_labels = _check_paths(topology, paths, path_labels)
    highlight = [topology.check_node(v, "highlight node") for v in check_sequence("highlight", highlight)]
    before = set(ax.get_children())
    _draw_paths_2d(ax, topology, paths, path_labels)
    for node in highlight:
        ax.scatter(*_node_xy(tuple(node)), s=90, facecolors="none", edgecolors="black", zorder=6)
    return [artist for artist in ax.get_children() if artist not in before]


def _check_squares(squares) -> list[tuple[float, ...]]:
    """``squares`` of :func:`draw_torus_2d` as a list of ``(x0, y0, width, height)`` float quadruples.

    Examples
    --------
    >>> _check_squares([(0, 0, 2, 3)])
    [(0.0, 0.0, 2.0, 3.0)]
    """
    squares = [tuple(check_real("squares", x) for x in check_sequence("squares", square, min_length=4))
               for square in check_sequence("squares", squares)]  # fmt: skip
    if any(len(square) != 4 for square in squares):
        raise ValueError("squares must hold (x0, y0, width, height) quadruples")
    return squares


def _check_link_loads(topology, link_loads) -> np.ndarray | None:
    """``link_loads`` of :func:`draw_torus_2d` as a float array with one entry per channel of ``topology``, or
    None."""
    if link_loads is None:
        return None
    link_loads = check_real_array("link_loads", link_loads, ndim=1)
    if link_loads.shape != (topology.num_channels,):
        raise ValueError(f"link_loads must have shape ({topology.num_channels},), got {link_loads.shape}")
    return np.asarray(link_loads, dtype=float)


def _wrap_stub_end(topology, cid: int, start: tuple[float, float]) -> tuple[float, float]:
    """Where the short stub drawn for wraparound channel ``cid`` from ``start`` ends (0.45 out of the grid).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> t = Torus(2, 4)
    >>> _wrap_stub_end(t, next(c for c in range(t.num_channels) if t.is_wraparound(c)), (0.0, 0.0))
    (-0.45, 0.0)
    """
    dim, sign = int(topology.channel_dim[cid]), int(topology.channel_sign[cid])
    return start[0] + 0.45 * sign * (dim == 0), start[1] + 0.45 * sign * (dim == 1)


def _draw_channels(ax, topology, faulty_links: set, link_loads: np.ndarray | None) -> Normalize | None:
    """Every channel of a 2D topology: light grey (faulty: dashed), or coloured by ``link_loads`` with the two
    directions of a link drawn side by side; wraparound channels as stubs.  The colour scale, or None."""

    if link_loads is not None:
        return _draw_loaded_channels(ax, topology, link_loads)
    for cid in range(topology.num_channels):
        src = topology.coords(int(topology.channel_src[cid]))
        dst = topology.coords(int(topology.channel_dst[cid]))
        (x0, y0), (x1, y1) = _node_xy(src), _node_xy(dst)
        if topology.is_wraparound(cid):  # a stub leaving the grid
            x1, y1 = _wrap_stub_end(topology, cid, (x0, y0))
        style = {"color": "0.6", "lw": 0.8, "ls": "--"} if cid in faulty_links else {"color": "0.85", "lw": 0.8}
        ax.plot([x0, x1], [y0, y1], zorder=0, **style)
    return None


def _draw_loaded_channels(ax, topology, link_loads: np.ndarray) -> Normalize:
    """Every channel of a 2D topology coloured by its load, the two directions of a link side by side (offset
    across the link), wraparound channels as stubs: one line collection, so a large torus draws quickly.  The
    colour scale."""
    from matplotlib.collections import LineCollection

    norm = Normalize(vmin=0.0, vmax=max(float(link_loads.max()), 1e-12))
    coords = topology.all_coords().astype(float)
    start = coords[topology.channel_src][:, :2]
    end = coords[topology.channel_dst][:, :2]
    wrap = np.array([topology.is_wraparound(cid) for cid in range(topology.num_channels)], dtype=bool)
    sign = topology.channel_sign.astype(float)
    step = np.zeros_like(start)
    step[np.arange(len(start)), topology.channel_dim] = 0.45 * sign
    end[wrap] = start[wrap] + step[wrap]  # a stub leaving the grid
    delta = end - start
    shift = 0.07 * sign[:, None] * np.column_stack([-delta[:, 1], delta[:, 0]])  # the two directions apart
    segments = np.stack([start + shift, end + shift], axis=1)
    ax.add_collection(LineCollection(segments, colors=plt.get_cmap("viridis")(norm(link_loads)), linewidths=2.5,
                                     capstyle=plt.rcParams["lines.solid_capstyle"], zorder=1))  # fmt: skip
    return norm


def _draw_nodes(ax, topology, faulty_nodes: set) -> None:
    """The healthy nodes as grey dots, the faulty ones as black crosses."""
    coords = topology.all_coords()
    healthy = [tuple(c) for c in coords if tuple(c) not in faulty_nodes]
    ax.scatter([c[0] for c in healthy], [c[1] for c in healthy], s=12, color="0.55", zorder=2)
    if faulty_nodes:
        ax.scatter([c[0] for c in faulty_nodes], [c[1] for c in faulty_nodes], marker="x", s=30, color="black",
                   zorder=3, label="faulty node")  # fmt: skip


def _draw_squares(ax, squares: list[tuple[float, ...]]) -> None:
    """Each ``(x0, y0, width, height)`` rectangle as a dotted outline around its nodes."""
    from matplotlib.patches import Rectangle

    for x0, y0, width, height in squares:
        ax.add_patch(Rectangle((x0 - 0.4, y0 - 0.4), width - 0.2, height - 0.2, fill=False, lw=1.0,
                               ec=PALETTE[4], ls=":", zorder=2))  # fmt: skip


def _path_segments(topology, path) -> list[list[tuple]]:
    """``path`` cut at its wraparound hops, each side of a wraparound hop ending half a hop out of the grid.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> [[tuple(float(x) for x in v) for v in seg] for seg in _path_segments(Torus(2, 4), [(0, 0), (3, 0)])]
    [[(0.0, 0.0), (-0.5, 0.0)], [(3.5, 0.0), (3.0, 0.0)]]
    """
    segments = [[path[0]]]
    for a, b in zip(path[:-1], path[1:], strict=True):
        if topology.lee_distance(a, b) == 1 and (abs(a[0] - b[0]) + abs(a[1] - b[1])) > 1:  # wraparound hop
            segments[-1].append(tuple(np.add(a, np.sign(np.subtract(a, b)) * 0.5)))
            segments.append([tuple(np.add(b, np.sign(np.subtract(b, a)) * 0.5)), b])
        else:
            segments[-1].append(b)
    return segments


def _draw_paths_2d(ax, topology, paths, path_labels) -> None:
    """Each path as a coloured polyline (cut at wraparound hops), its source a dot and its destination a square."""
    labels = list(path_labels) if path_labels is not None else [None] * len(paths)
    for index, (path, label) in enumerate(zip(paths, labels, strict=True)):
        color = PALETTE[index % len(PALETTE)]
        for number, segment in enumerate(_path_segments(topology, path)):
            xs, ys = zip(*[_node_xy(tuple(v)) for v in segment], strict=True)
            ax.plot(xs, ys, color=color, lw=2.0, zorder=4, label=label if number == 0 else None)
        ax.scatter(*_node_xy(tuple(path[0])), marker="o", s=40, color=color, zorder=5)
        ax.scatter(*_node_xy(tuple(path[-1])), marker="s", s=40, color=color, zorder=5)


#: Length (grid units) of each half of a wraparound channel drawn by :func:`channel_segments`.
WRAP_STUB = 0.45


def channel_segments(topology, cid: int) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Where channel ``cid`` of a 2D torus or mesh is drawn: ``[(start, end)]`` from its source to its destination,
    or for a wraparound channel two stubs of :data:`WRAP_STUB`, one leaving the grid at the source and one
    re-entering it at the destination (both in the channel's direction).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> t = Torus(2, 4)
    >>> channel_segments(t, next(c for c in range(t.num_channels) if not t.is_wraparound(c)))
    [((0.0, 0.0), (1.0, 0.0))]
    >>> channel_segments(t, next(c for c in range(t.num_channels) if t.is_wraparound(c)))  # 0 -> 3 going -x
    [((0.0, 0.0), (-0.45, 0.0)), ((3.45, 0.0), (3.0, 0.0))]
    """
    from torus_lab.topology import Torus

    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if topology.n != 2:
        raise ValueError(f"topology must be 2-dimensional, got {topology!r}")
    cid = check_int("cid", cid, 0, topology.num_channels - 1)
    src = _node_xy(topology.coords(int(topology.channel_src[cid])))
    dst = _node_xy(topology.coords(int(topology.channel_dst[cid])))
    if not topology.is_wraparound(cid):
        return [(src, dst)]
    dim, sign = int(topology.channel_dim[cid]), int(topology.channel_sign[cid])
    step = (WRAP_STUB * sign * (dim == 0), WRAP_STUB * sign * (dim == 1))
    return [(src, (src[0] + step[0], src[1] + step[1])), ((dst[0] - step[0], dst[1] - step[1]), dst)]


def _draw_cycle(ax, topology, cycle: list[int]) -> None:
    """The channels of ``cycle`` as thick arrows (a wraparound channel as a stub leaving the grid and one
    re-entering it, :func:`channel_segments`)."""
    from matplotlib.patches import FancyArrowPatch

    for cid in cycle:
        for start, end in channel_segments(topology, cid):
            ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, color=PALETTE[3], lw=2.2,
                                         zorder=7))  # fmt: skip


def draw_torus_3d(ax, topology, *, paths=(), path_labels=None, faults=None, title: str | None = None):
    """Draw a 3D torus (nodes and mesh links; wraparounds omitted for clarity) with paths, on a 3D Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from torus_lab.topology import Torus
    >>> fig = plt.figure()
    >>> ax = fig.add_subplot(projection="3d")
    >>> _ = draw_torus_3d(ax, Torus(3, 3), paths=[[(0, 0, 0), (0, 0, 1)]])
    >>> plt.close(fig)
    """
    from torus_lab.topology import Torus

    _check_axes(ax)
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if topology.n != 3:
        raise ValueError(f"topology must be 3-dimensional, got {topology!r}")
    paths, path_labels = _check_paths(topology, paths, path_labels)
    _check_overlays(topology, faults, title)
    coords = topology.all_coords()
    faulty = set(faults.nodes) if faults is not None else set()
    for cid in range(topology.num_channels):
        if topology.channel_sign[cid] < 0 or topology.is_wraparound(cid):
            continue
        a = coords[topology.channel_src[cid]]
        b = coords[topology.channel_dst[cid]]
        ax.plot(*zip(a, b, strict=True), color="0.88", lw=0.6)
    ax.scatter(coords[:, 0], coords[:, 1], coords[:, 2], s=6, color="0.6")
    if faulty:
        f = np.array(sorted(faulty))
        ax.scatter(f[:, 0], f[:, 1], f[:, 2], marker="x", s=30, color="black", label="faulty node")
    labels = list(path_labels) if path_labels is not None else [None] * len(paths)
    for index, (path, label) in enumerate(zip(paths, labels, strict=True)):
        color = PALETTE[index % len(PALETTE)]
        points = np.array(path, dtype=float)
        start = 0
        for i in range(1, len(points) + 1):  # break the polyline at wraparound hops
            if i == len(points) or np.abs(points[i] - points[i - 1]).sum() > 1:
                seg = points[start:i]
                ax.plot(seg[:, 0], seg[:, 1], seg[:, 2], color=color, lw=2.0, label=label if start == 0 else None)
                start = i
        ax.scatter(*points[0], color=color, marker="o", s=30)
        ax.scatter(*points[-1], color=color, marker="s", s=30)
    for axis, k in zip((ax.xaxis, ax.yaxis, ax.zaxis), topology.radices, strict=True):
        axis.set_ticks(node_ticks(int(k)))  # on the nodes, not between them
    ax.set_xlabel("dim 0")
    ax.set_ylabel("dim 1")
    ax.set_zlabel("dim 2")
    if title:
        ax.set_title(title)
    return ax
