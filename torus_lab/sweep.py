"""Map a pure function over a parameter grid, serially, on local processes or on a Dask cluster.

**One seed rule.**  Each item gets its own random generator, seeded from the experiment seed and the item's
*content*: ``SeedSequence([seed, w0, w1, w2, w3])`` where ``w0..w3`` are the first 128 bits of the SHA-256 of
the item's canonical JSON (keys sorted, numpy scalars as Python numbers, tuples as lists; see
:func:`item_key`).  Results therefore depend only on ``(func, item, seed)``: never on the backend, the worker
count, the order in which items finish, or which other items the grid holds — adding, removing or
reordering items leaves every other item's result unchanged.  Two items with equal content get equal
streams; a study that wants independent replicas of one point puts a ``replica`` number into the item.

**Cache.**  With a cache folder (argument ``cache`` or the environment variable ``TORUS_LAB_CACHE``, which
the runner and :func:`torus_lab.experiment.start` set to ``scratch/cache``; ``off`` disables it), each
item's result is stored on disk with :class:`joblib.Memory`, keyed by the function's module and name, the
item, its seed and :func:`code_digest` (every source file of the torus_lab package, the function's own module
file and the versions of the numerical libraries), so a change of code never returns an old result.
Functions defined in ``__main__`` or a notebook are never cached (their dependencies cannot be traced).

The default backend ``"auto"`` reads the environment set by ``torus-lab run --backend/--scheduler``:
``TORUS_LAB_SCHEDULER`` (a Dask scheduler address) selects Dask, ``TORUS_LAB_BACKEND`` one of
``serial | processes | dask``; otherwise local processes.  ``TORUS_LAB_WORKERS`` (a positive integer) is the
default number of local worker processes (else every core); ``torus-lab reproduce`` sets it, or the serial
backend, for experiments that run side by side, so that they share the cores instead of each taking all.
The local processes are a reusable pool (``joblib.externals.loky.get_reusable_executor``): its workers
outlive a sweep, so later sweeps skip importing the package and loading its compiled kernels again; they
restart when any source file of the package changes, and exit after ``POOL_IDLE_TIMEOUT`` idle seconds, or as
soon as the process that started them has ended (killed or not).

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

import contextlib
import functools
import hashlib
import importlib.metadata
import inspect
import itertools
import json
import marshal
import numbers
import os
import pickle
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import as_completed
from pathlib import Path
from typing import Any

import numpy as np

from torus_lab._validate import check_instance, check_str, is_int, naming
from torus_lab.hooks import HOOKS, Hooks
from torus_lab.settings import ENVIRONMENT, current_settings

__all__ = ["BACKENDS", "CACHE_OFF", "WORKERS_ENVIRONMENT", "cache_location", "clear_cache", "code_digest", "grid",
           "item_key", "item_seed", "shows_progress", "sweep", "sweep_frame"]

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


def _plain(value: Any, where: str) -> Any:
    """``value`` as plain JSON data (numpy scalars and arrays converted); TypeError names ``where``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"sweep item value {where} = {value!r} is not finite")
        return value
    if isinstance(value, np.ndarray):
        return _plain(value.tolist(), where)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"sweep item key {key!r} under {where} must be a str")
            out[key] = _plain(item, f"{where}.{key}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise TypeError(f"sweep item value {where} = {value!r} is not plain data (int, float, str, bool, None, "
                    "list, dict)")  # fmt: skip


def item_key(item: Mapping[str, Any]) -> str:
    """The canonical JSON text of ``item`` that its seed (and cache key) derive from.

    Examples
    --------
    >>> item_key({"radix": np.int64(8), "dims": 2, "loads": (0.1, 0.2)})
    '{"dims":2,"loads":[0.1,0.2],"radix":8}'
    """
    if not isinstance(item, Mapping):
        raise TypeError(f"item (a sweep item) must be a mapping of parameter names to values, got {item!r}")
    return json.dumps(_plain(item, "item"), sort_keys=True, separators=(",", ":"), allow_nan=False)


def _root_seed(seed: Any) -> int:
    if not is_int(seed) or seed < 0:
        raise TypeError(f"seed must be a non-negative int, got {seed!r}")
    return int(seed)


def item_seed(seed: int, item: Mapping[str, Any]) -> np.random.SeedSequence:
    """The SeedSequence of ``item`` under experiment seed ``seed`` (the module's one seed rule).

    Examples
    --------
    >>> a = item_seed(7, {"n": 3, "faults": 1})
    >>> b = item_seed(7, {"faults": 1, "n": np.int32(3)})  # same content, same seed
    >>> a.entropy == b.entropy, a.entropy == item_seed(8, {"n": 3, "faults": 1}).entropy
    (True, False)
    """
    return _seed_from_key(_root_seed(seed), item_key(item))


def _seed_from_key(seed: int, key: str) -> np.random.SeedSequence:
    digest = hashlib.sha256(key.encode()).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.SeedSequence([seed, *words])


# ---------------------------------------------------------------------- cache
#: Value of ``TORUS_LAB_CACHE`` (or ``cache=``) that disables the cache.
CACHE_OFF = ("", "off", "0", "false", "no")
#: Libraries whose versions shape numerical results: part of every cache key.
_KEY_PACKAGES = ("numpy", "numba", "scipy", "pandas", "networkx")


def cache_location(cache: bool | str | os.PathLike | None = None) -> Path | None:
    """The cache folder ``sweep`` uses: ``cache`` if a path, none if ``False``, else ``TORUS_LAB_CACHE``."""
    if cache is False:
        return None
    if cache is None or cache is True:
        cache = current_settings().cache or ""
        if cache.strip().lower() in CACHE_OFF:
            return None
    if not isinstance(cache, (str, os.PathLike)):
        raise TypeError(f"cache must be a folder path, True, False or None, got {cache!r}")
    return None if str(cache).strip().lower() in CACHE_OFF else Path(cache)


def clear_cache(location: str | os.PathLike) -> int:
    """Delete the sweep cache under ``location``; returns the number of bytes freed."""
    import shutil

    if not isinstance(location, (str, os.PathLike)):
        raise TypeError(f"location must be a folder path, got {location!r} ({type(location).__name__})")
    folder = Path(location) / "joblib"
    if not folder.exists():
        return 0
    freed = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    shutil.rmtree(folder)
    return freed


def _file_digest(path: str) -> str:
    stat = Path(path).stat()
    return _content_digest(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _content_digest(path: str, mtime_ns: int, size: int) -> str:  # noqa: ARG001 (part of the cache key)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _package_sources() -> list[Path]:
    """Every source file of the torus_lab package, in a fixed order."""
    return sorted(Path(__file__).resolve().parent.rglob("*.py"))


@functools.cache
def _package_digest() -> str:
    """Digest of the package sources, taken once per process (the code this process runs; restart a kernel
    after editing torus_lab itself)."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in _package_sources():
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(_file_digest(str(path)).encode())
    for name in _KEY_PACKAGES:
        try:
            digest.update(f"{name}={importlib.metadata.version(name)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name}=none".encode())
    return digest.hexdigest()


def code_digest(func: Callable[..., Any]) -> str | None:
    """Digest of the code ``func``'s results depend on, or None when it cannot be traced (then no caching):
    the torus_lab package's sources, the library versions, ``func``'s module file (re-read when it changes)
    and ``func``'s compiled code."""
    module = sys.modules.get(getattr(func, "__module__", None) or "")
    if module is None or module.__name__ == "__main__" or not hasattr(func, "__qualname__"):
        return None
    if "<locals>" in func.__qualname__:
        return None
    try:
        source = inspect.getsourcefile(func)
    except TypeError:
        return None
    if source is None or not Path(source).is_file():
        return None
    code = getattr(func, "__code__", None)
    compiled = hashlib.sha256(marshal.dumps(code)).hexdigest() if code is not None else ""
    parts = f"{_package_digest()}:{_file_digest(str(Path(source).resolve()))}:{compiled}"
    return hashlib.sha256(parts.encode()).hexdigest()


def _compute(func, item, entropy):
    return func(**item, rng=np.random.default_rng(np.random.SeedSequence(entropy)))


#: Layout of a stored result (part of every cache key): the result pickled by the C pickler, stored as bytes.
_STORED_FORMAT = "pickle-bytes-1"


def _cached_compute(func, call_key, item_json, entropy):  # noqa: ARG001 (call_key is the cache key)
    """The item's result as stored: its pickle (``joblib.Memory`` stores and loads objects with the pure-Python
    pickler, about 8x slower than the C one on the lists of records the studies return; bytes cost it one copy)."""
    return pickle.dumps(_compute(func, json.loads(item_json), entropy), protocol=pickle.HIGHEST_PROTOCOL)


@functools.cache
def _memorized(location: str):
    from joblib import Memory

    return Memory(location, verbose=0).cache(_cached_compute, ignore=["func", "item_json", "entropy"])


def _cache_args(func, key: str, entropy, sweep_key: tuple) -> tuple:
    """Arguments of :func:`_cached_compute`: the function, the cache key and the item's own arguments.

    The key is one SHA-256 digest of every part of it (function id, code digest and worker setups digest, computed
    once per sweep, and the item's JSON and seed entropy): joblib hashes its only non-ignored argument, a short
    string, instead of pickling the parts with its pure-Python hasher twice per cache hit.
    """
    func_id, code, setups_digest = sweep_key
    parts = json.dumps([func_id, code, key, [int(e) for e in entropy], setups_digest, _STORED_FORMAT])
    return (func, hashlib.sha256(parts.encode()).hexdigest(), key, list(entropy))


def _call(func, item, entropy, setups=(), location=None, key=None, sweep_key=None) -> Any:
    """Run one item (in a worker or in this process), through the cache when ``location`` is set, after the
    worker setups of the calling process (:mod:`torus_lab.hooks`: e.g. routings registered at run time)."""
    for setup in setups:
        setup.run(setup.payload)
    if location is None or sweep_key is None:
        return _compute(func, item, entropy)
    return _stored(_memorized(str(location)), _cache_args(func, key, entropy, sweep_key))


def _stored(memorized, cache_args: tuple) -> Any:
    """The result of ``memorized`` (:func:`_memorized`) for ``cache_args``: loaded, or computed and stored."""
    return pickle.loads(memorized(*cache_args))


def _call_in_worker(*args) -> tuple[Any, list[tuple[str, type, str, int]]]:
    """:func:`_call` in a worker process, returning the warnings it raised beside its result, so that the calling
    process shows them (in a notebook: in its output, not on the terminal the workers write to)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # the calling process's filters decide what is shown
        result = _call(*args)
    return result, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]


def _result_and_warnings(outcome: tuple[Any, list[tuple[str, type, str, int]]]) -> Any:
    """Re-issue the warnings of :func:`_call_in_worker` here and return its result."""
    result, caught = outcome
    for message, category, filename, lineno in caught:
        warnings.warn_explicit(message, category, filename, lineno)
    return result


#: Environment variable: default number of local worker processes of a sweep.
WORKERS_ENVIRONMENT = ENVIRONMENT["workers_text"]


def _default_workers() -> int:
    """Local worker processes when a sweep names none: ``TORUS_LAB_WORKERS``, else every core."""
    return current_settings().workers or os.cpu_count() or 1


def _local_workers(workers: object, backend: str, scheduler: Any) -> int | None:
    """``workers`` checked (a positive int or None); None becomes :func:`_default_workers` where local processes
    will run (read here, before any item runs).

    Examples
    --------
    >>> _local_workers(3, "processes", None), _local_workers(None, "serial", None)
    (3, None)
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if workers is None and backend != "serial" and scheduler is None:
        return _default_workers()
    return workers


def _resolve_backend(backend: str, scheduler: Any) -> tuple[str, Any]:
    check_str("backend", backend, BACKENDS)
    if scheduler is not None:
        return "dask", scheduler
    if backend == "auto":
        settings = current_settings()
        if settings.scheduler:
            return "dask", settings.scheduler
        backend = settings.backend or "processes"
    return backend, None


def _running_kernel() -> Any:
    """The IPython kernel this process runs as (None in a script, a test or a plain IPython shell)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None)


def shows_progress(*, under_runner: bool | None = None, kernel: Any = "current") -> bool:
    """Whether a sweep shows a progress bar by default: the one place that decides it.

    True only when a person watches a notebook: the process is a Jupyter kernel whose current cell was sent by a
    front end that accepts input (JupyterLab, Notebook, VS Code), and not the runner's.  A notebook executed by
    papermill (its client, nbclient, sends every cell with ``allow_stdin=False``) or by ``torus-lab run`` /
    ``reproduce`` (``under_runner`` of :class:`torus_lab.settings.Settings`; the runner shows progress on the terminal
    instead) stays quiet, and so do scripts and tests.

    Parameters
    ----------
    under_runner : bool, optional
        Default: this process's setting.
    kernel : object, optional
        The IPython kernel (None: not in a kernel); default: the one this process runs as.

    Examples
    --------
    >>> class Kernel:  # what ipykernel keeps of the cell being executed
    ...     def __init__(self, allow_stdin):
    ...         self._allow_stdin = allow_stdin
    >>> shows_progress(under_runner=False, kernel=Kernel(True)), shows_progress(under_runner=False, kernel=None)
    (True, False)
    >>> shows_progress(under_runner=False, kernel=Kernel(False)), shows_progress(under_runner=True, kernel=Kernel(True))
    (False, False)
    """
    if under_runner is None:
        under_runner = current_settings().under_runner
    check_instance("under_runner", under_runner, (bool, np.bool_), "a bool or None")
    if isinstance(kernel, str) and kernel == "current":
        kernel = _running_kernel()
    return not under_runner and kernel is not None and getattr(kernel, "_allow_stdin", False) is True


def sweep(
    func: Callable[..., Any],
    items: Sequence[Mapping[str, Any]],
    *,
    seed: int,
    backend: str = "auto",
    scheduler: Any = None,
    workers: int | None = None,
    progress: bool | None = None,
    desc: str | None = None,
    cache: bool | str | os.PathLike | None = None,
    hooks: Hooks | None = None,
) -> list[Any]:
    """Evaluate ``func(**item, rng=Generator)`` for every item; results in item order.

    Parameters
    ----------
    func : callable
        A pure, picklable (module-level) function taking the item's keys and ``rng``.  Routing algorithms
        registered at run time in this process (:func:`torus_lab.routing.register_routing`) are registered in
        every worker before ``func`` runs there, so items may name them in their routing specs.
    items : sequence of mappings
        Plain data only (int, float, str, bool, None, lists, dicts; numpy scalars are converted): usually
        :func:`grid`.  ``func`` receives each item in that plain form.
    seed : int
        Experiment seed; each item's generator is seeded by :func:`item_seed` from it and the item's content.
    backend : {"auto", "serial", "processes", "dask"}
    scheduler : str or distributed.Client, optional
        Dask scheduler address (``tcp://host:8786``) or a client; implies ``backend="dask"``.  With the
        dask backend and no scheduler, a ``LocalCluster`` of ``workers`` processes is started and closed.
    workers : int, optional
        Local processes (default: ``TORUS_LAB_WORKERS``, else ``os.cpu_count()``).
    progress : bool, optional
        Show a tqdm progress bar over items (``tqdm.auto``: a widget in a notebook).  Default: when a person
        watches a notebook, not under papermill or the runner (:func:`shows_progress`).  Independently of it,
        inside a notebook run by ``torus-lab run`` or ``reproduce`` the sweep's progress is shown on the terminal
        (see :mod:`torus_lab.progress`).
    cache : folder, bool or None
        Result cache folder (see the module docstring); None: ``TORUS_LAB_CACHE``; False: no cache.
    hooks : Hooks, optional
        Worker setups to ship and progress bars to advance (:mod:`torus_lab.hooks`; default: the process's
        :data:`~torus_lab.hooks.HOOKS`, where the routing registry ships the routings registered at run time
        and :func:`torus_lab.experiment.start` adds the runner's progress reporter).
    """
    if progress is not None:
        check_instance("progress", progress, (bool, np.bool_), "a bool or None")
    if desc is not None:
        check_str("desc", desc)
    if not callable(func):
        raise TypeError(f"func must be callable, got {func!r}")
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise TypeError(f"items must be a sequence of mappings, got {items!r}")
    root = _root_seed(seed)
    with naming("items"):
        keys = [item_key(item) for item in items]
    items = [json.loads(key) for key in keys]
    entropies = [_seed_from_key(root, key).entropy for key in keys]
    backend, scheduler = _resolve_backend(backend, scheduler)
    workers = _local_workers(workers, backend, scheduler)
    location = cache_location(cache)
    code = code_digest(func) if location is not None else None
    hooks = HOOKS if hooks is None else check_instance("hooks", hooks, Hooks, "a torus_lab.hooks.Hooks")
    setups = tuple(hooks.worker_setups())
    sweep_key = None
    if location is not None and code is not None:
        setups_digest = "+".join(setup.digest for setup in setups) or None
        sweep_key = (f"{func.__module__}.{func.__qualname__}", code, setups_digest)
    results, todo = _cached_results(func, keys, entropies, location, sweep_key)
    if progress is None:
        progress = shows_progress()
    if progress:
        from tqdm.auto import tqdm
    else:  # a disabled notebook bar still warns "IProgress not found" into executed notebooks
        from tqdm import tqdm

    name = desc or getattr(func, "__name__", "sweep")
    bar = tqdm(total=len(items), initial=len(items) - len(todo), desc=name, disable=not progress)
    listeners = hooks.progress_bars(name, len(items), len(items) - len(todo))  # e.g. the runner's terminal

    def advance() -> None:
        bar.update()
        for listener in listeners:
            listener.advance()

    jobs = [(i, (func, items[i], entropies[i], setups, location, keys[i], sweep_key)) for i in todo]
    try:
        _run_jobs(jobs, results, backend, scheduler, workers, advance)
        return results
    finally:
        bar.close()


def _cached_results(func: Callable[..., Any], keys: list[str], entropies: list[int], location: Path | None,
                    sweep_key: tuple | None) -> tuple[list[Any], list[int]]:  # fmt: skip
    """The results of a sweep's items found in the cache at ``location`` (None elsewhere) and the indices of
    the items still to run; without a cache (``sweep_key`` None) every item is still to run."""
    results: list[Any] = [None] * len(keys)
    todo = list(range(len(keys)))
    if location is None or sweep_key is None:
        return results, todo
    memorized = _memorized(str(location))
    cache_args = [_cache_args(func, key, entropy, sweep_key) for key, entropy in zip(keys, entropies, strict=True)]
    hits = {i for i in todo if memorized.check_call_in_cache(*cache_args[i])}
    for i in sorted(hits):
        results[i] = _stored(memorized, cache_args[i])
    return results, [i for i in todo if i not in hits]


def _run_jobs(jobs: list[tuple[int, tuple]], results: list[Any], backend: str, scheduler: Any, workers: int | None,
              advance: Callable[[], None]) -> None:  # fmt: skip
    """Run ``jobs`` (item index, arguments of ``_call``) on ``backend``, each result into ``results`` at its
    index, calling ``advance`` after each; one job or fewer runs here, serially, whatever the backend."""
    if backend == "serial" or len(jobs) <= 1:
        for i, args in jobs:
            results[i] = _call(*args)
            advance()
    elif backend == "processes":
        _run_processes(jobs, results, workers, advance)
    else:
        _run_dask(jobs, results, scheduler, workers, advance)


#: Seconds an idle worker of the process pool waits for the next sweep before it exits.
POOL_IDLE_TIMEOUT = 300


def _package_files_state() -> tuple:
    """(path, mtime, size) of every source file of the package: the pool restarts its workers when it changes."""
    stats = [(path, path.stat()) for path in _package_sources()]
    return tuple((str(path), stat.st_mtime_ns, stat.st_size) for path, stat in stats)


_POOL_CODE: list[tuple] = []  # the package state the pool's workers were started with


def _process_pool(workers: int):
    """The process pool of the ``processes`` backend: ``joblib.externals.loky.get_reusable_executor``.

    Its workers outlive a sweep (up to :data:`POOL_IDLE_TIMEOUT` idle seconds), so the next sweep finds the
    package imported and the numba kernels it used loaded; a pool of another size, or a change of any package
    source file since the workers started, starts fresh workers (a worker never runs older code than a new
    process would).
    """
    from joblib.externals.loky import get_reusable_executor

    # loky replaces a worker that ends between items (its idle timeout, or its guard against a worker that grew
    # by 300 MB) and warns; the items are unaffected, so the warning would only clutter notebooks
    warnings.filterwarnings("ignore", message="A worker stopped while some jobs were given to the executor",
                            category=UserWarning)  # fmt: skip
    state = _package_files_state()
    stale = bool(_POOL_CODE) and _POOL_CODE[0] != state
    _POOL_CODE[:] = [state]
    return get_reusable_executor(max_workers=workers, timeout=POOL_IDLE_TIMEOUT, kill_workers=stale,
                                 reuse=not stale, initializer=_exit_with_parent)  # fmt: skip


#: Seconds between a pool worker's looks at whether the process that started it is still there.
PARENT_POLL_S = 0.5


def _exit_with_parent() -> None:
    """Initializer of the pool's workers: end the worker soon after the process that started the pool ends.

    A kernel or script killed without a chance to clean up (``kill -9``, or a kernel ended by a stop request)
    would otherwise leave its workers running until their idle timeout, holding the terminal's pipes open.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="torus-lab-parent-watch", daemon=True).start()


def _run_processes(jobs, results, workers, advance) -> None:
    pool = _process_pool(workers)
    futures = {pool.submit(_call_in_worker, *args): i for i, args in jobs}
    try:
        for future in as_completed(futures):
            results[futures[future]] = _result_and_warnings(future.result())
            advance()
    except KeyboardInterrupt:  # Ctrl-C, a kernel interrupt, SIGTERM/SIGHUP under the CLI: stop the running items
        _kill_pool(pool)
        raise
    finally:  # on an error or an interrupt, drop the items not started yet
        for future in futures:
            future.cancel()


def _kill_pool(pool) -> None:
    """End the pool's workers at once (SIGKILL; their items are abandoned) and the pool with them, so that neither
    the interrupted caller nor its exit waits for running items; the next sweep starts fresh workers."""
    for process in list(getattr(pool, "_processes", {}).values()):  # loky's worker table
        with contextlib.suppress(OSError, AttributeError, ValueError):
            process.kill()
    pool.shutdown(wait=False, kill_workers=True)
    _POOL_CODE.clear()


def _run_dask(jobs, results, scheduler, workers, advance) -> None:
    from dask.distributed import Client, LocalCluster, as_completed

    owned = []
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)  # fmt: skip
        client = Client(cluster)
        owned = [client, cluster]
    elif isinstance(scheduler, str):
        client = Client(scheduler)
        owned = [client]
    else:
        client = scheduler
    try:
        columns = list(zip(*(args for _, args in jobs), strict=True))
        futures = client.map(_call_in_worker, *columns, pure=False)
        index = {future.key: i for (i, _), future in zip(jobs, futures, strict=True)}
        for future in as_completed(futures):
            results[index[future.key]] = _result_and_warnings(future.result())
            advance()
    finally:
        for resource in owned:
            resource.close()


def sweep_frame(func: Callable[..., Any], items: Sequence[Mapping[str, Any]], **kwargs: Any):
    """:func:`sweep`, returned as a DataFrame: one row per item (or per dict when ``func`` returns a list of
    dicts), item parameters first."""
    import pandas as pd

    results = sweep(func, items, **kwargs)
    rows = []
    for item, result in zip((json.loads(item_key(item)) for item in items), results, strict=True):
        for record in result if isinstance(result, list) else [result]:
            record = record if isinstance(record, Mapping) else {"result": record}
            rows.append({**item, **record})
    return pd.DataFrame(rows)
