"""The routing-function interface shared by the wormhole simulator and the channel-dependency-graph tool.

A routing function maps

    (current node, destination, input channel, input VC, header state, random word)
        -> candidate outputs [(channel id, VC, header state after that hop), ...]

in order of preference.  Deterministic algorithms return the VCs of one channel; adaptive ones return
several channels.  An empty list means "no permitted output" (for example every allowed link is faulty);
what happens then is the caller's policy (the simulator waits and may drop, see :func:`torus_lab.sim.simulate`).
The caller handles delivery: a routing function is never asked to route at the destination.

Every algorithm is one numba ``@njit`` kernel with the signature :data:`KERNEL_SIGNATURE` (numba type
:data:`KERNEL_TYPE`).  A :class:`RoutingFunction` carries its kernel; the simulator's cycle loop and the
CDG tool receive that kernel *as an argument* (a numba first-class function, see :func:`compile_for_kernel`),
and :meth:`RoutingFunction.candidates` calls the same compiled kernel from Python, so the simulated routes
and the routes seen by tests and by the CDG tool cannot drift apart.  Nothing in the routing layer knows
the simulator: a new algorithm is a new kernel, registered with :mod:`torus_lab.routing.registry`.

Header state is a fixed-size ``int64`` vector of :data:`STATE_SIZE` slots, zero at injection; each algorithm
documents its layout (e.g. dateline bits, phase ``(x, y)``, virtual network).  The random word lets an
algorithm make a seeded random choice (``rand % m``); the enumerators below try every
``rand in range(topology.n)`` so that path-form CDGs cover all random choices.

Examples
--------
>>> from torus_lab.topology import Torus
>>> from torus_lab.routing.ecube import ecube_routing
>>> r = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
>>> [(c.channel, c.vc) for c in r.candidates((0, 0), (3, 0))]   # minimal way is the wrap 0 -> 3 along -
[(0, 1)]
>>> r.route((0, 0), (2, 1))
[(0, 0), (1, 0), (2, 0), (2, 1)]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import types
from numba.experimental import structref

from torus_lab._jit import njit as _jit_njit
from torus_lab._memory import check_memory, network_size
from torus_lab._validate import check_instance, check_int, check_int_array, check_sequence, check_str, is_int
from torus_lab.topology import Faults, Torus

__all__ = [
    "STATE_SIZE",
    "MAX_CANDIDATES",
    "NUM_IPARAMS",
    "Tables",
    "TABLES_TYPE",
    "TABLE_FIELDS",
    "TablesType",
    "Candidate",
    "RoutingFunction",
    "build_tables",
    "KERNEL_SIGNATURE",
    "KERNEL_SIG",
    "KERNEL_TYPE",
    "compile_kernel",
    "compile_for_kernel",
    "kernel_handle",
]

#: Slots of the per-packet header state vector (int64).
STATE_SIZE = 8
#: Largest number of candidates a kernel may return (checked when a routing function is built).
MAX_CANDIDATES = 32
#: Length of the integer parameter vector ``Tables.iparams`` (meaning defined by each algorithm).
NUM_IPARAMS = 8

#: Documentation of the kernel signature every algorithm implements.
KERNEL_SIGNATURE = (
    "kernel(tables: Tables, cur: int64, dst: int64, in_ch: int64 (-1 at injection), in_vc: int64, "
    "state: int64[STATE_SIZE], rand: int64 (>= 0), out_ch: int64[MAX_CANDIDATES], out_vc: int64[MAX_CANDIDATES], "
    "out_state: int64[MAX_CANDIDATES, STATE_SIZE]) -> int64 number of candidates written"
)

#: Names of the twelve int64 vectors of :class:`Tables`, in order.
TABLE_FIELDS = (
    "radices", "strides", "slot", "ch_src", "ch_dst", "ch_dim", "ch_sign", "ch_wrap", "ch_ok", "kind", "iparams",
    "coords",
)  # fmt: skip


class TablesType(types.StructRef):
    """numba type of :class:`Tables`: a reference to one struct of twelve int64 vectors (see :data:`TABLES_TYPE`)."""

    def preprocess_fields(self, fields):
        """The fields with literal types widened (numba calls this when it builds the type)."""
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


def _register_tables_type() -> None:
    """Register :class:`TablesType` with numba: data model, attribute typing, reads and writes.

    numba's ``structref.register`` reads a field through the reference-counting runtime, so a kernel compiled
    without it (``torus_lab._jit.njit(refcount=False)``, as the built-in kernels are) could not read its tables.
    Here a read loads the payload pointer from the struct's memory-info block (its fourth word, numba's
    ``NRT_MemInfo`` layout, which the runtime's own ``NRT_MemInfo_data_fast`` reads) and increments the field's
    reference count only where reference counting is on; writes (only in :func:`_new_tables`) count as numba's do.
    """
    from llvmlite import ir
    from numba.core import cgutils, imputils
    from numba.core.datamodel import default_manager, models
    from numba.core.extending import lower_getattr_generic, lower_setattr_generic
    from numba.core.typing.templates import AttributeTemplate, infer_getattr

    default_manager.register(TablesType, models.StructRefModel)

    @infer_getattr
    class _TablesAttribute(AttributeTemplate):
        key = TablesType

        def generic_resolve(self, typ, attr):
            return typ.field_dict.get(attr)

    def payload(context, builder, typ, value):
        meminfo = cgutils.create_struct_proxy(typ)(context, builder, value=value).meminfo
        words = builder.bitcast(meminfo, ir.IntType(8).as_pointer().as_pointer())
        data = builder.load(builder.gep(words, [ir.Constant(ir.IntType(32), 3)], inbounds=True))
        data_type = context.data_model_manager[typ.get_data_type()].get_value_type()
        return context.make_data_helper(builder, typ.get_data_type(), ref=builder.bitcast(data, data_type.as_pointer()))

    @lower_getattr_generic(TablesType)
    def _read(context, builder, typ, value, attr):
        return imputils.impl_ret_borrowed(context, builder, typ.field_dict[attr],
                                          getattr(payload(context, builder, typ, value), attr))  # fmt: skip

    @lower_setattr_generic(TablesType)
    def _write(context, builder, sig, args, attr):
        typ, value_type = sig.args
        instance, value = args
        fields = payload(context, builder, typ, instance)
        new = context.cast(builder, value, value_type, typ.field_dict[attr])
        context.nrt.incref(builder, value_type, new)
        context.nrt.decref(builder, value_type, getattr(fields, attr))
        setattr(fields, attr, new)


_register_tables_type()


#: numba type of :class:`Tables` (twelve C-contiguous int64 vectors, passed to a kernel as one pointer).
TABLES_TYPE = TablesType([(name, types.int64[::1]) for name in TABLE_FIELDS])


class Tables(structref.StructRefProxy):
    """Flat, numba-friendly topology and algorithm tables (one type for every algorithm).

    radices, strides : int64[n]; slot : int64[N*n*2], channel id of ``(node, dim, sign)`` at
    ``(node*n + dim)*2 + (sign > 0)`` or -1; ch_src, ch_dst, ch_dim, ch_sign : int64[C];
    ch_wrap : int64[C], 1 for a wraparound channel; ch_ok : int64[C], 0 for a faulty channel or one touching a
    faulty node; kind : int64[2] = (wraparound, bidirectional); iparams : int64[NUM_IPARAMS], algorithm options;
    coords : int64[N*n], coordinate ``dim`` of ``node`` at ``node*n + dim`` (a table read: the same value as
    ``(node // strides[dim]) % radices[dim]`` without two integer divisions, which cost most of a kernel's time).

    A kernel reads the vectors as attributes (``tables.coords[v * n + d]``).  The tables reach a kernel as one
    pointer to a struct holding the twelve vectors (numba's ``StructRef``): passed as a tuple of twelve arrays,
    they were copied into about a hundred machine words at every kernel call, half the cost of routing one head
    with e-cube.  In Python the vectors are numpy arrays sharing the struct's memory; the tables pickle by their
    vectors and behave like the named tuple they replace (``_fields``, ``_asdict``, ``_replace``, iteration).

    Examples
    --------
    >>> t = Tables(*[np.arange(2, dtype=np.int64) for _ in TABLE_FIELDS])
    >>> t._fields[-1], t.coords.tolist(), len(list(t))
    ('coords', [0, 1], 12)
    """

    _fields = TABLE_FIELDS

    def __new__(cls, radices, strides, slot, ch_src, ch_dst, ch_dim, ch_sign, ch_wrap, ch_ok, kind, iparams,
                coords) -> Tables:  # fmt: skip
        given = (radices, strides, slot, ch_src, ch_dst, ch_dim, ch_sign, ch_wrap, ch_ok, kind, iparams, coords)
        vectors = tuple(_table_vector(name, value) for name, value in zip(TABLE_FIELDS, given, strict=True))
        tables = _new_tables(*vectors)
        tables._vectors = vectors
        return tables

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter(self._vectors)

    def __len__(self) -> int:
        return len(TABLE_FIELDS)

    def __reduce__(self):
        return (Tables, self._vectors)

    def __repr__(self) -> str:
        return f"Tables({', '.join(f'{name}=<{len(v)}>' for name, v in zip(TABLE_FIELDS, self._vectors, strict=True))})"

    def _asdict(self) -> dict[str, np.ndarray]:
        return dict(zip(TABLE_FIELDS, self._vectors, strict=True))

    def _replace(self, **changes) -> Tables:
        return Tables(**(self._asdict() | changes))


for _position, _name in enumerate(TABLE_FIELDS):
    setattr(Tables, _name, property(lambda self, i=_position: self._vectors[i], doc=f"``{_name}`` (int64 vector)"))
structref.define_boxing(TablesType, Tables)


@_jit_njit
def _new_tables(radices, strides, slot, ch_src, ch_dst, ch_dim, ch_sign, ch_wrap, ch_ok, kind, iparams, coords):
    """A :class:`Tables` struct holding the twelve vectors (compiled once, cached)."""
    tables = structref.new(TABLES_TYPE)
    tables.radices = radices
    tables.strides = strides
    tables.slot = slot
    tables.ch_src = ch_src
    tables.ch_dst = ch_dst
    tables.ch_dim = ch_dim
    tables.ch_sign = ch_sign
    tables.ch_wrap = ch_wrap
    tables.ch_ok = ch_ok
    tables.kind = kind
    tables.iparams = iparams
    tables.coords = coords
    return tables


_I64 = types.int64
#: numba signature every routing kernel is compiled for (see :data:`KERNEL_SIGNATURE`).
KERNEL_SIG = _I64(TABLES_TYPE, _I64, _I64, _I64, _I64, _I64[::1], _I64, _I64[::1], _I64[::1], _I64[:, ::1])
#: numba first-class function type of a compiled routing kernel: how the simulator and the CDG tool receive it.
KERNEL_TYPE = types.FunctionType(KERNEL_SIG)


def compile_kernel(kernel, name: str):
    """Compile ``kernel`` for :data:`KERNEL_SIG` (from numba's cache when fresh); errors name the algorithm.

    Examples
    --------
    >>> from torus_lab.routing.ecube import ecube_kernel
    >>> compile_kernel(ecube_kernel, "ecube") is ecube_kernel
    True
    """
    from numba.core.errors import NumbaError

    from torus_lab._jit import is_dispatcher

    if not is_dispatcher(kernel):
        raise TypeError(f"routing {name!r}: kernel must be a numba @njit function, got {kernel!r}")
    try:
        kernel.compile(KERNEL_SIG.args)
    except (NumbaError, TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TypeError(
            f"routing {name!r}: kernel {kernel.py_func.__name__} does not compile for the kernel signature "
            f"{KERNEL_SIGNATURE}: {first}"
        ) from exc
    return kernel


def kernel_handle(kernel):
    """``kernel`` as the value a runner of :func:`compile_for_kernel` receives, its machine-code address found once.

    Passing a dispatcher makes numba look up its compiled version and that version's address at every call
    from Python (about 30 us: a tenth of a short simulation, most of a small state exploration).  The handle,
    numba's wrapper of the compiled version (``CompileResultWAP``), carries the address.  A kernel not compiled
    for exactly :data:`KERNEL_SIG` (say, one returning another integer type), or anything but a numba dispatcher
    (a ``cfunc``, a wrong value), is returned as it is, for numba to convert or refuse as before.  Per process,
    like ``_kernel_entry``.

    Examples
    --------
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> r = ecube_routing(Torus(2, 4))
    >>> handle = kernel_handle(r.kernel)
    >>> handle.signature() == KERNEL_SIG, kernel_handle(r.kernel) is handle
    (True, True)
    """
    from torus_lab._jit import is_dispatcher

    return _kernel_handle(kernel) if is_dispatcher(kernel) else kernel


@functools.cache
def _kernel_handle(kernel):
    from numba.core.types.function_type import CompileResultWAP

    result = kernel.overloads.get(KERNEL_SIG.args)
    if result is None or result.signature != KERNEL_SIG:
        return kernel
    return CompileResultWAP(result)


@functools.cache
def _kernel_entry(kernel) -> Callable:
    """The machine code of ``kernel`` compiled for :data:`KERNEL_SIG` (:func:`compile_kernel` compiled it), called
    without the dispatcher's argument typing (a tenth of the cost of a call from Python; the same code runs).

    Only for arguments of exactly that signature: :meth:`RoutingFunction._candidate_tuples` calls it with its own
    tables and output arrays, whose numba types it checked once.  Per process (a compiled entry does not pickle).
    """
    return kernel.get_overload(KERNEL_SIG)


def compile_for_kernel(runner, args: Sequence, position: int = 0):
    """Compile ``runner`` (an ``@njit`` function taking a routing kernel at ``position``) once per process.

    The kernel argument is typed :data:`KERNEL_TYPE`, so one machine-code version (cached on disk) serves
    every algorithm, built in or registered at run time, and the runner never embeds a kernel that could go
    stale.  After this call ``runner`` accepts any compiled kernel without compiling again.

    Examples
    --------
    >>> from torus_lab._jit import njit
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> @njit
    ... def first_channel(kernel, tables, cur, dst):
    ...     out_ch = np.zeros(MAX_CANDIDATES, np.int64)
    ...     out_vc = np.zeros(MAX_CANDIDATES, np.int64)
    ...     out_st = np.zeros((MAX_CANDIDATES, STATE_SIZE), np.int64)
    ...     m = kernel(tables, cur, dst, -1, 0, np.zeros(STATE_SIZE, np.int64), 0, out_ch, out_vc, out_st)
    ...     return out_ch[0] if m > 0 else -1
    >>> r = ecube_routing(Torus(2, 4))
    >>> args = (r.kernel, r.tables, 0, 1)
    >>> runner = compile_for_kernel(first_channel, args)
    >>> int(runner(*args)) == r.topology.channel_id((0, 0), 0, 1)
    True
    """
    from numba import typeof

    from torus_lab._jit import is_dispatcher

    if not is_dispatcher(runner):
        raise TypeError(f"runner must be an @njit function, got {runner!r}")
    if runner.signatures:  # compiled already (the arguments matter only for that)
        return runner
    args = check_sequence("args", args)
    position = check_int("position", position, 0, max(len(args) - 1, 0))
    sig = tuple(KERNEL_TYPE if i == position else typeof(a) for i, a in enumerate(args))
    runner.compile(sig)
    runner.disable_compile()
    return runner


def build_tables(topology: Torus, faults: Faults | None, iparams: Sequence[int]) -> Tables:
    """Flatten ``topology`` (minus ``faults``) and the algorithm's integer options into :data:`Tables`.

    Raises
    ------
    torus_lab._memory.MemoryLimitError
        Before anything is allocated, when ``_tables_memory_estimate`` exceeds the memory limit
        (``TORUS_LAB_MEMORY_LIMIT``, default half the available memory).

    Examples
    --------
    >>> t = build_tables(Torus(2, 4), None, [0, 1])
    >>> int(t.ch_ok.sum()), int(t.ch_wrap.sum()), t.iparams.shape
    (64, 16, (8,))
    """
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    if faults is not None and not isinstance(faults, Faults):
        raise TypeError(f"faults must be a Faults or None, got {faults!r}")
    iparams = check_int_array("iparams", iparams, -(2**63), 2**63 - 1, ndim=1)
    if len(iparams) > NUM_IPARAMS:
        raise ValueError(f"iparams has {len(iparams)} entries, at most {NUM_IPARAMS} allowed")
    params = np.zeros(NUM_IPARAMS, dtype=np.int64)
    params[: len(iparams)] = iparams.astype(np.int64)
    check_memory(_tables_memory_estimate(topology), f"routing tables of {network_size(topology)}")
    ok = np.ones(topology.num_channels, dtype=np.int64)
    if faults is not None:
        faults.validate(topology)
        ok[faults.link_mask(topology)] = 0
        bad_node = faults.node_mask(topology)
        ok[bad_node[topology.channel_src] | bad_node[topology.channel_dst]] = 0
    wrap = topology.wraparound_mask().astype(np.int64)
    vec = _int64_vector
    return Tables(
        radices=vec(topology.radices),
        strides=vec(topology.strides),
        slot=vec(topology._channel_slot),
        ch_src=vec(topology.channel_src),
        ch_dst=vec(topology.channel_dst),
        ch_dim=vec(topology.channel_dim),
        ch_sign=vec(topology.channel_sign),
        ch_wrap=vec(wrap),
        ch_ok=vec(ok),
        kind=vec([int(topology.wraparound), int(topology.bidirectional)]),
        iparams=vec(params),
        coords=vec(topology.all_coords()),
    )


def _tables_memory_estimate(topology: Torus) -> int:
    """Peak bytes of :func:`build_tables`, known before the channel table exists.

    With ``S = num_nodes * n * 2`` channel slots (an upper bound on the channels): the :data:`Tables` copies
    (slot and six per-channel int64 arrays) and the per-channel wraparound list, ``8 S x 8``, the coordinate
    table and its temporary, ``8 S``, plus the topology's own channel table and its temporaries, ``8 S x 12``,
    when it is not built yet.

    Examples
    --------
    >>> _tables_memory_estimate(Torus(2, 4)) == 8 * 64 * 21
    True
    """
    slots = topology.num_nodes * topology.n * 2
    return 8 * slots * (9 + (12 if topology._channels is None else 0))


def _table_vector(name: str, values) -> np.ndarray:
    """``values`` as a :class:`Tables` vector: int64, one-dimensional, C-contiguous and writable (the layout
    :data:`TABLES_TYPE` names), copied only if it is not so already; errors name the vector."""
    checked = check_int_array(name, values, ndim=1)
    if checked.dtype.kind == "u":  # only unsigned values can exceed int64 (a signed vector needs no range pass)
        checked = check_int_array(name, checked, maximum=2**63 - 1)
    return np.require(checked, np.int64, ["C", "W"])


def _int64_vector(values) -> np.ndarray:
    """A fresh, writable, C-contiguous int64 copy (the layout :data:`TABLES_TYPE` names)."""
    return np.array(values, dtype=np.int64, copy=True).reshape(-1)


@dataclass(frozen=True)
class Candidate:
    """One permitted output: channel id, virtual channel and the header state after taking that hop."""

    channel: int
    vc: int
    state: tuple[int, ...]


@dataclass(eq=False)
class RoutingFunction:
    """A routing algorithm bound to a topology, its faults and its options.

    Parameters
    ----------
    name : str
        Human-readable name, e.g. ``"ecube+dateline"``.
    kernel : numba dispatcher
        The ``@njit`` kernel (signature :data:`KERNEL_SIGNATURE`), compiled for :data:`KERNEL_SIG` when the
        routing function is built.
    topology : Torus
    faults : Faults or None
    tables : Tables
    num_vcs : int
        Virtual channels per physical channel that the algorithm uses (the simulator allocates this many).
    adaptive : bool
        Whether the kernel can return more than one physical channel.
    random_choices : int
        How many values of ``rand % m`` matter; enumerators try ``rand in range(random_choices)``.
    options : dict
        The options the routing function was built with (for provenance).
    spec : dict or None
        The registry entry and options it was built from (``{"name": ..., **options}``), when built through
        :func:`torus_lab.routing.registry.make_routing`.
    """

    name: str
    kernel: Callable
    topology: Torus
    faults: Faults | None
    tables: Tables
    num_vcs: int
    adaptive: bool
    random_choices: int = 1
    options: dict = field(default_factory=dict)
    spec: dict | None = None

    def __post_init__(self) -> None:
        check_str("name", self.name)
        if not callable(self.kernel):
            raise TypeError(f"kernel must be a compiled routing kernel, got {self.kernel!r}")
        check_instance("topology", self.topology, Torus, "a Torus or Mesh")
        if self.faults is not None:
            check_instance("faults", self.faults, Faults).validate(self.topology)
        check_instance("tables", self.tables, Tables, "Tables (from build_tables)")
        self.num_vcs = check_int("num_vcs", self.num_vcs)
        if not (is_int(self.adaptive) or isinstance(self.adaptive, (bool, np.bool_))):
            raise TypeError(f"adaptive must be a bool, got {self.adaptive!r}")
        self.random_choices = check_int("random_choices", self.random_choices, minimum=1)
        check_instance("options", self.options, Mapping, "a mapping")
        if self.spec is not None:
            check_instance("spec", self.spec, Mapping, "a mapping or None")
        if self.num_vcs < 1:
            raise ValueError(f"num_vcs must be >= 1, got {self.num_vcs}")
        if 2 * self.topology.n * self.num_vcs > MAX_CANDIDATES:
            raise ValueError(
                f"2 * n * vcs = {2 * self.topology.n * self.num_vcs} exceeds MAX_CANDIDATES = {MAX_CANDIDATES}"
            )
        compile_kernel(self.kernel, self.name)
        self._out_ch = np.zeros(MAX_CANDIDATES, dtype=np.int64)
        self._out_vc = np.zeros(MAX_CANDIDATES, dtype=np.int64)
        self._out_state = np.zeros((MAX_CANDIDATES, STATE_SIZE), dtype=np.int64)
        # the kernel, tables and outputs _candidate_tuples may call through _kernel_entry (the signature's types:
        # a Tables always has TABLES_TYPE)
        self._typed = (self.kernel, self.tables, self._out_ch, self._out_vc, self._out_state)

    def __repr__(self) -> str:
        return f"RoutingFunction({self.name!r}, {self.topology!r}, vcs={self.num_vcs})"

    # ------------------------------------------------------------------ single decisions
    def initial_state(self) -> tuple[int, ...]:
        """Header state at injection (all zeros)."""
        return (0,) * STATE_SIZE

    def _node_id(self, node) -> int:
        if is_int(node):
            if not 0 <= node < self.topology.num_nodes:
                raise ValueError(f"node id {node} out of range 0..{self.topology.num_nodes - 1}")
            return int(node)
        return int(self.topology.node_id(node))

    def candidates(
        self,
        node,
        dst,
        in_channel: int | None = None,
        in_vc: int = 0,
        state: Sequence[int] | None = None,
        rand: int = 0,
    ) -> list[Candidate]:
        """Permitted outputs at ``node`` for a packet to ``dst`` (same kernel as the simulator).

        Parameters
        ----------
        node, dst : node tuple or node id
        in_channel : channel id the header arrived on, or None at injection
        in_vc : VC it arrived on
        state : header state (defaults to :meth:`initial_state`)
        rand : non-negative random word for algorithms with random choices
        """
        cur, dest = self._node_id(node), self._node_id(dst)
        if cur == dest:
            raise ValueError(f"node {node} is the destination; routing functions are not asked to route there")
        in_ch = -1 if in_channel is None else int(in_channel)
        if not -1 <= in_ch < self.topology.num_channels:
            raise ValueError(f"in_channel {in_channel} out of range")
        st = np.asarray(self.initial_state() if state is None else state, dtype=np.int64)
        if st.shape != (STATE_SIZE,):
            raise ValueError(f"state must have {STATE_SIZE} entries, got {st.shape}")
        if rand < 0:
            raise ValueError(f"rand must be >= 0, got {rand}")
        return [Candidate(*found) for found in self._candidate_tuples(cur, dest, in_ch, int(in_vc), st, int(rand))]

    def _candidate_tuples(self, cur: int, dest: int, in_ch: int, in_vc: int, state,
                          rand: int) -> list[tuple[int, int, tuple[int, ...]]]:  # fmt: skip
        """:meth:`candidates` as ``(channel, vc, state)`` tuples, for arguments already checked: node ids ``cur !=
        dest``, ``-1 <= in_ch < num_channels`` (-1 at injection), ``state`` of ``STATE_SIZE`` ints, ``rand >= 0``
        (the route walkers' inner loop, whose arguments come from checked ones and from the kernel's outputs)."""
        state = np.ascontiguousarray(state, dtype=np.int64)
        typed = getattr(self, "_typed", None)  # None on an instance unpickled from before it existed
        if (typed is not None and typed[0] is self.kernel and typed[1] is self.tables and typed[2] is self._out_ch
                and typed[3] is self._out_vc and typed[4] is self._out_state and state.shape == (STATE_SIZE,)
                and state.flags.aligned):  # fmt: skip
            kernel = _kernel_entry(self.kernel)
        else:  # something replaced since: the dispatcher types the arguments
            kernel = self.kernel
        count = int(kernel(self.tables, cur, dest, in_ch, in_vc, state, rand, self._out_ch, self._out_vc,
                           self._out_state))  # fmt: skip
        if not 0 <= count <= MAX_CANDIDATES:
            raise ValueError(f"routing {self.name!r} returned {count} candidates at node {cur} for destination "
                             f"{dest} (allowed 0..{MAX_CANDIDATES})")  # fmt: skip
        return [
            (channel, vc, tuple(state_after))
            for channel, vc, state_after in zip(self._out_ch[:count].tolist(), self._out_vc[:count].tolist(),
                                                self._out_state[:count].tolist(), strict=True)  # fmt: skip
        ]

    # ------------------------------------------------------------------ whole routes
    def route_hops(
        self, src, dst, *, choose: Callable[[list[Candidate]], Candidate] | None = None, rand: int = 0, max_hops=None
    ) -> list[tuple[int, int]] | None:
        """Follow one route from ``src`` to ``dst`` as a list of ``(channel, vc)``; None if it gets stuck.

        ``choose`` picks among candidates (default: the first, i.e. the kernel's preferred one).
        """
        cur, dest = self._node_id(src), self._node_id(dst)
        limit = max_hops if max_hops is not None else 4 * self.topology.num_nodes
        state: tuple[int, ...] = self.initial_state()
        in_ch, in_vc = None, 0
        hops: list[tuple[int, int]] = []
        channel_dst = self.topology.channel_dst
        while cur != dest:
            if len(hops) >= limit:
                return None
            if hops:  # later hops: the arguments are the checked ones and the kernel's outputs
                cands = [Candidate(*found) for found in self._candidate_tuples(cur, dest, in_ch, in_vc, state, rand)]
            else:  # checks rand (and the rest) once, as every call did
                cands = self.candidates(cur, dest, in_ch, in_vc, state, rand)
            if not cands:
                return None
            pick = cands[0] if choose is None else choose(cands)
            hops.append((pick.channel, pick.vc))
            in_ch, in_vc, state = pick.channel, pick.vc, pick.state
            cur = int(channel_dst[pick.channel])
        return hops

    def route(self, src, dst, **kwargs) -> list[tuple[int, ...]] | None:
        """The node sequence of :meth:`route_hops` (coordinate tuples, source first)."""
        hops = self.route_hops(src, dst, **kwargs)
        return None if hops is None else self.hops_to_nodes(src, hops)

    def hops_to_nodes(self, src, hops: Sequence[tuple[int, int]]) -> list[tuple[int, ...]]:
        """Node sequence (coordinate tuples) of a route given as ``(channel, vc)`` hops from ``src``."""
        nodes = [self.topology.coords(self._node_id(src))]
        channels = [c for c, _ in hops if c >= 0]  # indexes as before: a non-integer id is an IndexError
        reached = self.topology.channel_dst[np.asarray(channels)] if channels else np.zeros(0, dtype=np.int64)
        nodes += [tuple(node) for node in self.topology.coords(reached).tolist()]
        return nodes

    def enumerate_routes(self, src, dst, *, max_hops: int | None = None) -> Iterator[list[tuple[int, int]]]:
        """Every route over all adaptive and random choices, as lists of ``(channel, vc)``.

        Routes that get stuck (no candidate) or exceed ``max_hops`` (default ``4 * diameter + 4``) are
        yielded with a final ``(-1, -1)`` marker so callers can count them.
        """
        cur0, dest = self._node_id(src), self._node_id(dst)
        limit = max_hops if max_hops is not None else 4 * self.topology.diameter + 4
        stack = [(cur0, -1, 0, self.initial_state(), ())]
        channel_dst = self.topology.channel_dst
        while stack:
            cur, in_ch, in_vc, state, hops = stack.pop()
            if cur == dest:
                yield list(hops)
                continue
            if len(hops) >= limit:
                yield list(hops) + [(-1, -1)]
                continue
            seen: set[tuple] = set()
            for rand in range(self.random_choices):
                seen.update(self._candidate_tuples(cur, dest, in_ch, in_vc, state, rand))
            if not seen:
                yield list(hops) + [(-1, -1)]
            for ch, vc, st in sorted(seen, reverse=True):
                stack.append((int(channel_dst[ch]), ch, vc, st, hops + ((ch, vc),)))
