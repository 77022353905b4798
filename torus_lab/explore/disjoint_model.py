"""The disjoint-paths explorer's model: a query (an ``(n, k)``-torus and ``c`` source/target pairs) -> Bossard &
Kaneko's paths beside the baselines the study compares them with.  Pure Python, no widget and no figure.

What the outcome holds, and where it comes from (nothing is computed here that the project does not already
compute for the study of ``notebooks/disjoint_paths.ipynb``):

* the **pairs**: drawn at random with a seed (:func:`torus_lab.studies.disjoint_paths.random_instance`, any of its
  instance families) or given;
* **Bossard & Kaneko's paths** (*Sensors* 18(11):3912, 2018, Section 3;
  :func:`torus_lab.routing.disjoint_paths.disjoint_paths_run`) with their counted fallbacks;
* the **greedy baseline** (:func:`torus_lab.routing.baselines.greedy_disjoint_paths`), every pair order of
  :data:`~torus_lab.routing.baselines.GREEDY_ORDERS` tried and the shortest longest path kept, as the study does;
* the **optimum** (:func:`torus_lab.routing.baselines.solve_min_max_milp`: minimise the longest path) under the
  study's deterministic node limit, the better of the other two as its upper cut, on tori of at most
  :data:`MAX_OPTIMUM_NODES` nodes;
* each path's length against the paper's bound ``2k(c-1) + n*floor(k/2)`` (Theorem 1,
  :func:`~torus_lab.routing.disjoint_paths.length_bound`) and each method's verdict from the verifier
  (:func:`~torus_lab.routing.disjoint_paths.verify_disjoint_paths`: walks, end points, vertex-disjointness).

Every argument is checked by :class:`DisjointQuery` before any work, with the message of the API that checks it
(:func:`~torus_lab.routing.disjoint_paths.torus_shape`, :func:`~torus_lab.routing.disjoint_paths.check_problem`,
:func:`~torus_lab.studies.disjoint_paths.random_instance`), which the explorer shows as it is.

Examples
--------
>>> out = explore_disjoint_paths(DisjointQuery(n=2, k=5, pairs=(((0, 0), (2, 2)), ((1, 0), (1, 4)))))
>>> out.bound, [len(p) - 1 for p in out.paper.paths], out.paper.valid
(14, [5, 1], True)
>>> DisjointQuery(n=5, k=5)
Traceback (most recent call last):
...
ValueError: the algorithm needs a torus with n < k, got n = 5, k = 5
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from torus_lab._validate import check_instance, check_int, check_str
from torus_lab.routing.baselines import GREEDY_ORDERS, greedy_disjoint_paths, lee_lower_bound, solve_min_max_milp
from torus_lab.routing.disjoint_paths import (
    CHOOSE_T,
    LEMMA2_RULES,
    Node,
    check_problem,
    disjoint_paths_run,
    length_bound,
    torus_shape,
    verify_disjoint_paths,
)
from torus_lab.studies.disjoint_paths import INSTANCE_KINDS, random_instance

__all__ = [
    "MAX_DISJOINT_NODES",
    "MAX_OPTIMUM_NODES",
    "OPTIMUM_NODE_LIMIT",
    "DisjointQuery",
    "MethodPaths",
    "DisjointOutcome",
    "explore_disjoint_paths",
]

#: Largest torus the explorer routes on (every method's paths are drawn or listed; a bigger one is a study).
MAX_DISJOINT_NODES = 2**16
#: Largest torus whose optimum the explorer asks the integer programme for (it has ``c * 2n * k**n`` variables:
#: a (4, 5)-torus takes about a second).
MAX_OPTIMUM_NODES = 1024
#: Branch-and-bound nodes the integer programme may use: the study's ``optimum_node_limit`` (deterministic).
OPTIMUM_NODE_LIMIT = 20


def _pairs_value(pairs: object) -> object:
    """``pairs`` as nested tuples when it is made of lists and tuples (hashable, as a frozen query needs), else as
    it is (the check names it)."""
    if isinstance(pairs, (list, tuple)):
        return tuple(tuple(tuple(v) if isinstance(v, (list, tuple)) else v for v in pair)
                     if isinstance(pair, (list, tuple)) else pair for pair in pairs)  # fmt: skip
    return pairs


@dataclass(frozen=True)
class DisjointQuery:
    """What the disjoint-paths explorer is asked: checked, with the API's messages, before any work.

    Parameters
    ----------
    n, k : int
        The ``(n, k)``-torus; the algorithm needs ``k >= 5`` and ``n < k``.
    c : int
        Number of pairs drawn at random (``1 <= c <= n``); ignored when ``pairs`` is given.
    pairs : sequence of (source, target), optional
        The pairs (``2c`` distinct vertices; ``s_i = d_i`` is allowed); None draws ``c`` pairs of family ``kind``
        with ``seed``.
    kind : str
        Instance family of :func:`~torus_lab.studies.disjoint_paths.random_instance` (``"uniform"``: the paper's).
    seed : int
        Seed of the random pairs (a generator from ``SeedSequence(seed)``).
    choose_T, lemma2 : str
        Options of :func:`~torus_lab.routing.disjoint_paths.disjoint_paths_run` (REC ``"paper"``, ``"first"``).
    optimum : bool
        Ask the integer programme for the optimum (on tori of at most :data:`MAX_OPTIMUM_NODES` nodes).
    node_limit : int
        Its branch-and-bound node limit (default: the study's).

    Attributes
    ----------
    checked_pairs : list of (source, target)
        The pairs routed (drawn or given), as coordinate tuples.
    """

    n: int = 2
    k: int = 5
    c: int = 2
    pairs: object = None
    kind: str = "uniform"
    seed: int = 1
    choose_T: str = "paper"  # noqa: N815 - the paper's name
    lemma2: str = "first"
    optimum: bool = True
    node_limit: int = OPTIMUM_NODE_LIMIT
    checked_pairs: list = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        n, k = torus_shape((self.n, self.k))  # its messages: types, n >= 1, k >= 2
        if n > 64 or k**n > MAX_DISJOINT_NODES:  # n first: k**n of a huge n is never computed
            size = f" = {k**n}" if n <= 64 else ""
            raise ValueError(f"n, k: the explorer routes on tori of up to {MAX_DISJOINT_NODES} nodes, got k**n = "
                             f"{k}**{n}{size}")  # fmt: skip
        check_str("kind", self.kind, INSTANCE_KINDS)
        seed = check_int("seed", self.seed, minimum=0)
        check_str("choose_T", self.choose_T, CHOOSE_T)
        check_str("lemma2", self.lemma2, LEMMA2_RULES)
        check_instance("optimum", self.optimum, (bool, np.bool_), "a bool")
        node_limit = check_int("node_limit", self.node_limit, minimum=1, maximum=2**31 - 1)
        pairs = _pairs_value(self.pairs)
        if pairs is None:
            rng = np.random.default_rng(np.random.SeedSequence(seed))  # the draw checks c (>= 1, 2c <= k**n)
            pairs = random_instance(n, k, self.c, rng, self.kind)
        _, _, checked = check_problem((n, k), pairs)
        for name, value in (("n", n), ("k", k), ("c", len(checked)), ("pairs", _pairs_value(pairs)), ("seed", seed),
                            ("node_limit", node_limit), ("optimum", bool(self.optimum)),
                            ("checked_pairs", checked)):  # fmt: skip
            object.__setattr__(self, name, value)


@dataclass
class MethodPaths:
    """One method's answer: ``paths`` (None when it found none), their ``lengths`` in hops, the verifier's first
    ``violation`` (None: valid; a ``too_long`` of a baseline only means longer than the paper's bound), and a
    ``note`` (the greedy order kept, the solver's status, why the optimum was not asked for)."""

    name: str
    paths: list[list[Node]] | None
    violation: str | None = None
    note: str = ""

    @property
    def lengths(self) -> list[int] | None:
        """Hops of each path (None without paths)."""
        return None if self.paths is None else [len(p) - 1 for p in self.paths]

    @property
    def longest(self) -> int | None:
        """The longest path's hops (None without paths)."""
        return None if self.paths is None else max(self.lengths or [0])

    @property
    def valid(self) -> bool:
        """Paths that are walks between their pair's ends and mutually vertex-disjoint (longer than the paper's
        bound is allowed: :meth:`DisjointOutcome.within_bound` tells)."""
        return self.paths is not None and (self.violation is None or self.violation.startswith("too_long"))


@dataclass
class DisjointOutcome:
    """What the disjoint-paths explorer shows for one :class:`DisjointQuery` (see the module's list).

    ``bound`` is Theorem 1's bound, ``lee`` each pair's Lee distance (``lower_bound``: the largest, a lower bound
    on any solution's longest path), ``paper``, ``greedy`` and ``optimal`` the three methods, ``fallbacks`` the
    paper algorithm's counted fallbacks (the paper predicts none).
    """

    query: DisjointQuery
    bound: int
    lee: list[int]
    paper: MethodPaths
    greedy: MethodPaths
    optimal: MethodPaths
    fallbacks: int

    @property
    def lower_bound(self) -> int:
        """The largest Lee distance of a pair."""
        return max(self.lee)

    @property
    def methods(self) -> tuple[MethodPaths, MethodPaths, MethodPaths]:
        """The paper's paths, the greedy baseline, the optimum."""
        return self.paper, self.greedy, self.optimal

    def within_bound(self, method: MethodPaths) -> bool | None:
        """Whether every path of ``method`` has at most ``bound`` hops (None without paths)."""
        return None if method.paths is None else method.longest <= self.bound

    def rows(self) -> list[dict[str, object]]:
        """One row per pair: its ends, Lee distance and each method's length (the explorer's table)."""
        rows = []
        for i, (s, d) in enumerate(self.query.checked_pairs):
            row: dict[str, object] = {"pair": i + 1, "source": s, "target": d, "Lee": self.lee[i]}
            for method in self.methods:
                row[method.name] = None if method.paths is None else method.lengths[i]
            row["bound"] = self.bound
            rows.append(row)
        return rows

    def lines(self) -> list[str]:
        """The outcome in words, one line per finding."""
        q = self.query
        c = len(q.checked_pairs)
        out = [f"({q.n}, {q.k})-torus, c = {c} pair(s); Theorem 1's bound 2k(c-1) + n*floor(k/2) = {self.bound}, "
               f"largest Lee distance {self.lower_bound}"]  # fmt: skip
        for method in self.methods:
            if method.paths is None:
                out.append(f"{method.name}: no paths ({method.note})" if method.note else f"{method.name}: no paths")
                continue
            verdict = "vertex-disjoint, valid" if method.valid else f"INVALID: {method.violation}"
            within = "within the bound" if self.within_bound(method) else "LONGER than the bound"
            note = f"; {method.note}" if method.note else ""
            out.append(f"{method.name}: longest {method.longest} hops ({within}), lengths {method.lengths}; "
                       f"{verdict}{note}")  # fmt: skip
        if self.fallbacks:
            out.append(f"Bossard & Kaneko: {self.fallbacks} counted fallback(s) (the paper predicts none)")
        return out


def _verified(name: str, n: int, k: int, pairs: list, paths: list | None, note: str = "") -> MethodPaths:
    violation = None if paths is None else verify_disjoint_paths((n, k), pairs, paths)
    return MethodPaths(name, paths, None if violation is None else str(violation), note)


def _greedy(n: int, k: int, pairs: list) -> MethodPaths:
    """The greedy baseline over every pair order, the shortest longest path kept (first order on a tie)."""
    best, best_order = None, None
    for order in GREEDY_ORDERS:
        paths = greedy_disjoint_paths((n, k), pairs, order=order)
        if paths is not None and (best is None or max(map(len, paths)) < max(map(len, best))):
            best, best_order = paths, order
    note = f"pair order {best_order!r}" if best is not None else "every pair order got stuck"
    return _verified("greedy", n, k, pairs, best, note)


def _optimum(query: DisjointQuery, best: MethodPaths | None, lower: int) -> MethodPaths:
    """The optimum: ``best`` (the better valid heuristic) when it attains the Lee lower bound ``lower`` (no solver,
    as the study proves it), else the integer programme's under the node limit, ``best`` as its upper cut."""
    n, k, pairs = query.n, query.k, query.checked_pairs
    if not query.optimum:
        return MethodPaths("optimum", None, None, "not asked for")
    if best is not None and best.longest == lower:
        return MethodPaths("optimum", best.paths, best.violation,
                           f"{best.name}'s paths attain the largest Lee distance: optimal, no solver needed")
    if k**n > MAX_OPTIMUM_NODES:
        return MethodPaths("optimum", None, None, f"not computed: the explorer solves the integer programme on tori "
                                                  f"of up to {MAX_OPTIMUM_NODES} nodes")  # fmt: skip
    upper = None if best is None else best.longest
    result = solve_min_max_milp((n, k), pairs, node_limit=query.node_limit, upper_bound=upper)
    if result.status == "optimal":
        return _verified("optimum", n, k, pairs, result.paths, f"proved optimal ({result.nodes} B&B nodes)")
    found = "" if result.upper is None else f", best found {result.upper}"
    return MethodPaths("optimum", None, None, f"{result.status} after {query.node_limit} B&B nodes: optimum in "
                                              f"{result.lower}..{'?' if result.upper is None else result.upper}"
                                              f"{found}")  # fmt: skip


def explore_disjoint_paths(query: DisjointQuery) -> DisjointOutcome:
    """Everything the disjoint-paths explorer shows for ``query`` (see the module's list).

    Examples
    --------
    >>> out = explore_disjoint_paths(DisjointQuery(n=3, k=5, c=3, seed=2, optimum=False))
    >>> len(out.paper.paths), out.paper.valid, out.within_bound(out.paper), out.optimal.note
    (3, True, True, 'not asked for')
    """
    check_instance("query", query, DisjointQuery)
    n, k, pairs = query.n, query.k, query.checked_pairs
    run = disjoint_paths_run((n, k), pairs, choose_T=query.choose_T, lemma2=query.lemma2, trace=False)
    paper = _verified("Bossard & Kaneko", n, k, pairs, run.paths)
    greedy = _greedy(n, k, pairs)
    lee = [lee_lower_bound((n, k), [pair]) for pair in pairs]
    heuristics = [m for m in (paper, greedy) if m.valid]
    optimal = _optimum(query, min(heuristics, key=lambda m: m.longest) if heuristics else None, max(lee))
    return DisjointOutcome(query=query, bound=length_bound(n, k, len(pairs)), lee=lee, paper=paper, greedy=greedy,
                           optimal=optimal, fallbacks=len(run.fallbacks))  # fmt: skip
