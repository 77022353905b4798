"""The disjoint-paths explorer: widgets round the model of :mod:`torus_lab.explore.disjoint_model`.

:func:`disjoint_paths_explorer` returns a displayable widget (JupyterLab, or the web app of ``torus-lab explore``)
for Bossard & Kaneko's pairwise vertex-disjoint paths in an ``(n, k)``-torus (*Sensors* 18(11):3912, 2018):

* **torus**: ``n`` and ``k`` (the algorithm needs ``k >= 5`` and ``n < k``);
* **pairs**: ``c`` pairs drawn at random (an instance family of the study and a seed), or chosen: typed in the
  coordinate boxes, or, for ``n = 2``, clicked on the drawing (the *click sets* list says which end a click sets,
  and moves on to the next end); typing or clicking switches to *chosen*, changing ``c``, the family or the seed
  back to *random*;
* **algorithm**: its options ``choose_T`` and ``lemma2``; whether to ask for the optimum.

It shows, side by side for ``n = 2`` (a table for any ``n``), Bossard & Kaneko's paths, the greedy baseline and
the optimum, each path's length against Theorem 1's bound ``2k(c-1) + n*floor(k/2)`` and each method's
verifier verdict (the model's :class:`~torus_lab.explore.disjoint_model.DisjointOutcome`).  A value the API
refuses is shown as the API's message instead of the result, before any work; nothing raises out of a control.

Examples
--------
>>> explorer = disjoint_paths_explorer(k=5, pairs=[((0, 0), (2, 2)), ((1, 0), (1, 4))])
>>> explorer.outcome.paper.lengths, explorer.outcome.paper.valid
([5, 1], True)
>>> explorer.n.value = 5
>>> explorer.error
'the algorithm needs a torus with n < k, got n = 5, k = 5'
>>> explorer.close()
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from torus_lab._validate import check_instance, check_str
from torus_lab.explore.disjoint_model import DisjointOutcome, DisjointQuery, MethodPaths, explore_disjoint_paths
from torus_lab.explore.routing import CanvasExplorer, new_canvas, node_at
from torus_lab.plotting import PALETTE, draw_paths_2d, draw_torus_2d, figure_style
from torus_lab.routing.disjoint_paths import CHOOSE_T, LEMMA2_RULES
from torus_lab.studies.disjoint_paths import INSTANCE_KINDS
from torus_lab.topology import Torus

__all__ = ["PAIR_MODES", "MAX_DRAWN_K", "DisjointPathsExplorer", "disjoint_paths_explorer", "draw_disjoint_outcome"]

#: Where the pairs come from: drawn at random, or chosen (typed or clicked).
PAIR_MODES = ("random", "chosen")
#: Largest radix drawn (a bigger (2, k)-torus is listed in the table only).
MAX_DRAWN_K = 24
#: Size of the figure (inches at 100 dpi) and where its three drawings sit (left, bottom, width, height): fixed,
#: so that a redraw computes no layout and a node stays where it was clicked.
_FIGSIZE = (11.0, 4.4)
_AXES_RECTS = ((0.04, 0.3, 0.29, 0.62), (0.37, 0.3, 0.29, 0.62), (0.70, 0.3, 0.29, 0.62))


def _title(outcome: DisjointOutcome, method: MethodPaths) -> str:
    if method.paths is None:
        return f"{method.name}: no paths"
    relation = "<=" if outcome.within_bound(method) else ">"
    return f"{method.name}: longest {method.longest} {relation} {outcome.bound}"


def _drawable(outcome: DisjointOutcome) -> bool:
    return outcome.query.n == 2 and outcome.query.k <= MAX_DRAWN_K


def _draw_overlays(axes: Sequence, outcome: DisjointOutcome) -> list:
    """Each method's paths, the pair vertices ringed, its title and legend (or why it has no paths) on the three
    network drawings ``axes``; returns the artists added (what a redraw over the same network removes)."""
    q = outcome.query
    torus = Torus(2, q.k)
    ends = [v for pair in q.checked_pairs for v in pair]
    added = []
    for ax, method in zip(axes, outcome.methods, strict=True):
        paths = method.paths or []
        labels = [f"pair {i + 1}: {length} hops" for i, length in enumerate(method.lengths or [])]
        added += draw_paths_2d(ax, torus, paths=paths, path_labels=labels or None, highlight=ends)
        ax.set_title(_title(outcome, method), fontsize="medium")
        if paths:
            added.append(ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small"))
        else:
            added.append(ax.text(0.5, -0.2, method.note, ha="center", va="top", transform=ax.transAxes,
                                 fontsize="small", wrap=True))  # fmt: skip
    return added


def _draw(fig: Figure, outcome: DisjointOutcome) -> list:
    """:func:`draw_disjoint_outcome`, returning the overlay artists (none without a drawing)."""
    q = outcome.query
    fig.clf()
    with figure_style():
        if not _drawable(outcome):
            ax = fig.add_subplot()
            ax.set_axis_off()
            why = f"n = {q.n}" if q.n != 2 else f"k = {q.k} > {MAX_DRAWN_K}"
            ax.text(0.5, 0.5, f"no drawing for {why}: the paths' lengths are in the table below", ha="center",
                    va="center", transform=ax.transAxes)  # fmt: skip
            return []
        axes = []
        for rect in _AXES_RECTS:
            ax = fig.add_axes(rect)
            draw_torus_2d(ax, Torus(2, q.k))
            axes.append(ax)
        return _draw_overlays(axes, outcome)


def draw_disjoint_outcome(fig: Figure, outcome: DisjointOutcome) -> None:
    """Draw ``outcome`` on ``fig`` (cleared first): for ``n = 2`` (and ``k <=`` :data:`MAX_DRAWN_K`) one drawing
    per method (:func:`torus_lab.plotting.draw_torus_2d`, then :func:`~torus_lab.plotting.draw_paths_2d`), its
    paths coloured by pair, every pair vertex ringed, its longest path against Theorem 1's bound in the title;
    otherwise a line saying the table lists them.

    Examples
    --------
    >>> from torus_lab.explore.disjoint_model import DisjointQuery, explore_disjoint_paths
    >>> fig = Figure()
    >>> draw_disjoint_outcome(fig, explore_disjoint_paths(DisjointQuery(seed=3)))
    >>> [ax.get_title() for ax in fig.axes]
    ['Bossard & Kaneko: longest 4 <= 14', 'greedy: longest 4 <= 14', 'optimum: longest 4 <= 14']
    """
    check_instance("fig", fig, Figure, "a matplotlib Figure")
    check_instance("outcome", outcome, DisjointOutcome)
    _draw(fig, outcome)


def _table_html(outcome: DisjointOutcome) -> str:
    """The outcome's rows as an HTML table (a path longer than the bound in red)."""
    rows = outcome.rows()
    names = [m.name for m in outcome.methods]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in ["pair", "source", "target", "Lee", *names, "bound"])
    body = []
    for row in rows:
        cells = [row["pair"], row["source"], row["target"], row["Lee"]]
        out = [f"<td>{html.escape(str(v))}</td>" for v in cells]
        for name in names:
            value = row[name]
            style = f' style="color: {PALETTE[3]}"' if value is not None and value > outcome.bound else ""
            out.append(f"<td{style}>{'-' if value is None else value}</td>")
        out.append(f"<td>{row['bound']}</td>")
        body.append(f"<tr>{''.join(out)}</tr>")
    return f'<table class="torus-lab-table"><tr>{head}</tr>{"".join(body)}</table>'


class DisjointPathsExplorer(CanvasExplorer, widgets.VBox):
    """The disjoint-paths explorer's widget (see the module's description); build it with
    :func:`disjoint_paths_explorer`.

    Attributes
    ----------
    outcome : DisjointOutcome or None
        What is shown (None while the message shows a refused input).
    error : str
        The API's message for a refused input (empty otherwise), which ``message`` shows.
    summary, table : ipywidgets.HTML
        The outcome in words and its per-pair table.
    figure : matplotlib Figure
        The drawings; ``canvas`` is its ipympl widget.
    """

    _outcome_texts = ("summary", "table")

    def __init__(self, query: DisjointQuery, mode: str = "random") -> None:
        check_instance("query", query, DisjointQuery)
        check_str("mode", mode, PAIR_MODES)
        self._quiet = False
        self.outcome: DisjointOutcome | None = None
        self.error = ""
        self._drawn: int | None = None  # the radix of the (2, k)-torus drawn
        self._overlays: list = []  # the artists drawn over it (paths, rings, legends)
        style = {"description_width": "9em"}
        wide = widgets.Layout(width="18em")
        self.n = widgets.IntText(value=query.n, description="n (dimensions)", style=style, layout=wide)
        self.k = widgets.IntText(value=query.k, description="k (radix)", style=style, layout=wide)
        self.mode = widgets.ToggleButtons(options=PAIR_MODES, value=mode, description="pairs",
                                          style={"description_width": "9em", "button_width": "6.5em"})
        self.c = widgets.IntText(value=len(query.checked_pairs), description="c (pairs)", style=style, layout=wide)
        self.kind = widgets.Dropdown(options=INSTANCE_KINDS, value=query.kind, description="random family",
                                     style=style, layout=wide)  # fmt: skip
        self.seed = widgets.IntText(value=query.seed, description="seed", style=style, layout=wide)
        self.click_target = widgets.Dropdown(description="click sets", style=style, layout=wide)
        self.choose_T = widgets.Dropdown(options=CHOOSE_T, value=query.choose_T, description="choose_T",
                                         style=style, layout=wide)  # fmt: skip
        self.lemma2 = widgets.Dropdown(options=LEMMA2_RULES, value=query.lemma2, description="lemma2", style=style,
                                       layout=wide)  # fmt: skip
        self.optimum = widgets.Checkbox(value=query.optimum, description="optimum (integer programme)",
                                        indent=False)  # fmt: skip
        self.pair_boxes: list[tuple[list[widgets.IntText], list[widgets.IntText]]] = []
        self._pairs_box = widgets.VBox([])
        self.message = widgets.HTML("", layout=widgets.Layout(min_height="1.5em", width="700px"))
        self.message.add_class("torus-lab-message")
        self.summary = widgets.HTML("")
        self.summary.add_class("torus-lab-disjoint-verdict")
        self.table = widgets.HTML("")
        self.figure = Figure(figsize=_FIGSIZE, dpi=100, layout="none")
        self.canvas = new_canvas(self.figure)
        self.canvas.add_class("torus-lab-disjoint-figure")
        self.canvas.mpl_connect("button_press_event", self._clicked)
        controls = widgets.VBox([
            widgets.HTML("<b>torus</b>"), self.n, self.k,
            widgets.HTML("<b>pairs</b>"), self.mode, self.c, self.kind, self.seed, self.click_target,
            self._pairs_box,
            widgets.HTML("<b>algorithm</b>"), self.choose_T, self.lemma2, self.optimum,
        ], layout=widgets.Layout(width="30em"))  # fmt: skip
        super().__init__([widgets.HBox([controls, widgets.VBox([self.message, self.canvas, self.summary,
                                                                self.table])])])  # fmt: skip
        self._show_pairs(query.checked_pairs)
        for control in (self.n, self.k, self.c, self.kind, self.seed):
            control.observe(self._draw_changed, "value")
        for control in (self.mode, self.choose_T, self.lemma2, self.optimum):
            control.observe(self._changed, "value")
        self.refresh()

    # ------------------------------------------------------------------ the pair boxes
    def _show_pairs(self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> None:
        """Show ``pairs`` in the coordinate boxes (rebuilt when their shape changed) without refreshing."""
        shape = [(len(s), len(d)) for s, d in pairs]
        if shape != [(len(s), len(d)) for s, d in self.pair_boxes]:
            self.pair_boxes, rows = [], []
            for i, (s, d) in enumerate(pairs):
                boxes = ([self._box() for _ in s], [self._box() for _ in d])
                self.pair_boxes.append(boxes)
                rows.append(widgets.HBox([widgets.Label(f"pair {i + 1}", layout=widgets.Layout(width="4em")),
                                          *boxes[0], widgets.Label("->"), *boxes[1]]))  # fmt: skip
            self._pairs_box.children = rows
            ends = [(f"pair {i + 1} {end}", (i, j)) for i in range(len(pairs))
                    for j, end in enumerate(("source", "target"))]  # fmt: skip
            self._quietly(lambda: setattr(self.click_target, "options", ends))
            self._quietly(lambda: setattr(self.click_target, "value", ends[0][1]))
        for (sources, targets), (s, d) in zip(self.pair_boxes, pairs, strict=True):
            for box, value in zip([*sources, *targets], [*s, *d], strict=True):
                self._quietly(lambda box=box, value=value: setattr(box, "value", int(value)))

    def _box(self) -> widgets.IntText:
        box = widgets.IntText(value=0, layout=widgets.Layout(width="4em"))
        box.observe(self._typed, "value")
        return box

    def typed_pairs(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The pairs the coordinate boxes show."""
        return [(tuple(b.value for b in s), tuple(b.value for b in d)) for s, d in self.pair_boxes]

    # ------------------------------------------------------------------ reading the controls
    def query(self) -> DisjointQuery:
        """The query the controls describe (ValueError/TypeError with the API's message if it is refused)."""
        chosen = self.mode.value == "chosen"
        return DisjointQuery(n=self.n.value, k=self.k.value, c=self.c.value,
                             pairs=self.typed_pairs() if chosen else None, kind=self.kind.value,
                             seed=self.seed.value, choose_T=self.choose_T.value, lemma2=self.lemma2.value,
                             optimum=self.optimum.value)  # fmt: skip

    def refresh(self) -> None:
        """Recompute and redraw from the controls; a refused input shows the API's message instead."""
        if self._quiet:
            return
        outcome = self._computed(lambda: explore_disjoint_paths(self.query()))
        if outcome is None:
            return
        q = outcome.query
        self.outcome, self.error, self.message.value = outcome, "", ""
        self._show_pairs(q.checked_pairs)
        self._quietly(lambda: setattr(self.c, "value", len(q.checked_pairs)))
        self.summary.value = "<br>".join(html.escape(line) for line in outcome.lines())
        self.table.value = _table_html(outcome)
        if _drawable(outcome) and self._drawn == q.k:  # the same network: only the overlays change
            for artist in self._overlays:
                artist.remove()
            with figure_style():
                self._overlays = _draw_overlays(self.figure.axes, outcome)
        else:
            self._overlays = _draw(self.figure, outcome)
        self._drawn = q.k if _drawable(outcome) else None
        self.figure.canvas.draw_idle()

    # ------------------------------------------------------------------ events
    def _quietly(self, action) -> None:
        quiet, self._quiet = self._quiet, True
        try:
            action()
        finally:
            self._quiet = quiet

    def _changed(self, change: dict | None = None) -> None:
        self.refresh()

    def _draw_changed(self, change: dict) -> None:
        """n, k, c, the family or the seed changed: draw the pairs afresh."""
        self._quietly(lambda: setattr(self.mode, "value", "random"))
        self.refresh()

    def _typed(self, change: dict) -> None:
        if self._quiet:
            return
        self._quietly(lambda: setattr(self.mode, "value", "chosen"))
        self.refresh()

    def click_node(self, node: Iterable[int]) -> None:
        """What a click on ``node`` does: set the end the *click sets* list names, then move on to the next end
        (the canvas calls it; tests and scripts may)."""
        node = tuple(int(c) for c in node)
        pair, end = self.click_target.value
        boxes = self.pair_boxes[pair][end]
        if len(boxes) != len(node):
            raise ValueError(f"node {node} has {len(node)} coordinates, the pairs have {len(boxes)}")
        self._quietly(lambda: [setattr(box, "value", value) for box, value in zip(boxes, node, strict=True)])
        self._quietly(lambda: setattr(self.mode, "value", "chosen"))
        options = [value for _, value in self.click_target.options]
        following = options[(options.index((pair, end)) + 1) % len(options)]
        self._quietly(lambda: setattr(self.click_target, "value", following))
        self.refresh()

    def _clicked(self, event: Any) -> None:
        if self._drawn is None or event.inaxes is None:
            return
        node = node_at(Torus(2, self._drawn), event.xdata, event.ydata)
        if node is not None and all(len(s) == 2 for s, _ in self.pair_boxes):
            self.click_node(node)


def disjoint_paths_explorer(
    n: int = 2,
    k: int = 5,
    c: int = 2,
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
    kind: str = "uniform",
    seed: int = 1,
    choose_T: str = "paper",  # noqa: N803 - the paper's name
    lemma2: str = "first",
    optimum: bool = True,
) -> DisjointPathsExplorer:
    """The disjoint-paths explorer (a widget: display it, or make it a cell's last expression), starting from these
    values; every argument is checked first by :class:`~torus_lab.explore.disjoint_model.DisjointQuery`.

    Parameters
    ----------
    n, k : int
        The ``(n, k)``-torus.
    c, kind, seed :
        ``c`` random pairs of the study's family ``kind`` drawn with ``seed`` (when ``pairs`` is None).
    pairs : sequence of (source, target), optional
        Chosen pairs (the explorer starts in *chosen* mode).
    choose_T, lemma2 : str
        Options of Bossard & Kaneko's algorithm.
    optimum : bool
        Ask the integer programme for the optimum (small tori).

    Examples
    --------
    >>> explorer = disjoint_paths_explorer(n=3, k=5, c=3, seed=4, optimum=False)
    >>> len(explorer.outcome.paper.paths), explorer.outcome.within_bound(explorer.outcome.paper)
    (3, True)
    >>> explorer.close()
    """
    query = DisjointQuery(n=n, k=k, c=c, pairs=pairs, kind=kind, seed=seed, choose_T=choose_T, lemma2=lemma2,
                          optimum=optimum)  # fmt: skip
    return DisjointPathsExplorer(query, mode="random" if pairs is None else "chosen")
