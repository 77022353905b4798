"""The fuzz suite's hang guard (``cpu_guard``): CPU time of this process, numba compilation not counted, and a
wall-clock backstop for compiled code that never returns."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numba
import pytest
from cpu_guard import CallTimeout, cpu_limit


def _spin() -> None:
    while True:
        pass


def test_a_python_loop_is_stopped_after_its_cpu_time():
    start = time.process_time()
    with pytest.raises(CallTimeout, match=r"more than 0.3 s of CPU time"), cpu_limit(0.3, backstop=None):
        _spin()
    assert 0.25 <= time.process_time() - start < 10
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)  # disarmed on the way out


def test_cpu_of_other_threads_counts_while_the_caller_waits():
    stop = threading.Event()

    def burn():
        while not stop.is_set():
            pass

    worker = threading.Thread(target=burn)
    try:
        with pytest.raises(CallTimeout), cpu_limit(0.3, backstop=None):
            worker.start()
            while worker.is_alive():  # the main thread sleeps, waking to run Python (and the signal's handler)
                worker.join(timeout=0.05)
    finally:
        stop.set()
        worker.join()


def _fresh_compiled_pair():
    """Two new numba functions (never compiled: no cache), the outer calling the inner."""
    body = "\n".join(f"    for i in range(n):\n        s += (i * {j} + s) % {j + 7}" for j in range(1, 20))
    namespace: dict = {}
    exec(f"def inner(n):\n    s = 0\n{body}\n    return s\n", namespace)  # a body long enough to compile slowly
    inner = numba.njit(namespace["inner"])

    @numba.njit
    def outer(n):
        return inner(n) + 1

    return outer


def test_compilation_is_not_counted():
    outer = _fresh_compiled_pair()
    limit = 0.05
    start = time.process_time()
    with cpu_limit(limit, backstop=None) as pause:
        assert outer(3) > 0  # compiles outer, then inner inside it: nested events
        compile_cpu = time.process_time() - start
        assert pause.depth == 0
        left = signal.getitimer(signal.ITIMER_PROF)[0]
    assert compile_cpu > 4 * limit, "the compilation must outlast the limit for this test to mean anything"
    assert 0 < left <= limit + 0.02  # running again with the time it had before compiling (kernel ticks: 4 ms)


def test_compiled_code_past_the_limit_is_stopped_when_it_returns():
    @numba.njit
    def count(n):
        s = 0.0
        for i in range(n):
            s += (i % 7) ** 0.5
        return s

    count(10)  # compile outside the guard
    start = time.process_time()
    with pytest.raises(CallTimeout), cpu_limit(0.1, backstop=None):
        while True:
            count(50_000_000)
    assert time.process_time() - start < 30


def test_a_compiled_loop_that_never_returns_is_ended_by_the_backstop():
    # SIGPROF's handler cannot run inside compiled code: only the wall-clock backstop ends this process
    script = textwrap.dedent(
        """
        import numba
        from cpu_guard import cpu_limit

        @numba.njit
        def forever(loop):
            i = 0
            while loop:
                i += 1
            return i

        forever(False)  # compiled before the guard
        with cpu_limit(0.2, backstop=3):
            print("looping", flush=True)
            forever(True)
        print("returned", flush=True)
        """
    )
    env_path = str(Path(__file__).parent)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "PYTHONPATH": env_path})  # fmt: skip
    assert done.stdout.split() == ["looping"]
    assert done.returncode != 0
    assert "Timeout (0:00:03)!" in done.stderr and "forever" not in done.stdout
