"""The loads explorer: widgets round the model of :mod:`torus_lab.explore.loads_model`.

:func:`loads_explorer` returns a displayable widget (JupyterLab, or the web app of ``torus-lab explore``) for
Azizoglu & Eğecioğlu's link loads of complete exchange in a k-ary d-cube (IPPS/SPDP 1998):

* **torus**: ``d`` and ``k``;
* **placement**: linear, multiple linear (``t`` classes) or the full torus, as the study evaluates them;
* **routing**: ODR, UDR or all shortest paths, and the tie rule at ``k/2``;
* **cut search**: the seed and moves per start of the greedy Lemma 1 search.

It shows the load of every directed link as a heat map: on the torus drawing for ``d = 2`` (each link's two
directions side by side, processors ringed; :func:`torus_lab.plotting.draw_torus_2d`), otherwise as the largest
load per (dimension, sign) and class ``x_0 + ... + x_(d-1) mod k`` of the link's source; beside it ``E_max``
against the lower bounds and the paper's value (the model's :class:`~torus_lab.explore.loads_model.LoadsOutcome`)
and the per-dimension table.  A value the API refuses is shown as the API's message instead of the result,
before any work; nothing raises out of a control.

Examples
--------
>>> explorer = loads_explorer(d=2, k=6, routing="udr")
>>> explorer.outcome.e_max
1.5
>>> explorer.routing.value = "odr"
>>> explorer.outcome.e_max
3.0
>>> explorer.close()
"""

from __future__ import annotations

import html

import ipywidgets as widgets
from matplotlib.figure import Figure

from torus_lab._validate import check_instance
from torus_lab.explore.loads_model import PLACEMENTS, LoadsOutcome, LoadsQuery, explore_loads
from torus_lab.explore.routing import CanvasExplorer, new_canvas
from torus_lab.loads import ROUTINGS
from torus_lab.plotting import draw_torus_2d, figure_style

__all__ = ["MAX_DRAWN_LOADS_K", "TIES", "LoadsExplorer", "loads_explorer", "draw_loads_outcome"]

#: Largest radix of a 2-D torus drawn link by link (a bigger one gets the class map).
MAX_DRAWN_LOADS_K = 16
#: The tie choices the explorer offers: the routing's default, or one of :data:`torus_lab.loads.TIE_MODES`.
TIES = (("routing's default", None), ("+", "+"), ("both", "both"))
_FIGSIZE = (6.6, 5.6)


def draw_loads_outcome(fig: Figure, outcome: LoadsOutcome) -> None:
    """Draw ``outcome`` on ``fig`` (cleared first): for ``d = 2`` (and ``k <=`` :data:`MAX_DRAWN_LOADS_K`) the
    torus with every directed link coloured by its load and the processors ringed
    (:func:`torus_lab.plotting.draw_torus_2d`); otherwise the largest load per (dimension, sign) and class of the
    link's source (the model's ``classes``), as an image.  The title gives ``E_max`` and the best lower bound.

    Examples
    --------
    >>> from torus_lab.explore.loads_model import LoadsQuery, explore_loads
    >>> fig = Figure()
    >>> draw_loads_outcome(fig, explore_loads(LoadsQuery(d=3, k=4)))
    >>> fig.axes[0].get_ylabel()
    'dimension, sign'
    """
    check_instance("fig", fig, Figure, "a matplotlib Figure")
    check_instance("outcome", outcome, LoadsOutcome)
    q = outcome.query
    fig.clf()
    title = (f"T_{q.d}^{q.k}, {q.placement.replace('_', ' ')} (t = {q.classes}), {q.routing.upper()}: "
             f"E_max {outcome.e_max:.3g}, lower bound {outcome.lower_bound:.3g}")  # fmt: skip
    with figure_style():
        if q.d == 2 and q.k <= MAX_DRAWN_LOADS_K:
            ax = fig.add_axes((0.1, 0.1, 0.75, 0.8))
            draw_torus_2d(ax, q.torus, link_loads=outcome.loads, title=title)
            ax.title.set_fontsize("small")
            xy = q.chosen.coords()  # the processors ringed, in one artist (the full torus has k**2 of them)
            ax.scatter(xy[:, 0], xy[:, 1], s=90, facecolors="none", edgecolors="black", zorder=6, label="processor")
            return
        grid = outcome.classes.pivot_table(index=["dim", "sign"], columns="residue", values="load", aggfunc="max")
        ax = fig.add_axes((0.16, 0.12, 0.66, 0.78))
        image = ax.imshow(grid.values, cmap="viridis", aspect="auto", vmin=0)
        ax.set_yticks(range(len(grid.index)), [f"dim {d} {s:+d}" for d, s in grid.index])
        ax.set_xticks(range(len(grid.columns)), [str(r) for r in grid.columns])
        ax.set(xlabel="class r = x0 + ... + x(d-1) mod k of the link's source", ylabel="dimension, sign")
        ax.set_title(title, fontsize="small")
        ax.grid(False)
        fig.colorbar(image, ax=ax, label="largest link load (messages)")


def _table_html(outcome: LoadsOutcome) -> str:
    """The per-dimension table (count, min, mean, max, links at ``E_max``) as HTML."""
    table = outcome.per_dimension
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in ["dim", "sign", "links", "min", "mean", "max",
                                                                "at E_max"])  # fmt: skip
    rows = []
    for row in table.itertuples():
        cells = [row.dim, f"{row.sign:+d}", row.count, f"{row.min:.4g}", f"{row.mean:.4g}", f"{row.max:.4g}",
                 row.links_at_e_max]  # fmt: skip
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return f'<table class="torus-lab-table"><tr>{head}</tr>{"".join(rows)}</table>'


class LoadsExplorer(CanvasExplorer, widgets.VBox):
    """The loads explorer's widget (see the module's description); build it with :func:`loads_explorer`.

    Attributes
    ----------
    outcome : LoadsOutcome or None
        What is shown (None while the message shows a refused input).
    error : str
        The API's message for a refused input (empty otherwise), which ``message`` shows.
    summary, table : ipywidgets.HTML
        The outcome in words and the per-dimension table.
    figure : matplotlib Figure
        The heat map; ``canvas`` is its ipympl widget.
    """

    _outcome_texts = ("summary", "table")

    def __init__(self, query: LoadsQuery) -> None:
        check_instance("query", query, LoadsQuery)
        self.outcome: LoadsOutcome | None = None
        self.error = ""
        style = {"description_width": "9em"}
        wide = widgets.Layout(width="18em")
        self.d = widgets.IntText(value=query.d, description="d (dimensions)", style=style, layout=wide)
        self.k = widgets.IntText(value=query.k, description="k (radix)", style=style, layout=wide)
        self.placement = widgets.Dropdown(options=PLACEMENTS, value=query.placement, description="placement",
                                          style=style, layout=wide)  # fmt: skip
        self.t = widgets.IntText(value=query.t, description="t (classes)", style=style, layout=wide,
                                 disabled=query.placement != "multiple_linear")  # fmt: skip
        self.routing = widgets.ToggleButtons(options=[(r.upper(), r) for r in ROUTINGS], value=query.routing,
                                             description="routing",
                                             style={"description_width": "9em", "button_width": "6em"})  # fmt: skip
        self.routing.add_class("torus-lab-loads-routing")
        self.tie = widgets.Dropdown(options=TIES, value=query.tie, description="tie at k/2", style=style,
                                    layout=wide)  # fmt: skip
        self.seed = widgets.IntText(value=query.seed, description="cut search seed", style=style, layout=wide)
        self.cut_steps = widgets.IntText(value=query.cut_steps, description="cut search moves", style=style,
                                         layout=wide)  # fmt: skip
        self.message = widgets.HTML("", layout=widgets.Layout(min_height="1.5em", width="660px"))
        self.message.add_class("torus-lab-message")
        self.summary = widgets.HTML("")
        self.summary.add_class("torus-lab-loads-verdict")
        self.table = widgets.HTML("")
        self.figure = Figure(figsize=_FIGSIZE, dpi=100, layout="none")
        self.canvas = new_canvas(self.figure)
        self.canvas.add_class("torus-lab-loads-figure")
        controls = widgets.VBox([
            widgets.HTML("<b>torus</b>"), self.d, self.k,
            widgets.HTML("<b>placement</b>"), self.placement, self.t,
            widgets.HTML("<b>routing</b>"), self.routing, self.tie,
            widgets.HTML("<b>Lemma 1 cut search</b>"), self.seed, self.cut_steps,
        ], layout=widgets.Layout(width="30em"))  # fmt: skip
        super().__init__([widgets.HBox([controls, widgets.VBox([self.message, self.canvas, self.summary,
                                                                self.table])])])  # fmt: skip
        for control in (self.d, self.k, self.placement, self.t, self.routing, self.tie, self.seed, self.cut_steps):
            control.observe(self._changed, "value")
        self.refresh()

    def query(self) -> LoadsQuery:
        """The query the controls describe (ValueError/TypeError with the API's message if it is refused)."""
        return LoadsQuery(d=self.d.value, k=self.k.value, placement=self.placement.value, t=self.t.value,
                          routing=self.routing.value, tie=self.tie.value, seed=self.seed.value,
                          cut_steps=self.cut_steps.value)  # fmt: skip

    def refresh(self) -> None:
        """Recompute and redraw from the controls; a refused input shows the API's message instead."""
        self.t.disabled = self.placement.value != "multiple_linear"
        try:
            outcome = explore_loads(self.query())
        except (ValueError, TypeError, MemoryError) as err:  # the API's message, as it is
            self._refused(str(err))
            return
        except Exception as err:  # noqa: BLE001 (a control never raises: anything else is shown too)
            self._refused(f"{type(err).__name__}: {err}")
            return
        self.outcome, self.error, self.message.value = outcome, "", ""
        self.summary.value = "<br>".join(html.escape(line) for line in outcome.lines())
        self.table.value = _table_html(outcome)
        draw_loads_outcome(self.figure, outcome)
        self.figure.canvas.draw_idle()

    def _changed(self, change: dict | None = None) -> None:
        self.refresh()


def loads_explorer(
    d: int = 2,
    k: int = 8,
    placement: str = "linear",
    t: int = 2,
    routing: str = "odr",
    tie: str | None = None,
    seed: int = 0,
    cut_steps: int = 100,
) -> LoadsExplorer:
    """The loads explorer (a widget: display it, or make it a cell's last expression), starting from these values;
    every argument is checked first by :class:`~torus_lab.explore.loads_model.LoadsQuery`.

    Examples
    --------
    >>> explorer = loads_explorer(d=3, k=4, placement="multiple_linear", t=2)
    >>> explorer.outcome.query.chosen.size, explorer.figure.axes[0].get_ylabel()
    (32, 'dimension, sign')
    >>> explorer.close()
    """
    return LoadsExplorer(LoadsQuery(d=d, k=k, placement=placement, t=t, routing=routing, tie=tie, seed=seed,
                                    cut_steps=cut_steps))  # fmt: skip
