"""The paper explorers without a browser: disjoint paths (Bossard & Kaneko) and link loads (Azizoglu & Eğecioğlu),
their models and their widgets driven from Python, on small tori."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from matplotlib.backend_bases import MouseEvent
from matplotlib.collections import LineCollection

from torus_lab.explore import disjoint_paths_explorer, loads_explorer
from torus_lab.explore.disjoint_model import DisjointQuery, explore_disjoint_paths
from torus_lab.explore.loads_model import LoadsQuery, explore_loads
from torus_lab.loads import multiple_linear_placement
from torus_lab.routing.disjoint_paths import check_problem, length_bound, verify_disjoint_paths
from torus_lab.studies.loads import evaluate_point
from torus_lab.topology import Torus

PAIRS_25 = [((0, 0), (2, 2)), ((1, 0), (1, 4))]


def _message(call) -> str:
    with pytest.raises((ValueError, TypeError)) as refused:
        call()
    return str(refused.value)


def _assert_disjoint_paths(torus: Torus, pairs, paths, bound: int | None) -> None:
    """``paths`` join each pair by torus links, share no vertex, and (with a bound) are at most that long: checked
    here from the definition, not by the project's verifier."""
    assert len(paths) == len(pairs)
    seen: set = set()
    for (s, d), path in zip(pairs, paths, strict=True):
        assert path[0] == s and path[-1] == d
        assert all(torus.lee_distance(a, b) == 1 for a, b in itertools.pairwise(path))
        assert len(set(path)) == len(path) and not seen & set(path)
        seen |= set(path)
        if bound is not None:
            assert len(path) - 1 <= bound


def test_chosen_pairs_on_a_2_5_torus_give_disjoint_paths_within_the_bound():
    out = explore_disjoint_paths(DisjointQuery(n=2, k=5, pairs=PAIRS_25))
    torus = Torus(2, 5)
    assert out.bound == length_bound(2, 5, 2) == 2 * 5 * (2 - 1) + 2 * (5 // 2)
    _assert_disjoint_paths(torus, PAIRS_25, out.paper.paths, out.bound)
    assert out.paper.valid and out.within_bound(out.paper) and out.fallbacks == 0
    for method in out.methods:  # every baseline is a valid solution too
        _assert_disjoint_paths(torus, PAIRS_25, method.paths, None)
        assert method.valid and method.violation is None
    assert out.lee == [torus.lee_distance(s, d) for s, d in PAIRS_25]
    assert out.lower_bound <= out.optimal.longest <= min(out.paper.longest, out.greedy.longest)
    assert [row[out.paper.name] for row in out.rows()] == out.paper.lengths


@pytest.mark.parametrize(("n", "k", "kind"), [(2, 5, "uniform"), (2, 7, "surrounded"), (3, 5, "neighbours")])
def test_random_pairs_are_drawn_with_the_seed_and_the_optimum_is_no_longer_than_the_heuristics(n, k, kind):
    a = explore_disjoint_paths(DisjointQuery(n=n, k=k, c=n, kind=kind, seed=3))
    again = DisjointQuery(n=n, k=k, c=n, kind=kind, seed=3)
    assert again.checked_pairs == a.query.checked_pairs
    assert DisjointQuery(n=n, k=k, c=n, kind=kind, seed=4).checked_pairs != a.query.checked_pairs
    check_problem((n, k), a.query.checked_pairs)  # a valid instance
    _assert_disjoint_paths(Torus(n, k), a.query.checked_pairs, a.paper.paths, a.bound)
    assert verify_disjoint_paths((n, k), a.query.checked_pairs, a.paper.paths) is None
    assert a.optimal.valid and a.lower_bound <= a.optimal.longest <= min(a.paper.longest, a.greedy.longest)


def test_bad_input_gives_the_api_s_message_before_any_work():
    assert _message(lambda: DisjointQuery(n=5, k=5)) == _message(lambda: check_problem((5, 5), [((0,) * 5,) * 2]))
    assert _message(lambda: DisjointQuery(k=4)) == "the algorithm needs a torus with k >= 5, got k = 4"
    assert _message(lambda: DisjointQuery(c=3)) == "need 1 <= c <= n pairs, got c = 3 with n = 2"
    assert _message(lambda: DisjointQuery(pairs=[((0, 0), (2, 2)), ((2, 2), (1, 4))])) == _message(
        lambda: check_problem((2, 5), [((0, 0), (2, 2)), ((2, 2), (1, 4))]))
    assert "up to 65536 nodes" in _message(lambda: DisjointQuery(n=3, k=41))
    assert _message(lambda: LoadsQuery(d=0)) == _message(lambda: evaluate_point(0, 8, 1, "linear"))
    torus = Torus(2, 4)
    assert _message(lambda: LoadsQuery(k=4, placement="multiple_linear", t=4)) == _message(
        lambda: multiple_linear_placement(torus, 4))
    assert "routing must be one of" in _message(lambda: LoadsQuery(routing="xy"))


def test_the_disjoint_widget_shows_the_api_s_message_and_recovers():
    explorer = disjoint_paths_explorer(k=5, pairs=PAIRS_25)
    try:
        assert explorer.mode.value == "chosen" and explorer.typed_pairs() == PAIRS_25
        explorer.n.value = 5  # refused by the algorithm's preconditions
        assert explorer.error == "the algorithm needs a torus with n < k, got n = 5, k = 5"
        assert explorer.outcome is None and "n &lt; k" in explorer.message.value and not explorer.table.value
        assert "Traceback" not in explorer.message.value
        explorer.n.value = 3  # a new n draws new pairs
        out = explorer.outcome
        assert explorer.error == "" and explorer.mode.value == "random" and out.query.n == 3
        assert len(explorer.pair_boxes) == 2 and all(len(s) == 3 for s, _ in explorer.pair_boxes)
        assert explorer.table.value.count("<tr>") == 1 + len(out.query.checked_pairs)
        assert "no drawing for n = 3" in explorer.figure.axes[0].texts[0].get_text()
    finally:
        explorer.close()


def _click(explorer, x: float, y: float, axes: int = 0) -> None:
    """A left click at data coordinates ``(x, y)`` of one of the drawings, as the canvas reports one."""
    fig = explorer.figure  # the drawings' limits are fixed when drawn: no render needed to place a click
    px, py = fig.axes[axes].transData.transform((x, y))
    fig.canvas.callbacks.process("button_press_event", MouseEvent("button_press_event", fig.canvas, px, py, 1))


def test_clicking_nodes_chooses_the_pairs_and_typing_switches_to_chosen():
    explorer = disjoint_paths_explorer(n=2, k=5, c=2, seed=1)
    try:
        assert explorer.mode.value == "random"
        for (x, y), axes in zip([(0, 0), (2.1, 1.9), (1, 0), (1, 4)], [0, 1, 2, 0], strict=True):
            _click(explorer, x, y, axes)  # any of the three drawings
        assert explorer.mode.value == "chosen" and explorer.outcome.query.checked_pairs == PAIRS_25
        assert explorer.click_target.value == (0, 0)  # back to the first end
        _assert_disjoint_paths(Torus(2, 5), PAIRS_25, explorer.outcome.paper.paths, explorer.outcome.bound)
        titles = [ax.get_title() for ax in explorer.figure.axes]
        assert [t.split(":")[0] for t in titles] == [m.name for m in explorer.outcome.methods]
        before = explorer.outcome.query
        _click(explorer, 1.5, 1.5)  # between nodes: nothing
        assert explorer.outcome.query == before
        explorer.pair_boxes[1][1][0].value = 3  # typed: pair 2's target becomes (3, 4)
        assert explorer.outcome.query.checked_pairs[1] == ((1, 0), (3, 4))
        explorer.pair_boxes[1][1][0].value = 0  # (0, 4): its path is still found
        assert explorer.outcome.paper.paths[1][-1] == (0, 4)
        explorer.pair_boxes[1][1][1].value = 0  # (0, 0): pair 1's source, refused by the check
        assert explorer.error == _message(lambda: check_problem((2, 5), [((0, 0), (2, 2)), ((1, 0), (0, 0))]))
        explorer.seed.value = 7  # back to random pairs
        assert explorer.mode.value == "random" and explorer.error == ""
        assert explorer.outcome.query.checked_pairs == DisjointQuery(seed=7).checked_pairs
    finally:
        explorer.close()


def test_the_optimum_is_left_out_when_not_asked_for_and_the_redraw_keeps_the_network():
    explorer = disjoint_paths_explorer(seed=2)
    try:
        axes = list(explorer.figure.axes)
        explorer.optimum.value = False
        assert explorer.outcome.optimal.paths is None and explorer.outcome.optimal.note == "not asked for"
        assert list(explorer.figure.axes) == axes  # the same drawings, only their paths redrawn
        assert "optimum: no paths" in axes[2].get_title()
    finally:
        explorer.close()


def test_loads_sum_to_the_total_distance_and_the_maximum_is_above_the_lower_bounds():
    for query in (LoadsQuery(d=2, k=6, routing="udr"), LoadsQuery(d=3, k=4, placement="multiple_linear", t=2),
                  LoadsQuery(d=2, k=4, placement="full", tie="both")):  # fmt: skip
        out = explore_loads(query)
        nodes = query.chosen.nodes()
        total = sum(query.torus.lee_distance(p, q) for p in nodes for q in nodes)  # every message's hops, once
        assert out.loads.sum() == pytest.approx(total)
        assert out.e_max == out.loads.max() >= out.lb_single - 1e-9 and out.e_max >= out.lb_cut - 1e-9
        assert out.per_dimension["max"].max() == pytest.approx(out.e_max)
        assert out.classes["load"].max() == pytest.approx(out.e_max)


def test_the_loads_widget_changes_the_maximum_with_the_routing_and_draws_every_link():
    explorer = loads_explorer(d=2, k=8, routing="udr")
    try:
        udr = explorer.outcome.e_max
        drawn = [c for c in explorer.figure.axes[0].collections if isinstance(c, LineCollection)]
        assert len(drawn) == 1 and len(drawn[0].get_segments()) == Torus(2, 8).num_channels
        explorer.routing.value = "odr"
        assert explorer.outcome.e_max != udr and explorer.outcome.query.routing == "odr"
        assert f"E_max = {explorer.outcome.e_max:.4g}" in explorer.summary.value
        explorer.placement.value = "multiple_linear"
        assert not explorer.t.disabled and explorer.outcome.query.chosen.size == 2 * 8
        explorer.t.value = 8  # t < k is the placement's rule: its message
        assert explorer.error == _message(lambda: multiple_linear_placement(Torus(2, 8), 8))
        assert explorer.outcome is None and not explorer.summary.value
        explorer.t.value = 3
        explorer.d.value = 3  # a class map for d = 3: one row per dimension and sign
        image = explorer.figure.axes[0].images[0].get_array()
        assert image.shape == (6, 8) and np.nanmax(image) == pytest.approx(explorer.outcome.e_max)
    finally:
        explorer.close()
