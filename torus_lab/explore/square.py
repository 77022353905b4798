"""The square-routing explorer: Li, Peng & Chu's online fault-tolerant routings in a 2-D torus, square by square.

:func:`square_explorer` returns a displayable widget (JupyterLab, or the web app of ``torus-lab explore``) round
the model of :mod:`torus_lab.explore.square_model`:

* **network and faults**: an ``N x N`` torus, faulty nodes drawn as a trial of the fault-tolerant study (a rate
  and a seed), plus the nodes toggled by clicking in *fault* mode;
* **source and destination**: clicked on the drawing (the *click sets* buttons choose what a click does) or
  typed; by default the pair of the study's trial;
* **square width** ``m`` and the **algorithm**: Chain, Adaptive-Square, Heuristic-Square or the project's
  Backtracking-Square (:data:`torus_lab.routing.square.ALGORITHMS`);
* a **step** slider with *Prev* and *Next* buttons walks through the algorithm's squares: the current square
  (shaded), the node it starts from, the path so far, the faulty nodes, and the oracle's shortest fault-free path
  for comparison; the lines below give each algorithm's success or failure and its path length against the
  oracle's.

A value the API refuses is shown as the API's message instead of the result, before any work; nothing raises
out of a control.

Examples
--------
>>> explorer = square_explorer(k=8, m=3, fault_rate=0.0, source=(0, 0), destination=(4, 1))
>>> explorer.steps.max, explorer.current_step().start
(2, (0, 0))
>>> explorer.next_step()
>>> explorer.current_step().start, explorer.current_step().walk
((2, 0), ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (4, 1)))
>>> explorer.m.value = 1
>>> explorer.error, explorer.outcome
('m must be in 2..8, got 1', None)
>>> explorer.close()
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from torus_lab._validate import check_instance, check_int, check_str
from torus_lab.explore.routing import CanvasExplorer, new_canvas, node_at
from torus_lab.explore.square_model import SquareOutcome, SquareQuery, explore_square
from torus_lab.plotting import PALETTE, draw_torus_2d, figure_style
from torus_lab.routing.square import ALGORITHMS, SquareStep
from torus_lab.studies.fault_tolerant import LABEL
from torus_lab.topology import Faults

__all__ = ["SquareExplorer", "square_explorer", "draw_square_step", "CLICK_MODES"]

#: What a click on a node does: set the source (then the destination), set the destination, toggle a fault.
CLICK_MODES = ("source", "destination", "fault")
#: Size of the explorer's figure (inches at 100 dpi) and where the drawing sits in it (fixed: no layout work on
#: a redraw, and a node stays where it was clicked).
_FIGSIZE = (6.0, 6.4)
_AXES_RECT = (0.08, 0.2, 0.88, 0.74)


def draw_square_step(fig: Figure, outcome: SquareOutcome, algorithm: str, step: int) -> None:
    """Draw step ``step`` (0-based) of ``algorithm`` in ``outcome`` on ``fig`` (cleared first): the torus, its
    faulty nodes, the current square shaded with the node it starts from, the path so far, the oracle's shortest
    fault-free path, source and destination ringed (:func:`torus_lab.plotting.draw_torus_2d`).

    Examples
    --------
    >>> from torus_lab.explore.square_model import SquareQuery, explore_square
    >>> fig = Figure()
    >>> draw_square_step(fig, explore_square(SquareQuery(k=8, fault_rate=0.0, source=(0, 0), destination=(4, 1))),
    ...                  "chain", 0)
    >>> fig.axes[0].get_title()
    'Chain: square 1 of 2'
    """
    check_instance("fig", fig, Figure, "a matplotlib Figure")
    check_instance("outcome", outcome, SquareOutcome)
    steps = outcome.steps(check_str("algorithm", algorithm, outcome.algorithms))
    step = check_int("step", step, minimum=0, maximum=max(len(steps) - 1, 0))
    q, current = outcome.query, steps[step] if steps else None  # Backtracking-Square may walk no square at all
    fig.clf()
    paths = [list(current.walk)] if current is not None and len(current.walk) > 1 else []
    labels = ["path so far"] if paths else []
    if outcome.oracle_path is not None:
        paths, labels = [outcome.oracle_path, *paths], ["oracle's shortest path", *labels]
    title = f"{LABEL[algorithm]}: " + (f"square {step + 1} of {len(steps)}" if steps else "no square walked")
    with figure_style():
        ax = fig.add_axes(_AXES_RECT)
        if current is not None:
            square = current.square.nodes(q.k)
            ax.scatter([v[0] for v in square], [v[1] for v in square], marker="s", s=160, color=PALETTE[4],
                       alpha=0.3, zorder=1, label=f"current square (m = {q.m})")  # fmt: skip
        draw_torus_2d(ax, q.torus, paths=paths, path_labels=labels or None, faults=Faults(nodes=q.faulty),
                      highlight=[q.source, q.destination], title=title)  # fmt: skip
        if current is not None:
            ax.scatter(*current.start, marker="D", s=70, color=PALETTE[3], zorder=7, label="where the square starts")
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.0), bbox_transform=fig.transFigure, ncol=2,
                  fontsize="small")


def _step_text(step: SquareStep, number: int, total: int, last: bool, result: Any) -> str:
    """What step ``number`` (1-based) did, in words."""
    if step.backtracked:
        head = f"square {number} of {total}: backtracked to {step.start}, then "
    else:
        head = f"square {number} of {total}: from {step.start}, "
    if last and result.success:
        return head + f"reached the destination ({len(step.local_path) - 1} hops in the square)"
    if step.moved:
        return head + f"moved {len(step.local_path) - 1} hop(s) to the exit {step.local_path[-1]}"
    return head + ("no way through this square" + (f": {result.reason}" if last else " (trying another square)"))


class SquareExplorer(CanvasExplorer, widgets.VBox):
    """The square-routing explorer's widget (see the module's description); build it with :func:`square_explorer`.

    Attributes
    ----------
    outcome : SquareOutcome or None
        What is shown (None while the message shows a refused input).
    error : str
        The API's message for a refused input (empty otherwise), which ``message`` shows.
    steps : ipywidgets.IntSlider
        The step shown (1 = the first square).
    figure : matplotlib Figure
        The drawing; ``canvas`` is its ipympl widget.
    """

    _outcome_texts = ("summary", "step_text")

    def __init__(self, query: SquareQuery, algorithm: str = "adaptive_square") -> None:
        check_instance("query", query, SquareQuery)
        check_str("algorithm", algorithm, query.algorithms)
        self.outcome: SquareOutcome | None = None
        self.error = ""
        self._quiet = False
        self._drawn = None
        self.toggled: set[tuple[int, int]] = set(query.toggled)
        style, wide = {"description_width": "9em"}, widgets.Layout(width="18em")

        def box(kind, value, description, **extra):
            return kind(value=value, description=description, style=style, layout=wide, **extra)

        self.k = box(widgets.IntText, query.k, "N (radix)")
        self.m = box(widgets.IntText, query.m, "m (square)")
        self.fault_rate = box(widgets.FloatText, query.fault_rate, "fault rate", step=0.05)
        self.fault_seed = box(widgets.IntText, query.fault_seed, "fault seed")
        self.clear_toggled = widgets.Button(description="clear clicked faults", layout=wide)
        self.click_mode = widgets.ToggleButtons(options=CLICK_MODES, value="source", description="click sets",
                                                style={"description_width": "9em", "button_width": "6.5em"})
        self.source = [widgets.IntText(value=v, layout=widgets.Layout(width="4.5em")) for v in query.source]
        self.destination = [widgets.IntText(value=v, layout=widgets.Layout(width="4.5em")) for v in query.destination]
        self.algorithm = box(widgets.Dropdown, algorithm, "algorithm",
                             options=[(LABEL[name], name) for name in query.algorithms])
        self.steps = widgets.IntSlider(value=1, min=1, max=1, description="square", style=style, layout=wide)
        self.prev_button = widgets.Button(description="Prev", icon="step-backward", layout=widgets.Layout(width="7em"))
        self.next_button = widgets.Button(description="Next", icon="step-forward", layout=widgets.Layout(width="7em"))
        self.step_text = widgets.HTML("")
        self.message = widgets.HTML("", layout=widgets.Layout(min_height="1.5em", width="600px"))
        self.message.add_class("torus-lab-message")
        self.summary = widgets.HTML("")
        self.summary.add_class("torus-lab-verdict")
        self.figure = Figure(figsize=_FIGSIZE, dpi=100, layout="none")
        self.canvas = new_canvas(self.figure)
        self.canvas.add_class("torus-lab-figure")
        self.canvas.mpl_connect("button_press_event", self._clicked)
        label = widgets.Layout(width="9em")
        controls = widgets.VBox([
            widgets.HTML("<b>torus and faults</b>"), self.k, self.fault_rate, self.fault_seed, self.clear_toggled,
            widgets.HTML("<b>source and destination</b>"), self.click_mode,
            widgets.HBox([widgets.Label("source", layout=label), *self.source]),
            widgets.HBox([widgets.Label("destination", layout=label), *self.destination]),
            widgets.HTML("<b>routing</b>"), self.m, self.algorithm, self.steps,
            widgets.HBox([self.prev_button, self.next_button]), self.step_text,
        ], layout=widgets.Layout(width="30em"))  # fmt: skip
        super().__init__([widgets.HBox([controls, widgets.VBox([self.message, self.canvas, self.summary])])])
        self._fixed = {"algorithms": query.algorithms, "after_fallback": query.after_fallback}
        for control in (self.k, self.m, self.fault_rate, self.fault_seed, *self.source, *self.destination):
            control.observe(self._changed, "value")
        self.algorithm.observe(self._algorithm_changed, "value")
        self.steps.observe(lambda change: self.draw(), "value")
        self.prev_button.on_click(lambda _: self.prev_step())
        self.next_button.on_click(lambda _: self.next_step())
        self.clear_toggled.on_click(self._clear_toggled)
        self.refresh()

    # ------------------------------------------------------------------ reading the controls
    def query(self) -> SquareQuery:
        """The query the controls describe (ValueError/TypeError with the API's message if it is refused)."""
        return SquareQuery(k=self.k.value, m=self.m.value, fault_rate=self.fault_rate.value,
                           fault_seed=self.fault_seed.value, toggled=frozenset(self.toggled),
                           source=tuple(b.value for b in self.source),
                           destination=tuple(b.value for b in self.destination), **self._fixed)  # fmt: skip

    def refresh(self) -> None:
        """Recompute from the controls and show the first square; a refused input shows the API's message."""
        if self._quiet:
            return
        try:
            outcome = explore_square(self.query())
        except Exception as err:  # noqa: BLE001 (a control never raises: the API's message is shown)
            self._refused(str(err) if isinstance(err, (ValueError, TypeError)) else f"{type(err).__name__}: {err}")
            return
        self.outcome, self.error, self.message.value = outcome, "", ""
        self.summary.value = "<br>".join(html.escape(line) for line in outcome.lines())
        self._reset_steps()

    def _reset_steps(self) -> None:
        total = len(self.outcome.steps(self.algorithm.value))
        self._quiet = True
        try:
            self.steps.value = 1
            self.steps.max = max(total, 1)  # no square at all: one (empty) step
        finally:
            self._quiet = False
        self.draw()

    def current_step(self) -> SquareStep | None:
        """The step shown (None while a refused input is shown)."""
        steps = () if self.outcome is None else self.outcome.steps(self.algorithm.value)
        return steps[self.steps.value - 1] if steps else None

    def draw(self) -> None:
        """Draw the step the slider shows and say what it did."""
        if self._quiet or self.outcome is None:
            return
        name, number = self.algorithm.value, self.steps.value
        steps, result = self.outcome.steps(name), self.outcome.results[name]
        draw_square_step(self.figure, self.outcome, name, number - 1)
        self._drawn = self.outcome.query.torus
        text = (_step_text(steps[number - 1], number, len(steps), number == len(steps), result) if steps else
                f"no square walked: {result.reason}")  # fmt: skip
        self.step_text.value = html.escape(text)
        self.figure.canvas.draw_idle()

    # ------------------------------------------------------------------ events
    def next_step(self) -> None:
        """Show the next square (what *Next* does)."""
        self.steps.value = min(self.steps.value + 1, self.steps.max)

    def prev_step(self) -> None:
        """Show the previous square (what *Prev* does)."""
        self.steps.value = max(self.steps.value - 1, self.steps.min)

    def _changed(self, change: dict | None = None) -> None:
        self.refresh()

    def _algorithm_changed(self, change: dict) -> None:
        if self.outcome is not None:
            self._reset_steps()

    def _clear_toggled(self, button: widgets.Button | None = None) -> None:
        self.toggled.clear()
        self.refresh()

    def click_node(self, node: Iterable[int]) -> None:
        """What a click on ``node`` does in the current click mode (the canvas calls it; tests and scripts may)."""
        node = tuple(int(c) for c in node)
        mode = self.click_mode.value
        if mode == "fault":
            self.toggled ^= {node}
        else:
            boxes = self.source if mode == "source" else self.destination
            self._quiet = True
            try:
                for box, value in zip(boxes, node, strict=True):
                    box.value = value
            finally:
                self._quiet = False
            if mode == "source":
                self.click_mode.value = "destination"
        self.refresh()

    def _clicked(self, event: Any) -> None:
        if self._drawn is None or event.inaxes is None:
            return
        node = node_at(self._drawn, event.xdata, event.ydata)
        if node is not None:
            self.click_node(node)


def square_explorer(k: int = 16, m: int = 3, fault_rate: float = 0.1, fault_seed: int = 1,
                    source: Sequence[int] | None = None, destination: Sequence[int] | None = None,
                    algorithm: str = "adaptive_square", algorithms: Sequence[str] = ALGORITHMS,
                    after_fallback: str = "max") -> SquareExplorer:  # fmt: skip
    """The square-routing explorer (a widget: display it, or make it a cell's last expression), starting from these
    values; every argument is checked first by :class:`~torus_lab.explore.square_model.SquareQuery`.

    Parameters
    ----------
    k, m : the ``N x N`` torus and the square width
    fault_rate, fault_seed : the faulty nodes, drawn as a trial of the fault-tolerant study
    source, destination : (x0, x1), optional
        Default: the pair of that trial.
    algorithm : str
        The algorithm shown first (one of ``algorithms``).
    algorithms : sequence of str
        The algorithms offered (default: :data:`torus_lab.routing.square.ALGORITHMS`).
    after_fallback : {"max", "previous"}
        Heuristic-Square's rule after a fallback step.

    Examples
    --------
    >>> explorer = square_explorer(k=8, fault_rate=0.1, fault_seed=2, algorithm="chain")
    >>> explorer.outcome.query.source == explorer.current_step().start
    True
    >>> explorer.close()
    """
    query = SquareQuery(k=k, m=m, fault_rate=fault_rate, fault_seed=fault_seed,
                        source=tuple(source) if isinstance(source, (list, tuple)) else source,
                        destination=tuple(destination) if isinstance(destination, (list, tuple)) else destination,
                        algorithms=tuple(algorithms) if isinstance(algorithms, (list, tuple)) else algorithms,
                        after_fallback=after_fallback)  # fmt: skip
    return SquareExplorer(query, algorithm)
