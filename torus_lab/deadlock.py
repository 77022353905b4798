"""Channel dependency graphs (CDG), Duato's escape-channel check and dateline virtual channels.

Implements the project's deadlock toolkit (``docs/conventions.md#cdg``, ``docs/conventions.md#duato``) and datelines for
the routing-function interface of :mod:`torus_lab.routing.interface` -- the *same* numba kernels the wormhole
simulator runs, so the graphs describe the simulated routing exactly.  The first, pure-Python versions of
:func:`state_graph`, :func:`find_dependency_cycle` and :func:`route_length_table` are kept at the end of the
module as references the compiled ones are tested against.

The reachable states come from :func:`torus_lab.routing.explore.explore_states`, which calls the routing
function's own kernel (received as an argument, never looked up in a table of algorithms), so a kernel
registered at run time gets its verdict like a built-in one.  Compiled code is cached on disk with a stamp
covering every source it depends on (``torus_lab._jit``): an edited kernel is always recompiled.

**Vertices** are virtual channels ``(channel id, vc)``.  **Edges** ``c1 -> c2``: some message may hold ``c1``
and request ``c2`` next.  Three constructions (``form=``):

* ``"reachable"`` (default, exact for routing with header state): for every destination, explore every
  routing state ``(input channel, input VC, header state)`` reachable from an injection at any non-faulty
  source over all adaptive and random choices, and add ``(input VC) -> (output VC)`` for every candidate of
  every reachable state.  This is the *path form* (the set of consecutive VC pairs of all legal
  paths) computed by a compiled state-space search instead of path enumeration, so it scales to 10 x 10 tori.
* ``"paths"``: literally the path form -- enumerate every route of every pair with
  :meth:`RoutingFunction.enumerate_routes` and add consecutive pairs (small networks only; used by the
  tests to cross-check ``"reachable"``).
* ``"relation"``: the routing-relation form -- for *every* VC ``c1`` and every destination (header state
  zero) add edges to all permitted outputs, reachable or not.  Valid only for kernels that do not read the
  header state; it can report cycles through VCs no message ever holds in that role.

**Verdict** (Dally & Seitz 1987): acyclic CDG => deadlock-free; for deterministic routing also the converse.
A cycle is returned as a *witness* (:func:`find_witness_cycle`: the shortest cycle found through a sample of
vertices of a non-trivial strongly connected component).  For adaptive routing a cycle is only a potential
deadlock.

**Duato (IEEE TPDS 4(12), 1993)**: :func:`duato_check` takes the escape VCs (routing subfunction R1), checks
that R1 is connected (every reachable state offers an escape VC and escape-only routing can never cycle) and
that the *extended* CDG of R1 -- direct dependencies plus indirect ones through non-escape VCs -- is
acyclic.  Cross dependencies (Duato 1995) are not added; they cannot occur when every use of an escape VC is
a use by R1, which holds for the escape design of :func:`torus_lab.routing.turn_model.duato_routing`.

**Datelines** (section 2.3; the virtual-mesh paper's Section 3): a dateline of a ring direction is a node
``D``; the hop leaving ``D`` in that direction is the crossing hop and uses class 1, as do all later hops of
that dimension (switch-at-dateline).  :func:`ring_dateline_classes`, :func:`ring_vc_usage` and
:func:`ring_second_vc_channels` give the analytic per-ring answer; :func:`channel_vc_usage` measures which
``(channel, vc)`` a routing function really uses.

Examples
--------
>>> from torus_lab.topology import Torus
>>> from torus_lab.routing.ecube import ecube_routing
>>> cdg_verdict(ecube_routing(Torus(2, 4))).acyclic          # DOR without VCs on a torus: ring cycles
False
>>> cdg_verdict(ecube_routing(Torus(2, 4), datelines=True, vcs=2)).acyclic
True
>>> find_dependency_cycle(channel_dependency_graph(ecube_routing(Torus(1, 4), datelines=True, vcs=2))) is None
True
>>> ring_dateline_classes(8, 6, 1, +1)                      # 6 -> 7 -> 0 -> 1, dateline at node 7
[0, 1, 1]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pandas as pd
from numba import types
from numba.typed import List
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from torus_lab._jit import njit
from torus_lab._memory import check_memory, network_size
from torus_lab._validate import check_instance, check_int, check_sequence, check_str, is_int, naming
from torus_lab.routing.explore import StateGraph, check_routing_function, explore_states, node_ok
from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE, RoutingFunction, compile_for_kernel, kernel_handle
from torus_lab.topology import Torus

__all__ = [
    "CDG_FORMS",
    "StateGraph",
    "CDGResult",
    "DuatoResult",
    "state_graph",
    "explore_states",
    "channel_dependency_graph",
    "find_dependency_cycle",
    "find_witness_cycle",
    "cdg_verdict",
    "route_length_table",
    "channel_vc_usage",
    "vcs_per_channel",
    "extended_cdg",
    "duato_check",
    "describe_vc",
    "describe_cycle",
    "default_dateline",
    "ring_dateline_classes",
    "ring_minimal_routes",
    "ring_vc_usage",
    "ring_second_vc_channels",
    "forced_cycle_messages",
    "find_acyclic",
    "cycle_dimensions",
    "channel_vc_listing",
    "set_partitions",
    "merged_cdg_acyclic",
    "cdg_acyclic",
    "MAX_DATELINE_CONFIGS",
    "DatelineSearch",
    "dateline_space",
    "dateline_configuration",
    "dateline_search",
]

#: The CDG constructions of :func:`channel_dependency_graph`.
CDG_FORMS = ("reachable", "paths", "relation")

_TRIPLE = types.UniTuple(types.int64, 3)
_PAIR = types.UniTuple(types.int64, 2)


# ====================================================================== compiled helpers (numba)
@njit
def _relation_edges(kernel, tables, num_vcs, rand_choices):
    """Routing-relation edges: every ok channel x VC x destination, header state zero."""
    num_nodes = tables.strides[-1] * tables.radices[-1]
    num_ch = tables.ch_src.shape[0]
    out_ch = np.zeros(MAX_CANDIDATES, dtype=np.int64)
    out_vc = np.zeros(MAX_CANDIDATES, dtype=np.int64)
    out_state = np.zeros((MAX_CANDIDATES, STATE_SIZE), dtype=np.int64)
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    edges = List.empty_list(_TRIPLE)
    for ch in range(num_ch):
        if tables.ch_ok[ch] == 0:
            continue
        cur = tables.ch_dst[ch]
        for vc in range(num_vcs):
            for dst in range(num_nodes):
                if dst == cur:
                    continue
                for r in range(rand_choices):
                    st[:] = 0
                    m = kernel(tables, cur, dst, ch, vc, st, r, out_ch, out_vc, out_state)
                    for j in range(m):
                        edges.append((ch * num_vcs + vc, out_ch[j] * num_vcs + out_vc[j], dst))
    arr = np.empty((len(edges), 3), dtype=np.int64)
    for q in range(len(edges)):
        arr[q, 0] = edges[q][0]
        arr[q, 1] = edges[q][1]
        arr[q, 2] = edges[q][2]
    return arr


@njit
def _indirect_edges(n_states, s_vertex, order, starts, tr, t_vertex, is_escape):
    """Extended-CDG edges: escape VC held -> zero or more non-escape hops -> escape VC requested."""
    mark = np.full(n_states, -1, dtype=np.int64)
    out = List.empty_list(_PAIR)
    stack = np.empty(n_states, dtype=np.int64)
    for s in range(n_states):
        v = s_vertex[s]
        if v < 0 or not is_escape[v]:
            continue
        top = 0
        stack[top] = s
        top += 1
        mark[s] = s
        while top > 0:
            top -= 1
            u = stack[top]
            for p in range(starts[u], starts[u + 1]):
                t = order[p]
                w = t_vertex[t]
                if is_escape[w]:
                    out.append((v, w))
                else:
                    nxt = tr[t, 1]
                    if mark[nxt] != s:
                        mark[nxt] = s
                        stack[top] = nxt
                        top += 1
    arr = np.empty((len(out), 2), dtype=np.int64)
    for q in range(len(out)):
        arr[q, 0] = out[q][0]
        arr[q, 1] = out[q][1]
    return arr


# ====================================================================== Python API
def _destinations(rf: RoutingFunction, destinations: Iterable | None) -> list[int]:
    if destinations is None:
        return [int(v) for v in np.flatnonzero(node_ok(rf))]
    with naming("destinations"):
        return [rf._node_id(d) for d in check_sequence("destinations", destinations)]


def _cdg_sizes(rf: RoutingFunction) -> tuple[int, int, int]:
    """``(W, f, g)`` of :func:`_cdg_memory_estimate`: vertex slots, candidates per state, successors per vertex."""
    vcs, n = int(rf.num_vcs), rf.topology.n
    vertices = rf.topology.num_nodes * n * 2 * vcs
    successors = min(MAX_CANDIDATES, 2 * n * vcs)
    return vertices, successors if rf.adaptive else vcs, successors


def _cdg_memory_estimate(rf: RoutingFunction, num_dests: int, form: str) -> int:
    """Peak bytes of a CDG construction over ``num_dests`` destinations (checked before it starts).

    With ``W = channels x VCs`` vertices (``num_nodes * n * 2`` slots bound the channels, so no channel table
    is needed), ``f`` candidates per routing state (the VCs of one channel for deterministic kernels,
    ``min(MAX_CANDIDATES, 2 n V)`` for adaptive ones) and ``g = min(MAX_CANDIDATES, 2 n V)`` possible successors
    of a vertex:

    * edge rows kept until the graph is built, ``(v1, v2, destination)`` int64 with a sorting copy, one per
      vertex and candidate and destination: ``48 W f x num_dests`` (``"relation"``: ``72 W f x num_dests x
      random choices``, numba's typed list before the array);
    * one destination's state exploration (``"reachable"``): ``128 W f`` (its tables of states and transitions
      double as they fill; measured peaks 24-98 B per ``W f`` on 2D and 3D tori and hypercubes);
    * the networkx graph, about 300 B per vertex and per edge: ``300 W (1 + g)``.
    """
    vertices, fan, successors = _cdg_sizes(rf)
    rows = vertices * fan * num_dests
    if form == "relation":
        return 72 * rows * int(rf.random_choices) + 300 * vertices * (1 + successors)
    return 48 * rows + 128 * vertices * fan + 300 * vertices * (1 + successors)


def _check_cdg_memory(rf: RoutingFunction, num_dests: int, form: str, what: str = "channel dependency graph") -> None:
    vertices = rf.topology.num_nodes * rf.topology.n * 2 * int(rf.num_vcs)
    check_memory(
        _cdg_memory_estimate(rf, num_dests, form),
        f"{what} ({form}) of {rf.name} on {network_size(rf.topology)}, "
        f"up to {vertices:,} virtual channels x {num_dests:,} destinations",
    )


def _unique_pairs(first: np.ndarray, second: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct pairs ``(first[i], second[i])`` in lexicographic order (what ``np.unique`` of the stacked rows
    with ``axis=0`` gives), for values in ``0..bound - 1``: one sort of the int64 keys ``first * bound + second``
    instead of a sort of row records.

    >>> [a.tolist() for a in _unique_pairs(np.array([2, 0, 2, 0]), np.array([1, 3, 1, 0]), 4)]
    [[0, 0, 2], [0, 3, 1]]
    """
    keys = np.unique(first.astype(np.int64) * bound + second)
    return keys // bound, keys % bound


def _edges_reachable(rf: RoutingFunction, dests: list[int], *, keep_rows: bool = True
                     ) -> tuple[np.ndarray, np.ndarray, int]:
    """Edge rows ``(v1, v2, example destination)`` (none unless ``keep_rows``), the used-vertex mask and the
    number of stuck states."""
    V = rf.num_vcs
    used = np.zeros(rf.topology.num_channels * V, dtype=bool)
    chunks = []
    stuck = 0
    for d in dests:
        g = explore_states(rf, d)
        stuck += g.stuck
        tr = g.transitions
        out_v = tr[:, 2] * V + tr[:, 3]
        used[out_v] = True
        if not keep_rows:
            continue
        src_ch = g.state_channel[tr[:, 0]]
        keep = src_ch >= 0
        in_v = src_ch[keep] * V + g.state_vc[tr[keep, 0]]
        in_v, out_v = _unique_pairs(in_v, out_v[keep], rf.topology.num_channels * V)
        chunks.append(np.stack([in_v, out_v, np.full(in_v.size, d, dtype=np.int64)], axis=1))
    rows = np.concatenate(chunks) if chunks else np.zeros((0, 3), dtype=np.int64)
    return rows, used, stuck


def _edges_paths(rf: RoutingFunction, dests: list[int]) -> np.ndarray:
    V = rf.num_vcs
    ok = node_ok(rf)
    rows = set()
    for d in dests:
        for s in np.flatnonzero(ok):
            if s == d:
                continue
            for hops in rf.enumerate_routes(int(s), d):
                for (c1, v1), (c2, v2) in zip(hops, hops[1:], strict=False):
                    if c2 >= 0:
                        rows.add((c1 * V + v1, c2 * V + v2, d))
    return np.array(sorted(rows), dtype=np.int64).reshape(-1, 3)


def _graph_from_rows(rf: RoutingFunction, rows: np.ndarray, used: np.ndarray | None = None) -> nx.DiGraph:
    V = rf.num_vcs
    g = nx.DiGraph()
    if used is not None:
        vertices = np.flatnonzero(used)
        g.add_nodes_from(zip((vertices // V).tolist(), (vertices % V).tolist(), strict=True))
    if rows.size:
        order = np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))
        rows = rows[order]
        first = np.ones(len(rows), dtype=bool)
        first[1:] = np.any(rows[1:, :2] != rows[:-1, :2], axis=1)
        v1, v2, dest = rows[first].T
        tails = zip((v1 // V).tolist(), (v1 % V).tolist(), strict=True)
        heads = zip((v2 // V).tolist(), (v2 % V).tolist(), strict=True)
        g.add_edges_from((tail, head, {"dest": d}) for tail, head, d in zip(tails, heads, dest.tolist(), strict=True))
    return g


def channel_dependency_graph(
    routing: RoutingFunction, *, form: str = "reachable", destinations: Iterable | None = None
) -> nx.DiGraph:
    """The channel dependency graph of ``routing`` over ``(channel, vc)`` vertices.

    Parameters
    ----------
    routing : RoutingFunction
    form : {"reachable", "paths", "relation"}
        Construction (module docstring); ``"reachable"`` is exact for any header state.
    destinations : iterable of nodes, optional
        Restrict to messages to these destinations (default: every non-faulty node).

    Returns
    -------
    networkx.DiGraph
        Edge attribute ``dest``: one destination of a message that creates the dependency.  For
        ``"reachable"`` the vertex set is every VC used by some message (also VCs with no dependency).

    Raises
    ------
    torus_lab._memory.MemoryLimitError
        Before the construction starts, when its estimate (``_cdg_memory_estimate``) exceeds the memory
        limit (``TORUS_LAB_MEMORY_LIMIT``, default half the available memory).

    Examples
    --------
    >>> from torus_lab.topology import Mesh
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> g = channel_dependency_graph(ecube_routing(Mesh(2, 3)))
    >>> g.number_of_nodes(), nx.is_directed_acyclic_graph(g)
    (24, True)
    """
    check_routing_function(routing, "routing")
    check_str("form", form, CDG_FORMS)
    if form not in CDG_FORMS:
        raise ValueError(f"form must be one of {CDG_FORMS}, got {form!r}")
    dests = _destinations(routing, destinations)
    _check_cdg_memory(routing, routing.topology.num_nodes if form == "relation" else len(dests), form)
    if form == "reachable":
        rows, used, _ = _edges_reachable(routing, dests)
        return _graph_from_rows(routing, rows, used)
    if form == "paths":
        return _graph_from_rows(routing, _edges_paths(routing, dests))
    args = (kernel_handle(routing.kernel), routing.tables, int(routing.num_vcs), int(routing.random_choices))
    rows = compile_for_kernel(_relation_edges, args)(*args)
    if destinations is not None:
        rows = rows[np.isin(rows[:, 2], dests)]
    return _graph_from_rows(routing, rows)


def _shortest_paths_to(graph: nx.DiGraph, source, targets: Iterable, max_length: int | None = None) -> dict:
    """The paths :func:`networkx.single_source_shortest_path` gives from ``source`` to those of ``targets`` it
    reaches in at most ``max_length`` vertices (any length if None), found by the same breadth-first search
    (level by level, neighbours in the graph's order, a vertex's path through the vertex that reaches it first),
    which stops after the level that reaches the last target or the longest path wanted, and keeps a parent per
    vertex instead of a path.

    >>> g = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)])
    >>> _shortest_paths_to(g, 0, [3, 4, 9]) == {w: p for w, p in nx.single_source_shortest_path(g, 0).items()
    ...                                          if w in (3, 4)}
    True
    >>> _shortest_paths_to(g, 0, [3, 4], max_length=3)
    {3: [0, 1, 3]}
    """
    adjacency = graph._adj
    parent = {source: source}
    missing = {w for w in targets if w != source}
    deepest = math.inf if max_length is None else max_length - 1  # edges of the longest path wanted
    level, frontier = 0, [source]
    while frontier and missing and level < deepest:
        reached = []
        for v in frontier:
            for w in adjacency[v]:
                if w not in parent:
                    parent[w] = v
                    reached.append(w)
        missing.difference_update(reached)
        frontier, level = reached, level + 1
    paths = {}
    for w in targets:
        if w in parent:
            path = [w]
            while path[-1] != source:
                path.append(parent[path[-1]])
            paths[w] = path[::-1]
    return paths


def find_witness_cycle(graph: nx.DiGraph, *, shortest: bool = True, sample: int = 64) -> list | None:
    """A cycle of ``graph`` as a vertex list (first vertex not repeated), or None if acyclic.

    With ``shortest=True`` the result is the shortest cycle through up to ``sample`` evenly spaced vertices
    of the largest non-trivial strongly connected component (a short witness is easier to draw and read);
    otherwise :func:`networkx.find_cycle`'s cycle.

    Examples
    --------
    >>> find_witness_cycle(nx.DiGraph([(1, 2), (2, 3), (3, 1), (3, 4), (4, 1)]))
    [1, 2, 3]
    >>> find_witness_cycle(nx.DiGraph([(1, 2)])) is None
    True
    """
    if not isinstance(graph, nx.DiGraph):
        raise TypeError(f"graph must be a networkx.DiGraph, got {graph!r}")
    sample = check_int("sample", sample, minimum=1)
    check_instance("shortest", shortest, (bool, np.bool_), "a bool")
    loops = list(nx.selfloop_edges(graph))
    if loops:
        return [loops[0][0]]
    comps = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    if not comps:
        return None
    if not shortest:
        return [u for u, _ in nx.find_cycle(graph.subgraph(max(comps, key=len)))]
    best = None
    for comp in sorted(comps, key=lambda c: (-len(c), min(c))):
        sub = graph.subgraph(comp).copy()  # a plain graph: a BFS over the filtered view is ~5x slower
        verts = sorted(comp)
        step = max(1, len(verts) // sample)
        for v in verts[::step]:
            if best is not None and len(best) <= 2:
                break
            predecessors = list(graph.predecessors(v))  # the graph's order (the copy's differs)
            # only paths shorter than the best cycle so far can replace it
            dist = _shortest_paths_to(sub, v, predecessors, None if best is None else len(best) - 1)  # lies in comp
            for w in predecessors:
                if w in dist and (best is None or len(dist[w]) < len(best)):
                    best = dist[w]
        if best is not None:
            break
    return best


@dataclass
class CDGResult:
    """Verdict of :func:`cdg_verdict`: ``acyclic``, a witness ``cycle`` (or None) and graph statistics."""

    name: str
    acyclic: bool
    cycle: list | None
    num_vertices: int
    num_edges: int
    stuck_states: int = 0
    graph: nx.DiGraph | None = field(default=None, repr=False)


def cdg_verdict(rf: RoutingFunction, *, form: str = "reachable", keep_graph: bool = False) -> CDGResult:
    """Build the CDG of ``rf`` and test it for cycles (a short witness cycle is returned when there is one).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> res = cdg_verdict(ecube_routing(Torus(1, 4)))
    >>> res.acyclic, len(res.cycle)                # the ring 0 -> 1 -> 2 -> 3 -> 0 of + channels
    (False, 4)
    """
    check_routing_function(rf)
    check_str("form", form, CDG_FORMS)
    check_instance("keep_graph", keep_graph, (bool, np.bool_), "a bool")
    stuck = 0
    if form == "reachable":
        dests = _destinations(rf, None)
        _check_cdg_memory(rf, len(dests), form)
        rows, used, stuck = _edges_reachable(rf, dests)
        g = _graph_from_rows(rf, rows, used)
    else:
        g = channel_dependency_graph(rf, form=form)
    cycle = find_witness_cycle(g)
    return CDGResult(rf.name, cycle is None, cycle, g.number_of_nodes(), g.number_of_edges(), stuck,
                     g if keep_graph else None)


def channel_vc_usage(rf: RoutingFunction) -> np.ndarray:
    """Boolean matrix ``[channel, vc]``: does some message (any pair, any adaptive choice) use that VC?

    Measured from the reachable states, i.e. from the constructed channel set
    (``docs/conventions.md#virtual-mesh-schemes``).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> t = Torus(1, 8)
    >>> u = channel_vc_usage(ecube_routing(t, datelines=True, vcs=2))
    >>> [int(t.channel_src[c]) for c in np.flatnonzero(u[:, 1]) if t.channel_sign[c] > 0]   # ties go +
    [0, 1, 2, 7]
    >>> [int(t.channel_src[c]) for c in np.flatnonzero(u[:, 1]) if t.channel_sign[c] < 0]
    [0, 6, 7]
    """
    check_routing_function(rf)
    vertices, fan, _ = _cdg_sizes(rf)  # the mask and one destination's exploration at a time (no edge rows)
    check_memory(vertices + 128 * vertices * fan, f"channel VC usage of {rf.name} on {network_size(rf.topology)}, "
                                                 f"up to {vertices:,} virtual channels")  # fmt: skip
    _, used, _ = _edges_reachable(rf, _destinations(rf, None), keep_rows=False)
    return used.reshape(rf.topology.num_channels, rf.num_vcs)


def vcs_per_channel(rf: RoutingFunction, usage: np.ndarray | None = None) -> np.ndarray:
    """Number of distinct VCs used on each physical channel (0 = unused), from :func:`channel_vc_usage`.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> int(vcs_per_channel(ecube_routing(Torus(2, 5), datelines=True, vcs=2)).max())
    2
    """
    check_routing_function(rf)
    if usage is None:
        usage = channel_vc_usage(rf)
    shape = (rf.topology.num_channels, rf.num_vcs)
    usage = check_instance("usage", usage, np.ndarray, "a boolean numpy array")
    if usage.shape != shape or usage.dtype != np.bool_:
        raise ValueError(f"usage must be a boolean array of shape {shape}, got {usage.dtype} {usage.shape}")
    return usage.sum(axis=1)


def _escape_mask(rf: RoutingFunction, escape) -> np.ndarray:
    V = rf.num_vcs
    C = rf.topology.num_channels
    if callable(escape):
        return np.array([bool(escape(c, v)) for c in range(C) for v in range(V)], dtype=bool)
    if isinstance(escape, (str, bytes)) or not isinstance(escape, Iterable):
        raise TypeError(f"escape must be a collection of VC indices or a predicate, got {escape!r}")
    items = check_sequence("escape", escape)
    bad = [v for v in items if not is_int(v) or not 0 <= v < V]
    if bad or not items:
        raise ValueError(f"escape VCs must be a non-empty set of ints in 0..{V - 1}, got {items!r:.200}")
    vcs = {int(v) for v in items}
    return np.tile(np.isin(np.arange(V), sorted(vcs)), C)


@dataclass
class DuatoResult:
    """Outcome of :func:`duato_check`.

    ``connected``: every reachable state (away from the destination) offers an escape VC and escape-only
    routing can never cycle, so R1 always delivers; ``acyclic``: the extended CDG of R1 has no cycle
    (``cycle`` is a witness otherwise); ``deadlock_free`` = both (Duato's sufficient condition).
    """

    name: str
    connected: bool
    acyclic: bool
    cycle: list | None
    states_without_escape: int
    num_vertices: int
    num_edges: int

    @property
    def deadlock_free(self) -> bool:
        return self.connected and self.acyclic


def _escape_only_acyclic(n_states: int, tr: np.ndarray, esc_t: np.ndarray) -> bool:
    g = nx.DiGraph()
    g.add_nodes_from(range(n_states))
    g.add_edges_from(map(tuple, tr[esc_t][:, :2].tolist()))
    return nx.is_directed_acyclic_graph(g)


def extended_cdg(rf: RoutingFunction, escape) -> tuple[nx.DiGraph, int, bool]:
    """Duato's extended CDG of the escape VCs, the number of states without escape and R1's acyclicity.

    ``escape`` is a collection of VC indices or a predicate ``escape(channel, vc) -> bool``.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> g, missing, ok = extended_cdg(ecube_routing(Torus(1, 4), vcs=2), [0])   # escape VC 0 only, no dateline
    >>> nx.is_directed_acyclic_graph(g), missing, ok
    (False, 0, True)
    """
    check_routing_function(rf)
    is_escape = _escape_mask(rf, escape)
    V = rf.num_vcs
    rows = []
    no_escape = 0
    escape_acyclic = True
    dests = _destinations(rf, None)
    _check_cdg_memory(rf, len(dests), "reachable", "extended channel dependency graph")
    for d in dests:
        g = explore_states(rf, d)
        tr = g.transitions
        t_vertex = tr[:, 2] * V + tr[:, 3]
        s_vertex = np.where(g.state_channel >= 0, g.state_channel * V + g.state_vc, -1)
        order = np.argsort(tr[:, 0], kind="stable")
        starts = np.searchsorted(tr[order, 0], np.arange(g.num_states + 1))
        esc_t = is_escape[t_vertex]
        has_escape = np.zeros(g.num_states, dtype=bool)
        has_escape[tr[esc_t, 0]] = True
        active = g.state_node != d
        no_escape += int((active & ~has_escape).sum())
        if escape_acyclic and not _escape_only_acyclic(g.num_states, tr, esc_t):
            escape_acyclic = False
        e = _indirect_edges(g.num_states, s_vertex, order, starts, tr, t_vertex, is_escape)
        if e.size:
            rows.append(np.unique(np.column_stack([e, np.full(len(e), d, dtype=np.int64)]), axis=0))
    allrows = np.concatenate(rows) if rows else np.zeros((0, 3), dtype=np.int64)
    return _graph_from_rows(rf, allrows), no_escape, escape_acyclic


def duato_check(rf: RoutingFunction, escape) -> DuatoResult:
    """Duato's sufficient condition: escape subfunction connected and its extended CDG acyclic.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> duato_check(ecube_routing(Torus(2, 4), datelines=True, vcs=2), escape=[0, 1]).deadlock_free
    True
    """
    g, no_escape, escape_acyclic = extended_cdg(rf, escape)
    cycle = find_witness_cycle(g)
    return DuatoResult(rf.name, no_escape == 0 and escape_acyclic, cycle is None, cycle, no_escape,
                       g.number_of_nodes(), g.number_of_edges())


# ====================================================================== readable output
_DIR_NAMES = {(0, 1): "E", (0, -1): "W", (1, 1): "N", (1, -1): "S"}


def describe_vc(topology: Torus, vertex: tuple[int, int]) -> str:
    """``"(x, y)E/vc1"``-style label of a ``(channel, vc)`` vertex (``*`` = wraparound; ``+d0`` etc. if not 2D).

    Examples
    --------
    >>> t = Torus(2, 4)
    >>> describe_vc(t, (t.channel_id((3, 1), 0, 1), 1))
    '(3, 1)E*/vc1'
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vertex = check_sequence("vertex", vertex)
    if len(vertex) != 2:
        raise TypeError(f"vertex must be a (channel, vc) pair, got {vertex!r}")
    ch, vc = (check_int("vertex", v, minimum=0) for v in vertex)
    with naming("vertex"):
        node, dim, sign = topology.channel(ch)
    name = _DIR_NAMES.get((dim, sign)) if topology.n == 2 else None
    if name is None:
        name = f"{'+' if sign > 0 else '-'}d{dim}"
    wrap = "*" if topology.is_wraparound(int(ch)) else ""
    return f"{node}{name}{wrap}/vc{vc}"


def describe_cycle(topology: Torus, cycle: list | None) -> str:
    """A witness cycle as ``a -> b -> ... -> a`` (``*`` marks wraparound channels); ``"acyclic"`` for None.

    >>> describe_cycle(Torus(1, 3), [(1, 0), (3, 0), (5, 0)])
    '(0,)+d0/vc0 -> (1,)+d0/vc0 -> (2,)+d0*/vc0 -> (0,)+d0/vc0'
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if cycle is None:
        return "acyclic"
    with naming("cycle"):
        labels = [describe_vc(topology, v) for v in check_sequence("cycle", cycle)]
    return " -> ".join(labels + labels[:1])


# ====================================================================== dateline helpers (one ring)
RING_MAX_K = 256
"""Largest ring radix of the ring helpers (they enumerate every minimal route: O(k^3) work)."""


def _check_ring(k: object, sign: object) -> tuple[int, int]:
    if not is_int(k) or not 3 <= k <= RING_MAX_K:
        raise ValueError(f"ring radix k must be an int in 3..{RING_MAX_K}, got {k!r}")
    if not is_int(sign) or sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign!r}")
    return int(k), int(sign)


def default_dateline(k: int, sign: int) -> int:
    """The conventional dateline node: ``k-1`` for ``+`` (crossing hop ``k-1 -> 0``), ``0`` for ``-``.

    >>> default_dateline(5, 1), default_dateline(5, -1)
    (4, 0)
    """
    k, sign = _check_ring(k, sign)
    return k - 1 if sign > 0 else 0


def ring_dateline_classes(k: int, start: int, end: int, sign: int, dateline: int | None = None) -> list[int]:
    """Dateline class (0 = VC1, 1 = VC2) of every hop from ``start`` to ``end`` along ``sign``.

    Switch-at-dateline (``docs/conventions.md#datelines``, the paper's Section 3.1): class 0 until the hop that leaves
    node ``dateline`` in direction ``sign`` (the crossing hop, class 1), class 1 afterwards.

    Examples
    --------
    >>> ring_dateline_classes(5, 3, 1, +1)                 # paper Fig. 3: dateline at node 4
    [0, 1, 1]
    >>> ring_dateline_classes(5, 3, 1, +1, dateline=1)     # never crosses node 1 -> 2
    [0, 0, 0]
    """
    k, sign = _check_ring(k, sign)
    for name, v in (("start", start), ("end", end)):
        if not is_int(v) or not 0 <= v < k:
            raise ValueError(f"{name} must be an int in 0..{k - 1} (a node of the ring of k = {k}), got {v!r}")
    D = default_dateline(k, sign) if dateline is None else dateline
    if not is_int(D) or not 0 <= D < k:
        raise ValueError(f"dateline must be an int in 0..{k - 1} (a node of the ring of k = {k}), got {dateline!r}")
    classes, cls, pos = [], 0, int(start)
    while pos != end:
        if pos == D:
            cls = 1
        classes.append(cls)
        pos = (pos + sign) % k
    return classes


def ring_minimal_routes(k: int, *, bidirectional: bool = True, tie: str = "+") -> list[tuple[int, int, int]]:
    """Every ``(start, end, sign)`` of minimal routing on a ring (``tie``: "+", "-" or "both" for k/2).

    >>> len(ring_minimal_routes(4, tie="both")), len(ring_minimal_routes(4, bidirectional=False))
    (16, 12)
    """
    k, _ = _check_ring(k, 1)
    check_str("tie", tie, ("+", "-", "both"))
    check_instance("bidirectional", bidirectional, (bool, np.bool_), "a bool")
    out = []
    for s in range(k):
        for e in range(k):
            if s == e:
                continue
            f = (e - s) % k
            if not bidirectional or f < k - f:
                out.append((s, e, 1))
            elif f > k - f:
                out.append((s, e, -1))
            else:
                if tie in ("+", "both"):
                    out.append((s, e, 1))
                if tie in ("-", "both"):
                    out.append((s, e, -1))
    return out


def ring_vc_usage(
    k: int, sign: int, dateline: int | None = None, *, bidirectional: bool = True, tie: str = "+"
) -> dict[int, set[int]]:
    """Dateline classes used on each channel of direction ``sign`` (keyed by source position), minimal routing.

    Examples
    --------
    >>> ring_vc_usage(5, +1)          # dateline at node 4: the wrap 4 -> 0 only class 1, 0 -> 1 both
    {0: {0, 1}, 1: {0}, 2: {0}, 3: {0}, 4: {1}}
    """
    k, sign = _check_ring(k, sign)
    usage: dict[int, set[int]] = {p: set() for p in range(k)}
    for s, e, sg in ring_minimal_routes(k, bidirectional=bidirectional, tie=tie):
        if sg != sign:
            continue
        pos = s
        for cls in ring_dateline_classes(k, s, e, sign, dateline):
            usage[pos].add(cls)
            pos = (pos + sign) % k
    return usage


def ring_second_vc_channels(
    k: int, sign: int, dateline: int | None = None, *, bidirectional: bool = True, tie: str = "+"
) -> list[int]:
    """Source positions of the ring channels that carry class 1 (the second VC) under minimal routing.

    The paper (Section 3.2, k = 5, +y, dateline at row 4) says only rows 0 to 2 need two VCs; with the
    crossing hop on VC2 the channels carrying VC2 are those leaving rows 4 and 0 (received at rows 0 and 1).

    Examples
    --------
    >>> ring_second_vc_channels(5, +1), ring_second_vc_channels(5, +1, dateline=1)
    ([0, 4], [1, 2])
    >>> ring_second_vc_channels(5, +1, bidirectional=False)
    [0, 1, 2, 4]
    """
    usage = ring_vc_usage(k, sign, dateline, bidirectional=bidirectional, tie=tie)
    return sorted(p for p, classes in usage.items() if 1 in classes)


# ====================================================================== the first Python versions, kept as references
_DONE = ("done",)
_STUCK = ("stuck",)


def state_graph(routing: RoutingFunction, dst) -> tuple[nx.DiGraph, dict[int, tuple]]:
    """Reachable routing situations towards ``dst`` from every non-faulty source.

    Returns the graph (nodes ``(node, in_ch, in_vc, state)``, terminal ``("done",)``, and ``("stuck",)``
    for situations with no permitted output; edge attribute ``hop = (channel, vc)``) and the start
    situation of each source node id.
    """
    if not isinstance(routing, RoutingFunction):
        raise TypeError(f"routing must be a RoutingFunction, got {routing!r}")
    topo = routing.topology
    with naming("dst"):
        dest = routing._node_id(dst)
    faulty = {topo.node_id(v) for v in routing.faults.nodes} if routing.faults else set()
    channel_dst = topo.channel_dst
    # the graph's nodes and edges in the order the walk meets them (dicts keep it; a repeated edge keeps its place
    # and takes the last hop, as add_edge would), handed to networkx in one go
    situations: dict[tuple, None] = {}
    edges: dict[tuple[tuple, tuple], tuple[int, int] | None] = {}
    starts = {}
    stack = []
    for src in range(topo.num_nodes):
        if src == dest or src in faulty:
            continue
        start = (src, -1, 0, routing.initial_state())
        starts[src] = start
        if start not in situations:
            situations[start] = None
            stack.append(start)
    while stack:
        situation = stack.pop()
        cur, in_ch, in_vc, state = situation
        found = False
        for rand in range(routing.random_choices):
            for channel, vc, state_after in routing._candidate_tuples(cur, dest, in_ch, in_vc, state, rand):
                found = True
                nxt_node = int(channel_dst[channel])
                nxt = _DONE if nxt_node == dest else (nxt_node, channel, vc, state_after)
                if nxt not in situations:
                    situations[nxt] = None
                    if nxt != _DONE:
                        stack.append(nxt)
                edges[situation, nxt] = (channel, vc)
        if not found:
            situations.setdefault(_STUCK, None)
            edges[situation, _STUCK] = None
    graph = nx.DiGraph()
    graph.add_nodes_from(situations)
    graph.add_edges_from((u, v, {"hop": hop}) for (u, v), hop in edges.items())
    return graph, starts


def find_dependency_cycle(cdg: nx.DiGraph) -> list[tuple[int, int]] | None:
    """One cycle of the CDG as a list of ``(channel, vc)`` (None if acyclic)."""
    check_instance("cdg", cdg, nx.DiGraph, "a networkx.DiGraph")
    try:
        return [edge[0] for edge in nx.find_cycle(cdg)]
    except nx.NetworkXNoCycle:
        return None


def _ancestors_or_self(graph: nx.DiGraph, targets: set) -> set:
    """The nodes of ``graph`` with a path to a node of ``targets`` (``targets`` included): one backward search
    from all of them (the union of their ``nx.ancestors``).

    >>> sorted(_ancestors_or_self(nx.DiGraph([(1, 2), (2, 3), (4, 3), (3, 5)]), {3}))
    [1, 2, 3, 4]
    """
    found, frontier = set(targets), list(targets)
    pred = graph.pred
    while frontier:
        for u in pred[frontier.pop()]:
            if u not in found:
                found.add(u)
                frontier.append(u)
    return found


def _longest_to_done(graph: nx.DiGraph, reach_cycle: set) -> dict:
    """Longest path length to ``("done",)`` from every node of ``graph`` outside ``reach_cycle`` (-inf where no
    path reaches it), by longest successor first: a node is settled once all its successors are (their part of the
    graph is acyclic and closed under successors, since a node with a successor in ``reach_cycle`` is in it).

    >>> g = nx.DiGraph([("a", "b"), ("b", _DONE), ("a", _DONE), ("c", _STUCK)])
    >>> _longest_to_done(g, set()) == {_DONE: 0, _STUCK: -math.inf, "b": 1, "a": 2, "c": -math.inf}
    True
    """
    succ, pred = graph.succ, graph.pred
    waiting = {v: len(succ[v]) for v in graph if v not in reach_cycle}
    ready = [v for v, count in waiting.items() if count == 0]
    longest: dict = {}
    while ready:
        v = ready.pop()
        if v == _DONE:
            longest[v] = 0
        else:
            lengths = [longest[w] + 1 for w in succ[v]]
            longest[v] = max(lengths) if lengths else -math.inf
        for u in pred[v]:
            if u in waiting:
                waiting[u] -= 1
                if waiting[u] == 0:
                    ready.append(u)
    return longest


def route_length_table(routing: RoutingFunction) -> pd.DataFrame:
    """Shortest and longest route over all adaptive/random choices for every (src, dst) pair.

    Columns: src, dst, lee (Lee distance), min_hops, max_hops (``inf`` if some choice sequence can loop
    forever), can_stick (some choice sequence reaches a situation with no permitted output).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> t = route_length_table(ecube_routing(Torus(2, 3)))
    >>> bool((t.min_hops == t.lee).all() and (t.max_hops == t.lee).all())
    True
    """
    check_routing_function(routing, "routing")
    topo = routing.topology
    faulty = {topo.node_id(v) for v in routing.faults.nodes} if routing.faults else set()
    rows = []
    for dst in range(topo.num_nodes):
        if dst in faulty:
            continue
        graph, starts = state_graph(routing, dst)
        shortest = nx.single_source_shortest_path_length(graph.reverse(copy=False), _DONE) if _DONE in graph else {}
        cyclic = set()
        for comp in nx.strongly_connected_components(graph):
            if len(comp) > 1 or any(graph.has_edge(v, v) for v in comp):
                cyclic |= comp
        reach_cycle = _ancestors_or_self(graph, cyclic)
        stuck = ("stuck",) in graph
        reach_stuck = (nx.ancestors(graph, ("stuck",)) if stuck else set())
        longest = _longest_to_done(graph, reach_cycle)
        for src, start in starts.items():
            rows.append(
                {
                    "src": src,
                    "dst": dst,
                    "min_hops": shortest.get(start, math.inf),
                    "max_hops": math.inf if start in reach_cycle else longest.get(start, -math.inf),
                    "can_stick": start in reach_stuck,
                }
            )
    table = pd.DataFrame(rows)
    if len(table):  # the Lee distances of every pair at once
        ends = [topo.coords(table[end].to_numpy(dtype=np.int64)) for end in ("src", "dst")]
        table.insert(2, "lee", np.asarray(topo.lee_distance(*ends), dtype=np.int64))
    return table


# ====================================================================== witness cycles and VC budgets
def _check_vertex(name: str, vertex: object) -> tuple[int, int]:
    """A CDG vertex ``(channel, vc)`` as two ints."""
    pair = check_sequence(name, vertex)
    if len(pair) != 2:
        raise ValueError(f"{name} must be a (channel, vc) pair, got {vertex!r}")
    return check_int(name, pair[0], minimum=0), check_int(name, pair[1], minimum=0)


def forced_cycle_messages(rf: RoutingFunction, cycle: Sequence[tuple[int, int]]) -> list[tuple | None]:
    """For each dependency ``cycle[i] -> cycle[i+1]``: a message ``(src, dst)`` that can hold ``cycle[i]``
    and whose *only* permitted output there is ``cycle[i+1]`` (None if no such message exists).

    Used on the witness cycles of the virtual-mesh paper's routings (Upadhyay, Varavithya & Mohapatra, Fig. 2):
    it tells a reachable deadlock configuration from a merely potential one.

    If no entry is None the cycle is a deadlock configuration the routing can reach (``docs/conventions.md#cdg``: every
    message waiting in it has no other permitted output), given enough buffer-filling traffic.

    Examples
    --------
    >>> from torus_lab.routing import make_routing
    >>> t = Torus(1, 4)
    >>> forced_cycle_messages(make_routing("ecube", t), [(1, 0), (3, 0), (5, 0), (7, 0)])  # (0,)->(2,), ...
    [((0,), (2,)), ((1,), (3,)), ((2,), (0,)), ((3,), (1,))]
    """
    check_instance("rf", rf, RoutingFunction)
    cycle = [_check_vertex(f"cycle[{i}]", v) for i, v in enumerate(check_sequence("cycle", cycle, min_length=1))]
    V = rf.num_vcs
    topo = rf.topology
    want = {(int(a[0]), int(a[1])): (int(b[0]), int(b[1])) for a, b in zip(cycle, list(cycle[1:]) + [cycle[0]],
                                                                              strict=True)}
    found: dict[tuple[int, int], tuple] = {}
    for d in range(topo.num_nodes):
        if len(found) == len(want):
            break
        g = explore_states(rf, d)
        tr = g.transitions
        if tr.size == 0:
            continue
        order = np.argsort(tr[:, 0], kind="stable")
        starts = np.searchsorted(tr[order, 0], np.arange(g.num_states + 1))
        parent = np.full(g.num_states, -1, dtype=np.int64)
        loops = tr[:, 0] != tr[:, 1]
        to, first = np.unique(tr[loops, 1], return_index=True)
        parent[to] = tr[loops, 0][first]          # any predecessor works: every state is reachable
        vertex = g.state_channel * V + g.state_vc
        wanted = np.array([c * V + v for c, v in want], dtype=np.int64)
        for s in np.flatnonzero(np.isin(vertex, wanted) & (g.state_channel >= 0) & (g.state_node != d)):
            key = (int(g.state_channel[s]), int(g.state_vc[s]))
            if key in found:
                continue
            outs = {(int(tr[order[p], 2]), int(tr[order[p], 3])) for p in range(starts[s], starts[s + 1])}
            if outs == {want[key]}:
                q, guard = s, 0
                while g.state_channel[q] >= 0 and guard <= g.num_states:
                    q, guard = parent[q], guard + 1
                found[key] = (topo.coords(int(g.state_node[q])), topo.coords(d))
    return [found.get((int(a[0]), int(a[1]))) for a in cycle]


def find_acyclic(graph) -> bool:
    """True when ``graph`` (a CDG) has no cycle: Dally & Seitz's condition for deadlock freedom.

    >>> import networkx as nx
    >>> find_acyclic(nx.DiGraph([(1, 2)])), find_acyclic(nx.DiGraph([(1, 2), (2, 1)]))
    (True, False)
    """
    check_instance("graph", graph, nx.DiGraph, "a networkx.DiGraph")

    return nx.is_directed_acyclic_graph(graph)


def cycle_dimensions(topology: Torus, cycle_channels: object) -> list[int]:
    """The dimensions of the channels of a witness cycle (``cycle_channels``: ``"c:vc c:vc ..."`` as in
    the studies' CDG tables, :func:`cdg_verdict`'s cycle written ``f"{c}:{v}"``; empty for an acyclic CDG).

    One dimension means a wrap-around cycle of one ring (the virtual-mesh paper's Fig. 2(b)).

    >>> torus = Torus(2, 4)
    >>> cycle_dimensions(torus, "1:0 5:0"), cycle_dimensions(torus, "1:0 3:1"), cycle_dimensions(torus, "")
    ([0], [0, 1], [])
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    if not isinstance(cycle_channels, str):
        if cycle_channels is None or pd.isna(cycle_channels):
            return []
        raise TypeError(f"cycle_channels must be a string 'c:vc ...', got {cycle_channels!r}")
    dims = set()
    for item in cycle_channels.split():
        channel, _, vc = item.partition(":")
        if not channel.isdigit() or not vc.isdigit() or int(channel) >= topology.num_channels:
            raise ValueError(f"cycle_channels must list 'channel:vc' pairs of {topology!r}, got {item!r}")
        dims.add(topology.channel(int(channel))[1])
    return sorted(dims)


def channel_vc_listing(rf: RoutingFunction, vc_names: Sequence[str] | None = None) -> pd.DataFrame:
    """Every physical channel with the VCs some message uses on it (``position`` = source coordinate in ``dim``).

    A table of :func:`channel_vc_usage`: one row per channel (routing, channel, node, dim, sign, position, wrap,
    vcs, count); ``vc_names`` names the VCs (default ``VC1``, ``VC2``, ...), as in the virtual-mesh paper's
    Figs. 4-7 (Upadhyay, Varavithya & Mohapatra, Section 3).

    Examples
    --------
    >>> from torus_lab.routing import make_routing
    >>> t = channel_vc_listing(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(1, 5)))
    >>> t[t.sign == 1][["node", "vcs"]].values.tolist()
    [['(0,)', 'VC1 VC2'], ['(1,)', 'VC1'], ['(2,)', 'VC1'], ['(3,)', 'VC1'], ['(4,)', 'VC2']]
    """
    check_instance("rf", rf, RoutingFunction)
    if vc_names is not None:
        vc_names = [check_str("vc_names", v) for v in check_sequence("vc_names", vc_names)]
        if len(vc_names) != rf.num_vcs:
            raise ValueError(f"vc_names must name each of the {rf.num_vcs} VCs of rf, got {len(vc_names)} names")
    topo = rf.topology
    used = channel_vc_usage(rf)
    names = list(vc_names) if vc_names is not None else [f"VC{v + 1}" for v in range(rf.num_vcs)]
    rows = []
    for c in range(topo.num_channels):
        node, dim, sign = topo.channel(c)
        vcs = [names[v] for v in np.flatnonzero(used[c])]
        rows.append({"routing": rf.name, "channel": c, "node": str(node), "dim": dim, "sign": sign,
                     "position": node[dim], "wrap": topo.is_wraparound(c), "vcs": " ".join(vcs), "count": len(vcs)})
    return pd.DataFrame(rows)


def set_partitions(size: int) -> list[tuple[int, ...]]:
    """Every partition of ``range(size)`` into blocks, as restricted growth strings (item i -> its block, blocks
    numbered in order of first appearance); there are Bell(size) of them: the ways to merge VC classes onto
    fewer VCs (:func:`merged_cdg_acyclic`).

    >>> set_partitions(3)
    [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1), (0, 1, 2)]
    >>> [len(set_partitions(s)) for s in range(1, 7)]
    [1, 2, 5, 15, 52, 203]
    """
    size = check_int("size", size, minimum=1, maximum=10)
    out: list[tuple[int, ...]] = [(0,)]
    for _ in range(size - 1):
        out = [p + (b,) for p in out for b in range(max(p) + 2)]
    return out


def merged_cdg_acyclic(edges: np.ndarray, num_channels: int, assignment: Sequence[int]) -> bool:
    """True when the CDG ``edges`` (rows ``channel, class, channel, class``) stays acyclic after every VC class
    ``c`` is mapped to the VC ``assignment[c]`` (several classes sharing one VC).

    With :func:`set_partitions` this finds the fewest VCs a class-level construction needs (the virtual-mesh
    paper's VC budget, Section 3).

    The routing's paths and header states do not depend on the VC a class is given, so the CDG with merged
    classes is exactly the image of the class-level CDG (a self-loop is a cycle).

    >>> ring = np.array([[0, 0, 1, 0], [1, 0, 2, 1], [2, 1, 0, 1]])   # 0 -> 1 -> 2 -> 0 with a class switch
    >>> merged_cdg_acyclic(ring, 3, [0, 1]), merged_cdg_acyclic(ring, 3, [0, 0])
    (True, False)
    """
    edges = np.asarray(check_instance("edges", edges, np.ndarray, "an int array of shape (m, 4)"))
    if edges.ndim != 2 or edges.shape[1] != 4 or (edges.size and not np.issubdtype(edges.dtype, np.integer)):
        raise ValueError(f"edges must be an int array of shape (m, 4), got shape {edges.shape} {edges.dtype}")
    num_channels = check_int("num_channels", num_channels, minimum=1)
    assign = np.asarray([check_int("assignment[i]", a, minimum=0) for a in check_sequence("assignment", assignment,
                                                                                          min_length=1)])
    if edges.size and (edges.min() < 0 or edges[:, [1, 3]].max() >= len(assign)
                       or edges[:, [0, 2]].max() >= num_channels):
        raise ValueError(f"edges must name classes in 0..{len(assign) - 1} (the assignment's length) and channels "
                         f"in 0..{num_channels - 1}, got values {edges.min()}..{edges.max()}")
    if not edges.size:
        return True
    vcs = int(assign.max()) + 1
    src = edges[:, 0] * vcs + assign[edges[:, 1]]
    dst = edges[:, 2] * vcs + assign[edges[:, 3]]
    if (src == dst).any():
        return False
    vertices, labels = np.unique(np.concatenate([src, dst]), return_inverse=True)
    size = len(vertices)
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (labels[:len(src)], labels[len(src):])),
                       shape=(size, size)).tocsr()
    count, _ = connected_components(graph, directed=True, connection="strong")
    return int(count) == size


def cdg_acyclic(rf: RoutingFunction) -> bool:
    """True when the CDG of ``rf`` over every reachable routing state of every pair has no cycle (the verdict of
    :func:`cdg_verdict` without a witness cycle or a networkx graph: a strongly-connected-components count, for
    searches that judge many routings).

    >>> from torus_lab.routing.ecube import ecube_routing
    >>> cdg_acyclic(ecube_routing(Torus(1, 4))), cdg_acyclic(ecube_routing(Torus(1, 4), datelines=True, vcs=2))
    (False, True)
    """
    check_routing_function(rf)
    dests = _destinations(rf, None)
    _check_cdg_memory(rf, len(dests), "reachable")
    rows, _, _ = _edges_reachable(rf, dests)
    V = rf.num_vcs
    edges = np.stack([rows[:, 0] // V, rows[:, 0] % V, rows[:, 1] // V, rows[:, 1] % V], axis=1)
    return merged_cdg_acyclic(edges, rf.topology.num_channels, list(range(V)))


#: Largest number of dateline placements :func:`dateline_search` judges.
MAX_DATELINE_CONFIGS = 100_000


@dataclass(frozen=True)
class DatelineSearch:
    """What :func:`dateline_search` found.

    Attributes
    ----------
    space : int
        Dateline placements of the search space (up to translation, see :func:`dateline_configuration`).
    tried : int
        Placements judged (``space`` when ``exhaustive``, else a random sample without repetition).
    acyclic : int
        Placements judged whose CDG is acyclic.
    exhaustive : bool
    example : tuple or None
        One acyclic placement (rows ``(x+, x-, y+, y-)`` per VN), or None.
    """

    space: int
    tried: int
    acyclic: int
    exhaustive: bool
    example: tuple | None


def _dateline_free_slots(vns: int, bidirectional: bool) -> list[tuple[int, int]]:
    """The (vn, slot) entries a placement chooses per dimension (slot 0: ``+``, 1: ``-``); VN0's ``+`` dateline is
    fixed at the wrap link (translation along the dimension moves every dateline together)."""
    signs = (0, 1) if bidirectional else (0,)
    return [(vn, s) for vn in range(vns) for s in signs if (vn, s) != (0, 0)]


def dateline_space(k: int, *, vns: int, bidirectional: bool) -> int:
    """The number of dateline placements of a 2-D ``k x k`` torus up to translation: each dimension places the
    datelines of its ring directions and virtual networks independently, VN0's ``+`` dateline fixed at node
    ``k - 1``.

    >>> dateline_space(4, vns=1, bidirectional=True), dateline_space(4, vns=2, bidirectional=True)
    (16, 4096)
    >>> dateline_space(5, vns=1, bidirectional=False)     # one dateline per dimension: all equivalent
    1
    """
    k = check_int("k", k, minimum=3, maximum=4096)
    vns = check_int("vns", vns, minimum=1, maximum=2)
    check_instance("bidirectional", bidirectional, (bool, np.bool_), "a bool")
    return k ** (2 * len(_dateline_free_slots(vns, bool(bidirectional))))


def dateline_configuration(k: int, index: int, *, vns: int, bidirectional: bool) -> tuple:
    """Dateline placement number ``index`` (``0 <= index <`` :func:`dateline_space`) as rows ``(x+, x-, y+, y-)``
    per VN (the form ``datelines=`` of :func:`torus_lab.routing.turn_model.pfnf_routing` takes); placement 0 puts
    every dateline on the wrap links (``k - 1`` for ``+``, ``0`` for ``-``); unused ``-`` entries of a
    unidirectional torus are 0.

    >>> dateline_configuration(4, 0, vns=1, bidirectional=True), dateline_configuration(4, 1, vns=1,
    ...                                                                                 bidirectional=True)
    (((3, 0, 3, 0),), ((3, 1, 3, 0),))
    """
    space = dateline_space(k, vns=vns, bidirectional=bidirectional)
    index = check_int("index", index, minimum=0, maximum=space - 1)
    rows = [[k - 1, 0, k - 1, 0] for _ in range(vns)]
    for d in range(2):
        for vn, s in _dateline_free_slots(vns, bool(bidirectional)):
            index, shift = divmod(index, k)
            rows[vn][2 * d + s] = ((k - 1 if s == 0 else 0) + shift) % k
    return tuple(tuple(r) for r in rows)


def dateline_search(build, k: int, *, vns: int, bidirectional: bool, max_configs: int = 256,
                    seed: int | np.random.SeedSequence = 0) -> DatelineSearch:  # fmt: skip
    """Search dateline placements for one whose CDG is acyclic: ``build(datelines)`` makes the routing of a
    placement (:func:`dateline_configuration`), judged by :func:`cdg_acyclic`.  Every placement of
    :func:`dateline_space` when there are at most ``max_configs``, else ``max_configs`` of them drawn without
    repetition (placement 0, the wrap links, always among them) (``docs/conventions.md#dateline-search``).

    Examples
    --------
    >>> from torus_lab.routing.turn_model import turn_model_routing
    >>> found = dateline_search(lambda dl: turn_model_routing(Torus(2, 4), "west-first", scheme="paper",
    ...                                                       datelines=dl), 4, vns=1, bidirectional=True)
    >>> found.space, found.tried, found.exhaustive
    (16, 16, True)
    """
    if not callable(build):
        raise TypeError(f"build must be a callable datelines -> RoutingFunction, got {build!r}")
    space = dateline_space(k, vns=vns, bidirectional=bidirectional)
    max_configs = check_int("max_configs", max_configs, minimum=1, maximum=MAX_DATELINE_CONFIGS)
    if space <= max_configs:
        indices = list(range(space))
    else:
        seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(
            check_int("seed", seed, minimum=0))
        rng = np.random.default_rng(seq)
        drawn = rng.choice(np.arange(1, space, dtype=np.int64), size=max_configs - 1, replace=False)
        indices = [0, *sorted(int(i) for i in drawn)]
    acyclic, example = 0, None
    for index in indices:
        datelines = dateline_configuration(k, index, vns=vns, bidirectional=bidirectional)
        if cdg_acyclic(build(datelines)):
            acyclic += 1
            example = example or datelines
    return DatelineSearch(space, len(indices), acyclic, space <= max_configs, example)
