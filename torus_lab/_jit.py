"""Compiled code without stale caches: numba's on-disk cache, keyed by the source of everything a function uses.

numba's own ``cache=True`` checks only the source file of the cached function itself: edit a kernel it calls
in another file, or a constant it imports, and the old machine code is loaded again (numba documents this
limitation).  :func:`njit` here is ``numba.njit`` with a cache whose freshness stamp also covers, recursively,
every compiled function the cached one refers to (their source files), every torus_lab or user module it
reaches through an attribute, and the values of the plain constants it reads (``STATE_SIZE``, option codes,
...).  Any edit to any of those recompiles; nothing is ever needed from the user.  A function whose source has
no file (for example a notebook cell: numba keys those on the cell's text) is covered the same way.

Everything in torus_lab that numba compiles goes through this decorator; :func:`fresh_cache_dispatcher` gives a
user's kernel the same treatment (see :mod:`torus_lab.routing.registry`).  It also compiles with numba's own
pipeline changed in one place, for compile time only: the inliner of ``inline="always"`` functions copies a
callee's scope once per copy of its IR instead of once per block (``_ScopeSharingCopier``), which took about a
third of the compile time of the router models' cycle loops; the IR it makes, and the machine code, are the same.

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

import copy
import hashlib
import inspect
import os
import pickle
import sysconfig
import types as pytypes
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numba
from numba.core import caching, inline_closurecall, ir, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.dispatcher import Dispatcher
from numba.core.typed_passes import NopythonRewrites
from numba.core.untyped_passes import InlineInlinables

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


def _tuple_aliases(func_ir, typemap) -> dict[str, str]:
    """Variables of ``func_ir`` that always hold the same named tuple as one of its arguments: name -> argument.

    An argument counts when it is assigned only once (by its ``ir.Arg``); a variable counts when every assignment
    to it copies an argument or another such variable (what numba's inlining makes of a callee's parameter).
    """
    assigned: dict[str, list] = {}
    for block in func_ir.blocks.values():
        for stmt in block.find_insts(ir.Assign):
            assigned.setdefault(stmt.target.name, []).append(stmt.value)
    roots = {name: name for name, values in assigned.items()
             if len(values) == 1 and isinstance(values[0], ir.Arg)
             and isinstance(typemap.get(name), types.BaseNamedTuple)}  # fmt: skip
    aliases = dict(roots)
    changed = True
    while changed:
        changed = False
        for name, values in assigned.items():
            if name in aliases or not all(isinstance(v, ir.Var) and v.name in aliases for v in values):
                continue
            targets = {aliases[v.name] for v in values}
            if len(targets) == 1:
                aliases[name] = targets.pop()
                changed = True
    return aliases


def _hoist_tuple_fields(func_ir, typemap) -> int:
    """Read each field of a named-tuple argument once, at the function's entry; returns the reads replaced.

    numba keeps a variable that lives in several blocks in a stack slot and loads it whole at every use, so each
    ``st.field`` of a big state tuple (inside a loop, or in a stage inlined with ``inline="always"``) costs a load
    of every field, which LLVM's scalar replacement of aggregates (SROA) then takes apart: for the router models'
    cycle loops, with their state of some 80 arrays, that pass took most of the compile time.  A tuple is
    immutable, so each ``getattr`` of an argument (or of a copy of it, as inlining makes) reads the same value as
    one read at the entry; the copies left unused are removed.  The machine code computes the same thing.
    """
    aliases = _tuple_aliases(func_ir, typemap)
    if not aliases:
        return 0
    entry = func_ir.blocks[min(func_ir.blocks)]
    hoisted: dict[tuple[str, str], ir.Var] = {}
    replaced = 0
    for block in func_ir.blocks.values():
        for stmt in block.body:
            value = stmt.value if isinstance(stmt, ir.Assign) else None
            if isinstance(value, ir.Expr) and value.op == "getattr" and value.value.name in aliases:
                key = (aliases[value.value.name], value.attr)
                if key not in hoisted:
                    var = ir.Var(entry.scope, entry.scope.redefine(f"$hoisted.{key[0]}.{key[1]}", value.loc).name,
                                 value.loc)  # fmt: skip
                    typemap[var.name] = typemap[stmt.target.name]
                    hoisted[key] = var
                stmt.value = hoisted[key]
                replaced += 1
    if not replaced:
        return 0
    # the reads go right after the arguments' assignments (the entry block starts with them)
    position = 0
    while position < len(entry.body) and isinstance(getattr(entry.body[position], "value", None), ir.Arg):
        position += 1
    reads = [ir.Assign(ir.Expr.getattr(ir.Var(entry.scope, root, var.loc), attr, var.loc), var, var.loc)
             for (root, attr), var in hoisted.items()]  # fmt: skip
    entry.body[position:position] = reads
    _drop_unused_copies(func_ir, set(aliases) - set(aliases.values()))
    return replaced


def _reads(stmt) -> list:
    """The variables a statement of numba IR reads (a deletion reads none)."""
    if isinstance(stmt, ir.Assign):
        value = stmt.value
        return value.list_vars() if isinstance(value, ir.Expr) else [value] if isinstance(value, ir.Var) else []
    return [] if isinstance(stmt, ir.Del) else stmt.list_vars()


def _drop_unused_copies(func_ir, copies: set[str]) -> None:
    """Remove the assignments (and deletions) of the variables of ``copies`` that nothing reads any more."""
    while True:
        used = {var.name for block in func_ir.blocks.values() for stmt in block.body for var in _reads(stmt)}
        dead = copies - used
        removed = False
        for block in func_ir.blocks.values():
            keep = [stmt for stmt in block.body
                    if not (isinstance(stmt, ir.Assign) and stmt.target.name in dead)
                    and not (isinstance(stmt, ir.Del) and stmt.value in dead)]  # fmt: skip
            removed |= len(keep) != len(block.body)
            block.body = keep
        copies -= dead
        if not removed:
            return


@register_pass(mutates_CFG=False, analysis_only=False)
class _HoistTupleFields(FunctionPass):
    """numba compiler pass applying ``_hoist_tuple_fields`` after type inference."""

    _name = "torus_lab_hoist_tuple_fields"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state) -> bool:  # noqa: D102 - numba's pass API
        return _hoist_tuple_fields(state.func_ir, state.typemap) > 0


class _ScopeSharingCopier:
    """Stands in for the ``copy`` module in numba's inliner: the blocks of one function share one copy of its scope.

    numba's inliner copies a callee's IR block by block (twice per call site: the copy it splices in and an
    unmutated copy it returns), each block with its own ``copy.deepcopy``.  Every block refers to the function's
    scope, which holds every variable of the function, so each block's copy copied the whole scope again: the
    cost grew with blocks x variables, and for the router models' cycle loops (stages inlined with
    ``inline="always"``, their helpers inlined into them) it took about a third of the compile time.  Here the
    blocks of one IR (consecutive calls on blocks of one scope, none copied twice) get one copy of that scope,
    as a single ``deepcopy`` of the whole IR would give them; everything else is copied as before, so the
    inlined IR, and the machine code, are the same.
    """

    def __init__(self) -> None:
        self._source: ir.Scope | None = None
        self._copy: ir.Scope | None = None
        self._blocks: dict[int, ir.Block] = {}  # the blocks copied with the current scope (kept: ids stay unique)

    def deepcopy(self, value: object, memo: dict | None = None) -> object:  # noqa: D102 - the copy module's API
        if memo is not None or not isinstance(value, ir.Block):
            return copy.deepcopy(value, memo)
        if value.scope is not self._source or id(value) in self._blocks:  # another IR (or this one again): a new copy
            self._source, self._copy, self._blocks = value.scope, None, {}
        self._blocks[id(value)] = value
        memo = {} if self._copy is None else {id(self._source): self._copy}
        new = copy.deepcopy(value, memo)
        self._copy = new.scope
        return new


@contextmanager
def _scope_sharing_inliner() -> Iterator[None]:
    """numba's inliner copies through ``_ScopeSharingCopier`` while the block runs (the caller holds numba's
    compiler lock, so no other compilation sees it); unchanged if this numba has no such module global."""
    original = getattr(inline_closurecall, "copy", None)
    if original is not copy:
        yield
        return
    inline_closurecall.copy = _ScopeSharingCopier()
    try:
        yield
    finally:
        inline_closurecall.copy = original


@register_pass(mutates_CFG=True, analysis_only=False)
class _InlineInlinablesSharingScopes(InlineInlinables):
    """numba's pass inlining ``inline="always"`` functions, its copies of callee IR made by ``_ScopeSharingCopier``."""

    _name = "torus_lab_inline_inlinables"

    def run_pass(self, state) -> bool:  # noqa: D102 - numba's pass API
        with _scope_sharing_inliner():
            return super().run_pass(state)


class _Compiler(CompilerBase):
    """numba's nopython pipeline with ``_InlineInlinablesSharingScopes`` in place of its inlining pass: what every
    function of torus_lab compiles with (same IR, less compile time)."""

    def _nopython_pipeline(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = [(_InlineInlinablesSharingScopes if cls is InlineInlinables else cls, description)
                     for cls, description in pm.passes]  # fmt: skip
        return pm

    def define_pipelines(self):  # noqa: D102 - numba's pipeline API
        pm = self._nopython_pipeline()
        pm.finalize()
        return [pm]


class _HoistingCompiler(_Compiler):
    """``_Compiler`` plus ``_HoistTupleFields`` after its typed rewrites."""

    def define_pipelines(self):  # noqa: D102 - numba's pipeline API
        pm = self._nopython_pipeline()
        pm.add_pass_after(_HoistTupleFields, NopythonRewrites)
        pm.finalize()
        return [pm]


def njit(func: Callable | None = None, *, refcount: bool = True, hoist_fields: bool = False, **options: Any):
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
    hoist_fields : bool
        True reads every field of a named-tuple argument once, at the function's entry
        (``_hoist_tuple_fields``): for a big function reading a big state tuple in many places (the router
        models' cycle loops, their stages inlined) this cuts LLVM's compile time several-fold; the machine
        code computes the same thing.
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
    if not isinstance(hoist_fields, bool):
        raise TypeError(f"hoist_fields must be a bool, got {hoist_fields!r}")
    if not refcount:
        options["_nrt"] = False
    options.setdefault("pipeline_class", _HoistingCompiler if hoist_fields else _Compiler)

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

