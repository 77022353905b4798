"""Tests of turn-model routing, PFNF and the virtual-mesh mappings (torus_lab.routing.turn_model)."""

from __future__ import annotations

import numpy as np
import pytest

from torus_lab.deadlock import cdg_verdict, channel_vc_usage, duato_check, explore_states, forced_cycle_messages
from torus_lab.routing import make_routing
from torus_lab.routing.explore import adaptivity_table
from torus_lab.routing.turn_model import (
    TURN_MODELS,
    dateline_node,
    dateline_positions,
    duato_routing,
    pfnf_routing,
    turn_model_routing,
)
from torus_lab.studies.virtual_mesh import routing_specs, vc_count_table
from torus_lab.topology import Faults, Mesh, Torus, is_walk, minimal_path_count

E, W, N, S = (0, 1), (0, -1), (1, 1), (1, -1)
#: Glass & Ni's prohibited turns (docs/conventions.md#turn-model), written independently of the kernel's encoding.
PROHIBITED = {
    "west-first": {(N, W), (S, W)},
    "north-last": {(N, W), (N, E)},
    "negative-first": {(N, W), (E, S)},
    "positive-first": {(W, N), (S, E)},
    "nw-first": {(E, N), (S, W)},
    "se-first": {(N, E), (W, S)},
    "minimal-adaptive": set(),
}


def _directions(topology, hops):
    return [(int(topology.channel_dim[c]), int(topology.channel_sign[c])) for c, _ in hops]


def _sample_pairs(topology, step=3):
    nodes = topology.nodes()
    return [(s, d) for i, s in enumerate(nodes) for d in nodes[i % step::step] if s != d]


# ---------------------------------------------------------------------- every route is a valid walk
@pytest.mark.parametrize("topology", [Mesh(2, 4), Torus(2, 4), Torus(2, 5), Torus(2, 4, bidirectional=False)],
                         ids=repr)
def test_every_route_of_every_routing_is_a_walk_to_the_destination(topology):
    for name, spec in routing_specs(topology).items():
        rf = make_routing(spec, topology)
        for d in range(topology.num_nodes):
            assert explore_states(rf, d).stuck == 0, name          # no reachable state without an output
        for src, dst in _sample_pairs(topology, step=5):
            routes = list(rf.enumerate_routes(src, dst))
            assert routes, name
            for hops in routes:
                assert (-1, -1) not in hops, (name, src, dst)
                nodes = rf.hops_to_nodes(src, hops)
                assert is_walk(topology, nodes) and nodes[-1] == dst
                assert all(0 <= vc < rf.num_vcs for _, vc in hops)
                if "firsthop" not in name:                          # every other routing here is minimal
                    assert len(hops) == topology.lee_distance(src, dst), (name, src, dst)
                else:                                               # wraps only as the first hop
                    assert not any(topology.is_wraparound(c) for c, _ in hops[1:])


@pytest.mark.parametrize("algorithm", sorted(PROHIBITED))
def test_turn_models_never_make_a_prohibited_turn_and_are_as_adaptive_as_glass_and_ni(algorithm):
    mesh = Mesh(2, 5)
    rf = turn_model_routing(mesh, algorithm)
    for src in mesh.nodes():
        for dst in mesh.nodes():
            if src == dst:
                continue
            routes = list(rf.enumerate_routes(src, dst))
            for hops in routes:
                dirs = _directions(mesh, hops)
                assert not set(zip(dirs, dirs[1:], strict=False)) & PROHIBITED[algorithm]
            # a turn-model algorithm offers every minimal path that avoids its prohibited turns
            assert len(routes) == _paths_avoiding(src, dst, PROHIBITED[algorithm])


def _paths_avoiding(src, dst, prohibited):
    """Brute force: minimal mesh paths from src to dst with no prohibited turn."""
    dx, dy = dst[0] - src[0], dst[1] - src[1]
    moves = [E if dx > 0 else W] * abs(dx) + [N if dy > 0 else S] * abs(dy)
    from itertools import permutations

    count = 0
    for seq in set(permutations(moves)):
        if not set(zip(seq, seq[1:], strict=False)) & prohibited:
            count += 1
    return count


# ---------------------------------------------------------------------- PFNF
@pytest.mark.parametrize("k", [3, 4, 5])
def test_pfnf_adaptivity_is_measured_not_assumed(k):
    mesh = Mesh(2, k)
    rec = adaptivity_table(pfnf_routing(mesh, "reconstruction"))
    assert rec.fully_adaptive.all()
    mirror = adaptivity_table(pfnf_routing(mesh, "mirror"))
    assert mirror.fully_adaptive.all()
    switch = adaptivity_table(pfnf_routing(mesh, "switch"))
    assert switch.fully_adaptive.all()
    lit = adaptivity_table(pfnf_routing(mesh, "literal"))
    coords = [mesh.coords(v) for v in range(mesh.num_nodes)]
    mixed = np.array([(coords[d][0] - coords[s][0]) * (coords[d][1] - coords[s][1]) < 0
                      for s, d in zip(lit.src, lit.dst, strict=True)])
    # the literal reading is fully adaptive exactly for the NE/SW (and straight) pairs, deterministic otherwise
    assert lit.fully_adaptive[~mixed].all()
    assert not lit.fully_adaptive[mixed].any()
    assert (lit.realizable[mixed] == 1).all()


@pytest.mark.parametrize("k", [3, 4, 5])
def test_pfnf_on_a_mesh_deadlock_verdicts(k):
    mesh = Mesh(2, k)
    assert cdg_verdict(pfnf_routing(mesh, "reconstruction")).acyclic
    assert cdg_verdict(pfnf_routing(mesh, "mirror")).acyclic
    assert cdg_verdict(pfnf_routing(mesh, "literal")).acyclic
    res = cdg_verdict(pfnf_routing(mesh, "switch"))     # hop-by-hop VN switching couples the VNs
    assert not res.acyclic
    assert {vc for _, vc in res.cycle} == {0, 1}


def test_pfnf_messages_never_change_virtual_network():
    mesh = Mesh(2, 4)
    for variant in ("reconstruction", "mirror", "literal"):
        rf = pfnf_routing(mesh, variant)
        for src, dst in _sample_pairs(mesh, 2):
            for hops in rf.enumerate_routes(src, dst):
                assert len({vc for _, vc in hops}) == 1
                dx, dy = dst[0] - src[0], dst[1] - src[1]
                vn = hops[0][1]
                if variant == "literal":
                    assert vn == int(dx > 0 or (dx == 0 and dy > 0))
                else:
                    assert vn == int(dx * dy < 0)


def test_pfnf_on_a_unidirectional_torus_uses_one_virtual_network():
    rf = pfnf_routing(Torus(2, 5, bidirectional=False))
    assert not channel_vc_usage(rf)[:, 1].any()


# ---------------------------------------------------------------------- mappings onto the torus
def test_dateline_positions_follow_the_paper_figures():
    assert dateline_node(5, 1, 0) == 4 and dateline_node(5, 1, 1) == 1   # Figs. 4 and 5
    assert [dateline_node(8, s, v) for s in (1, -1) for v in (0, 1)] == [7, 3, 0, 4]


def test_paper_mapping_vc_of_each_hop():
    t = Torus(2, 5)
    rf = pfnf_routing(t, scheme="paper")
    # NE message through both VN0 wraps: before (VC0) then after (shared VC2) in each dimension
    assert [vc for _, vc in rf.route_hops((3, 3), (0, 0))] == [0, 2, 0, 2]
    # NW message (VN1) crossing VN1's -x dateline at x = 2 and +y dateline at y = 1
    hops = rf.route_hops((3, 0), (1, 2))
    assert [vc for _, vc in hops] == [1, 2, 1, 2]
    assert _directions(t, hops) == [W, W, N, N]         # candidates are listed dimension 0 first


@pytest.mark.parametrize("k", [4, 5, 6, 7, 8])
def test_pfnf_halfway_datelines_need_three_vcs_per_channel(k):
    t = Torus(2, k)
    used = channel_vc_usage(pfnf_routing(t, scheme="paper", layout="separate"))
    assert not (used[:, 1] & used[:, 3]).any()          # VN0-after and VN1-after never share a channel
    assert used.sum(axis=1).max() == 3
    assert channel_vc_usage(pfnf_routing(t, scheme="paper")).shape[1] == 3
    # without the halfway offset both after-classes meet on some channels: 4 VCs would be needed
    same = channel_vc_usage(pfnf_routing(t, scheme="paper", layout="separate", dateline_offset=0))
    assert (same[:, 1] & same[:, 3]).any() and same.sum(axis=1).max() == 4


def test_vc_count_table_unidirectional_and_bidirectional_statements():
    tab = vc_count_table([5, 6]).set_index(["k", "kind", "routing"])
    for k in (5, 6):
        uni = tab.loc[(k, "unidirectional", "dor+dateline")]
        assert uni.max_vcs == 2 and uni.with_two == 2 * k * (k - 2)      # all but 2 channels per ring
        bi = tab.loc[(k, "bidirectional", "dor+dateline")]
        assert bi.with_vc2 <= bi.channels / 2                              # at most half carry VC2
        assert tab.loc[(k, "bidirectional", "pfnf-reconstruction+paper")].max_vcs == 3


@pytest.mark.parametrize("k", [4, 5])
@pytest.mark.parametrize("make", [
    lambda t: turn_model_routing(t, "negative-first", scheme="paper"),
    lambda t: turn_model_routing(t, "west-first", scheme="paper"),
    lambda t: pfnf_routing(t, "reconstruction", scheme="paper"),
    lambda t: pfnf_routing(t, "literal", scheme="paper"),
], ids=["NF", "WF", "PFNF-REC", "PFNF-literal"])
def test_finding_paper_mapping_has_a_forced_dependency_cycle_and_crossing_count_fixes_it(make, k):
    t = Torus(2, k)
    rf = make(t)
    res = cdg_verdict(rf)
    assert not res.acyclic
    msgs = forced_cycle_messages(rf, res.cycle)
    assert all(m is not None for m in msgs)     # every waiting header in the cycle has no other output
    for (a, b), (src, dst) in zip(zip(res.cycle, res.cycle[1:] + res.cycle[:1], strict=True), msgs, strict=True):
        assert any((a, b) in list(zip(h, h[1:], strict=False)) for h in rf.enumerate_routes(src, dst))
    count = (turn_model_routing(t, rf.options["algorithm"], scheme="count") if "algorithm" in rf.options
             else pfnf_routing(t, rf.options["variant"], scheme="count"))
    assert cdg_verdict(count).acyclic


def test_turn_models_with_first_hop_wraps_are_acyclic_on_tori():
    for k in (4, 5):
        for a in ("west-first", "north-last", "negative-first", "positive-first"):
            assert cdg_verdict(turn_model_routing(Torus(2, k), a, wraps="first-hop")).acyclic


def test_duato_design_offers_an_escape_everywhere_and_is_fully_adaptive():
    t = Torus(2, 5)
    rf = duato_routing(t)
    assert duato_check(rf, [0, 1]).deadlock_free
    tab = adaptivity_table(rf)
    assert tab.fully_adaptive.all()
    for src, dst in _sample_pairs(t, 7):
        cands = rf.candidates(src, dst)
        assert [c.vc for c in cands].count(2) == sum(a != b for a, b in zip(src, dst, strict=True))
        assert sum(c.vc < 2 for c in cands) == 1


def test_minimal_path_count_matches_brute_force():
    t = Torus(2, 4)
    for dst in t.nodes():
        if dst == (0, 0):
            continue
        routes = {tuple(turn_model_routing(t, "minimal-adaptive").hops_to_nodes((0, 0), h))
                  for h in turn_model_routing(t, "minimal-adaptive").enumerate_routes((0, 0), dst)}
        assert len(routes) == minimal_path_count(t, (0, 0), dst, tie="+")


def test_faulty_channels_are_never_offered():
    t = Mesh(2, 4)
    cid = t.channel_id((1, 1), 0, 1)
    rf = turn_model_routing(t, "minimal-adaptive", faults=Faults(links=(cid,)))
    assert rf.tables.ch_ok[cid] == 0
    assert all(c.channel != cid for c in rf.candidates((1, 1), (3, 3)))


def test_validation_and_registration():
    assert set(PROHIBITED) == set(TURN_MODELS)
    with pytest.raises(ValueError, match="algorithm"):
        turn_model_routing(Mesh(2, 3), "east-first")
    with pytest.raises(ValueError, match="2D"):
        turn_model_routing(Torus(3, 3))
    with pytest.raises(ValueError, match="needs datelines"):
        pfnf_routing(Mesh(2, 3), scheme="paper")
    with pytest.raises(ValueError, match="switch"):
        pfnf_routing(Torus(2, 4), "switch", scheme="paper")
    with pytest.raises(ValueError, match="dateline_offset"):
        pfnf_routing(Torus(2, 4), scheme="paper", dateline_offset=-1)
    for offset in (4, 2**63):  # 2**63 found by the fuzz suite: it blamed "iparams" (int64 overflow)
        with pytest.raises(ValueError, match=rf"dateline_offset must be an int in 0\.\.3 .*got {offset}"):
            pfnf_routing(Torus(2, 4), scheme="paper", dateline_offset=offset)
    with pytest.raises(TypeError, match="Torus"):
        duato_routing("torus")
    with pytest.raises(ValueError, match="mesh"):
        duato_routing(Mesh(2, 3))
    with pytest.raises(ValueError, match="tie"):
        turn_model_routing(Mesh(2, 3), tie="0")


# the simulator-driven study tests (provoked deadlocks, latency sweeps) live in tests/test_virtual_mesh.py


@pytest.mark.parametrize("bidirectional", [True, False])
def test_finding_layer_reading_of_the_virtual_mesh_is_cyclic_too(bidirectional):
    """ALT reading "once past any dateline, stay on the VC2 layer": a message on layer 2 can cross the other
    dimension's dateline, so layer 2 keeps whole rings -- cyclic, with forced witnesses."""
    t = Torus(2, 5, bidirectional=bidirectional)
    for rf in (pfnf_routing(t, scheme="layer"), turn_model_routing(t, "negative-first", scheme="layer")):
        res = cdg_verdict(rf)
        assert not res.acyclic
        assert all(m is not None for m in forced_cycle_messages(rf, res.cycle))
        assert all(vc == rf.num_vcs - 1 for _, vc in res.cycle)      # the cycle lives in the after-dateline layer


def test_dateline_positions_of_the_specs():
    """PFNF's two virtual networks have their datelines k // 2 apart (or ``dateline_offset``); e-cube's are at the
    wraparound links; a mesh or a routing without datelines has none."""
    assert dateline_positions("bidirectional", {"name": "pfnf", "scheme": "paper", "layout": "separate"}, 4) == [
        (0, 1, 3), (0, -1, 0), (1, 1, 1), (1, -1, 2)]
    assert dateline_positions("unidirectional", {"name": "ecube", "datelines": True, "vcs": 2}, 6) == [(0, 1, 5)]
    assert dateline_positions("bidirectional", {"name": "turn-model", "algorithm": "west-first"}, 6) == []
    with pytest.raises(ValueError, match="kind"):
        dateline_positions("ring", {"name": "pfnf"}, 4)
    with pytest.raises(ValueError, match="spec"):
        dateline_positions("mesh", {"scheme": "paper"}, 4)

