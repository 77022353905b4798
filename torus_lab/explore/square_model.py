"""The square-routing explorer's model: a query (an ``N x N`` torus, its faulty nodes, source, destination, square
width ``m``) -> every routing of Li, Peng & Chu's family traced square by square, and the oracle.  Pure Python, no
widget and no figure, so that it is tested without a browser.

What the outcome holds, and where it comes from:

* the **faults** of the fault-tolerant study's trials: ``round(rate * N^2)`` faulty nodes drawn from
  ``fault_seed`` exactly as the study draws a trial (:func:`torus_lab.routing.square.draw_trial`,
  :func:`torus_lab.studies.fault_tolerant.fault_count`), then the nodes clicked (``toggled``) flipped; the
  source and destination default to that trial's pair;
* each **routing** (Chain, Adaptive-Square, Heuristic-Square and the project's Backtracking-Square,
  :data:`torus_lab.routing.square.ALGORITHMS`) run by :func:`torus_lab.routing.square.route` with ``trace=True``:
  one :class:`~torus_lab.routing.square.SquareStep` per square (the square, the node it started from, its local
  path, the path so far), the same routing the study evaluates;
* the **oracle**: connected or not and the shortest fault-free distance (:func:`torus_lab.routing.square.oracle`,
  the study's oracle), and one shortest fault-free path of that length (:func:`oracle_path`).

Every argument is checked by :class:`SquareQuery` before any work, with the message of the API that checks it
(:func:`~torus_lab.studies.fault_tolerant.fault_count`, ``Torus.check_node``, :func:`~torus_lab.routing.square.route`),
which the explorer shows as it is.

Examples
--------
>>> out = explore_square(SquareQuery(k=8, m=3, fault_rate=0.0, source=(0, 0), destination=(4, 1)))
>>> [len(out.results[name].trace) for name in out.algorithms], out.oracle.distance
([2, 2, 2, 2], 5)
>>> SquareQuery(k=8, m=9)
Traceback (most recent call last):
...
ValueError: m must be in 2..8, got 9
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from torus_lab._validate import check_instance, check_int, check_real, check_sequence, check_str, naming
from torus_lab.routing.square import ALGORITHMS, OracleResult, RoutingResult, SquareStep, draw_trial, oracle, route
from torus_lab.studies.fault_tolerant import LABEL, fault_count
from torus_lab.topology import Torus, bfs_distances

__all__ = ["MAX_SQUARE_RADIX", "SquareQuery", "SquareOutcome", "explore_square", "oracle_path"]

#: Largest radix ``N`` the explorer draws (the study's group 1 goes to 32; a bigger torus is a study).
MAX_SQUARE_RADIX = 64
#: The smallest square width of any of the algorithms (Chain takes ``m = 2``, the square algorithms ``m >= 3``).
_MIN_M = 2
#: The four neighbour steps of a 2-D torus node, in the order :func:`oracle_path` tries them.
_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def _node(torus: Torus, name: str, value: object) -> tuple[int, int]:
    """``value`` as a node of ``torus`` (``Torus.check_node``'s message, naming ``name``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray)):
        raise TypeError(f"{name} must be an (x0, x1) tuple of {torus!r}, got {value!r:.80}")
    with naming(name):
        node = torus.check_node(tuple(value), name)
    return int(node[0]), int(node[1])


@dataclass(frozen=True)
class SquareQuery:
    """What the square-routing explorer is asked: checked, with the API's messages, before any work.

    Parameters
    ----------
    k : int
        The radix ``N`` of the ``N x N`` torus (3 .. :data:`MAX_SQUARE_RADIX`).
    m : int
        Square width (``2 <= m <= k``; the square algorithms need ``m >= 3``, which :func:`explore_square`
        reports with the routing's message).
    fault_rate : float
        Fraction of faulty nodes, drawn as a trial of the study with ``fault_seed``.
    fault_seed : int
        The trial's seed (``0 <= seed < 2**64``).
    toggled : collection of (x0, x1)
        Nodes whose state is flipped (faulty <-> healthy) after the draw: what clicking a node in fault mode does.
    source, destination : (x0, x1), optional
        Distinct non-faulty nodes; by default the pair the study's trial of ``fault_seed`` draws.
    algorithms : sequence of str
        Names from :data:`torus_lab.routing.square.ALGORITHMS` (default: all four).
    after_fallback : {"max", "previous"}
        Heuristic-Square's rule after a fallback step (:func:`torus_lab.routing.square.heuristic_square_routing`).

    Attributes
    ----------
    torus : Torus
    mask : numpy.ndarray
        Faulty nodes, by node id (``id = x0 + k * x1``).
    faulty : frozenset of (x0, x1)
    """

    k: int = 16
    m: int = 3
    fault_rate: float = 0.1
    fault_seed: int = 1
    toggled: frozenset = frozenset()
    source: tuple[int, int] | None = None
    destination: tuple[int, int] | None = None
    algorithms: tuple[str, ...] = ALGORITHMS
    after_fallback: str = "max"
    torus: Torus = field(init=False, compare=False, repr=False)
    mask: np.ndarray = field(init=False, compare=False, repr=False)
    faulty: frozenset = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        k = check_int("k", self.k, minimum=3, maximum=MAX_SQUARE_RADIX)
        m = check_int("m", self.m, minimum=_MIN_M, maximum=k)
        with naming("fault_rate"):
            count = fault_count(k, check_real("fault_rate", self.fault_rate, minimum=0.0, maximum=1.0))
        seed = check_int("fault_seed", self.fault_seed, minimum=0, maximum=2**64 - 1)
        if isinstance(self.toggled, (str, bytes)):
            raise TypeError(f"toggled must be a collection of nodes, got {self.toggled!r:.80}")
        algorithms = tuple(check_str("algorithms", a, ALGORITHMS)
                           for a in check_sequence("algorithms", self.algorithms, min_length=1))  # fmt: skip
        check_str("after_fallback", self.after_fallback, ("max", "previous"))
        torus = Torus(2, k)
        toggled = frozenset(_node(torus, "toggled", v) for v in check_sequence("toggled", self.toggled))
        mask, drawn_source, drawn_destination = draw_trial(k, count, seed)
        for node in toggled:
            mask[node[0] + k * node[1]] ^= True
        source = drawn_source if self.source is None else _node(torus, "source", self.source)
        destination = drawn_destination if self.destination is None else _node(torus, "destination",
                                                                               self.destination)  # fmt: skip
        if source == destination:
            raise ValueError(f"source and destination must differ, both are {source}")
        for name, node in (("source", source), ("destination", destination)):
            if mask[node[0] + k * node[1]]:
                raise ValueError(f"{name} {node} is a faulty node")
        faulty = frozenset((int(v % k), int(v // k)) for v in np.flatnonzero(mask))
        for name, value in (("k", k), ("m", m), ("fault_seed", seed), ("toggled", toggled), ("source", source),
                            ("destination", destination), ("algorithms", algorithms), ("torus", torus),
                            ("mask", mask), ("faulty", faulty)):  # fmt: skip
            object.__setattr__(self, name, value)


def oracle_path(torus: Torus, faulty: frozenset, source: tuple[int, int],
                destination: tuple[int, int]) -> list[tuple[int, int]] | None:  # fmt: skip
    """One shortest fault-free path from ``source`` to ``destination`` of the 2-D torus (None when they are not
    connected): its length is the distance of :func:`torus_lab.routing.square.oracle`, the study's oracle.

    Breadth-first distances to ``destination`` avoiding the ``faulty`` nodes
    (:func:`torus_lab.topology.bfs_distances`), then from ``source`` always to the first neighbour (+x0, -x0,
    +x1, -x1) one step closer.

    Examples
    --------
    >>> oracle_path(Torus(2, 8), frozenset({(1, 0)}), (0, 0), (2, 0))
    [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)]
    """
    check_instance("torus", torus, Torus, "a 2-D Torus")
    if torus.n != 2 or not torus.wraparound:
        raise ValueError(f"torus must be a 2-D torus, got {torus!r}")
    from torus_lab.topology import Faults

    faults = Faults(nodes=check_instance("faulty", faulty, (set, frozenset), "a set of nodes"))
    source, destination = _node(torus, "source", source), _node(torus, "destination", destination)
    dist = bfs_distances(torus, destination, faults.validate(torus)).reshape(torus.radices[::-1])  # [x1, x0]
    if source in faults.nodes or dist[source[1], source[0]] < 0:
        return None
    k0, k1 = torus.radices
    path = [source]
    while path[-1] != destination:
        x0, x1 = path[-1]
        here = dist[x1, x0]
        path.append(next(((x0 + d0) % k0, (x1 + d1) % k1) for d0, d1 in _STEPS
                         if dist[(x1 + d1) % k1, (x0 + d0) % k0] == here - 1))  # fmt: skip
    return path


@dataclass(frozen=True)
class SquareOutcome:
    """What the square-routing explorer shows for one :class:`SquareQuery`.

    ``results`` maps each algorithm to its traced :class:`~torus_lab.routing.square.RoutingResult` (its ``trace``
    holds one :class:`~torus_lab.routing.square.SquareStep` per square); ``oracle`` is the study's oracle and
    ``oracle_path`` one shortest fault-free path (None when source and destination are not connected).
    """

    query: SquareQuery
    results: dict[str, RoutingResult]
    oracle: OracleResult
    oracle_path: list[tuple[int, int]] | None

    @property
    def algorithms(self) -> tuple[str, ...]:
        return tuple(self.results)

    def steps(self, algorithm: str) -> tuple[SquareStep, ...]:
        """The squares of ``algorithm``, in order."""
        return self.results[check_str("algorithm", algorithm, self.algorithms)].trace or ()

    def verdict(self, algorithm: str) -> str:
        """One line: success or failure (with the routing's reason), the path length against the oracle's."""
        result = self.results[check_str("algorithm", algorithm, self.algorithms)]
        squares = f"{len(result.squares)} square(s)"
        if not result.success:
            return f"{LABEL[algorithm]}: failed after {squares}: {result.reason}"
        best = self.oracle.distance
        extra = "" if best is None else (" (a shortest path)" if result.length == best else
                                         f" (+{result.length - best} over the oracle's {best})")  # fmt: skip
        return f"{LABEL[algorithm]}: reached the destination in {result.length} hops over {squares}{extra}"

    def lines(self) -> list[str]:
        """The outcome in words, one line per algorithm and one for the oracle."""
        q = self.query
        head = (f"{q.torus!r}, m = {q.m}, {len(q.faulty)} faulty node(s); {q.source} -> {q.destination}, Lee "
                f"distance {q.torus.lee_distance(q.source, q.destination)}")  # fmt: skip
        oracle_line = ("oracle: not connected (no fault-free path exists)" if not self.oracle.connected else
                       f"oracle: shortest fault-free path of {self.oracle.distance} hops")  # fmt: skip
        return [head, oracle_line, *(self.verdict(name) for name in self.algorithms)]


def explore_square(query: SquareQuery) -> SquareOutcome:
    """Every algorithm of ``query`` traced square by square, and the oracle (see the module's list).

    Raises
    ------
    ValueError
        What :func:`torus_lab.routing.square.route` refuses (e.g. ``m = 2`` for a square algorithm), with its
        message (each routing checks its arguments before its kernel runs).

    Examples
    --------
    >>> out = explore_square(SquareQuery(k=8, m=3, fault_rate=0.1, fault_seed=3))
    >>> all(out.results[a].success <= out.oracle.connected for a in out.algorithms)
    True
    """
    check_instance("query", query, SquareQuery)
    q = query
    results = {name: route(name, q.torus, q.mask, q.source, q.destination, q.m, trace=True,
                           **({"after_fallback": q.after_fallback} if name == "heuristic_square" else {}))
               for name in q.algorithms}  # fmt: skip
    best = oracle(q.torus, q.mask, q.source, q.destination)
    return SquareOutcome(q, results, best, oracle_path(q.torus, q.faulty, q.source, q.destination))
