"""Hooks between parts that must not import each other: what a sweep ships to its workers, and who hears of its
progress.

:func:`torus_lab.sweep.sweep` runs items in worker processes and reports its progress, but it knows neither
the routing registry (whose routings registered at run time must exist in every worker) nor the runner (which
shows a notebook's sweeps on the terminal).  Both sides meet here instead, in the foundation every part may
import (``docs/architecture.md``):

* a **worker setup** provider (the routing registry adds one) returns a :class:`WorkerSetup`: a picklable
  module-level function, its payload and a digest of that payload; the sweep ships each setup with its items,
  a worker calls ``setup.run(setup.payload)`` before the item function, and the digests become part of the
  sweep's cache key;
* a **progress bar** factory (the runner's reporter, added by :func:`torus_lab.experiment.start`) is called as
  ``factory(name, total, initial)`` for every sweep and returns an object whose ``advance()`` counts one item.

:data:`HOOKS` is the process's default instance; :func:`~torus_lab.sweep.sweep` takes another one through its
``hooks`` argument (a test, or two benches side by side in one process).

Examples
--------
>>> hooks = Hooks()
>>> hooks.add_worker_setup("demo", lambda: WorkerSetup(print, "ready", "digest-1"))
>>> [setup.digest for setup in hooks.worker_setups()]
['digest-1']
>>> class Count:
...     def __init__(self, name, total, initial):
...         self.done = initial
...     def advance(self):
...         self.done += 1
>>> hooks.add_progress_bar("count", Count)
>>> bars = hooks.progress_bars("sweep", 3, 1)
>>> bars[0].advance(); bars[0].done
2
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from torus_lab._validate import check_int, check_str

__all__ = ["HOOKS", "Hooks", "ProgressBar", "WorkerSetup"]


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker runs before a sweep's items: ``run(payload)``; ``digest`` keys the sweep's cache."""

    run: Callable[[Any], None]
    payload: Any
    digest: str

    def __post_init__(self) -> None:
        if not callable(self.run):
            raise TypeError(f"run must be callable, got {self.run!r}")
        check_str("digest", self.digest)


class ProgressBar(Protocol):
    """One sweep's progress: ``advance()`` counts one more item done."""

    def advance(self) -> None: ...


@dataclass
class Hooks:
    """Worker-setup providers and progress-bar factories, each under a name (adding a name again replaces it)."""

    setup_providers: dict[str, Callable[[], WorkerSetup | None]] = field(default_factory=dict)
    bar_factories: dict[str, Callable[[str, int, int], ProgressBar]] = field(default_factory=dict)

    def add_worker_setup(self, name: str, provider: Callable[[], WorkerSetup | None]) -> None:
        """Register ``provider``: called at every sweep, it returns a :class:`WorkerSetup` or None (nothing to
        ship)."""
        check_str("name", name)
        if not callable(provider):
            raise TypeError(f"provider must be callable, got {provider!r}")
        self.setup_providers[name] = provider

    def worker_setups(self) -> list[WorkerSetup]:
        """The setups to ship now, in the order their providers were added."""
        setups = [provider() for provider in self.setup_providers.values()]
        return [setup for setup in setups if setup is not None]

    def add_progress_bar(self, name: str, factory: Callable[[str, int, int], ProgressBar]) -> None:
        """Register ``factory(name, total, initial)``, called for every sweep."""
        check_str("name", name)
        if not callable(factory):
            raise TypeError(f"factory must be callable, got {factory!r}")
        self.bar_factories[name] = factory

    def progress_bars(self, name: str, total: int, initial: int = 0) -> list[ProgressBar]:
        """One bar from every factory for a sweep called ``name`` of ``total`` items, ``initial`` of them done."""
        check_str("name", name)
        total = check_int("total", total, minimum=0)
        initial = check_int("initial", initial, minimum=0, maximum=total)
        return [factory(name, total, initial) for factory in self.bar_factories.values()]


#: The process's hooks (the routing registry and :func:`torus_lab.experiment.start` add theirs here).
HOOKS = Hooks()
