"""Tests of direction-first e-cube and west-first (torus_lab.routing.direction_first), spec 5.3-5.5."""

from __future__ import annotations

import math

import pytest

from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table, state_graph
from torus_lab.routing.direction_first import direction_first_routing, header_size_bits, west_first_routing
from torus_lab.sim import simulate
from torus_lab.topology import Faults, Torus, is_walk, random_link_faults


def _all_routes(routing, pairs):
    for src, dst in pairs:
        for hops in routing.enumerate_routes(src, dst):
            yield src, dst, hops


def test_fig3_acceptance_example():
    """Paper Fig. 3: 011 -> 012 -> 022 -> 222 in a 3-ary 3-cube (digit strings s2 s1 s0)."""
    topo = Torus(3, 3)
    r = direction_first_routing(topo)
    src, dst = (1, 1, 0), (2, 2, 2)
    # hop 1, phase (X=0, Y=1): E along dimension 0
    c1 = r.candidates(src, dst)
    step1 = [c for c in c1 if c.channel == topo.channel_id(src, 0, 1)]
    assert step1 and step1[0].state[:2] == (0, 1)
    # hop 2, phase (X=1, Y=2): E along dimension 1 is allowed (the paper's adaptive choice)
    c2 = r.candidates((2, 1, 0), dst, step1[0].channel, 0, step1[0].state)
    step2 = [c for c in c2 if c.channel == topo.channel_id((2, 1, 0), 1, 1)]
    assert step2 and step2[0].state[:2] == (1, 2)
    # hop 3: only dimension 2 is incorrect and y == 2 == i, so Y is random; with Y = 1 the new phase
    # (X=2, Y=1) starts with the west wraparound 0 -> 2 along dimension 2
    c3 = r.candidates((2, 2, 0), dst, step2[0].channel, 0, step2[0].state, rand=1)
    assert c3[0].channel == topo.channel_id((2, 2, 0), 2, -1) and topo.is_wraparound(c3[0].channel)
    assert c3[0].state[:2] == (2, 1)
    # rule 3 also offers the mesh way (E, E: mx = +1 on plain integers), which is not minimal
    assert [topo.channel(c.channel)[1:] for c in c3[1:]] == [(2, 1)]
    paths = [r.hops_to_nodes(src, h) for h in r.enumerate_routes(src, dst)]
    assert [(1, 1, 0), (2, 1, 0), (2, 2, 0), (2, 2, 2)] in paths
    assert min(len(p) for p in paths) == 4 and max(len(p) for p in paths) == 5


@pytest.mark.parametrize("n", [3, 4, 5])
def test_hypercube_fault_free_is_fully_minimal_and_acyclic(n):
    r = direction_first_routing(Torus(n, 2))
    table = route_length_table(r)
    assert (table.min_hops == table.lee).all()
    assert (table.max_hops == table.lee).all()
    assert not table.can_stick.any()
    assert find_dependency_cycle(channel_dependency_graph(r)) is None


@pytest.mark.parametrize("topology", [Torus(2, 5), Torus(3, 3), Torus(2, 4)], ids=repr)
def test_phase_rules_hold_on_every_route(topology):
    """Within a phase: wraps only as its first hop, no west (X-) mesh hop after an E/N/S mesh hop."""
    r = direction_first_routing(topology)
    nodes = topology.nodes()
    pairs = [(s, d) for s in nodes[::2] for d in nodes[1::3] if s != d]
    for src, dst, hops in _all_routes(r, pairs):
        assert hops[-1][0] >= 0, (src, dst, hops)  # never stuck without faults
        assert is_walk(topology, r.hops_to_nodes(src, hops))
        state, in_ch, in_vc, cur = None, None, 0, topology.node_id(src)
        closed = False
        for ch, vc in hops:
            cands = [c for rand in range(r.random_choices) for c in r.candidates(cur, dst, in_ch, in_vc, state, rand)]
            chosen = next(c for c in cands if (c.channel, c.vc) == (ch, vc))
            new_phase = state is None or chosen.state[:2] != state[:2]
            x_dim = chosen.state[0]
            if new_phase:
                closed = False
            if topology.is_wraparound(ch):
                assert new_phase, "wraparound hop after the first hop of a phase"
            else:
                is_west = topology.channel_dim[ch] == x_dim and topology.channel_sign[ch] == -1
                if is_west:
                    assert not closed, "west hop after a non-west mesh hop in the same phase"
                else:
                    closed = True
            state, in_ch, in_vc, cur = chosen.state, ch, vc, int(topology.channel_dst[ch])


def test_finding_wrap_only_at_phase_start_is_not_minimal_for_k5():
    """(3,0) -> (0,0) in a 5x5 torus: the minimal way crosses the wrap on its 2nd hop, which rule 1 forbids."""
    r = direction_first_routing(Torus(2, 5))
    graph, starts = state_graph(r, (0, 0))
    src = r.topology.node_id((3, 0))
    table = route_length_table(r)
    row = table[(table.src == src) & (table.dst == 0)].iloc[0]
    assert row.lee == 2 and row.min_hops == 3
    assert r.route((3, 0), (0, 0)) == [(3, 0), (2, 0), (1, 0), (0, 0)]
    assert starts[src] in graph


@pytest.mark.parametrize(("wraps", "cyclic"), [("phase", True), ("first", False), ("none", False)])
def test_cdg_verdicts_for_wrap_rules_on_5x5(wraps, cyclic):
    """Spec 5.6: the REC per-phase wrap rule gives a cyclic CDG (a potential deadlock, Theorem 5.1 says
    none for k > 2); wraps only on the message's first hop, or never, give an acyclic CDG."""
    topo = Torus(2, 5)
    cycle = find_dependency_cycle(channel_dependency_graph(direction_first_routing(topo, wraps=wraps)))
    assert (cycle is not None) == cyclic
    if cycle:
        assert any(topo.is_wraparound(c) for c, _ in cycle)
        for (a, _), (b, _) in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert topo.channel_dst[a] == topo.channel_src[b]


def test_finding_theorem_5_1_counterexample_in_simulation():
    """Per-phase wraps (REC) with plain wormhole flow control (1 VC, non-atomic buffers): a real deadlock in
    a 6-ary 2-cube whose waiting cycle uses a wraparound channel; the first-hop-only wrap rule, whose CDG is
    acyclic, runs the same traffic without deadlock."""
    topo = Torus(2, 6)
    kw = dict(offered_load=1.0, packet_length=2, buffer_depth=1, warmup=0, measure=3000, drain=0,
              deadlock_cycles=300, seed=1, vc_allocation="nonatomic", keep_state=True)  # fmt: skip
    res = simulate(topo, direction_first_routing(topo), **kw)
    assert res.deadlock
    cycle = res.deadlock_cycle
    for (a, _), (b, _) in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert topo.channel_dst[a] == topo.channel_src[b]
    assert any(topo.is_wraparound(c) for c, _ in cycle)
    assert all(res.state.count[c] > 0 for c, _ in cycle)  # every channel of the cycle holds flits
    control = simulate(topo, direction_first_routing(topo, wraps="first"), **kw)
    assert not control.deadlock


@pytest.mark.parametrize("topology", [Torus(2, 4), Torus(2, 5), Torus(2, 6)], ids=repr)
def test_west_first_torus_acyclic_and_wraps_first_hop_only(topology):
    r = west_first_routing(topology)
    assert find_dependency_cycle(channel_dependency_graph(r)) is None
    nodes = topology.nodes()
    for _src, _dst, hops in _all_routes(r, [(s, d) for s in nodes[::3] for d in nodes[::2] if s != d]):
        assert all(not topology.is_wraparound(c) for c, _ in hops[1:])
        dirs = [(int(topology.channel_dim[c]), int(topology.channel_sign[c])) for c, _ in hops if c >= 0]
        mesh = [d for (c, _), d in zip(hops, dirs, strict=True) if not topology.is_wraparound(c)]
        if (0, -1) in mesh:  # every west mesh hop precedes every other mesh hop
            last_west = max(i for i, d in enumerate(mesh) if d == (0, -1))
            assert all(d == (0, -1) for d in mesh[: last_west + 1])


def test_west_first_needs_two_dimensions():
    with pytest.raises(ValueError, match="2D"):
        west_first_routing(Torus(3, 3))


def test_faulty_links_are_avoided_and_misrouting_used():
    topo = Torus(3, 2)
    # phase (X=0, Y=1) from 000 to 001 (E along dim 0): fail that link
    east = topo.channel_id((0, 0, 0), 0, 1)
    r = direction_first_routing(topo, faults=Faults(links=frozenset({east, topo.channel_id((1, 0, 0), 0, -1)})))
    cands = r.candidates((0, 0, 0), (1, 0, 0))
    assert cands and all(c.channel != east for c in cands)
    assert all(topo.channel_dim[c.channel] != 0 for c in cands)  # misroute along Y
    assert all(c.state[5] == 1 for c in cands)  # misroute flag
    path = r.route((0, 0, 0), (1, 0, 0))
    assert path is not None and path[-1] == (1, 0, 0) and len(path) - 1 == 3
    # a blocked west hop has no alternative (spec 5.5 c): no candidate
    west = topo.channel_id((1, 0, 0), 0, -1)
    assert west in r.faults.links
    assert r.candidates((1, 0, 0), (0, 0, 0)) == []
    no_misroute = direction_first_routing(topo, misroute="none", faults=r.faults)
    assert no_misroute.candidates((0, 0, 0), (1, 0, 0)) == []


def test_finding_misroute_into_lower_dimension_bounces_back_and_deadlocks():
    """Spec 5.5's misroute along Y can go straight back when Y < X (the next phase corrects Y first): a
    packet bounces between two nodes, and two such packets deadlock on the two channels of one link."""
    topo = Torus(4, 2)
    faults = random_link_faults(topo, count=3, seed=1)
    r = direction_first_routing(topo, faults=faults)
    src, dst = (0, 0, 1, 0), (0, 0, 1, 1)
    assert topo.channel_between(src, dst) in faults.links
    assert r.route(src, dst, max_hops=40) is None  # keeps bouncing
    res = simulate(topo, r, offered_load=0.1, packet_length=1, buffer_depth=1, warmup=0, measure=400, seed=0)
    assert res.deadlock
    (a, _), (b, _) = res.deadlock_cycle
    assert topo.channel_src[a] == topo.channel_dst[b] and topo.channel_dst[a] == topo.channel_src[b]  # a U-turn


def test_detour_policy_routes_around_the_bouncing_case():
    """ALT misroute="detour" (no U-turns, detour through a correct dimension) delivers the pair that bounces
    under the REC policy, in Hamming distance + 2 hops, and does not deadlock on the same traffic."""
    topo = Torus(4, 2)
    faults = random_link_faults(topo, count=3, seed=1)
    r = direction_first_routing(topo, faults=faults, misroute="detour")
    src, dst = (0, 0, 1, 0), (0, 0, 1, 1)
    path = r.route(src, dst, max_hops=40)
    assert path is not None and len(path) - 1 == 3
    for src2 in topo.nodes():
        for dst2 in topo.nodes():
            if src2 != dst2:
                hops = r.route_hops(src2, dst2, max_hops=40)
                if hops:
                    nodes = r.hops_to_nodes(src2, hops)
                    assert all(a != c for a, c in zip(nodes, nodes[2:], strict=False))  # no U-turn
    res = simulate(topo, r, offered_load=0.1, packet_length=1, buffer_depth=1, warmup=0, measure=400, seed=0)
    assert not res.deadlock


def test_random_y_dimension_uses_rand():
    r = direction_first_routing(Torus(4, 3))
    picks = {r.candidates((0, 0, 0, 0), (1, 0, 0, 0), state=(0,) * 8, rand=k)[0].state[1] for k in range(3)}
    assert picks == {1, 2, 3}


@pytest.mark.parametrize(
    ("k", "n", "ceil_bits", "exact"),
    [(2, 4, 9, 9.0), (2, 9, 18, 2 * math.log2(9) + 10), (4, 3, 11, 2 * math.log2(3) + 7), (8, 2, 9, 9.0)],
)
def test_header_size(k, n, ceil_bits, exact):
    assert header_size_bits(k, n) == ceil_bits
    assert header_size_bits(k, n, rounding="exact") == pytest.approx(exact)


@pytest.mark.parametrize(("args", "error"), [((1, 3), ValueError), ((3, 0), ValueError), ((2.0, 3), TypeError)])
def test_header_size_rejects_bad_input(args, error):
    with pytest.raises(error):
        header_size_bits(*args)


def test_bad_options_rejected():
    with pytest.raises(ValueError, match="wraps"):
        direction_first_routing(Torus(2, 4), wraps="sometimes")
    with pytest.raises(ValueError, match="misroute"):
        direction_first_routing(Torus(2, 4), misroute=True)
    with pytest.raises(ValueError):
        direction_first_routing(Torus(2, 4), vcs=0)
