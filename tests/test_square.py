"""Tests of torus_lab.routing.square (Li, Peng & Chu chain / adaptive-square / heuristic-square routing)."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torus_lab.routing.square import (
    ALGORITHMS,
    Square,
    adaptive_square_routing,
    backtracking_square_routing,
    chain_routing,
    draw_trial,
    evaluate_batch,
    heuristic_square_routing,
    local_routing_bound,
    locally_safe,
    oracle,
    route,
    saturated_safe_faults,
    square_cover,
    square_starts,
    step_progress,
    torus_connected,
    walk_is_fault_free,
)
from torus_lab.topology import Faults, Mesh, Torus, bfs_distances, is_walk

MIN_M = {"chain": 2, "adaptive_square": 3, "heuristic_square": 3, "backtracking_square": 3}


# ---------------------------------------------------------------------------------------------- helpers
def faulty_set(k: int, mask: np.ndarray) -> set[tuple[int, int]]:
    return {(int(v % k), int(v // k)) for v in np.flatnonzero(mask)}


def check_result(torus: Torus, faults: set, s, t, result) -> None:
    """Every property a routing result must have, whatever the algorithm."""
    orc = oracle(torus, faults, s, t)
    assert result.walked[0] == s
    assert is_walk(torus, result.walked)
    assert not set(result.walked) & faults
    assert result.local_routings >= 1
    if result.algorithm == "backtracking_square":
        assert result.travelled >= len(result.walked) - 1
    else:
        assert result.travelled == len(result.walked) - 1 and result.local_routings == len(result.squares)
    if result.success:
        assert result.reason == ""
        assert result.path == result.walked
        assert result.path[0] == s and result.path[-1] == t
        assert is_walk(torus, result.path)
        assert not set(result.path) & faults
        assert orc.connected, "a local algorithm found a path between disconnected nodes"
        assert result.length >= orc.distance >= torus.lee_distance(s, t)
        assert orc.distance <= result.loop_erased_length <= result.length
    else:
        assert result.path is None and result.length is None
        assert result.reason
        assert t not in result.walked


def ref_direction(r: int, t: int, k: int) -> int:
    if t <= r:
        return -1 if 2 * (r - t) <= k else 1
    return -1 if 2 * (t - r) > k else 1


def ref_ring(a: int, b: int, k: int) -> int:
    return min(abs(a - b), k - abs(a - b))


def ref_local(k, m, faults, i, corner_i, corner_j, di, dj, r, t, *, every_exit=False):
    """Plain reference of one local routing (dict-based BFS over coordinates): ('t'|'exit'|'fail', path).

    With ``every_exit`` the second item is the list of the paths to every reachable exit, best first."""

    def node(a, b):
        vi, vj = (corner_i + a * di) % k, (corner_j + b * dj) % k
        return (vi, vj) if i == 0 else (vj, vi)

    local = {node(a, b): (a, b) for a in range(m) for b in range(m)}
    start = r
    parent = {start: None}
    order = [start]
    queue = deque([start])
    while queue:
        u = queue.popleft()
        a, b = local[u]
        for da, db in ((1, 0), (0, 1), (0, -1), (-1, 0)):
            na, nb = a + da, b + db
            if not (0 <= na < m and 0 <= nb < m):
                if m != k:
                    continue
                na, nb = na % m, nb % m
            v = node(na, nb)
            if v in parent or v in faults:
                continue
            parent[v] = u
            order.append(v)
            queue.append(v)

    def path_to(v):
        out = []
        while v is not None:
            out.append(v)
            v = parent[v]
        return out[::-1]

    if t in local:
        return ("t", path_to(t)) if t in parent else ("fail", None)
    ta = ((t[i] - corner_i) * di) % k
    ea = ta if ta < m else m - 1
    exits = [node(ea, b) for b in range(m) if node(ea, b) in parent]
    if not exits:
        return ("exit", []) if every_exit else ("fail", None)
    hops = {v: len(path_to(v)) for v in exits}
    ranked = sorted(exits, key=lambda v: (hops[v], ref_ring(v[0], t[0], k) + ref_ring(v[1], t[1], k), v))
    if every_exit:
        return "exit", [path_to(v) for v in ranked]
    return "exit", path_to(ranked[0])


def ref_route(algorithm, k, m, faults, s, t, after_fallback="max"):
    """Reference of Algorithms 1-2 and Section 5 written straight from docs/conventions.md#square-direction ff.
    (slow, pure Python)."""
    path = [s]
    r = s
    if algorithm == "chain":
        dirs = (ref_direction(s[0], t[0], k), ref_direction(s[1], t[1], k))
        for i in (0, 1):
            j = 1 - i
            corner_j = (r[j] - dirs[j]) % k
            while r[i] != t[i]:
                kind, local = ref_local(k, m, faults, i, r[i], corner_j, dirs[i], dirs[j], r, t)
                if kind == "fail":
                    return None
                path += local[1:]
                if kind == "t":
                    return path
                r = local[-1]
        return path
    forced = None
    for _ in range(4 * k):
        if r == t:
            return path
        dirs = (ref_direction(r[0], t[0], k), ref_direction(r[1], t[1], k))
        d = (ref_ring(r[0], t[0], k), ref_ring(r[1], t[1], k))
        i = 0 if d[0] >= d[1] else 1
        if forced is not None:
            i, forced = forced, None
        kind, local = ref_local(k, m, faults, i, r[i], (r[1 - i] - dirs[1 - i]) % k, dirs[i], dirs[1 - i], r, t)
        if kind == "fail" and algorithm == "heuristic_square" and d[1 - i] != 0:
            j = 1 - i
            kind, local = ref_local(k, m, faults, j, r[j], (r[i] - dirs[i]) % k, dirs[j], dirs[i], r, t)
            if after_fallback == "previous":
                forced = i
        if kind == "fail":
            return None
        path += local[1:]
        if kind == "t":
            return path
        r = local[-1]
    return None


def ref_backtracking(k, m, faults, s, t, budget):
    """Reference of Backtracking-Square as a recursive depth-first search (returns the path or None)."""
    seen: set = set()
    expansions = 0

    class Budget(Exception):
        pass

    def square(i, r):
        dirs = (ref_direction(r[0], t[0], k), ref_direction(r[1], t[1], k))
        return ref_local(k, m, faults, i, r[i], (r[1 - i] - dirs[1 - i]) % k, dirs[i], dirs[1 - i], r, t,
                         every_exit=True)

    def dfs(r, path):
        nonlocal expansions
        seen.add(r)
        expansions += 1
        d = (ref_ring(r[0], t[0], k), ref_ring(r[1], t[1], k))
        i = 0 if d[0] >= d[1] else 1
        candidates = []
        for dim in (i, 1 - i):
            if dim != i and d[dim] == 0:
                break
            kind, local = square(dim, r)
            if kind == "t":
                return path + local[1:]
            if kind == "exit":
                candidates += local
        for segment in candidates:
            if segment[-1] in seen:
                continue
            if expansions >= budget:
                raise Budget
            found = dfs(segment[-1], path + segment[1:])
            if found:
                return found
        return None

    try:
        return dfs(s, [s])
    except Budget:
        return None


@st.composite
def instances(draw, max_k: int = 12):
    k = draw(st.integers(3, max_k))
    rate = draw(st.sampled_from([0.0, 0.05, 0.15, 0.3, 0.45]))
    count = min(int(round(rate * k * k)), k * k - 2)
    seed = draw(st.integers(0, 2**63 - 1))
    mask, s, t = draw_trial(k, count, seed)
    return k, faulty_set(k, mask), s, t


# ---------------------------------------------------------------------------------------------- properties
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.data())
def test_every_result_is_a_valid_fault_free_walk_and_never_beats_the_oracle(instance, data):
    k, faults, s, t = instance
    torus = Torus(2, k)
    for name in ALGORITHMS:
        m = data.draw(st.integers(MIN_M[name], k), label=f"m for {name}")
        check_result(torus, faults, s, t, route(name, torus, faults, s, t, m))
    if k >= 3:
        m = data.draw(st.integers(3, k), label="m for ALT")
        check_result(torus, faults, s, t, heuristic_square_routing(torus, faults, s, t, m, after_fallback="previous"))


@settings(max_examples=120, deadline=None)
@given(instances(max_k=10), st.data())
def test_kernels_match_the_pure_python_reference(instance, data):
    k, faults, s, t = instance
    torus = Torus(2, k)
    for name in ("chain", "adaptive_square", "heuristic_square"):
        m = data.draw(st.integers(MIN_M[name], k), label=f"m for {name}")
        result = route(name, torus, faults, s, t, m)
        assert result.path == ref_route(name, k, m, faults, s, t)
    m = data.draw(st.integers(3, k), label="m for ALT")
    alt = heuristic_square_routing(torus, faults, s, t, m, after_fallback="previous")
    assert alt.path == ref_route("heuristic_square", k, m, faults, s, t, after_fallback="previous")
    m = data.draw(st.integers(3, k), label="m for backtracking")
    budget = data.draw(st.sampled_from([None, 1, 3, 10]), label="budget")
    back = backtracking_square_routing(torus, faults, s, t, m, budget=budget)
    assert back.path == ref_backtracking(k, m, faults, s, t, budget or 4 * k)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 20), st.data())
def test_without_faults_every_algorithm_routes_minimally(k, data):
    torus = Torus(2, k)
    s = (data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1)))
    t = (data.draw(st.integers(0, k - 1)), data.draw(st.integers(0, k - 1)))
    if s == t:
        return
    for name in ALGORITHMS:
        m = data.draw(st.integers(MIN_M[name], k))
        result = route(name, torus, set(), s, t, m)
        assert result.success and result.length == torus.lee_distance(s, t)


def locally_m_safe(k: int, m: int, faults: set) -> bool:
    """Brute force of the paper's Section 2 definition (every m-square connected, every side non-faulty)."""
    for x in range(k):
        for y in range(k):
            cells = {((x + a) % k, (y + b) % k) for a in range(m) for b in range(m)}
            good = cells - faults
            sides = [
                {((x + a) % k, y) for a in range(m)},
                {((x + a) % k, (y + m - 1) % k) for a in range(m)},
                {(x, (y + b) % k) for b in range(m)},
                {((x + m - 1) % k, (y + b) % k) for b in range(m)},
            ]
            if any(side <= faults for side in sides) or not good:
                return False
            start = next(iter(good))
            seen = {start}
            stack = [start]
            while stack:
                u = stack.pop()
                for v in ((u[0] + 1) % k, u[1]), ((u[0] - 1) % k, u[1]), (u[0], (u[1] + 1) % k), (u[0], (u[1] - 1) % k):
                    if v in good and v not in seen:
                        seen.add(v)
                        stack.append(v)
            if seen != good:
                return False
    return True


def test_locally_m_safe_torus_is_always_routed():
    """Theorems 1-3: in a locally-m-safe torus every local routing finds an exit, so all algorithms succeed."""
    tested = 0
    for seed in range(200):
        k, m, count = 6 + seed % 5, 3 + seed % 2, 1 + seed % 5
        mask, s, t = draw_trial(k, count, seed)
        faults = faulty_set(k, mask)
        if not locally_m_safe(k, m, faults):
            continue
        tested += 1
        for name in ALGORITHMS:
            assert route(name, Torus(2, k), faults, s, t, m).success, (name, seed)
    assert tested >= 100


@settings(max_examples=60, deadline=None)
@given(instances(max_k=16), st.integers(3, 6))
def test_heuristic_extends_adaptive_square(instance, m):
    """Heuristic-Square follows Adaptive-Square until the latter fails, so it succeeds whenever AS does."""
    k, faults, s, t = instance
    if m > k:
        return
    torus = Torus(2, k)
    square = adaptive_square_routing(torus, faults, s, t, m)
    heuristic = heuristic_square_routing(torus, faults, s, t, m)
    if square.success:
        assert heuristic.path == square.path
    else:
        assert heuristic.walked[: len(square.walked)] == square.walked


@settings(max_examples=60, deadline=None)
@given(instances(max_k=14))
def test_oracle_matches_reference_bfs(instance):
    k, faults, s, t = instance
    torus = Torus(2, k)
    expected = int(bfs_distances(torus, s, Faults(nodes=frozenset(faults)))[torus.node_id(t)])
    result = oracle(torus, faults, s, t)
    assert result.connected == (expected >= 0)
    assert result.distance == (expected if expected >= 0 else None)


# ---------------------------------------------------------------------------------------------- examples
def test_paper_square_geometry_of_adaptive_step():
    """Algorithm 2 / Fig. 3: b = (r_i, r_j - dir_j), B = (r_i + (m-1) dir_i, r_j + (m-2) dir_j)."""
    torus = Torus(2, 16)
    result = adaptive_square_routing(torus, set(), (2, 3), (9, 5), 5)
    first = result.squares[0]
    assert first.dim == 0 and first.directions == (1, 1)
    assert first.corner == (2, 2) and first.far_corner == (6, 6)
    wrapped = adaptive_square_routing(torus, set(), (1, 1), (12, 14), 4)  # dir = -1 in both dimensions
    assert wrapped.squares[0].directions == (-1, -1)
    assert wrapped.squares[0].corner == (1, 2) and wrapped.squares[0].far_corner == (14, 15)


def test_chain_band_is_fixed_per_phase():
    torus = Torus(2, 16)
    result = chain_routing(torus, {(3, 0), (3, 1)}, (0, 0), (10, 7), 3)
    assert result.success
    phase0 = [sq for sq in result.squares if sq.dim == 0]
    assert {sq.corner[1] for sq in phase0} == {15}  # band [s_1 - 1, s_1 + m - 2] throughout phase 0


def test_heuristic_recovers_where_adaptive_fails():
    torus = Torus(2, 8)
    faults = {(1, 0), (1, 1), (1, 7), (2, 1), (2, 7)}
    square = adaptive_square_routing(torus, faults, (0, 0), (3, 1), 3)
    assert not square.success and "exit" in square.reason
    heuristic = heuristic_square_routing(torus, faults, (0, 0), (3, 1), 3)
    check_result(torus, faults, (0, 0), (3, 1), heuristic)
    assert heuristic.success and heuristic.squares[1].dim == 1


def test_disconnected_pair_fails_with_reason():
    torus = Torus(2, 8)
    faults = {(1, 0), (7, 0), (0, 1), (0, 7)}
    for name in ALGORITHMS:
        result = route(name, torus, faults, (0, 0), (4, 4), 4)
        assert not result.success and result.reason and result.path is None
    assert oracle(torus, faults, (0, 0), (4, 4)).connected is False


def test_backtracking_beats_heuristic_on_a_dead_end():
    """An instance (found by search over draw_trial seeds) where Heuristic-Square hits a dead end."""
    torus = Torus(2, 10)
    faults = {(0, 6), (0, 7), (1, 4), (1, 7), (2, 9), (4, 1), (4, 2), (4, 3), (5, 0), (5, 6), (5, 8), (6, 1), (6, 2),
              (6, 3), (6, 8), (7, 0), (7, 2), (7, 6), (8, 0), (8, 6), (8, 8), (9, 0), (9, 3), (9, 5), (9, 7)}
    s, t = (3, 0), (8, 3)
    heuristic = heuristic_square_routing(torus, faults, s, t, 3)
    assert not heuristic.success
    back = backtracking_square_routing(torus, faults, s, t, 3)
    check_result(torus, faults, s, t, back)
    assert back.success
    assert not backtracking_square_routing(torus, faults, s, t, 3, budget=1).success


def test_fault_inputs_are_equivalent():
    torus = Torus(2, 6)
    faults = {(1, 0), (2, 3)}
    mask_by_id = np.zeros(36, dtype=bool)
    mask_xy = np.zeros((6, 6), dtype=bool)
    for x, y in faults:
        mask_by_id[x + 6 * y] = True
        mask_xy[x, y] = True
    paths = {
        tuple(adaptive_square_routing(torus, f, (0, 0), (3, 3), 3).path)
        for f in (faults, frozenset(faults), Faults(nodes=frozenset(faults)), mask_by_id, mask_xy)
    }
    assert len(paths) == 1


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: chain_routing(Torus(2, 8), set(), (0, 0), (3, 3), 1), ValueError, "m = 1"),
        (lambda: chain_routing(Torus(2, 8), set(), (0, 0), (3, 3), 9), ValueError, "m = 9"),
        (lambda: adaptive_square_routing(Torus(2, 8), set(), (0, 0), (3, 3), 2), ValueError, "m = 2"),
        (lambda: heuristic_square_routing(Torus(2, 8), set(), (0, 0), (3, 3), 2), ValueError, "m = 2"),
        (lambda: backtracking_square_routing(Torus(2, 8), set(), (0, 0), (3, 3), 2), ValueError, "m = 2"),
        (lambda: chain_routing(Torus(2, 8), set(), (0, 0), (3, 3), True), TypeError, "m must be an int"),
        (lambda: chain_routing(Torus(2, 8), set(), (0, 0), (3, 3), 3.0), TypeError, "m must be an int"),
        (lambda: chain_routing(Torus(2, 8), {(0, 0)}, (0, 0), (3, 3), 3), ValueError, r"source \(0, 0\) is faulty"),
        (lambda: chain_routing(Torus(2, 8), {(3, 3)}, (0, 0), (3, 3), 3), ValueError, r"target \(3, 3\) is faulty"),
        (lambda: chain_routing(Torus(2, 8), set(), (2, 2), (2, 2), 3), ValueError, "must differ"),
        (lambda: chain_routing(Torus(2, 8), set(), (0, 8), (2, 2), 3), ValueError, "out of range"),
        (lambda: chain_routing(Mesh(2, 8), set(), (0, 0), (2, 2), 3), ValueError, "mesh"),
        (lambda: chain_routing(Torus(3, 8), set(), (0, 0, 0), (2, 2, 2), 3), ValueError, "3 dimensions"),
        (lambda: chain_routing(Torus(2, (8, 6)), set(), (0, 0), (2, 2), 3), ValueError, "radices"),
        (lambda: chain_routing(Torus(2, 8, bidirectional=False), set(), (0, 0), (2, 2), 3), ValueError, "bidirect"),
        (lambda: chain_routing("torus", set(), (0, 0), (2, 2), 3), TypeError, "Torus"),
        (lambda: chain_routing(Torus(2, 8), Faults(links=frozenset({0, 1})), (0, 0), (2, 2), 3), ValueError, "link"),
        (lambda: chain_routing(Torus(2, 8), np.zeros(10, dtype=bool), (0, 0), (2, 2), 3), ValueError, "shape"),
        (lambda: chain_routing(Torus(2, 8), np.zeros(64, dtype=int), (0, 0), (2, 2), 3), TypeError, "boolean"),
        (lambda: chain_routing(Torus(2, 8), {(9, 9)}, (0, 0), (2, 2), 3), ValueError, "faulty node"),
        (lambda: route("zigzag", Torus(2, 8), set(), (0, 0), (2, 2), 3), ValueError, "zigzag"),
        (lambda: heuristic_square_routing(Torus(2, 8), set(), (0, 0), (2, 2), 3, after_fallback="x"), ValueError,
         "after_fallback"),
        (lambda: evaluate_batch(8, 2, 3, np.arange(3, dtype=np.uint64)), ValueError, "m = 2"),
        (lambda: evaluate_batch(8, 3, 63, np.arange(3, dtype=np.uint64)), ValueError, "fault_count"),
        (lambda: evaluate_batch(8, 3, 6, np.arange(3, dtype=np.uint64), after_fallback="min"), ValueError,
         "after_fallback"),
    ],
)
def test_bad_input_is_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------------------------- batch
def test_batch_is_deterministic_and_independent_of_blocking():
    seeds = np.random.default_rng(np.random.SeedSequence(7)).integers(0, 2**63, size=300, dtype=np.uint64)
    a = evaluate_batch(16, 4, 51, seeds, n_blocks=1)
    b = evaluate_batch(16, 4, 51, seeds, n_blocks=13)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    c = evaluate_batch(16, 4, 51, seeds[::-1].copy())
    np.testing.assert_array_equal(c["status"], a["status"][::-1])
    d = evaluate_batch(16, 4, 51, seeds, with_oracle=False)
    np.testing.assert_array_equal(d["status"], a["status"])
    assert (d["oracle"] == -2).all()


def test_batch_matches_the_python_api_trial_by_trial():
    seeds = np.random.default_rng(np.random.SeedSequence(11)).integers(0, 2**63, size=40, dtype=np.uint64)
    k, m, count = 12, 4, 29
    out = evaluate_batch(k, m, count, seeds)
    torus = Torus(2, k)
    for q, seed in enumerate(seeds):
        mask, s, t = draw_trial(k, count, int(seed))
        assert int(mask.sum()) == count and not mask[s[0] + k * s[1]] and not mask[t[0] + k * t[1]] and s != t
        assert out["lee"][q] == torus.lee_distance(s, t)
        orc = oracle(torus, mask, s, t)
        assert out["oracle"][q] == (orc.distance if orc.connected else -1)
        for a, name in enumerate(ALGORITHMS):
            result = route(name, torus, mask, s, t, m)
            assert (out["status"][q, a] == 0) == result.success
            assert out["length"][q, a] == (result.length if result.success else -1)
            if result.success:
                assert out["oracle"][q] >= 0 and result.length >= out["oracle"][q]


def test_trials_are_uniform_enough():
    """Faults, sources and targets spread over the whole torus (a coarse chi-square-free sanity check)."""
    k, count = 8, 16
    hits = np.zeros(k * k)
    ends = np.zeros(k * k)
    for seed in range(400):
        mask, s, t = draw_trial(k, count, seed)
        hits += mask
        ends[s[0] + k * s[1]] += 1
        ends[t[0] + k * t[1]] += 1
    assert hits.min() > 0.5 * hits.mean() and hits.max() < 1.5 * hits.mean()
    assert ends.min() > 0 and ends.sum() == 800


# ---------------------------------------------------------------------------------------------- Theorem 1
def _grid(radix, faulty):
    grid = np.zeros((radix, radix), dtype=bool)
    for x0, x1 in faulty:
        grid[x0, x1] = True
    return grid


def test_locally_safe_conditions():
    assert locally_safe(_grid(6, []), 2)
    # condition 2: m consecutive faults in a row (wrapping around) break it, m - 1 do not
    assert not locally_safe(_grid(6, [(5, 1), (0, 1), (1, 1)]), 3)
    assert locally_safe(_grid(6, [(5, 1), (0, 1)]), 3)
    # condition 1: a diagonal pair cuts a 2 x 2 square in two (no line of two faults)
    assert not locally_safe(_grid(6, [(0, 0), (1, 1)]), 2)
    assert not locally_safe(_grid(6, [(0, 0), (1, 1)]), 3)  # and (1, 0) is a cut-off corner of a 3 x 3 window
    assert locally_safe(_grid(6, [(0, 0), (2, 2)]), 3)      # every 3 x 3 window stays connected
    # a corner of a 3 x 3 window cut off by two faults
    assert not locally_safe(_grid(8, [(1, 0), (0, 1)]), 3)
    with pytest.raises(ValueError, match="m"):
        locally_safe(_grid(6, []), 6)
    with pytest.raises(ValueError, match="grid"):
        locally_safe(np.zeros((4, 5), dtype=bool), 2)


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 9), st.integers(2, 4), st.integers(0, 2**32 - 1), st.floats(0.0, 0.5))
def test_locally_safe_around_agrees_with_the_full_check(radix, m, seed, rate):
    """Changing one node's state changes only the squares and segments around it."""
    m = min(m, radix - 1)
    rng = np.random.default_rng(seed)
    grid = rng.random((radix, radix)) < rate
    node = tuple(int(v) for v in rng.integers(0, radix, 2))
    before = locally_safe(grid, m)
    grid[node] = not grid[node]
    if before:
        assert locally_safe(grid, m, around=node) == locally_safe(grid, m)


def test_saturated_safe_faults_are_safe_and_maximal():
    rng = np.random.default_rng(3)
    for radix, m in [(6, 2), (8, 3), (9, 5)]:
        grid = saturated_safe_faults(radix, m, rng)
        assert locally_safe(grid, m)
        for x0, x1 in zip(*np.nonzero(~grid), strict=True):  # one more fault anywhere breaks local m-safety
            grid[x0, x1] = True
            assert not locally_safe(grid, m), (radix, m, x0, x1)
            grid[x0, x1] = False


def test_torus_connected_agrees_with_bfs():
    rng = np.random.default_rng(5)
    torus = Torus(2, 7)
    for _ in range(30):
        grid = rng.random((7, 7)) < 0.35
        up = [tuple(int(v) for v in node) for node in zip(*np.nonzero(~grid), strict=True)]
        faults = {tuple(int(v) for v in node) for node in zip(*np.nonzero(grid), strict=True)}
        expected = all(oracle(torus, faults, up[0], node).connected for node in up[1:])
        assert torus_connected(grid) == expected


def test_walk_is_fault_free():
    grid = _grid(5, [(2, 2)])
    assert walk_is_fault_free([(0, 0)], grid, (0, 0), (0, 0))
    assert walk_is_fault_free([(0, 0), (4, 0), (4, 4)], grid, (0, 0), (4, 4))  # both wraparound hops
    assert not walk_is_fault_free([(0, 0), (4, 0)], grid, (0, 0), (4, 4))       # wrong end
    assert not walk_is_fault_free([(1, 1), (1, 2)], grid, (0, 0))               # wrong start
    assert not walk_is_fault_free([(2, 1), (2, 2)], grid, (2, 1))               # a faulty node
    assert not walk_is_fault_free([(0, 0), (1, 1)], grid, (0, 0))              # not a hop
    assert not walk_is_fault_free([(0, 0), (0, 0)], grid, (0, 0))              # standing still
    with pytest.raises(TypeError, match="source"):
        walk_is_fault_free([(0, 0)], grid, 3)


def test_chain_bound_needs_the_row_behind():
    """Chain's first leg may end one row behind s_1: the second leg then needs ceil((d_1 + 1) / (m - 1))."""
    torus = Torus(2, 16)
    faults = {(1, 0), (1, 1)}  # the first square's exit column is open only in the row behind (x1 = 15)
    result = chain_routing(torus, faults, (0, 0), (2, 4), 3)
    assert result.success and result.path[2] == (1, 15)
    assert result.local_routings == 4 > 1 + 2  # ceil(2 / 2) + ceil(4 / 2) would be too small
    assert result.local_routings <= local_routing_bound("chain", 16, 3, (0, 0), (2, 4)) == 4


def test_square_starts_and_step_progress_of_a_small_step():
    """The constructed step of the fault-tolerant study (Theorem 3's proof): the exit column faulty but its far row."""
    result = adaptive_square_routing(Torus(2, 16), {(5, 1), (5, 0), (5, 15), (5, 14), (5, 13)}, (0, 0), (6, 0), 6)
    assert square_starts(result, 16)[:2] == [(0, 0), (5, 12)]
    assert step_progress(result, 16, (6, 0))[0] == 1


def test_square_cover_wraps_around():
    cover = square_cover([Square(1, (14, 14), (0, 0), (1, 1), 3)], 16)  # wraps around both dimensions
    assert cover.sum() == 9 and cover[15, 15] == 1 and cover[0, 0] == 1 and cover[14, 0] == 1


# ---------------------------------------------------------------------------------------------- study
def test_study_table_invariants_and_determinism():
    from torus_lab.studies.fault_tolerant import TABLE_COLUMNS, run_points

    table, ratios = run_points([(12, 3), (16, 4)], [0.1, 0.25], trials=400, seed=3, backend="serial")
    again, _ = run_points([(16, 4)], [0.25], trials=400, seed=3, backend="serial")
    other, _ = run_points([(16, 4)], [0.25], trials=400, seed=4, backend="serial")
    assert list(table.columns[: len(TABLE_COLUMNS)]) == TABLE_COLUMNS
    for _, point in table.groupby(["N", "m", "fault_rate"]):
        by = point.set_index("algorithm")
        assert (by.successes <= by.loc["oracle", "successes"]).all()  # the oracle is never beaten
        assert by.loc["heuristic_square", "successes"] >= by.loc["adaptive_square", "successes"]
        assert (by.ci_low <= by.success_rate).all() and (by.success_rate <= by.ci_high).all()
        assert (by.oracle_stretch_mean.dropna() >= 1).all() and (by.path_plus_mean.dropna() >= 1).all()
        assert (by.oracle_path_plus_on_successes <= by.path_plus_mean + 1e-12).all()
        assert (by.travelled_plus_mean >= by.path_plus_mean - 1e-12).all()
        assert int(by.cap_hits.sum()) == 0
    # a point's trials depend on the seed and the point only, not on the other points of the run
    same = table[(table.N == 16) & (table.fault_rate == 0.25)].drop(columns="seconds").reset_index(drop=True)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(same, again.drop(columns="seconds").reset_index(drop=True))
    assert not other.drop(columns=["seconds", "seed"]).equals(again.drop(columns=["seconds", "seed"]))
    assert set(ratios.denominator) >= {"chain", "adaptive_square", "oracle"}
    assert (table["seed"] == 3).all() and (ratios["seed"] == 3).all()


def test_serial_batch_kernel_matches_the_parallel_one():
    seeds = np.arange(50, dtype=np.uint64) * np.uint64(7919)
    parallel = evaluate_batch(16, 4, 51, seeds)
    serial = evaluate_batch(16, 4, 51, seeds, parallel=False)
    for key, value in parallel.items():
        assert np.array_equal(value, serial[key]), key


def test_oracle_bidirectional_search_matches_reference_bfs_near_the_percolation_threshold():
    """The oracle's two searches (from s and from t, the smaller frontier first) give the distance of a plain
    BFS on dense fault sets (many disconnected pairs, long detours), and leave the workspace as they found it."""
    from torus_lab.routing.square import _oracle_kernel

    rng = np.random.default_rng(20261124)
    disconnected = 0
    for trial in range(300):
        k = int(rng.integers(3, 40))
        total = k * k
        mask = rng.random(total) < rng.uniform(0.0, 0.5)
        free = np.flatnonzero(~mask)
        if free.size < 2:
            continue
        s, t = (int(v) for v in rng.choice(free, 2, replace=False))
        torus = Torus(2, k)
        faults = Faults(nodes=frozenset(torus.coords(int(v)) for v in np.flatnonzero(mask)))
        expected = int(bfs_distances(torus, torus.coords(s), faults)[t])
        dist = np.full(total, -1, dtype=np.int64)
        queue = np.empty(total, dtype=np.int64)
        assert int(_oracle_kernel(k, mask, s, t, dist, queue)) == expected, (trial, k, s, t)
        assert (dist == -1).all()
        disconnected += expected < 0
    assert disconnected >= 20  # the dense cases were exercised
