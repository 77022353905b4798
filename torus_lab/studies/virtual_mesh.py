"""Virtual mesh networks (Upadhyay, Varavithya & Mohapatra): CDG verdicts, VC counts, adaptivity, simulation.

The evaluation of the virtual-mesh paper (``docs/conventions.md#virtual-mesh-schemes``), shared by
``notebooks/virtual_mesh.ipynb``, the tests and the benchmarks.  Every function is pure: parameters (and a seed where
there is randomness) -> table.

* :func:`routing_specs` -- every routing of the study for one topology, as label -> registry spec (cheap;
  :func:`catalog_routing` builds one with :func:`torus_lab.routing.make_routing`).
* :func:`cdg_table` -- CDG verdict (and a witness cycle) of every routing on uni-/bidirectional tori and
  meshes; the Duato design is judged by :func:`torus_lab.deadlock.duato_check`.
* :func:`~torus_lab.deadlock.forced_cycle_messages` -- for a witness cycle, one message per dependency whose
  waiting header has *no other permitted output*: if every edge has one, the cycle is a reachable deadlock
  configuration of wormhole routing (each message holds one VC and waits for the next), not just a potential
  one.
* :func:`vc_count_table`, :func:`second_vc_table` -- the paper's VC-count statements recomputed from the
  constructed channel sets.
* :func:`~torus_lab.routing.explore.adaptivity_table` -- realizable vs minimal physical paths per pair,
  measured by walking the reachable routing states (full adaptivity is measured, not assumed).
* :func:`simulation_table` -- latency vs offered load and saturation throughput with the wormhole simulator;
  the simulated routings are given as registry specs and labelled with the built routing function's name;
  ``replicas`` independent runs per point, summarised with 95% t-intervals by :func:`latency_summary`.
* :func:`run` -- every table of the notebook; the claims table, its last step, is built from them by
  :func:`torus_lab.studies.virtual_mesh_claims.claims`.

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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import (
    check_frame,
    check_instance,
    check_int,
    check_mapping,
    check_real,
    check_sequence,
    check_str,
    is_int,
)
from torus_lab.deadlock import (
    MAX_DATELINE_CONFIGS,
    cdg_acyclic,
    cdg_verdict,
    channel_vc_listing,
    channel_vc_usage,
    cycle_dimensions,
    dateline_search,
    describe_cycle,
    duato_check,
    find_acyclic,
    forced_cycle_messages,
    merged_cdg_acyclic,
    ring_second_vc_channels,
    ring_vc_usage,
    set_partitions,
)
from torus_lab.routing import RoutingFunction, make_routing
from torus_lab.routing.explore import adaptivity_table
from torus_lab.routing.turn_model import dateline_node, dateline_positions, pfnf_routing, turn_model_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.saturation import RUN_COLUMNS, Saturation
from torus_lab.studies.routing_bench import curve_saturation, latency_runs, point_summary
from torus_lab.studies.virtual_mesh_claims import claims
from torus_lab.sweep import sweep
from torus_lab.topology import NETWORK_KINDS, Mesh, Torus, make_network  # noqa: F401 (Mesh: the doctests use it)

__all__ = [
    "run",
    "routing_specs",
    "catalog_routing",
    "make_topology",
    "cdg_table",
    "vc_count_table",
    "second_vc_table",
    "adaptivity_summary",
    "simulation_table",
    "latency_summary",
    "provoke_deadlock_table",
    "dateline_premise_table",
    "vc_budget_table",
    "dateline_search_row",
    "dateline_search_table",
    "DATELINE_SEARCH_MAX_K",
    "DATELINE_SEARCH_CONFIGS",
    "DATELINE_SEARCH_SCHEMES",
]

#: Topology kinds of the study.
TOPOLOGY_KINDS = NETWORK_KINDS
_TURN = ("west-first", "north-last", "negative-first", "positive-first", "minimal-adaptive")
_PFNF = ("reconstruction", "mirror", "literal", "switch")
#: A routing spec: a registry name or a mapping ``{"name": ..., option: value}`` (:mod:`torus_lab.routing.registry`).
Spec = str | Mapping[str, Any]

#: Largest radix of the virtual-mesh pictures (``drawn_routings``, ``channel_vcs_table``): their cost grows
#: as k^4 (about 15 s at k = 32) and a larger picture is unreadable.
MAX_DRAW_K = 16
#: Largest radix the study's helpers accept (its tables enumerate every node pair of a k x k network).
MAX_K = 4096


def make_topology(kind: str, k: int) -> Torus:
    """The k x k network of ``kind`` (:func:`torus_lab.topology.make_network`), k at most ``MAX_K``.

    >>> make_topology("unidirectional", 4)
    Torus(2, 4, bidirectional=False)
    """
    check_str("kind", kind, TOPOLOGY_KINDS)
    return make_network(kind, check_int("k", k, minimum=2, maximum=MAX_K))


def routing_specs(topology: Torus) -> dict[str, dict]:
    """Every routing of the study on ``topology`` (a 2D mesh or torus): label -> registry spec.

    Nothing is built (build one with :func:`catalog_routing` or :func:`torus_lab.routing.make_routing`).
    Labels (the ``routing`` column of the study's tables): ``dor``, ``dor+dateline`` (tori), ``<turn model>``
    (one VC; on a torus with minimal wraps), ``<turn model>+firsthop`` (bidirectional tori,
    ``docs/conventions.md#first-hop-wraps``), ``<turn model>+paper`` / ``+layer`` / ``+count`` (tori),
    ``pfnf-<variant>`` (mesh and torus, VC = VN), ``pfnf-<variant>+paper`` / ``+paper-4vc`` / ``+layer`` / ``+count``
    (tori), ``duato`` (tori).  The labels are names only: what a routing is comes from its spec.

    Examples
    --------
    >>> routing_specs(Mesh(2, 4))["negative-first"]
    {'name': 'turn-model', 'algorithm': 'negative-first'}
    >>> len(routing_specs(Mesh(2, 4))), len(routing_specs(Torus(2, 4)))
    (10, 44)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
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
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    check_str("label", label)
    specs = routing_specs(topology)
    if label not in specs:
        raise ValueError(f"label {label!r} names no routing on {topology!r}; labels: {', '.join(specs)}")
    return make_routing(specs[label], topology)


def _spec_json(rf: RoutingFunction) -> str:
    """The complete registry spec of ``rf`` as a JSON string (a table cell that rebuilds the routing)."""
    return json.dumps(rf.spec, separators=(",", ":"))


def _check_ks(ks: Iterable[int]) -> list[int]:
    ks = check_sequence("ks", ks)
    bad = [k for k in ks if not is_int(k) or not 3 <= k <= MAX_K]
    if bad or not ks:
        raise ValueError(f"ks must be a non-empty list of ints in 3..{MAX_K}, got {ks!r:.200}")
    return [int(k) for k in ks]


def _rows(func, items: Sequence[Mapping[str, Any]], *, seed: int = 0, backend: str = "auto",
          desc: str | None = None) -> pd.DataFrame:
    """:func:`torus_lab.sweep.sweep` of ``func`` over ``items``, each result a row (dict) or a list of rows.

    Deterministic item functions ignore their ``rng`` (the default ``seed=0`` is then only a cache key).
    """
    results = sweep(func, list(items), seed=seed, backend=backend, desc=desc)
    return pd.DataFrame([row for res in results for row in (res if isinstance(res, list) else [res])])


def _study_items(ks: Iterable[int], kinds: Sequence[str], routings: Sequence[str] | None) -> list[dict]:
    """``{"kind", "k", "routing"}`` for every label of :func:`routing_specs` (or of ``routings``), in order."""
    return [{"kind": kind, "k": k, "routing": name} for kind in kinds for k in _check_ks(ks)
            for name in routing_specs(make_topology(kind, k)) if routings is None or name in routings]


def _cdg_row(kind: str, k: int, routing: str, forced: bool = True, rng=None) -> dict[str, Any]:
    """One row of :func:`cdg_table`: the CDG verdict of the routing labelled ``routing`` on ``kind`` ``k``.

    A :func:`~torus_lab.sweep.sweep` item function (``rng`` is unused: the verdict is deterministic).

    >>> _cdg_row("bidirectional", 4, "dor")["acyclic"]
    False
    """
    check_str("kind", kind, TOPOLOGY_KINDS)
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("routing", routing)
    check_instance("forced", forced, (bool, np.bool_), "a bool")
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = make_topology(kind, k)
    rf = make_routing(routing_specs(topo)[routing], topo)
    res = cdg_verdict(rf)
    per = channel_vc_usage(rf).sum(axis=1)
    duato = None
    if rf.spec["name"] == "duato":
        duato = duato_check(rf, list(rf.options["escape_vcs"])).deadlock_free
    forced_ok = None
    if forced and res.cycle is not None:
        forced_ok = all(m is not None for m in forced_cycle_messages(rf, res.cycle))
    return {
        "kind": kind, "k": k, "routing": routing, "num_vcs": rf.num_vcs,
        "max_vcs": int(per.max()), "mean_vcs": float(per[per > 0].mean()) if per.any() else 0.0,
        "vertices": res.num_vertices, "edges": res.num_edges, "stuck_states": res.stuck_states,
        "acyclic": res.acyclic, "cycle_length": 0 if res.cycle is None else len(res.cycle),
        "cycle": describe_cycle(topo, res.cycle),
        "cycle_channels": "" if res.cycle is None else " ".join(f"{c}:{v}" for c, v in res.cycle),
        "forced": forced_ok, "duato": duato, "scheme": rf.spec.get("scheme"), "spec": _spec_json(rf),
    }


def cdg_table(ks: Iterable[int], kinds: Sequence[str] = TOPOLOGY_KINDS, *, routings: Sequence[str] | None = None,
              forced: bool = True, backend: str = "auto") -> pd.DataFrame:
    """CDG verdict of every routing of :func:`routing_specs` (or the labels ``routings``) for 2D ``kinds`` x ``ks``.

    One :func:`~torus_lab.sweep.sweep` item (``_cdg_row``) per (kind, k, routing).
    Columns: kind, k, routing (label), num_vcs (allocated), max_vcs / mean_vcs (distinct VCs used per physical
    channel), vertices, edges, acyclic, cycle_length, cycle (readable witness), cycle_channels (``c:vc``
    list), forced (every dependency of the witness is created by a message with no other permitted output;
    None if acyclic or not checked), duato (Duato's condition for a ``duato`` routing, with its escape VCs,
    else None), scheme (the registry spec's VC-class scheme, None for entries without one), spec (complete registry
    spec, JSON).

    Examples
    --------
    >>> t = cdg_table([4], ["bidirectional"], routings=["dor", "dor+dateline"], backend="serial")
    >>> t[["routing", "acyclic", "forced"]].values.tolist()
    [['dor', False, True], ['dor+dateline', True, None]]
    """
    ks = _check_ks(ks)
    kinds = [check_str("kinds", kind, TOPOLOGY_KINDS) for kind in check_sequence("kinds", kinds)]
    if routings is not None:
        routings = [check_str("routings", r) for r in check_sequence("routings", routings)]
    check_instance("forced", forced, (bool, np.bool_), "a bool")
    check_str("backend", backend)
    items = [dict(i, forced=bool(forced)) for i in _study_items(ks, kinds, routings)]
    return _rows(_cdg_row, items, backend=backend, desc="cdg")


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


def _vc_count_row(k: int, kind: str, routing: str, rng=None) -> dict[str, Any]:
    """One row of :func:`vc_count_table` (a deterministic :func:`~torus_lab.sweep.sweep` item function).

    >>> _vc_count_row(5, "unidirectional", "dor+dateline")["max_vcs"]
    2
    """
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("kind", kind, TOPOLOGY_KINDS)
    check_str("routing", routing)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = make_topology(kind, k)
    rf = make_routing(routing_specs(topo)[routing], topo)
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
    return {
        "k": k, "kind": kind, "routing": routing, "allocated_vcs": rf.num_vcs,
        "channels": int(ch.sum()), "with_vc2": int(after.sum()), "with_two": int((per >= 2).sum()),
        "max_vcs": int(per.max()), "mean_vcs": float(per[ch].mean()), "total_vcs": int(per.sum()),
        "vns_equiv": float(per.sum() / max(int(ch.sum()), 1)), "after_overlap": overlap,
    }


def vc_count_table(ks: Iterable[int], *, backend: str = "auto") -> pd.DataFrame:
    """The paper's VC-count statements recomputed from the channel sets (``docs/conventions.md#virtual-mesh-schemes``).

    One row per (k, configuration) (a :func:`~torus_lab.sweep.sweep` item each): ``kind``, ``routing``,
    ``channels`` (physical channels used),
    ``with_vc2`` (channels carrying an after-dateline class), ``with_two`` (channels carrying >= 2 VCs),
    ``max_vcs`` / ``mean_vcs`` (distinct VCs per used channel), ``total_vcs`` (sum), ``vns_equiv``
    (total VCs / channels: "virtual networks" of the mapping, the paper's 2 and 3/2), and for the 4-VC PFNF
    layout ``after_overlap`` (channels carrying the after-classes of *both* VNs; 0 means the halfway
    datelines let them share one VC).
    """
    ks = _check_ks(ks)
    check_str("backend", backend)
    items = [{"k": k, "kind": kind, "routing": name} for k in _check_ks(ks) for kind, name in _VC_COUNT_CONFIGS]
    return _rows(_vc_count_row, items, backend=backend, desc="vc counts")


def _second_vc_rows(k: int, kind: str, tie: str = "+", rng=None) -> list[dict[str, Any]]:
    """The rows of :func:`second_vc_table` for one ``k`` and torus ``kind`` (a deterministic
    :func:`~torus_lab.sweep.sweep` item function).

    >>> [r["vc2_sources"] for r in _second_vc_rows(5, "unidirectional")]
    ['0 1 2 4', '1 2 3 4']
    """
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("kind", kind, TOPOLOGY_KINDS)
    check_str("tie", tie, ("+", "-", "both"))
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    rows = []
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
    return rows


def second_vc_table(ks: Iterable[int], *, tie: str = "+", backend: str = "auto") -> pd.DataFrame:
    """Which exact ring channels need the second VC, analytic (ring) vs measured (DOR + dateline on a 2D torus).

    Rows per (k, torus kind, direction, dateline): the source positions of channels carrying class 1
    (``vc2_sources``), those carrying both classes (``both_sources``), the receiving positions
    (``vc2_receivers``), their fraction of the ring, and ``measured_equal`` (the positions measured in row /
    column 0 of the torus with e-cube and datelines (registry entry ``ecube``) equal the analytic ones; only
    for the default datelines, the ones e-cube uses).

    Examples
    --------
    >>> t = second_vc_table([5], backend="serial")
    >>> t = t[(t.kind == "bidirectional") & (t.direction == "+")]
    >>> t[["dateline", "vc2_sources", "vc2_receivers"]].values.tolist()
    [[4, '0 4', '0 1'], [1, '1 2', '2 3']]
    """
    ks = _check_ks(ks)
    check_str("tie", tie, ("+", "-", "both"))
    check_str("backend", backend)
    items = [{"k": k, "kind": kind, "tie": tie} for k in _check_ks(ks) for kind in ("unidirectional", "bidirectional")]
    return _rows(_second_vc_rows, items, backend=backend, desc="second VC")


# ====================================================================== adaptivity
def _adaptivity_row(kind: str, k: int, routing: str, rng=None) -> dict[str, Any]:
    """One row of :func:`adaptivity_summary` (a deterministic :func:`~torus_lab.sweep.sweep` item function).

    >>> _adaptivity_row("mesh", 3, "dor")["fully_adaptive_pairs"] < 1
    True
    """
    check_str("kind", kind, TOPOLOGY_KINDS)
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("routing", routing)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = make_topology(kind, k)
    t = adaptivity_table(make_routing(routing_specs(topo)[routing], topo))
    return {
        "kind": kind, "k": k, "routing": routing, "pairs": len(t),
        "fully_adaptive_pairs": float(t.fully_adaptive.mean()),
        "fully_adaptive_tie_pairs": float(t.fully_adaptive_tie.mean()),
        "mean_path_ratio": float((t.realizable / t.minimal).mean()),
        "min_realizable": int(t.realizable.min()),
        "minimal_only": bool((t.nonminimal_hops == 0).all()),
    }


def adaptivity_summary(ks: Iterable[int], kinds: Sequence[str] = ("mesh", "bidirectional"),
                       routings: Sequence[str] | None = None, *, backend: str = "auto") -> pd.DataFrame:
    """Per (kind, k, routing): fraction of pairs fully adaptive, mean realizable/minimal ratio, minimality.

    ``routings``: labels of :func:`routing_specs` (default: all of them); one
    :func:`~torus_lab.sweep.sweep` item (``_adaptivity_row``) per (kind, k, routing).

    Examples
    --------
    >>> s = adaptivity_summary([4], ["mesh"], routings=["pfnf-reconstruction", "pfnf-literal"], backend="serial")
    >>> s.set_index("routing").fully_adaptive_pairs.round(3).to_dict()
    {'pfnf-reconstruction': 1.0, 'pfnf-literal': 0.7}
    """
    ks = _check_ks(ks)
    kinds = [check_str("kinds", kind, TOPOLOGY_KINDS) for kind in check_sequence("kinds", kinds)]
    if routings is not None:
        routings = [check_str("routings", r) for r in check_sequence("routings", routings)]
    check_str("backend", backend)
    return _rows(_adaptivity_row, _study_items(ks, kinds, routings), backend=backend, desc="adaptivity")


# ====================================================================== simulation
#: The saturation rule of this study (:mod:`torus_lab.sim.saturation`): a load is sustained when no run at it
#: deadlocked and its mean latency is at most 3x the latency at the lightest load of the curve (no
#: accepted-throughput test).
SATURATION = Saturation(accept_ratio=None, latency_factor=3.0)
#: Network name of a simulation target -> topology kind of :func:`make_topology` (k x k).
_NETWORKS = {"torus": "bidirectional", "mesh": "mesh"}
#: Simulator settings of the provoked-deadlock runs (saturating load, short packets, 1-flit buffers; no
#: warm-up or drain; a packet is never dropped).
PROVOKE_CONFIG = {"traffic": "uniform", "offered_load": 1.0, "packet_length": 4, "buffer_depth": 1, "warmup": 0,
                  "measure": 4000, "drain": 0, "deadlock_cycles": 300, "drop_after": -1}


def _sim_targets(routings: Sequence[Spec], mesh_routings: Sequence[Spec] = ()) -> list[dict[str, Any]]:
    """``{"network", "routing"}`` sweep-item parts: the specs of ``routings`` on the torus, then those of
    ``mesh_routings`` on the mesh, in the order given (plain JSON-like values)."""
    def plain(spec: Spec) -> Spec:
        return spec if isinstance(spec, str) else json.loads(json.dumps(dict(spec)))

    return ([{"network": "torus", "routing": plain(s)} for s in routings]
            + [{"network": "mesh", "routing": plain(s)} for s in mesh_routings])


def _build(network: str, k: int, routing: Spec) -> RoutingFunction:
    if network not in _NETWORKS:
        raise ValueError(f"network must be one of {tuple(_NETWORKS)}, got {network!r}")
    return make_routing(routing, make_topology(_NETWORKS[network], k))


#: Most replicas (independent runs) per simulated point.
MAX_REPLICAS = 1000


def simulation_table(k: int, routings: Sequence[Spec], traffics: Sequence[str], loads: Sequence[float], *,
                     seed: int, replicas: int = 1, mesh_routings: Sequence[Spec] = (), packet_length: int = 8,
                     warmup: int = 500, measure: int = 1500, drain: int = 5000, deadlock_cycles: int = 500,
                     backend: str = "auto") -> pd.DataFrame:
    """Latency vs offered load (flits/node/cycle) on a k x k torus (and a k x k mesh for ``mesh_routings``).

    ``routings`` / ``mesh_routings``: registry specs (:func:`torus_lab.routing.make_routing`), e.g.
    ``{"name": "pfnf", "scheme": "paper"}`` or ``{"name": "ecube", "datelines": True, "vcs": 2}``.  One
    item of the one latency-load pipeline (:func:`torus_lab.studies.routing_bench.latency_runs`, items ``k``,
    ``network``, ``routing``, ``traffic``, ``load``, ``replica``, ``config``) per (routing, traffic, load,
    replica), its simulator seed drawn from the item's content-derived generator
    (:func:`torus_lab.sweep.item_seed`); no packet is ever dropped.  One row per run: the simulator's summary
    plus routing (the routing function's name), network (the topology's kind), traffic, k, replica
    (``0 .. replicas - 1``), scheme (the spec's VC-class scheme, None for entries without one), spec (the
    complete spec, JSON) and seed (the experiment seed ``seed``).  :func:`latency_summary` aggregates the replicas.

    Examples
    --------
    >>> t = simulation_table(3, [{"name": "ecube", "datelines": True, "vcs": 2}], ["uniform"], [0.1], seed=1,
    ...                      replicas=2, warmup=10, measure=40, drain=100, backend="serial")
    >>> t[["routing", "offered_load", "replica", "seed"]].values.tolist()
    [['ecube+dateline', 0.1, 0, 1], ['ecube+dateline', 0.1, 1, 1]]
    """
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    routings = check_sequence("routings", routings)
    traffics = [check_str("traffics", t) for t in check_sequence("traffics", traffics)]
    loads = [check_real("loads", v, minimum=0) for v in check_sequence("loads", loads)]
    seed = check_int("seed", seed, minimum=0)
    replicas = check_int("replicas", replicas, minimum=1, maximum=MAX_REPLICAS)
    mesh_routings = check_sequence("mesh_routings", mesh_routings)
    for name, value in (("packet_length", packet_length), ("warmup", warmup), ("measure", measure), ("drain", drain),
                        ("deadlock_cycles", deadlock_cycles)):
        check_int(name, value, minimum=0)
    check_str("backend", backend)
    config = {"packet_length": packet_length, "warmup": warmup, "measure": measure, "drain": drain,
              "deadlock_cycles": deadlock_cycles, "drop_after": -1}
    items = [{"k": k, **target, "traffic": traffic, "load": float(load), "replica": replica, "config": config}
             for target in _sim_targets(routings, mesh_routings) for traffic in traffics for load in loads
             for replica in range(replicas)]
    table = latency_runs(items, seed=seed, backend=backend, desc="latency",
                         extras=["network", "k", "replica", "scheme", "spec"])
    return table.drop(columns="sim_seed", errors="ignore")


#: Curve keys of a :func:`simulation_table` (one latency-load curve per value).
CURVE_COLUMNS = ("routing", "network", "traffic")
#: Columns of :func:`latency_summary`.
LATENCY_SUMMARY_COLUMNS = (
    *CURVE_COLUMNS, "offered_load", "runs", "deadlocks", "mean_latency_mean", "mean_latency_low",
    "mean_latency_high", "mean_latency_n", "accepted_throughput_mean", "accepted_throughput_low",
    "accepted_throughput_high", "seed",
)


def latency_summary(latency: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Mean latency and accepted throughput over the replicas of each point of a :func:`simulation_table`.

    One row per (routing, network, traffic, offered load), curves in run order and loads ascending: ``runs``,
    ``deadlocks`` (runs that stopped in deadlock), and over the runs that did **not** deadlock (a deadlocked
    run's latency describes only the packets delivered before the stall) the mean with the Student-t ``level``
    interval (:func:`torus_lab.stats.summarize`) as ``<metric>_mean``, ``_low``, ``_high`` and the count
    ``mean_latency_n`` (NaN bounds with fewer than two such runs, NaN mean with none), and ``seed``.

    Examples
    --------
    >>> runs = pd.DataFrame({"routing": "r", "network": "torus", "traffic": "uniform", "offered_load": 0.1,
    ...                      "mean_latency": [10.0, 12.0, 14.0, 99.0], "accepted_throughput": 0.1,
    ...                      "deadlock": [False, False, False, True], "seed": 7})
    >>> row = latency_summary(runs).iloc[0]
    >>> int(row.runs), int(row.deadlocks), float(row.mean_latency_mean), int(row.mean_latency_n)
    (4, 1, 12.0, 3)
    >>> round(float(row.mean_latency_low), 2), round(float(row.mean_latency_high), 2)
    (7.03, 16.97)
    """
    check_frame("latency", latency, [*CURVE_COLUMNS, "offered_load", "mean_latency", "accepted_throughput",
                                     "deadlock", "seed"])
    level = check_real("level", level, minimum=0)
    out = point_summary(latency, CURVE_COLUMNS, exclude_deadlocked=True, level=level)
    out["mean_latency_n"] = out["mean_latency_n"].fillna(0).astype(int)
    return out[list(LATENCY_SUMMARY_COLUMNS)]


def saturation_summary(latency: pd.DataFrame, *, seed: int) -> pd.DataFrame:
    """Saturation of every curve of a :func:`simulation_table`, per (routing, network, traffic), in run order.

    :func:`torus_lab.sim.saturation.saturation_table` with ``SATURATION`` (``saturation_load``: highest
    offered load of the grid such that it and every lighter load are sustained; ``saturation_throughput``:
    largest accepted throughput of a load without deadlock), plus ``first_deadlock_load`` (the lightest offered
    load at which a run deadlocked, NaN if none), the number of loads and the experiment ``seed``
    (:func:`torus_lab.studies.routing_bench.curve_saturation`).  Resolution: the sweep's grid.

    Examples
    --------
    >>> runs = pd.DataFrame({"routing": "r", "network": "torus", "traffic": "uniform", "offered_load": [0.1, 0.3],
    ...                      "accepted_throughput": [0.1, 0.2], "generated_throughput": [0.1, 0.3],
    ...                      "mean_latency": [10.0, 20.0], "deadlock": [False, True]})
    >>> saturation_summary(runs, seed=2)[["saturation_load", "first_deadlock_load", "seed"]].values.tolist()
    [[0.1, 0.3, 2.0]]
    """
    by = ["routing", "network", "traffic"]
    check_frame("latency", latency, [*by, *RUN_COLUMNS])
    check_int("seed", seed)
    out = curve_saturation(latency, by, SATURATION)
    out["seed"] = int(seed)
    return out[["routing", "traffic", "network", "saturation_throughput", "saturation_load", "first_deadlock_load",
                "loads", "seed"]]


def _provoke_point(k: int, network: str, routing: Spec, replica: int, config: Mapping[str, Any],
                  rng: np.random.Generator) -> dict[str, Any]:
    """One provoked-deadlock run of :func:`provoke_deadlock_table` (a :func:`~torus_lab.sweep.sweep` item
    function; ``replica`` only tells the runs of one routing apart, the simulator seed comes from ``rng``)."""
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("network", network)
    check_int("replica", replica, minimum=0)
    check_instance("rng", rng, np.random.Generator, "a numpy Generator")
    check_mapping("config", config, [])
    from torus_lab.deadlock import channel_dependency_graph

    rf = _build(network, k, routing)
    cfg = SimConfig.from_mapping(config)
    res = simulate(rf, cfg, seed=int(rng.integers(2**62)))
    g = channel_dependency_graph(rf)
    cyc = res.deadlock_cycle if res.deadlock else []
    in_cdg = all(g.has_edge(a, b) for a, b in zip(cyc, cyc[1:] + cyc[:1], strict=True)) if cyc else None
    return {"routing": rf.name, "network": rf.topology.kind, "k": k, "replica": replica, "traffic": cfg.traffic,
            "offered_load": float(cfg.offered_load), "packet_length": cfg.packet_length,
            "buffer_depth": cfg.buffer_depth, "deadlock": bool(res.deadlock), "cdg_acyclic": find_acyclic(g),
            "cycle_in_cdg": in_cdg, "waiting_cycle": describe_cycle(rf.topology, cyc) if cyc else "",
            "scheme": rf.spec.get("scheme"), "spec": _spec_json(rf)}


def provoke_deadlock_table(k: int, routings: Sequence[Spec], *, replicas: int, seed: int,
                           mesh_routings: Sequence[Spec] = (), traffic: str = "uniform", offered_load: float = 1.0,
                           packet_length: int = 4, buffer_depth: int = 1, cycles: int = 4000,
                           deadlock_cycles: int = 300, backend: str = "auto") -> pd.DataFrame:
    """Try to provoke a deadlock (``docs/conventions.md#cdg``): saturating load, short packets, 1-flit buffers.

    ``routings`` (on the k x k torus) and ``mesh_routings`` (on the k x k mesh) are registry specs, as for
    :func:`simulation_table`.  ``replicas`` runs per routing, each a :func:`~torus_lab.sweep.sweep` item
    (``_provoke_point``).  One row per (routing, replica): ``routing`` (the routing function's name),
    ``deadlock`` (the whole network stalled for ``deadlock_cycles`` cycles; no packet is ever dropped),
    ``cdg_acyclic`` (the routing's CDG verdict), ``cycle_in_cdg`` (every dependency of the simulator's waiting
    cycle is an edge of the routing's CDG), the waiting cycle itself, ``scheme``, ``spec`` (JSON) and
    ``seed`` (the experiment seed).
    """
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    routings = check_sequence("routings", routings)
    seed = check_int("seed", seed, minimum=0)
    mesh_routings = check_sequence("mesh_routings", mesh_routings)
    check_str("traffic", traffic)
    offered_load = check_real("offered_load", offered_load, minimum=0)
    for name, value in (("packet_length", packet_length), ("buffer_depth", buffer_depth), ("cycles", cycles),
                        ("deadlock_cycles", deadlock_cycles)):
        check_int(name, value, minimum=0)
    check_str("backend", backend)
    if not is_int(replicas) or replicas < 1:
        raise ValueError(f"replicas must be an int >= 1, got {replicas!r}")
    config = {**PROVOKE_CONFIG, "traffic": traffic, "offered_load": float(offered_load),
              "packet_length": packet_length, "buffer_depth": buffer_depth, "measure": cycles,
              "deadlock_cycles": deadlock_cycles}
    items = [{"k": k, **target, "replica": r, "config": config}
             for target in _sim_targets(routings, mesh_routings) for r in range(int(replicas))]
    table = _rows(_provoke_point, items, seed=seed, backend=backend, desc="provoke deadlock")
    table.insert(3, "seed", int(seed))
    return table


def provoke_summary(prov: pd.DataFrame) -> pd.DataFrame:
    """Per routing of a :func:`provoke_deadlock_table` (first-appearance order): scheme, cdg_acyclic, runs,
    deadlocks, cycles_in_cdg (every deadlocked run's waiting cycle lies in the CDG) and seed.

    >>> prov = pd.DataFrame({"routing": ["a", "a"], "scheme": [None, None], "cdg_acyclic": [False, False],
    ...                      "deadlock": [True, False], "cycle_in_cdg": [True, None], "seed": [1, 1]})
    >>> provoke_summary(prov)[["routing", "runs", "deadlocks", "cycles_in_cdg"]].values.tolist()
    [['a', 2, 1, True]]
    """
    check_frame("prov", prov, ["routing"])
    out = prov.groupby("routing", sort=False).agg(
        scheme=("scheme", "first"), cdg_acyclic=("cdg_acyclic", "first"), runs=("deadlock", "size"),
        deadlocks=("deadlock", "sum"), cycles_in_cdg=("cycle_in_cdg", lambda s: bool(s.dropna().all())),
        seed=("seed", "first")).reset_index()
    return out.astype({"deadlocks": int})


# ====================================================================== tables behind the notebook's displays
#: The routings of the virtual-mesh pictures (and of ``channel_vcs.csv``): (topology kind, registry spec,
#: VC names or None for ``VC1``, ``VC2``, ...).
DRAWN_ROUTINGS = (
    ("unidirectional", {"name": "ecube", "datelines": True, "vcs": 2}, None),
    ("bidirectional", {"name": "turn-model", "algorithm": "negative-first", "scheme": "paper"}, None),
    ("bidirectional", {"name": "pfnf", "scheme": "paper", "layout": "separate"},
     ("VN0-before", "VN0-after", "VN1-before", "VN1-after")),
)


def drawn_routings(k: int) -> list[tuple[RoutingFunction, tuple[str, ...] | None]]:
    """The routing functions of ``DRAWN_ROUTINGS`` on k x k tori, with their VC names.

    >>> [rf.name for rf, _ in drawn_routings(4)]
    ['ecube+dateline', 'negative-first+paper', 'pfnf-reconstruction+paper-4vc']
    """
    k = check_int("k", k, minimum=3, maximum=MAX_DRAW_K)
    return [(make_routing(spec, make_topology(kind, k)), names) for kind, spec, names in DRAWN_ROUTINGS]


def channel_vcs_table(k: int) -> pd.DataFrame:
    """:func:`~torus_lab.deadlock.channel_vc_listing` of every routing of ``drawn_routings`` with its
    topology ``kind``."""
    k = check_int("k", k, minimum=3, maximum=MAX_DRAW_K)
    return pd.concat([channel_vc_listing(rf, names).assign(kind="bidirectional" if rf.topology.bidirectional
                                                             else "unidirectional")
                      for rf, names in drawn_routings(k)], ignore_index=True)


def drawn_virtual_meshes(k: int) -> pd.DataFrame:
    """What the virtual-mesh figure draws besides ``channel_vcs``: per routing of ``DRAWN_ROUTINGS`` on the
    k x k network, its name (as in ``channel_vcs``), topology kind, VC names (JSON list; empty: ``VC1``,
    ``VC2``, ...) and datelines (JSON list of ``[vn, sign, node]``,
    :func:`~torus_lab.routing.turn_model.dateline_positions`).

    >>> drawn_virtual_meshes(4)[["routing", "kind"]].values.tolist()[0]
    ['ecube+dateline', 'unidirectional']
    """
    k = check_int("k", k, minimum=3, maximum=MAX_DRAW_K)
    rows = [{"routing": rf.name, "kind": kind, "k": k, "vc_names": json.dumps(list(names)) if names else "",
             "datelines": json.dumps([list(d) for d in dateline_positions(kind, spec, k)])}
            for (kind, spec, names), (rf, _) in zip(DRAWN_ROUTINGS, drawn_routings(k), strict=True)]  # fmt: skip
    return pd.DataFrame(rows)


def cdg_datelines(cdg: pd.DataFrame) -> pd.DataFrame:
    """The datelines (JSON list of ``[vn, sign, node]``, :func:`~torus_lab.routing.turn_model.dateline_positions`)
    of every routing of a :func:`cdg_table`, keyed by ``kind``, ``k`` and ``routing``: what a drawing of its
    witness cycle marks.

    >>> cdg = pd.DataFrame({"kind": ["bidirectional"], "k": [4], "routing": ["dor+dateline"]})
    >>> cdg_datelines(cdg)["datelines"].iloc[0]
    '[[0, 1, 3], [0, -1, 0]]'
    """
    check_frame("cdg", cdg, ["kind", "k", "routing"])
    keys = cdg[["kind", "k", "routing"]].drop_duplicates().reset_index(drop=True)
    specs = {(kind, k): routing_specs(make_topology(kind, k)) for kind, k in zip(keys.kind, keys.k, strict=True)}
    datelines = [json.dumps([list(d) for d in dateline_positions(kind, specs[(kind, k)][name], k)])
                 for kind, k, name in zip(keys.kind, keys.k, keys.routing, strict=True)]
    return keys.assign(datelines=datelines)


def after_class_summary(listing: pd.DataFrame, routing: str) -> pd.DataFrame:
    """Per direction (``+x`` ...) of ``routing`` in a :func:`~torus_lab.deadlock.channel_vc_listing`: the source
    positions of the channels carrying VN0's and VN1's after-dateline classes, channels with 3 VCs and channels.

    >>> t = channel_vcs_table(4)
    >>> after_class_summary(t, "pfnf-reconstruction+paper-4vc").loc[0, "direction"]
    '+x'
    """
    check_frame("listing", listing, ["routing"])
    pf = listing[listing.routing == routing]
    names = {(0, 1): "+x", (0, -1): "-x", (1, 1): "+y", (1, -1): "-y"}
    rows = []
    for (dim, sign), g in pf.groupby(["dim", "sign"], sort=False):
        rows.append({"direction": names[(int(dim), int(sign))],
                     "VN0-after at positions": sorted(set(g.position[g.vcs.str.contains("VN0-after")].tolist())),
                     "VN1-after at positions": sorted(set(g.position[g.vcs.str.contains("VN1-after")].tolist())),
                     "channels with 3 VCs": int((g["count"] == 3).sum()), "channels": len(g)})
    return pd.DataFrame(rows).sort_values("direction", kind="stable").reset_index(drop=True)


def cdg_verdict_grid(cdg: pd.DataFrame) -> pd.DataFrame:
    """The verdicts of a :func:`cdg_table` as a (kind, routing) x k grid: ``acyclic``, ``CYCLIC (forced)``
    (the witness is a reachable deadlock configuration) or ``cyclic``.

    >>> cdg = pd.DataFrame({"kind": ["mesh"] * 3, "routing": ["a", "b", "c"], "k": [4] * 3,
    ...                     "acyclic": [True, False, False], "forced": [None, True, False]})
    >>> cdg_verdict_grid(cdg).values.tolist()
    [['mesh', 'a', 'acyclic'], ['mesh', 'b', 'CYCLIC (forced)'], ['mesh', 'c', 'cyclic']]
    """
    check_frame("cdg", cdg, ["acyclic", "forced"])
    v = np.where(cdg.acyclic.astype(bool), "acyclic", np.where(cdg.forced.eq(True), "CYCLIC (forced)", "cyclic"))
    grid = cdg.assign(verdict=v).pivot_table(index=["kind", "routing"], columns="k", values="verdict",
                                             aggfunc="first")
    grid.columns = [str(c) for c in grid.columns]
    return grid.reset_index()


def _dateline_rule_row(kind: str, k: int, rule: str, rng=None) -> dict[str, Any]:
    """CDG verdict of e-cube with datelines under dateline ``rule`` (``switch`` / ``entry``) on ``kind`` ``k``
    (a deterministic :func:`~torus_lab.sweep.sweep` item function).

    >>> _dateline_rule_row("unidirectional", 4, "entry")["acyclic"]
    False
    """
    check_str("kind", kind, TOPOLOGY_KINDS)
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("rule", rule)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    rf = make_routing({"name": "ecube", "datelines": True, "vcs": 2, "dateline_rule": rule}, make_topology(kind, k))
    return {"kind": kind, "k": k, "rule": rule, "acyclic": cdg_verdict(rf).acyclic}


def dateline_rules_table(ks: Iterable[int], kinds: Sequence[str] = ("unidirectional", "bidirectional"), *,
                         backend: str = "auto") -> pd.DataFrame:
    """The two dateline rules of e-cube (REC ``switch``, ALT ``entry``): CDG verdict per (kind, k, rule)."""
    ks = _check_ks(ks)
    kinds = [check_str("kinds", kind, TOPOLOGY_KINDS) for kind in check_sequence("kinds", kinds)]
    check_str("backend", backend)
    items = [{"kind": kind, "k": k, "rule": rule} for kind in kinds for k in _check_ks(ks)
             for rule in ("switch", "entry")]
    return _rows(_dateline_rule_row, items, backend=backend, desc="dateline rules")


def witness_messages(k: int, kind: str = "bidirectional",
                     routing: str = "pfnf-reconstruction+paper") -> pd.DataFrame:
    """The messages behind one CDG witness cycle: per VC of the cycle, the message that holds it and has no
    other permitted output than the next one (``none`` if there is no such message; empty if acyclic).

    >>> witness_messages(4).columns.tolist()
    ['holds', 'message (src -> dst)']
    """
    k = check_int("k", k, minimum=2, maximum=MAX_K)
    check_str("kind", kind, TOPOLOGY_KINDS)
    check_str("routing", routing)
    rf = catalog_routing(make_topology(kind, k), routing)
    cycle = cdg_verdict(rf).cycle or []
    msgs = forced_cycle_messages(rf, cycle) if cycle else []
    return pd.DataFrame({"holds": [describe_cycle(rf.topology, [c]).split(" -> ")[0] for c in cycle],
                         "message (src -> dst)": [f"{m[0]} -> {m[1]}" if m else "none" for m in msgs]},
                        columns=["holds", "message (src -> dst)"])


# ====================================================================== the paper's premise and its scope
#: Dimensions of the dateline-premise CDGs (:func:`dateline_premise_table`): rings (the paper's Fig. 3), 2-D and
#: 3-D tori (the paper's "applicable to multi-dimensional networks").
PREMISE_DIMS = (1, 2, 3)
#: Mapped PFNF constructions whose VC classes :func:`vc_budget_table` merges: the paper's mapping with its four
#: classes kept apart, and the crossing-count scheme (six classes), both of the REC reading.
BUDGET_ROUTINGS = ("pfnf-reconstruction+paper-4vc", "pfnf-reconstruction+count")
#: Mesh routings whose mapping onto a torus ``mapping_coverage`` judges: every routing of the registry that is
#: defined on a 2-D mesh (e-cube, the turn models, the PFNF readings); each mapped with the paper's datelines
#: (``+paper``; e-cube: ``dor+dateline``) and with the crossing count (``+count``; e-cube: none).  PFNF ``switch``
#: is left out: it changes VN hop by hop, has no torus mapping in the registry and its mesh CDG is already cyclic.
MESH_ALGORITHMS = ("dor", *_TURN, *(f"pfnf-{v}" for v in _PFNF if v != "switch"))


def _dateline_premise_row(n: int, kind: str, k: int, datelines: bool, rng=None) -> dict[str, Any]:
    """One row of :func:`dateline_premise_table`: the CDG verdict of dimension-order routing (e-cube) on the
    ``kind`` (``"unidirectional"`` / ``"bidirectional"``) k-ary n-cube, with one VC or with two VCs and a dateline
    per ring direction (a deterministic :func:`~torus_lab.sweep.sweep` item function).

    >>> [_dateline_premise_row(1, "unidirectional", 5, d)["acyclic"] for d in (False, True)]   # paper Fig. 3
    [False, True]
    """
    n = check_int("n", n, minimum=1, maximum=max(PREMISE_DIMS))
    check_str("kind", kind, ("unidirectional", "bidirectional"))
    k = check_int("k", k, minimum=3, maximum=MAX_K)
    check_instance("datelines", datelines, (bool, np.bool_), "a bool")
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = Torus(n, k, bidirectional=kind == "bidirectional")
    spec = {"name": "ecube", "datelines": True, "vcs": 2} if datelines else {"name": "ecube"}
    rf = make_routing(spec, topo)
    res = cdg_verdict(rf)
    cycle = "" if res.cycle is None else " ".join(f"{c}:{v}" for c, v in res.cycle)
    return {"n": n, "kind": kind, "k": k, "routing": "dor+dateline" if datelines else "dor",
            "num_vcs": rf.num_vcs, "vertices": res.num_vertices, "edges": res.num_edges, "acyclic": res.acyclic,
            "cycle_length": 0 if res.cycle is None else len(res.cycle),
            "cycle_dims": " ".join(map(str, cycle_dimensions(topo, cycle))), "cycle": describe_cycle(topo, res.cycle)}


def dateline_premise_table(ks: Iterable[int], dims: Sequence[int] = PREMISE_DIMS, *,
                           backend: str = "auto") -> pd.DataFrame:
    """The premise of the virtual mesh (paper Section 3.1, Fig. 3): a dateline and a second VC per ring direction
    break the wrap-around cycles.  CDG of e-cube with one VC and with two VCs and datelines on uni- and
    bidirectional k-ary n-cubes, n in ``dims`` (rings, 2-D and 3-D tori).

    Columns: n, kind, k, routing (``dor`` / ``dor+dateline``), num_vcs, vertices, edges, acyclic, cycle_length,
    cycle_dims (dimensions of the witness cycle's channels: one dimension = a wrap-around cycle of one ring, the
    paper's Fig. 2(b)), cycle (readable witness).

    Examples
    --------
    >>> t = dateline_premise_table([4], [1], backend="serial")
    >>> t[["kind", "routing", "acyclic", "cycle_dims"]].values.tolist()
    [['unidirectional', 'dor', False, '0'], ['unidirectional', 'dor+dateline', True, ''], \
['bidirectional', 'dor', False, '0'], ['bidirectional', 'dor+dateline', True, '']]
    """
    ks = _check_ks(ks)
    dims = [check_int("dims[i]", n, minimum=1, maximum=max(PREMISE_DIMS))
            for n in check_sequence("dims", dims, min_length=1)]
    check_str("backend", backend)
    items = [{"n": n, "kind": kind, "k": k, "datelines": d} for n in dims for k in ks
             for kind in ("unidirectional", "bidirectional") for d in (False, True)]
    return _rows(_dateline_premise_row, items, backend=backend, desc="dateline premise")


def _vc_budget_rows(k: int, routing: str, rng=None) -> list[dict[str, Any]]:
    """The rows of :func:`vc_budget_table` for one radix and one construction of ``BUDGET_ROUTINGS`` (a
    deterministic :func:`~torus_lab.sweep.sweep` item function).

    >>> rows = _vc_budget_rows(4, "pfnf-reconstruction+paper-4vc")
    >>> [(r["vcs"], r["assignments"], r["acyclic_assignments"]) for r in rows]
    [(1, 1, 0), (2, 7, 0), (3, 6, 0), (4, 1, 0)]
    """
    k = check_int("k", k, minimum=3, maximum=MAX_K)
    check_str("routing", routing, BUDGET_ROUTINGS)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    topo = make_topology("bidirectional", k)
    rf = catalog_routing(topo, routing)
    graph = cdg_verdict(rf, keep_graph=True).graph
    edges = np.array([(a[0], a[1], b[0], b[1]) for a, b in graph.edges()], dtype=np.int64).reshape(-1, 4)
    counts: dict[int, int] = {}
    acyclic: dict[int, list[tuple[int, ...]]] = {}
    for assignment in set_partitions(rf.num_vcs):
        m = max(assignment) + 1
        counts[m] = counts.get(m, 0) + 1
        if merged_cdg_acyclic(edges, topo.num_channels, assignment):
            acyclic.setdefault(m, []).append(assignment)
    return [{"k": k, "routing": routing, "classes": rf.num_vcs, "vcs": m, "assignments": counts[m],
             "acyclic_assignments": len(acyclic.get(m, [])),
             "example": " ".join(map(str, acyclic[m][0])) if m in acyclic else ""} for m in sorted(counts)]


def vc_budget_table(ks: Iterable[int], routings: Sequence[str] = BUDGET_ROUTINGS, *,
                    backend: str = "auto") -> pd.DataFrame:
    """How few VCs the project's PFNF torus constructions can do with (the paper's "minimum extra hardware").

    For each construction (``BUDGET_ROUTINGS``, bidirectional k x k tori) and each number of VCs ``m``: every
    assignment of its VC classes to ``m`` VCs (each set partition of the classes into ``m`` blocks; routes and
    header states unchanged) and how many of them leave the CDG acyclic
    (:func:`~torus_lab.deadlock.merged_cdg_acyclic`).  Columns: k, routing, classes (VC classes of the
    construction), vcs (m), assignments, acyclic_assignments, example (the first acyclic assignment, class -> VC,
    or empty).  What "minimum" means here: the fewest VCs among assignments that are functions of the
    construction's classes -- not a minimum over all routing algorithms.

    Examples
    --------
    >>> t = vc_budget_table([4], ["pfnf-reconstruction+count"], backend="serial")
    >>> int(t[t.acyclic_assignments > 0].vcs.min())
    5
    """
    ks = _check_ks(ks)
    routings = [check_str("routings[i]", r, BUDGET_ROUTINGS) for r in check_sequence("routings", routings)]
    check_str("backend", backend)
    items = [{"k": k, "routing": r} for k in ks for r in routings]
    return _rows(_vc_budget_rows, items, backend=backend, desc="VC budget")


def mapping_coverage(cdg: pd.DataFrame) -> pd.DataFrame:
    """Every mesh routing of the registry (``MESH_ALGORITHMS``) mapped onto the tori of a :func:`cdg_table`.

    One row per (torus kind, k, algorithm) whose mesh CDG at the same k is in the table: mesh_acyclic, paper
    (CDG of the paper's mapping acyclic: ``+paper``, e-cube ``dor+dateline``), count (the crossing-count mapping
    acyclic; None for e-cube, which has no such entry), paper_vcs, count_vcs (VCs allocated).

    Examples
    --------
    >>> cdg = pd.DataFrame({"kind": ["mesh", "bidirectional", "bidirectional", "bidirectional"], "k": [4] * 4,
    ...                     "routing": ["west-first", "west-first+paper", "west-first+count", "dor"],
    ...                     "acyclic": [True, False, True, False], "num_vcs": [1, 2, 3, 1]})
    >>> mapping_coverage(cdg)[["algorithm", "mesh_acyclic", "paper", "count"]].values.tolist()
    [['west-first', True, False, True]]
    """
    check_frame("cdg", cdg, ["kind", "k", "routing", "acyclic", "num_vcs"])
    table = cdg.set_index(["kind", "k", "routing"])
    rows = []
    tori = cdg[cdg.kind != "mesh"][["kind", "k"]].drop_duplicates().itertuples(index=False)
    for kind, k in tori:
        for algorithm in MESH_ALGORITHMS:
            paper = "dor+dateline" if algorithm == "dor" else f"{algorithm}+paper"
            count = None if algorithm == "dor" else f"{algorithm}+count"
            if ("mesh", k, algorithm) not in table.index or (kind, k, paper) not in table.index:
                continue
            has_count = count is not None and (kind, k, count) in table.index
            rows.append({
                "kind": kind, "k": int(k), "algorithm": algorithm,
                "mesh_acyclic": bool(table.loc[("mesh", k, algorithm), "acyclic"]),
                "paper": bool(table.loc[(kind, k, paper), "acyclic"]),
                "count": bool(table.loc[(kind, k, count), "acyclic"]) if has_count else None,
                "paper_vcs": int(table.loc[(kind, k, paper), "num_vcs"]),
                "count_vcs": int(table.loc[(kind, k, count), "num_vcs"]) if has_count else None,
            })
    return pd.DataFrame(rows, columns=["kind", "k", "algorithm", "mesh_acyclic", "paper", "count", "paper_vcs",
                                       "count_vcs"])


def dateline_offset_row(k: int, offset: int, rng=None) -> dict[str, Any]:
    """One row of ``dateline_offset_table``: PFNF's paper mapping (REC, after-classes kept apart) on the
    bidirectional k x k torus with VN1's datelines ``offset`` nodes from VN0's (a deterministic
    :func:`~torus_lab.sweep.sweep` item function).

    >>> row = dateline_offset_row(5, 2)
    >>> row["after_overlap"], row["max_vcs"]
    (0, 3)
    """
    k = check_int("k", k, minimum=3, maximum=MAX_K)
    offset = check_int("offset", offset, minimum=0, maximum=k - 1)
    if rng is not None:
        check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
    spec = {"name": "pfnf", "scheme": "paper", "layout": "separate", "dateline_offset": offset}
    used = channel_vc_usage(make_routing(spec, make_topology("bidirectional", k)))
    per = used.sum(axis=1)
    ch = per > 0
    return {"k": k, "offset": offset, "halfway": offset == k // 2,
            "after_overlap": int((used[:, 1] & used[:, 3]).sum()), "max_vcs": int(per.max()),
            "total_vcs": int(per.sum()), "mean_vcs": float(per[ch].mean())}


def dateline_offset_table(ks: Iterable[int], *, backend: str = "auto") -> pd.DataFrame:
    """The paper's Section 4: "the overall virtual channels can be minimized by choosing the datelines in these two
    networks halfway across from each other".  For every shift of VN1's datelines (0..k-1) on bidirectional k x k
    tori: channels that would need both VNs' after-dateline classes (``after_overlap``; 0 lets them share one VC
    without two VNs' messages ever meeting on one VC of a channel), the VC classes a channel needs when no VC
    carries two classes on one channel (``max_vcs`` the most, ``total_vcs`` over the channels, ``mean_vcs`` per used
    channel).  ``halfway`` marks the offset ``k // 2``.

    Examples
    --------
    >>> t = dateline_offset_table([4], backend="serial")
    >>> t[["offset", "after_overlap", "max_vcs"]].values.tolist()
    [[0, 24, 4], [1, 8, 3], [2, 0, 3], [3, 8, 3]]
    """
    ks = _check_ks(ks)
    check_str("backend", backend)
    items = [{"k": k, "offset": offset} for k in ks for offset in range(k)]
    return _rows(dateline_offset_row, items, backend=backend, desc="dateline offsets")


#: Radices up to which :func:`dateline_search_table` runs (larger k: the space grows as k^2 .. k^6 placements).
DATELINE_SEARCH_MAX_K = 5
#: Dateline placements judged per (algorithm, torus): every one when the space is no larger, else a sample.
DATELINE_SEARCH_CONFIGS = 256
#: The VC switches at the dateline the dateline search tries (``docs/conventions.md#dateline-search``): the paper's
#: switch per dimension (``paper``), the after layer kept once any dateline is crossed (``layer``, the paper's
#: "superposition of two virtual networks comprising VC1 channels and VC2 channels"), and the class counting the
#: datelines crossed (``count``, one class more per VN than the paper's two).
DATELINE_SEARCH_SCHEMES = ("paper", "layer", "count")


def _mapped_routing(kind: str, k: int, algorithm: str, datelines, scheme: str = "paper") -> RoutingFunction:
    """``algorithm`` (a turn model or ``pfnf-<variant>``) mapped onto the ``kind`` k x k torus with the VC
    ``scheme`` and explicit ``datelines`` (``None``: a mesh, no scheme)."""
    topology = make_topology(kind, k)
    scheme = {} if datelines is None else {"scheme": scheme, "datelines": datelines}
    if algorithm.startswith("pfnf-"):
        return pfnf_routing(topology, algorithm.removeprefix("pfnf-"), **scheme)
    return turn_model_routing(topology, algorithm, **scheme)


def dateline_search_row(kind: str, k: int, algorithm: str, max_configs: int = DATELINE_SEARCH_CONFIGS,
                        scheme: str = "paper", rng=None) -> dict[str, Any]:  # fmt: skip
    """One row of :func:`dateline_search_table` (a :func:`~torus_lab.sweep.sweep` item; ``rng`` draws the sample
    when the space exceeds ``max_configs``): the dateline placements of ``algorithm`` mapped with the VC switch
    ``scheme`` (one of :data:`DATELINE_SEARCH_SCHEMES`).

    >>> row = dateline_search_row("bidirectional", 4, "west-first")
    >>> row["space"], row["tried"], row["exhaustive"], row["acyclic"]
    (16, 16, True, 0)
    >>> dateline_search_row("bidirectional", 4, "west-first", scheme="count")["acyclic"]
    16
    """
    check_str("kind", kind, ("unidirectional", "bidirectional"))
    k = check_int("k", k, minimum=3, maximum=MAX_K)
    check_str("algorithm", algorithm, tuple(a for a in MESH_ALGORITHMS if a != "dor"))
    check_str("scheme", scheme, DATELINE_SEARCH_SCHEMES)
    seed = 0 if rng is None else int(check_instance("rng", rng, np.random.Generator, "a numpy Generator or None")
                                      .integers(2**31))  # fmt: skip
    vns = 2 if algorithm.startswith("pfnf-") else 1
    found = dateline_search(lambda dl: _mapped_routing(kind, k, algorithm, dl, scheme), k, vns=vns,
                            bidirectional=kind == "bidirectional", max_configs=max_configs, seed=seed)
    return {"kind": kind, "k": k, "algorithm": algorithm, "scheme": scheme,
            "mesh_acyclic": cdg_acyclic(_mapped_routing("mesh", k, algorithm, None)), "space": found.space,
            "tried": found.tried, "exhaustive": found.exhaustive, "acyclic": found.acyclic,
            "example": "" if found.example is None else json.dumps(found.example)}


def dateline_search_table(ks: Iterable[int], kinds: Sequence[str] = ("unidirectional", "bidirectional"), *,
                          max_configs: int = DATELINE_SEARCH_CONFIGS, seed: int = 0, backend: str = "auto",
                          schemes: Sequence[str] = DATELINE_SEARCH_SCHEMES) -> pd.DataFrame:  # fmt: skip
    """The paper's Section 4: "with a proper choice of datelines, all the algorithms for mesh can be mapped to
    torus".  For every mesh algorithm of ``MESH_ALGORITHMS`` but e-cube (whose wrap-link datelines are already
    acyclic) on the ``kind`` k x k tori, k in ``ks`` up to ``DATELINE_SEARCH_MAX_K``: the dateline placements
    (:func:`torus_lab.deadlock.dateline_space`, every position of every dateline per dimension, up to translation)
    judged by :func:`torus_lab.deadlock.dateline_search` with each VC switch at the dateline of ``schemes``
    (:data:`DATELINE_SEARCH_SCHEMES`), and how many give an acyclic CDG (``docs/conventions.md#dateline-search``).

    Examples
    --------
    >>> t = dateline_search_table([4], ["unidirectional"], backend="serial")
    >>> t[t.algorithm == "north-last"][["scheme", "space", "acyclic"]].values.tolist()
    [['paper', 1, 1], ['layer', 1, 0], ['count', 1, 1]]
    """
    ks = [k for k in _check_ks(ks) if k <= DATELINE_SEARCH_MAX_K]
    kinds = [check_str("kinds[i]", kind, ("unidirectional", "bidirectional")) for kind in check_sequence("kinds",
                                                                                                         kinds)]
    max_configs = check_int("max_configs", max_configs, minimum=1, maximum=MAX_DATELINE_CONFIGS)
    check_str("backend", backend)
    schemes = [check_str("schemes[i]", scheme, DATELINE_SEARCH_SCHEMES) for scheme in check_sequence("schemes",
                                                                                                     schemes)]
    items = [{"kind": kind, "k": k, "algorithm": a, "max_configs": max_configs, "scheme": scheme} for kind in kinds
             for k in ks for a in MESH_ALGORITHMS if a != "dor" for scheme in schemes]
    return _rows(dateline_search_row, items, seed=check_int("seed", seed, minimum=0), backend=backend,
                 desc="dateline search")


# ====================================================================== the study
def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of ``notebooks/virtual_mesh.ipynb`` from the parameters of ``experiments/virtual_mesh.yaml``.

    Keys (CSV stems): second_vc_channels, vc_counts, channel_vcs, drawn_virtual_meshes (what the virtual-mesh
    figure draws), pfnf_after_classes, cdg_verdicts, cdg_verdict_grid, cdg_datelines (what a witness-cycle
    drawing marks), dateline_rules, witness_messages, adaptivity, latency (one row per run, ``sim_seeds``
    replicas per point), latency_summary (:func:`latency_summary`), saturation, provoke_deadlock,
    provoke_summary, dateline_premise (:func:`dateline_premise_table` at ``premise_ks``), vc_budget
    (:func:`vc_budget_table` at ``ks``), mapping_coverage (``mapping_coverage``), dateline_offsets
    (``dateline_offset_table`` at ``vc_ks``), dateline_search (:func:`dateline_search_table` at ``ks`` up to
    ``DATELINE_SEARCH_MAX_K``), claims (last, from those tables by
    :func:`torus_lab.studies.virtual_mesh_claims.claims`).  Every grid runs over :func:`torus_lab.sweep.sweep`;
    the random parts (the latency sweep and the provoked-deadlock replicas) draw from the generators it derives
    from ``seed``.
    """
    p = check_mapping("params", params, [
        "seed", "ks", "kinds", "vc_ks", "adaptivity_ks", "draw_k", "sim_k", "sim_routings", "sim_mesh_routings",
        "sim_traffics", "sim_loads", "sim_seeds", "sim_warmup", "sim_measure", "sim_drain", "packet_length",
        "provoke_k", "provoke_routings", "provoke_seeds", "premise_ks"])  # fmt: skip
    seed = int(p["seed"])
    out: dict[str, pd.DataFrame] = {}
    out["second_vc_channels"] = second_vc_table(p["vc_ks"])
    out["vc_counts"] = vc_count_table(p["vc_ks"])
    out["channel_vcs"] = channel_vcs_table(p["draw_k"])
    out["drawn_virtual_meshes"] = drawn_virtual_meshes(p["draw_k"])
    pfnf = drawn_routings(p["draw_k"])[-1][0].name
    out["pfnf_after_classes"] = after_class_summary(out["channel_vcs"], pfnf)
    out["cdg_verdicts"] = cdg_table(p["ks"], p["kinds"])
    out["cdg_verdict_grid"] = cdg_verdict_grid(out["cdg_verdicts"])
    out["cdg_datelines"] = cdg_datelines(out["cdg_verdicts"])
    out["dateline_rules"] = dateline_rules_table(p["ks"])
    out["witness_messages"] = witness_messages(min(p["ks"]))
    out["adaptivity"] = adaptivity_summary(p["adaptivity_ks"], ["mesh", "bidirectional"])
    out["latency"] = simulation_table(p["sim_k"], p["sim_routings"], p["sim_traffics"], p["sim_loads"], seed=seed,
                                      replicas=p["sim_seeds"], mesh_routings=p["sim_mesh_routings"],
                                      packet_length=p["packet_length"], warmup=p["sim_warmup"],
                                      measure=p["sim_measure"], drain=p["sim_drain"])
    out["latency_summary"] = latency_summary(out["latency"])
    out["saturation"] = saturation_summary(out["latency"], seed=seed)
    out["provoke_deadlock"] = provoke_deadlock_table(p["provoke_k"], p["provoke_routings"],
                                                     replicas=p["provoke_seeds"], seed=seed)
    out["provoke_summary"] = provoke_summary(out["provoke_deadlock"])
    out["dateline_premise"] = dateline_premise_table(p["premise_ks"])
    out["vc_budget"] = vc_budget_table(p["ks"])
    out["mapping_coverage"] = mapping_coverage(out["cdg_verdicts"])
    out["dateline_offsets"] = dateline_offset_table(p["vc_ks"])
    out["dateline_search"] = dateline_search_table(p["ks"], seed=seed)
    out["claims"] = claims(out, p)
    return out
