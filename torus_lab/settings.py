"""torus_lab's environment variables, read in one place into one :class:`Settings` object.

The environment is how a setting reaches every process of a run: the command line and the runner set these
variables, a notebook's kernel and the sweep workers inherit them.  No other module reads them; code that needs
a setting asks :func:`current_settings` (or is handed a :class:`Settings`).

==============================  ============================  ==================================================
variable                        field                         meaning
==============================  ============================  ==================================================
``TORUS_LAB_MEMORY_LIMIT``      ``memory_limit_text``         memory a computation may plan for (``4G``; parsed
                                                              by the memory checks)
``TORUS_LAB_CACHE``             ``cache``                     the sweep cache's folder, or ``off``
``TORUS_LAB_BACKEND``           ``backend``                   how sweeps run: serial, processes or dask
``TORUS_LAB_SCHEDULER``         ``scheduler``                 a Dask scheduler's address (implies dask)
``TORUS_LAB_WORKERS``           ``workers``                   local worker processes of a sweep
``TORUS_LAB_PROGRESS``          ``progress_file``             the file a runner's kernel reports progress to
``TORUS_LAB_RUNNER``            ``under_runner``              set while the runner executes a notebook
==============================  ============================  ==================================================

The environment is read once per distinct environment (the object is cached on the variables' raw text), so a
change (a test's ``monkeypatch``, :func:`torus_lab.experiment.start` choosing the cache folder) is seen by the
next call; a value is checked when it is used, and a bad one is refused naming the variable.

Examples
--------
>>> settings = Settings.from_environment({"TORUS_LAB_WORKERS": "3", "TORUS_LAB_BACKEND": "serial"})
>>> settings.workers, settings.backend, settings.scheduler
(3, 'serial', None)
>>> Settings.from_environment({"TORUS_LAB_WORKERS": "many"}).workers
Traceback (most recent call last):
...
ValueError: TORUS_LAB_WORKERS must be a positive integer, got 'many'
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass

from torus_lab._validate import check_instance

__all__ = ["BACKENDS", "ENVIRONMENT", "FIGURE_METADATA_KEY", "Settings", "current_settings"]

#: Key of the display metadata in which :func:`torus_lab.plotting.show_figure` records a figure's name, file and
#: caption when a notebook runs under the runner (``torus_lab.site.notebook_figures`` reads them back).  Here, in
#: the foundation, so that the plotting part and the running part share it without importing each other.
FIGURE_METADATA_KEY = "torus_lab_figure"

#: The environment variable behind each field of :class:`Settings`.
ENVIRONMENT = {
    "memory_limit_text": "TORUS_LAB_MEMORY_LIMIT",
    "cache": "TORUS_LAB_CACHE",
    "backend_text": "TORUS_LAB_BACKEND",
    "scheduler": "TORUS_LAB_SCHEDULER",
    "workers_text": "TORUS_LAB_WORKERS",
    "progress_file": "TORUS_LAB_PROGRESS",
    "under_runner": "TORUS_LAB_RUNNER",
}
#: Values of ``TORUS_LAB_BACKEND``.
BACKENDS = ("serial", "processes", "dask")


@dataclass(frozen=True)
class Settings:
    """The settings of this process, from its environment (:func:`current_settings`)."""

    memory_limit_text: str | None = None
    cache: str | None = None
    backend_text: str | None = None
    scheduler: str | None = None
    workers_text: str | None = None
    progress_file: str | None = None
    under_runner: bool = False

    @property
    def backend(self) -> str | None:
        """``TORUS_LAB_BACKEND``, checked when asked for (a setting nobody uses cannot fail a run)."""
        if self.backend_text is not None and self.backend_text not in BACKENDS:
            raise ValueError(f"{ENVIRONMENT['backend_text']} must be one of {', '.join(BACKENDS)}, "
                             f"got {self.backend_text!r}")  # fmt: skip
        return self.backend_text

    @property
    def workers(self) -> int | None:
        """``TORUS_LAB_WORKERS``, checked when asked for."""
        text = self.workers_text
        if text is not None and (not text.isdigit() or int(text) < 1):
            raise ValueError(f"{ENVIRONMENT['workers_text']} must be a positive integer, got {text!r}")
        return None if text is None else int(text)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The settings ``environ`` (default: this process's environment) holds, each checked."""
        environ = check_instance("environ", os.environ if environ is None else environ, Mapping, "a mapping")
        raw = tuple(environ.get(variable) for variable in ENVIRONMENT.values())
        return _parsed(raw)


def _text(value: str | None) -> str | None:
    return value.strip() if value is not None and value.strip() else None


@functools.lru_cache(maxsize=64)
def _parsed(raw: tuple[str | None, ...]) -> Settings:
    values = dict(zip(ENVIRONMENT, raw, strict=True))
    return Settings(memory_limit_text=_text(values["memory_limit_text"]), cache=values["cache"],
                    backend_text=_text(values["backend_text"]), scheduler=_text(values["scheduler"]),
                    workers_text=_text(values["workers_text"]), progress_file=_text(values["progress_file"]),
                    under_runner=bool(_text(values["under_runner"])))  # fmt: skip


def current_settings() -> Settings:
    """The settings of this process's environment now.

    Examples
    --------
    >>> isinstance(current_settings(), Settings)
    True
    """
    return Settings.from_environment()
