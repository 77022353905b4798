"""Baselines for pairwise disjoint-path routing in an (n, k)-torus: greedy shortest paths and the MILP optimum.

Both take the same input as :func:`torus_lab.routing.disjoint_paths.pairwise_disjoint_paths` and return paths
as lists of coordinate tuples, so the same verifier checks them.

* :func:`greedy_disjoint_paths` routes the pairs one after the other, each on a shortest path (A* with the Lee
  distance, i.e. BFS order) that avoids every vertex already used and every other pair's endpoints.  It can
  fail where a disjoint solution exists; trying a few pair orders helps.
* :func:`solve_min_max_milp` solves the integer programme "minimise the longest path" (unit-capacity
  multicommodity flow, ``scipy.optimize.milp`` with HiGHS) under a deterministic node limit and reports the
  solver status and the proved bounds; :func:`optimal_disjoint_paths` returns its paths when proved optimal.
  Practical on small tori only.
* :func:`lee_lower_bound` is the trivial lower bound: the largest Lee distance of a pair.

Examples
--------
>>> pairs = [((0, 0), (2, 0)), ((1, 4), (1, 1))]
>>> greedy_disjoint_paths((2, 5), pairs)
[[(0, 0), (1, 0), (2, 0)], [(1, 4), (1, 3), (1, 2), (1, 1)]]
>>> max(len(p) - 1 for p in optimal_disjoint_paths((2, 5), pairs))
3
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from torus_lab._memory import check_memory
from torus_lab._validate import check_int, check_real, check_str
from torus_lab.routing.disjoint_paths import Node, check_pairs, check_problem
from torus_lab.topology import Torus

__all__ = [
    "GREEDY_ORDERS", "MILP_STATUSES", "MilpResult", "greedy_disjoint_paths", "lee_lower_bound",
    "optimal_disjoint_paths", "solve_min_max_milp",
]  # fmt: skip

#: Bytes per flow variable (pair, directed link) of the integer programme: its Python and sparse constraint
#: rows and HiGHS's copy (2.4 to 7 KB of resident memory measured on (2, 200), (4, 7), (3, 9) tori; the larger
#: figures include the solver's fixed start-up cost).
_MILP_BYTES_PER_VARIABLE = 4096

#: Pair orders of the greedy baseline: as given, shortest Lee distance first, longest first.
GREEDY_ORDERS = ("index", "shortest_first", "longest_first")


class _Grid:
    def __init__(self, n: int, k: int) -> None:
        self.n, self.k = n, k
        self.strides = [k**d for d in range(n)]

    def to_id(self, node: Node) -> int:
        return sum(x * s for x, s in zip(node, self.strides, strict=True))

    def to_node(self, v: int) -> Node:
        k = self.k
        return tuple([(v // s) % k for s in self.strides])

    def neighbors(self, v: int) -> list[int]:
        k, out = self.k, []
        for s in self.strides:
            x = (v // s) % k
            out.append(v + (((x - 1) % k) - x) * s)
            out.append(v + (((x + 1) % k) - x) * s)
        return out

    def lee(self, a: Node, b: Node) -> int:
        k = self.k
        return sum(min((x - y) % k, (y - x) % k) for x, y in zip(a, b, strict=True))


def _astar(grid: _Grid, s: int, t: int, blocked: set[int], max_expansions: int) -> list[int] | None:
    """Shortest s-t path avoiding ``blocked`` (A* with the Lee distance; ties towards deeper nodes).

    Neighbours are visited in :meth:`_Grid.neighbors` order (per dimension, ``-`` then ``+``), and a neighbour's
    Lee distance to ``t`` is its node's with one dimension's ring distance replaced (no per-node coordinate sums).
    """
    if s == t:
        return [s]
    k, strides = grid.k, grid.strides
    target = [(t // stride) % k for stride in strides]
    ring = [min(d, k - d) for d in range(k)]  # ring distance by the coordinate difference mod k
    dims = list(zip(strides, target, strict=True))
    parent = {s: s}
    g = {s: 0}
    h = {s: sum(ring[((s // stride) - y) % k] for stride, y in dims)}
    heap = [(h[s], 0, s)]
    expansions = 0
    while heap:
        _, neg_g, v = heapq.heappop(heap)
        if -neg_g != g[v]:
            continue
        if v == t:
            path = [t]
            while path[-1] != s:
                path.append(parent[path[-1]])
            return path[::-1]
        expansions += 1
        if expansions > max_expansions:
            return None
        g_next, h_v = g[v] + 1, h[v]
        for stride, y in dims:
            x = (v // stride) % k
            h_rest = h_v - ring[(x - y) % k]
            for x_next in ((x - 1) % k, (x + 1) % k):
                w = v + (x_next - x) * stride
                if w in blocked or (w in g and g[w] <= g_next):
                    continue
                g[w] = g_next
                h[w] = h_rest + ring[(x_next - y) % k]
                parent[w] = v
                heapq.heappush(heap, (g_next + h[w], -g_next, w))
    return None


def greedy_disjoint_paths(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    order: str = "index",
    max_expansions: int = 200_000,
) -> list[list[Node]] | None:
    """Greedy sequential shortest paths, or None if some pair cannot be routed.

    Parameters
    ----------
    torus, pairs
        As for :func:`~torus_lab.routing.disjoint_paths.pairwise_disjoint_paths` (same preconditions).
    order : {"index", "shortest_first", "longest_first"}
        Order in which the pairs are routed (Lee distance of the pair for the last two).
    max_expansions : int
        A* gives up (the pair counts as not routable) after this many expanded vertices; only reached when a
        vertex is walled in, in which case a full search of a large torus would be very slow.

    Examples
    --------
    >>> greedy_disjoint_paths((2, 5), [((0, 0), (0, 2)), ((0, 1), (0, 3))], order="longest_first")
    [[(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)], [(0, 1), (4, 1), (4, 2), (4, 3), (0, 3)]]
    """
    check_str("order", order, GREEDY_ORDERS)
    max_expansions = check_int("max_expansions", max_expansions, minimum=0)
    n, k, checked = check_problem(torus, pairs)
    grid = _Grid(n, k)
    ids = [(grid.to_id(s), grid.to_id(d)) for s, d in checked]
    sequence = list(range(len(ids)))
    if order != "index":
        sequence.sort(key=lambda i: grid.lee(checked[i][0], checked[i][1]), reverse=order == "longest_first")
    used = {v for pair in ids for v in pair}
    paths: list[list[Node] | None] = [None] * len(ids)
    for i in sequence:
        s, t = ids[i]
        blocked = used - {s, t}
        path = _astar(grid, s, t, blocked, max_expansions)
        if path is None:
            return None
        used.update(path)
        paths[i] = [grid.to_node(v) for v in path]
    return paths  # type: ignore[return-value]


#: Solver statuses of :class:`MilpResult`: proved optimal, stopped by the deterministic node limit, stopped by
#: the (machine-dependent) time limit, no solution exists, anything else HiGHS reports.
MILP_STATUSES = ("optimal", "node_limit", "time_limit", "infeasible", "other")


@dataclass(frozen=True)
class MilpResult:
    """Result of :func:`solve_min_max_milp`.

    ``paths`` is the best solution found (None if none), ``upper`` its longest path (None if none), ``lower``
    the best proved lower bound on the optimum (the solver's dual bound rounded up, at least the largest Lee
    distance of a pair), ``optimum`` the optimum when proved (``status == "optimal"``), ``nodes`` the
    branch-and-bound nodes HiGHS solved.
    """

    status: str
    paths: list[list[Node]] | None
    upper: int | None
    lower: int
    nodes: int

    @property
    def optimum(self) -> int | None:
        """The proved optimum (longest path of an optimal solution), or None."""
        return self.upper if self.status == "optimal" else None


def lee_lower_bound(torus: Torus | tuple[int, int], pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> int:
    """The trivial lower bound on the longest of any ``c`` disjoint paths: the largest Lee distance of a pair.

    Examples
    --------
    >>> lee_lower_bound((2, 5), [((0, 0), (2, 4)), ((1, 1), (1, 1))])
    3
    """
    _, k, checked = check_pairs(torus, pairs)
    return max((sum(min((a - b) % k, (b - a) % k) for a, b in zip(s, d, strict=True)) for s, d in checked),
               default=0)  # fmt: skip


def solve_min_max_milp(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    upper_bound: int | None = None,
) -> MilpResult:
    """Disjoint paths minimising the longest path length, by integer programming (exact when it finishes).

    Formulation: one binary flow variable per (pair, directed link); flow conservation per pair and vertex;
    at most one unit of flow enters any vertex; flows never touch another pair's endpoints; ``L >=`` every
    pair's number of links and ``L >=`` the largest Lee distance of a pair (:func:`lee_lower_bound`, a valid
    cut that lets the solver stop as soon as a solution attains it); minimise ``L``.  A solution may carry
    flow on cycles away from the paths (they cost nothing): each path is read by following the flow from its
    source, and its length is at most ``L``.  Solved by ``scipy.optimize.milp`` (HiGHS).

    ``upper_bound``, the longest path of a known solution (e.g. a heuristic's), is a valid cut
    ``L <= upper_bound`` that only speeds the solver up.  ``node_limit`` (branch-and-bound nodes) is
    deterministic: the same instance gives the same result on every machine.  ``time_limit`` (seconds) is not,
    and is meant only as a safety net; ``status`` says which limit stopped the solver (:data:`MILP_STATUSES`).
    The programme has ``c * 2n * k**n`` variables; its memory is estimated first and a torus too large for the
    memory limit is refused with a ``MemoryLimitError`` (a ``MemoryError``) before anything is built.

    Examples
    --------
    >>> result = solve_min_max_milp((2, 5), [((0, 0), (0, 2)), ((0, 1), (4, 1))], node_limit=100)
    >>> result.status, result.optimum, result.lower
    ('optimal', 3, 3)
    """
    limits = _check_milp_limits(node_limit, time_limit, upper_bound)
    from scipy.optimize import Bounds, LinearConstraint, milp

    n, k, checked = check_problem(torus, pairs)
    check_memory(_MILP_BYTES_PER_VARIABLE * len(checked) * 2 * n * k**n,
                 f"the integer programme of optimal_disjoint_paths on the ({n}, {k})-torus ({len(checked)} pairs x "
                 f"{2 * n * k**n:,} directed links)")
    lee = lee_lower_bound((n, k), checked)
    grid = _Grid(n, k)
    ids = [(grid.to_id(s), grid.to_id(d)) for s, d in checked]
    tails, heads = _directed_links(grid)
    routed = [i for i, (s, d) in enumerate(ids) if s != d]
    if not routed:
        return MilpResult("optimal", [[s] for s, _ in checked], 0, 0, 0)
    matrix, lo, hi, upper = _flow_constraints(ids, routed, tails, heads, k**n)
    lower = np.zeros(len(upper))
    if limits.upper_bound is not None and limits.upper_bound < lee:
        raise ValueError(f"upper_bound = {limits.upper_bound} is below the largest Lee distance of a pair ({lee}): "
                         "no solution is that short")
    lower[-1], upper[-1] = lee, np.inf if limits.upper_bound is None else limits.upper_bound
    cost = np.zeros(len(upper))
    cost[-1] = 1.0
    integrality = np.ones(len(upper))
    integrality[-1] = 0
    result = milp(cost, constraints=LinearConstraint(matrix, lo, hi), integrality=integrality,
                  bounds=Bounds(lower, upper), options=limits.solver_options())  # fmt: skip
    return _milp_result(result, grid, ids, routed, tails, heads, lee)


@dataclass(frozen=True)
class _MilpLimits:
    """The checked limits of :func:`solve_min_max_milp` (None: no limit)."""

    node_limit: int | None
    time_limit: float | None
    upper_bound: int | None

    def solver_options(self) -> dict[str, float | int]:
        """The ``options`` of ``scipy.optimize.milp`` that impose the node and time limits."""
        options: dict[str, float | int] = {}
        if self.node_limit is not None:
            options["node_limit"] = self.node_limit
        if self.time_limit is not None:
            options["time_limit"] = float(self.time_limit)
        return options


def _check_milp_limits(node_limit: object, time_limit: object, upper_bound: object) -> _MilpLimits:
    """The limits of :func:`solve_min_max_milp`, checked (ValueError/TypeError naming the parameter).

    Examples
    --------
    >>> _check_milp_limits(10, None, 4).solver_options()
    {'node_limit': 10}
    """
    if node_limit is not None:
        node_limit = check_int("node_limit", node_limit, minimum=1, maximum=2**31 - 1)  # HiGHS takes a C int
    if time_limit is not None:
        time_limit = check_real("time_limit", time_limit, minimum=0)
    if upper_bound is not None:
        upper_bound = check_int("upper_bound", upper_bound, minimum=0)
    return _MilpLimits(node_limit, time_limit, upper_bound)  # type: ignore[arg-type]


def _directed_links(grid: _Grid) -> tuple[np.ndarray, np.ndarray]:
    """Tail and head vertex ids of every directed link, ``2n`` per vertex in :meth:`_Grid.neighbors` order.

    Examples
    --------
    >>> tails, heads = _directed_links(_Grid(1, 5))
    >>> tails.tolist(), heads.tolist()
    ([0, 0, 1, 1, 2, 2, 3, 3, 4, 4], [4, 1, 0, 2, 1, 3, 2, 4, 3, 0])
    """
    num_nodes = grid.k**grid.n
    tails = np.repeat(np.arange(num_nodes), 2 * grid.n)
    heads = np.array([w for v in range(num_nodes) for w in grid.neighbors(v)])
    return tails, heads


def _flow_constraints(
    ids: list[tuple[int, int]], routed: list[int], tails: np.ndarray, heads: np.ndarray, num_nodes: int
) -> tuple[object, list[float], list[float], np.ndarray]:
    """The constraint matrix, its row bounds and the variables' upper bounds of the min-max programme.

    Variables: one flow per (routed pair, directed link), then ``L``.  Rows: flow conservation per routed pair
    and vertex, at most one unit entering each vertex, each routed pair's number of links ``<= L``.  A flow is
    fixed to 0 on a link touching another pair's endpoint, entering its own source or leaving its destination.

    Examples
    --------
    >>> tails, heads = _directed_links(_Grid(1, 5))
    >>> matrix, lo, hi, upper = _flow_constraints([(0, 2)], [0], tails, heads, 5)
    >>> matrix.shape, [float(v) for v in lo[:5]], hi[5:10], int(upper.sum())  # 6 of 10 links usable, and L
    ((11, 11), [1.0, 0.0, -1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0], 7)
    """
    from scipy.sparse import coo_matrix

    arcs = len(tails)
    num_vars = len(routed) * arcs + 1
    owner = np.full(num_nodes, -1)
    for i, (s, d) in enumerate(ids):
        owner[s] = owner[d] = i
    upper = np.ones(num_vars)
    rows, cols, vals, lo, hi = [], [], [], [], []
    row = 0
    for slot, i in enumerate(routed):
        s, d = ids[i]
        base = slot * arcs
        forbidden = ((owner[tails] >= 0) & (owner[tails] != i)) | ((owner[heads] >= 0) & (owner[heads] != i))
        forbidden |= (heads == s) | (tails == d)
        upper[base : base + arcs][forbidden] = 0
        # conservation: out - in = +1 at s, -1 at d, 0 elsewhere
        rows += list(row + tails) + list(row + heads)
        cols += list(base + np.arange(arcs)) * 2
        vals += [1.0] * arcs + [-1.0] * arcs
        rhs = np.zeros(num_nodes)
        rhs[s], rhs[d] = 1, -1
        lo += list(rhs)
        hi += list(rhs)
        row += num_nodes
    for slot in range(len(routed)):  # at most one unit enters each vertex, over all pairs
        rows += list(row + heads)
        cols += list(slot * arcs + np.arange(arcs))
        vals += [1.0] * arcs
    lo += [0.0] * num_nodes
    hi += [1.0] * num_nodes
    row += num_nodes
    for slot in range(len(routed)):  # links of each pair <= L
        rows += [row] * (arcs + 1)
        cols += list(slot * arcs + np.arange(arcs)) + [num_vars - 1]
        vals += [1.0] * arcs + [-1.0]
        lo.append(-np.inf)
        hi.append(0.0)
        row += 1
    matrix = coo_matrix((vals, (rows, cols)), shape=(row, num_vars)).tocsr()
    return matrix, lo, hi, upper


def _milp_result(result: object, grid: _Grid, ids: list[tuple[int, int]], routed: list[int], tails: np.ndarray,
                 heads: np.ndarray, lee: int) -> MilpResult:  # fmt: skip
    """:class:`MilpResult` of a ``scipy.optimize.milp`` result: status, proved bound, the paths read off the flow.

    The proved lower bound is the solver's dual bound rounded up, at least ``lee``; each path follows its pair's
    flow from the source (flow on cycles away from the path is ignored); an optimal solution proves its own
    longest path.
    """
    status = _milp_status(result.status, str(result.message))
    dual = getattr(result, "mip_dual_bound", None)
    proved = lee if dual is None or not np.isfinite(dual) else max(lee, int(np.ceil(dual - 1e-6)))
    nodes = int(getattr(result, "mip_node_count", 0) or 0)
    if result.x is None:
        return MilpResult(status, None, None, proved, nodes)
    x = np.round(result.x[:-1]).astype(int)
    arcs = len(tails)
    paths: list[list[Node]] = []
    for i, (s, d) in enumerate(ids):
        if s == d:
            paths.append([grid.to_node(s)])
            continue
        slot = routed.index(i)
        succ = {int(tails[a]): int(heads[a]) for a in np.flatnonzero(x[slot * arcs : (slot + 1) * arcs])}
        path = [s]
        while path[-1] != d:
            path.append(succ[path[-1]])
        paths.append([grid.to_node(v) for v in path])
    longest = max(len(p) - 1 for p in paths)
    if status == "optimal":
        proved = longest
    return MilpResult(status, paths, longest, min(proved, longest), nodes)


def _milp_status(code: int, message: str) -> str:
    """:data:`MILP_STATUSES` name of a ``scipy.optimize.milp`` status code and message.

    scipy maps HiGHS's node limit (HiGHS model status 16, "Solution limit reached") to its catch-all code 4, so
    the message decides; a time limit is code 1 ("Time limit reached").

    Examples
    --------
    >>> _milp_status(4, "The HiGHS status code was not recognized. (HiGHS Status 16: Solution limit reached)")
    'node_limit'
    """
    text = message.lower()
    if code == 0:
        return "optimal"
    if "status 16:" in text or "solution limit" in text or "node limit" in text:
        return "node_limit"
    if "time limit" in text:
        return "time_limit"
    return "infeasible" if code == 2 else "other"


def optimal_disjoint_paths(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    time_limit: float = 60.0,
    node_limit: int | None = None,
) -> list[list[Node]] | None:
    """Disjoint paths minimising the longest path length (:func:`solve_min_max_milp`), or None if no solution
    was proved optimal within the limits (or none exists).

    Examples
    --------
    >>> paths = optimal_disjoint_paths((2, 5), [((0, 0), (0, 2)), ((0, 1), (4, 1))])
    >>> max(len(p) - 1 for p in paths)
    3
    """
    time_limit = check_real("time_limit", time_limit, minimum=0)
    result = solve_min_max_milp(torus, pairs, node_limit=node_limit, time_limit=time_limit)
    return result.paths if result.status == "optimal" else None
