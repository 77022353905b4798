"""How the runner starts and stops a notebook's kernel (quiet runs, cell progress).

Two messages used to reach the terminal on every run, though nothing was wrong:

* ``Kernel is running over TCP without encryption``: ipykernel (>= 7.4) logs it when its ZeroMQ channels on the
  loopback interface carry code and outputs in plain text.  The kernel manager here asks jupyter_client to
  provision CurveZMQ keys (``transport_encryption = "auto"``: for kernelspecs that declare
  ``supported_encryption: curve``, which ipykernel's do), so the channels are encrypted and the kernel has nothing
  to warn about.  A kernelspec registered by an older ipykernel stays unencrypted (and such kernels never warn).
* ``KeyboardInterrupt caught in kernel.``: jupyter_client's ``shutdown_kernel`` first *interrupts* the kernel
  (SIGINT), to stop code that may still run, and only then asks it to shut down.  papermill shuts the kernel down
  right after the reply to its last ``kernel_info`` request, while ipykernel may still be inside that message's
  handler, where SIGINT raises KeyboardInterrupt: the kernel logs the error although the run succeeded.  When no
  cell is running (nbclient's cell hooks below tell), there is no code to stop, so the manager skips that
  interrupt and sends the shutdown request alone; while a cell runs (the runner was interrupted or timed out),
  jupyter_client's full sequence runs unchanged.

:class:`KernelRun` also counts executed cells for the progress display (:mod:`torus_lab.progress`).

papermill writes the whole executed notebook to its output path before and after every cell (serialised and
validated each time: about 8 ms a write, 50 writes for a notebook of 25 cells), while the next cell waits.  The
runner's notebook is a staging file nobody reads during the run, so the runner executes with the
:data:`ENGINE_NAME` engine (:func:`register_engine`), which writes it when the notebook starts and when it ends
(also after a failing cell or an interrupt: papermill's ``notebook_complete`` runs in a ``finally``), and while a
long cell runs every ``autosave_cell_every`` seconds as papermill does; the notebook written at the end is the
same.

Examples
--------
>>> run = KernelRun()
>>> sorted(run.client_options())
['engine_name', 'extra_arguments', 'kernel_manager_class', 'on_cell_execute', 'on_cell_executed', 'on_notebook_start']
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from torus_lab.interrupt import STOP

__all__ = ["CELLS_BAR", "ENGINE_NAME", "KernelRun", "register_engine"]

#: Name of the cell-progress bar.
CELLS_BAR = "cells"
#: Run by the runner's kernels before the first cell (IPython's ``exec_lines``, binding no name): the kernel's
#: sweeps report their progress to the runner (:func:`torus_lab.progress.install_runner_progress`), and the
#: warnings of each cell are summarised when it ends (:func:`torus_lab.notebook_warnings.install_warning_capture`).
KERNEL_START_CODE = ("__import__('torus_lab.progress').progress.install_runner_progress(); "
                     "__import__('torus_lab.notebook_warnings').notebook_warnings.install_warning_capture()")
#: Name under which :func:`register_engine` registers the runner's papermill engine.
ENGINE_NAME = "torus-lab"


@functools.cache
def register_engine() -> str:
    """Register the runner's papermill engine (papermill's nbclient engine that writes the executed notebook at
    its start and end only, see the module docstring) under :data:`ENGINE_NAME`, once per process; returns the
    name.

    Examples
    --------
    >>> from papermill.engines import papermill_engines
    >>> papermill_engines.get_engine(register_engine()).__name__
    'SaveAtEndEngine'
    """
    from papermill.engines import NBClientEngine, NotebookExecutionManager, papermill_engines

    class SaveAtEndManager(NotebookExecutionManager):
        """papermill's execution manager without its writes before and after each cell."""

        saving_cells = False  # papermill's cell_start and cell_complete end with a save

        def save(self, **kwargs: Any) -> None:
            if not self.saving_cells:
                super().save(**kwargs)

        def cell_start(self, cell: Any, cell_index: int | None = None, **kwargs: Any) -> None:
            self._without_save(super().cell_start, cell, cell_index, **kwargs)

        def cell_complete(self, cell: Any, cell_index: int | None = None, **kwargs: Any) -> None:
            self._without_save(super().cell_complete, cell, cell_index, **kwargs)

        def _without_save(self, step: Callable[..., None], *args: Any, **kwargs: Any) -> None:
            self.saving_cells = True
            try:
                step(*args, **kwargs)
            finally:
                self.saving_cells = False

    class SaveAtEndEngine(NBClientEngine):
        """papermill's nbclient engine with :class:`SaveAtEndManager` (``Engine.execute_notebook``, manager
        class replaced)."""

        @classmethod
        def execute_notebook(cls, nb: Any, kernel_name: str, output_path: str | None = None,
                             progress_bar: bool = True, log_output: bool = False, autosave_cell_every: int = 30,
                             **kwargs: Any) -> Any:  # fmt: skip
            nb_man = SaveAtEndManager(nb, output_path=output_path, progress_bar=progress_bar, log_output=log_output,
                                      autosave_cell_every=autosave_cell_every)  # fmt: skip
            nb_man.notebook_start()
            try:
                cls.execute_managed_notebook(nb_man, kernel_name, log_output=log_output, **kwargs)
            finally:
                nb_man.cleanup_pbar()
                nb_man.notebook_complete()
            return nb_man.nb

    papermill_engines.register(ENGINE_NAME, SaveAtEndEngine)
    return ENGINE_NAME


def _executes(cell: Any) -> bool:
    """Whether nbclient sends ``cell`` to the kernel (code with some source)."""
    return cell.get("cell_type") == "code" and bool("".join(cell.get("source", "")).strip())


@dataclass
class KernelRun:
    """State of one notebook execution shared by nbclient's cell hooks and the kernel manager.

    Parameters
    ----------
    on_cells : callable, optional
        Called as ``on_cells(executed, total, elapsed_s)`` when the notebook starts and after each code cell.
    env : dict, optional
        Environment variables the kernel gets on top of this process's (None: removed), without touching this
        process's own environment, so that two runs can start kernels side by side.
    cwd : str, optional
        The kernel's working directory (papermill's ``cwd`` would change this whole process's, which two runs
        side by side cannot share).
    """

    on_cells: Callable[[int, int, float], None] | None = None
    env: dict[str, str | None] = field(default_factory=dict)
    cwd: str | None = None
    total: int = 0
    executed: int = 0
    busy: bool = False
    pgid: int | None = None
    started: float = field(default_factory=time.monotonic)

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for ``papermill.execute_notebook`` (passed on to nbclient's NotebookClient)."""
        return {
            "engine_name": register_engine(),
            "kernel_manager_class": self.manager_class(),
            "extra_arguments": [f"--IPKernelApp.exec_lines={KERNEL_START_CODE}"],
            "on_notebook_start": self._notebook_start,
            "on_cell_execute": self._cell_execute,
            "on_cell_executed": self._cell_executed,
        }

    def manager_class(self) -> type:
        """A kernel manager class bound to this run (nbclient creates the manager from a class)."""
        from jupyter_client import AsyncKernelManager
        from traitlets import default

        run = self

        class RunKernelManager(AsyncKernelManager):
            @default("transport_encryption")
            def _encrypt_when_the_kernel_can(self) -> str:
                return "auto"

            async def start_kernel(self, **kw: Any) -> None:
                env = {**os.environ, **kw.pop("env", {})}
                for key, value in run.env.items():
                    if value is None:
                        env.pop(key, None)
                    else:
                        env[key] = value
                if run.cwd is not None:
                    kw["cwd"] = run.cwd
                await super().start_kernel(env=env, **kw)
                # the kernel leads its own process group (its own session), which its sweep workers join: a
                # stop request (torus_lab.interrupt) ends the whole group; the runner unregisters it at the end
                run.pgid = getattr(self.provisioner, "pgid", None)
                if run.pgid:
                    STOP.add_group(run.pgid)

            async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
                if now or restart or run.busy or not self.owns_kernel:
                    await super().shutdown_kernel(now=now, restart=restart)
                    return
                # jupyter_client's graceful shutdown without its first step (the interrupt): see the module doc.
                self.shutting_down = True
                self.stop_restarter()
                await self.request_shutdown()
                await self.finish_shutdown()
                await self.cleanup_resources()

        return RunKernelManager

    def _report(self) -> None:
        if self.on_cells is not None:
            self.on_cells(self.executed, self.total, time.monotonic() - self.started)

    def _notebook_start(self, notebook: Any, **_: Any) -> None:
        self.total = sum(_executes(cell) for cell in notebook.get("cells", []))
        self.started = time.monotonic()
        self._report()

    def _cell_execute(self, **_: Any) -> None:
        self.busy = True

    def _cell_executed(self, **_: Any) -> None:
        # nbclient calls this once the reply has come and the kernel reported idle
        self.busy = False
        self.executed += 1
        self._report()
