"""Tests of e-cube / DOR / double e-cube (torus_lab.routing.ecube) and the routing-function interface."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.deadlock import channel_dependency_graph, find_dependency_cycle, route_length_table
from torus_lab.routing.ecube import ecube_routing
from torus_lab.routing.interface import STATE_SIZE
from torus_lab.topology import Faults, Mesh, Torus, is_walk

TOPOLOGIES = [Torus(2, 5), Torus(3, 4), Mesh(2, 4), Torus(4, 2), Torus(2, (3, 6)), Torus(1, 7)]


@pytest.mark.parametrize("topology", TOPOLOGIES, ids=repr)
def test_routes_are_minimal_walks_in_dimension_order(topology):
    routing = ecube_routing(topology)
    for src in topology.nodes():
        for dst in topology.nodes():
            if src == dst:
                continue
            path = routing.route(src, dst)
            assert path[0] == src and path[-1] == dst
            assert is_walk(topology, path)
            assert len(path) - 1 == topology.lee_distance(src, dst)
            dims = [int(topology.channel_dim[c]) for c, _ in routing.route_hops(src, dst)]
            assert dims == sorted(dims)


def test_tie_rule_decides_direction_for_half_way_offsets():
    topo = Torus(1, 4)
    assert ecube_routing(topo, tie="+").route((0,), (2,)) == [(0,), (1,), (2,)]
    assert ecube_routing(topo, tie="-").route((0,), (2,)) == [(0,), (3,), (2,)]


def test_paper_fig1_hypercube_route():
    # 0000 -> 0111 (digit strings s3 s2 s1 s0): bits corrected from the least significant
    path = ecube_routing(Torus(4, 2)).route((0, 0, 0, 0), (1, 1, 1, 0))
    assert path == [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0)]


@pytest.mark.parametrize("rule", ["switch", "entry"])
def test_dateline_classes(rule):
    topo = Torus(2, 8)
    routing = ecube_routing(topo, datelines=True, vcs=2, dateline_rule=rule)
    for src in [(6, 1), (1, 6), (0, 0), (7, 7), (3, 4)]:
        for dst in topo.nodes():
            if dst == src:
                continue
            hops = routing.route_hops(src, dst)
            for dim in range(2):
                in_dim = [(c, v) for c, v in hops if topo.channel_dim[c] == dim]
                wraps = [topo.is_wraparound(c) for c, _ in in_dim]
                vcs = [v for _, v in in_dim]
                if rule == "switch":
                    crossed = [any(wraps[: i + 1]) for i in range(len(wraps))]
                    assert vcs == [int(x) for x in crossed]
                else:
                    assert vcs == [int(any(wraps))] * len(vcs)


@pytest.mark.parametrize(
    ("topology", "kwargs", "cyclic"),
    [
        (Torus(2, 4), {}, True),
        (Torus(1, 6), {}, True),
        (Torus(2, 4), {"datelines": True, "vcs": 2}, False),
        (Torus(2, 5), {"datelines": True, "vcs": 2, "dateline_rule": "entry"}, False),
        (Torus(3, 4), {"datelines": True, "vcs": 2}, False),
        (Torus(2, 3), {}, False),  # k = 3: every ring segment is one hop (docs/conventions.md#datelines)
        (Torus(4, 2), {}, False),
        (Mesh(2, 4), {}, False),
    ],
)
def test_cdg_verdicts_match_textbook(topology, kwargs, cyclic):
    cdg = channel_dependency_graph(ecube_routing(topology, **kwargs))
    cycle = find_dependency_cycle(cdg)
    assert (cycle is not None) == cyclic
    if cycle:
        for (a, _), (b, _) in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            assert topology.channel_dst[a] == topology.channel_src[b]


def test_double_ecube_is_ecube():
    topo = Torus(5, 2)
    single, double = ecube_routing(topo), ecube_routing(topo, variant="double")
    table = route_length_table(double)
    assert (table.min_hops == table.lee).all() and (table.max_hops == table.lee).all()
    for src in topo.nodes()[::3]:
        for dst in topo.nodes()[::5]:
            if src != dst:
                assert single.route_hops(src, dst) == double.route_hops(src, dst)
    # the header records the pair (i, j) of the two lowest incorrect dimensions
    cand = double.candidates((0, 0, 0, 0, 0), (0, 1, 0, 1, 1))[0]
    assert cand.state[:2] == (1, 3) and len(cand.state) == STATE_SIZE


def test_faulty_channel_blocks_dor():
    topo = Torus(2, 4)
    cid = topo.channel_id((0, 0), 0, 1)
    routing = ecube_routing(topo, faults=Faults(links=frozenset({cid})))
    assert routing.candidates((0, 0), (1, 0)) == []
    assert routing.route((0, 0), (1, 0)) is None
    assert routing.route((0, 0), (0, 1)) == [(0, 0), (0, 1)]


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 3).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.integers(2, 6), min_size=n, max_size=n), st.data())
    )
)
def test_random_pairs_minimal_and_consistent(args):
    n, radices, data = args
    topo = Torus(n, radices)
    src = tuple(data.draw(st.integers(0, r - 1)) for r in radices)
    dst = tuple(data.draw(st.integers(0, r - 1)) for r in radices)
    if src == dst:
        return
    routing = ecube_routing(topo, datelines=True, vcs=2)
    hops = routing.route_hops(src, dst)
    assert len(hops) == topo.lee_distance(src, dst)
    assert all(v in (0, 1) for _, v in hops)
    assert is_walk(topo, routing.hops_to_nodes(src, hops))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"vcs": 0}, ValueError),
        ({"datelines": True, "vcs": 1}, ValueError),
        ({"tie": "x"}, ValueError),
        ({"dateline_rule": "late"}, ValueError),
        ({"variant": "triple"}, ValueError),
        ({"datelines": 1}, TypeError),
    ],
)
def test_bad_options_rejected(kwargs, error):
    with pytest.raises(error):
        ecube_routing(Torus(2, 4), **kwargs)


@pytest.mark.parametrize("vcs", [33, 2**63, 2**64])
def test_ecube_refuses_vcs_beyond_the_candidate_limit_naming_vcs(vcs):
    # found by the fuzz suite: vcs=2**64 ended in "iparams must fit int64 or uint64"
    with pytest.raises(ValueError, match=rf"vcs must be an int in 1\.\.32, got {vcs}"):
        ecube_routing(Torus(2, 4), vcs=vcs)


def test_kernel_must_be_a_compilable_numba_kernel():
    import dataclasses

    import numba

    routing = ecube_routing(Torus(2, 4))
    with pytest.raises(TypeError, match="'ecube'.*numba @njit"):
        dataclasses.replace(routing, kernel=lambda *args: 0)

    @numba.njit
    def wrong_signature(tables, cur):
        return cur

    with pytest.raises(TypeError, match="'ecube'.*wrong_signature does not compile"):
        dataclasses.replace(routing, kernel=wrong_signature)


def test_interface_rejects_bad_calls():
    routing = ecube_routing(Torus(2, 4))
    with pytest.raises(ValueError, match="destination"):
        routing.candidates((1, 1), (1, 1))
    with pytest.raises(ValueError):
        routing.candidates((1, 1), (0, 1), state=(0, 0))
    with pytest.raises(ValueError):
        routing.candidates(99, (0, 1))
    with pytest.raises(TypeError):
        ecube_routing("torus")


def test_kernel_passed_as_first_class_function_matches_direct_calls():
    """The simulator and the CDG tool receive the kernel as a numba first-class function (one compiled
    runner for every algorithm); through that path it must return exactly what a direct call returns."""
    import numpy as np

    from torus_lab._jit import njit
    from torus_lab.routing.direction_first import direction_first_routing, west_first_routing
    from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE, compile_for_kernel

    @njit(cache=False)
    def through_argument(kernel, tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        return kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state)

    topo = Torus(3, 4)
    faults = Faults(links=frozenset({3, 40, 77}))
    routings = [
        ecube_routing(topo, datelines=True, vcs=2),
        ecube_routing(topo, datelines=True, vcs=4, dateline_rule="entry", tie="-"),
        direction_first_routing(topo, faults=faults),
        direction_first_routing(topo, wraps="first", misroute="detour", vcs=2, faults=faults),
        west_first_routing(Torus(2, 5), vcs=2),
    ]
    rng = np.random.default_rng(0)
    for r in routings:
        outs = [(np.zeros(MAX_CANDIDATES, np.int64), np.zeros(MAX_CANDIDATES, np.int64),
                 np.zeros((MAX_CANDIDATES, STATE_SIZE), np.int64)) for _ in range(2)]  # fmt: skip
        nn, nc = r.topology.num_nodes, r.topology.num_channels
        for _ in range(300):
            cur, dst = (int(v) for v in rng.choice(nn, 2, replace=False))
            state = rng.integers(0, 2, STATE_SIZE).astype(np.int64)
            state[:2] = rng.integers(0, r.topology.n, 2)
            in_ch, in_vc = int(rng.integers(-1, nc)), int(rng.integers(0, r.num_vcs))
            args = (cur, dst, in_ch, in_vc, state, int(rng.integers(0, 9)))
            a = r.kernel(r.tables, *args, *outs[0])
            call = (r.kernel, r.tables, *args, *outs[1])
            b = compile_for_kernel(through_argument, call)(*call)
            assert a == b
            for x, y in zip(outs[0], outs[1], strict=True):
                np.testing.assert_array_equal(x[:a], y[:a])
