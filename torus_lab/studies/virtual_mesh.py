"""Virtual mesh networks (Upadhyay, Varavithya & Mohapatra): CDG verdicts, VC counts, adaptivity, simulation.

The evaluation of ``specs/algorithms.md`` section 2.5, shared by ``notebooks/virtual_mesh.ipynb``, the tests
and the benchmarks.  Every function is pure: parameters (and a seed where there is randomness) -> table.

* :func:`routing_specs` -- every routing of the study for one topology, as label -> registry spec (cheap;
  :func:`catalog_routing` builds one with :func:`torus_lab.routing.make_routing`).
* :func:`cdg_table` -- CDG verdict (and a witness cycle) of every routing on uni-/bidirectional tori and
  meshes; the Duato design is judged by :func:`torus_lab.deadlock.duato_check`.
* :func:`forced_cycle_messages` -- for a witness cycle, one message per dependency whose waiting header has
  *no other permitted output*: if every edge has one, the cycle is a reachable deadlock configuration of
  wormhole routing (each message holds one VC and waits for the next), not just a potential one.
* :func:`vc_count_table`, :func:`second_vc_table` -- the paper's VC-count statements recomputed from the
  constructed channel sets.
* :func:`adaptivity_table` -- realizable vs minimal physical paths per pair, measured by walking the
  reachable routing states (full adaptivity is measured, not assumed).
* :func:`simulation_table` -- latency vs offered load and saturation throughput with the wormhole simulator;
  the simulated routings are given as registry specs and labelled with the built routing function's name.

Examples
--------
>>> from torus_lab.topology import Torus
>>> sorted(routing_specs(Torus(2, 4)))[:3]
['dor', 'dor+dateline', 'duato']
>>> routing_specs(Torus(2, 4))["pfnf-reconstruction+paper-4vc"]
{'name': 'pfnf', 'variant': 'reconstruction', 'scheme': 'paper', 'layout': 'separate'}
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from torus_lab.deadlock import (
    cdg_verdict,
    channel_vc_usage,
    describe_cycle,
    duato_check,
    explore_states,
    ring_second_vc_channels,
    ring_vc_usage,
)
from torus_lab.routing import RoutingFunction, make_routing
from torus_lab.routing.turn_model import dateline_node
from torus_lab.topology import Mesh, Torus

__all__ = [
    "TOPOLOGY_KINDS",
    "make_topology",
    "routing_specs",
    "catalog_routing",
    "cdg_table",
    "forced_cycle_messages",
    "vc_count_table",
    "second_vc_table",
    "channel_vc_listing",
    "minimal_path_count",
    "adaptivity_table",
    "adaptivity_summary",
    "simulation_table",
    "saturation_from_sweep",
    "provoke_deadlock_table",
    "find_acyclic",
    "draw_virtual_mesh",
    "draw_cdg_cycle",
]

#: Topology kinds of the study.
TOPOLOGY_KINDS = ("mesh", "bidirectional", "unidirectional")
_TURN = ("west-first", "north-last", "negative-first", "positive-first", "minimal-adaptive")
_PFNF = ("reconstruction", "mirror", "literal", "switch")
#: A routing spec: a registry name or a mapping ``{"name": ..., option: value}`` (:mod:`torus_lab.routing.registry`).
Spec = str | Mapping[str, Any]


def make_topology(kind: str, k: int) -> Torus:
    """``Mesh(2, k)``, ``Torus(2, k)`` or ``Torus(2, k, bidirectional=False)``.

    >>> make_topology("unidirectional", 4)
    Torus(2, 4, bidirectional=False)
    """
    if kind not in TOPOLOGY_KINDS:
        raise ValueError(f"kind must be one of {TOPOLOGY_KINDS}, got {kind!r}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 2:
        raise ValueError(f"k must be an int >= 2, got {k!r}")
    if kind == "mesh":
        return Mesh(2, int(k))
    return Torus(2, int(k), bidirectional=kind == "bidirectional")


def routing_specs(topology: Torus) -> dict[str, dict]:
    """Every routing of the study on ``topology`` (a 2D mesh or torus): label -> registry spec.

    Nothing is built (build one with :func:`catalog_routing` or :func:`torus_lab.routing.make_routing`).
    Labels (the ``routing`` column of the study's tables): ``dor``, ``dor+dateline`` (tori), ``<turn model>``
    (one VC; on a torus with minimal wraps), ``<turn model>+firsthop`` (bidirectional tori, spec 2.1),
    ``<turn model>+paper`` / ``+layer`` / ``+count`` (tori), ``pfnf-<variant>`` (mesh and torus, VC = VN),
    ``pfnf-<variant>+paper`` / ``+paper-4vc`` / ``+layer`` / ``+count`` (tori), ``duato`` (tori).  The labels
    are names only: what a routing is comes from its spec.

    Examples
    --------
    >>> routing_specs(Mesh(2, 4))["negative-first"]
    {'name': 'turn-model', 'algorithm': 'negative-first'}
    >>> len(routing_specs(Mesh(2, 4))), len(routing_specs(Torus(2, 4)))
    (10, 44)
    """
    torus = topology.wraparound
    out: dict[str, dict] = {"dor": {"name": "ecube"}}
    if torus:
        out["dor+dateline"] = {"name": "ecube", "datelines": True, "vcs": 2}
    for a in _TURN:
        turn = {"name": "turn-model", "algorithm": a}
        out[a] = turn
        if torus:
            if topology.bidirectional:
                out[f"{a}+firsthop"] = {**turn, "wraps": "first-hop"}
            for scheme in ("paper", "layer", "count"):
                out[f"{a}+{scheme}"] = {**turn, "scheme": scheme}
    for v in _PFNF:
        pfnf = {"name": "pfnf", "variant": v}
        out[f"pfnf-{v}"] = pfnf
        if torus and v != "switch":
            out[f"pfnf-{v}+paper"] = {**pfnf, "scheme": "paper"}
            out[f"pfnf-{v}+paper-4vc"] = {**pfnf, "scheme": "paper", "layout": "separate"}
            out[f"pfnf-{v}+layer"] = {**pfnf, "scheme": "layer"}
            out[f"pfnf-{v}+count"] = {**pfnf, "scheme": "count"}
    if torus:
        out["duato"] = {"name": "duato"}
    return out


def catalog_routing(topology: Torus, label: str) -> RoutingFunction:
    """The routing :func:`routing_specs` labels ``label`` on ``topology``, built by the registry.

    >>> rf = catalog_routing(Torus(2, 4), "pfnf-reconstruction+paper")
    >>> rf.name, rf.num_vcs, rf.spec["scheme"]
    ('pfnf-reconstruction+paper', 3, 'paper')
    """
    specs = routing_specs(topology)
    if label not in specs:
        raise ValueError(f"no routing labelled {label!r} on {topology!r}; labels: {', '.join(specs)}")
    return make_routing(specs[label], topology)


def _spec_json(rf: RoutingFunction) -> str:
    """The complete registry spec of ``rf`` as a JSON string (a table cell that rebuilds the routing)."""
    return json.dumps(rf.spec, separators=(",", ":"))


def _check_ks(ks: Iterable[int]) -> list[int]:
    ks = list(ks)
    bad = [k for k in ks if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 3]
    if bad or not ks:
        raise ValueError(f"ks must be a non-empty list of ints >= 3, got {ks!r}")
    return [int(k) for k in ks]


def cdg_table(ks: Iterable[int], kinds: Sequence[str] = TOPOLOGY_KINDS, *, routings: Sequence[str] | None = None,
              forced: bool = True) -> pd.DataFrame:
    """CDG verdict of every routing of :func:`routing_specs` (or the labels ``routings``) for 2D ``kinds`` x ``ks``.

    Columns: kind, k, routing (label), num_vcs (allocated), max_vcs / mean_vcs (distinct VCs used per physical
    channel), vertices, edges, acyclic, cycle_length, cycle (readable witness), cycle_channels (``c:vc``
    list), forced (every dependency of the witness is created by a message with no other permitted output;
    None if acyclic or not checked), duato (Duato's condition for a ``duato`` routing, with its escape VCs,
    else None), scheme (the spec's VC-class scheme, None for entries without one), spec (complete registry
    spec, JSON).

    Examples
    --------
    >>> t = cdg_table([4], ["bidirectional"], routings=["dor", "dor+dateline"])
    >>> t[["routing", "acyclic", "forced"]].values.tolist()
    [['dor', False, True], ['dor+dateline', True, None]]
    """
    rows = []
    for kind in kinds:
        for k in _check_ks(ks):
            topo = make_topology(kind, k)
            for name, spec in routing_specs(topo).items():
                if routings is not None and name not in routings:
                    continue
                rf = make_routing(spec, topo)
                res = cdg_verdict(rf)
                used = channel_vc_usage(rf)
                per = used.sum(axis=1)
                duato = None
                if rf.spec["name"] == "duato":
                    duato = duato_check(rf, list(rf.options["escape_vcs"])).deadlock_free
                forced_ok = None
                if forced and res.cycle is not None:
                    forced_ok = all(m is not None for m in forced_cycle_messages(rf, res.cycle))
                rows.append({
                    "kind": kind, "k": k, "routing": name, "num_vcs": rf.num_vcs,
                    "max_vcs": int(per.max()), "mean_vcs": float(per[per > 0].mean()) if per.any() else 0.0,
                    "vertices": res.num_vertices, "edges": res.num_edges, "stuck_states": res.stuck_states,
                    "acyclic": res.acyclic, "cycle_length": 0 if res.cycle is None else len(res.cycle),
                    "cycle": describe_cycle(topo, res.cycle),
                    "cycle_channels": "" if res.cycle is None else " ".join(f"{c}:{v}" for c, v in res.cycle),
                    "forced": forced_ok, "duato": duato, "scheme": rf.spec.get("scheme"), "spec": _spec_json(rf),
                })
    return pd.DataFrame(rows)


def forced_cycle_messages(rf: RoutingFunction, cycle: Sequence[tuple[int, int]]) -> list[tuple | None]:
    """For each dependency ``cycle[i] -> cycle[i+1]``: a message ``(src, dst)`` that can hold ``cycle[i]``
    and whose *only* permitted output there is ``cycle[i+1]`` (None if no such message exists).

    If no entry is None the cycle is a deadlock configuration the routing can reach (spec 6: "real when
    every message waiting in it has no other permitted output"), given enough buffer-filling traffic.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> t = Torus(1, 4)
    >>> forced_cycle_messages(make_routing("ecube", t), [(1, 0), (3, 0), (5, 0), (7, 0)])  # (0,)->(2,), ...
    [((0,), (2,)), ((1,), (3,)), ((2,), (0,)), ((3,), (1,))]
    """
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


# ====================================================================== VC counts
#: (topology kind, :func:`routing_specs` label) of the VC-count table.
_VC_COUNT_CONFIGS = (
    ("unidirectional", "dor+dateline"),
    ("unidirectional", "negative-first+paper"),
    ("bidirectional", "dor+dateline"),
    ("bidirectional", "negative-first+paper"),
    ("bidirectional", "pfnf-reconstruction+paper"),
    ("bidirectional", "pfnf-reconstruction+paper-4vc"),
    ("bidirectional", "pfnf-literal+paper-4vc"),
    ("bidirectional", "pfnf-reconstruction+count"),
    ("bidirectional", "duato"),
)


def vc_count_table(ks: Iterable[int]) -> pd.DataFrame:
    """The paper's VC-count statements recomputed from the channel sets (spec 2.5 item 1).

    One row per (k, configuration): ``kind``, ``routing``, ``channels`` (physical channels used),
    ``with_vc2`` (channels carrying an after-dateline class), ``with_two`` (channels carrying >= 2 VCs),
    ``max_vcs`` / ``mean_vcs`` (distinct VCs per used channel), ``total_vcs`` (sum), ``vns_equiv``
    (total VCs / channels: "virtual networks" of the mapping, the paper's 2 and 3/2), and for the 4-VC PFNF
    layout ``after_overlap`` (channels carrying the after-classes of *both* VNs; 0 means the halfway
    datelines let them share one VC).
    """
    rows = []
    for k in _check_ks(ks):
        for kind, name in _VC_COUNT_CONFIGS:
            topo = make_topology(kind, k)
            rf = make_routing(routing_specs(topo)[name], topo)
            spec = rf.spec
            used = channel_vc_usage(rf)
            per = used.sum(axis=1)
            ch = per > 0
            pfnf_paper = spec["name"] == "pfnf" and spec["scheme"] == "paper"
            if pfnf_paper and spec["layout"] == "separate":      # VCs: VN0 before/after, VN1 before/after
                after = used[:, 1] | used[:, 3]
                overlap = int((used[:, 1] & used[:, 3]).sum())
            elif pfnf_paper:                                       # VCs: VN0, VN1, shared after-dateline VC
                after, overlap = used[:, 2], None
            elif spec["name"] in ("pfnf", "duato"):                # no single after-dateline class
                after, overlap = np.zeros(len(per), dtype=bool), None
            else:                                                  # one VN: VC 1 is the after-dateline class
                after, overlap = used[:, 1], None
            rows.append({
                "k": k, "kind": kind, "routing": name, "allocated_vcs": rf.num_vcs,
                "channels": int(ch.sum()), "with_vc2": int(after.sum()), "with_two": int((per >= 2).sum()),
                "max_vcs": int(per.max()), "mean_vcs": float(per[ch].mean()), "total_vcs": int(per.sum()),
                "vns_equiv": float(per.sum() / max(int(ch.sum()), 1)), "after_overlap": overlap,
            })
    return pd.DataFrame(rows)


def second_vc_table(ks: Iterable[int], *, tie: str = "+") -> pd.DataFrame:
    """Which exact ring channels need the second VC, analytic (ring) vs measured (DOR + dateline on a 2D torus).

    Rows per (k, torus kind, direction, dateline): the source positions of channels carrying class 1
    (``vc2_sources``), those carrying both classes (``both_sources``), the receiving positions
    (``vc2_receivers``), their fraction of the ring, and ``measured_equal`` (the positions measured in row /
    column 0 of the torus with e-cube and datelines (registry entry ``ecube``) equal the analytic ones; only
    for the default datelines, the ones e-cube uses).

    Examples
    --------
    >>> t = second_vc_table([5])
    >>> t = t[(t.kind == "bidirectional") & (t.direction == "+")]
    >>> t[["dateline", "vc2_sources", "vc2_receivers"]].values.tolist()
    [[4, '0 4', '0 1'], [1, '1 2', '2 3']]
    """
    rows = []
    for k in _check_ks(ks):
        for kind in ("unidirectional", "bidirectional"):
            bidir = kind == "bidirectional"
            topo = make_topology(kind, k)
            used = channel_vc_usage(make_routing({"name": "ecube", "datelines": True, "vcs": 2, "tie": tie}, topo))
            for sign in ((1, -1) if bidir else (1,)):
                for vn in (0, 1):
                    D = dateline_node(k, sign, vn)
                    usage = ring_vc_usage(k, sign, D, bidirectional=bidir, tie=tie)
                    vc2 = ring_second_vc_channels(k, sign, D, bidirectional=bidir, tie=tie)
                    both = sorted(p for p, c in usage.items() if c == {0, 1})
                    measured = None
                    if vn == 0:
                        meas = []
                        for p in range(k):
                            for dim in (0, 1):
                                node = (p, 0) if dim == 0 else (0, p)
                                cid = topo.channel_id(node, dim, sign)
                                if used[cid, 1]:
                                    meas.append((dim, p))
                        measured = all(sorted(p for d_, p in meas if d_ == dim) == vc2 for dim in (0, 1))
                    rows.append({
                        "k": k, "kind": kind, "direction": "+" if sign > 0 else "-", "dateline": D,
                        "vc2_sources": " ".join(map(str, vc2)), "both_sources": " ".join(map(str, both)),
                        "vc2_receivers": " ".join(map(str, sorted((p + sign) % k for p in vc2))),
                        "vc2_fraction": len(vc2) / k, "both_fraction": len(both) / k,
                        "measured_equal": measured,
                    })
    return pd.DataFrame(rows)


def channel_vc_listing(rf: RoutingFunction, vc_names: Sequence[str] | None = None) -> pd.DataFrame:
    """Every physical channel with the VCs some message uses on it (``position`` = source coordinate in ``dim``).

    Examples
    --------
    >>> t = channel_vc_listing(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(1, 5)))
    >>> t[t.sign == 1][["node", "vcs"]].values.tolist()
    [['(0,)', 'VC1 VC2'], ['(1,)', 'VC1'], ['(2,)', 'VC1'], ['(3,)', 'VC1'], ['(4,)', 'VC2']]
    """
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


# ====================================================================== adaptivity
def minimal_path_count(topology: Torus, a, b, *, tie: str = "both") -> int:
    """Number of minimal paths from ``a`` to ``b`` (``tie="both"``: both ways round count at offset k/2).

    >>> minimal_path_count(Torus(2, 4), (0, 0), (2, 1)), minimal_path_count(Torus(2, 4), (0, 0), (2, 1), tie="+")
    (6, 3)
    >>> minimal_path_count(Mesh(2, 4), (0, 0), (3, 3))
    20
    """
    if tie not in ("both", "+", "-"):
        raise ValueError(f"tie must be 'both', '+' or '-', got {tie!r}")
    a, b = topology.check_node(a, "a"), topology.check_node(b, "b")
    dists, ways = [], 1
    for dim in range(topology.n):
        k = topology.radices[dim]
        if not topology.wraparound:
            dists.append(abs(b[dim] - a[dim]))
            continue
        f = (b[dim] - a[dim]) % k
        if not topology.bidirectional:
            dists.append(f)
            continue
        dists.append(min(f, k - f))
        if f and f == k - f and k > 2 and tie == "both":
            ways *= 2
    total = math.factorial(sum(dists))
    for d in dists:
        total //= math.factorial(d)
    return total * ways


def _path_counter(tr, order, starts, dist, channel_dst, d):
    """Memoised counter of realizable minimal paths from a set of routing states to destination ``d``."""
    succ: dict[int, dict[int, list[int]]] = {}

    def successors(s: int) -> dict[int, list[int]]:
        if s not in succ:
            m: dict[int, list[int]] = {}
            for p in range(starts[s], starts[s + 1]):
                t = order[p]
                m.setdefault(int(tr[t, 2]), []).append(int(tr[t, 1]))
            succ[s] = m
        return succ[s]

    @cache
    def count(states: frozenset, node: int) -> int:
        if node == d:
            return 1
        opts: dict[int, set[int]] = {}
        for s in states:
            for ch, tos in successors(s).items():
                opts.setdefault(ch, set()).update(tos)
        total = 0
        for ch, tos in opts.items():
            nxt = int(channel_dst[ch])
            if dist[nxt] == dist[node] - 1:
                total += count(frozenset(tos), nxt)
        return total

    return count


def adaptivity_table(rf: RoutingFunction) -> pd.DataFrame:
    """Per (src, dst): physical paths the routing can realize vs minimal paths, measured from reachable states.

    A physical path is realizable when some sequence of routing states (any VC choice) follows its channels.
    Columns: src, dst, realizable, minimal (all minimal paths, ties both ways), minimal_tie (ties resolved the
    routing's way), nonminimal_hops (number of offered hops of this destination's states that do not reduce
    the distance -- 0 for a minimal routing), fully_adaptive (realizable == minimal),
    fully_adaptive_tie (realizable == minimal_tie).

    Examples
    --------
    >>> t = adaptivity_table(make_routing({"name": "turn-model", "algorithm": "west-first"}, Mesh(2, 3)))
    >>> t[(t.src == 2) & (t.dst == 6)][["realizable", "minimal"]].values.tolist()   # (2,0) -> (0,2): west first
    [[1, 6]]
    """
    topo = rf.topology
    tie = rf.options.get("tie", "+") if topo.wraparound and topo.bidirectional else "both"
    coords = [topo.coords(v) for v in range(topo.num_nodes)]
    rows = []
    for d in range(topo.num_nodes):
        g = explore_states(rf, d)
        tr = g.transitions
        order = np.argsort(tr[:, 0], kind="stable")
        starts = np.searchsorted(tr[order, 0], np.arange(g.num_states + 1))
        dist = np.array([topo.lee_distance(c, coords[d]) for c in coords])
        nonmin = int((dist[topo.channel_dst[tr[:, 2]]] != dist[g.state_node[tr[:, 0]]] - 1).sum())
        count = _path_counter(tr, order, starts, dist, topo.channel_dst, d)
        injections = np.flatnonzero(g.state_channel < 0)
        for s in injections:
            src = int(g.state_node[s])
            rows.append({
                "src": src, "dst": d, "realizable": count(frozenset([int(s)]), src),
                "minimal": minimal_path_count(topo, coords[src], coords[d]),
                "minimal_tie": minimal_path_count(topo, coords[src], coords[d], tie=tie if tie != "both" else "both"),
                "nonminimal_hops": nonmin,
            })
        count.cache_clear()
    df = pd.DataFrame(rows)
    df["fully_adaptive"] = df.realizable == df.minimal
    df["fully_adaptive_tie"] = df.realizable == df.minimal_tie
    return df


def adaptivity_summary(ks: Iterable[int], kinds: Sequence[str] = ("mesh", "bidirectional"),
                       routings: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (kind, k, routing): fraction of pairs fully adaptive, mean realizable/minimal ratio, minimality.

    ``routings``: labels of :func:`routing_specs` (default: all of them).

    Examples
    --------
    >>> s = adaptivity_summary([4], ["mesh"], routings=["pfnf-reconstruction", "pfnf-literal"])
    >>> s.set_index("routing").fully_adaptive_pairs.round(3).to_dict()
    {'pfnf-reconstruction': 1.0, 'pfnf-literal': 0.7}
    """
    rows = []
    for kind in kinds:
        for k in _check_ks(ks):
            topo = make_topology(kind, k)
            for name, spec in routing_specs(topo).items():
                if routings is not None and name not in routings:
                    continue
                t = adaptivity_table(make_routing(spec, topo))
                rows.append({
                    "kind": kind, "k": k, "routing": name, "pairs": len(t),
                    "fully_adaptive_pairs": float(t.fully_adaptive.mean()),
                    "fully_adaptive_tie_pairs": float(t.fully_adaptive_tie.mean()),
                    "mean_path_ratio": float((t.realizable / t.minimal).mean()),
                    "min_realizable": int(t.realizable.min()),
                    "minimal_only": bool((t.nonminimal_hops == 0).all()),
                })
    return pd.DataFrame(rows)


# ====================================================================== simulation
def _sim_routings(k: int, routings: Sequence[Spec],
                  mesh_routings: Sequence[Spec] = ()) -> list[tuple[Torus, RoutingFunction]]:
    """(topology, routing function) for every spec of ``routings`` on the k x k torus, then of
    ``mesh_routings`` on the k x k mesh, built by the registry, in the order given."""
    torus = make_topology("bidirectional", k)
    mesh = make_topology("mesh", k)
    return ([(torus, make_routing(spec, torus)) for spec in routings]
            + [(mesh, make_routing(spec, mesh)) for spec in mesh_routings])


def simulation_table(k: int, routings: Sequence[Spec], traffics: Sequence[str], loads: Sequence[float], *,
                     seed: int, mesh_routings: Sequence[Spec] = (), packet_length: int = 8, warmup: int = 500,
                     measure: int = 1500, drain: int = 5000, deadlock_cycles: int = 500) -> pd.DataFrame:
    """Latency vs offered load (flits/node/cycle) on a k x k torus (and a k x k mesh for ``mesh_routings``).

    ``routings`` / ``mesh_routings``: registry specs (:func:`torus_lab.routing.make_routing`), e.g.
    ``{"name": "pfnf", "scheme": "paper"}`` or ``{"name": "ecube", "datelines": True, "vcs": 2}``.  One run
    per (routing, traffic, load) with seed ``seed`` (SeedSequence inside the simulator).  Columns: the
    simulator's summary plus routing (the routing function's name), network (``torus`` / ``mesh``), traffic,
    seed, k, scheme (the spec's VC-class scheme, None for entries without one) and spec (the complete spec,
    JSON).
    """
    from torus_lab.sim.engine import simulate

    rows = []
    for topo, rf in _sim_routings(k, routings, mesh_routings):
        for traffic in traffics:
            for load in loads:
                res = simulate(topo, rf, traffic=traffic, offered_load=float(load), packet_length=packet_length,
                               warmup=warmup, measure=measure, drain=drain, seed=int(seed),
                               deadlock_cycles=deadlock_cycles, drop_after=-1)
                row = res.summary()
                row.update({"routing": rf.name, "network": topo.kind, "traffic": traffic, "seed": int(seed), "k": k,
                            "scheme": rf.spec.get("scheme"), "spec": _spec_json(rf)})
                rows.append(row)
    return pd.DataFrame(rows)


def saturation_from_sweep(sweep: pd.DataFrame, *, latency_factor: float = 3.0) -> pd.DataFrame:
    """Saturation summary of a :func:`simulation_table` sweep, per (routing, network, traffic).

    ``saturation_throughput``: the largest accepted throughput of any run without deadlock (flits/node/cycle);
    ``saturation_load``: the largest offered load whose mean latency is at most ``latency_factor`` times the
    latency at the lowest offered load (and did not deadlock); ``first_deadlock_load``: the lowest offered
    load at which the run deadlocked (NaN if none).  Defined on the sweep grid, so its resolution is the
    grid spacing (REC of this study; the simulator's bisection :func:`torus_lab.sim.engine.find_saturation`
    needs many more runs).

    Examples
    --------
    >>> df = pd.DataFrame({"routing": ["a"] * 3, "traffic": ["u"] * 3, "network": ["torus"] * 3,
    ...                    "offered_load": [0.1, 0.2, 0.3], "accepted_throughput": [0.1, 0.19, 0.2],
    ...                    "mean_latency": [10.0, 20.0, 90.0], "deadlock": [False, False, False]})
    >>> saturation_from_sweep(df)[["saturation_throughput", "saturation_load"]].values.tolist()
    [[0.2, 0.2]]
    """
    rows = []
    for (routing, network, traffic), g in sweep.groupby(["routing", "network", "traffic"], sort=False):
        g = g.sort_values("offered_load")
        ok = g[~g.deadlock.astype(bool)]
        base = float(ok.mean_latency.iloc[0]) if len(ok) else float("nan")
        fine = ok[ok.mean_latency <= latency_factor * base]
        dead = g[g.deadlock.astype(bool)]
        rows.append({
            "routing": routing, "traffic": traffic, "network": network,
            "saturation_throughput": float(ok.accepted_throughput.max()) if len(ok) else float("nan"),
            "saturation_load": float(fine.offered_load.max()) if len(fine) else float("nan"),
            "first_deadlock_load": float(dead.offered_load.min()) if len(dead) else float("nan"),
        })
    return pd.DataFrame(rows)


def provoke_deadlock_table(k: int, routings: Sequence[Spec], *, seeds: Sequence[int],
                           mesh_routings: Sequence[Spec] = (), traffic: str = "uniform", offered_load: float = 1.0,
                           packet_length: int = 4, buffer_depth: int = 1, cycles: int = 4000,
                           deadlock_cycles: int = 300) -> pd.DataFrame:
    """Try to provoke a deadlock (spec 2.5 item 3): saturating load, short packets, 1-flit buffers.

    ``routings`` (on the k x k torus) and ``mesh_routings`` (on the k x k mesh) are registry specs, as for
    :func:`simulation_table`.  One row per (routing, seed): ``routing`` (the routing function's name),
    ``deadlock`` (the whole network stalled for ``deadlock_cycles`` cycles; no packet is ever dropped),
    ``cdg_acyclic`` (the routing's CDG verdict), ``cycle_in_cdg`` (every dependency of the simulator's waiting
    cycle is an edge of the routing's CDG), the waiting cycle itself, ``scheme`` and ``spec`` (JSON).
    """
    from torus_lab.deadlock import channel_dependency_graph
    from torus_lab.sim.engine import simulate

    rows = []
    for topo, rf in _sim_routings(k, routings, mesh_routings):
        g = channel_dependency_graph(rf)
        acyclic = find_acyclic(g)
        for seed in seeds:
            res = simulate(topo, rf, traffic=traffic, offered_load=float(offered_load), packet_length=packet_length,
                           buffer_depth=buffer_depth, warmup=0, measure=cycles, drain=0, seed=int(seed),
                           deadlock_cycles=deadlock_cycles, drop_after=-1)
            cyc = res.deadlock_cycle if res.deadlock else []
            in_cdg = all(g.has_edge(a, b) for a, b in zip(cyc, cyc[1:] + cyc[:1], strict=True)) if cyc else None
            rows.append({"routing": rf.name, "network": topo.kind, "k": k, "seed": int(seed), "traffic": traffic,
                         "offered_load": float(offered_load), "packet_length": packet_length,
                         "buffer_depth": buffer_depth, "deadlock": bool(res.deadlock), "cdg_acyclic": acyclic,
                         "cycle_in_cdg": in_cdg, "waiting_cycle": describe_cycle(topo, cyc) if cyc else "",
                         "scheme": rf.spec.get("scheme"), "spec": _spec_json(rf)})
    return pd.DataFrame(rows)


def find_acyclic(graph) -> bool:
    """True when ``graph`` (a CDG) has no cycle.

    >>> import networkx as nx
    >>> find_acyclic(nx.DiGraph([(1, 2)])), find_acyclic(nx.DiGraph([(1, 2), (2, 1)]))
    (True, False)
    """
    import networkx as nx

    return nx.is_directed_acyclic_graph(graph)


# ====================================================================== pictures
def draw_virtual_mesh(ax, rf: RoutingFunction, *, title: str | None = None, vc_names: Sequence[str] | None = None):
    """Draw a 2D torus with every channel coloured by the set of VCs it carries (the virtual mesh).

    Each direction of a link is drawn offset to its right; wraparound channels are stubs at the border.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from torus_lab.plotting import PALETTE

    topo = rf.topology
    used = channel_vc_usage(rf)
    combos = sorted({tuple(np.flatnonzero(u)) for u in used if u.any()}, key=lambda c: (len(c), c))
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(combos)}
    names = list(vc_names) if vc_names is not None else [f"VC{v + 1}" for v in range(rf.num_vcs)]
    for cid in range(topo.num_channels):
        combo = tuple(np.flatnonzero(used[cid]))
        if not combo:
            continue
        x0, y0 = topo.coords(int(topo.channel_src[cid]))
        dim, sign = int(topo.channel_dim[cid]), int(topo.channel_sign[cid])
        L = 0.42 if topo.is_wraparound(cid) else 1.0
        dx, dy = (sign * L, 0.0) if dim == 0 else (0.0, sign * L)
        off = 0.1
        ox, oy = (dy / L * off, -dx / L * off) if L else (0, 0)
        ax.annotate("", xy=(x0 + dx * 0.88 + ox, y0 + dy * 0.88 + oy), xytext=(x0 + ox, y0 + oy),
                    arrowprops={"arrowstyle": "-|>", "color": colour[combo], "lw": 1.0 + 0.8 * len(combo),
                                "shrinkA": 0, "shrinkB": 0})
    coords = topo.all_coords()
    ax.scatter(coords[:, 0], coords[:, 1], s=14, color="0.3", zorder=3)
    handles = [Line2D([0], [0], color=colour[c], lw=1.0 + 0.8 * len(c), label="+".join(names[v] for v in c))
               for c in combos]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="VCs used")
    kx, ky = topo.radices
    ax.set_xlim(-0.7, kx - 0.3)
    ax.set_ylim(-0.7, ky - 0.3)
    ax.set_aspect("equal")
    ax.set_xlabel("x (dimension 0)")
    ax.set_ylabel("y (dimension 1)")
    ax.grid(False)
    if title:
        ax.set_title(title, fontsize=9)
    plt.setp(ax.get_xticklabels(), fontsize=7)
    return ax


def draw_cdg_cycle(ax, rf: RoutingFunction, cycle: Sequence[tuple[int, int]] | None, *, title: str | None = None):
    """Draw a CDG witness cycle on the 2D torus: thick arrows labelled with their position and VC."""
    from torus_lab.plotting import PALETTE, draw_torus_2d

    topo = rf.topology
    draw_torus_2d(ax, topo, title=title)
    if not cycle:
        ax.text(0.5, 0.5, "acyclic", transform=ax.transAxes, ha="center", va="center", fontsize=14,
                color=PALETTE[2])
        return ax
    for i, (cid, vc) in enumerate(cycle):
        x0, y0 = topo.coords(int(topo.channel_src[cid]))
        dim, sign = int(topo.channel_dim[cid]), int(topo.channel_sign[cid])
        L = 0.45 if topo.is_wraparound(int(cid)) else 1.0
        dx, dy = (sign * L, 0.0) if dim == 0 else (0.0, sign * L)
        ox, oy = (dy / L * 0.08, -dx / L * 0.08)
        col = PALETTE[[3, 0, 4, 2, 1, 5][vc % 6]]
        ax.annotate("", xy=(x0 + dx * 0.9 + ox, y0 + dy * 0.9 + oy), xytext=(x0 + ox, y0 + oy),
                    arrowprops={"arrowstyle": "-|>", "color": col, "lw": 2.4, "shrinkA": 0, "shrinkB": 0})
        ax.text(x0 + dx * 0.5 + 2.2 * ox, y0 + dy * 0.5 + 2.2 * oy, f"{i}:v{vc}", fontsize=6, color=col,
                ha="center", va="center")
    return ax
