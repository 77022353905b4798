"""Map a pure function over a parameter grid, serially, on local processes or on a Dask cluster.

Item ``i`` of the grid gets its own random generator from ``SeedSequence(seed).spawn(len(items))[i]``, so
results depend only on ``(func, items, seed)``, never on the backend, the worker count or the order in which
items finish.

The default backend ``"auto"`` reads the environment set by ``torus-lab run --backend/--scheduler``:
``TORUS_LAB_SCHEDULER`` (a Dask scheduler address) selects Dask, ``TORUS_LAB_BACKEND`` one of
``serial | processes | dask``; otherwise local processes.

Examples
--------
>>> def noisy_sum(a, b, rng):
...     return a + b + int(rng.integers(0, 1000))
>>> items = grid(a=[1, 2], b=[10])
>>> items
[{'a': 1, 'b': 10}, {'a': 2, 'b': 10}]
>>> sweep(noisy_sum, items, seed=7, backend="serial") == sweep(noisy_sum, items, seed=7, backend="serial")
True
"""

from __future__ import annotations

import itertools
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

import numpy as np

__all__ = ["BACKENDS", "grid", "item_seeds", "sweep", "sweep_frame"]

BACKENDS = ("auto", "serial", "processes", "dask")


def grid(**axes: Sequence[Any]) -> list[dict[str, Any]]:
    """Cartesian product of the axes, in order (last axis fastest), as a list of dicts.

    Examples
    --------
    >>> grid(n=[2, 3], variant=["paper", "short"])[1]
    {'n': 2, 'variant': 'short'}
    """
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise TypeError(f"axis {name!r} must be a sequence of values, got {values!r}")
    names = list(axes)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes.values())]


def item_seeds(seed: int | np.random.SeedSequence, count: int) -> list[np.random.SeedSequence]:
    """One child SeedSequence per item (``SeedSequence.spawn``)."""
    if isinstance(seed, np.random.SeedSequence):
        root = seed
    elif isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and seed >= 0:
        root = np.random.SeedSequence(int(seed))
    else:
        raise TypeError(f"seed must be a non-negative int or a SeedSequence, got {seed!r}")
    return root.spawn(count)


def _call(
    func: Callable[..., Any], item: Mapping[str, Any], seed: np.random.SeedSequence, routings: bytes | None = None
) -> Any:
    if routings is not None:  # routing algorithms registered at run time in the calling process
        from torus_lab.routing.registry import import_user_entries

        import_user_entries(routings)
    return func(**item, rng=np.random.default_rng(seed))


def _user_routings() -> bytes | None:
    """Routing entries registered at run time, for the workers (None when there are none or none loaded)."""
    import sys

    registry = sys.modules.get("torus_lab.routing.registry")
    return None if registry is None else registry.export_user_entries()


def _resolve_backend(backend: str, scheduler: Any) -> tuple[str, Any]:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if scheduler is not None:
        return "dask", scheduler
    if backend == "auto":
        env_scheduler = os.environ.get("TORUS_LAB_SCHEDULER")
        if env_scheduler:
            return "dask", env_scheduler
        backend = os.environ.get("TORUS_LAB_BACKEND", "processes")
        if backend not in BACKENDS[1:]:
            raise ValueError(f"TORUS_LAB_BACKEND must be one of {BACKENDS[1:]}, got {backend!r}")
    return backend, None


def sweep(
    func: Callable[..., Any],
    items: Sequence[Mapping[str, Any]],
    *,
    seed: int | np.random.SeedSequence,
    backend: str = "auto",
    scheduler: Any = None,
    workers: int | None = None,
    progress: bool = False,
    desc: str | None = None,
) -> list[Any]:
    """Evaluate ``func(**item, rng=Generator)`` for every item; results in item order.

    Parameters
    ----------
    func : callable
        A pure, picklable (module-level) function taking the item's keys and ``rng``.  Routing algorithms
        registered at run time in this process (:func:`torus_lab.routing.register_routing`) are registered in
        every worker before ``func`` runs there, so items may name them in their routing specs.
    items : sequence of mappings
        Usually :func:`grid`.
    seed : int or SeedSequence
        Root seed; item ``i`` uses child ``i`` of ``SeedSequence(seed).spawn(len(items))``.
    backend : {"auto", "serial", "processes", "dask"}
    scheduler : str or distributed.Client, optional
        Dask scheduler address (``tcp://host:8786``) or a client; implies ``backend="dask"``.  With the
        dask backend and no scheduler, a ``LocalCluster`` of ``workers`` processes is started and closed.
    workers : int, optional
        Local processes (default: ``os.cpu_count()``).
    progress : bool
        Show a tqdm progress bar over items.
    """
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    items = [dict(item) for item in items]
    seeds = item_seeds(seed, len(items))
    backend, scheduler = _resolve_backend(backend, scheduler)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    from tqdm.auto import tqdm

    bar = tqdm(total=len(items), desc=desc or getattr(func, "__name__", "sweep"), disable=not progress)
    try:
        if backend == "serial" or len(items) <= 1:
            results = []
            for item, item_seed in zip(items, seeds, strict=True):
                results.append(_call(func, item, item_seed))
                bar.update()
            return results
        routings = _user_routings()
        if backend == "processes":
            return _run_processes(func, items, seeds, workers or os.cpu_count() or 1, bar, routings)
        return _run_dask(func, items, seeds, scheduler, workers, bar, routings)
    finally:
        bar.close()


def _run_processes(func, items, seeds, workers, bar, routings) -> list[Any]:
    results: list[Any] = [None] * len(items)
    with ProcessPoolExecutor(max_workers=min(workers, len(items))) as pool:
        jobs = enumerate(zip(items, seeds, strict=True))
        futures = {pool.submit(_call, func, item, s, routings): i for i, (item, s) in jobs}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            bar.update()
    return results


def _run_dask(func, items, seeds, scheduler, workers, bar, routings) -> list[Any]:
    from dask.distributed import Client, LocalCluster, as_completed

    owned = []
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        client = Client(cluster)
        owned = [client, cluster]
    elif isinstance(scheduler, str):
        client = Client(scheduler)
        owned = [client]
    else:
        client = scheduler
    try:
        futures = client.map(_call, [func] * len(items), items, seeds, [routings] * len(items), pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        results: list[Any] = [None] * len(items)
        for future in as_completed(futures):
            results[index[future.key]] = future.result()
            bar.update()
        return results
    finally:
        for resource in owned:
            resource.close()


def sweep_frame(func: Callable[..., Any], items: Sequence[Mapping[str, Any]], **kwargs: Any):
    """:func:`sweep`, returned as a DataFrame: one row per item (or per dict when ``func`` returns a list of
    dicts), item parameters first."""
    import pandas as pd

    results = sweep(func, items, **kwargs)
    rows = []
    for item, result in zip(items, results, strict=True):
        for record in result if isinstance(result, list) else [result]:
            record = record if isinstance(record, Mapping) else {"result": record}
            rows.append({**item, **record})
    return pd.DataFrame(rows)
