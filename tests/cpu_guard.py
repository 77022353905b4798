"""A hang guard for calls under test that counts this process's CPU time, not wall time, and not numba compilation.

A wall-clock limit (``signal.alarm``) cannot tell a hang from slow work on a loaded machine: with two cores and a
load average of 20, a call gets a tenth of a core and a 3-second call takes 30 seconds.  :func:`cpu_limit` measures
what the call itself used instead: ``signal.setitimer(signal.ITIMER_PROF, ...)`` delivers ``SIGPROF`` once the
process has used that much user + system CPU time (every thread of it counts), whatever else runs on the machine.
Its handler raises :class:`CallTimeout` in the main thread, when that thread next runs Python code: a main thread
blocked for ever on a lock or an untimed ``join`` (the signal may be delivered to the thread using the CPU, which
does not wake the main one) is a hang only the backstop below ends.

Compilation is not the call's work and can take seconds of CPU (numba compiling a study's kernels on first use):
while numba compiles or loads compiled code from its cache (its ``numba:compile`` and ``numba:compiler_lock``
events, which nest), the timer is stopped and the CPU time it had left is restored when the outermost one ends.

``SIGPROF``'s Python handler runs between bytecodes: compiled code that runs past the limit and returns is stopped
when it returns to Python, but a compiled loop that never returns cannot be stopped from Python at all.  The last
resort is a wall-clock backstop, far beyond any slow work (:data:`HANG_BACKSTOP`):
``faulthandler.dump_traceback_later(..., exit=True)`` prints every thread's traceback and ends the process (under
pytest-xdist the worker is reported as crashed in that test).

Examples
--------
>>> with cpu_limit(5.0):
...     sum(range(1000))
499500
"""

from __future__ import annotations

import faulthandler
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from numba.core import event

__all__ = ["CALL_CPU_LIMIT", "HANG_BACKSTOP", "CallTimeout", "CompilePause", "cpu_limit"]

#: CPU seconds one call may use.  A hostile argument is refused before any work or runs a tiny network: of the
#: 15,300 calls of a default fuzz run, the slowest used 1.5 s of CPU (``evaluate_batch`` with ``parallel`` set,
#: compilation included) and all but two under 0.25 s.  30 s is twenty times that: a hang, never slow work, however
#: loaded the machine (load stretches wall time, not CPU time).
CALL_CPU_LIMIT = 30.0
#: Wall-clock seconds after which a call that never returns to Python (a compiled infinite loop, which ``SIGPROF``
#: cannot interrupt) ends the process.  Several minutes past ``CALL_CPU_LIMIT`` at a tenth of a core (300 s), so it
#: never fires on slow work, only on a true hang.
HANG_BACKSTOP = 900.0

#: The numba events during which the CPU timer is stopped (compiling; loading from the cache, under the lock).
COMPILE_EVENTS = ("numba:compile", "numba:compiler_lock")


class CallTimeout(Exception):
    """A call used more CPU time than its limit allowed."""


class CompilePause(event.Listener):
    """A numba event listener that stops the process's ``ITIMER_PROF`` timer while numba compiles.

    Events nest (compiling a function compiles what it calls, under the compiler lock): the outermost start saves
    the time left and stops the timer, the matching end restarts it with that time.  Events of other threads are
    ignored: only the thread that set the timer (the main thread, which receives the signal) pauses it.

    Examples
    --------
    >>> pause = CompilePause()
    >>> pause.depth
    0
    """

    def __init__(self) -> None:
        self.depth = 0
        self.left = 0.0
        self.thread = threading.get_ident()

    def on_start(self, ev: event.Event) -> None:
        """Stop the timer at the outermost compilation, keeping the time it had left."""
        if threading.get_ident() != self.thread:
            return
        if self.depth == 0:
            self.left = signal.setitimer(signal.ITIMER_PROF, 0)[0]
        self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        """Restart the timer with the time it had left once the outermost compilation ends."""
        if threading.get_ident() != self.thread or self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0 and self.left > 0:
            left, self.left = self.left, 0.0
            signal.setitimer(signal.ITIMER_PROF, left)


def _raise_timeout(seconds: float):
    def handler(signum: int, frame: object) -> None:
        raise CallTimeout(f"call used more than {seconds:g} s of CPU time (compilation not counted)")

    return handler


@contextmanager
def cpu_limit(seconds: float, backstop: float | None = HANG_BACKSTOP) -> Iterator[CompilePause]:
    """Raise :class:`CallTimeout` in the block once it has used ``seconds`` of CPU time outside numba compilation.

    Parameters
    ----------
    seconds : float
        CPU seconds of this process (user + system, every thread) the block may use.
    backstop : float or None
        Wall-clock seconds after which the process prints every thread's traceback and exits (for code that
        never returns to Python); None for none.  Main thread only (signal handlers are set there).

    Yields
    ------
    CompilePause
        The listener pausing the timer (its ``depth`` is the compilations in progress).

    Examples
    --------
    >>> def spin():
    ...     while True:
    ...         pass
    >>> with cpu_limit(0.2):
    ...     spin()
    Traceback (most recent call last):
    ...
    cpu_guard.CallTimeout: call used more than 0.2 s of CPU time (compilation not counted)
    """
    pause = CompilePause()
    previous = signal.signal(signal.SIGPROF, _raise_timeout(seconds))
    for kind in COMPILE_EVENTS:
        event.register(kind, pause)
    if backstop is not None:
        faulthandler.dump_traceback_later(backstop, exit=True)
    try:
        signal.setitimer(signal.ITIMER_PROF, seconds)
        yield pause
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        if backstop is not None:
            faulthandler.cancel_dump_traceback_later()
        for kind in COMPILE_EVENTS:
            event.unregister(kind, pause)
        signal.signal(signal.SIGPROF, previous)
