"""Pairwise vertex-disjoint paths in an (n, k)-torus (Bossard & Kaneko, *Sensors* 18(11):3912, 2018).

Given ``c <= n`` vertex pairs ``(s_i, d_i)`` of an ``(n, k)``-torus with ``n < k`` and ``k >= 5`` (the ``2c``
vertices distinct across pairs, ``s_i = d_i`` allowed), :func:`pairwise_disjoint_paths` selects ``c`` mutually
vertex-disjoint paths ``s_i ~> d_i`` of length at most ``2k(c-1) + n*floor(k/2)`` (paper, Theorem 1).

The implementation follows the paper's Section 3 (choices where it is open: ``docs/conventions.md#bk-candidates`` ff.):

* base case ``c = 1``: dimension-order routing (Algorithm 1; dimensions ascending, minimal direction, tie ``+``);
  ``n = 1`` is the ring case of it;
* general case ``n >= 3`` (free dimensions of the current subtorus), Steps 1-6: choice of ``delta``, ``T'``
  and ``T``, Lemma 1's candidate paths ``p, P1, P2`` and Lemma 2's re-routing (threat check and swap);
* special case ``n = 2, c = 2`` (Section 3.3 and the correctness proof, Figure 8).

REC (default) choices (all recorded in :class:`TraceLevel` and the notebook):

* candidates in the order ``p``, then ``P1`` (free dimensions ascending, ``-e_i`` before ``+e_i``), then
  ``P2`` in the same order (ALT ``detour_order="+-"``);
* a vertex bound for subtorus ``X`` while avoiding ``Y`` moves along ``delta`` on the arc that does not contain
  ``Y`` ("forced direction"); a vertex that lies inside ``Y`` (possible only after a Lemma-2 swap) takes the
  shorter arc, tie ``+``;
* a candidate is *blocked* when one of its vertices after the start is a pair vertex of another pair or lies on
  an already selected path of another pair;
* ``delta`` = first free dimension; ``T'`` = lowest qualifying ``gamma``; ``rho`` = the pair owning a vertex of
  ``T'``, else the lowest pair index; ``T`` = lowest ``gamma != gamma(T')`` with ``rho`` outside it
  (``choose_T="paper"``) - the ALT ``choose_T="short"`` implements the paper's future-work idea (Section 8):
  among the admissible ``T`` take the one minimising the longest straight pair distance ``|s ~> T| + |d ~> T|``;
* Lemma 2: the first *threatened* T-bound vertex (the first obstacle on its straight path belongs to ``rho``) has
  its pair routed first; if it is fully blocked, ``rho``'s paths are discarded and the lowest-index other pair
  (else the threatened vertex's own pair) goes to ``T'`` with straight paths (ALT ``lemma2="blocked"``: look
  at every threatened vertex and swap if any of them is fully blocked);
* robustness layer: if a step finds no candidate the attempt is abandoned and the next ``T``, then the next
  ``T'``, then the next ``delta`` is tried; a completion inside ``T'`` that meets an obstacle is replaced by a
  BFS shortest path.  Every such event is a counted :class:`Fallback` (the paper predicts none); nothing is
  silent.

Examples
--------
>>> from torus_lab.topology import Torus
>>> torus = Torus(3, 5)
>>> pairs = [((0, 0, 0), (2, 2, 2)), ((0, 1, 0), (4, 1, 3)), ((1, 0, 0), (1, 0, 0))]
>>> paths = pairwise_disjoint_paths(torus, pairs)
>>> [len(p) - 1 for p in paths]
[8, 3, 0]
>>> verify_disjoint_paths(torus, pairs, paths) is None
True
"""

from __future__ import annotations

import itertools
import numbers
import operator
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from torus_lab._memory import check_memory
from torus_lab._validate import check_instance, check_int, check_sequence, check_str, is_int
from torus_lab.topology import Torus

__all__ = [
    "CHOOSE_T",
    "DETOUR_ORDERS",
    "DisjointPathsError",
    "DisjointPathsRun",
    "LEMMA2_RULES",
    "Fallback",
    "TraceLevel",
    "Violation",
    "check_pairs",
    "check_problem",
    "disjoint_paths_run",
    "format_trace",
    "length_bound",
    "pairwise_disjoint_paths",
    "torus_shape",
    "verify_disjoint_paths",
]

#: Rules for choosing subtorus T: REC (``"paper"``) and the future-work variant (``"short"``).
CHOOSE_T = ("paper", "short")
#: Which threatened vertex Lemma 2 examines: REC ``"first"``, ALT ``"blocked"`` (a fully blocked one if any).
LEMMA2_RULES = ("first", "blocked")
#: Order of the two sideways detours of P1/P2 in a dimension: REC ``"-+"`` (reproduces Table 2), ALT ``"+-"``.
DETOUR_ORDERS = ("-+", "+-")

Node = tuple[int, ...]


class DisjointPathsError(RuntimeError):
    """Every choice of ``delta``, ``T'`` and ``T`` failed on an instance (never expected by the paper)."""


class _StepFailed(Exception):
    """One attempt (fixed delta, T', T) of one recursion level found no candidate."""


@dataclass(frozen=True)
class Fallback:
    """A counted deviation from the paper's algorithm as written.

    ``kind`` is ``"retry"`` (an attempt was abandoned; ``detail`` says which step failed and which delta/T'/T
    were tried) or ``"bfs_in_T_prime"`` (the in-``T'`` completion met an obstacle and BFS replaced DOR).
    Events inside an attempt that a higher level later abandons are counted too.
    """

    level: int
    kind: str
    detail: str


@dataclass
class TraceLevel:
    """One level of the recursion, in the vocabulary of the paper's Table 2.

    Vertices are coordinate tuples and paths are tuples of them, starting at the routed vertex.  Keys
    ``(pair, "s")``/``(pair, "d")`` use the 0-based index of the pair in the caller's list; ``delta`` is 0-based
    (the paper's ``delta`` is ``delta + 1``).
    """

    level: int
    case: str  # "base", "general" or "special"
    free_dims: tuple[int, ...]
    pairs: dict[int, tuple[Node, Node]]
    delta: int | None = None
    gamma_t_prime: int | None = None
    gamma_t: int | None = None
    rho: int | None = None
    threatened: tuple[int, str] | None = None
    swapped: bool = False
    to_t_prime: dict[tuple[int, str], tuple[Node, ...]] = field(default_factory=dict)
    to_t: dict[tuple[int, str], tuple[Node, ...]] = field(default_factory=dict)
    through_t_prime: tuple[int, str] | None = None
    completions: dict[int, tuple[Node, ...]] = field(default_factory=dict)
    merged: dict[int, tuple[Node, ...]] = field(default_factory=dict)
    base_path: tuple[Node, ...] | None = None


@dataclass
class DisjointPathsRun:
    """Result of :func:`disjoint_paths_run`: the paths, the recursion trace, the counted fallbacks and the work.

    ``work`` counts the algorithm's elementary vertex operations: every vertex of every path it builds (Lemma 1
    candidates ``p``/``P1``/``P2`` in the order tried, Lemma 2's straight threat paths, DOR and ring
    completions, the straight path through ``T'`` of the special case) plus every neighbour the BFS fallback
    examines.  It is a deterministic stand-in for the running time (the paper's ``O(n c^4)`` of Section 6
    bounds it up to a constant) that does not depend on the machine or its load.
    """

    paths: list[list[Node]]
    trace: list[TraceLevel]
    fallbacks: list[Fallback]
    work: int = 0


@dataclass(frozen=True)
class Violation:
    """First property a set of paths violates (see :func:`verify_disjoint_paths`)."""

    kind: str  # "count", "not_walk", "endpoints", "repeated_vertex", "shared_vertex", "too_long"
    pair: int
    message: str

    def __str__(self) -> str:
        return f"{self.kind} (pair {self.pair}): {self.message}"


# ---------------------------------------------------------------------------------------------- input checks
def torus_shape(torus: Torus | tuple[int, int]) -> tuple[int, int]:
    """``(n, k)`` of a uniform-radix, bidirectional :class:`~torus_lab.topology.Torus` or of an ``(n, k)`` tuple.

    The tuple form avoids building the channel tables of a large torus (``Torus(7, 8)`` has 29 M channels);
    everything in this module only needs ``n`` and ``k``.

    Examples
    --------
    >>> torus_shape(Torus(2, 5)), torus_shape((7, 8))
    ((2, 5), (7, 8))
    """
    if isinstance(torus, Torus):
        if not torus.wraparound or not torus.bidirectional:
            raise ValueError(f"need a bidirectional torus with wraparound links, got {torus!r}")
        return torus.n, torus.k
    if isinstance(torus, tuple) and len(torus) == 2:
        n, k = torus
        for name, value in (("n", n), ("k", k)):
            if type(value) is not int and not is_int(value):
                raise TypeError(f"torus: {name} must be an int, got {value!r}")
        if n < 1 or k < 2:
            raise ValueError(f"torus: need n >= 1 and k >= 2, got (n, k) = {(n, k)!r}")
        return int(n), int(k)
    raise TypeError(f"torus must be a Torus or an (n, k) tuple of ints, got {torus!r}")


def _as_sequence(value: object, name: str) -> object:
    """A numpy array (of any integer dtype) read as the sequence of its rows; anything else unchanged."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iu" and value.size:
            raise TypeError(f"{name}: coordinates must be integers, got an array of dtype {value.dtype}")
        return value.tolist()
    return value


def _check_node(node: object, n: int, k: int, name: str) -> Node:
    node = _as_sequence(node, name)
    if isinstance(node, (str, bytes)) or not isinstance(node, Sequence):
        raise TypeError(f"{name} must be a sequence of {n} ints, got {node!r}")
    if len(node) != n:
        raise ValueError(f"{name} {tuple(node)!r} has {len(node)} coordinates, expected {n} (the torus has n = {n})")
    if all(type(x) is int and 0 <= x < k for x in node):  # fast path for plain ints
        return tuple(node)
    for x in node:
        if not is_int(x):
            raise TypeError(f"{name} {tuple(node)!r}: coordinate {x!r} is not an int")
        if not 0 <= x < k:
            raise ValueError(f"{name} {tuple(node)!r}: coordinate {x} out of range 0..{k - 1}")
    return tuple(int(x) for x in node)


def _plain_pairs(n: int, k: int, pairs: object) -> list[tuple[Node, Node]] | None:
    """``pairs`` as a list when it is a list or tuple of ``(source, destination)`` tuples of ``n`` plain ints in
    ``0..k-1`` each (what the study's instance generators give), else None: the careful check decides.

    Examples
    --------
    >>> _plain_pairs(2, 5, [((0, 1), (4, 4))]), _plain_pairs(2, 5, [((0, 1), (4, 5))])
    ([((0, 1), (4, 4))], None)
    """
    if type(pairs) is not list and type(pairs) is not tuple:
        return None
    for pair in pairs:
        if type(pair) is not tuple or len(pair) != 2:
            return None
        source, dest = pair
        if type(source) is not tuple or type(dest) is not tuple or len(source) != n or len(dest) != n:
            return None
        coordinates = source + dest
        if n and (set(map(type, coordinates)) != {int} or min(coordinates) < 0 or max(coordinates) >= k):
            return None
    return list(pairs)


def _check_pairs(n: int, k: int, pairs: object) -> list[tuple[Node, Node]]:
    plain = _plain_pairs(n, k, pairs)
    if plain is not None:
        return plain
    pairs = _as_sequence(pairs, "pairs")
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence):
        raise TypeError(f"pairs must be a sequence of (source, destination) pairs, got {pairs!r}")
    out = []
    for i, pair in enumerate(pairs):
        pair = _as_sequence(pair, f"pairs[{i}]")
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ValueError(f"pairs[{i}] must be a (source, destination) pair, got {pair!r}")
        out.append((_check_node(pair[0], n, k, f"pairs[{i}] source"), _check_node(pair[1], n, k, f"pairs[{i}] dest")))
    return out


def check_pairs(torus: Torus | tuple[int, int], pairs: object) -> tuple[int, int, list[tuple[Node, Node]]]:
    """``(n, k, pairs)``: the torus's shape and ``pairs`` as a list of ``(source, destination)`` tuples of ints.

    The input check every solver and verifier of pairwise disjoint paths shares (this module's and the baselines
    of :mod:`torus_lab.routing.baselines`): ``torus`` as for :func:`torus_shape`, every pair two nodes of the
    torus; ValueError or TypeError naming the bad pair otherwise.  Puts no condition on the pairs beyond that
    (see :func:`check_problem` for the algorithm's preconditions).

    Examples
    --------
    >>> check_pairs((2, 5), [([0, 0], (4, 4))])
    (2, 5, [((0, 0), (4, 4))])
    >>> check_pairs((2, 5), [((0, 0), (4, 5))])
    Traceback (most recent call last):
    ...
    ValueError: pairs[0] dest (4, 5): coordinate 5 out of range 0..4
    """
    n, k = torus_shape(torus)
    return n, k, _check_pairs(n, k, pairs)


def check_problem(torus: Torus | tuple[int, int], pairs: object) -> tuple[int, int, list[tuple[Node, Node]]]:
    """``(n, k, pairs)`` of an instance of Bossard & Kaneko's problem, its preconditions checked.

    :func:`check_pairs`, then the preconditions of :func:`pairwise_disjoint_paths`, which its baselines share:
    ``k >= 5``, ``n < k``, ``1 <= c <= n`` pairs and ``2c`` distinct pair vertices; ValueError naming the violated
    condition otherwise.

    Examples
    --------
    >>> check_problem((2, 5), [((0, 0), (2, 2)), ((1, 0), (1, 4))])[2]
    [((0, 0), (2, 2)), ((1, 0), (1, 4))]
    >>> check_problem((2, 5), [((0, 0), (2, 2)), ((2, 2), (1, 4))])
    Traceback (most recent call last):
    ...
    ValueError: vertex (2, 2) belongs to pairs 0 and 1; the 2c pair vertices must be distinct
    """
    n, k = torus_shape(torus)
    if k < 5:
        raise ValueError(f"the algorithm needs a torus with k >= 5, got k = {k}")
    if n >= k:
        raise ValueError(f"the algorithm needs a torus with n < k, got n = {n}, k = {k}")
    checked = _check_pairs(n, k, pairs)
    c = len(checked)
    if not 1 <= c <= n:
        raise ValueError(f"need 1 <= c <= n pairs, got c = {c} with n = {n}")
    seen: dict[Node, int] = {}
    for i, (s, d) in enumerate(checked):
        for v in {s, d}:
            if v in seen:
                raise ValueError(
                    f"vertex {v} belongs to pairs {seen[v]} and {i}; the 2c pair vertices must be distinct"
                )
            seen[v] = i
    return n, k, checked


def length_bound(n: int, k: int, c: int) -> int:
    """The paper's bound ``2k(c-1) + n*floor(k/2)`` on every path length (Theorem 1).

    Examples
    --------
    >>> [length_bound(n, max(5, n + 1), n) for n in range(2, 8)]
    [14, 26, 38, 63, 88, 124]
    """
    n, k, c = check_int("n", n, minimum=1), check_int("k", k, minimum=2), check_int("c", c, minimum=1)
    return _length_bound(n, k, c)


def _length_bound(n: int, k: int, c: int) -> int:
    """:func:`length_bound` of arguments already checked."""
    return 2 * k * (c - 1) + n * (k // 2)


#: Bytes per path vertex and per coordinate of the paths of one instance (the solver's id lists, owner map and
#: candidate routes, the trace and the returned coordinate tuples): about twice the peak measured with
#: tracemalloc on random instances (n = 2..6, up to 194 bytes per vertex of the length bound).
_VERTEX_BYTES, _COORDINATE_BYTES = 256, 64


def _paths_memory_estimate(n: int, k: int, c: int) -> int:
    """Upper estimate of the memory (bytes) of solving one instance: ``c`` paths of up to
    :func:`length_bound` hops each, the paths growing with ``k`` (``k = 2**31`` ran out of memory).

    Examples
    --------
    >>> _paths_memory_estimate(2, 5, 2) < 2**20
    True
    """
    return c * (_length_bound(n, k, c) + 1) * (_VERTEX_BYTES + _COORDINATE_BYTES * n)


# ---------------------------------------------------------------------------------------------- the algorithm
@dataclass
class _GeneralAttempt:
    """The state of one attempt of Steps 3-6 (Section 3.2): the subproblem (``pairs`` of vertex ids, ``free``
    dimensions), the chosen delta (``d``), T' and T (``gamma_tp``, ``gamma_t``), each pair's ends, which pair
    owns each vertex so far and the paths routed into T' and T, keyed by (pair, ``"s"``/``"d"``)."""

    pairs: list[tuple[int, int, int]]
    free: tuple[int, ...]
    d: int
    gamma_tp: int
    gamma_t: int
    ends: dict[int, tuple[int, int]]
    owner: dict[int, int]
    routes: dict[tuple[int, str], list[int]] = field(default_factory=dict)


class _Solver:
    """One instance: vertices are mixed-radix ids (dimension 0 least significant) for speed."""

    def __init__(self, n: int, k: int, choose_t: str, detour_order: str, lemma2: str, record: bool) -> None:
        self.n, self.k = n, k
        self.lemma2 = lemma2
        self.strides = [k**d for d in range(n)]
        self.choose_t = choose_t
        self.signs = (-1, 1) if detour_order == "-+" else (1, -1)
        self.record = record
        self.fallbacks: list[Fallback] = []
        self.work = 0  # vertex operations (see DisjointPathsRun.work)

    # -- coordinates
    def to_id(self, node: Node) -> int:
        return sum(map(operator.mul, node, self.strides))  # node has n coordinates (checked on input)

    def to_node(self, v: int) -> Node:
        k = self.k
        return tuple([(v // s) % k for s in self.strides])

    def to_paths(self, paths: list[list[int]]) -> list[list[Node]]:
        """Id paths to coordinate-tuple paths, vectorised (the output conversion dominated the run time)."""
        flat = np.fromiter((v for p in paths for v in p), dtype=np.int64)
        rows = list(map(tuple, ((flat[:, None] // np.asarray(self.strides, dtype=np.int64)) % self.k).tolist()))
        out, start = [], 0
        for p in paths:
            out.append(rows[start : start + len(p)])
            start += len(p)
        return out

    def coord(self, v: int, d: int) -> int:
        return (v // self.strides[d]) % self.k

    def step(self, v: int, d: int, sign: int) -> int:
        s = self.strides[d]
        x = (v // s) % self.k
        return v + (((x + sign) % self.k) - x) * s

    def nodes(self, path: list[int]) -> tuple[Node, ...]:
        return tuple(map(self.to_node, path))

    # -- Lemma 1 candidates
    def _direction(self, x: int, target: int, avoid: int) -> tuple[int, int]:
        """(sign, number of delta-hops) from coordinate x to target on the arc not containing avoid."""
        k = self.k
        forward = (target - x) % k
        if x == avoid:  # inside the avoided subtorus (only after a Lemma-2 swap): shorter arc, tie +
            sign = 1 if forward <= k - forward else -1
        else:
            sign = -1 if 0 < (avoid - x) % k < forward else 1
        return sign, (forward if sign == 1 else k - forward)

    def _offsets(self, x: int, sign: int, hops: int, d: int) -> list[int]:
        k, s = self.k, self.strides[d]
        return [(((x + sign * t) % k) - x) * s for t in range(1, hops + 1)]

    def _straight(self, u: int, d: int, target: int, avoid: int) -> tuple[list[int], list[int]]:
        """Candidate ``p`` (the straight path along ``d``) and its id offsets from ``u`` (empty: ``u`` is there)."""
        k, stride = self.k, self.strides[d]
        x = (u // stride) % k
        if x == target:
            self.work += 1
            return [u], []
        sign, hops = self._direction(x, target, avoid)
        offs = [(((x + sign * t) % k) - x) * stride for t in range(1, hops + 1)]
        self.work += 1 + hops
        return [u] + [u + o for o in offs], offs

    def _detours(self, u: int, d: int, offs: list[int], free: tuple[int, ...]):
        """Candidates ``P1`` then ``P2``: one or two sideways hops, then the straight offsets ``offs``."""
        hops = len(offs)
        sideways = [(i, sg) for i in free if i != d for sg in self.signs]
        for i, sg in sideways:
            w = self.step(u, i, sg)
            self.work += 2 + hops
            yield [u, w] + [w + o for o in offs]
        for i, sg in sideways:
            w1 = self.step(u, i, sg)
            w2 = self.step(w1, i, sg)
            self.work += 3 + hops
            yield [u, w1, w2] + [w2 + o for o in offs]

    @staticmethod
    def _free_of(path: list[int], pair: int, owner: dict[int, int]) -> bool:
        get = owner.get
        for v in path[1:]:
            if get(v, pair) != pair:
                return False
        return True

    def route_vertex(self, u, pair, d, target, avoid, free, owner, straight_only=False) -> list[int] | None:
        """Lemma 1: first unblocked candidate for ``u`` (of ``pair``) towards ``target`` avoiding ``avoid``.

        Candidates (full vertex lists) in the order ``p`` (:meth:`_straight`), then ``P1``, ``P2``
        (:meth:`_detours`) of ``docs/conventions.md#bk-candidates``; ``straight_only`` tries ``p`` alone."""
        path, offs = self._straight(u, d, target, avoid)
        if self._free_of(path, pair, owner):
            return path
        if straight_only or not offs:
            return None
        for path in self._detours(u, d, offs, free):
            if self._free_of(path, pair, owner):
                return path
        return None

    def threatened(self, u, pair, d, target, avoid, owner, rho) -> bool:
        """Lemma 2: is the first obstacle on u's straight path towards ``target`` a vertex or path of ``rho``?"""
        k, stride = self.k, self.strides[d]
        x = (u // stride) % k
        if x == target:  # the straight path is [u]: counted as one vertex, as in _straight
            self.work += 1
            return False
        sign, hops = self._direction(x, target, avoid)
        self.work += 1 + hops
        get = owner.get
        for t in range(1, hops + 1):
            o = get(u + (((x + sign * t) % k) - x) * stride, pair)
            if o != pair:
                return o == rho
        return False

    # -- completions
    def dor(self, s: int, t: int, free: tuple[int, ...]) -> list[int]:
        """Dimension-order routing (Algorithm 1): free dimensions ascending, minimal direction, tie +."""
        path = [s]
        v = s
        k = self.k
        for d in free:
            forward = (self.coord(t, d) - self.coord(v, d)) % k
            sign, hops = (1, forward) if forward <= k - forward else (-1, k - forward)
            for _ in range(hops):
                v = self.step(v, d, sign)
                path.append(v)
        self.work += len(path)
        return path

    def bfs(self, s: int, t: int, free: tuple[int, ...], pair: int, owner: dict[int, int]) -> list[int] | None:
        """Shortest path from s to t moving only along ``free`` dimensions, avoiding other pairs' vertices."""
        parent = {s: s}
        queue = deque([s])
        get = owner.get
        while queue:
            v = queue.popleft()
            if v == t:
                path = [t]
                while path[-1] != s:
                    path.append(parent[path[-1]])
                return path[::-1]
            for d in free:
                for sg in (-1, 1):
                    w = self.step(v, d, sg)
                    self.work += 1
                    if w not in parent and get(w, pair) == pair:
                        parent[w] = v
                        queue.append(w)
        return None

    @staticmethod
    def merge_point(ps: list[int], pd: list[int], outside) -> int | None:
        """Index in ps of the vertex of ps ∩ pd (outside the target subtorus) closest to the source."""
        on_pd = set(pd)
        for idx, v in enumerate(ps):
            if v in on_pd and outside(v):
                return idx
        return None

    def join(self, ps: list[int], middle: list[int], pd: list[int]) -> list[int]:
        """Own path to the subtorus + path inside it + reversed partner path."""
        return ps + middle[1:] + pd[::-1][1:]

    # -- recursion
    def solve(self, free: tuple[int, ...], pairs: list[tuple[int, int, int]], level: int):
        """Return ({pair: path}, [TraceLevel]) for ``pairs`` = [(pair index, s, d)] in the subtorus ``free``."""
        c = len(pairs)
        if c == 1:
            p, s, d = pairs[0]
            path = self.dor(s, d, free)
            trace = []
            if self.record:
                trace.append(TraceLevel(level, "base", free, self._pair_nodes(pairs), base_path=self.nodes(path)))
            return {p: path}, trace
        n_free = len(free)
        if n_free < 2 or c > n_free:  # unreachable from valid input (c <= n and c decreases with n)
            raise _StepFailed(f"c = {c} pairs in a subtorus with {n_free} free dimensions")
        attempt = self.attempt_special if (n_free == 2 and c == 2) else self.attempt_general
        failures = []
        for d, gamma_tp, rho, gamma_t in self.choices(free, pairs):
            try:
                result = attempt(free, pairs, level, d, gamma_tp, rho, gamma_t)
            except _StepFailed as exc:
                failures.append(f"delta={d} T'={gamma_tp} T={gamma_t}: {exc}")
                continue
            for reason in failures:
                self.fallbacks.append(Fallback(level, "retry", reason))
            return result
        raise _StepFailed(f"level {level}: every delta/T'/T failed ({len(failures)} attempts)")

    def choices(self, free, pairs):
        """(delta, gamma(T'), rho, gamma(T)) in the order REC first, then the robustness layer's retries."""
        k = self.k
        for d in free:
            stride = self.strides[d]
            along = {p: ((s // stride) % k, (t // stride) % k) for p, s, t in pairs}  # coordinates along d
            at: list[set[int]] = [set() for _ in range(k)]
            for p, (xs, xt) in along.items():
                at[xs].add(p)
                at[xt].add(p)
            for gamma_tp in range(k):
                if len(at[gamma_tp]) > 1:
                    continue
                rho = next(iter(at[gamma_tp])) if at[gamma_tp] else pairs[0][0]
                banned = {gamma_tp, *along[rho]}
                options = [g for g in range(k) if g not in banned]
                if self.choose_t == "short":
                    others = [xs_xt for p, xs_xt in along.items() if p != rho]
                    options.sort(key=lambda g: self._t_cost(others, g, gamma_tp))
                for gamma_t in options:
                    yield d, gamma_tp, rho, gamma_t

    def _t_cost(self, others: list[tuple[int, int]], gamma_t: int, gamma_tp: int) -> tuple[int, int, int]:
        """choose_T="short": (longest |s ~> T| + |d ~> T| over T-bound pairs, total, gamma) by straight paths;
        ``others`` holds the coordinates along delta of each T-bound pair's source and destination."""
        costs = []
        for xs, xt in others:
            hs = self._direction(xs, gamma_t, gamma_tp)[1] if xs != gamma_t else 0
            ht = self._direction(xt, gamma_t, gamma_tp)[1] if xt != gamma_t else 0
            costs.append(hs + ht)
        return max(costs), sum(costs), gamma_t

    def _trace_level(self, level, case, free, pairs, d, gamma_tp, gamma_t, rho) -> TraceLevel | None:
        if not self.record:
            return None
        return TraceLevel(level, case, free, self._pair_nodes(pairs), d, gamma_tp, gamma_t, rho)

    def _pair_nodes(self, pairs):
        return {p: (self.to_node(s), self.to_node(t)) for p, s, t in pairs}

    @staticmethod
    def _owner(pairs) -> dict[int, int]:
        owner = {}
        for p, s, t in pairs:
            owner[s] = p
            owner[t] = p
        return owner

    @staticmethod
    def _commit(path: list[int], pair: int, owner: dict[int, int]) -> None:
        for v in path:
            owner[v] = pair

    def attempt_general(self, free, pairs, level, d, gamma_tp, rho, gamma_t):
        """Steps 3-6 of Section 3.2 for a fixed delta, T', rho and T."""
        att = _GeneralAttempt(pairs, free, d, gamma_tp, gamma_t, {p: (s, t) for p, s, t in pairs}, self._owner(pairs))
        tr = self._trace_level(level, "general", free, pairs, d, gamma_tp, gamma_t, rho)
        rho, order = self._route_to_subtori(att, rho, tr)
        paths: dict[int, list[int]] = {rho: self._complete_rho(att, rho, level, tr)}
        recurse = self._merge_en_route(att, order, paths, tr)
        trace = []
        if tr is not None:
            tr.to_t_prime = {key: self.nodes(v) for key, v in att.routes.items() if key[0] == rho}
            tr.to_t = {key: self.nodes(v) for key, v in att.routes.items() if key[0] != rho}
            trace.append(tr)
        if recurse:  # Step 6: recursion in T on the pairs not merged
            recurse.sort()
            sub_paths, sub_trace = self.solve(tuple(i for i in free if i != d), recurse, level + 1)
            trace.extend(sub_trace)
            for p, _, _ in recurse:
                paths[p] = self.join(att.routes[(p, "s")], sub_paths[p], att.routes[(p, "d")])
        return paths, trace

    def _route_end(self, att: _GeneralAttempt, p: int, role: str, target: int, avoid: int,
                   straight_only: bool = False) -> None:  # fmt: skip
        """Route end ``role`` (``"s"``/``"d"``) of pair ``p`` along delta into the subtorus at ``target``."""
        u = att.ends[p][0 if role == "s" else 1]
        path = self.route_vertex(u, p, att.d, target, avoid, att.free, att.owner, straight_only)
        if path is None:
            where = "T'" if target == att.gamma_tp else "T"
            raise _StepFailed(f"vertex {self.to_node(u)} of pair {p} blocked towards {where}")
        if straight_only and self.coord(u, att.d) == att.gamma_t:
            raise _StepFailed(f"new rho vertex {self.to_node(u)} lies in T")
        self._commit(path, p, att.owner)
        att.routes[(p, role)] = path

    def _route_to_subtori(self, att: _GeneralAttempt, rho: int, tr: TraceLevel | None) -> tuple[int, list[int]]:
        """Step 3 with Lemma 2: rho's ends to T', the threat check (and swap), every other pair's ends to T.

        Returns rho (another pair after a swap) and the order in which the other pairs were routed.
        """
        gamma_tp, gamma_t = att.gamma_tp, att.gamma_t
        self._route_end(att, rho, "s", gamma_tp, gamma_t)
        self._route_end(att, rho, "d", gamma_tp, gamma_t)
        others = [p for p, _, _ in att.pairs if p != rho]
        threats = [
            (p, role, u)
            for p in others
            for role, u in zip("sd", att.ends[p], strict=True)
            if self.threatened(u, p, att.d, gamma_t, gamma_tp, att.owner, rho)
        ]
        if self.lemma2 == "first":
            threats = threats[:1]
        blocked = [t for t in threats
                   if self.route_vertex(t[2], t[0], att.d, gamma_t, gamma_tp, att.free, att.owner) is None]  # fmt: skip
        threat = blocked[0] if blocked else (threats[0] if threats else None)
        order = others
        if threat is not None:
            j, role_j, _ = threat
            if tr is not None:
                tr.threatened = (j, role_j)
            if not blocked:
                order = [j] + [p for p in others if p != j]
            else:
                rho, order = self._lemma2_swap(att, rho, others, j, tr)
        for p in order:
            self._route_end(att, p, "s", gamma_t, gamma_tp)
            self._route_end(att, p, "d", gamma_t, gamma_tp)
        return rho, order

    def _lemma2_swap(self, att: _GeneralAttempt, rho: int, others: list[int], j: int,
                     tr: TraceLevel | None) -> tuple[int, list[int]]:  # fmt: skip
        """Lemma 2's swap when the threatened pair ``j`` is blocked: discard rho's paths and send another pair
        (``j`` last) to T' on straight paths; the new rho and the order of the pairs bound for T."""
        att.owner = self._owner(att.pairs)
        del att.routes[(rho, "s")], att.routes[(rho, "d")]
        options = [p for p in others if p != j][:1] + [j]
        for t in options:
            try:
                self._route_end(att, t, "s", att.gamma_tp, att.gamma_t, straight_only=True)
                self._route_end(att, t, "d", att.gamma_tp, att.gamma_t, straight_only=True)
            except _StepFailed:
                att.owner = self._owner(att.pairs)
                att.routes.pop((t, "s"), None)
                continue
            rho = t
            break
        else:
            raise _StepFailed("Lemma-2 swap: no pair routable straight to T'")
        rest = [p for p, _, _ in att.pairs if p != rho]
        order = ([j] if j != rho else []) + [p for p in rest if p != j]
        if tr is not None:
            tr.swapped, tr.rho = True, rho
        return rho, order

    def _complete_rho(self, att: _GeneralAttempt, rho: int, level: int, tr: TraceLevel | None) -> list[int]:
        """Step 4: rho's path, merged en route or completed inside T' (c = 1 rule, BFS if obstructed)."""
        ps, pd = att.routes[(rho, "s")], att.routes[(rho, "d")]
        strides_d, k, gamma_tp = self.strides[att.d], self.k, att.gamma_tp
        idx = self.merge_point(ps, pd, lambda v: (v // strides_d) % k != gamma_tp)
        if idx is not None:
            u = ps[idx]
            path = ps[: idx + 1] + pd[: pd.index(u)][::-1]
            if tr is not None:
                tr.merged[rho] = self.nodes(path)
            return path
        sub_free = tuple(i for i in att.free if i != att.d)
        inner = self.dor(ps[-1], pd[-1], sub_free)
        if not self._free_of(inner, rho, att.owner):
            inner = self.bfs(ps[-1], pd[-1], sub_free, rho, att.owner)
            self.fallbacks.append(Fallback(level, "bfs_in_T_prime", f"DOR in T'={gamma_tp} obstructed"))
            if inner is None:
                raise _StepFailed("no path inside T' for rho")
        if tr is not None:
            tr.completions[rho] = self.nodes(inner)
        return self.join(ps, inner, pd)

    def _merge_en_route(self, att: _GeneralAttempt, order: list[int], paths: dict[int, list[int]],
                        tr: TraceLevel | None) -> list[tuple[int, int, int]]:  # fmt: skip
        """Step 5: the T-bound pairs whose two paths meet before T (set E) get their path in ``paths``; the
        others are returned as ``(pair, entry of s, entry of d)`` in T for Step 6."""
        strides_d, k, gamma_t = self.strides[att.d], self.k, att.gamma_t
        recurse = []
        for p in order:
            ps, pd = att.routes[(p, "s")], att.routes[(p, "d")]
            idx = self.merge_point(ps, pd, lambda v: (v // strides_d) % k != gamma_t)
            if idx is not None:
                u = ps[idx]
                paths[p] = ps[: idx + 1] + pd[: pd.index(u)][::-1]
                if tr is not None:
                    tr.merged[p] = self.nodes(paths[p])
            else:
                recurse.append((p, ps[-1], pd[-1]))
        return recurse

    def attempt_special(self, free, pairs, level, d, gamma_tp, rho, gamma_t):
        """Section 3.3 (n = 2, c = 2) with the correctness proof's handling of fully blocked vertices (Fig. 8)."""
        ends = {p: (s, t) for p, s, t in pairs}
        owner = self._owner(pairs)
        ring = next(i for i in free if i != d)
        routes: dict[tuple[int, str], list[int]] = {}
        tr = self._trace_level(level, "special", free, pairs, d, gamma_tp, gamma_t, rho)
        other = next(p for p, _, _ in pairs if p != rho)

        def route(p, role, target, avoid, straight_only=False):
            u = ends[p][0 if role == "s" else 1]
            path = self.route_vertex(u, p, d, target, avoid, free, owner, straight_only)
            if path is not None:
                self._commit(path, p, owner)
                routes[(p, role)] = path
            return path

        for role in "sd":
            if route(rho, role, gamma_tp, gamma_t) is None:
                raise _StepFailed(f"rho vertex {role} blocked towards T'")
        blocked = [role for role in "sd" if route(other, role, gamma_t, gamma_tp) is None]
        target = {rho: gamma_tp, other: gamma_t}
        if len(blocked) == 1:  # route u straight to T *through* T' (crossing T' in one vertex q)
            role = blocked[0]
            u = ends[other][0 if role == "s" else 1]
            x = self.coord(u, d)
            sign, hops = self._direction(x, gamma_t, gamma_tp)
            sign, hops = -sign, self.k - hops
            path = [u] + [u + o for o in self._offsets(x, sign, hops, d)]
            self.work += len(path)
            if not self._free_of(path, other, owner):
                raise _StepFailed("path through T' blocked")
            self._commit(path, other, owner)
            routes[(other, role)] = path
            if tr is not None:
                tr.through_t_prime = (other, role)
        elif len(blocked) == 2:  # both fully blocked: swap the roles of the two pairs, straight paths
            owner = self._owner(pairs)
            routes.clear()
            rho, other = other, rho
            target = {rho: gamma_tp, other: gamma_t}
            for p in (rho, other):
                for role in "sd":
                    avoid = gamma_t if p == rho else gamma_tp
                    if route(p, role, target[p], avoid, straight_only=True) is None:
                        raise _StepFailed("swapped straight paths blocked")
            if tr is not None:
                tr.swapped, tr.rho = True, rho

        paths: dict[int, list[int]] = {}
        strides_d, k = self.strides[d], self.k
        for p in (rho, other):
            ps, pd = routes[(p, "s")], routes[(p, "d")]
            gamma = target[p]
            idx = self.merge_point(ps, pd, lambda v, g=gamma: (v // strides_d) % k != g)
            if idx is not None:
                u = ps[idx]
                paths[p] = ps[: idx + 1] + pd[: pd.index(u)][::-1]
                if tr is not None:
                    tr.merged[p] = self.nodes(paths[p])
                continue
            inner = self.ring_close(ps[-1], pd[-1], ring, p, owner)
            if inner is None:
                raise _StepFailed(f"ring closing of pair {p} blocked both ways")
            paths[p] = self.join(ps, inner, pd)
            if tr is not None:
                tr.completions[p] = self.nodes(inner)
        trace = []
        if tr is not None:
            tr.to_t_prime = {key: self.nodes(v) for key, v in routes.items() if key[0] == rho}
            tr.to_t = {key: self.nodes(v) for key, v in routes.items() if key[0] != rho}
            trace.append(tr)
        return paths, trace

    def ring_close(self, s: int, t: int, ring: int, pair: int, owner: dict[int, int]) -> list[int] | None:
        """Connect s to t along the ring dimension: shorter way (tie +) unless obstructed, else the other way."""
        k = self.k
        forward = (self.coord(t, ring) - self.coord(s, ring)) % k
        ways = [(1, forward), (-1, k - forward)] if forward <= k - forward else [(-1, k - forward), (1, forward)]
        for sign, hops in ways:
            path = [s]
            for _ in range(hops):
                path.append(self.step(path[-1], ring, sign))
            self.work += len(path)
            if self._free_of(path, pair, owner):
                return path
        return None


def disjoint_paths_run(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    choose_T: str = "paper",  # noqa: N803 - the paper's name
    detour_order: str = "-+",
    lemma2: str = "first",
    trace: bool = True,
) -> DisjointPathsRun:
    """Run Bossard & Kaneko's algorithm and return paths, recursion trace and counted fallbacks.

    Parameters
    ----------
    torus : Torus or (n, k) tuple
        A uniform-radix bidirectional torus with ``n < k`` and ``k >= 5``.
    pairs : sequence of (source, destination)
        ``1 <= c <= n`` pairs; the ``2c`` vertices are distinct across pairs, ``s_i = d_i`` is allowed.
    choose_T : {"paper", "short"}
        ``"paper"``: lowest admissible ``gamma(T)`` (REC); ``"short"``: shortest straight routes to ``T``
        (the paper's future-work idea).
    detour_order : {"-+", "+-"}
        Order of the two sideways hops of P1/P2 per dimension (REC ``"-+"``).
    lemma2 : {"first", "blocked"}
        Which threatened vertex Lemma 2 examines: REC ``"first"`` (the first threatened T-bound vertex, pair
        order, source first); ALT ``"blocked"``: among all threatened vertices, a fully blocked one if any
        (triggers the swap), else the first.  They differ when both vertices of a pair are threatened and only
        the second is fully blocked (see the test suite's counterexample).
    trace : bool
        Record the per-level :class:`TraceLevel` list (off for speed in bulk runs).

    Returns
    -------
    DisjointPathsRun

    Raises
    ------
    ValueError, TypeError
        On a precondition violation (``n >= k``, ``k < 5``, ``c`` not in ``1..n``, repeated pair vertices,
        invalid coordinates), checked before any work.
    MemoryLimitError
        If the paths (up to :func:`length_bound` hops each) would not fit the memory limit
        (``torus_lab._memory``, limit ``TORUS_LAB_MEMORY_LIMIT``), checked before any work.
    DisjointPathsError
        If every choice of ``delta``, ``T'``, ``T`` fails (the paper says this cannot happen).

    Examples
    --------
    >>> run = disjoint_paths_run((2, 5), [((0, 0), (2, 2)), ((1, 0), (1, 4))])
    >>> [(t.level, t.case, t.delta, t.gamma_t_prime, t.gamma_t, t.rho) for t in run.trace]
    [(1, 'special', 0, 0, 1, 0)]
    >>> run.paths[0]
    [(0, 0), (0, 1), (0, 2), (4, 2), (3, 2), (2, 2)]
    >>> run.work > 0 and run.work == disjoint_paths_run((2, 5), [((0, 0), (2, 2)), ((1, 0), (1, 4))]).work
    True
    """
    check_str("choose_T", choose_T, CHOOSE_T)
    check_str("detour_order", detour_order, DETOUR_ORDERS)
    check_str("lemma2", lemma2, LEMMA2_RULES)
    check_instance("trace", trace, (bool, np.bool_), "a bool")
    n, k, checked = check_problem(torus, pairs)
    c = len(checked)
    check_memory(_paths_memory_estimate(n, k, c),
                 f"disjoint paths in the ({n}, {k})-torus ({c} pairs, paths of up to {_length_bound(n, k, c):,} hops)")
    solver = _Solver(n, k, choose_T, detour_order, lemma2, trace)
    ids = [(p, solver.to_id(s), solver.to_id(d)) for p, (s, d) in enumerate(checked)]
    try:
        paths, levels = solver.solve(tuple(range(n)), ids, 1)
    except _StepFailed as exc:
        raise DisjointPathsError(f"no attempt succeeded on {checked!r}: {exc}") from None
    out = solver.to_paths([paths[p] for p in range(len(checked))])
    return DisjointPathsRun(out, levels, solver.fallbacks, solver.work)


def pairwise_disjoint_paths(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    *,
    choose_T: str = "paper",  # noqa: N803 - the paper's name
    detour_order: str = "-+",
    lemma2: str = "first",
) -> list[list[Node]]:
    """Mutually vertex-disjoint paths ``s_i ~> d_i``, one per pair (Bossard & Kaneko 2018, Section 3).

    Same parameters as :func:`disjoint_paths_run`, which also returns the trace and the counted fallbacks.

    Examples
    --------
    >>> pairwise_disjoint_paths((2, 5), [((0, 0), (0, 2)), ((0, 1), (4, 1))])
    [[(0, 0), (1, 0), (1, 1), (1, 2), (0, 2)], [(0, 1), (4, 1)]]
    """
    run = disjoint_paths_run(torus, pairs, choose_T=choose_T, detour_order=detour_order, lemma2=lemma2, trace=False)
    return run.paths


# ---------------------------------------------------------------------------------------------- verifier
def _screen(n: int, k: int, pairs: list[tuple[Node, Node]], paths, bound: int) -> bool:
    """True only if ``paths`` certainly pass every check of :func:`verify_disjoint_paths` (numpy, no messages)."""
    lengths = [len(p) for p in paths]
    if not lengths or min(lengths) == 0 or max(lengths) - 1 > bound or k**n > 2**62:
        return False
    try:
        nodes = np.array([v for p in paths for v in p])
    except (ValueError, TypeError):
        return False
    if nodes.ndim != 2 or nodes.shape[1] != n or nodes.dtype.kind not in "iu":
        return False
    if nodes.min() < 0 or nodes.max() >= k:
        return False
    nodes = nodes.astype(np.int64, copy=False)  # differences below must not wrap (unsigned input)
    ends = np.cumsum(lengths) - 1
    starts = ends - np.asarray(lengths) + 1
    rows = nodes[np.concatenate((starts, ends))].tolist()
    if list(map(tuple, rows)) != [s for s, _ in pairs] + [d for _, d in pairs]:
        return False
    steps = (nodes[1:] - nodes[:-1]) % k
    adjacent = np.minimum(steps, k - steps).sum(axis=1) == 1  # one coordinate moved, by +-1 (mod k)
    adjacent[ends[:-1]] = True  # rows joining two different paths
    if not adjacent.all():
        return False
    ids = (nodes @ (np.int64(k) ** np.arange(n, dtype=np.int64))).tolist()
    return len(set(ids)) == len(ids)


def _is_coord(x: object, k: int) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Integral) and 0 <= x < k


def verify_disjoint_paths(
    torus: Torus | tuple[int, int],
    pairs: Sequence[tuple[Sequence[int], Sequence[int]]],
    paths: Sequence[Sequence[Sequence[int]]],
) -> Violation | None:
    """First violated property of ``paths`` for ``pairs``, or None if they are a valid solution.

    Checked per path, in pair order: it is a walk of valid vertices joined by torus links (``not_walk``), goes
    from ``s_i`` to ``d_i`` (``endpoints``), repeats no vertex (``repeated_vertex``) and has at most
    :func:`length_bound` hops (``too_long``); then across paths: no vertex on two paths (``shared_vertex``).
    A wrong number of paths gives ``count``.

    A vectorised screening accepts a valid solution quickly; whenever it sees any problem, the exact
    pure-Python pass runs and names the first violation in the order above.

    Examples
    --------
    >>> pairs = [((0, 0), (0, 2)), ((0, 1), (4, 1))]
    >>> print(verify_disjoint_paths((2, 5), pairs, [[(0, 0), (0, 1), (0, 2)], [(0, 1), (4, 1)]]))
    shared_vertex (pair 1): vertex (0, 1) lies on the paths of pairs 0 and 1
    """
    n, k, pairs = check_pairs(torus, pairs)
    paths = [check_sequence(f"paths[{i}]", _as_sequence(path, f"paths[{i}]"))
             for i, path in enumerate(check_sequence("paths", _as_sequence(paths, "paths")))]  # fmt: skip
    if len(paths) != len(pairs):
        return Violation("count", -1, f"{len(paths)} paths for {len(pairs)} pairs")
    bound = _length_bound(n, k, len(pairs))
    if _screen(n, k, pairs, paths, bound):
        return None
    owner: dict[tuple, int] = {}
    for i, ((s, d), path) in enumerate(zip(pairs, paths, strict=True)):
        nodes = [tuple(check_sequence(f"paths[{i}][{j}]", _as_sequence(v, f"paths[{i}][{j}]")))
                 for j, v in enumerate(path)]
        if not nodes:
            return Violation("not_walk", i, "empty path")
        for v in nodes:
            if len(v) != n or not all(type(x) is int and 0 <= x < k for x in v):  # fast path, then the careful one
                if len(v) != n or not all(_is_coord(x, k) for x in v):
                    return Violation("not_walk", i, f"{v} is not a vertex of the ({n}, {k})-torus")
        for a, b in itertools.pairwise(nodes):
            changed = [(y - x) % k for x, y in zip(a, b, strict=True) if x != y]
            if len(changed) != 1 or (changed[0] != 1 and changed[0] != k - 1):
                return Violation("not_walk", i, f"{a} and {b} are not adjacent")
        if nodes[0] != s or nodes[-1] != d:
            return Violation("endpoints", i, f"path runs {nodes[0]} ~> {nodes[-1]}, expected {s} ~> {d}")
        if len(set(nodes)) != len(nodes):
            repeated = next(v for v in nodes if nodes.count(v) > 1)
            return Violation("repeated_vertex", i, f"vertex {repeated} repeats")
        if len(nodes) - 1 > bound:
            return Violation("too_long", i, f"length {len(nodes) - 1} exceeds the bound {bound}")
        for v in nodes:
            if v in owner:
                return Violation("shared_vertex", i, f"vertex {v} lies on the paths of pairs {owner[v]} and {i}")
            owner[v] = i
    return None


# ---------------------------------------------------------------------------------------------- trace text
def format_trace(trace: Sequence[TraceLevel]) -> str:
    """Table-2-style text of a recursion trace (paper's 1-based ``delta``; pairs numbered from 1).

    Examples
    --------
    >>> run = disjoint_paths_run((3, 5), [((0, 0, 0), (2, 2, 2)), ((0, 1, 0), (4, 1, 3))])
    >>> print(format_trace(run.trace).splitlines()[0])
    level 1 (n=3, general): pairs 1, 2; delta=1, gamma(T')=1, gamma(T)=3, rho=pair 1
    """
    trace = check_sequence("trace", trace)
    for i, level in enumerate(trace):
        check_instance(f"trace[{i}]", level, TraceLevel)
    lines = []

    def arrow(path):
        return " -> ".join(str(v) for v in path)

    for t in trace:
        names = ", ".join(str(p + 1) for p in t.pairs)
        if t.case == "base":
            lines.append(f"level {t.level} (n={len(t.free_dims)}, base c=1): pair {names}; DOR {arrow(t.base_path)}")
            continue
        lines.append(
            f"level {t.level} (n={len(t.free_dims)}, {t.case}): pairs {names}; delta={t.delta + 1}, "
            f"gamma(T')={t.gamma_t_prime}, gamma(T)={t.gamma_t}, rho=pair {t.rho + 1}"
            + (f", threatened {t.threatened[1]}{t.threatened[0] + 1}" if t.threatened else "")
            + (", Lemma-2 swap" if t.swapped else "")
            + (f", {t.through_t_prime[1]}{t.through_t_prime[0] + 1} routed through T'" if t.through_t_prime else "")
        )
        for title, routes in (("to T'", t.to_t_prime), ("to T", t.to_t)):
            for (p, role), path in sorted(routes.items()):
                lines.append(f"  {title}: {role}{p + 1}: {arrow(path)}")
        for p, path in sorted(t.completions.items()):
            lines.append(f"  completion of pair {p + 1}: {arrow(path)}")
        for p, path in sorted(t.merged.items()):
            lines.append(f"  merged en route, pair {p + 1}: {arrow(path)}")
    return "\n".join(lines)
