"""The square-routing explorer: the routings' trace, the model (query -> traced routings, oracle) and the widget."""

from __future__ import annotations

import numpy as np
import pytest

from torus_lab.explore.square import SquareExplorer, draw_square_step, square_explorer
from torus_lab.explore.square_model import SquareQuery, explore_square, oracle_path
from torus_lab.routing.square import ALGORITHMS, draw_trial, oracle, route, walk_is_fault_free
from torus_lab.topology import Torus

#: Trials of the study's draw on a 10 x 10 torus: enough faults that every algorithm fails now and then.
TRIALS = [(seed, 0.18) for seed in range(40)] + [(seed, 0.3) for seed in range(40, 60)]


def _grid(query: SquareQuery) -> np.ndarray:
    return query.mask.reshape(query.k, query.k).T  # grid[x0, x1]


def _is_hop(k: int, a: tuple[int, int], b: tuple[int, int]) -> bool:
    return sum(min(abs(x - y), k - abs(x - y)) for x, y in zip(a, b, strict=True)) == 1


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_trace_leaves_the_result_unchanged(algorithm):
    """A traced routing equals the untraced one, field by field (the trace aside), on the study's trials."""
    torus = Torus(2, 10)
    for seed, rate in TRIALS:
        mask, s, t = draw_trial(10, round(rate * 100), seed)
        plain = route(algorithm, torus, mask, s, t, 3)
        traced = route(algorithm, torus, mask, s, t, 3, trace=True)
        assert plain.trace is None and traced.trace is not None
        for name in ("success", "path", "reason", "walked", "squares", "local_routings", "travelled"):
            assert getattr(plain, name) == getattr(traced, name), (algorithm, seed, name)
        assert len(traced.trace) == len(traced.squares)
        assert [step.square for step in traced.trace] == list(traced.squares)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_step_stays_inside_its_square_and_avoids_faults(algorithm):
    """Each step's square holds the node the message stands on and the whole local path; every local path is a
    fault-free walk of torus neighbours, and the next step starts where the message stands (after a backtrack: on
    the message's own path)."""
    for seed, rate in TRIALS:
        out = explore_square(SquareQuery(k=10, m=3, fault_rate=rate, fault_seed=seed, algorithms=(algorithm,)))
        k, steps = out.query.k, out.steps(algorithm)
        if not steps:  # Backtracking-Square saw no reachable exit from the source: it walked no square
            assert algorithm == "backtracking_square" and not out.results[algorithm].success
            continue
        assert steps[0].start == out.query.source
        for number, step in enumerate(steps):
            nodes = set(step.square.nodes(k))
            assert step.start in nodes and set(step.local_path) <= nodes, (seed, number)
            assert step.local_path[0] == step.start and step.walk[-1] == step.local_path[-1]
            assert walk_is_fault_free(step.walk, _grid(out.query), out.query.source), (seed, number)
            if number:
                previous = steps[number - 1]
                if step.backtracked:
                    assert step.start in previous.walk[:-1]
                else:
                    assert step.start == previous.walk[-1]
                    assert step.walk[: len(previous.walk)] == previous.walk


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_final_step_is_the_result_and_never_beats_the_oracle(algorithm):
    """On success the last step's path is the routing's path: a fault-free walk from the source to the destination,
    never shorter than the oracle's; success implies the oracle finds the pair connected."""
    successes = failures = 0
    for seed, rate in TRIALS:
        out = explore_square(SquareQuery(k=10, m=3, fault_rate=rate, fault_seed=seed, algorithms=(algorithm,)))
        result, q = out.results[algorithm], out.query
        last = (out.steps(algorithm) or [None])[-1]
        if result.success:
            successes += 1
            assert list(last.walk) == result.path
            assert walk_is_fault_free(result.path, _grid(q), q.source, q.destination)
            assert out.oracle.connected and out.oracle.distance <= result.length
            assert f"{result.length} hops" in out.verdict(algorithm)
        else:
            failures += 1
            assert last is None or last.walk[-1] != q.destination
            assert result.reason in out.verdict(algorithm)
    assert successes and failures  # both outcomes were exercised


def test_oracle_path_is_a_shortest_fault_free_path():
    """The oracle's path has the study's oracle distance, avoids the faults and joins source and destination;
    there is none exactly when the oracle finds the pair disconnected."""
    torus, seen = Torus(2, 9), set()
    for seed in range(60):
        mask, s, t = draw_trial(9, 30, seed)
        faulty = frozenset((int(v % 9), int(v // 9)) for v in np.flatnonzero(mask))
        path, best = oracle_path(torus, faulty, s, t), oracle(torus, mask, s, t)
        seen.add(best.connected)
        if not best.connected:
            assert path is None
            continue
        assert len(path) - 1 == best.distance
        assert path[0] == s and path[-1] == t and not set(path) & faulty
        assert all(_is_hop(9, a, b) for a, b in zip(path, path[1:], strict=False))
    assert seen == {True, False}


def test_query_draws_the_study_trial_and_flips_clicked_nodes():
    """Without a source and destination the query takes the study's trial pair; a toggled node flips its fault;
    a faulty endpoint is refused naming it."""
    mask, s, t = draw_trial(12, round(0.2 * 144), 5)
    q = SquareQuery(k=12, fault_rate=0.2, fault_seed=5)
    assert (q.source, q.destination) == (s, t) and np.array_equal(q.mask, mask)
    healthy = next((x % 12, x // 12) for x in range(144) if not mask[x] and (x % 12, x // 12) not in (s, t))
    faulty = next((x % 12, x // 12) for x in range(144) if mask[x])
    flipped = SquareQuery(k=12, fault_rate=0.2, fault_seed=5, toggled=frozenset({healthy, faulty}))
    assert flipped.faulty == (q.faulty | {healthy}) - {faulty}
    with pytest.raises(ValueError, match=r"source \(.*\) is a faulty node"):
        SquareQuery(k=12, fault_rate=0.2, fault_seed=5, source=faulty)
    with pytest.raises(ValueError, match="fault_rate"):
        SquareQuery(k=4, fault_rate=0.95)
    with pytest.raises(ValueError, match="m = 2 out of range for adaptive_square"):
        explore_square(SquareQuery(k=8, m=2))
    assert explore_square(SquareQuery(k=8, m=2, algorithms=("chain",))).results["chain"].trace


def test_widget_steps_clicks_and_refused_input():
    """Next and Prev stay within the squares, each drawn with its number; clicks set the source, then the
    destination, and toggle faults; a refused value shows the API's message and a good one brings the result back."""
    explorer = square_explorer(k=10, m=3, fault_rate=0.2, fault_seed=4, algorithm="backtracking_square")
    try:
        total = len(explorer.outcome.steps("backtracking_square"))
        assert explorer.steps.max == total
        for _ in range(total + 2):
            explorer.next_step()
        assert explorer.steps.value == total and explorer.current_step() == explorer.outcome.steps(
            "backtracking_square")[-1]
        assert explorer.figure.axes[0].get_title().endswith(f"square {total} of {total}")
        for _ in range(total + 2):
            explorer.prev_step()
        assert explorer.steps.value == 1
        healthy = [(x, y) for x in range(10) for y in range(10) if (x, y) not in explorer.outcome.query.faulty]
        explorer.click_node(healthy[0])
        explorer.click_node(healthy[1])
        assert (explorer.outcome.query.source, explorer.outcome.query.destination) == (healthy[0], healthy[1])
        explorer.click_mode.value = "fault"
        explorer.click_node(healthy[5])
        assert healthy[5] in explorer.outcome.query.faulty
        explorer.click_node(healthy[0])  # the source made faulty: refused, named
        assert explorer.outcome is None and "source" in explorer.error and "faulty" in explorer.error
        explorer.click_node(healthy[0])
        assert explorer.error == "" and explorer.outcome is not None
        explorer.algorithm.value = "chain"
        assert explorer.steps.max == len(explorer.outcome.steps("chain")) and explorer.steps.value == 1
        explorer.k.value = 2
        assert explorer.error == "k must be in 3..64, got 2" and explorer.summary.value == ""
    finally:
        explorer.close()


def test_draw_square_step_refuses_a_step_out_of_range():
    out = explore_square(SquareQuery(k=8, fault_rate=0.0, source=(0, 0), destination=(4, 1)))
    from matplotlib.figure import Figure

    with pytest.raises(ValueError, match="step"):
        draw_square_step(Figure(), out, "chain", len(out.steps("chain")))
    with pytest.raises(ValueError, match="algorithm"):
        draw_square_step(Figure(), out, "ecube", 0)
    assert isinstance(SquareExplorer(out.query), SquareExplorer)
