"""Stopping a run cleanly on SIGINT, SIGTERM or SIGHUP.

Ctrl-C (SIGINT), ``kill``, ``timeout`` and batch schedulers (SIGTERM) and a closing terminal (SIGHUP) all mean
*stop now, keep what was there*.  The command line treats the three alike (:func:`run_stoppable`):

* the work (papermill, its kernel, the report, the final swap) runs in a worker thread, while the main thread
  only waits, with handlers that turn each of the three signals into :class:`Interrupted`;
* on a signal, :data:`STOP` records it and ends the process group of every notebook kernel this process
  started (the kernel runs in its own session, and the sweep workers it starts are in its group): SIGTERM,
  then SIGKILL after :data:`KILL_GRACE_S` seconds;
* the worker thread sees its kernel die, or checks :data:`STOP` between steps, raises :class:`Interrupted`,
  and its ``finally`` blocks remove its staging folders; a swap already under way is finished first (it takes
  milliseconds), so an output folder is never left half replaced;
* the main thread waits for that cleanup (at most :data:`CLEANUP_S` seconds) and the command exits with status
  128 + the signal's number and one line on standard error.  A second signal during the cleanup stops the
  wait at once; whatever is left is removed by the next run (:mod:`torus_lab.outputs`).

Examples
--------
>>> stop = Interrupted(signal.SIGTERM)
>>> stop.signal_name, stop.exit_status, isinstance(stop, KeyboardInterrupt)
('SIGTERM', 143, True)
>>> run_stoppable(sum, [1, 2, 3])
6
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from torus_lab._validate import check_int

__all__ = ["CLEANUP_S", "KILL_GRACE_S", "STOP", "STOP_SIGNALS", "Interrupted", "StopRequest", "catching_signals",
           "run_stoppable"]  # fmt: skip

#: The signals that stop a run (each handled like Ctrl-C).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Seconds a kernel's process group gets between SIGTERM and SIGKILL.
KILL_GRACE_S = 2.0
#: Seconds the main thread waits for the stopped work to remove its staging folders.
CLEANUP_S = 60.0
#: Seconds between the main thread's looks at the work.
POLL_S = 0.05

T = TypeVar("T")


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal; ``exit_status`` is 128 + the signal's number, as shells report it.

    A subclass of KeyboardInterrupt, so that code written for Ctrl-C treats SIGTERM and SIGHUP the same.
    """

    def __init__(self, signum: int = signal.SIGINT) -> None:
        self.signum = check_int("signum", signum, minimum=1)
        super().__init__(self.signal_name)

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"

    @property
    def exit_status(self) -> int:
        return 128 + self.signum


class StopRequest:
    """Whether this process was asked to stop, and the kernels' process groups to end when it is.

    Examples
    --------
    >>> stop = StopRequest()
    >>> stop.requested, stop.check()
    (False, None)
    >>> stop.request(signal.SIGHUP)
    >>> stop.requested, stop.signum == signal.SIGHUP  # check() now raises Interrupted (a KeyboardInterrupt)
    (True, True)
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._groups: set[int] = set()
        self.signum: int | None = None

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def check(self) -> None:
        """Raise :class:`Interrupted` if a stop was requested (a worker thread calls it between steps)."""
        if self.signum is not None:
            raise Interrupted(self.signum)

    def request(self, signum: int) -> None:
        """Record the stop and end every registered process group."""
        with self._guard:
            if self.signum is None:
                self.signum = check_int("signum", signum, minimum=1)
            groups = sorted(self._groups)
        end_process_groups(groups)

    def add_group(self, pgid: int) -> None:
        """Register a kernel's process group; ended at once if a stop was already requested."""
        pgid = check_int("pgid", pgid, minimum=1)
        with self._guard:
            self._groups.add(pgid)
            late = self.signum is not None
        if late:
            end_process_groups([pgid])

    def discard_group(self, pgid: int) -> None:
        with self._guard:
            self._groups.discard(pgid)

    def reset(self) -> None:
        """Forget a stop (a new command in the same process, e.g. a test calling the CLI again)."""
        with self._guard:
            self.signum = None


#: This process's stop request (the command line has one run at a time).
STOP = StopRequest()


def end_process_groups(groups: list[int], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM to each process group, SIGKILL to those with a member left after ``grace_s`` seconds."""
    alive = []
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
            alive.append(pgid)
    deadline = time.monotonic() + grace_s
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pgid for pgid in alive if _group_has_live_member(pgid)]
    for pgid in alive:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _group_has_live_member(pgid: int) -> bool:
    """Whether a process other than a zombie is left in group ``pgid`` (Linux ``/proc``; elsewhere: yes)."""
    if not os.path.isdir("/proc/self"):
        return True
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def _raise_interrupted(signum: int, frame: object) -> None:  # noqa: ARG001 (a signal handler's signature)
    raise Interrupted(signum)


@contextlib.contextmanager
def catching_signals() -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` in the main thread; the earlier
    handlers are restored after.  Outside the main thread (where Python cannot set handlers) it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise_interrupted) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_stoppable(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` in a worker thread, stopped cleanly on SIGINT, SIGTERM or SIGHUP.

    Returns ``func``'s result or raises its exception.  On a signal: :data:`STOP` is requested (ending the
    kernels' process groups), the worker gets up to :data:`CLEANUP_S` seconds to remove its staging folders,
    and :class:`Interrupted` is raised here.  A second signal ends the wait at once.
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = func(*args, **kwargs)
        except BaseException as err:  # handed to the main thread
            outcome["error"] = err
        finally:
            finished.set()

    # the main thread polls with sleep(): a signal handler raising inside Thread.join() can leave the thread
    # marked as ended while it still runs (CPython's join releases the thread's lock on the way out)
    worker = threading.Thread(target=work, name="torus-lab-run", daemon=True)
    with catching_signals():
        worker.start()
        try:
            while not finished.is_set():
                time.sleep(POLL_S)
        except Interrupted as stop:
            STOP.request(stop.signum)
            deadline = time.monotonic() + CLEANUP_S
            while not finished.is_set() and time.monotonic() < deadline:  # a second signal ends this wait
                time.sleep(POLL_S)
            raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]
