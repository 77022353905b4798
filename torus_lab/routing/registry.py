"""The registry of routing algorithms: a name plus structured options gives a :class:`RoutingFunction`.

Every routing a notebook, study, benchmark or experiment YAML uses is built here, named by a *spec*: the
entry's name alone (``"ecube"``) or a mapping of the name and options,
``{"name": "ecube", "datelines": True, "vcs": 2}`` (in YAML: ``{name: ecube, datelines: true, vcs: 2}``).
There is no other grammar: a spec is never a string with options in it.

Built-in entries are registered by their family modules (:mod:`torus_lab.routing.ecube`,
:mod:`~torus_lab.routing.direction_first`, :mod:`~torus_lab.routing.turn_model`) when :mod:`torus_lab.routing`
is imported.  ``torus-lab routings`` lists them with their options, defaults and sources.

Bring your own routing
----------------------
A researcher's algorithm is one numba kernel with the signature
:data:`torus_lab.routing.interface.KERNEL_SIGNATURE`, registered at run time with :func:`register_routing`;
from then on it works everywhere a built-in does: :meth:`RoutingFunction.candidates` / ``route`` /
``enumerate_routes``, :func:`torus_lab.deadlock.cdg_verdict` (verdict and witness cycle),
:func:`torus_lab.sim.simulate`, and :func:`torus_lab.sweep.sweep` on every backend.

* **Options** reach the kernel through ``tables.iparams`` (:data:`~torus_lab.routing.interface.NUM_IPARAMS`
  int64 slots): by default option *i* (in declaration order) is ``iparams[i]``, a bool as 0/1, an int as
  itself, an option with ``choices`` as the index of its value.  Pass ``iparams=`` for another layout.
* **Checks.** Every routing function built from a registered kernel is validated
  (:func:`torus_lab.routing.explore.validate_routing`): all reachable states of every destination on
  networks of up to 256 nodes, a sample of destinations above.  Malformed output is refused with an error
  naming the algorithm and the (node, destination, arrival, header state).  The check runs in a forked child
  limited to :data:`~torus_lab.routing.explore.VALIDATION_CPU_LIMIT` seconds of CPU time
  (``validation_cpu_limit=`` of :func:`make_routing`), so a kernel call that never returns is refused naming
  that call instead of hanging the caller.  A registration naming an option that does not exist
  (``vcs="nvcs"``) is refused by :func:`register_routing`, naming the options there are.
* **Compiled code.** A kernel decorated ``@numba.njit`` is compiled in each process; one decorated
  ``cache=True`` is recompiled whenever its source, a function it calls or a constant it reads changes
  (``torus_lab._jit.fresh_cache_dispatcher``).  Nothing stale is ever run.
* **Workers.** :func:`torus_lab.sweep.sweep` sends the entries registered in the calling process to every
  worker (serialised with cloudpickle, kernels by value when they live in a notebook or ``__main__``), so
  a kernel defined in a notebook cell runs on the processes and Dask backends with no extra step.  A Dask
  worker needs only torus_lab (and whatever modules your kernel itself imports) installed.

Examples
--------
>>> from torus_lab.topology import Torus
>>> r = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 4))
>>> r.name, r.num_vcs, r.spec["dateline_rule"]
('ecube+dateline', 2, 'switch')
>>> make_routing({"name": "ecube", "vc": 2}, Torus(2, 4))
Traceback (most recent call last):
...
ValueError: routing 'ecube' has no option 'vc'; its options are: datelines, vcs, tie, dateline_rule, variant (did ...
"""

from __future__ import annotations

import contextlib
import inspect
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from torus_lab._cpu_bounded import check_cpu_limit
from torus_lab._jit import fresh_cache_dispatcher, is_dispatcher
from torus_lab._validate import check_instance, did_you_mean, is_int
from torus_lab.hooks import HOOKS, WorkerSetup
from torus_lab.routing.explore import VALIDATION_CPU_LIMIT, validate_routing
from torus_lab.routing.interface import NUM_IPARAMS, RoutingFunction, build_tables, compile_kernel
from torus_lab.topology import Faults, Torus

__all__ = [
    "Option",
    "RoutingEntry",
    "register_routing",
    "unregister_routing",
    "routing_entry",
    "routing_entries",
    "routing_table",
    "normalize_spec",
    "make_routing",
    "export_user_entries",
    "import_user_entries",
    "RoutingRegistry",
    "REGISTRY",
]

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Option:
    """One option of a routing entry.

    Parameters
    ----------
    name : str
    doc : str
        What it does (shown by ``torus-lab routings``).
    default : object
        Its default; for an entry built by a factory function, read from the factory's signature when omitted.
    choices : tuple, optional
        The allowed values (anything else is refused).
    minimum : int, optional
        Smallest allowed value of an int option.
    types : tuple of types, optional
        Allowed Python types (default: those of ``choices``, else of ``default``; bool is never an int).

    Examples
    --------
    >>> Option("vcs", "virtual channels", default=1, minimum=1).check("demo", 2)
    2
    >>> Option("tie", "tie direction", default="+", choices=("+", "-")).code("-")
    1
    """

    name: str
    doc: str
    default: Any = _NO_DEFAULT
    choices: tuple | None = None
    minimum: int | None = None
    types: tuple[type, ...] | None = None

    def allowed_types(self) -> tuple[type, ...]:
        """The Python types a value may have."""
        if self.types is not None:
            return self.types
        sample = self.choices[0] if self.choices else self.default
        if isinstance(sample, bool):
            return (bool,)
        if isinstance(sample, numbers.Integral):
            return (int,)
        if isinstance(sample, numbers.Real):
            return (float, int)
        return (type(sample),)

    def allowed(self) -> str:
        """The allowed values in words (``"+, -"``, ``"int >= 1"``)."""
        if self.choices is not None:
            return ", ".join(map(str, self.choices))
        text = " or ".join(t.__name__ for t in self.allowed_types())
        return text + (f" >= {self.minimum}" if self.minimum is not None else "")

    def check(self, routing: str, value: Any) -> Any:
        """``value`` if it is allowed (numpy scalars become Python ones), else ValueError/TypeError naming it."""
        if isinstance(value, np.generic):
            value = value.item()
        allowed = self.allowed_types()
        is_bool = isinstance(value, bool)
        ok = isinstance(value, allowed) and (bool in allowed or not is_bool)
        if not ok:
            names = " or ".join(t.__name__ for t in allowed)
            raise TypeError(f"routing {routing!r}: option {self.name!r} must be {names}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(
                f"routing {routing!r}: option {self.name!r} must be one of {list(self.choices)}, got {value!r}"
            )
        if self.minimum is not None and value is not None and not is_bool and value < self.minimum:
            raise ValueError(f"routing {routing!r}: option {self.name!r} must be >= {self.minimum}, got {value!r}")
        return value

    def code(self, value: Any) -> int:
        """The int64 a value is passed to a kernel as: a choice's index, a bool as 0/1, an int as itself."""
        if self.choices is not None:
            return self.choices.index(value)
        if value is None:
            return -1
        if isinstance(value, bool | numbers.Integral):
            return int(value)
        raise TypeError(f"option {self.name!r}: value {value!r} has no integer code; pass iparams= to register")


@dataclass(frozen=True)
class RoutingEntry:
    """A registered routing algorithm: how to build it, its options and where it comes from."""

    name: str
    summary: str
    source: str
    options: tuple[Option, ...]
    build: Callable[..., RoutingFunction] = field(repr=False)
    builtin: bool = False
    validate: bool = True

    def option(self, name: str) -> Option:
        """The option called ``name`` (ValueError listing the valid ones if there is none)."""
        for opt in self.options:
            if opt.name == name:
                return opt
        raise ValueError(f"routing {self.name!r} has no option {name!r}; {_options_hint(name, self.options)}")

    def defaults(self) -> dict[str, Any]:
        """Every option with its default value."""
        return {o.name: o.default for o in self.options}


def _options_hint(name: object, options: Sequence[Option]) -> str:
    """``"its options are: a, b"`` and, when some are close to ``name``, ``" (did you mean 'b'?)"``.

    Examples
    --------
    >>> _options_hint("nvc", (Option("vcs", "", default=1), Option("tie", "", default=0)))
    "its options are: vcs, tie (did you mean 'vcs'?)"
    """
    names = [o.name for o in options]
    return f"its options are: {', '.join(names) or '(none)'}{did_you_mean(name, names)}"


def _named_option(routing: str, param: str, name: str, options: Sequence[Option]) -> Option:
    """The option called ``name`` that a registration's parameter ``param`` names, or ValueError naming the routing,
    the parameter, the name and the options there are.

    Examples
    --------
    >>> _named_option("x", "vcs", "nvcs", (Option("vcs", "", default=1),))
    Traceback (most recent call last):
    ...
    ValueError: routing 'x': vcs='nvcs' names no option of it; its options are: vcs (did you mean 'vcs'?)
    """
    for opt in options:
        if opt.name == name:
            return opt
    raise ValueError(f"routing {routing!r}: {param}={name!r} names no option of it; {_options_hint(name, options)}")


def _read_options(routing: str, what: str, func: Callable, opts: Mapping[str, Any], topology: Torus) -> Any:
    """``func(opts, topology)``; a KeyError for a name that is not an option becomes a ValueError naming the routing,
    what read it (``"iparams="``), the name and the options (a bare ``KeyError`` would name only the key).

    Examples
    --------
    >>> _read_options("x", "iparams=", lambda o, t: [o["nvcs"]], {"vcs": 2}, None)
    Traceback (most recent call last):
    ...
    ValueError: routing 'x': iparams= read option 'nvcs', which it does not have; its options are: vcs (did you...
    """
    try:
        return func(opts, topology)
    except KeyError as err:
        key = err.args[0] if len(err.args) == 1 else None
        if not isinstance(key, str) or key in opts:
            raise
        options = [Option(k, "", default=v) for k, v in opts.items()]
        hint = _options_hint(key, options)
        raise ValueError(f"routing {routing!r}: {what} read option {key!r}, which it does not have; {hint}") from None


class RoutingRegistry:
    """A set of routing entries by name: what :func:`register_routing` fills and :func:`make_routing` reads.

    :data:`REGISTRY` is the process's registry, holding the built-in families (each registers itself when
    imported) and what a notebook registers; every function of this module takes another one through its
    ``registry`` argument.  :meth:`scoped` lets a test register freely and leaves the registry as it was.

    Examples
    --------
    >>> mine = REGISTRY.copy()
    >>> sorted(e.name for e in mine.entries.values()) == sorted(e.name for e in REGISTRY.entries.values())
    True
    >>> with REGISTRY.scoped():
    ...     _ = register_routing("doc-scoped", build=lambda topology, *, faults=None: None)
    ...     "doc-scoped" in REGISTRY.entries
    True
    >>> "doc-scoped" in REGISTRY.entries
    False
    """

    def __init__(self, entries: Mapping[str, RoutingEntry] | None = None) -> None:
        entries = {} if entries is None else check_instance("entries", entries, Mapping, "a mapping of entries")
        for name, entry in entries.items():
            check_instance("entries", entry, RoutingEntry, f"RoutingEntry values (got one for {name!r})")
        self.entries: dict[str, RoutingEntry] = dict(entries)

    def copy(self) -> RoutingRegistry:
        """Another registry holding the same entries (registering in one leaves the other as it is)."""
        return RoutingRegistry(self.entries)

    @contextlib.contextmanager
    def scoped(self) -> Iterator[RoutingRegistry]:
        """Within the block, register and unregister freely; the entries are restored after it."""
        saved = dict(self.entries)
        try:
            yield self
        finally:
            self.entries.clear()
            self.entries.update(saved)


#: The process's registry (built-in families and routings registered at run time).
REGISTRY = RoutingRegistry()


def _registry(registry: RoutingRegistry | None) -> RoutingRegistry:
    if registry is None:
        return REGISTRY
    return check_instance("registry", registry, RoutingRegistry, "a RoutingRegistry or None")


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name or name != name.strip() or any(c in name for c in "{}:,="):
        raise ValueError(f"a routing name must be a non-empty string without spaces round it or {{}}:,=, got {name!r}")
    return name


def _options_with_defaults(name: str, options, build: Callable | None) -> tuple[Option, ...]:
    if isinstance(options, Mapping):
        options = [o if isinstance(o, Option) else Option(key, "", default=o) for key, o in options.items()]
    params = inspect.signature(build).parameters if build is not None else {}
    out = []
    for opt in options:
        if not isinstance(opt, Option):
            raise TypeError(f"routing {name!r}: options must be Option records or a mapping, got {opt!r}")
        if opt.default is _NO_DEFAULT:
            param = params.get(opt.name)
            if param is None or param.default is inspect.Parameter.empty:
                raise ValueError(f"routing {name!r}: option {opt.name!r} has no default")
            opt = replace(opt, default=param.default)
        if opt.name in ("name", "topology", "faults"):
            raise ValueError(f"routing {name!r}: {opt.name!r} cannot be an option name")
        opt.check(name, opt.default)
        out.append(opt)
    names = [o.name for o in out]
    if len(set(names)) != len(names):
        raise ValueError(f"routing {name!r}: option names repeat: {names}")
    if build is not None:
        _check_build_accepts(name, build, out)
    return tuple(out)


def _check_build_accepts(name: str, build: Callable, options: Sequence[Option]) -> None:
    """ValueError unless ``build`` takes every option as a keyword (``make_routing`` passes them so)."""
    params = inspect.signature(build).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    keywords = [p for p in params.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    names = {p.name for p in keywords}
    for opt in options:
        if opt.name not in names:
            raise ValueError(f"routing {name!r}: option {opt.name!r} is not a parameter of its build function "
                             f"{getattr(build, '__name__', build)!r}{did_you_mean(opt.name, sorted(names))}")


def _per_build(value, name: str, what: str):
    """A constant or a callable ``f(options, topology)``, as a callable."""
    if callable(value):
        return value
    if not is_int(value) or value < 1:
        raise ValueError(f"routing {name!r}: {what} must be an int >= 1 or a callable, got {value!r}")
    return lambda options, topology: int(value)


def _vcs_option(name: str, vcs: str, options: Sequence[Option]) -> Callable:
    """``vcs=`` naming an option: the reader of that option, which must exist and hold ints."""
    opt = _named_option(name, "vcs", vcs, options)
    values = opt.choices if opt.choices is not None else (opt.default,)
    if not all(is_int(v) for v in values) or not all(issubclass(t, numbers.Integral) and t is not bool
                                                    for t in opt.allowed_types()):  # fmt: skip
        raise ValueError(f"routing {name!r}: vcs={vcs!r} names an option that does not hold an int "
                         f"(allowed: {opt.allowed()})")  # fmt: skip
    return lambda opts, topo: int(opts[vcs])


def _kernel_builder(name, kernel, options, vcs, adaptive, random_choices, iparams):
    """The build function of an entry registered with a kernel."""
    if isinstance(vcs, str):
        vcs = _vcs_option(name, vcs, options)
    vcs_of = _per_build(vcs, name, "vcs")
    choices_of = _per_build(random_choices, name, "random_choices")
    if iparams is None:
        if len(options) > NUM_IPARAMS:
            raise ValueError(f"routing {name!r}: {len(options)} options do not fit {NUM_IPARAMS} iparams slots; "
                             "pass iparams=")  # fmt: skip
        for opt in options:
            opt.code(opt.default)  # every option must have an integer code
        iparams = lambda opts, topo: [o.code(opts[o.name]) for o in options]  # noqa: E731
    elif not callable(iparams):
        raise TypeError(f"routing {name!r}: iparams must be a callable (options, topology) -> ints, got {iparams!r}")
    defaults = {o.name: o.default for o in options}

    def build(topology: Torus, *, faults: Faults | None = None, **opts: Any) -> RoutingFunction:
        changed = ", ".join(f"{k}={v}" for k, v in opts.items() if v != defaults[k])
        return RoutingFunction(
            name=f"{name}({changed})" if changed else name,
            kernel=kernel,
            topology=topology,
            faults=faults,
            tables=build_tables(topology, faults, [int(v) for v in _read_options(name, "iparams=", iparams, opts,
                                                                                  topology)]),
            num_vcs=int(_read_options(name, "vcs=", vcs_of, opts, topology)),
            adaptive=bool(adaptive),
            random_choices=int(_read_options(name, "random_choices=", choices_of, opts, topology)),
            options=dict(opts),
        )

    return build


def register_routing(
    name: str,
    kernel: Callable | None = None,
    *,
    build: Callable[..., RoutingFunction] | None = None,
    options: Sequence[Option] | Mapping[str, Any] = (),
    vcs: int | str | Callable = 1,
    adaptive: bool = True,
    random_choices: int | Callable = 1,
    iparams: Callable | None = None,
    summary: str = "",
    source: str = "user-defined",
    validate: bool | None = None,
    replace: bool = False,
    registry: RoutingRegistry | None = None,
    _builtin: bool = False,
) -> RoutingEntry:
    """Register a routing algorithm under ``name``; returns its :class:`RoutingEntry`.

    Parameters
    ----------
    name : str
        Registry name (what specs and ``torus-lab routings`` use).
    kernel : numba ``@njit`` function, optional
        The algorithm (signature :data:`~torus_lab.routing.interface.KERNEL_SIGNATURE`).  Either ``kernel``
        or ``build`` is given.
    build : callable, optional
        ``build(topology, *, faults=None, **options) -> RoutingFunction`` for algorithms that need more than
        a kernel and integer options (the built-in families use this).
    options : sequence of :class:`Option` or mapping name -> default
        The algorithm's options, in the order their codes fill ``iparams``.
    vcs : int, str or callable
        Virtual channels per channel: a number, the name of an option holding it (an int option; a name that is
        not an option is refused here), or ``f(options, topology)``.
    adaptive : bool
        Whether the kernel can return more than one physical channel.
    random_choices : int or callable
        How many values of the random word matter (``rand % m``); the CDG and the checks try them all.
    iparams : callable, optional
        ``f(options, topology) -> up to NUM_IPARAMS ints`` (default: option codes in order, see module doc).
    summary, source : str
        One line on what it does; the paper and section it implements.
    validate : bool, optional
        Check every routing function built from the entry (default: True for kernels, False for ``build``).
    replace : bool
        Allow replacing an existing user entry of that name (built-in entries are never replaced).
    registry : RoutingRegistry, optional
        Where to register (default: the process's :data:`REGISTRY`).

    Examples
    --------
    >>> from torus_lab._jit import njit
    >>> from torus_lab.topology import Torus
    >>> @njit
    ... def plus_first(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    ...     n = tables.radices.shape[0]          # ring order: always +, lowest unfinished dimension
    ...     for d in range(n):
    ...         if tables.coords[cur * n + d] != tables.coords[dst * n + d]:
    ...             out_ch[0] = tables.slot[(cur * n + d) * 2 + 1]
    ...             out_vc[0] = 0
    ...             out_state[0, :] = state
    ...             return 1
    ...     return 0
    >>> entry = register_routing("doc-plus-first", plus_first, adaptive=False, replace=True)
    >>> make_routing("doc-plus-first", Torus(2, 4)).route((3, 0), (1, 0))
    [(3, 0), (0, 0), (1, 0)]
    >>> unregister_routing("doc-plus-first")
    """
    name = _check_name(name)
    entries = _registry(registry).entries
    if (kernel is None) == (build is None):
        raise ValueError(f"routing {name!r}: give exactly one of kernel= and build=")
    existing = entries.get(name)
    if existing is not None and (existing.builtin or not replace):
        what = "a built-in routing" if existing.builtin else "already registered (pass replace=True)"
        raise ValueError(f"routing name {name!r} is {what}")
    if build is not None and not callable(build):
        raise TypeError(f"routing {name!r}: build must be callable, got {build!r}")
    opts = _options_with_defaults(name, options, build)
    if kernel is not None:
        if not is_dispatcher(kernel):
            raise TypeError(f"routing {name!r}: kernel must be a numba @njit function, got {kernel!r}")
        kernel = compile_kernel(fresh_cache_dispatcher(kernel), name)
        build = _kernel_builder(name, kernel, opts, vcs, adaptive, random_choices, iparams)
    elif not callable(build):
        raise TypeError(f"routing {name!r}: build must be callable, got {build!r}")
    entry = RoutingEntry(name=name, summary=summary, source=source, options=opts, build=build, builtin=_builtin,
                         validate=(kernel is not None) if validate is None else bool(validate))  # fmt: skip
    entries[name] = entry
    return entry


def unregister_routing(name: str, *, registry: RoutingRegistry | None = None) -> None:
    """Remove a user entry (built-in entries stay).

    >>> unregister_routing("ecube")
    Traceback (most recent call last):
    ...
    ValueError: 'ecube' is a built-in routing and cannot be removed
    """
    entry = routing_entry(name, registry=registry)
    if entry.builtin:
        raise ValueError(f"{name!r} is a built-in routing and cannot be removed")
    del _registry(registry).entries[name]


def routing_entry(name: str, *, registry: RoutingRegistry | None = None) -> RoutingEntry:
    """The entry called ``name``; ValueError listing every registered name if there is none.

    >>> routing_entry("pfnf").source.split(" (")[0]
    'Upadhyay, Varavithya & Mohapatra, Section 4'
    """
    return _entry(name, "name", _registry(registry))


def _entry(name: object, param: str, registry: RoutingRegistry) -> RoutingEntry:
    """The entry called ``name``; the ValueError names the parameter ``param`` and every registered name."""
    entries = registry.entries
    entry = entries.get(name) if isinstance(name, str) else None
    if entry is None:
        raise ValueError(f"{param}: unknown routing {name!r}{did_you_mean(name, entries)}; registered routings: "
                         f"{', '.join(sorted(entries))}")
    return entry


def routing_entries(*, registry: RoutingRegistry | None = None) -> list[RoutingEntry]:
    """Every registered entry, built-ins first, each group by name.

    >>> [e.name for e in routing_entries() if e.builtin]
    ['booksim-min-adapt', 'direction-first', 'duato', 'ecube', 'pfnf', 'turn-model', 'west-first']
    """
    return sorted(_registry(registry).entries.values(), key=lambda e: (not e.builtin, e.name))


def routing_table(*, registry: RoutingRegistry | None = None):
    """One row per (entry, option): name, source, option, default, allowed values, what it does (a DataFrame).

    >>> t = routing_table()
    >>> t[t.routing == "ecube"].option.tolist()
    ['datelines', 'vcs', 'tie', 'dateline_rule', 'variant']
    """
    import pandas as pd

    rows = []
    for e in routing_entries(registry=registry):
        for o in e.options or (Option("-", "", default=""),):
            rows.append(dict(routing=e.name, builtin=e.builtin, source=e.source, summary=e.summary, option=o.name,
                             default=o.default, allowed=o.allowed() if o.name != "-" else "", doc=o.doc))  # fmt: skip
    return pd.DataFrame(rows)


def normalize_spec(spec: str | Mapping[str, Any], *, registry: RoutingRegistry | None = None) -> dict[str, Any]:
    """The complete spec ``{"name": ..., every option: value}`` of ``spec``, checked against its entry.

    Examples
    --------
    >>> normalize_spec({"name": "west-first", "vcs": 2})
    {'name': 'west-first', 'misroute': 'y', 'vcs': 2}
    >>> normalize_spec("nope")
    Traceback (most recent call last):
    ...
    ValueError: spec: unknown routing 'nope'; registered routings: booksim-min-adapt, direction-first, ...-first
    """
    if isinstance(spec, str):
        name, given = spec, {}
    elif isinstance(spec, Mapping):
        if "name" not in spec:
            raise ValueError(f"a routing spec mapping needs a 'name' key, got {dict(spec)!r}")
        given = {k: v for k, v in spec.items() if k != "name"}
        name = spec["name"]
    else:
        raise TypeError(f"a routing spec is a name or a mapping with 'name' and options, got {spec!r}")
    entry = _entry(name, "spec", _registry(registry))
    out = {"name": entry.name, **entry.defaults()}
    for key, value in given.items():
        out[key] = entry.option(key).check(entry.name, value)
    return out


def make_routing(
    spec: str | Mapping[str, Any],
    topology: Torus,
    *,
    faults: Faults | None = None,
    validate: bool | None = None,
    validation_cpu_limit: float | None = VALIDATION_CPU_LIMIT,
    registry: RoutingRegistry | None = None,
) -> RoutingFunction:
    """Build the routing function ``spec`` names on ``topology`` (minus ``faults``).

    Parameters
    ----------
    spec : str or mapping
        A registry name, or ``{"name": ..., option: value, ...}`` (missing options take their defaults).
    topology : Torus or Mesh
    faults : Faults, optional
    validate : bool, optional
        Run :func:`~torus_lab.routing.explore.validate_routing` on the result (default: the entry's rule,
        on for registered kernels).
    validation_cpu_limit : float or None
        CPU seconds the validation of a registered (not built-in) routing may use.  It runs in a forked child
        process (``validate_routing(..., cpu_limit=...)``), so that a kernel that never returns is refused with
        the call it did not return from (node, destination, arrival, header state, rand) instead of hanging this
        process.  None: validate in this process, unbounded.  Built-in routings are always validated in this
        process (their kernels are known to return).
    registry : RoutingRegistry, optional
        Where ``spec``'s name is looked up (default: the process's :data:`REGISTRY`).

    Returns
    -------
    RoutingFunction
        With ``spec`` set to the complete spec it was built from.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> make_routing({"name": "turn-model", "algorithm": "west-first"}, Torus(2, 4)).name
    'west-first'
    """
    full = normalize_spec(spec, registry=registry)
    entry = _registry(registry).entries[full["name"]]
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    if faults is not None:
        check_instance("faults", faults, Faults).validate(topology)
    if validate is not None:
        check_instance("validate", validate, (bool, np.bool_), "a bool or None")
    if validation_cpu_limit is not None:
        validation_cpu_limit = check_cpu_limit("validation_cpu_limit", validation_cpu_limit)
    options = {k: v for k, v in full.items() if k != "name"}
    rf = entry.build(topology, faults=faults, **options)
    if not isinstance(rf, RoutingFunction):
        raise TypeError(f"routing {entry.name!r}: its build function returned {rf!r}, not a RoutingFunction")
    rf.spec = full
    if entry.validate if validate is None else validate:
        validate_routing(rf, cpu_limit=None if entry.builtin else validation_cpu_limit)
    return rf


def export_user_entries(*, registry: RoutingRegistry | None = None) -> bytes | None:
    """The user-registered entries, serialised for a worker process (None when there are none)."""
    user = [e for e in _registry(registry).entries.values() if not e.builtin]
    if not user:
        return None
    import cloudpickle

    return cloudpickle.dumps(user)


def user_entries_digest(*, registry: RoutingRegistry | None = None) -> str | None:
    """A digest of the user-registered entries that is stable across processes (None when there are none):
    their names, options and the code their builders depend on (``torus_lab._jit.dependency_digest``
    follows the kernel through the builder's closure).  Part of the sweep cache key.

    Examples
    --------
    >>> user_entries_digest() is None  # only built-in routings registered
    True
    """
    import hashlib

    from torus_lab._jit import dependency_digest

    user = sorted((e for e in _registry(registry).entries.values() if not e.builtin), key=lambda e: e.name)
    if not user:
        return None
    digest = hashlib.sha256()
    for entry in user:
        digest.update(repr((entry.name, entry.summary, entry.options, entry.validate)).encode())
        digest.update(dependency_digest(entry.build).encode())
    return digest.hexdigest()


def import_user_entries(blob: bytes | None, *, registry: RoutingRegistry | None = None) -> None:
    """Register in this process the entries of :func:`export_user_entries` that it does not have yet."""
    if blob is None:
        return
    import pickle

    check_instance("blob", blob, bytes, "bytes from export_user_entries() or None")
    try:
        entries = pickle.loads(blob)
    except Exception as err:  # any unpickling failure: not a blob export_user_entries() wrote
        raise ValueError(f"blob is not a blob of routing entries ({type(err).__name__}: {err})") from None
    if not isinstance(entries, list) or not all(isinstance(e, RoutingEntry) for e in entries):
        raise ValueError(f"blob does not hold a list of routing entries, got {type(entries).__name__}")
    target = _registry(registry).entries
    for entry in entries:
        if entry.name not in target:
            target[entry.name] = entry


def _worker_setup() -> WorkerSetup | None:
    """The routings registered at run time, for the workers of a sweep (:mod:`torus_lab.hooks`)."""
    blob = export_user_entries()
    return None if blob is None else WorkerSetup(import_user_entries, blob, user_entries_digest())


HOOKS.add_worker_setup("routing registry", _worker_setup)
