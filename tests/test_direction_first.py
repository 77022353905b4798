"""Tests of direction-first e-cube and west-first (torus_lab.routing.direction_first; docs/conventions.md#df-phase
ff.), of its study (torus_lab.studies.direction_first: grids, seed determinism) and of its claims
(torus_lab.studies.direction_first_claims: verdict rules, coverage of the paper's numbered results)."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table, state_graph
from torus_lab.routing.direction_first import direction_first_routing, header_size_bits, west_first_routing
from torus_lab.sim import SimConfig, simulate
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
    """docs/conventions.md#df-phase: the REC per-phase wrap rule gives a cyclic CDG (a potential deadlock;
    Theorem 5.1 says none for k > 2); wraps only on the message's first hop, or never, give an acyclic CDG."""
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
    config = SimConfig(offered_load=1.0, packet_length=2, buffer_depth=1, warmup=0, measure=3000, drain=0,
                       deadlock_cycles=300, vc_allocation="nonatomic")  # fmt: skip
    res = simulate(direction_first_routing(topo), config, seed=1, keep_state=True)
    assert res.deadlock
    cycle = res.deadlock_cycle
    for (a, _), (b, _) in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert topo.channel_dst[a] == topo.channel_src[b]
    assert any(topo.is_wraparound(c) for c, _ in cycle)
    assert all(res.state.count[c] > 0 for c, _ in cycle)  # every channel of the cycle holds flits
    control = simulate(direction_first_routing(topo, wraps="first"), config, seed=1, keep_state=True)
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
    # a blocked west hop has no alternative (docs/conventions.md#df-faults, c): no candidate
    west = topo.channel_id((1, 0, 0), 0, -1)
    assert west in r.faults.links
    assert r.candidates((1, 0, 0), (0, 0, 0)) == []
    no_misroute = direction_first_routing(topo, misroute="none", faults=r.faults)
    assert no_misroute.candidates((0, 0, 0), (1, 0, 0)) == []


def test_finding_misroute_into_lower_dimension_bounces_back_and_deadlocks():
    """The default misroute along Y (docs/conventions.md#df-faults) can go straight back when Y < X (the next
    phase corrects Y first): a packet bounces between two nodes, and two such packets deadlock on the two channels of
    one link."""
    topo = Torus(4, 2)
    faults = random_link_faults(topo, count=3, seed=1)
    r = direction_first_routing(topo, faults=faults)
    src, dst = (0, 0, 1, 0), (0, 0, 1, 1)
    assert topo.channel_between(src, dst) in faults.links
    assert r.route(src, dst, max_hops=40) is None  # keeps bouncing
    res = simulate(r, SimConfig(offered_load=0.1, packet_length=1, buffer_depth=1, warmup=0, measure=400), seed=0)
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
    res = simulate(r, SimConfig(offered_load=0.1, packet_length=1, buffer_depth=1, warmup=0, measure=400), seed=0)
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


# ---------------------------------------------------------------------- the study (torus_lab.studies.direction_first)
NAN = float("nan")

TINY = {
    "seed": 3, "fig4_ns": [3, 4], "fig4_faults": [0, 2], "fig4_seeds": 2, "policies": ["y", "detour"],
    "drop_after": 1, "long_ns": [3, 4, 5], "long_faults": [0, 2], "long_seeds": 1, "long_warmup": 20,
    "long_measure": 60, "curve_networks": [{"dims": 2, "radix": 4}, {"dims": 3, "radix": 3}],
    "curve_routings": [
        {"label": "ecube+dateline", "routing": {"name": "ecube", "datelines": True, "vcs": 2}},
        {"label": "west-first", "routing": {"name": "west-first", "vcs": 2}},
        {"label": "direction-first-1vc", "routing": {"name": "direction-first", "vcs": 1}},
    ],
    "curve_loads": [0.05, 0.3], "curve_seeds": 1, "curve_warmup": 20, "curve_measure": 60,
    "prop_cases": [{"dims": 2, "radix": 3}, {"dims": 3, "radix": 2}], "wrap_rules": ["phase", "first"],
    "heavy_cases": [{"dims": 2, "radix": 4}],
    "heavy_configs": [{"vc_allocation": "nonatomic", "packet_length": 2, "buffer_depth": 1}],
    "heavy_seeds": 1, "heavy_measure": 100, "header_cases": [{"k": 2, "n": 4}, {"k": 3, "n": 3}],
}  # fmt: skip
CLAIM_IDS = [
    "log_latency_paper", "log_latency_long", "fault_effect_paper_y", "fault_effect_paper_detour",
    "fault_effect_long_y", "fault_effect_long_detour", "few_extra_hops_detour", "few_extra_hops_y", "fully_minimal",
    "deadlock_free_k_gt_2", "deadlock_free_k_gt_2_other_wraps", "deadlock_free_hypercube", "livelock_free",
    "header_size", "fig1_ecube",
    "double_ecube_is_ecube", "double_ecube_deadlock_free", "west_first_minimal", "fig3_example", "starvation_free",
    "faults_lower_latency_y", "faults_lower_latency_detour", "one_fault_rank_noise",
]  # fmt: skip
DATA_FILES = {
    "claims", "fig4_long", "fig4_long_summary", "fig4_paper", "fig4_paper_summary", "header_size", "heavy_load",
    "latency_growth_fits", "load_curves", "route_properties", "saturation", "ecube_lemma", "west_first_routes",
    "latency_changes",
}  # fmt: skip


@pytest.fixture(scope="module")
def tiny_results():
    from torus_lab.studies import direction_first as study

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORUS_LAB_BACKEND", "serial")
        mp.setenv("TORUS_LAB_CACHE", "off")
        mp.delenv("TORUS_LAB_SCHEDULER", raising=False)
        return study.run(TINY), study.run(TINY)


def test_study_run_is_seed_deterministic_and_complete(tiny_results):
    first, second = tiny_results
    assert DATA_FILES <= set(first)
    assert set(first) == set(second)
    for key in first:
        pd.testing.assert_frame_equal(first[key], second[key], obj=key)
    assert first["claims"].claim_id.tolist() == CLAIM_IDS
    for key in ("fig4_paper", "fig4_long", "fig4_paper_summary", "fig4_long_summary", "load_curves", "saturation",
                "heavy_load", "latency_growth_fits", "fault_effects", "heavy_load_summary",
                "load_curve_summary"):  # fmt: skip
        assert (first[key]["seed"] == TINY["seed"]).all(), key
    assert "wall_seconds" not in first["load_curves"]
    assert set(first["fig4_paper"]["mode"]) == {"paper"} and set(first["fig4_long"]["mode"]) == {"long"}
    # west-first only on the 2D torus
    curves = first["load_curves"]
    assert set(curves[curves.algorithm == "west-first"].dims) == {2}
    assert len(curves) == 2 * 3 + 2 * 2


def test_study_seed_changes_random_tables(tiny_results):
    from torus_lab.studies import direction_first as study

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORUS_LAB_BACKEND", "serial")
        mp.setenv("TORUS_LAB_CACHE", "off")
        small = {**TINY, "seed": 4, "long_ns": [3], "curve_networks": [{"dims": 2, "radix": 4}]}
        other = study.run(small)
    assert not other["fig4_paper"].sim_seed.equals(tiny_results[0]["fig4_paper"].sim_seed)


def test_saturation_uses_the_shared_rule(tiny_results):
    from torus_lab.sim.saturation import saturation_table
    from torus_lab.studies import direction_first as study

    results = tiny_results[0]
    assert study.SATURATION.accept_ratio == 0.95 and study.SATURATION.latency_factor is None
    expected = saturation_table(results["load_curves"], ["network", "algorithm"], study.SATURATION)
    merged = results["saturation"].merge(expected, on=["network", "algorithm"], suffixes=("", "_expected"))
    assert len(merged) == len(results["saturation"]) == len(expected)
    pd.testing.assert_series_equal(merged.saturation_load, merged.saturation_load_expected, check_names=False)


@pytest.mark.parametrize(
    ("spec", "dims", "applies"),
    [({"name": "west-first", "vcs": 2}, 2, True), ({"name": "west-first", "vcs": 2}, 3, False),
     ("west-first", 4, False), ({"name": "ecube", "datelines": True}, 3, True),
     ({"name": "direction-first", "vcs": 1}, 2, True)],
)  # fmt: skip
def test_routing_applies_west_first_only_in_2d(spec, dims, applies):
    from torus_lab.studies.direction_first import routing_applies

    assert routing_applies(spec, dims) is applies


def test_grids_are_named_json_records():
    import json

    from torus_lab.studies.direction_first import curve_items, fig4_items, heavy_items, property_items

    items = fig4_items(TINY, "paper") + fig4_items(TINY, "long") + curve_items(TINY) + heavy_items(TINY)
    items += property_items(TINY)
    for item in items:
        assert json.loads(json.dumps(item)) == item
    assert len(fig4_items(TINY, "paper")) == 2 * 2 * 2 * 2
    assert {i["warmup"] for i in fig4_items(TINY, "long")} == {20}
    assert len({json.dumps(i, sort_keys=True) for i in items}) == len(items)  # distinct content -> distinct seeds
    with pytest.raises(ValueError, match="mode"):
        fig4_items(TINY, "short")


def test_fig4_sweep_same_on_serial_and_processes():
    from torus_lab.studies.direction_first import fig4_items, fig4_run
    from torus_lab.sweep import sweep

    items = fig4_items({**TINY, "fig4_ns": [3], "policies": ["y"]}, "paper")
    serial = sweep(fig4_run, items, seed=5, backend="serial", cache=False)
    processes = sweep(fig4_run, items, seed=5, backend="processes", workers=2, cache=False)
    assert pd.DataFrame(serial).equals(pd.DataFrame(processes))


def test_fault_effect_and_growth_fits_edge_cases():
    from torus_lab.studies.direction_first import fault_effect, fault_effect_table, growth_fits

    runs = pd.DataFrame({"misroute": ["y"] * 6, "deadlock": [False, False, False, False, True, False],
                         "nodes": [16, 16, 32, 32, 64, 64], "faults": [0, 5, 0, 5, 0, 5],
                         "latency": [4.0, 4.4, 5.0, 4.5, 1.0, 9.0]})  # fmt: skip
    effect = fault_effect(runs, "y")
    assert effect.round(6).to_dict() == {16: 0.1, 32: -0.1}  # 64 has no fault-free run without deadlock
    assert fault_effect(runs, "detour").empty
    assert fault_effect(runs[runs.faults == 5], "y").empty  # no fault-free column
    assert fault_effect(runs[runs.faults == 0], "y").empty  # no faulty column
    table = fault_effect_table({"paper": runs}, ["y", "detour"])
    assert table.misroute.tolist() == ["y", "y"] and table.max_faults.tolist() == [5, 5]
    summary = pd.DataFrame({"misroute": ["y"] * 3, "faults": [0] * 3, "nodes": [16, 32, 64],
                            "latency_mean": [4.0, 5.0, NAN]})  # fmt: skip
    assert growth_fits({"paper": summary}).empty  # two points with a latency
    assert list(growth_fits({"paper": summary}).columns)[:3] == ["runs", "misroute", "faults"]


def _fig4(rows):
    """Fig. 4 runs from (misroute, nodes, faults, latency, delivered, dropped, deadlock) tuples."""
    frame = pd.DataFrame(rows, columns=["misroute", "nodes", "faults", "latency", "delivered", "dropped", "deadlock"])
    return frame.assign(undelivered=0, extra_hops=0.0, hop_limit_drops=0, not_injected=0, queue_overflow=0,
                        max_source_wait=1.0, delivered_fraction=frame.delivered / (frame.delivered + frame.dropped))


def test_latency_changes_span_every_fault_count_with_sign():
    from torus_lab.studies.direction_first import latency_changes

    runs = _fig4([("y", 16, 0, 4.0, 10, 0, False), ("y", 16, 1, 4.4, 10, 0, False), ("y", 16, 5, 3.6, 10, 0, False),
                  ("y", 32, 0, 5.0, 10, 0, False), ("y", 32, 5, 5.0, 10, 0, True)])  # fmt: skip
    changes = latency_changes(runs, "y")
    assert changes[["nodes", "faults"]].values.tolist() == [[16, 1], [16, 5]]  # the deadlocked run is left out
    assert changes.relative_latency_change.round(6).tolist() == [0.1, -0.1]
    assert latency_changes(runs[runs.faults > 0], "y").empty


def _claim_rows(tables, params):
    """The rows of the claims table (``direction_first_claims.claims``) by claim id, in table order."""
    from torus_lab.studies.direction_first_claims import claims

    return {row.claim_id: row for row in claims(tables, params).itertuples(index=False)}


def test_fault_claims_weight_losses_by_messages_and_use_the_full_range(tiny_results):
    from torus_lab.studies.direction_first import latency_change_table
    from torus_lab.studies.direction_first_claims import FAULT_EFFECT_MAX, claims

    # a 16-node run loses half of its 10 messages, a 64-node run none of its 990: 0.5% lost, not the mean 25%
    runs = _fig4([("y", 16, 0, 4.0, 10, 0, False), ("y", 16, 1, 4.0 * (1 + FAULT_EFFECT_MAX) + 0.01, 5, 5, False),
                  ("y", 16, 5, 4.0, 10, 0, False), ("y", 64, 0, 6.0, 990, 0, False),
                  ("y", 64, 5, 6.0, 990, 0, False)])  # fmt: skip
    tables = dict(tiny_results[0], fig4_paper=runs, fig4_long=runs,
                  latency_changes=latency_change_table({"paper": runs, "long": runs}, ["y"]))
    table = claims(tables, {**TINY, "policies": ["y"]}).set_index("claim_id")
    row = table.loc["fault_effect_paper_y"]
    # judged per cell: pooled, 0.5% of the messages are lost, but the 16-node cell lost half of its own
    assert "1 of 3 cells did not deliver under policy 'y'" in row.measured_text
    assert "up to 50.0% of messages lost (nodes=16, faults=1)" in row.measured_text
    # the largest change is at 1 fault, not at the most faults (5); it exceeds the tolerance in a cell that did not
    # deliver, and the 2 cells our policy leaves to judge are too few for "holds under conditions" (claims-judged)
    assert "(N=16, 1 faults vs 0)" in row.measured_text and row.verdict == "inconclusive"
    assert "2 of 3 cases delivered a judgement" in row.evidence_text
    assert "our own" in row.conditions and "'y'" in row.statement
    assert "up to 50.0% of messages lost" in table.loc["few_extra_hops_y", "measured_text"]
    tables["fig4_paper"] = runs.assign(delivered=runs.delivered.where(runs.nodes != 16, 10), dropped=0)
    row = claims(tables, {**TINY, "policies": ["y"]}).set_index("claim_id").loc["fault_effect_paper_y"]
    # the same change in a cell that delivered: a miss, but among 3 judged cells, too few to decide
    assert row.verdict == "inconclusive" and "3 of 3 cases delivered a judgement" in row.evidence_text


def test_claims_with_missing_rows_are_not_testable(tiny_results):
    tables = dict(tiny_results[0])
    for key in ("latency_growth_fits", "route_properties", "header_size", "heavy_load", "ecube_lemma",
                "west_first_routes", "route_examples", "latency_changes"):  # fmt: skip
        tables[key] = tables[key].iloc[0:0]
    rows = _claim_rows(tables, TINY)
    assert list(rows) == CLAIM_IDS
    for cid in ("log_latency_paper", "log_latency_long", "fully_minimal", "deadlock_free_k_gt_2",
                "deadlock_free_hypercube", "livelock_free", "header_size", "fig1_ecube", "double_ecube_is_ecube",
                "double_ecube_deadlock_free", "west_first_minimal", "fig3_example", "faults_lower_latency_y",
                "one_fault_rank_noise"):  # fmt: skip
        assert rows[cid].verdict == "not testable here", cid


def test_fully_minimal_and_deadlock_rows_hold_only_under_their_conditions(tiny_results):
    tables = dict(tiny_results[0])
    props = tables["route_properties"]
    rows = _claim_rows(tables, TINY)
    rec = props[props.wraps == "phase"]
    expected = "holds" if (rec.some_route_minimal >= 1).all() else "holds under conditions"
    assert rows["fully_minimal"].verdict == expected  # TINY checks k <= 5 networks
    nonatomic = tables["heavy_load"].assign(vc_allocation="nonatomic")
    heavy = pd.concat([nonatomic, nonatomic.assign(vc_allocation="atomic")], ignore_index=True)
    heavy["deadlock"] = heavy.vc_allocation == "nonatomic"
    rows = _claim_rows(dict(tables, heavy_load=heavy), TINY)
    # no deadlock in the few atomic runs: too few sampled runs to bound the deadlock rate at 1%
    assert rows["deadlock_free_k_gt_2"].verdict == "inconclusive"
    assert rows["deadlock_free_k_gt_2"].evidence_kind == "statistical"
    assert "under the condition (atomic buffer allocation" in rows["deadlock_free_k_gt_2"].evidence_text
    enough = 300  # copies of the runs: >= 299 atomic runs of the REC reading, 0 of them bounds the rate at 1%
    many = pd.concat([nonatomic, *[nonatomic.assign(vc_allocation="atomic")] * enough], ignore_index=True)
    many["deadlock"] = many.vc_allocation == "nonatomic"
    rows = _claim_rows(dict(tables, heavy_load=many), TINY)
    assert rows["deadlock_free_k_gt_2"].verdict == "holds under conditions"
    assert "non-atomic" in rows["deadlock_free_k_gt_2"].measured_text
    assert "wrap-rule reading" in rows["deadlock_free_k_gt_2"].conditions
    heavy["deadlock"] = True
    rows = _claim_rows(dict(tables, heavy_load=heavy), TINY)
    assert rows["deadlock_free_k_gt_2"].verdict == "does not hold"


def test_route_examples_fig3_and_nonminimal():
    from torus_lab.studies.direction_first import route_examples

    table = route_examples()
    fig3 = table[table.example == "fig3"]
    assert fig3.paper_route.sum() == 1 and fig3.preferred.sum() == 1
    assert fig3.route[fig3.paper_route].item() == "011 -> 012 -> 022 -> 222"
    assert fig3.hops.min() == 3 and fig3.hops.max() == 4 and not fig3.route.duplicated().any()
    row = table[table.example == "nonminimal"].iloc[0]
    assert (row.hops, row.lee, row.route) == (3, 2, "03 -> 02 -> 01 -> 00")


def test_experiment_yaml_records_and_notebook_cell():
    import json

    import jsonschema
    import yaml

    from torus_lab import runner

    root = runner.project_root()
    spec = yaml.safe_load((root / "experiments" / "direction_first.yaml").read_text())
    assert list(spec) == ["notebook", "description", "schema", "presets"]
    validator = jsonschema.Draft202012Validator(spec["schema"])
    for name, preset in spec["presets"].items():
        validator.validate(preset)
        assert set(preset) == set(spec["schema"]["required"]) == set(spec["schema"]["properties"]), name
    bad = {**spec["presets"]["quick"], "heavy_cases": [[2, 4]]}
    assert not validator.is_valid(bad)
    nb_params = runner.notebook_parameters(root / "notebooks" / "direction_first.ipynb")
    assert nb_params.pop("data_dir") == "scratch/quick/data/direction_first"
    assert nb_params.pop("figures_dir") == "scratch/quick/figures/direction_first"
    assert nb_params == spec["presets"]["quick"]
    nb = json.loads((root / "notebooks" / "direction_first.ipynb").read_text())
    code = [line for c in nb["cells"] if c["cell_type"] == "code" for line in "".join(c["source"]).splitlines()]
    code = [line for line in code if line.strip()]
    assert len(code) <= 70  # calls plus the figure captions of run.show
    assert not any(word in line for line in code for word in ("def ", "for ", "while ", "seed +", "SeedSequence"))


# ---------------------------------------------------------------------- coverage of the paper's results
def test_claims_cover_every_numbered_result_of_the_paper(tiny_results):
    from torus_lab.claims import location_items, uncovered_results
    from torus_lab.studies.direction_first_claims import PAPER_RESULTS

    table = tiny_results[0]["claims"]
    assert uncovered_results(table, PAPER_RESULTS) == []
    # every row names its locations in the paper's spelling (no free text such as "k = 2 case")
    pattern = re.compile(r"(Abstract|Section \d+(\.\d+)*|Theorem \d+\.\d+|Corollary \d+\.\d+|Lemma|Fig\. \d+)")
    for cell in table.location:
        assert all(pattern.fullmatch(item) for item in location_items(cell)), cell


def test_paper_results_are_distinct_and_spelled_as_the_paper():
    from torus_lab.studies.direction_first_claims import PAPER_RESULTS

    assert len(set(PAPER_RESULTS)) == len(PAPER_RESULTS) == 9
    pattern = re.compile(r"(Theorem|Lemma|Corollary|Proposition|Table|Fig\.)( \d+(\.\d+)?)?")
    assert all(pattern.fullmatch(item) for item in PAPER_RESULTS), PAPER_RESULTS
    # paper order: figures and results by their section, Fig. 4 (Section 6) last
    assert PAPER_RESULTS.index("Lemma") < PAPER_RESULTS.index("Theorem 5.1") < PAPER_RESULTS.index("Fig. 4")


@pytest.mark.parametrize("topology", [Torus(2, 2), Torus(4, 2), Torus(2, 5), Torus(3, 4), Torus(2, (3, 6))], ids=repr)
def test_double_ecube_written_out_equals_the_ecube_kernel_on_every_pair(topology):
    from torus_lab.routing.direction_first import double_ecube_route
    from torus_lab.routing.ecube import ecube_routing

    ecube = ecube_routing(topology)
    for src in topology.nodes():
        for dst in topology.nodes():
            route = double_ecube_route(topology, src, dst)
            assert route == ecube.route(src, dst), (src, dst)
            assert is_walk(topology, route) and len(route) - 1 == topology.lee_distance(src, dst)
            hop = double_ecube_route(topology, src, dst, reading="hop")
            assert hop[-1] == dst and len(hop) == len(route)
            if max(topology.radices) == 2:
                assert hop == route


def test_double_ecube_hop_reading_interleaves_dimensions_on_a_torus():
    from torus_lab.routing.direction_first import double_ecube_route
    from torus_lab.studies.direction_first import ecube_lemma_rows

    assert double_ecube_route(Torus(2, 5), (0, 0), (2, 2), reading="hop") == [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]
    row = ecube_lemma_rows(2, 5)
    assert row["double_equals_ecube"] == row["ecube_minimal"] == row["pairs"] == 600
    assert row["hop_reading_equals_ecube"] < row["pairs"]
    assert not row["cdg_acyclic"]  # e-cube without datelines on 5-rings: the Lemma is for hypercubes only
    with pytest.raises(ValueError, match="reading"):
        double_ecube_route(Torus(2, 5), (0, 0), (1, 1), reading="flit")
    with pytest.raises(ValueError, match="dst must be a node"):
        double_ecube_route(Torus(2, 5), (0, 0), (5, 1))


def test_west_first_two_wrap_pairs_have_no_minimal_route():
    from torus_lab.studies.direction_first import lemma_items, west_first_route_rows

    row = west_first_route_rows(2, 3)
    # (2,2) -> (0,0): the minimal ways wrap in both dimensions, and only the first hop may wrap
    assert row["pairs"] == 72 and row["some_route_minimal"] == pytest.approx(68 / 72)
    assert row["all_routes_minimal"] < row["some_route_minimal"] and row["cdg_acyclic"]
    with pytest.raises(ValueError, match="dims"):
        west_first_route_rows(3, 3)
    assert lemma_items(TINY) == (TINY["prop_cases"], [{"dims": 2, "radix": 3}])


def test_latency_changes_simultaneous_intervals():
    from statistics import NormalDist

    from torus_lab.studies.direction_first import latency_changes

    runs = _fig4([("y", 16, 0, 4.0, 10, 0, False), ("y", 16, 0, 5.0, 10, 0, False), ("y", 16, 2, 2.0, 10, 0, False),
                  ("y", 16, 2, 3.0, 10, 0, False), ("y", 16, 3, 4.0, 10, 0, False)])  # fmt: skip
    table = latency_changes(runs, "y", family_alpha=0.1)
    z = NormalDist().inv_cdf(1 - 0.1 / (2 * 2))  # two cells in the family
    row = table.iloc[0]
    assert (row.faults, row.latency_diff, row.runs_faulty, row.runs_fault_free) == (2, -2.0, 2, 2)
    assert row.diff_ci_high == pytest.approx(-2.0 + z * math.sqrt(0.5 / 2 + 0.5 / 2))
    assert math.isnan(table.iloc[1].diff_ci_low)  # one run with 3 faults: no interval
    narrower = latency_changes(runs[runs.faults != 3], "y", family_alpha=0.1).iloc[0]
    assert narrower.diff_ci_high < row.diff_ci_high  # one cell fewer: a smaller Bonferroni factor
    with pytest.raises(ValueError, match="family_alpha"):
        latency_changes(runs, "y", family_alpha=1.0)


def _coverage_claims(tiny_results, **tables):
    return _claim_rows(dict(tiny_results[0], **tables), TINY)


def test_starvation_row_counts_runs_that_left_messages_waiting(tiny_results):
    good = _fig4([("y", 16, 0, 4.0, 10, 0, False), ("y", 16, 2, 4.0, 9, 1, False)])
    # two sampled runs cannot bound the rate of starvation at 1% (docs/conventions.md#claims-evidence)
    assert _coverage_claims(tiny_results, fig4_paper=good)["starvation_free"].verdict == "inconclusive"
    faulty_deadlock = _fig4([("y", 16, 0, 4.0, 10, 0, False), ("y", 16, 2, 4.0, 5, 0, True)])
    row = _coverage_claims(tiny_results, fig4_paper=faulty_deadlock)["starvation_free"]
    assert row.verdict == "inconclusive" and "round-robin" in row.conditions    # under conditions, too few runs
    waiting = good.assign(not_injected=[1, 0])
    assert _coverage_claims(tiny_results, fig4_paper=waiting)["starvation_free"].verdict == "does not hold"


def test_fewer_latency_with_faults_needs_a_decrease_beyond_noise(tiny_results):
    from torus_lab.studies.direction_first import latency_change_table

    rows = [("y", 256, 0, 6.0, 10, 0, False), ("y", 256, 0, 6.2, 10, 0, False), ("y", 256, 1, 5.0, 10, 0, False),
            ("y", 256, 1, 5.1, 10, 0, False), ("y", 512, 0, 7.0, 10, 0, False), ("y", 512, 0, 7.4, 10, 0, False),
            ("y", 512, 1, 7.1, 10, 0, False), ("y", 512, 1, 7.3, 10, 0, False)]  # fmt: skip
    runs = _fig4(rows)
    changes = latency_change_table({"paper": runs}, ["y"])
    claims = _coverage_claims(tiny_results, fig4_paper=runs, latency_changes=changes)
    lower = claims["faults_lower_latency_y"]
    assert lower.verdict == "holds" and lower.measured_value == 1 and "N=256 F=1" in lower.measured_text
    noise = claims["one_fault_rank_noise"]  # 256: a real drop (not noise); 512: within noise
    assert (noise.measured_value, noise.verdict) == (1, "does not hold")
    assert "y N=256: 1 fault ranks 2 of 2" in noise.measured_text
    # the same drop, but the faulty runs lost half of their messages: lower by dropping, not better
    lossy = runs.assign(delivered=runs.delivered.where(runs.faults == 0, 5), dropped=runs.dropped.where(
        runs.faults == 0, 5))  # fmt: skip
    claims = _coverage_claims(tiny_results, fig4_paper=lossy, latency_changes=changes)
    # an existence claim on sampled cells: none found is absence of evidence, with the detectable drop stated
    assert claims["faults_lower_latency_y"].verdict == "inconclusive"
    assert "smallest latency drop a cell could detect" in claims["faults_lower_latency_y"].measured_text
    assert "(50.0% delivered)" in claims["faults_lower_latency_y"].measured_text
    flat = _fig4([(p, n, f, 6.0 + 0.1 * (i % 2), *rest) for i, (p, n, f, _, *rest) in enumerate(rows)])
    changes = latency_change_table({"paper": flat}, ["y"])
    claims = _coverage_claims(tiny_results, fig4_paper=flat, latency_changes=changes)
    assert claims["faults_lower_latency_y"].verdict == "inconclusive"


def test_column_reductions_over_masked_rows_equal_those_of_the_filtered_table():
    """fig4_run's packet statistics read the delivered/injected rows one column at a time (``_RowsWhere``); the
    median, means, share and maximum equal the filtered table's, to the last bit, also for odd and empty sets."""
    import numpy as np

    from torus_lab.studies.direction_first import _RowsWhere

    rng = np.random.default_rng(11)
    for size, share in ((0, 0.5), (1, 1.0), (7, 0.5), (2000, 0.9), (2001, 0.0)):
        table = pd.DataFrame({"dropped": (rng.random(size) > share).astype(np.int64),
                              "latency": rng.integers(0, 10**6, size), "extra_hops": rng.integers(0, 3, size),
                              "inject": rng.integers(-1, 500, size), "gen": rng.integers(0, 400, size)})  # fmt: skip
        for mask_of in (lambda t: t.dropped == 0, lambda t: t.inject >= 0):
            filtered = table[mask_of(table)]
            rows = _RowsWhere(table, mask_of(table).to_numpy())
            assert rows.count == len(filtered)
            if not len(filtered):
                continue
            got = [rows("latency").median(), rows("latency").mean(), (rows("extra_hops") > 0).mean(),
                   (rows("inject") - rows("gen")).max()]  # fmt: skip
            expected = [filtered.latency.median(), filtered.latency.mean(), (filtered.extra_hops > 0).mean(),
                        (filtered.inject - filtered.gen).max()]  # fmt: skip
            assert [float(v) for v in got] == [float(v) for v in expected]


def test_one_fault_noise_is_judged_with_intervals_over_the_judged_cells_only(tiny_results):
    """Section 6.1's "one fault ... due to randomness": each (policy, size) case is noise when its interval,
    simultaneous over the 4 cells the row judges (not over the study's whole table), contains 0; a policy whose
    sizes are all noise gives "holds under conditions" naming it, on statistical evidence."""
    from torus_lab.studies.direction_first import latency_change_table

    rows = []
    for policy in ("y", "detour"):
        for nodes in (256, 512):
            for faults in range(6):
                shift = 0.085 if (policy, nodes, faults) == ("y", 256, 1) else (0.5 if faults == 2 else 0.0)
                rows += [(policy, nodes, faults, 6.0 + shift + 0.1 * (i % 2), 10, 0, False) for i in range(6)]
    runs = _fig4(rows)
    whole = latency_change_table({"paper": runs}, ["y", "detour"])
    cell = whole[(whole.misroute == "y") & (whole.nodes == 256) & (whole.faults == 1)].iloc[0]
    assert cell.diff_ci_low < 0 < cell.diff_ci_high          # over 10 cells per policy the shift hides in noise
    row = _coverage_claims(tiny_results, fig4_paper=runs, latency_changes=whole)["one_fault_rank_noise"]
    assert (row.measured_value, row.verdict, row.evidence_kind) == (3, "holds under conditions", "statistical")
    assert "'detour'" in row.rule_params and "'y'" not in row.rule_params
    assert "y N=256" in row.measured_text and "beyond noise" in row.measured_text
    assert "ranking is not reproduced" in row.measured_text  # two faults are the slowest everywhere
    quiet = _fig4([(p, n, f, 6.0 + 0.1 * (i % 2), *rest) for i, (p, n, f, _, *rest) in enumerate(rows)])
    row = _coverage_claims(tiny_results, fig4_paper=quiet, latency_changes=latency_change_table(
        {"paper": quiet}, ["y", "detour"]))["one_fault_rank_noise"]
    assert (row.measured_value, row.verdict) == (4, "holds")
