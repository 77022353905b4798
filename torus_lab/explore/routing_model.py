"""The routing explorer's model: a query (network, routing and options, source, destination, faults) -> what the
explorer shows.  Pure Python, no widget and no figure, so that it is tested without a browser.

What the outcome holds, and where it comes from:

* the **preferred route** (the first candidate at every hop, ``rand = 0``):
  :meth:`torus_lab.routing.interface.RoutingFunction.route_hops`, its hops against the Lee distance;
* **every allowed route**: the routing states reachable from the source's injection towards the destination
  (:func:`torus_lab.routing.explore.explore_states`, every adaptive and random choice), their channels, how many
  distinct physical routes (channel sequences) they give and their hop range; a state graph with a cycle offers
  routes of unbounded length, and is reported so;
* the **channel-dependency-graph verdict** of the whole network (:func:`torus_lab.deadlock.cdg_verdict`, Dally &
  Seitz 1987) with its witness cycle;
* **Duato's check** (Duato, IEEE TPDS 4(12), 1993; :func:`torus_lab.deadlock.duato_check`) when the routing has
  escape VCs (a routing function whose ``options`` hold ``escape_vcs``, as the ``duato`` entry does).

Every argument is checked by :class:`RoutingQuery` before any work, with the message of the API that checks it
(:func:`torus_lab.topology.make_network`, :func:`torus_lab.routing.normalize_spec`, ``Torus.check_node``,
:func:`torus_lab.topology.random_node_faults`, ...), which the explorer shows as it is.

Examples
--------
>>> out = explore_routing(RoutingQuery(k=4, options={"datelines": False}, source=(0, 0), destination=(2, 1)))
>>> out.hops, out.lee, out.verdict.acyclic, len(out.cycle_channels)
(3, 3, False, 4)
>>> RoutingQuery(k=1)
Traceback (most recent call last):
...
ValueError: k must be >= 2, got 1
"""

from __future__ import annotations

import functools
import numbers
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from torus_lab._validate import check_instance, check_int, check_real, check_sequence, check_str, naming
from torus_lab.deadlock import CDGResult, DuatoResult, cdg_verdict, describe_cycle, duato_check
from torus_lab.routing.explore import explore_states
from torus_lab.routing.interface import RoutingFunction
from torus_lab.routing.registry import RoutingRegistry, make_routing, normalize_spec, routing_entry
from torus_lab.topology import (
    Faults,
    Torus,
    avoids_faults,
    make_network,
    random_link_faults,
    random_node_faults,
)

__all__ = [
    "NETWORKS",
    "FAULT_KINDS",
    "MAX_EXPLORER_NODES",
    "MAX_EXPLORER_DIMS",
    "RoutingQuery",
    "RoutingOutcome",
    "network",
    "explore_routing",
]

#: The networks the explorer offers: a bidirectional torus, a unidirectional one, a mesh, a hypercube (k = 2).
NETWORKS = ("torus", "unidirectional torus", "mesh", "hypercube")
#: What random faults hit: nodes or (bidirectional) links.
FAULT_KINDS = ("links", "nodes")
#: Largest network the explorer analyses (the CDG of the whole network is rebuilt on every change of routing).
MAX_EXPLORER_NODES = 1024
#: Most dimensions the explorer accepts (every radix is at least 2, so more would exceed ``MAX_EXPLORER_NODES``).
MAX_EXPLORER_DIMS = MAX_EXPLORER_NODES.bit_length() - 1
#: Routes longer than this many hops are not followed (a routing whose preferred route loops is refused earlier).
_MAX_ROUTE_HOPS = 4 * MAX_EXPLORER_NODES


def network(kind: str, n: int, k: int) -> Torus:
    """The explorer's network ``kind`` with ``n`` dimensions of radix ``k`` (a hypercube has radix 2).

    Checked by :func:`torus_lab.topology.make_network` (its messages), and at most :data:`MAX_EXPLORER_NODES` nodes.

    Examples
    --------
    >>> network("hypercube", 3, 2), network("mesh", 2, 3)
    (Torus(3, 2), Mesh(2, 3))
    """
    check_str("kind", kind, NETWORKS)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=2)
    if kind == "hypercube" and k != 2:
        raise ValueError(f"k: a hypercube has radix 2, got k = {k}")
    if n > MAX_EXPLORER_DIMS or k**n > MAX_EXPLORER_NODES:  # n first: k**n of a huge n is never computed
        size = f" = {k**n}" if n <= MAX_EXPLORER_DIMS else ""
        raise ValueError(f"n, k: the explorer analyses networks of up to {MAX_EXPLORER_NODES} nodes, got k**n = "
                         f"{k}**{n}{size}")  # fmt: skip
    kinds = {"torus": "bidirectional", "unidirectional torus": "unidirectional", "mesh": "mesh",
             "hypercube": "bidirectional"}  # fmt: skip
    return make_network(kinds[kind], k, n)


def _node(topology: Torus, name: str, value: object) -> tuple[int, ...]:
    """``value`` as a node of ``topology`` (``Torus.check_node``'s message, naming ``name``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, np.ndarray)):
        raise TypeError(f"{name} must be a coordinate tuple of {topology!r}, got {value!r:.80}")
    with naming(name):
        return topology.check_node(tuple(value), name)


@dataclass(frozen=True)
class RoutingQuery:
    """What the routing explorer is asked: checked, with the API's messages, before any work.

    Parameters
    ----------
    network : {"torus", "unidirectional torus", "mesh", "hypercube"}
    n, k : int
        Dimensions and radix (:func:`network`).
    routing : str
        A registry name (built-in or registered at run time).
    options : mapping
        Options of that routing (the others take their defaults); checked by
        :func:`torus_lab.routing.normalize_spec`.
    source, destination : tuple of int
        Nodes of the network, distinct and not faulty.
    fault_kind : {"links", "nodes"}
        What random faults hit.
    fault_rate : float
        Fraction of the links (or of the nodes) that fail, drawn with ``fault_seed`` (the same faults whatever the
        source and destination; a faulty source or destination is refused), by
        :func:`torus_lab.topology.random_link_faults` or :func:`~torus_lab.topology.random_node_faults`.
    fault_seed : int
    toggled : collection of nodes
        Nodes whose state is flipped (faulty <-> healthy) after the random draw: what clicking a node in fault mode
        does.
    registry : RoutingRegistry, optional
        Where ``routing`` is looked up (default: the process's registry).

    Attributes
    ----------
    topology : Torus
    spec : dict
        The complete routing spec ``{"name": ..., every option: value}``.
    faults : Faults
    """

    network: str = "torus"
    n: int = 2
    k: int = 4
    routing: str = "ecube"
    options: Mapping[str, Any] = field(default_factory=dict)
    source: tuple[int, ...] = (0, 0)
    destination: tuple[int, ...] = (2, 1)
    fault_kind: str = "links"
    fault_rate: float = 0.0
    fault_seed: int = 1
    toggled: frozenset = frozenset()
    registry: RoutingRegistry | None = field(default=None, compare=False, repr=False)
    topology: Torus = field(init=False, compare=False, repr=False)
    spec: dict = field(init=False, compare=False, repr=False)
    faults: Faults = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        topology = network(check_str("network", self.network, NETWORKS), self.n, self.k)
        if self.registry is not None:
            check_instance("registry", self.registry, RoutingRegistry, "a RoutingRegistry or None")
        check_str("routing", self.routing)
        check_instance("options", self.options, Mapping, "a mapping of option names to values")
        with naming("routing"):
            entry = routing_entry(self.routing, registry=self.registry)
        if "name" in self.options:
            raise ValueError(f"options must not hold 'name' (the routing is routing={self.routing!r}), "
                             f"got {dict(self.options)!r:.80}")  # fmt: skip
        spec = normalize_spec({"name": entry.name, **self.options}, registry=self.registry)  # its message names it
        source = _node(topology, "source", self.source)
        destination = _node(topology, "destination", self.destination)
        if source == destination:
            raise ValueError(f"source and destination must differ, both are {source}")
        check_str("fault_kind", self.fault_kind, FAULT_KINDS)
        rate = check_real("fault_rate", self.fault_rate, minimum=0.0, maximum=1.0)
        seed = check_int("fault_seed", self.fault_seed, minimum=0)
        if isinstance(self.toggled, (str, bytes)):
            raise TypeError(f"toggled must be a collection of nodes, got {self.toggled!r:.80}")
        toggled = frozenset(_node(topology, "toggled", v) for v in check_sequence("toggled", self.toggled))
        faults = self._faults(topology, rate, seed, toggled)
        for name, node in (("source", source), ("destination", destination)):
            if node in faults.nodes:
                raise ValueError(f"{name} {node} is a faulty node")
        for name, value in (("topology", topology), ("spec", spec), ("faults", faults), ("source", source),
                            ("destination", destination), ("toggled", toggled), ("fault_rate", rate),
                            ("fault_seed", seed), ("options", dict(self.options))):  # fmt: skip
            object.__setattr__(self, name, value)

    def _faults(self, topology: Torus, rate: float, seed: int, toggled: frozenset) -> Faults:
        """The random faults of ``rate`` and ``seed``, then the ``toggled`` nodes flipped."""
        if self.fault_kind == "nodes":
            drawn = random_node_faults(topology, rate=rate, seed=seed)
        else:
            drawn = random_link_faults(topology, rate=rate, seed=seed)
        return Faults(nodes=drawn.nodes ^ toggled, links=drawn.links)


@dataclass
class RoutingOutcome:
    """What the routing explorer shows for one :class:`RoutingQuery` (see the module's list).

    ``route`` is the preferred route as nodes (None when it gets stuck), ``hops`` its length; ``lee`` the Lee
    distance of source and destination; ``allowed_channels`` the channels of every allowed route,
    ``allowed_routes`` how many distinct physical routes there are (None: unbounded, the allowed states hold a
    cycle), ``allowed_hops`` their (shortest, longest) length; ``verdict`` the CDG verdict and ``cycle_channels``
    its witness cycle as channel ids (empty when acyclic); ``escape`` Duato's check of ``escape_vcs`` (None
    without escape VCs).
    """

    query: RoutingQuery
    routing: RoutingFunction
    route: list[tuple[int, ...]] | None
    hops: int | None
    lee: int
    allowed_channels: list[int]
    allowed_routes: int | None
    allowed_hops: tuple[int, int] | None
    verdict: CDGResult
    cycle_channels: list[int]
    escape_vcs: list[int] | None
    escape: DuatoResult | None
    route_avoids_faults: bool | None

    def lines(self) -> list[str]:
        """The outcome in words, one line per finding (what the explorer prints beside the figure)."""
        q, topo = self.query, self.query.topology
        defaults = routing_entry(q.routing, registry=q.registry).defaults()
        changed = ", ".join(f"{k}={v}" for k, v in q.spec.items() if k != "name" and v != defaults.get(k))
        options = f" ({changed})" if changed else ""
        out = [f"{self.routing.name}{options} on {topo!r}, {self.routing.num_vcs} VC(s) per channel"]
        if self.route is None:
            out.append(f"preferred route {q.source} -> {q.destination}: stuck (no candidate on the way)")
        else:
            kind = "minimal" if self.hops == self.lee else f"{self.hops - self.lee} hop(s) beyond minimal"
            out.append(f"preferred route {q.source} -> {q.destination}: {self.hops} hops, Lee distance {self.lee} "
                       f"({kind})")  # fmt: skip
        if self.allowed_routes is None:
            out.append(f"allowed routes: unbounded (the allowed states hold a cycle), over "
                       f"{len(self.allowed_channels)} channels")  # fmt: skip
        else:
            low, high = self.allowed_hops or (0, 0)
            out.append(f"allowed routes: {self.allowed_routes} physical route(s) of {low}..{high} hops, over "
                       f"{len(self.allowed_channels)} channels")  # fmt: skip
        if self.verdict.acyclic:
            out.append("channel dependency graph: acyclic (deadlock-free)")
        else:
            what = "a deadlock" if not self.routing.adaptive else "a potential deadlock (adaptive routing)"
            out.append(f"channel dependency graph: cyclic, {what}; witness cycle of {len(self.verdict.cycle)} "
                       f"channels: {describe_cycle(topo, self.verdict.cycle)}")  # fmt: skip
        if self.escape is not None:
            holds = "holds (deadlock-free)" if self.escape.deadlock_free else "does not hold"
            out.append(f"escape VCs {self.escape_vcs}: Duato's condition {holds} (escape subfunction connected: "
                       f"{self.escape.connected}, extended CDG acyclic: {self.escape.acyclic})")  # fmt: skip
        if q.faults.nodes or q.faults.links:
            avoid = {True: "the preferred route avoids them", False: "the preferred route crosses a fault",
                     None: ""}[self.route_avoids_faults]  # fmt: skip
            out.append(f"faults: {len(q.faults.nodes)} node(s), {len(q.faults.links)} channel(s); {avoid}".rstrip("; "))
        return out


def _spec_key(spec: Mapping[str, Any]) -> tuple:
    return tuple(sorted((k, v if isinstance(v, (numbers.Number, str, bool, type(None))) else repr(v))
                        for k, v in spec.items()))  # fmt: skip


#: Analyses kept (network, routing and faults -> routing function, verdict, escape check), most recent last.
_ANALYSES: OrderedDict[tuple, tuple] = OrderedDict()
_ANALYSES_KEPT = 16


def _analysis(query: RoutingQuery) -> tuple[RoutingFunction, CDGResult, list[int] | None, DuatoResult | None]:
    """The routing function, its CDG verdict and Duato's check: what depends on the network, the routing and the
    faults only (kept for the last few queries, so that picking another source or destination recomputes only the
    routes).  The key holds the registry entry itself, so a routing registered again under the same name is
    analysed afresh."""
    entry = routing_entry(query.routing, registry=query.registry)
    key = (query.topology, _spec_key(query.spec), id(entry), query.faults)
    if key in _ANALYSES:
        _ANALYSES.move_to_end(key)
        return _ANALYSES[key][1]
    faults = query.faults if query.faults.nodes or query.faults.links else None
    rf = make_routing(query.spec, query.topology, faults=faults, registry=query.registry)
    verdict = cdg_verdict(rf)
    escape_vcs = rf.options.get("escape_vcs") if isinstance(rf.options, Mapping) else None
    escape = None
    if escape_vcs is not None:
        escape_vcs = [int(v) for v in escape_vcs]
        escape = duato_check(rf, escape_vcs)
    _ANALYSES[key] = (entry, (rf, verdict, escape_vcs, escape))  # the entry kept: its id stays its own
    while len(_ANALYSES) > _ANALYSES_KEPT:
        _ANALYSES.popitem(last=False)
    return rf, verdict, escape_vcs, escape


def _allowed(rf: RoutingFunction, source: int, destination: int) -> tuple[list[int], int | None, tuple | None]:
    """Channels of every allowed route from ``source`` to ``destination``, the number of distinct physical routes
    (None if unbounded) and their (shortest, longest) length in hops."""
    graph = explore_states(rf, destination)
    tr = graph.transitions
    start = int(np.flatnonzero((graph.state_channel < 0) & (graph.state_node == source))[0])
    succ: dict[int, list[tuple[int, int]]] = {}
    for frm, to, ch in tr[:, :3].tolist():
        succ.setdefault(frm, []).append((ch, to))
    seen, order, stack = {start}, [], [start]
    while stack:
        s = stack.pop()
        order.append(s)
        for _, to in succ.get(s, ()):
            if to not in seen:
                seen.add(to)
                stack.append(to)
    channels = sorted({ch for s in seen for ch, _ in succ.get(s, ())})
    node_of = graph.state_node.tolist()
    if _has_cycle(seen, succ):
        return channels, None, None

    @functools.cache
    def count(states: frozenset) -> tuple[int, int, int]:
        """Distinct channel sequences from a set of states (one node) to the destination, shortest, longest."""
        if node_of[next(iter(states))] == destination:
            return 1, 0, 0
        by_channel: dict[int, set[int]] = {}
        for s in states:
            for ch, to in succ.get(s, ()):
                by_channel.setdefault(ch, set()).add(to)
        total, low, high = 0, None, None
        for tos in by_channel.values():
            c, lo, hi = count(frozenset(tos))
            if c:
                total += c
                low = lo + 1 if low is None else min(low, lo + 1)
                high = hi + 1 if high is None else max(high, hi + 1)
        return total, (low or 0), (high or 0)

    routes, low, high = count(frozenset([start]))
    return channels, routes, (low, high) if routes else None


def _has_cycle(states: set[int], succ: dict[int, list[tuple[int, int]]]) -> bool:
    """Whether the transitions among ``states`` hold a cycle (iterative three-colour search)."""
    colour = dict.fromkeys(states, 0)
    for root in states:
        if colour[root]:
            continue
        stack = [(root, iter(succ.get(root, ())))]
        colour[root] = 1
        while stack:
            node, it = stack[-1]
            step = next(it, None)
            if step is None:
                colour[node] = 2
                stack.pop()
                continue
            to = step[1]
            if colour.get(to, 2) == 1:
                return True
            if colour.get(to, 2) == 0:
                colour[to] = 1
                stack.append((to, iter(succ.get(to, ()))))
    return False


def explore_routing(query: RoutingQuery) -> RoutingOutcome:
    """Everything the routing explorer shows for ``query`` (see the module's list).

    Raises
    ------
    ValueError
        What building the routing refuses (e.g. e-cube's datelines with one VC), with the registry's message.

    Examples
    --------
    >>> out = explore_routing(RoutingQuery(routing="duato", source=(0, 0), destination=(1, 1)))
    >>> out.allowed_routes, out.escape_vcs, out.escape.deadlock_free
    (2, [0, 1], True)
    """
    check_instance("query", query, RoutingQuery)
    topo = query.topology
    rf, verdict, escape_vcs, escape = _analysis(query)
    src, dst = topo.node_id(query.source), topo.node_id(query.destination)
    hops = rf.route_hops(query.source, query.destination, max_hops=_MAX_ROUTE_HOPS)
    route = None if hops is None else rf.hops_to_nodes(query.source, hops)
    channels, routes, hop_range = _allowed(rf, int(src), int(dst))
    avoids = None
    if route is not None and (query.faults.nodes or query.faults.links):
        avoids = bool(avoids_faults(topo, route, query.faults)) and not any(
            c in query.faults.links for c, _ in hops)
    cycle_channels = [int(c) for c, _ in verdict.cycle] if verdict.cycle else []
    return RoutingOutcome(
        query=query, routing=rf, route=route, hops=None if hops is None else len(hops),
        lee=int(topo.lee_distance(query.source, query.destination)), allowed_channels=channels,
        allowed_routes=routes, allowed_hops=hop_range, verdict=verdict, cycle_channels=cycle_channels,
        escape_vcs=escape_vcs, escape=escape, route_avoids_faults=avoids,
    )
