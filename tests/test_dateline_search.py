"""Tests of explicit dateline placements (torus_lab.routing.turn_model.pack_datelines) and the dateline search
(torus_lab.deadlock: dateline_space, dateline_configuration, dateline_search, cdg_acyclic)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.deadlock import (
    cdg_acyclic,
    cdg_verdict,
    dateline_configuration,
    dateline_search,
    dateline_space,
)
from torus_lab.routing.ecube import ecube_routing
from torus_lab.routing.turn_model import dateline_positions, pack_datelines, pfnf_routing, turn_model_routing
from torus_lab.topology import Torus, make_network


def _routes(rf, k):
    nodes = list(itertools.product(range(k), repeat=2))
    return [rf.route_hops(s, d) for s in nodes for d in nodes if s != d]


@pytest.mark.parametrize("k", [4, 5])
def test_explicit_datelines_at_the_default_positions_change_nothing(k):
    torus = Torus(2, k)
    default = pfnf_routing(torus, scheme="paper")
    half = k // 2     # VN1's datelines halfway across (the default offset)
    rows = [(k - 1, 0, k - 1, 0), ((k - 1 + half) % k, half, (k - 1 + half) % k, half)]
    assert dateline_positions("bidirectional", {"name": "pfnf", "scheme": "paper"}, k) == [
        (0, 1, k - 1), (0, -1, 0), (1, 1, rows[1][0]), (1, -1, half)]
    explicit = pfnf_routing(torus, scheme="paper", datelines=rows)
    assert _routes(default, k) == _routes(explicit, k)
    assert "datelines" not in default.options and explicit.options["datelines"] == [list(r) for r in rows]


def test_a_moved_dateline_moves_the_vc_switch():
    torus = Torus(2, 5)
    wrap = turn_model_routing(torus, "north-last", scheme="paper")
    moved = turn_model_routing(torus, "north-last", scheme="paper", datelines=[(1, 0, 4, 0)])   # x+ at column 1
    hops = moved.route_hops((0, 0), (2, 0))            # 0 -> 1 -> 2 along +x: the hop leaving 1 crosses
    assert [vc for _, vc in hops] == [0, 1]
    assert [vc for _, vc in wrap.route_hops((0, 0), (2, 0))] == [0, 0]


def test_pack_datelines_refuses_bad_rows():
    torus = Torus(2, 4)
    with pytest.raises(ValueError, match="one per virtual network"):
        pack_datelines(torus, [(3, 0, 3, 0)], 2)
    with pytest.raises(ValueError, match=r"datelines\[0\] must be"):
        pack_datelines(torus, [(3, 0, 3)], 1)
    with pytest.raises(ValueError, match=r"datelines\[0\]\[1\]"):
        pack_datelines(torus, [(3, 4, 3, 0)], 1)
    with pytest.raises(ValueError, match="scheme 'none'"):
        pfnf_routing(torus, datelines=[(3, 0, 3, 0), (1, 2, 1, 2)])


@pytest.mark.parametrize(("k", "vns", "bi", "size"), [(4, 1, True, 16), (4, 2, True, 4096), (5, 1, False, 1),
                                                      (5, 2, False, 25), (3, 2, True, 729)])
def test_dateline_space_and_configurations(k, vns, bi, size):
    assert dateline_space(k, vns=vns, bidirectional=bi) == size
    configs = {dateline_configuration(k, i, vns=vns, bidirectional=bi) for i in range(min(size, 256))}
    assert len(configs) == min(size, 256)                             # distinct placements
    first = dateline_configuration(k, 0, vns=vns, bidirectional=bi)
    assert first == tuple((k - 1, 0, k - 1, 0) for _ in range(vns))  # placement 0: the wrap links
    assert all(row[0] == k - 1 and row[2] == k - 1 for row in [c[0] for c in configs])   # VN0's + fixed
    with pytest.raises(ValueError, match="index"):
        dateline_configuration(k, size, vns=vns, bidirectional=bi)


@pytest.mark.parametrize("rf", [
    ecube_routing(Torus(2, 4)), ecube_routing(Torus(2, 4), datelines=True, vcs=2),
    turn_model_routing(Torus(2, 4), "west-first", scheme="paper"), pfnf_routing(Torus(2, 4), scheme="count"),
    turn_model_routing(make_network("unidirectional", 4), "north-last", scheme="paper"),
])
def test_cdg_acyclic_agrees_with_cdg_verdict(rf):
    assert cdg_acyclic(rf) == cdg_verdict(rf).acyclic


def test_search_is_exhaustive_up_to_the_budget_and_samples_beyond():
    def build(dl):
        return turn_model_routing(Torus(2, 4), "west-first", scheme="paper", datelines=dl)

    full = dateline_search(build, 4, vns=1, bidirectional=True, max_configs=16)
    assert (full.space, full.tried, full.exhaustive) == (16, 16, True)
    sample = dateline_search(build, 4, vns=1, bidirectional=True, max_configs=15, seed=3)
    assert (sample.tried, sample.exhaustive) == (15, False)
    assert sample.acyclic <= full.acyclic


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), budget=st.integers(1, 6))
def test_search_counts_agree_with_judging_each_placement(seed, budget):
    def build(dl):
        return pfnf_routing(make_network("unidirectional", 4), scheme="paper", datelines=dl)

    found = dateline_search(build, 4, vns=2, bidirectional=False, max_configs=budget, seed=seed)
    assert found.tried == budget and not found.exhaustive
    everything = [cdg_acyclic(build(dateline_configuration(4, i, vns=2, bidirectional=False))) for i in range(16)]
    assert found.acyclic <= sum(everything)
    if found.example is not None:
        assert cdg_acyclic(build(found.example))


def test_north_last_maps_onto_the_unidirectional_torus():
    found = dateline_search(lambda dl: turn_model_routing(make_network("unidirectional", 4), "north-last",
                                                          scheme="paper", datelines=dl), 4, vns=1,
                            bidirectional=False)  # fmt: skip
    assert (found.space, found.acyclic) == (1, 1) and found.example == ((3, 0, 3, 0),)
