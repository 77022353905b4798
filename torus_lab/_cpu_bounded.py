"""Run a function in a forked child process with a limit on its CPU time, and a word buffer shared with it.

This is how code that may never return (a user's compiled routing kernel, which neither a signal handler nor Ctrl-C
can stop once it loops) is run without hanging the caller: the child gets ``RLIMIT_CPU`` (it is killed after that
much CPU time, however loaded the machine), writes what it is doing into a shared ``int64`` buffer (an anonymous
shared ``mmap``, so the words are the parent's to read after the child is gone), and sends its result back pickled
through a pipe, so no work is done twice.

The child is a copy of the caller at the fork: it inherits everything compiled so far (compile *before* calling,
the child must not compile: numba's compiler lock, like any lock, may be held by another thread at the fork and
would then never be released in the child).  The function should run compiled code and plain Python that takes no
lock held by other threads (no imports, logging or printing); the child ends with ``os._exit``, running no exit
handler of the parent.  Ctrl-C in the parent kills the child.  Available on Linux (:func:`fork_available`).

Examples
--------
>>> run = run_cpu_bounded(lambda words: int(words.sum()) + 1, words=4, cpu_limit=10)
>>> run.finished, run.value
(True, 1)
"""

from __future__ import annotations

import faulthandler
import math
import mmap
import os
import pickle
import signal
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from torus_lab._validate import check_real

try:
    import resource
except ImportError:  # not on Windows
    resource = None

__all__ = ["MAX_CPU_LIMIT", "BoundedRun", "check_cpu_limit", "fork_available", "run_cpu_bounded"]

#: Largest CPU-time limit accepted (seconds; about 11 days).
MAX_CPU_LIMIT = 1e6


def check_cpu_limit(name: str, value: object) -> float:
    """``value`` as a CPU-time limit in seconds: a finite number in ``(0, MAX_CPU_LIMIT]``, else ValueError or
    TypeError naming the parameter ``name``.

    The one check of every ``cpu_limit``-like argument that ends up in :func:`run_cpu_bounded` (the routing
    validation's ``cpu_limit``, the registry's ``validation_cpu_limit``).

    Examples
    --------
    >>> check_cpu_limit("cpu_limit", 2)
    2.0
    >>> check_cpu_limit("cpu_limit", 0)
    Traceback (most recent call last):
    ...
    ValueError: cpu_limit must be > 0 seconds, got 0
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the parameter's name), got {name!r}")
    seconds = check_real(name, value, maximum=MAX_CPU_LIMIT)
    if seconds <= 0:
        raise ValueError(f"{name} must be > 0 seconds, got {value!r}")
    return seconds


def fork_available() -> bool:
    """True where :func:`run_cpu_bounded` can fork a CPU-limited child (Linux).

    Examples
    --------
    >>> isinstance(fork_available(), bool)
    True
    """
    return sys.platform.startswith("linux") and hasattr(os, "fork") and resource is not None


@dataclass(frozen=True)
class BoundedRun:
    """The outcome of :func:`run_cpu_bounded`.

    ``finished``: the function returned (``value``) or raised (re-raised by :func:`run_cpu_bounded`, so a
    returned run with ``finished`` set always has a value); otherwise the child was killed: ``signal`` (its
    number), ``out_of_cpu`` (it reached the CPU limit), ``cpu_seconds`` used.  ``words``: the shared buffer as the
    child left it.
    """

    finished: bool
    value: Any
    words: np.ndarray
    signal: int | None
    out_of_cpu: bool
    cpu_seconds: float


def _limit_cpu(seconds: int) -> None:
    """In the child: be killed (SIGKILL, no core dump) after ``seconds`` of CPU time."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        seconds = min(seconds, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))  # soft = hard: SIGKILL at the limit, no SIGXCPU


def _child(func: Callable[[np.ndarray], Any], words: np.ndarray, seconds: int, out: int) -> None:
    """The child's whole life: limit, run, send ``(True, value)`` or ``(False, exception)``, exit."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it at once, in compiled code too
        faulthandler.disable()  # a crash is the parent's to report (BoundedRun.signal), not a traceback dump
        _limit_cpu(seconds)
        try:
            payload = pickle.dumps((True, func(words)))
        except BaseException as err:  # the parent re-raises it
            try:
                payload = pickle.dumps((False, err))
            except Exception:
                payload = pickle.dumps((False, RuntimeError(f"{type(err).__name__}: {err}")))
        view = memoryview(payload)
        while view:
            view = view[os.write(out, view) :]
        code = 0
    finally:
        os._exit(code)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _fork() -> int:
    """``os.fork()``; Python 3.12+ warns when the process has threads, which is safe here (see module doc)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
        return os.fork()


def run_cpu_bounded(func: Callable[[np.ndarray], Any], *, words: int, cpu_limit: float) -> BoundedRun:
    """Run ``func(buffer)`` in a forked child limited to ``cpu_limit`` seconds of CPU time.

    Parameters
    ----------
    func : callable
        Called in the child with an ``int64`` array of ``words`` zeros shared with the parent; its result must
        pickle.  An exception it raises is re-raised here.
    words : int
        Length of the shared buffer.
    cpu_limit : float
        CPU seconds the child may use, rounded up to a whole second (``RLIMIT_CPU`` counts seconds).

    Returns
    -------
    BoundedRun
        ``finished`` with the value, or the child's end (signal, CPU used) and the buffer's last words.

    Examples
    --------
    >>> def forever(words):
    ...     words[0] = 7
    ...     while True:
    ...         pass
    >>> run = run_cpu_bounded(forever, words=2, cpu_limit=1)
    >>> run.finished, run.out_of_cpu, run.words.tolist()
    (False, True, [7, 0])
    """
    if not fork_available():
        raise RuntimeError("run_cpu_bounded needs os.fork and resource limits (Linux); see fork_available()")
    seconds = max(1, math.ceil(cpu_limit))
    shared = mmap.mmap(-1, 8 * max(1, words))  # anonymous and MAP_SHARED: the child's writes are seen here
    buffer = np.frombuffer(shared, dtype=np.int64, count=words)
    read_end, write_end = os.pipe()
    pid = _fork()
    if pid == 0:  # pragma: no cover  (the child; it never returns)
        os.close(read_end)
        _child(func, buffer, seconds, write_end)
    os.close(write_end)
    try:
        payload = _read_all(read_end)
        status, cpu = _wait(pid)
    except BaseException:  # Ctrl-C (KeyboardInterrupt) or any failure here: the child goes too
        _kill(pid)
        raise
    finally:
        os.close(read_end)
    words_left = buffer.copy()
    del buffer
    shared.close()
    exited = status is None or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    if exited and payload:
        ok, value = pickle.loads(payload)
        if not ok:
            raise value
        return BoundedRun(True, value, words_left, None, False, cpu)
    sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
    # SIGKILL at the limit; rusage, split by tick samples, may read tens of ms short of the limit the kernel enforced
    out_of_cpu = sig in (signal.SIGKILL, signal.SIGXCPU) and cpu >= seconds - 0.5
    return BoundedRun(False, None, words_left, sig, out_of_cpu, cpu)


def _wait(pid: int) -> tuple[int | None, float]:
    """The child's wait status and CPU seconds; (None, nan) if it was reaped by someone else (SIGCHLD ignored)."""
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return None, math.nan
    return status, usage.ru_utime + usage.ru_stime


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
