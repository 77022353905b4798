"""A kernel's *Interrupt* heard by work running in the background of the process.

JupyterLab's *Interrupt* button sends SIGINT to the kernel's process.  What the kernel does with it depends on
whether a cell is running:

* **a cell runs**: ipykernel has Python's default handler in place, so a ``KeyboardInterrupt`` is raised in the
  main thread, in that cell;
* **the kernel is idle** (a background thread at work, as the latency explorer's run): ipykernel ignores SIGINT
  (``SIG_IGN``), so the signal reaches nobody.

Background work that should stop on *Interrupt* registers a listener (:func:`add_interrupt_listener`, a callable
taking the signal's number); it is called in both cases:

* a SIGINT handler of this module, installed from the main thread, calls every listener and then the handler it
  replaced (so a script still gets its ``KeyboardInterrupt``, an idle kernel still ignores the signal).  Inside
  an ipykernel message handler (a cell, a widget's callback), where ipykernel puts back its own saved handler
  when the message is done, the handler is installed as that saved handler, so it is in place once the kernel
  is idle again;
* an IPython ``post_run_cell`` callback calls every listener when a cell ended in a ``KeyboardInterrupt``.

Listeners run in the main thread (from a signal handler): they should only set a flag or an event.  Nothing is
installed outside the main thread or before the first listener; :mod:`torus_lab.interrupt` (the command line's
Ctrl-C, SIGTERM and SIGHUP) is separate and unaffected.

Examples
--------
>>> heard = []
>>> remove = add_interrupt_listener(heard.append)
>>> notify_interrupt(signal.SIGINT)
>>> remove()
>>> heard == [signal.SIGINT], listener_count()
(True, 0)
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["add_interrupt_listener", "listener_count", "notify_interrupt"]

_guard = threading.Lock()
_listeners: dict[int, Callable[[int], None]] = {}
_next_key = [0]
#: The SIGINT handler this module's handler replaced (called after the listeners).
_previous: list[Any] = [signal.SIG_IGN]
_ipython_hooked: list[Any] = []


def notify_interrupt(signum: int = signal.SIGINT) -> None:
    """Call every listener with ``signum`` (what the handler and the IPython callback do); a listener that raises
    is skipped."""
    if isinstance(signum, bool) or not isinstance(signum, int) or signum < 1:
        raise ValueError(f"signum must be a positive int, got {signum!r}")
    with _guard:
        listeners = list(_listeners.values())
    for listener in listeners:
        with contextlib.suppress(Exception):
            listener(signum)


def listener_count() -> int:
    """How many listeners are registered."""
    with _guard:
        return len(_listeners)


def _on_sigint(signum: int, frame: Any) -> None:
    """The SIGINT handler: every listener, then the handler replaced."""
    notify_interrupt(signum)
    previous = _previous[0]
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        raise KeyboardInterrupt


def _running_kernel() -> Any:
    """The ipykernel kernel of this process, or None."""
    module = sys.modules.get("ipykernel.kernelbase")
    if module is None or not module.Kernel.initialized():
        return None
    return module.Kernel.instance()


def _install_handler() -> None:
    """Put :func:`_on_sigint` in place (main thread only; once).  Inside an ipykernel message handler the current
    handler is ipykernel's for that message: the handler it restores afterwards is replaced instead."""
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    kernel = _running_kernel()
    saved = getattr(kernel, "saved_sigint_handler", None) if kernel is not None else None
    if current is _on_sigint or saved is _on_sigint:
        return
    if saved is not None and current is signal.default_int_handler:  # inside one of ipykernel's handlers
        _previous[0] = saved
        kernel.saved_sigint_handler = _on_sigint
        return
    _previous[0] = signal.signal(signal.SIGINT, _on_sigint)


def _post_run_cell(result: Any) -> None:
    if isinstance(getattr(result, "error_in_exec", None), KeyboardInterrupt):
        notify_interrupt(signal.SIGINT)


def _hook_ipython() -> None:
    """Register :func:`_post_run_cell` with the running IPython shell (once)."""
    ipython_module = sys.modules.get("IPython")
    shell = ipython_module.get_ipython() if ipython_module is not None else None
    if shell is None or any(hooked is shell for hooked in _ipython_hooked):
        return
    shell.events.register("post_run_cell", _post_run_cell)
    _ipython_hooked.append(shell)


def add_interrupt_listener(listener: Callable[[int], None]) -> Callable[[], None]:
    """Call ``listener(signum)`` when SIGINT reaches this process (a kernel's *Interrupt*, Ctrl-C) or a cell ends
    in a KeyboardInterrupt; returns the function that removes it (which may be called from any thread, and
    more than once).

    The handler is installed from the main thread (a call from another thread registers the listener, heard once
    the handler is in place).

    Examples
    --------
    >>> remove = add_interrupt_listener(print)
    >>> notify_interrupt(2)
    2
    >>> remove(); remove()
    """
    if not callable(listener):
        raise TypeError(f"listener must be callable, got {listener!r}")
    with _guard:
        key = _next_key[0]
        _next_key[0] += 1
        _listeners[key] = listener
    _install_handler()
    _hook_ipython()

    def remove() -> None:
        with _guard:
            _listeners.pop(key, None)

    return remove
