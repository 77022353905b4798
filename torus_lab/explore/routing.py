"""The routing explorer: widgets round the model of :mod:`torus_lab.explore.routing_model`.

:func:`routing_explorer` returns a displayable widget (JupyterLab, or the web app of ``torus-lab explore``):

* **network**: torus, unidirectional torus, mesh or hypercube, ``n`` and ``k``;
* **routing**: any entry of the registry (:mod:`torus_lab.routing.registry`), built-in or registered at run time,
  its options as controls generated from the entry's option records (:mod:`torus_lab.explore.controls`);
* **source and destination**: clicked on the 2-D drawing (the matplotlib canvas of ipympl reports the click) or
  typed in the coordinate boxes (the only way for ``n >= 3``); the *click sets* buttons choose what a click does:
  the source (then the destination), the destination, or toggling a node's fault;
* **faults**: links or nodes failing at a rate with a seed, plus the nodes toggled by clicking.

It shows the preferred route, the channels of every allowed route, hops against the Lee distance, the
channel-dependency-graph verdict with its witness cycle drawn on the network, and Duato's check where the routing
has escape VCs (the model's :class:`~torus_lab.explore.routing_model.RoutingOutcome`).  A value the API refuses
is shown as the API's message (the ``ValueError`` text) instead of the result, before any work; nothing raises
out of a control.

Examples
--------
>>> explorer = routing_explorer(k=4, options={"datelines": False})
>>> explorer.outcome.verdict.acyclic, len(explorer.outcome.cycle_channels)
(False, 4)
>>> explorer.set_option("vcs", 0)
>>> explorer.error, explorer.outcome
("routing 'ecube': option 'vcs' must be >= 1, got 0", None)
>>> explorer.close()
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from torus_lab._validate import check_instance, is_int
from torus_lab.explore.controls import OptionsBox
from torus_lab.explore.routing_model import (
    FAULT_KINDS,
    MAX_EXPLORER_DIMS,
    MAX_EXPLORER_NODES,
    NETWORKS,
    RoutingOutcome,
    RoutingQuery,
    explore_routing,
)
from torus_lab.plotting import PALETTE, draw_torus_2d, draw_torus_3d, figure_style
from torus_lab.routing.registry import RoutingRegistry, routing_entries, routing_entry
from torus_lab.topology import Torus

__all__ = ["CanvasExplorer", "RoutingExplorer", "routing_explorer", "draw_outcome", "CLICK_MODES"]

#: What a click on a node does: set the source (then the destination), set the destination, toggle a fault.
CLICK_MODES = ("source", "destination", "fault")
#: A click farther than this from every node (in node spacings) picks nothing.
_CLICK_RADIUS = 0.45
#: Size of the explorer's figure (inches at 100 dpi).
_FIGSIZE = (6.0, 6.0)
#: Where the 2-D drawing sits in the figure (left, bottom, width, height): fixed, so that a redraw computes no
#: layout (constrained layout took as long as drawing the network) and a node stays where it was clicked.
_AXES_RECT = (0.1, 0.16, 0.86, 0.78)


def _channel_segment(topology: Torus, cid: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ends of channel ``cid`` in the 2-D drawing (a wraparound as a stub leaving the grid, as
    :func:`torus_lab.plotting.draw_torus_2d` draws it)."""
    src = topology.coords(int(topology.channel_src[cid]))
    dst = topology.coords(int(topology.channel_dst[cid]))
    if topology.is_wraparound(int(cid)):
        dim, sign = int(topology.channel_dim[cid]), int(topology.channel_sign[cid])
        dst = (src[0] + 0.45 * sign * (dim == 0), src[1] + 0.45 * sign * (dim == 1))
    return (float(src[0]), float(src[1])), (float(dst[0]), float(dst[1]))


def draw_outcome(fig: Figure, outcome: RoutingOutcome) -> None:
    """Draw ``outcome`` on ``fig`` (cleared first): the network, the channels of every allowed route (wide, pale),
    the preferred route, faults, source and destination ringed, and the CDG witness cycle (red arrows).

    2-D networks are drawn by :func:`torus_lab.plotting.draw_torus_2d` (where clicks pick nodes), 3-D ones by
    :func:`~torus_lab.plotting.draw_torus_3d` (routes and faults only); larger ``n`` gets no drawing.

    Examples
    --------
    >>> from torus_lab.explore.routing_model import RoutingQuery, explore_routing
    >>> fig = Figure()
    >>> draw_outcome(fig, explore_routing(RoutingQuery(k=4)))
    >>> fig.axes[0].get_title()
    'ecube on Torus(2, 4): CDG cyclic'
    """
    check_instance("fig", fig, Figure, "a matplotlib Figure")
    check_instance("outcome", outcome, RoutingOutcome)
    q, topo = outcome.query, outcome.query.topology
    fig.clf()
    verdict = "CDG acyclic" if outcome.verdict.acyclic else "CDG cyclic"
    title = f"{outcome.routing.name} on {topo!r}: {verdict}"
    paths = [outcome.route] if outcome.route is not None else []
    labels = ["preferred route"] if paths else None
    faults = q.faults if q.faults.nodes or q.faults.links else None
    with figure_style():
        if topo.n == 2:
            ax = fig.add_axes(_AXES_RECT)
            for number, cid in enumerate(outcome.allowed_channels):
                (x0, y0), (x1, y1) = _channel_segment(topo, cid)
                ax.plot([x0, x1], [y0, y1], color=PALETTE[5], lw=7, alpha=0.45, solid_capstyle="round", zorder=3,
                        label="channels of the allowed routes" if number == 0 else None)  # fmt: skip
            draw_torus_2d(ax, topo, paths=paths, path_labels=labels, faults=faults,
                          cycle=outcome.cycle_channels or None, highlight=[q.source, q.destination], title=title)
            if outcome.cycle_channels:
                ax.plot([], [], color=PALETTE[3], lw=2.2, label="CDG witness cycle")
            ax.legend(loc="lower center", bbox_to_anchor=(0.5, 0.0), bbox_transform=fig.transFigure, ncol=3,
                      fontsize="small")
        elif topo.n == 3:
            ax = fig.add_subplot(projection="3d")
            draw_torus_3d(ax, topo, paths=paths, path_labels=labels, faults=faults, title=title)
        else:
            ax = fig.add_subplot()
            ax.set_axis_off()
            ax.set_title(title)
            ax.text(0.5, 0.5, f"no drawing for n = {topo.n}: the route and the verdict are listed below",
                    ha="center", va="center", transform=ax.transAxes, wrap=True)  # fmt: skip


def node_at(topology: Torus, x: float | None, y: float | None) -> tuple[int, int] | None:
    """The node of the 2-D drawing at data coordinates ``(x, y)``, or None when the click is near no node (what
    a click on an explorer's canvas picks; shared by the explorers that draw a 2-D network).

    Examples
    --------
    >>> node_at(Torus(2, 4), 1.1, 2.9), node_at(Torus(2, 4), 1.5, 2.0)
    ((1, 3), None)
    """
    if topology.n != 2 or x is None or y is None:
        return None
    node = (round(x), round(y))
    if not all(0 <= c < k for c, k in zip(node, topology.radices, strict=True)):
        return None
    if (x - node[0]) ** 2 + (y - node[1]) ** 2 > _CLICK_RADIUS**2:
        return None
    return node


def _default_destination(n: int, k: int) -> tuple[int, ...]:
    """Where the destination starts on a new network: ``(k // 2, 1, 0, ...)``, within the network."""
    return tuple(min(k - 1, v) for v in ([k // 2] + [1] + [0] * n)[:n])


def new_canvas(fig: Figure) -> widgets.DOMWidget:
    """An ipympl canvas widget showing ``fig`` (no toolbar: a click always means a node); shared by the explorers
    that draw a figure."""
    from ipympl.backend_nbagg import Canvas, FigureManager

    canvas = Canvas(fig)
    with warnings.catch_warnings():  # ipympl's toolbar passes its canvas on to traitlets, which warns (harmless)
        warnings.filterwarnings("ignore", "Passing unrecognized arguments", DeprecationWarning)
        FigureManager(canvas, 0)
    canvas.header_visible = False
    canvas.footer_visible = False
    canvas.toolbar_visible = False
    canvas.resizable = False
    canvas._closed = False  # shown as a widget of the explorer, not through pyplot
    return canvas


class CanvasExplorer:
    """What every explorer drawn on an ipympl canvas shares (a mixin before ``ipywidgets.VBox``): a refused input
    shown as the API's message (in red, in ``message``) with the widgets that held an outcome emptied, and the
    canvas closed with the widget.

    A subclass sets ``message`` and ``canvas`` and lists in ``_outcome_texts`` the names of its ipywidgets.HTML
    that show an outcome.
    """

    _outcome_texts: tuple[str, ...] = ("summary",)

    def _refused(self, text: str) -> None:
        self.outcome, self.error = None, text
        self.message.value = f'<b style="color: {PALETTE[3]}">{html.escape(text, quote=False)}</b>'
        for name in self._outcome_texts:
            getattr(self, name).value = ""

    def _computed(self, compute: Callable[[], Any]) -> Any:
        """``compute()``, or None with the refusal shown: a ValueError or TypeError as the API's message as it is,
        anything else with its type (a control never raises)."""
        try:
            return compute()
        except (ValueError, TypeError) as err:
            self._refused(str(err))
        except Exception as err:  # noqa: BLE001 (a control never raises: anything else is shown too)
            self._refused(f"{type(err).__name__}: {err}")
        return None

    def close(self) -> None:
        """Close the widget and its figure's canvas."""
        canvas = getattr(self, "canvas", None)  # None when building it failed
        if canvas is not None:
            canvas.close()
        super().close()


class RoutingExplorer(CanvasExplorer, widgets.VBox):
    """The routing explorer's widget (see the module's description); build it with :func:`routing_explorer`.

    Attributes
    ----------
    outcome : RoutingOutcome or None
        What is shown (None while the message shows a refused input).
    error : str
        The API's message for a refused input (empty otherwise), which ``message`` (ipywidgets.HTML) shows.
    summary : ipywidgets.HTML
        The outcome in words (:meth:`RoutingOutcome.lines`).
    figure : matplotlib Figure
        The drawing; ``canvas`` is its ipympl widget.
    """

    def __init__(self, query: RoutingQuery) -> None:
        check_instance("query", query, RoutingQuery)
        self._registry: RoutingRegistry | None = query.registry
        self._quiet = False
        self.outcome: RoutingOutcome | None = None
        self.error = ""
        self._drawn: Torus | None = None  # the network the figure shows
        self.toggled: set[tuple[int, ...]] = set(query.toggled)
        style = {"description_width": "9em"}
        wide = widgets.Layout(width="18em")
        self.network = widgets.Dropdown(options=NETWORKS, value=query.network, description="network", style=style,
                                        layout=wide)  # fmt: skip
        self.n = widgets.IntText(value=query.n, description="n (dimensions)", style=style, layout=wide)
        self.k = widgets.IntText(value=query.k, description="k (radix)", style=style, layout=wide,
                                 disabled=query.network == "hypercube")  # fmt: skip
        self.routing = widgets.Dropdown(options=self._routing_names(), value=query.routing, description="routing",
                                        style=style, layout=wide)  # fmt: skip
        self.routing.add_class("torus-lab-routing")
        self.options_box = self._options_box(query.routing, query.options)
        self._options_holder = widgets.VBox([self.options_box.widget])
        self.click_mode = widgets.ToggleButtons(options=CLICK_MODES, value="source", description="click sets",
                                                style={"description_width": "9em", "button_width": "6.5em"})
        self.source = self._coordinate_boxes("source", query.source)
        self.destination = self._coordinate_boxes("destination", query.destination)
        self._source_row = widgets.HBox([widgets.Label("source", layout=widgets.Layout(width="9em")), *self.source])
        self._destination_row = widgets.HBox([widgets.Label("destination", layout=widgets.Layout(width="9em")),
                                              *self.destination])  # fmt: skip
        self.fault_kind = widgets.Dropdown(options=FAULT_KINDS, value=query.fault_kind, description="faulty",
                                           style=style, layout=wide)  # fmt: skip
        self.fault_rate = widgets.FloatText(value=query.fault_rate, step=0.05, description="fault rate", style=style,
                                            layout=wide)  # fmt: skip
        self.fault_seed = widgets.IntText(value=query.fault_seed, description="fault seed", style=style, layout=wide)
        self.clear_toggled = widgets.Button(description="clear clicked faults", layout=wide)
        self.message = widgets.HTML("", layout=widgets.Layout(min_height="1.5em", width="600px"))
        self.message.add_class("torus-lab-message")
        self.summary = widgets.HTML("")
        self.summary.add_class("torus-lab-verdict")
        self.figure = Figure(figsize=_FIGSIZE, dpi=100, layout="none")
        self.canvas = new_canvas(self.figure)
        self.canvas.add_class("torus-lab-figure")
        self.canvas.mpl_connect("button_press_event", self._clicked)
        controls = widgets.VBox([
            widgets.HTML("<b>network</b>"), self.network, self.n, self.k,
            widgets.HTML("<b>routing</b>"), self.routing, self._options_holder,
            widgets.HTML("<b>source and destination</b>"), self.click_mode, self._source_row, self._destination_row,
            widgets.HTML("<b>faults</b>"), self.fault_kind, self.fault_rate, self.fault_seed, self.clear_toggled,
        ], layout=widgets.Layout(width="30em"))  # fmt: skip
        super().__init__([widgets.HBox([controls, widgets.VBox([self.message, self.canvas, self.summary])])])
        for control in (self.network, self.n, self.k):
            control.observe(self._network_changed, "value")
        self.routing.observe(self._routing_changed, "value")
        for control in (self.fault_kind, self.fault_rate, self.fault_seed, *self.source, *self.destination):
            control.observe(self._changed, "value")
        self.clear_toggled.on_click(self._clear_toggled)
        self.refresh()

    # ------------------------------------------------------------------ building controls
    def _routing_names(self) -> list[str]:
        return [entry.name for entry in routing_entries(registry=self._registry)]

    def _options_box(self, name: str, values: Mapping[str, Any]) -> OptionsBox:
        box = OptionsBox(routing_entry(name, registry=self._registry))
        for key, value in values.items():
            box.control(key).set(value)
        box.observe(self._changed)
        return box

    def _coordinate_boxes(self, name: str, node: Sequence[int]) -> list[widgets.IntText]:
        return [widgets.IntText(value=int(c), layout=widgets.Layout(width="4.5em"), description_allow_html=False)
                for c in node]  # fmt: skip

    def _set_nodes(self, source: Sequence[int] | None = None, destination: Sequence[int] | None = None) -> None:
        """Show new coordinates (rebuilding the boxes when the number of dimensions changed) without refreshing."""
        for node, boxes_name, row in ((source, "source", self._source_row),
                                      (destination, "destination", self._destination_row)):  # fmt: skip
            if node is None:
                continue
            boxes = getattr(self, boxes_name)
            if len(boxes) != len(node):
                boxes = self._coordinate_boxes(boxes_name, node)
                for box in boxes:
                    box.observe(self._changed, "value")
                setattr(self, boxes_name, boxes)
                row.children = (row.children[0], *boxes)
            for box, value in zip(boxes, node, strict=True):
                box.value = int(value)

    # ------------------------------------------------------------------ reading the controls
    def query(self) -> RoutingQuery:
        """The query the controls describe (ValueError/TypeError with the API's message if it is refused)."""
        return RoutingQuery(
            network=self.network.value, n=self.n.value, k=self.k.value, routing=self.routing.value,
            options=self.options_box.values(), source=tuple(b.value for b in self.source),
            destination=tuple(b.value for b in self.destination), fault_kind=self.fault_kind.value,
            fault_rate=self.fault_rate.value, fault_seed=self.fault_seed.value, toggled=frozenset(self.toggled),
            registry=self._registry,
        )  # fmt: skip

    def refresh(self) -> None:
        """Recompute and redraw from the controls; a refused input shows the API's message instead."""
        if self._quiet:
            return
        outcome = self._computed(lambda: explore_routing(self.query()))
        if outcome is None:
            return
        self.outcome = outcome
        self.error = ""
        self.message.value = ""
        self.summary.value = "<br>".join(html.escape(line) for line in outcome.lines())
        draw_outcome(self.figure, outcome)
        self._drawn = outcome.query.topology
        self.figure.canvas.draw_idle()

    # ------------------------------------------------------------------ events
    def _changed(self, change: dict | None = None) -> None:
        self.refresh()

    def _network_changed(self, change: dict) -> None:
        if self.network.value == "hypercube":
            self._quietly(lambda: setattr(self.k, "value", 2))
        self.k.disabled = self.network.value == "hypercube"
        n, k = self.n.value, self.k.value
        if 1 <= n <= MAX_EXPLORER_DIMS and 2 <= k <= MAX_EXPLORER_NODES:  # else the query names the error
            self.toggled.clear()
            self._quietly(lambda: self._set_nodes((0,) * n, _default_destination(n, k)))
        self.refresh()

    def _routing_changed(self, change: dict) -> None:
        self.options_box = self._options_box(self.routing.value, {})
        self._options_holder.children = (self.options_box.widget,)
        self.refresh()

    def _clear_toggled(self, button: widgets.Button | None = None) -> None:
        self.toggled.clear()
        self.refresh()

    def _quietly(self, action) -> None:
        self._quiet = True
        try:
            action()
        finally:
            self._quiet = False

    def click_node(self, node: Iterable[int]) -> None:
        """What a click on ``node`` does in the current click mode (the canvas calls it; tests and scripts may)."""
        node = tuple(int(c) for c in node)
        mode = self.click_mode.value
        if mode == "fault":
            self.toggled ^= {node}
        elif mode == "source":
            self._quietly(lambda: self._set_nodes(source=node))
            self.click_mode.value = "destination"
        else:
            self._quietly(lambda: self._set_nodes(destination=node))
        self.refresh()

    def _clicked(self, event: Any) -> None:
        if self._drawn is None or event.inaxes is None:
            return
        node = node_at(self._drawn, event.xdata, event.ydata)  # a node of the network drawn, refused input or not
        if node is not None:
            self.click_node(node)

    def set_option(self, name: str, value: Any) -> None:
        """Set the control of the current routing's option ``name`` to ``value`` (as a user would)."""
        self.options_box.control(name).set(value)


def routing_explorer(
    network: str = "torus",
    n: int = 2,
    k: int = 4,
    routing: str = "ecube",
    options: Mapping[str, Any] | None = None,
    source: Sequence[int] | None = None,
    destination: Sequence[int] | None = None,
    fault_kind: str = "links",
    fault_rate: float = 0.0,
    fault_seed: int = 1,
    registry: RoutingRegistry | None = None,
) -> RoutingExplorer:
    """The routing explorer (a widget: display it, or make it a cell's last expression), starting from these
    values; every argument is checked first by :class:`~torus_lab.explore.routing_model.RoutingQuery`.

    Parameters
    ----------
    network, n, k : the network (see :func:`torus_lab.explore.routing_model.network`)
    routing : str
        A registry name; the drop-down offers every routing registered when the explorer is built.
    options : mapping, optional
        Options of that routing (the others take their defaults).
    source, destination : tuple of int
        Default source: the origin; default destination: ``(k // 2, 1, 0, ...)``.
    fault_kind, fault_rate, fault_seed : random faults (none by default)
    registry : RoutingRegistry, optional
        Where routings are looked up (default: the process's registry).

    Examples
    --------
    >>> explorer = routing_explorer(routing="west-first", k=6, source=(0, 0), destination=(4, 2))
    >>> explorer.outcome.hops, explorer.outcome.lee
    (4, 4)
    >>> explorer.close()
    """
    if destination is None:  # (k // 2, 1, 0, ...) of a network the query accepts; it names a bad n or k itself
        sizes_ok = is_int(n) and is_int(k) and 1 <= n <= MAX_EXPLORER_DIMS and 2 <= k <= MAX_EXPLORER_NODES
        destination = _default_destination(int(n), int(k)) if sizes_ok else (1, 1)
    if source is None:
        source = (0,) * int(n) if is_int(n) and 1 <= n <= MAX_EXPLORER_DIMS else (0, 0)
    query = RoutingQuery(network=network, n=n, k=k, routing=routing, options={} if options is None else options,
                         source=tuple(source) if isinstance(source, (list, tuple)) else source,
                         destination=tuple(destination) if isinstance(destination, (list, tuple)) else destination,
                         fault_kind=fault_kind, fault_rate=fault_rate, fault_seed=fault_seed,
                         registry=registry)  # fmt: skip
    return RoutingExplorer(query)
