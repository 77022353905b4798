"""The latency explorer: latency-load curves of several routings, drawn as their points arrive.

Three layers, each usable without the next:

* :class:`LatencyQuery` -- the explorer's parameters (registry routings, router model and simulator preset,
  traffic pattern, injection process, loads, replicas, the torus ``Torus(n, k)``), every one checked when the
  query is made, with the message of the API that owns it (the registry, :class:`torus_lab.sim.SimConfig`,
  :mod:`torus_lab.sim.traffic`); :meth:`LatencyQuery.items` are the sweep items of
  :func:`torus_lab.studies.routing_bench.latency_point`, the one latency-load pipeline;
* :class:`LatencyRun` -- those items run in the background, a batch at a time, through
  :func:`~torus_lab.studies.routing_bench.latency_runs` (so through :func:`torus_lab.sweep.sweep`, its seed
  rule and its cache: a point has the value a full sweep gives it); after every batch the listener hears of
  the new points; :meth:`LatencyRun.cancel` stops it after the batch under way (the points measured stay);
  :func:`figure_data` turns the points into per-point means with Student-t intervals and per-curve saturation
  (:func:`~torus_lab.studies.routing_bench.point_summary`, :func:`~torus_lab.studies.routing_bench.curve_saturation`
  with the bench's criterion :data:`~torus_lab.studies.routing_bench.SATURATION`);
* :class:`LatencyExplorer` -- the ipywidgets front end (:func:`latency_explorer`): controls, Run and Cancel
  buttons, a progress bar, a status line that shows a refused input's message, and the figure
  (:func:`torus_lab.plotting.latency_load_figure`: each curve stops at its saturation load, ringed).

The run's thread waits on the sweep's worker processes, so the kernel stays free for other cells.  It is a
daemon thread: a process that exits (Ctrl-C in a script, a kernel shut down) cancels it on its way out, and a
process ended without cleanup (SIGTERM, a kernel killed) takes it along, its workers following their parent
(:mod:`torus_lab.sweep`).  A kernel's *Interrupt* (SIGINT to the kernel's process, idle or running a cell)
cancels a run going as *Cancel* does (:func:`torus_lab.kernel_interrupt.add_interrupt_listener`); the run then
says it was interrupted (its ``interrupted`` flag).

Examples
--------
>>> query = LatencyQuery(routings=["ecube", "duato"], n=2, k=4, loads=[0.1, 0.2], seeds=1, warmup=20, measure=40)
>>> len(query.items()), query.labels
(4, ('ecube', 'duato'))
>>> run = LatencyRun(query, backend="serial").start()
>>> run.wait(600), run.state, run.done
(True, 'done', 4)
>>> sorted(figure_data(run.runs(), query.labels).curves.label.unique())
['duato', 'ecube']
"""

from __future__ import annotations

import atexit
import html
import io
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import check_instance, check_int, check_real, check_sequence, check_str
from torus_lab.kernel_interrupt import add_interrupt_listener
from torus_lab.routing import make_routing
from torus_lab.routing.registry import normalize_spec, routing_entries, routing_entry
from torus_lab.settings import current_settings
from torus_lab.sim import SimConfig
from torus_lab.sim.config import PRESETS, ROUTERS
from torus_lab.sim.traffic import INJECTIONS, PATTERNS, destination_map
from torus_lab.studies.routing_bench import CURVE_CONFIG, SATURATION, curve_saturation, latency_runs, point_summary
from torus_lab.sweep import BACKENDS
from torus_lab.topology import Torus

__all__ = ["FigureData", "LatencyExplorer", "LatencyQuery", "LatencyRun", "figure_data", "latency_explorer",
           "latency_figure"]  # fmt: skip

#: Largest n and k the explorer offers, and the most nodes of ``Torus(n, k)`` (a bigger network is a study, not
#: an exploration).
MAX_N, MAX_K, MAX_NODES = 6, 64, 4096
#: Run states of :class:`LatencyRun`.
STATES = ("idle", "running", "done", "cancelled", "failed")


def _label(spec: Mapping[str, Any]) -> str:
    """A curve's name: the entry's name, then the options that differ from their defaults."""
    defaults = routing_entry(spec["name"]).defaults()
    changed = [f"{key}={value}" for key, value in spec.items() if key != "name" and defaults.get(key) != value]
    return spec["name"] if not changed else f"{spec['name']} ({', '.join(changed)})"


@dataclass(frozen=True)
class LatencyQuery:
    """The parameters of a latency-load exploration, checked when made (ValueError/TypeError naming the bad one).

    Parameters
    ----------
    routings : sequence of str or mapping
        Registry specs (:func:`torus_lab.routing.make_routing`); each must build on ``Torus(n, k)``.
    router : {"simple", "booksim"}
        Router model (:data:`torus_lab.sim.config.ROUTERS`).
    preset : str
        Simulator preset (:data:`torus_lab.sim.config.PRESETS`) the remaining settings start from, over the
        bench's :data:`~torus_lab.studies.routing_bench.CURVE_CONFIG`.
    traffic, injection : str
        Traffic pattern and injection process (:mod:`torus_lab.sim.traffic`).
    loads : sequence of float
        Offered loads (flits/node/cycle), positive and increasing.
    seeds : int
        Simulations (replicas) per routing and load.
    n, k : int
        The network ``Torus(n, k)``.
    seed : int
        Experiment seed (every simulation's generator derives from it and the item's content).
    warmup, measure : int
        Warm-up and measurement cycles of each simulation.

    Examples
    --------
    >>> LatencyQuery(routings=["ecube"], loads=[0.3, 0.1])
    Traceback (most recent call last):
    ...
    ValueError: loads must be increasing, got [0.3, 0.1]
    """

    routings: tuple[Any, ...] = ("ecube",)
    router: str = "simple"
    preset: str = "simple"
    traffic: str = "uniform"
    injection: str = "bernoulli"
    loads: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4)
    seeds: int = 2
    n: int = 2
    k: int = 8
    seed: int = 1
    warmup: int = 500
    measure: int = 1500
    specs: tuple[dict[str, Any], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        routings = check_sequence("routings", self.routings, min_length=1)
        check_str("router", self.router, ROUTERS)
        check_str("preset", self.preset, tuple(PRESETS))
        check_str("traffic", self.traffic, tuple(PATTERNS))
        check_str("injection", self.injection, tuple(INJECTIONS))
        loads = [check_real("loads", x, minimum=0) for x in check_sequence("loads", self.loads, min_length=1)]
        if any(x <= 0 for x in loads):
            raise ValueError(f"loads must be positive, got {loads}")
        if any(b <= a for a, b in zip(loads, loads[1:], strict=False)):
            raise ValueError(f"loads must be increasing, got {loads}")
        check_int("seeds", self.seeds, minimum=1, maximum=100)
        check_int("n", self.n, minimum=1, maximum=MAX_N)
        check_int("k", self.k, minimum=2, maximum=MAX_K)
        if int(self.k) ** int(self.n) > MAX_NODES:
            raise ValueError(f"n, k: Torus({self.n}, {self.k}) has {int(self.k) ** int(self.n)} nodes; the explorer "
                             f"takes at most {MAX_NODES}")  # fmt: skip
        check_int("seed", self.seed, minimum=0)
        check_int("warmup", self.warmup, minimum=0, maximum=10**6)
        check_int("measure", self.measure, minimum=1, maximum=10**6)
        specs = []
        for i, spec in enumerate(routings):
            try:
                specs.append(normalize_spec(spec))
            except (ValueError, TypeError) as err:
                raise type(err)(f"routings[{i}]: {err}") from None
        object.__setattr__(self, "routings", tuple(routings))
        object.__setattr__(self, "loads", tuple(float(x) for x in loads))
        object.__setattr__(self, "specs", tuple(specs))
        labels = [_label(spec) for spec in specs]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise ValueError(f"routings name the same routing twice: {twice}")
        topology = Torus(int(self.n), int(self.k))
        SimConfig.from_mapping({**self.config(), "offered_load": loads[-1]})  # every field, naming it
        destination_map(topology, self.traffic)  # a permutation the network cannot take
        for i, spec in enumerate(specs):
            try:
                make_routing(spec, topology, validate=False)
            except (ValueError, TypeError) as err:
                raise type(err)(f"routings[{i}] on Torus({self.n}, {self.k}): {err}") from None

    @property
    def labels(self) -> tuple[str, ...]:
        """The curves' names, in the order of ``routings``."""
        return tuple(_label(spec) for spec in self.specs)

    def config(self) -> dict[str, Any]:
        """The :class:`~torus_lab.sim.SimConfig` fields of every simulation (the offered load aside)."""
        return {**CURVE_CONFIG, **PRESETS[self.preset], "router": self.router, "traffic": self.traffic,
                "injection": self.injection, "warmup": int(self.warmup), "measure": int(self.measure)}  # fmt: skip

    def items(self) -> list[dict[str, Any]]:
        """The sweep items of :func:`~torus_lab.studies.routing_bench.latency_point`, lightest load and first
        replica first (so every curve grows from the left while the run goes on)."""
        config = self.config()
        return [{"routing": spec, "algorithm": label, "dims": int(self.n), "radix": int(self.k), "load": load,
                 "replica": replica, "config": config}
                for replica in range(int(self.seeds)) for load in self.loads
                for spec, label in zip(self.specs, self.labels, strict=True)]  # fmt: skip


# ---------------------------------------------------------------------- points -> figure data
@dataclass(frozen=True)
class FigureData:
    """What the figure shows: one row per (curve, load) with intervals, and each curve's saturation."""

    curves: pd.DataFrame
    saturation: pd.DataFrame
    labels: tuple[str, ...]


def figure_data(runs: pd.DataFrame, labels: Sequence[str]) -> FigureData:
    """Per-point means with Student-t intervals (deadlocked runs counted apart) and per-curve saturation of the
    runs measured so far (``label`` names the curve; ``labels`` fixes the curves' order and colours).

    Examples
    --------
    >>> runs = pd.DataFrame({"label": "a", "offered_load": [0.1, 0.1, 0.2], "mean_latency": [10.0, 12.0, 30.0],
    ...                      "accepted_throughput": [0.1, 0.1, 0.15], "generated_throughput": [0.1, 0.1, 0.2],
    ...                      "deadlock": False, "seed": 1})
    >>> data = figure_data(runs, ["a", "b"])
    >>> data.curves[["offered_load", "runs"]].values.tolist(), data.saturation.saturation_load.tolist()
    ([[0.1, 2.0], [0.2, 1.0]], [0.1])
    """
    check_instance("runs", runs, pd.DataFrame, "a pandas DataFrame")
    labels = tuple(check_str("labels", label) for label in check_sequence("labels", labels))
    if not len(runs):
        return FigureData(pd.DataFrame(), pd.DataFrame(), labels)
    curves = point_summary(runs, ["label"])
    saturation = curve_saturation(runs, ["label"], SATURATION)
    return FigureData(curves, saturation, labels)


def latency_figure(data: FigureData):
    """The latency-load figure of ``data`` (:func:`torus_lab.plotting.latency_load_figure`: bands are 95%
    intervals, crosses mark deadlocked points; each curve stops at its saturation load, ringed); None before the
    first point."""
    check_instance("data", data, FigureData, "a FigureData")
    if not len(data.curves):
        return None
    from torus_lab.plotting import latency_load_figure

    order = [label for label in data.labels if label in set(data.curves.label)] or None
    saturation = data.saturation if "saturation_load" in data.saturation.columns else None
    return latency_load_figure(data.curves, hue="label", hue_order=order, mark_deadlocks=True,
                               legend_title="routing\n(band: 95% CI,\nx: a run deadlocked)",
                               saturation=saturation)  # fmt: skip


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=90)
    finally:
        plt.close(fig)
    return buffer.getvalue()


# ---------------------------------------------------------------------- the background run
_ACTIVE: weakref.WeakSet[LatencyRun] = weakref.WeakSet()


def _cancel_active() -> None:
    """At exit: cancel every run still going and give each a moment to finish its batch."""
    runs = list(_ACTIVE)
    for run in runs:
        run.cancel()
    for run in runs:
        run.wait(timeout=2.0)


atexit.register(_cancel_active)


class LatencyRun:
    """The items of a :class:`LatencyQuery` run in a background thread, a batch at a time.

    Parameters
    ----------
    query : LatencyQuery
    backend : {"auto", "serial", "processes", "dask"}
        The sweep backend of every batch (:func:`torus_lab.sweep.sweep`).
    batch : int, optional
        Items per batch (default: 1 on the serial backend, else the sweep's local workers): the points that
        arrive together, and at most how many more are measured after :meth:`cancel`.
    on_update : callable, optional
        Called with the run (from its thread) after every batch and once when it ends.

    While it runs, SIGINT to the process (a kernel's *Interrupt*) or a cell ending in a KeyboardInterrupt cancels
    it, as :meth:`cancel` does, and sets ``interrupted``; a batch that fails once the run is cancelled (a sweep
    worker that got the interrupt too) ends the run cancelled, not failed.

    Examples
    --------
    >>> query = LatencyQuery(routings=["ecube"], n=1, k=4, loads=[0.1, 0.2, 0.3], seeds=1, warmup=10, measure=20)
    >>> run = LatencyRun(query, backend="serial", on_update=lambda r: r.cancel()).start()
    >>> run.wait(600), run.state, run.done < run.total
    (True, 'cancelled', True)
    """

    def __init__(self, query: LatencyQuery, *, backend: str = "auto", batch: int | None = None,
                 on_update: Callable[[LatencyRun], None] | None = None) -> None:  # fmt: skip
        self.query = check_instance("query", query, LatencyQuery, "a LatencyQuery")
        self.backend = check_str("backend", backend, BACKENDS)
        if batch is None:
            batch = 1 if backend == "serial" else (current_settings().workers or os.cpu_count() or 1)
        self.batch = check_int("batch", batch, minimum=1)
        if on_update is not None and not callable(on_update):
            raise TypeError(f"on_update must be callable or None, got {on_update!r}")
        self.on_update = on_update
        self.items = query.items()
        self.state = "idle"
        self.error: str | None = None
        self._frames: list[pd.DataFrame] = []
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self.interrupted = False
        self._stop_listening: Callable[[], None] | None = None

    @property
    def total(self) -> int:
        """Points the query asks for."""
        return len(self.items)

    @property
    def done(self) -> int:
        """Points measured so far."""
        with self._lock:
            return sum(len(frame) for frame in self._frames)

    def runs(self) -> pd.DataFrame:
        """One row per point measured so far (:func:`~torus_lab.studies.routing_bench.latency_runs`)."""
        with self._lock:
            frames = list(self._frames)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def figure_data(self) -> FigureData:
        """:func:`figure_data` of the points measured so far."""
        return figure_data(self.runs(), self.query.labels)

    def start(self) -> LatencyRun:
        """Start the background thread (once); returns the run."""
        if self._thread is not None:
            raise ValueError("run already started; make a new LatencyRun to run again")
        self.state = "running"
        self._thread = threading.Thread(target=self._work, name="torus-lab-latency-explorer", daemon=True)
        _ACTIVE.add(self)
        self._stop_listening = add_interrupt_listener(self._interrupt)
        self._thread.start()
        return self

    def _interrupt(self, signum: int) -> None:  # noqa: ARG002 (a listener's signature)
        """A kernel's interrupt: cancel, remembering why (called in the main thread: a flag and an event only)."""
        self.interrupted = True
        self._cancel.set()

    def cancel(self) -> None:
        """Stop after the batch under way; the points measured so far stay."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end (at most ``timeout`` seconds); True when it has."""
        if timeout is not None:
            check_real("timeout", timeout, minimum=0)
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _notify(self) -> None:
        if self.on_update is not None:
            self.on_update(self)

    def _work(self) -> None:
        try:
            for first in range(0, self.total, self.batch):
                if self._cancel.is_set():
                    break
                frame = latency_runs(self.items[first : first + self.batch], seed=int(self.query.seed),
                                     backend=self.backend, desc="latency explorer", progress=False)  # fmt: skip
                with self._lock:
                    self._frames.append(frame)
                self._notify()
            self.state = "cancelled" if self._cancel.is_set() and self.done < self.total else "done"
        except Exception as err:  # shown in the explorer's status line; the thread must not die silently
            if self._cancel.is_set():  # the batch under way was interrupted with the run: cancelled
                self.state = "cancelled"
            else:
                self.state, self.error = "failed", f"{type(err).__name__}: {err}"
        finally:
            _ACTIVE.discard(self)
            if self._stop_listening is not None:
                self._stop_listening()
        self._notify()


# ---------------------------------------------------------------------- the widgets
class LatencyExplorer:
    """The ipywidgets front end of :class:`LatencyQuery` and :class:`LatencyRun` (made by
    :func:`latency_explorer`); displaying it shows its ``widget``.

    ``controls`` maps each query field to its widget (the load range and the number of loads, evenly spaced,
    stand for ``loads``; routings are registry entries at their default options, while the query itself takes
    any spec); :meth:`query` reads them, :meth:`run` and :meth:`cancel` are what the buttons do.  Only one run
    goes at a time.
    """

    def __init__(self, query: LatencyQuery | None = None, *, backend: str = "auto") -> None:
        import ipywidgets as w

        query = LatencyQuery() if query is None else check_instance("query", query, LatencyQuery, "a LatencyQuery")
        self.backend = check_str("backend", backend, BACKENDS)
        names = [entry.name for entry in routing_entries()]
        chosen = tuple(spec["name"] for spec in query.specs if spec["name"] in names) or (names[0],)
        loads = query.loads
        self.controls: dict[str, Any] = {
            "routings": w.SelectMultiple(options=names, value=chosen, rows=min(8, len(names)), description="routings"),
            "router": w.Dropdown(options=list(ROUTERS), value=query.router, description="router"),
            "preset": w.Dropdown(options=list(PRESETS), value=query.preset, description="preset"),
            "traffic": w.Dropdown(options=list(PATTERNS), value=query.traffic, description="traffic"),
            "injection": w.Dropdown(options=list(INJECTIONS), value=query.injection, description="injection"),
            "loads": w.FloatRangeSlider(value=(loads[0], loads[-1]), min=0.01, max=1.0, step=0.01,
                                        description="load range"),  # fmt: skip
            "points": w.IntSlider(value=len(loads), min=1, max=40, description="loads"),
            "seeds": w.IntSlider(value=int(query.seeds), min=1, max=20, description="seeds"),
            "n": w.IntSlider(value=int(query.n), min=1, max=MAX_N, description="n"),
            "k": w.IntSlider(value=int(query.k), min=2, max=MAX_K, description="k"),
            "seed": w.BoundedIntText(value=int(query.seed), min=0, max=2**31 - 1, description="seed"),
            "warmup": w.BoundedIntText(value=int(query.warmup), min=0, max=10**6, description="warm-up"),
            "measure": w.BoundedIntText(value=int(query.measure), min=1, max=10**6, description="measure"),
        }
        self.run_button = w.Button(description="Run", button_style="primary", icon="play")
        self.cancel_button = w.Button(description="Cancel", icon="stop", disabled=True)
        self.progress = w.IntProgress(value=0, min=0, max=1, description="points")
        self.status = w.HTML(value="")
        self.image = w.Image(format="png")
        self.run_button.on_click(lambda _: self.run())
        self.cancel_button.on_click(lambda _: self.cancel())
        self.current: LatencyRun | None = None
        left = w.VBox([self.controls[key] for key in ("routings", "router", "preset", "traffic", "injection")])
        right = w.VBox([self.controls[key] for key in ("loads", "points", "seeds", "n", "k", "seed", "warmup",
                                                          "measure")])  # fmt: skip
        self.widget = w.VBox([w.HBox([left, right]), w.HBox([self.run_button, self.cancel_button, self.progress]),
                              self.status, self.image])  # fmt: skip

    def query(self) -> LatencyQuery:
        """The query the controls describe (ValueError/TypeError from :class:`LatencyQuery` if refused)."""
        c = self.controls
        low, high = c["loads"].value
        points = int(c["points"].value)
        loads = [round(float(x), 4) for x in np.linspace(low, high, points)] if points > 1 else [round(high, 4)]
        return LatencyQuery(routings=tuple(c["routings"].value), router=c["router"].value, preset=c["preset"].value,
                            traffic=c["traffic"].value, injection=c["injection"].value, loads=tuple(loads),
                            seeds=int(c["seeds"].value), n=int(c["n"].value), k=int(c["k"].value),
                            seed=int(c["seed"].value), warmup=int(c["warmup"].value),
                            measure=int(c["measure"].value))  # fmt: skip

    def run(self) -> LatencyRun | None:
        """Start a run of :meth:`query` (None, with the reason in the status line, if the input is refused or a
        run is going)."""
        if self.current is not None and self.current.state == "running":
            self._say("a run is going: cancel it first")
            return None
        try:
            query = self.query()
        except (ValueError, TypeError) as err:
            self._say(str(err), error=True)
            return None
        self.image.value = b""
        self.progress.max, self.progress.value = len(query.items()), 0
        self.current = LatencyRun(query, backend=self.backend, on_update=self._update)
        self.run_button.disabled, self.cancel_button.disabled = True, False
        self._say(f"running {self.current.total} simulations ...")
        return self.current.start()

    def cancel(self) -> None:
        """Cancel the run going (the points measured stay drawn)."""
        if self.current is not None:
            self.current.cancel()
            self._say("cancelling after the batch under way ...")

    def _say(self, text: str, *, error: bool = False) -> None:
        color = "#b00020" if error else "inherit"
        self.status.value = f'<span style="color:{color}">{html.escape(text)}</span>'

    def _update(self, run: LatencyRun) -> None:
        """After a batch (in the run's thread): progress, status and figure."""
        done = run.done
        self.progress.value = done
        fig = latency_figure(run.figure_data())
        if fig is not None:
            self.image.value = _png(fig)
        if run.state == "running":
            self._say(f"{done} of {run.total} points")
            return
        self.run_button.disabled, self.cancel_button.disabled = False, True
        if run.state == "failed":
            self._say(f"failed after {done} of {run.total} points: {run.error}", error=True)
        else:
            why = " by the kernel's interrupt" if run.state == "cancelled" and run.interrupted else ""
            self._say(f"{run.state}{why}: {done} of {run.total} points")

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def latency_explorer(routings: Sequence[Any] = ("ecube", "duato"), *, router: str = "simple",
                     preset: str = "simple", traffic: str = "uniform", injection: str = "bernoulli",
                     loads: Sequence[float] = (0.1, 0.2, 0.3, 0.4), seeds: int = 2, n: int = 2, k: int = 8,
                     seed: int = 1, warmup: int = 500, measure: int = 1500,
                     backend: str = "auto") -> LatencyExplorer:  # fmt: skip
    """The latency explorer, its controls set to these values (:class:`LatencyQuery`); a notebook cell ending in
    it shows the widget.  Press *Run* to sweep in the background, *Cancel* to stop.

    Examples
    --------
    >>> explorer = latency_explorer(["ecube"], k=4)
    >>> explorer.controls["k"].value = 6
    >>> {item["radix"] for item in explorer.query().items()}
    {6}
    """
    query = LatencyQuery(routings=tuple(check_sequence("routings", routings)), router=router, preset=preset,
                         traffic=traffic, injection=injection, loads=tuple(check_sequence("loads", loads)),
                         seeds=seeds, n=n, k=k, seed=seed, warmup=warmup, measure=measure)  # fmt: skip
    return LatencyExplorer(query, backend=backend)
