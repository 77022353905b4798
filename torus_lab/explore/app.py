"""``torus-lab explore``: the explorers as a standalone web app on ``127.0.0.1``, served by Voilà.

Voilà runs ``notebooks/explore.ipynb`` in a fresh kernel for each visitor and shows its widgets without the code
(the notebook calls each explorer of :mod:`torus_lab.explore` once).  The server is a child process in its own
process group, registered with :data:`torus_lab.interrupt.STOP`: SIGINT, SIGTERM or SIGHUP to ``torus-lab``
sends it SIGTERM (Voilà then shuts its kernels down) and SIGKILL after
:data:`~torus_lab.interrupt.KILL_GRACE_S` seconds, and the command exits with 128 + the signal's number.  It
listens on the loopback address only and on exactly the port asked for: a port in use is refused before anything
starts, as is a notebook that does not exist.

Examples
--------
>>> check_port(8866)
8866
>>> check_port(70000)
Traceback (most recent call last):
...
ValueError: port must be an int in 1..65535, got 70000
>>> voila_command(Path("notebooks/explore.ipynb"), 8866)[1:4]
['-m', 'voila', 'notebooks/explore.ipynb']
"""

from __future__ import annotations

import contextlib
import errno
import socket
import subprocess
import sys
import time
from pathlib import Path

from torus_lab._validate import is_int
from torus_lab.experiment import ExperimentError, project_root
from torus_lab.interrupt import STOP

__all__ = ["HOST", "DEFAULT_PORT", "NOTEBOOK", "ServeError", "check_port", "voila_command", "serve"]

#: The only address the app listens on.
HOST = "127.0.0.1"
#: Voilà's usual port.
DEFAULT_PORT = 8866
#: The notebook served, relative to the project folder.
NOTEBOOK = Path("notebooks") / "explore.ipynb"
#: Seconds the app may take to listen (Voilà's start-up; only a hung start takes longer).
START_WAIT_S = 120.0


class ServeError(ExperimentError, ValueError):
    """The app cannot be served as asked (a bad port or notebook): the command exits with status 2."""

    exit_code = 2


def check_port(port: object) -> int:
    """``port`` if it is an int in 1..65535, else ValueError naming it."""
    if not is_int(port) or not 1 <= int(port) <= 65535:
        raise ValueError(f"port must be an int in 1..65535, got {port!r}")
    return int(port)


def _refuse_busy_port(port: int) -> None:
    """ServeError when ``HOST:port`` cannot be listened on (in use, or not allowed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no obstacle
        try:
            probe.bind((HOST, port))
        except OSError as err:
            why = "is in use" if err.errno == errno.EADDRINUSE else f"cannot be listened on ({err.strerror})"
            raise ServeError(f"--port {port}: {HOST}:{port} {why}; choose another port") from None


def _check_notebook(notebook: Path | str | None) -> Path:
    """The notebook to serve (default: the project's ``notebooks/explore.ipynb``), which must be a file."""
    if notebook is None:
        path = project_root() / NOTEBOOK
    elif isinstance(notebook, (str, Path)):
        path = Path(notebook).expanduser().resolve()
    else:
        raise TypeError(f"notebook must be a path or None, got {notebook!r}")
    if path.suffix != ".ipynb" or not path.is_file():
        raise ServeError(f"--notebook {str(path)!r}: no such notebook (an .ipynb file)")
    return path


def voila_command(notebook: Path, port: int) -> list[str]:
    """The command that serves ``notebook`` with Voilà on ``HOST:port`` (no browser, no code shown, exactly that
    port)."""
    if not isinstance(notebook, Path):
        raise TypeError(f"notebook must be a Path, got {notebook!r}")
    port = check_port(port)
    return [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}", f"--Voila.ip={HOST}",
            "--Voila.port_retries=0", "--strip_sources=True", "--theme=light",
            "--KernelManager.transport_encryption=auto"]  # fmt: skip


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((HOST, port)) == 0


def serve(notebook: Path | str | None = None, port: int = DEFAULT_PORT) -> int:
    """Serve ``notebook`` (default: the project's ``notebooks/explore.ipynb``) on ``http://127.0.0.1:port/`` until
    the server ends or this process is stopped; returns the server's exit status.

    Meant for :func:`torus_lab.interrupt.run_stoppable` (the ``torus-lab explore`` command): a stop request ends
    the server's process group and raises :class:`~torus_lab.interrupt.Interrupted` here.

    Raises
    ------
    ServeError
        A port in use or a notebook that does not exist, before anything starts.
    """
    port = check_port(port)
    path = _check_notebook(notebook)
    _refuse_busy_port(port)
    process = subprocess.Popen(voila_command(path, port), cwd=path.parent, stdin=subprocess.DEVNULL,
                               start_new_session=True)  # fmt: skip
    STOP.add_group(process.pid)
    try:
        deadline = time.monotonic() + START_WAIT_S
        announced = False
        while process.poll() is None:
            STOP.check()
            if not announced and _listening(port):
                print(f"torus-lab explore: serving {path.name} at http://{HOST}:{port}/ (Ctrl-C stops)", flush=True)
                announced = True
            if not announced and time.monotonic() > deadline:
                raise ExperimentError(f"the explorer app did not listen on {HOST}:{port} within {START_WAIT_S:.0f} s")
            time.sleep(0.1)
        STOP.check()
        if process.returncode != 0:
            raise ExperimentError(f"the explorer app (Voila) exited with status {process.returncode}")
        return 0
    finally:
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            if process.poll() is None:
                process.kill()
        process.wait()
        STOP.discard_group(process.pid)
