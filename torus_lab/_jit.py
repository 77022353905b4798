"""Compiled code without stale caches: numba's on-disk cache, keyed by the source of everything a function uses.

numba's own ``cache=True`` checks only the source file of the cached function itself: edit a kernel it calls
in another file, or a constant it imports, and the old machine code is loaded again (numba documents this
limitation).  :func:`njit` here is ``numba.njit`` with a cache whose freshness stamp also covers, recursively,
every compiled function the cached one refers to (their source files), every torus_lab or user module it
reaches through an attribute, and the values of the plain constants it reads (``STATE_SIZE``, option codes,
...).  Any edit to any of those recompiles; nothing is ever needed from the user.  A function whose source has
no file (for example a notebook cell: numba keys those on the cell's text) is covered the same way.

Everything in torus_lab that numba compiles goes through this decorator; :func:`fresh_cache_dispatcher` gives a
user's kernel the same treatment (see :mod:`torus_lab.routing.registry`).

Examples
--------
>>> @njit
... def twice(x):
...     return 2 * x
>>> twice(21)
42
>>> isinstance(dependency_digest(twice.py_func), str)
True
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
import sysconfig
import types as pytypes
from collections.abc import Callable
from functools import cache
from typing import Any

import numba
from numba.core import caching
from numba.core.dispatcher import Dispatcher

__all__ = ["njit", "dependency_digest", "fresh_cache_dispatcher", "is_dispatcher"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_EXTERNAL_DIRS = tuple(
    os.path.abspath(path)
    for key in ("stdlib", "platstdlib", "purelib", "platlib")
    if (path := sysconfig.get_paths().get(key))
)
_PLAIN = (int, float, complex, bool, str, bytes, type(None))


def is_dispatcher(obj: object) -> bool:
    """True for a numba CPU dispatcher (what ``@numba.njit`` returns).

    >>> is_dispatcher(njit(lambda x: x)), is_dispatcher(len)
    (True, False)
    """
    return isinstance(obj, Dispatcher)


def _is_external(path: str) -> bool:
    """A file of the standard library or of an installed third-party package (versioned, not edited in place)."""
    path = os.path.abspath(path)
    if path.startswith(_PACKAGE_DIR + os.sep):
        return False
    return any(path.startswith(d + os.sep) for d in _EXTERNAL_DIRS)


@cache
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _source_digest(obj: object) -> str | None:
    """Digest of the file that defines ``obj`` (or of its source text when it has no file); None if unknown."""
    try:
        path = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (TypeError, OSError):
        return None
    if path and os.path.isfile(path):
        if _is_external(path):
            return None
        st = os.stat(path)
        return _file_digest(path, st.st_mtime_ns, st.st_size)
    try:  # no file (a notebook cell, exec'd code): the source text, if inspect can find it
        return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()
    except (TypeError, OSError):
        return None


def _names(code: pytypes.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _names(const)
    return names


def _value_token(value: object, seen: set[int]) -> str:
    """What of a referenced global can change the compiled code."""
    if is_dispatcher(value):
        return "dispatcher:" + _digest(value.py_func, seen)
    if isinstance(value, pytypes.ModuleType):
        return "module:" + str(_source_digest(value))
    if isinstance(value, _PLAIN) or type(value).__module__ == "numpy":
        return "value:" + repr(value)
    if isinstance(value, tuple):
        return "tuple:" + ",".join(_value_token(v, seen) for v in value)
    if isinstance(value, pytypes.FunctionType):
        return "function:" + _digest(value, seen)
    if isinstance(value, type):
        return "class:" + str(_source_digest(value)) + value.__qualname__
    return "object:" + type(value).__qualname__ + ":" + repr(value)[:200]


def _digest(py_func: Callable, seen: set[int]) -> str:
    if id(py_func) in seen:
        return "cycle"
    seen.add(id(py_func))
    parts = [str(_source_digest(py_func)), py_func.__qualname__]
    code = py_func.__code__
    globals_ = py_func.__globals__
    for name in sorted(_names(code)):
        if name in globals_:
            parts.append(f"{name}={_value_token(globals_[name], seen)}")
    for name, cell in zip(code.co_freevars, py_func.__closure__ or (), strict=False):
        try:
            parts.append(f"{name}~{_value_token(cell.cell_contents, seen)}")
        except ValueError:  # empty cell
            parts.append(f"{name}~empty")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def dependency_digest(py_func: Callable) -> str:
    """Digest of the source of ``py_func`` and of everything compiled code made from it depends on.

    Covers the defining file (or cell text), and recursively every numba dispatcher, plain Python function,
    module (not the standard library or installed third-party packages) and constant the function's code
    names, plus its closure cells.

    Examples
    --------
    >>> def f(x):
    ...     return x + 1
    >>> dependency_digest(f) == dependency_digest(f)
    True
    """
    return _digest(py_func, set())


class _DependencyStampMixin:
    """A numba cache locator whose freshness stamp is :func:`dependency_digest` (plus numba's own stamp)."""

    _py_func: Callable | None = None

    def get_source_stamp(self):  # noqa: D102 - numba's locator API
        return (super().get_source_stamp(), dependency_digest(self._py_func))

    @classmethod
    def from_function(cls, py_func, py_file):  # noqa: D102 - numba's locator API
        locator = super().from_function(py_func, py_file)
        if locator is not None:
            locator._py_func = py_func
        return locator


def _stamped(base: type) -> type:
    return type("Dependency" + base.__name__, (_DependencyStampMixin, base), {})


class _DependencyCacheImpl(caching.CompileResultCacheImpl):
    _locator_classes = [_stamped(cls) for cls in caching.CompileResultCacheImpl._locator_classes]


class _TolerantIndexFile(caching.IndexDataCacheFile):
    """numba's cache index, read as empty (so the function compiles afresh) when it cannot be unpickled.

    numba checks an index's freshness only after unpickling it, so an index written by other code (another checkout
    of the project, say one whose numba types of arguments differ) may name a class this code does not have, and
    numba would raise instead of compiling."""

    def _load_index(self):
        try:
            return super()._load_index()
        except (AttributeError, ImportError, TypeError, ValueError, EOFError, pickle.UnpicklingError):
            return {}


class _DependencyFunctionCache(caching.FunctionCache):
    _impl_class = _DependencyCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file.__class__ = _TolerantIndexFile


def _enable_dependency_cache(dispatcher: Dispatcher) -> Dispatcher:
    try:
        dispatcher._cache = _DependencyFunctionCache(dispatcher.py_func)
    except RuntimeError:  # no place to cache (read-only install, exotic source): compile in memory
        dispatcher._cache = caching.NullCache()
    return dispatcher


def njit(func: Callable | None = None, *, refcount: bool = True, **options: Any):
    """``numba.njit`` with an on-disk cache that can never serve stale code (module docstring).

    Parameters
    ----------
    func : callable, optional
        The function (``@njit``) or nothing (``@njit(fastmath=False)``).
    refcount : bool
        False compiles without numba's reference counting of arrays (its runtime, NRT): for a hot function that
        allocates no array and keeps none beyond its call (a routing kernel, a cycle loop over arrays made in
        Python).  Without it every array bound to a name, passed to a function or taken from a tuple costs an
        out-of-line call that updates a count atomically; in the simulator's cycle loops and routing kernels
        those calls took most of the time (measured: a direction-first kernel call on the 9-cube went from
        268 ns to 95 ns).  A function that needs the runtime (it allocates an array, or copies an array slice)
        then fails to compile with "NRT required but not enabled".  numba's option for this is ``_nrt``.
    **options
        numba's jit options; ``cache`` is implied (pass ``cache=False`` to compile in memory only).

    Examples
    --------
    >>> @njit(boundscheck=False)
    ... def add(a, b):
    ...     return a + b
    >>> add(1, 2)
    3
    >>> import numpy as np
    >>> @njit(refcount=False)
    ... def total(values):
    ...     acc = 0
    ...     for v in values:
    ...         acc += v
    ...     return acc
    >>> int(total(np.arange(5)))
    10
    """
    cache = options.pop("cache", True)
    if not isinstance(refcount, bool):
        raise TypeError(f"refcount must be a bool, got {refcount!r}")
    if not refcount:
        options["_nrt"] = False

    def wrap(f: Callable) -> Dispatcher:
        dispatcher = numba.njit(**options)(f)
        return _enable_dependency_cache(dispatcher) if cache else dispatcher

    return wrap if func is None else wrap(func)


def fresh_cache_dispatcher(kernel: Dispatcher) -> Dispatcher:
    """The dispatcher to compile a user's kernel with: never one whose cache could be stale.

    A kernel compiled without numba's cache is returned as it is (compiled in memory, in every process).  A
    kernel decorated with ``cache=True`` gets a new dispatcher of the same function and options whose cache
    is stamped with :func:`dependency_digest`, so an edit to the kernel, to a helper it calls in another file,
    or to a constant it imports recompiles it.

    Examples
    --------
    >>> import numba
    >>> k = numba.njit(cache=False)(lambda x: x)
    >>> fresh_cache_dispatcher(k) is k
    True
    """
    if not is_dispatcher(kernel):
        raise TypeError(f"kernel must be a numba @njit function, got {kernel!r}")
    if isinstance(kernel._cache, caching.NullCache):
        return kernel
    options = {k: v for k, v in kernel.targetoptions.items() if k not in ("cache", "nopython")}
    fresh = numba.njit(**options)(kernel.py_func)
    return _enable_dependency_cache(fresh)

