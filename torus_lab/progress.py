"""Progress of a run on the terminal: the notebook's cells and the sweeps inside it.

A notebook runs in a Jupyter kernel, a separate process whose output goes into the executed notebook, not to the
terminal.  The runner therefore sets the environment variable :data:`PROGRESS_ENVIRONMENT` to a fresh file before
the kernel starts; every :func:`torus_lab.sweep.sweep` in the kernel appends its progress to that file as JSON
lines (:class:`ProgressReporter`, at most one line per ``min_interval_s`` and the last one always), the runner
follows the file (:class:`ProgressFollower`) and hands each :class:`ProgressEvent`, together with the cell
progress papermill reports, to a :class:`ProgressPrinter`.

On a terminal the printer keeps one status line updated in place; elsewhere (a CI log, a pipe) it prints one line
when a bar starts, each time it crosses a multiple of ``step_percent`` and when it ends, so a log holds a few
lines per bar instead of thousands of carriage returns.  Every line carries the count, the percentage and, once
something was done, the elapsed time and an estimate of the time left.

Examples
--------
>>> import io
>>> log = io.StringIO()
>>> printer = ProgressPrinter(log, step_percent=50, interactive=False)
>>> for done in range(5):
...     printer.update(ProgressEvent("load curves", done, 4, elapsed_s=3.0 * done, bar_id="a"))
>>> print(log.getvalue(), end="")
  load curves: 0/4 (0%)
  load curves: 2/4 (50%) 0:06 elapsed, ETA 0:06
  load curves: 4/4 (100%) done in 0:12
"""

from __future__ import annotations

import copy
import json
import math
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TextIO

from torus_lab._validate import check_instance, check_int, check_real, check_str
from torus_lab.settings import ENVIRONMENT, current_settings

__all__ = ["PROGRESS_ENVIRONMENT", "RUNNER_ENVIRONMENT", "ProgressEvent", "ProgressFollower", "ProgressPrinter",
           "ProgressReporter", "format_duration", "format_progress", "install_runner_progress", "read_events",
           "runner_progress_bar"]  # fmt: skip

#: Environment variable naming the file the kernel's sweeps append progress events to (set by the runner only).
PROGRESS_ENVIRONMENT = ENVIRONMENT["progress_file"]
#: Environment variable the runner sets while it executes a notebook: :func:`torus_lab.plotting.show_figure` then
#: shows figures as links to their files (``reports/<name>/<name>.html`` -> ``../../figures/<name>/<file>.png``)
#: instead of inline megabytes.  Defined here, beside :data:`PROGRESS_ENVIRONMENT`, so that the runner does not
#: import the plotting stack (matplotlib, seaborn, scipy.stats: ~1.7 s) to name it.
RUNNER_ENVIRONMENT = ENVIRONMENT["under_runner"]


@dataclass(frozen=True)
class ProgressEvent:
    """One bar's state: ``done`` of ``total`` steps, ``initial`` of them done before the bar started counting
    (results found in the sweep cache), ``elapsed_s`` seconds since it started; ``bar_id`` tells apart two bars
    with the same ``name``."""

    name: str
    done: int
    total: int
    initial: int = 0
    elapsed_s: float = 0.0
    bar_id: str = ""

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_int("total", self.total, minimum=0)
        check_int("done", self.done, minimum=0)
        check_int("initial", self.initial, minimum=0, maximum=self.total)
        check_real("elapsed_s", self.elapsed_s, minimum=0)
        check_str("bar_id", self.bar_id)

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the rate of the steps counted so far (None before the first one)."""
        counted = self.done - self.initial
        if counted <= 0 or self.elapsed_s <= 0:
            return None
        return self.elapsed_s / counted * max(self.total - self.done, 0)


def format_duration(seconds: float) -> str:
    """``m:ss`` or ``h:mm:ss``.

    Examples
    --------
    >>> format_duration(5.4), format_duration(125), format_duration(3725)
    ('0:05', '2:05', '1:02:05')
    """
    whole = max(round(check_real("seconds", seconds)), 0)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def format_progress(event: ProgressEvent) -> str:
    """One line for ``event``: name, count, percentage, elapsed time and time left.

    Examples
    --------
    >>> format_progress(ProgressEvent("fig4", 10, 40, elapsed_s=30.0))
    'fig4: 10/40 (25%) 0:30 elapsed, ETA 1:30'
    >>> format_progress(ProgressEvent("fig4", 40, 40, initial=30, elapsed_s=4.0))
    'fig4: 40/40 (100%) done in 0:04 (30 from the cache)'
    """
    check_instance("event", event, ProgressEvent)
    percent = 100 * event.done // event.total if event.total else 100
    line = f"{event.name}: {event.done}/{event.total} ({percent}%)"
    if event.finished:
        line += f" done in {format_duration(event.elapsed_s)}"
        return line + (f" ({event.initial} from the cache)" if event.initial else "")
    eta = event.eta_s
    if eta is not None:
        line += f" {format_duration(event.elapsed_s)} elapsed, ETA {format_duration(eta)}"
    return line


class ProgressPrinter:
    """Shows progress events on ``stream`` (default: standard error).

    Parameters
    ----------
    stream : text stream, optional
    step_percent : int
        Without a terminal, a bar prints a line when it starts, when it crosses a multiple of this percentage
        and when it ends.
    interactive : bool, optional
        One status line rewritten in place (default: whether ``stream`` is a terminal).
    min_interval_s : float
        On a terminal, the status line is redrawn at most this often (a bar's start and end are always drawn).
    """

    def __init__(self, stream: TextIO | None = None, *, step_percent: int = 10, interactive: bool | None = None,
                 min_interval_s: float = 0.2) -> None:  # fmt: skip
        check_int("step_percent", step_percent, minimum=1, maximum=100)
        if stream is not None and not callable(getattr(stream, "write", None)):
            raise TypeError(f"stream must be a text stream (with a write method), got {stream!r}")
        if interactive is not None:
            check_instance("interactive", interactive, bool)
        self.min_interval_s = check_real("min_interval_s", min_interval_s, minimum=0)
        self.stream = stream if stream is not None else sys.stderr
        self.step_percent = step_percent
        if interactive is None:
            isatty = getattr(self.stream, "isatty", None)
            interactive = bool(isatty()) if callable(isatty) else False
        self.interactive = interactive
        self.prefix = ""
        self._label = ""
        self._lock = threading.Lock()
        self._steps: dict[tuple[str, str], int] = {}  # last step printed per bar (line mode)
        self._active: dict[tuple[str, str], ProgressEvent] = {}  # unfinished bars (terminal mode)
        self._status = {"width": 0, "drawn_at": -math.inf}  # the status line (shared with labelled views)

    def labelled(self, label: str) -> ProgressPrinter:
        """A view of this printer for one of several runs side by side: it shares the stream, the lock and the
        status line, and puts ``label`` before the name of each of its bars (its messages are unchanged).

        >>> import io
        >>> log = io.StringIO()
        >>> view = ProgressPrinter(log, interactive=False).labelled("[1/2] loads ")
        >>> view.update(ProgressEvent("cells", 1, 1, elapsed_s=2.0))
        >>> log.getvalue()
        '  [1/2] loads cells: 1/1 (100%) done in 0:02\\n'
        """
        check_str("label", label)
        view = copy.copy(self)  # shallow: the lock, the stream and the bar tables are shared
        view._label = label
        return view

    def message(self, text: str) -> None:
        """Print ``text`` as a line of its own (above the status line on a terminal)."""
        with self._lock:
            self._clear_status()
            self.stream.write(text + "\n")
            self._redraw(force=True)
            self.stream.flush()

    def update(self, event: ProgressEvent) -> None:
        """Record ``event`` and show it if it is worth a line (line mode) or a redraw (terminal)."""
        check_instance("event", event, ProgressEvent)
        if self._label:
            event = replace(event, name=self._label + event.name)
        key = (event.bar_id, event.name)
        with self._lock:
            if self.interactive:
                fresh = key not in self._active
                if event.finished:
                    self._active.pop(key, None)
                else:
                    self._active[key] = event
                self._redraw(force=fresh or event.finished)
            else:
                step = self._step(event)
                if step > self._steps.get(key, -1):
                    self._steps[key] = step
                    self.stream.write(f"{self.prefix}  {format_progress(event)}\n")
            self.stream.flush()

    def close(self) -> None:
        """End the status line (terminal mode) so that later output starts on a line of its own."""
        with self._lock:
            for key in [key for key in self._active if key[1].startswith(self._label)]:
                del self._active[key]  # this view's bars (all of them for the printer itself)
            self._clear_status()
            self._redraw(force=True)
            self.stream.flush()

    def _step(self, event: ProgressEvent) -> int:
        if event.finished:
            return 100 // self.step_percent + 1  # the end always gets its own line
        if event.total <= 0:
            return 0
        return 100 * event.done // event.total // self.step_percent

    def _clear_status(self) -> None:
        if self.interactive and self._status["width"]:
            self.stream.write("\r" + " " * self._status["width"] + "\r")
            self._status["width"] = 0

    def _redraw(self, *, force: bool) -> None:
        if not self.interactive:
            return
        now = time.monotonic()
        if not force and now - self._status["drawn_at"] < self.min_interval_s:
            return
        self._status["drawn_at"] = now
        line = self.prefix + " | ".join(format_progress(event) for event in self._active.values())
        self._clear_status()
        if self._active:
            self.stream.write(line)
            self._status["width"] = len(line)


class ProgressReporter:
    """Appends one bar's progress to the file named by :data:`PROGRESS_ENVIRONMENT`; does nothing when unset.

    Used by :func:`torus_lab.sweep.sweep`; ``min_interval_s`` bounds how often a line is written (the start and
    the end are always written).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "progress.jsonl"
    >>> bar = ProgressReporter("sweep", total=3, path=path, min_interval_s=0.0)
    >>> for _ in range(3):
    ...     bar.advance()
    >>> [event.done for event in read_events(path.read_text().splitlines())]
    [0, 1, 2, 3]
    """

    def __init__(self, name: str, total: int, *, initial: int = 0, path: str | os.PathLike | None = None,
                 min_interval_s: float = 0.5) -> None:  # fmt: skip
        check_str("name", name)
        check_int("total", total, minimum=0)
        check_int("initial", initial, minimum=0, maximum=total)
        self.min_interval_s = check_real("min_interval_s", min_interval_s, minimum=0)
        if path is None:
            path = current_settings().progress_file
        self.path = _file_path("path", path) if path is not None else None
        self.name, self.total, self.initial, self.done = name, int(total), int(initial), int(initial)
        self.bar_id = uuid.uuid4().hex[:8]
        self._started = time.monotonic()
        self._written_at = -math.inf
        self._write(force=True)

    def advance(self, steps: int = 1) -> None:
        """Count ``steps`` more done steps."""
        self.done += check_int("steps", steps, minimum=0)
        self._write(force=self.done >= self.total)

    def _write(self, *, force: bool) -> None:
        if self.path is None:
            return
        now = time.monotonic()
        if not force and now - self._written_at < self.min_interval_s:
            return
        self._written_at = now
        event = ProgressEvent(self.name, self.done, self.total, self.initial, round(now - self._started, 3),
                              self.bar_id)  # fmt: skip
        try:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(event)) + "\n")
        except OSError:
            self.path = None  # progress is a courtesy: a vanished or full disk must not fail the sweep


def runner_progress_bar(name: str, total: int, initial: int = 0) -> ProgressReporter:
    """A sweep's :class:`ProgressReporter` (a progress-bar factory of :mod:`torus_lab.hooks`): writes to the file
    of :data:`PROGRESS_ENVIRONMENT` when the runner set one, else nothing.

    Examples
    --------
    >>> import tempfile
    >>> bar = ProgressReporter("sweep", 2, path=Path(tempfile.mkdtemp()) / "events.jsonl")
    >>> type(runner_progress_bar("sweep", 2)) is type(bar)
    True
    """
    return ProgressReporter(name, total, initial=initial)


def install_runner_progress() -> None:
    """Add :func:`runner_progress_bar` to the process's hooks, so that every sweep reports to the runner.

    The runner's kernels run this at start-up (``torus_lab._kernel.KernelRun``), before the first cell.
    """
    from torus_lab.hooks import HOOKS

    HOOKS.add_progress_bar("runner", runner_progress_bar)


def _file_path(name: str, value: object) -> Path:
    check_instance(name, value, (str, os.PathLike), "a file path")
    if not str(value) or "\0" in str(value):
        raise ValueError(f"{name} must be a file path without NUL characters, got {str(value)!r}")
    return Path(value)


def read_events(lines: Iterable[str]) -> list[ProgressEvent]:
    """The events of complete JSON lines (anything else, e.g. a line cut short, is skipped).

    Examples
    --------
    >>> read_events(['{"name": "s", "done": 1, "total": 2}', '{"name": "s", "do'])
    [ProgressEvent(name='s', done=1, total=2, initial=0, elapsed_s=0.0, bar_id='')]
    """
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise TypeError(f"lines must be an iterable of str, got {lines!r}")
    events = []
    for line in lines:
        check_instance("lines", line, str, "an iterable of str")
        try:
            fields = json.loads(line)
            events.append(ProgressEvent(**fields))
        except (ValueError, TypeError):
            continue
    return events


class ProgressFollower:
    """Follows a progress file written by another process and calls ``on_event`` for each new event, from a
    background thread, until the context exits (which reads what is left first).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "progress.jsonl"
    >>> seen = []
    >>> with ProgressFollower(path, seen.append, poll_s=0.01):
    ...     ProgressReporter("sweep", total=1, path=path).advance()
    >>> [(event.name, event.done) for event in seen]
    [('sweep', 0), ('sweep', 1)]
    """

    def __init__(self, path: str | os.PathLike, on_event: Callable[[ProgressEvent], None], *,
                 poll_s: float = 0.2) -> None:  # fmt: skip
        self.path = _file_path("path", path)
        if not callable(on_event):
            raise TypeError(f"on_event must be callable, got {on_event!r}")
        self.on_event = on_event
        self.poll_s = check_real("poll_s", poll_s, minimum=0.001)
        self._offset = 0
        self._pending = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="torus-lab-progress", daemon=True)

    def __enter__(self) -> ProgressFollower:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read()

    def _follow(self) -> None:
        while not self._stop.wait(self.poll_s):
            self._read()

    def _read(self) -> None:
        try:
            with self.path.open("r", encoding="utf-8") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
                self._offset = handle.tell()
        except OSError:
            return
        text = self._pending + chunk
        lines = text.split("\n")
        self._pending = lines.pop()  # a line still being written
        for event in read_events(lines):
            self.on_event(event)
