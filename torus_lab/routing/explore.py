"""Reachable routing states of a routing function, and the check every registered kernel must pass.

One compiled search serves two masters: the channel-dependency-graph tool (:mod:`torus_lab.deadlock` builds
its graphs from the transitions found here) and :func:`validate_routing`, which refuses a kernel whose
output is malformed before any simulation or verdict can use it.

A *state* is ``(arrival, input VC, header state)`` where ``arrival`` is the input channel, or ``-1 - source``
at injection.  For one destination, the search starts from an injection at every non-faulty source and
follows every candidate of every random choice (``rand in range(random_choices)``), so it visits exactly the
states some message can be in.  Every candidate is checked on the way: ``0 <= count <= MAX_CANDIDATES``; the
channel exists, leaves the current node and is not faulty; ``0 <= vc < num_vcs``.  Then the *preferred*
route (the first candidate, for every random choice) is followed from every source: a route that comes back
to a state it has been in never ends, and is refused too.

A kernel call that never returns cannot be stopped in compiled code; ``validate_routing(..., cpu_limit=...)`` (what
:func:`~torus_lab.routing.make_routing` uses for registered kernels) therefore runs the check in a forked child
limited in CPU time (``torus_lab._cpu_bounded``), the search writing each call's arguments into a buffer shared
with the parent first, so that a kernel that does not return is refused naming the call.

Examples
--------
>>> from torus_lab.topology import Mesh
>>> from torus_lab.routing.ecube import ecube_routing
>>> g = explore_states(ecube_routing(Mesh(2, 3)), (0, 0))
>>> g.stuck, int((g.state_channel < 0).sum())     # 8 injection states, nobody stuck
(0, 8)
>>> validate_routing(ecube_routing(Mesh(2, 3))).destinations_checked
9
"""

from __future__ import annotations

import functools
import math
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import types

from torus_lab._cpu_bounded import MAX_CPU_LIMIT, check_cpu_limit, fork_available, run_cpu_bounded
from torus_lab._jit import njit
from torus_lab._validate import check_instance, is_int, naming
from torus_lab.routing.interface import (
    KERNEL_SIG,
    MAX_CANDIDATES,
    STATE_SIZE,
    RoutingFunction,
    compile_for_kernel,
    kernel_handle,
)
from torus_lab.topology import minimal_path_counts

if TYPE_CHECKING:  # imported by the one function making a table: the routing package needs no pandas
    import pandas as pd

__all__ = [
    "StateGraph",
    "ValidationReport",
    "RoutingValidationError",
    "explore_states",
    "validate_routing",
    "VALIDATION_MODES",
    "EXHAUSTIVE_NODES",
    "check_routing_function",
    "node_ok",
    "VALIDATION_CPU_LIMIT",
    "MAX_CPU_LIMIT",
    "adaptivity_table",
]

#: How :func:`validate_routing` chooses destinations.
VALIDATION_MODES = ("auto", "exhaustive", "sample")
#: ``mode="auto"`` checks every destination up to this many nodes, a sample above.
EXHAUSTIVE_NODES = 256
#: CPU seconds :func:`~torus_lab.routing.make_routing` lets the validation of a registered kernel use (in a forked
#: child) before refusing it as a kernel that does not return.  Validating a legitimate kernel takes well under a
#: second of CPU on the networks the check explores: 0.4 s for a 3-VC minimal adaptive kernel on the costliest case
#: measured, the exhaustive 4-ary 4-cube (256 destinations, 640,000 states), 0.2 s on 16 x 16 and on 64 x 64 (16
#: sampled destinations).  20 s is fifty times that: a hang, not slow work, and CPU time does not stretch with the
#: machine's load as wall time does.
VALIDATION_CPU_LIMIT = 20.0


# problem codes of the compiled search
_OK, _COUNT, _CHANNEL, _NOT_LEAVING, _FAULTY, _VC, _TOO_MANY_STATES, _LOOP = range(8)
_PROBLEMS = {
    _COUNT: "returned {value} candidates (allowed 0..{max_candidates})",
    _CHANNEL: "returned channel {value}, not a channel id (0..{last_channel})",
    _NOT_LEAVING: "returned channel {value}, which does not leave the current node",
    _FAULTY: "returned channel {value}, which is faulty",
    _VC: "returned VC {value} (allowed 0..{last_vc})",
    _TOO_MANY_STATES: "reaches more than {value} routing states (max_states) for one destination (does its header "
    "state grow without bound?)",
    _LOOP: "has a route that never ends: its preferred candidates lead back to a state it was in "
    "({value} hops round)",
}


@njit
def _record_problem(problem, code, value, state_index, rand, header):
    problem[0] = code
    problem[1] = value
    problem[2] = state_index
    problem[3] = rand
    for s in range(STATE_SIZE):
        problem[4 + s] = header[s]


#: Words of a state's key: arrival, input VC, header state.
_KEY_WORDS = 2 + STATE_SIZE

# The problem record: code, value, state index, rand, header state.  A longer record also receives the kernel call
# in progress (read by a parent process when a bounded validation is killed, see validate_routing): its words from
# _CALL are the call's phase (_CALL_NONE: no call yet, _CALL_RUNNING: called, not returned, _CALL_RETURNED), then
# the arguments cur, dst, in_ch, in_vc, rand and the header state.
_PROBLEM_WORDS = 4 + STATE_SIZE
_CALL = _PROBLEM_WORDS
_CALL_NONE, _CALL_RUNNING, _CALL_RETURNED = range(3)
_WATCHED_WORDS = _CALL + 6 + STATE_SIZE


@njit
def _record_call(problem, cur, dst, in_ch, in_vc, header):
    """Write the state of the kernel calls to come into the call record of ``problem``."""
    problem[_CALL + 1] = cur
    problem[_CALL + 2] = dst
    problem[_CALL + 3] = in_ch
    problem[_CALL + 4] = in_vc
    for s in range(STATE_SIZE):
        problem[_CALL + 6 + s] = header[s]


@njit(inline="always")
def _key_hash(keys, row):
    """Hash of the key in row ``row`` of ``keys`` (splitmix64's mixer folded over its words)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for c in range(_KEY_WORDS):
        h = (h ^ np.uint64(keys[row, c])) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(31)
    return h


@njit(inline="always")
def _same_key(keys, a, b):
    for c in range(_KEY_WORDS):
        if keys[a, c] != keys[b, c]:
            return False
    return True


@njit
def _find_or_slot(keys, slots, row):
    """The position in ``slots`` (open addressing, linear probing; entries are key rows + 1, 0 empty) that holds
    the key equal to row ``row`` of ``keys``, or the empty position where it belongs."""
    mask = slots.shape[0] - 1
    pos = np.int64(_key_hash(keys, row) & np.uint64(mask))
    while slots[pos] != 0 and not _same_key(keys, slots[pos] - 1, row):
        pos = (pos + 1) & mask
    return pos


@njit
def _grown(table, rows):
    """``table`` with at least ``rows`` rows (doubled as needed), its contents kept."""
    if rows <= table.shape[0]:
        return table
    size = table.shape[0]
    while size < rows:
        size *= 2
    bigger = np.empty((size, table.shape[1]), dtype=table.dtype)
    bigger[: table.shape[0]] = table
    return bigger


@njit
def _rehashed(keys, n_keys, size):
    """A slot table of ``size`` positions holding the first ``n_keys`` key rows."""
    slots = np.zeros(size, dtype=np.int64)
    for row in range(n_keys):
        slots[_find_or_slot(keys, slots, row)] = row + 1
    return slots


@njit
def _added(keys, slots, pos, n_keys):
    """The slot table after recording row ``n_keys`` of ``keys`` as a new key at position ``pos`` (rebuilt twice
    as large once it is half full)."""
    slots[pos] = n_keys + 1
    if 2 * (n_keys + 1) > slots.shape[0]:
        return _rehashed(keys, n_keys + 1, 2 * slots.shape[0])
    return slots


@njit
def _explore_dest(kernel, tables, dst, src_ok, rand_choices, max_states, num_vcs, problem):
    """All states reachable for ``dst``; transitions ``(from, to, channel, vc, rand, rank)``.

    ``problem`` (int64[4 + STATE_SIZE]) receives the first malformed output: code, value, state index, rand,
    then the header state; a longer one (int64[_WATCHED_WORDS]) also the kernel call in progress (see _CALL).
    Returns the states' arrival, VC and node, the transitions and the stuck count.
    States are numbered in the order they are found (breadth first); their keys (arrival, VC, header state) are
    rows of one int64 table with an open-addressing index, and transitions rows of another (both doubled as
    they fill), which costs a fraction of numba's typed dictionary and list of tuples.
    """
    keys = np.zeros((64, _KEY_WORDS), dtype=np.int64)
    slots = np.zeros(128, dtype=np.int64)
    n_keys = 0
    for src in range(src_ok.shape[0]):
        if src != dst and src_ok[src]:
            keys = _grown(keys, n_keys + 1)
            keys[n_keys, 0] = -1 - src  # VC and header state 0; distinct sources, so no lookup needed
            keys[n_keys, 1:] = 0
            slots = _added(keys, slots, _find_or_slot(keys, slots, n_keys), n_keys)
            n_keys += 1
    # twice the allowed size, so that a kernel returning too many candidates is caught, not written past
    out_ch = np.zeros(2 * MAX_CANDIDATES, dtype=np.int64)
    out_vc = np.zeros(2 * MAX_CANDIDATES, dtype=np.int64)
    out_state = np.zeros((2 * MAX_CANDIDATES, STATE_SIZE), dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    tr = np.zeros((64, 6), dtype=np.int64)
    n_tr = 0
    num_ch = tables.ch_src.shape[0]
    watched = problem.shape[0] >= _WATCHED_WORDS
    stuck = 0
    i = 0
    while i < n_keys and problem[0] == 0:
        enc = keys[i, 0]
        in_vc = keys[i, 1]
        if enc < 0:
            cur = -1 - enc
            in_ch = -1
        else:
            in_ch = enc
            cur = tables.ch_dst[in_ch]
        if cur == dst:
            i += 1
            continue
        for s in range(STATE_SIZE):
            st[s] = keys[i, 2 + s]
        if watched:
            _record_call(problem, cur, dst, in_ch, in_vc, st)
        total = 0
        for r in range(rand_choices):
            if watched:
                problem[_CALL + 5] = r
                problem[_CALL] = _CALL_RUNNING
            m = kernel(tables, cur, dst, in_ch, in_vc, st, r, out_ch, out_vc, out_state)
            if watched:
                problem[_CALL] = _CALL_RETURNED
            code = 0
            value = m
            if m < 0 or m > MAX_CANDIDATES:
                code = _COUNT
            for j in range(m if code == 0 else 0):
                ch = out_ch[j]
                if ch < 0 or ch >= num_ch:
                    code, value = _CHANNEL, ch
                elif tables.ch_src[ch] != cur:
                    code, value = _NOT_LEAVING, ch
                elif tables.ch_ok[ch] == 0:
                    code, value = _FAULTY, ch
                elif out_vc[j] < 0 or out_vc[j] >= num_vcs:
                    code, value = _VC, out_vc[j]
                if code != 0:
                    break
            if code != 0:
                _record_problem(problem, code, value, i, r, st)
                break
            total += m
            for j in range(m):
                keys = _grown(keys, n_keys + 1)  # row n_keys: the candidate's key, kept if it is new
                keys[n_keys, 0] = out_ch[j]
                keys[n_keys, 1] = out_vc[j]
                for s in range(STATE_SIZE):
                    keys[n_keys, 2 + s] = out_state[j, s]
                pos = _find_or_slot(keys, slots, n_keys)
                idx = slots[pos] - 1
                if idx < 0:
                    idx = n_keys
                    if idx >= max_states:
                        _record_problem(problem, _TOO_MANY_STATES, max_states, i, r, st)
                        break
                    slots = _added(keys, slots, pos, n_keys)
                    n_keys += 1
                tr = _grown(tr, n_tr + 1)
                tr[n_tr, 0] = i
                tr[n_tr, 1] = idx
                tr[n_tr, 2] = out_ch[j]
                tr[n_tr, 3] = out_vc[j]
                tr[n_tr, 4] = r
                tr[n_tr, 5] = j
                n_tr += 1
            if problem[0] != 0:
                break
        if total == 0 and problem[0] == 0:
            stuck += 1
        i += 1
    s_enc = keys[:n_keys, 0].copy()
    s_vc = keys[:n_keys, 1].copy()
    s_cur = np.empty(n_keys, dtype=np.int64)
    for q in range(n_keys):
        s_cur[q] = -1 - s_enc[q] if s_enc[q] < 0 else tables.ch_dst[s_enc[q]]
    s_state = keys[:n_keys, 2:].copy()
    return s_enc, s_vc, s_cur, s_state, tr[:n_tr].copy(), stuck


@njit
def _preferred_loop(n_states, tr, rand_choices):
    """A state on a loop of preferred moves (first candidate, fixed rand), the loop length and the rand, or
    (-1, 0, 0)."""
    succ = np.full(n_states, -1, dtype=np.int64)
    color = np.zeros(n_states, dtype=np.int64)
    for r in range(rand_choices):
        succ[:] = -1
        for q in range(tr.shape[0]):
            if tr[q, 4] == r and tr[q, 5] == 0:
                succ[tr[q, 0]] = tr[q, 1]
        color[:] = 0  # 0 unseen, 1 on the current walk, 2 done
        for start in range(n_states):
            if color[start] != 0:
                continue
            u = start
            while u >= 0 and color[u] == 0:
                color[u] = 1
                u = succ[u]
            if u >= 0 and color[u] == 1:
                length = 1
                v = succ[u]
                while v != u:
                    v = succ[v]
                    length += 1
                return u, length, r
            u = start
            while u >= 0 and color[u] == 1:
                color[u] = 2
                u = succ[u]
    return -1, 0, 0


@dataclass
class StateGraph:
    """Reachable routing states of one destination (see :func:`explore_states`).

    ``state_channel``/``state_vc``: the VC a state arrived on (``-1`` at injection); ``state_node``: its node;
    ``state_header``: int64[S, STATE_SIZE] header states; ``transitions``: int64[T, 6] rows ``(from state, to
    state, out channel, out vc, rand, rank among that call's candidates)``; ``stuck``: number of states (away
    from the destination) without any candidate.
    """

    dst: int
    state_channel: np.ndarray
    state_vc: np.ndarray
    state_node: np.ndarray
    state_header: np.ndarray
    transitions: np.ndarray
    stuck: int

    @property
    def num_states(self) -> int:
        """Number of reachable states."""
        return int(self.state_channel.shape[0])


class RoutingValidationError(ValueError):
    """A routing kernel returned malformed output; the message names the algorithm and the state."""


def check_routing_function(rf: object, name: str = "rf") -> RoutingFunction:
    """``rf`` itself, or TypeError naming the parameter ``name`` if it is not a :class:`RoutingFunction`."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str (the parameter's name), got {name!r}")
    if not isinstance(rf, RoutingFunction):
        raise TypeError(f"{name} must be a RoutingFunction, got {rf!r}")
    return rf


def node_ok(rf: RoutingFunction) -> np.ndarray:
    """Boolean mask over node ids: True for a non-faulty node."""
    check_routing_function(rf)
    ok = np.ones(rf.topology.num_nodes, dtype=bool)
    if rf.faults is not None:
        ok &= ~np.asarray(rf.faults.node_mask(rf.topology), dtype=bool)
    return ok


def _describe_state(rf: RoutingFunction, graph_enc: int, vc: int, dst: int, header, rand: int) -> str:
    topo = rf.topology
    if graph_enc < 0:
        node, arrival = -1 - graph_enc, "at injection"
    else:
        node = int(topo.channel_dst[graph_enc])
        src = tuple(int(v) for v in topo.coords(int(topo.channel_src[graph_enc])))
        arrival = f"arrived on channel {graph_enc} from {src}, VC {vc}"
    here = tuple(int(v) for v in topo.coords(node))
    there = tuple(int(v) for v in topo.coords(dst))
    return (f"node {here} (id {node}), destination {there} (id {dst}), {arrival}, "
            f"header state {tuple(int(v) for v in header)}, rand {rand}")  # fmt: skip


#: Numba types of the arguments after the kernel that :func:`_explore` passes (tables, destination, node mask,
#: random choices, state limit, VCs, problem record).
_EXPLORE_ARG_TYPES = (KERNEL_SIG.args[0], types.int64, types.Array(types.boolean, 1, "C"), types.int64,
                      types.int64, types.int64, types.Array(types.int64, 1, "C"))  # fmt: skip


def _explore_runner(rf: RoutingFunction, args: tuple):
    """:func:`_explore_dest` compiled (:func:`compile_for_kernel`), as its machine code's entry when the arguments
    are known to have the compiled types: the kernel's handle (compiled for the kernel signature, see
    :func:`torus_lab.routing.interface.kernel_handle`), tables whose type the routing function checked, and the
    rest made by :func:`_explore` itself.  The dispatcher would type every argument at every call, the kernel's
    first-class function type most of all (about 30 us, a third of a small exploration); the same code runs.
    Anything else goes through the dispatcher, which types and checks it.
    """
    from numba.core.types.function_type import CompileResultWAP

    runner = compile_for_kernel(_explore_dest, args)
    typed = getattr(rf, "_typed", None)  # the tables the routing function was built with (None: unpickled old)
    if isinstance(args[0], CompileResultWAP) and typed is not None and typed[1] is rf.tables is args[1]:
        entry = _compiled_entry(runner)
        if entry is not None:
            return entry
    return runner


@functools.cache
def _compiled_entry(runner):
    """The machine code of ``runner``'s one compiled version (per process), or None unless that version takes
    the kernel and then :data:`_EXPLORE_ARG_TYPES`."""
    signature = runner.signatures[0]
    return runner.get_overload(signature) if tuple(signature[1:]) == _EXPLORE_ARG_TYPES else None


def _explore(rf: RoutingFunction, d: int, max_states: int, problem: np.ndarray | None = None):
    """Explore destination ``d``: its graph, its states' arrival codes and the problem record (``problem``, reset
    here, when given: a watched record of _WATCHED_WORDS words)."""
    if problem is None:
        problem = np.zeros(_PROBLEM_WORDS, dtype=np.int64)
    else:
        problem[:_PROBLEM_WORDS] = 0
    args = (kernel_handle(rf.kernel), rf.tables, d, node_ok(rf), int(rf.random_choices), int(max_states),
            int(rf.num_vcs), problem)  # fmt: skip
    enc, vc, node, header, tr, stuck = _explore_runner(rf, args)(*args)
    graph = StateGraph(d, np.where(enc >= 0, enc, -1), np.where(enc >= 0, vc, -1), node, header, tr, int(stuck))
    return graph, enc, problem


def _problem_message(rf: RoutingFunction, d: int, enc, vcs, problem) -> str:
    code, value, state, rand = (int(v) for v in problem[:4])
    text = _PROBLEMS[code].format(value=value, max_candidates=MAX_CANDIDATES,
                                  last_channel=rf.topology.num_channels - 1, last_vc=rf.num_vcs - 1)  # fmt: skip
    where = _describe_state(rf, int(enc[state]), int(vcs[state]), d, problem[4:_PROBLEM_WORDS], rand)
    return f"routing {rf.name!r} {text} at {where}"


def explore_states(rf: RoutingFunction, dst, *, max_states: int = 5_000_000) -> StateGraph:
    """Every routing state reachable for destination ``dst`` (all non-faulty sources, all choices).

    Raises :class:`~torus_lab.routing.explore.RoutingValidationError` if the kernel returns a malformed candidate on the
    way, and ``ValueError`` if more than ``max_states`` states are reachable.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> explore_states(ecube_routing(Torus(1, 4)), 0).num_states     # 3 injections, 3 arrivals on + or -
    6
    """
    check_routing_function(rf)
    with naming("dst"):
        d = rf._node_id(dst)
    max_states = _check_positive("max_states", max_states)
    graph, enc, problem = _explore(rf, d, max_states)
    if problem[0] == _TOO_MANY_STATES:
        raise ValueError(f"state space of routing {rf.name!r} for destination {d} exceeds max_states={max_states}")
    if problem[0] != _OK:
        raise RoutingValidationError(_problem_message(rf, d, enc, graph.state_vc, problem))
    return graph


@dataclass(frozen=True)
class ValidationReport:
    """What :func:`validate_routing` checked: destinations, states and candidates, and how many states are
    stuck (no candidate away from the destination: allowed, e.g. around faults)."""

    routing: str
    mode: str
    destinations_checked: int
    states_checked: int
    transitions_checked: int
    stuck_states: int


def _check_positive(name: str, value: object) -> int:
    if not is_int(value) or not 1 <= value <= MAX_STATES_LIMIT:
        raise ValueError(f"{name} must be an int in 1..{MAX_STATES_LIMIT}, got {value!r}")
    return int(value)


#: Largest ``max_states`` / ``sample`` accepted (the kernels count states in int64).
MAX_STATES_LIMIT = 2**62


def validate_routing(
    rf: RoutingFunction,
    *,
    mode: str = "auto",
    sample: int = 16,
    seed: int = 0,
    max_states: int = 2_000_000,
    cpu_limit: float | None = None,
) -> ValidationReport:
    """Check a routing function's kernel everywhere a message can be; raise on the first malformed output.

    Parameters
    ----------
    rf : RoutingFunction
    mode : {"auto", "exhaustive", "sample"}
        ``"exhaustive"``: every destination; ``"sample"``: ``sample`` destinations drawn with ``seed``;
        ``"auto"``: exhaustive up to :data:`EXHAUSTIVE_NODES` nodes.  Every non-faulty source is explored
        for each destination checked.
    sample : int
        Destinations checked in ``"sample"`` mode.
    seed : int
        Seed of the destination sample.
    max_states : int
        A destination with more reachable states is refused (a header state that grows without bound).
    cpu_limit : float, optional
        Run the check in a forked child process that may use this many seconds of CPU time (rounded up to a
        whole second), so that a kernel that never returns is refused instead of hanging this process (compiled
        code cannot be interrupted, not even by Ctrl-C).  :func:`~torus_lab.routing.make_routing` passes
        :data:`VALIDATION_CPU_LIMIT` for registered kernels.  None (default): in this process, unbounded.  Where
        ``os.fork`` is unavailable (not Linux) the check runs in this process either way.

    Raises
    ------
    RoutingValidationError
        Naming the algorithm, what was wrong and the (node, destination, arrival, header state, rand) where
        it happened: a candidate count outside ``0..MAX_CANDIDATES``, a channel that is not a channel id,
        does not leave the node or is faulty, a VC outside ``0..num_vcs-1``, an unbounded state space, or a
        preferred route that never ends; with ``cpu_limit``, also a kernel call that did not return within it
        (or a check that did not finish, naming the last call), or a kernel that crashed the child process.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> rep = validate_routing(ecube_routing(Torus(2, 4), datelines=True, vcs=2))
    >>> rep.mode, rep.destinations_checked, rep.stuck_states
    ('exhaustive', 16, 0)
    >>> validate_routing(ecube_routing(Torus(2, 4)), cpu_limit=10) == validate_routing(ecube_routing(Torus(2, 4)))
    True
    """
    check_routing_function(rf)
    if not isinstance(mode, str) or mode not in VALIDATION_MODES:
        raise ValueError(f"mode must be one of {VALIDATION_MODES}, got {mode!r}")
    sample = _check_positive("sample", sample)
    max_states = _check_positive("max_states", max_states)
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    if cpu_limit is not None:
        cpu_limit = check_cpu_limit("cpu_limit", cpu_limit)
    mode, dests = _destinations(rf, mode, sample, seed)
    if cpu_limit is None or not fork_available():
        counts = _check_destinations(rf, dests, max_states)
    else:
        counts = _check_destinations_bounded(rf, dests, max_states, cpu_limit)
    return ValidationReport(rf.name, mode, len(dests), *counts)


def _destinations(rf: RoutingFunction, mode: str, sample: int, seed: int) -> tuple[str, np.ndarray]:
    """The mode ``"auto"`` resolves to, and the destinations that mode checks (node ids, ascending)."""
    ok_nodes = np.flatnonzero(node_ok(rf))
    if mode == "auto":
        mode = "exhaustive" if rf.topology.num_nodes <= EXHAUSTIVE_NODES else "sample"
    if mode == "exhaustive" or sample >= len(ok_nodes):
        return mode, ok_nodes
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), rf.topology.num_nodes]))
    return mode, np.sort(rng.choice(ok_nodes, size=sample, replace=False))


def _check_destinations(
    rf: RoutingFunction, dests: np.ndarray, max_states: int, problem: np.ndarray | None = None
) -> tuple[int, int, int]:
    """States, transitions and stuck states over ``dests``; RoutingValidationError at the first problem.
    ``problem``: a watched problem record (see :func:`_explore`), for a parent process to read."""
    states = transitions = stuck = 0
    for d in dests:
        d = int(d)
        graph, enc, problem = _explore(rf, d, max_states, problem)
        if problem[0] == _OK:
            start, length, rand = _preferred_loop(graph.num_states, graph.transitions, int(rf.random_choices))
            if start >= 0:
                problem[:4] = (_LOOP, length, start, rand)
                problem[4:_PROBLEM_WORDS] = graph.state_header[start]
        if problem[0] != _OK:
            raise RoutingValidationError(_problem_message(rf, d, enc, graph.state_vc, problem))
        states += graph.num_states
        transitions += len(graph.transitions)
        stuck += graph.stuck
    return states, transitions, stuck


def _compile_exploration(rf: RoutingFunction, d: int, max_states: int) -> None:
    """Compile, in this process, everything :func:`_check_destinations` runs (a forked child must not compile),
    without calling the kernel."""
    problem = np.zeros(_WATCHED_WORDS, dtype=np.int64)
    args = (kernel_handle(rf.kernel), rf.tables, d, node_ok(rf), int(rf.random_choices), int(max_states),
            int(rf.num_vcs), problem)  # fmt: skip
    _explore_runner(rf, args)
    _preferred_loop(0, np.zeros((0, 6), dtype=np.int64), int(rf.random_choices))


def _check_destinations_bounded(
    rf: RoutingFunction, dests: np.ndarray, max_states: int, cpu_limit: float
) -> tuple[int, int, int]:
    """:func:`_check_destinations` in a forked child limited to ``cpu_limit`` CPU seconds; the kernel call it was
    in (or last made) named when the child is killed."""
    if len(dests) == 0:
        return 0, 0, 0
    _compile_exploration(rf, int(dests[0]), max_states)
    run = run_cpu_bounded(lambda words: _check_destinations(rf, dests, max_states, words), words=_WATCHED_WORDS,
                          cpu_limit=cpu_limit)  # fmt: skip
    if run.finished:
        return run.value
    raise RoutingValidationError(_unfinished_message(rf, run.words, run.out_of_cpu, run.signal, cpu_limit))


def _unfinished_message(rf: RoutingFunction, words: np.ndarray, out_of_cpu: bool, sig: int | None,
                        cpu_limit: float) -> str:  # fmt: skip
    """Why a bounded check did not finish, and the kernel call it was in or had last made."""
    phase = int(words[_CALL])
    if phase == _CALL_NONE:
        where = "before its first kernel call"
    else:
        cur, dst, in_ch, in_vc, rand = (int(v) for v in words[_CALL + 1 : _CALL + 6])
        state = _describe_state(rf, in_ch if in_ch >= 0 else -1 - cur, in_vc, dst, words[_CALL + 6 :], rand)
        where = f"{'in' if phase == _CALL_RUNNING else 'after'} its kernel call at {state}"
    name = f"routing {rf.name!r}"
    limit = f"{math.ceil(cpu_limit)} s of CPU time"
    which = "(the limit: validation_cpu_limit= of make_routing, cpu_limit= of validate_routing)"
    if not out_of_cpu:
        died = signal.Signals(sig).name if sig is not None else "an unexpected exit"
        return f"{name}: the validation process died of {died} {where}"
    if phase == _CALL_RUNNING:
        return f"{name}: its kernel did not return within {limit} when called at {state} {which}"
    return (f"{name}: validation did not finish within {limit} {which}; its kernel calls return (the last at "
            f"{state}): a larger limit may let a large state space finish")  # fmt: skip


# ====================================================================== adaptivity
def _path_counter(tr, order, starts, dist, channel_dst, d):
    """Memoised counter of realizable minimal paths from a set of routing states to destination ``d``."""
    succ: dict[int, dict[int, list[int]]] = {}
    # the transitions in ``order`` as Python ints, read once (not one numpy scalar at a time)
    channels, targets, bounds = tr[order, 2].tolist(), tr[order, 1].tolist(), np.asarray(starts).tolist()
    heads, hops_left = np.asarray(channel_dst).tolist(), np.asarray(dist).tolist()

    def successors(s: int) -> dict[int, list[int]]:
        if s not in succ:
            m: dict[int, list[int]] = {}
            for p in range(bounds[s], bounds[s + 1]):
                m.setdefault(channels[p], []).append(targets[p])
            succ[s] = m
        return succ[s]

    @functools.cache
    def count(states: frozenset, node: int) -> int:
        if node == d:
            return 1
        opts: dict[int, set[int]] = {}
        for s in states:
            for ch, tos in successors(s).items():
                opts.setdefault(ch, set()).update(tos)
        total = 0
        for ch, tos in opts.items():
            nxt = heads[ch]
            if hops_left[nxt] == hops_left[node] - 1:
                total += count(frozenset(tos), nxt)
        return total

    return count


def adaptivity_table(rf: RoutingFunction) -> pd.DataFrame:
    """Per (src, dst): physical paths the routing can realize vs minimal paths, measured from reachable states.

    The virtual-mesh paper (Upadhyay, Varavithya & Mohapatra, Section 4) calls a routing fully adaptive when it
    offers every minimal path; this measures it instead of assuming it.

    A physical path is realizable when some sequence of routing states (any VC choice) follows its channels.
    Columns: src, dst, realizable, minimal (all minimal paths, ties both ways), minimal_tie (ties resolved the
    routing's way), nonminimal_hops (number of offered hops of this destination's states that do not reduce
    the distance -- 0 for a minimal routing), fully_adaptive (realizable == minimal),
    fully_adaptive_tie (realizable == minimal_tie).

    Examples
    --------
    >>> from torus_lab.routing import make_routing
    >>> from torus_lab.topology import Mesh
    >>> t = adaptivity_table(make_routing({"name": "turn-model", "algorithm": "west-first"}, Mesh(2, 3)))
    >>> t[(t.src == 2) & (t.dst == 6)][["realizable", "minimal"]].values.tolist()   # (2,0) -> (0,2): west first
    [[1, 6]]
    """
    import pandas as pd

    check_instance("rf", rf, RoutingFunction)
    topo = rf.topology
    tie = rf.options.get("tie", "+") if topo.wraparound and topo.bidirectional else "both"
    coords = [topo.coords(v) for v in range(topo.num_nodes)]
    coord_array = np.array(coords, dtype=np.int64)
    rows = []
    for d in range(topo.num_nodes):
        g = explore_states(rf, d)
        tr = g.transitions
        order = np.argsort(tr[:, 0], kind="stable")
        starts = np.searchsorted(tr[order, 0], np.arange(g.num_states + 1))
        dist = topo.lee_distance(coord_array, np.broadcast_to(coord_array[d], coord_array.shape))
        nonmin = int((dist[topo.channel_dst[tr[:, 2]]] != dist[g.state_node[tr[:, 0]]] - 1).sum())
        count = _path_counter(tr, order, starts, dist, topo.channel_dst, d)
        injections = np.flatnonzero(g.state_channel < 0)
        minimal = minimal_path_counts(topo, coords[d], tie="both")
        minimal_tie = minimal_path_counts(topo, coords[d], tie=tie)
        for s in injections:
            src = int(g.state_node[s])
            rows.append({
                "src": src, "dst": d, "realizable": count(frozenset([int(s)]), src),
                "minimal": minimal[src],
                "minimal_tie": minimal_tie[src],
                "nonminimal_hops": nonmin,
            })
        count.cache_clear()
    df = pd.DataFrame(rows)
    df["fully_adaptive"] = df.realizable == df.minimal
    df["fully_adaptive_tie"] = df.realizable == df.minimal_tie
    return df
