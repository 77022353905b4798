"""Tests of Corollary 1 over any placement and of the best routing (torus_lab.loads): exact enumeration, certified
cuts, the adversarial search, random placements and the routing programme."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.loads import (
    MAX_EXHAUSTIVE_NODES,
    all_placement_bisection_widths,
    bisection_slack_search,
    bisection_width_upper_bound,
    certified_bisection_width,
    e_max,
    lemma1_bound,
    linear_placement,
    link_loads,
    natural_bisection_width,
    node_placement,
    optimal_routing_load,
    placement_bisection_width_bruteforce,
    random_placements,
    single_node_bound,
)
from torus_lab.topology import Torus

TINY = [(2, 3), (1, 7), (1, 10), (2, 4)]


def _placement(torus: Torus, mask: int):
    return node_placement(torus, [torus.coords(i) for i in range(torus.num_nodes) if mask >> i & 1])


@pytest.fixture(scope="module", params=TINY)
def tiny(request):
    torus = Torus(*request.param)
    return torus, all_placement_bisection_widths(torus)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_enumeration_matches_brute_force_and_certified_cuts_bound_it(tiny, data):
    torus, widths = tiny
    mask = data.draw(st.integers(1, (1 << torus.num_nodes) - 1))
    placement = _placement(torus, mask)
    assert widths[mask] == placement_bisection_width_bruteforce(torus, placement)
    # a certified cut halves P, so it can only overstate the exact width
    assert certified_bisection_width(torus, placement) >= widths[mask]
    natural = natural_bisection_width(torus, placement)
    assert natural is None or certified_bisection_width(torus, placement) <= natural


def test_enumeration_bounds_and_corner_cases():
    widths = all_placement_bisection_widths(Torus(2, 3))
    sizes = np.array([bin(m).count("1") for m in range(len(widths))])
    assert widths[0] == 0 and (widths[sizes == 1] == 0).all()      # nothing to split
    assert widths[sizes >= 2].min() > 0 and widths.max() <= bisection_width_upper_bound(Torus(2, 3))
    full = _placement(Torus(2, 3), (1 << 9) - 1)      # every node a processor: the torus's own bisection width
    assert widths[(1 << 9) - 1] == placement_bisection_width_bruteforce(Torus(2, 3), full) == 16
    with pytest.raises(ValueError, match="at most 16 nodes"):
        all_placement_bisection_widths(Torus(1, MAX_EXHAUSTIVE_NODES + 1))
    all_placement_bisection_widths(Torus(1, MAX_EXHAUSTIVE_NODES))   # the boundary itself is accepted


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), restarts=st.integers(1, 3), steps=st.integers(0, 30))
def test_search_never_reports_a_slack_below_the_exact_minimum(tiny, seed, restarts, steps):
    torus, widths = tiny
    if torus.num_nodes > 10:
        steps = min(steps, 8)    # brute force per evaluation: keep the 4 x 4 torus cheap
    found = bisection_slack_search(torus, seed=seed, restarts=restarts, steps=steps, objective="exact")
    sizes = np.array([bin(m).count("1") for m in range(len(widths))])
    least = found.bound - int(widths[sizes >= 2].max())
    assert found.exact and found.slack >= least
    mask = int(sum(1 << int(i) for i in found.placement.node_ids))
    assert found.width == widths[mask] and found.placement.size >= 2
    assert found.evaluations >= restarts


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_certified_search_reports_a_certified_cut(seed):
    torus = Torus(3, 4)
    found = bisection_slack_search(torus, seed=seed, restarts=2, steps=20)
    assert not found.exact
    assert found.width == certified_bisection_width(torus, found.placement)
    assert found.slack == bisection_width_upper_bound(torus) - found.width


def test_the_search_is_seed_deterministic():
    torus = Torus(2, 6)
    a, b = (bisection_slack_search(torus, seed=5, restarts=2, steps=40) for _ in range(2))
    assert a.width == b.width and np.array_equal(a.placement.node_ids, b.placement.node_ids)


def test_the_search_refuses_bad_budgets_and_objectives():
    with pytest.raises(ValueError, match="restarts"):
        bisection_slack_search(Torus(2, 3), restarts=0)
    with pytest.raises(ValueError, match="objective"):
        bisection_slack_search(Torus(2, 3), objective="exactly")
    with pytest.raises(ValueError, match="at most 20 nodes"):
        bisection_slack_search(Torus(2, 5), objective="exact")


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(0, 12), min_size=st.integers(1, 16))
def test_random_placements(seed, count, min_size):
    torus = Torus(2, 4)
    first = random_placements(torus, count, seed=seed, min_size=min_size)
    again = random_placements(torus, count, seed=seed, min_size=min_size)
    assert len(first) == count
    for p, q in zip(first, again, strict=True):
        assert np.array_equal(p.node_ids, q.node_ids)
        assert min_size <= p.size <= torus.num_nodes and len(set(p.node_ids.tolist())) == p.size


@settings(max_examples=12, deadline=None)
@given(mask=st.integers(3, (1 << 9) - 1))
def test_best_routing_lies_between_the_lower_bounds_and_every_routing(mask):
    torus = Torus(2, 3)
    placement = _placement(torus, mask)
    if placement.size < 2:
        return
    best = optimal_routing_load(torus, placement)
    assert best >= single_node_bound(torus, placement) - 1e-9
    inside = np.zeros(torus.num_nodes, dtype=bool)
    inside[placement.node_ids[: placement.size // 2]] = True
    assert best >= lemma1_bound(torus, placement, inside).value - 1e-9
    for routing in ("odr", "udr", "shortest"):
        assert best <= e_max(link_loads(torus, placement, routing)) + 1e-9


@pytest.mark.parametrize(("d", "k"), [(2, 4), (2, 5), (2, 6), (3, 3)])
def test_best_routing_reaches_bound_1_on_linear_placements(d, k):
    torus = Torus(d, k)
    placement = linear_placement(torus)
    assert optimal_routing_load(torus, placement) == pytest.approx(single_node_bound(torus, placement), abs=1e-9)


def test_best_routing_of_one_processor_and_a_pair():
    torus = Torus(1, 5)
    assert optimal_routing_load(torus, [(0,)]) == 0.0
    assert optimal_routing_load(torus, [(0,), (2,)]) == pytest.approx(1.0)   # one shortest path each way
