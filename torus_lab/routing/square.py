"""Online fault-tolerant routing in a 2D torus with local m-square information (Li, Peng & Chu, ISPA 2005).

Implements Chain_Routing (Algorithm 1), Adaptive_Square_Routing (Algorithm 2), Heuristic_Square_Routing
(Section 5), a fault-free shortest-distance oracle, and one improved local-information variant of our own,
:func:`backtracking_square_routing`.  Interpretation choices: ``docs/conventions.md#square-direction`` and the entries
after it.

The paper's fault model and the checks of its theorems live here too: local ``m``-safety (Section 2,
:func:`locally_safe`, and :func:`saturated_safe_faults`, the densest fault sets it allows), connectivity of a
faulty torus (Theorem 1, :func:`torus_connected`), valid outputs (:func:`walk_is_fault_free`), the band of a
Chain leg (Algorithm 1, :func:`chain_band`) and the bounds on local routings (Theorems 2-4,
:func:`local_routing_bound`, :func:`square_starts`, :func:`step_progress`); they take a
fault grid ``grid[x0, x1]`` (True = faulty) of an ``N x N`` torus.

Notation: the paper's ``n`` is the radix; here the radix is ``k`` (``N`` in the study), the square width ``m``.
Node ids follow :mod:`torus_lab.topology`: ``id = x0 + k * x1``.

Design: every algorithm is one numba ``@njit`` kernel over flat arrays (a boolean fault mask indexed by node
id, node ids as ints).  The Python functions below only validate input and convert ids to coordinate tuples;
the batch evaluation (:func:`evaluate_batch`, used by ``torus_lab.studies.fault_tolerant``) calls the very
same kernels, so there is one implementation per algorithm.

Common machinery (all REC = default):

* direction per dimension ``d``: ``dir_d = -1`` iff ``(t_d <= r_d and r_d - t_d <= k/2)`` or
  ``(t_d > r_d and t_d - r_d > k/2)``, else ``+1`` (the garbled printed condition, read as in
  ``docs/conventions.md#square-direction``);
* the square for moving dimension ``i`` (``j`` the other) has ``m x m`` nodes
  ``v_i = c_i + a*dir_i, v_j = c_j + b*dir_j`` (``a, b = 0..m-1``); for Adaptive/Heuristic-Square
  ``c_i = b_i = r_i`` and ``c_j = b_j = r_j - dir_j`` (one row behind, ``m-2`` ahead), for Chain the band
  ``c_j`` is fixed at the start of each phase;
* local routing = BFS from ``r`` over the square's **non-faulty nodes only**, using torus links between square
  nodes (a square is a mesh unless ``m = k``, when its wraparound links are torus links and are used);
  neighbour order ``+dir_i, +dir_j, -dir_j, -dir_i`` (decides which shortest local path is returned);
* if ``t`` is in the square: success iff BFS reaches ``t``; otherwise the exits are the reachable nodes of
  the column ``v_i = t_i`` when ``t_i`` lies in the square's ``i``-range, else of the column ``v_i = B_i``;
  the exit at minimum BFS distance is taken, ties broken by smaller Lee distance to ``t``, then by the
  lexicographically smaller ``(x0, x1)``;
* the path is the concatenation of the local paths (a walk; it may revisit nodes); its length is its hop count
  (:attr:`RoutingResult.loop_erased_length` is reported as a diagnostic).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import prange
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from torus_lab._jit import njit
from torus_lab._memory import check_memory
from torus_lab._validate import check_instance, check_int, check_int_array, check_sequence, check_str, is_int
from torus_lab.topology import Faults, Mesh, Torus

__all__ = [
    "ALGORITHMS",
    "REASONS",
    "RoutingResult",
    "Square",
    "SquareStep",
    "chain_routing",
    "adaptive_square_routing",
    "heuristic_square_routing",
    "backtracking_square_routing",
    "route",
    "oracle",
    "OracleResult",
    "evaluate_batch",
    "draw_trial",
    "PAPER_ALGORITHMS",
    "locally_safe",
    "saturated_safe_faults",
    "torus_connected",
    "walk_is_fault_free",
    "local_routing_bound",
    "chain_band",
    "square_starts",
    "step_progress",
    "square_cover",
]

#: Algorithm names, in kernel-code order.
ALGORITHMS = ("chain", "adaptive_square", "heuristic_square", "backtracking_square")
_ALG_CODE = {name: code for code, name in enumerate(ALGORITHMS)}
_MIN_M = {"chain": 2, "adaptive_square": 3, "heuristic_square": 3, "backtracking_square": 3}

# kernel status codes
_OK = 0
_FAIL_TARGET = 1
_FAIL_EXIT = 2
_FAIL_CAP = 3
_FAIL_ALIGNED = 4
_FAIL_EXHAUSTED = 5
_FAIL_OVERFLOW = 6
_FAIL_BUDGET = 7

#: Failure reasons by kernel status code (0 is success).
REASONS = {
    _OK: "",
    _FAIL_TARGET: "the target lies in the current square but is not reachable inside it",
    _FAIL_EXIT: "no exit of the current square is reachable inside it",
    _FAIL_CAP: "iteration cap reached (safety cap, expected never to trigger)",
    _FAIL_ALIGNED: "local routing along the longer dimension failed and d(r_j, t_j) = 0, so no other square to try",
    _FAIL_EXHAUSTED: "backtracking search tried every reachable exit without reaching the target",
    _FAIL_OVERFLOW: "path buffer overflow (internal error)",
    _FAIL_BUDGET: "backtracking search used its budget of expanded square positions",
}

# local-routing outcome codes
_STEP_TARGET = 0
_STEP_EXIT = 1
_STEP_NO_TARGET = 2
_STEP_NO_EXIT = 3
_STEP_OVERFLOW = 4


# ---------------------------------------------------------------------------------------------- kernels
@njit
def _direction(r: int, t: int, k: int) -> int:
    """Routing direction in one dimension (Algorithms 1-2, ``docs/conventions.md#square-direction``)."""
    if t <= r:
        return -1 if 2 * (r - t) <= k else 1
    return -1 if 2 * (t - r) > k else 1


@njit
def _ring_distance(a: int, b: int, k: int) -> int:
    d = abs(a - b)
    return min(d, k - d)


@njit
def _node_id(i: int, vi: int, vj: int, k: int) -> int:
    """Node id of the node whose coordinate in dimension i is vi and in the other dimension vj."""
    if i == 0:
        return vi + k * vj
    return vj + k * vi


@njit
def _square_bfs(k, m, mask, i, ci, cj, di, dj, sb, dist, parent, queue):
    """BFS over the non-faulty nodes of the square from local (0, sb); local index a * m + b."""
    for x in range(m * m):
        dist[x] = -1
    wrap = m == k
    start = sb
    dist[start] = 0
    parent[start] = -1
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        u = queue[head]
        head += 1
        a = u // m
        b = u % m
        for step in range(4):
            na = a
            nb = b
            if step == 0:
                na = a + 1
            elif step == 1:
                nb = b + 1
            elif step == 2:
                nb = b - 1
            else:
                na = a - 1
            if na < 0 or na >= m or nb < 0 or nb >= m:
                if not wrap:
                    continue
                na = (na + m) % m
                nb = (nb + m) % m
            w = na * m + nb
            if dist[w] >= 0:
                continue
            vi = (ci + na * di + k) % k
            vj = (cj + nb * dj + k) % k
            if mask[_node_id(i, vi, vj, k)]:
                continue
            dist[w] = dist[u] + 1
            parent[w] = u
            queue[tail] = w
            tail += 1


@njit
def _append_local_path(k, m, i, ci, cj, di, dj, goal, dist, parent, path, plen):
    """Append the BFS-tree path from the square's start to local node ``goal`` (start excluded)."""
    hops = dist[goal]
    if plen + hops > path.shape[0]:
        return -1
    pos = plen + hops - 1
    x = goal
    while parent[x] >= 0:
        vi = (ci + (x // m) * di + k) % k
        vj = (cj + (x % m) * dj + k) % k
        path[pos] = _node_id(i, vi, vj, k)
        pos -= 1
        x = parent[x]
    return plen + hops


@njit
def _exit_key_less(k, d1, lee1, x1, y1, d2, lee2, x2, y2):
    """Exit preference: smaller BFS distance, then smaller Lee distance to t, then lexicographic (x0, x1)."""
    if d1 != d2:
        return d1 < d2
    if lee1 != lee2:
        return lee1 < lee2
    if x1 != x2:
        return x1 < x2
    return y1 < y2


@njit
def _square_step(k, m, mask, i, ci, cj, di, dj, sb, t0, t1, path, plen, dist, parent, queue):
    """One local routing inside a square.  Returns (outcome, new plen, node reached)."""
    _square_bfs(k, m, mask, i, ci, cj, di, dj, sb, dist, parent, queue)
    ti = t0 if i == 0 else t1
    tj = t1 if i == 0 else t0
    ta = ((ti - ci) * di + k * m) % k
    tb = ((tj - cj) * dj + k * m) % k
    if ta < m and tb < m:
        goal = ta * m + tb
        if dist[goal] < 0:
            return _STEP_NO_TARGET, plen, -1
        new = _append_local_path(k, m, i, ci, cj, di, dj, goal, dist, parent, path, plen)
        if new < 0:
            return _STEP_OVERFLOW, plen, -1
        return _STEP_TARGET, new, t0 + k * t1
    ea = ta if ta < m else m - 1
    best = -1
    bd = 0
    blee = 0
    bx = 0
    by = 0
    vi = (ci + ea * di + k) % k
    for b in range(m):
        w = ea * m + b
        if dist[w] < 0:
            continue
        vj = (cj + b * dj + k) % k
        x = vi if i == 0 else vj
        y = vj if i == 0 else vi
        lee = _ring_distance(x, t0, k) + _ring_distance(y, t1, k)
        if best < 0 or _exit_key_less(k, dist[w], lee, x, y, bd, blee, bx, by):
            best = w
            bd = dist[w]
            blee = lee
            bx = x
            by = y
    if best < 0:
        return _STEP_NO_EXIT, plen, -1
    new = _append_local_path(k, m, i, ci, cj, di, dj, best, dist, parent, path, plen)
    if new < 0:
        return _STEP_OVERFLOW, plen, -1
    return _STEP_EXIT, new, bx + k * by


@njit
def _record_square(squares, nsq, i, ci, cj, di, dj, plen):
    """Record square ``nsq`` (moving dimension, corner, directions) and the path length when its local routing
    starts."""
    if nsq < squares.shape[0]:
        squares[nsq, 0] = i
        squares[nsq, 1] = ci
        squares[nsq, 2] = cj
        squares[nsq, 3] = di
        squares[nsq, 4] = dj
        squares[nsq, 5] = plen
    return nsq + 1


@njit
def _close_square(squares, nsq, plen, path, log):
    """After the local routing of the last recorded square: its path length on leaving and, when ``log`` is not
    empty (a traced routing), a copy of its local path (the node it started from included) appended to ``log``;
    column 6 holds the path length after it, column 7 where its local path ends in ``log``.  Changes nothing the
    routing reads."""
    q = nsq - 1
    if q < 0 or q >= squares.shape[0]:
        return
    before = squares[q, 5]
    after = plen if plen > before else before
    squares[q, 6] = after
    start = squares[q - 1, 7] if q > 0 else 0
    end = start
    if log.shape[0] > 0:
        for x in range(before - 1, after):
            if end < log.shape[0]:
                log[end] = path[x]
            end += 1
    squares[q, 7] = end


@njit
def _step_failure(outcome):
    if outcome == _STEP_NO_TARGET:
        return _FAIL_TARGET
    if outcome == _STEP_NO_EXIT:
        return _FAIL_EXIT
    return _FAIL_OVERFLOW


@njit
def _chain_kernel(k, m, mask, s, t, path, squares, dist, parent, queue, log):
    """Chain_Routing (Algorithm 1): directions fixed from (s, t), band fixed per phase."""
    t0 = t % k
    t1 = t // k
    r = s
    dir0 = _direction(s % k, t0, k)
    dir1 = _direction(s // k, t1, k)
    path[0] = s
    plen = 1
    nsq = 0
    for i in range(2):
        di = dir0 if i == 0 else dir1
        dj = dir1 if i == 0 else dir0
        rj0 = r // k if i == 0 else r % k
        cj = (rj0 - dj + k) % k  # b_j, fixed for the whole phase
        ti = t0 if i == 0 else t1
        while True:
            ri = r % k if i == 0 else r // k
            if ri == ti:
                break
            rj = r // k if i == 0 else r % k
            sb = ((rj - cj) * dj + k) % k
            nsq = _record_square(squares, nsq, i, ri, cj, di, dj, plen)
            outcome, plen, r = _square_step(k, m, mask, i, ri, cj, di, dj, sb, t0, t1, path, plen, dist, parent, queue)
            _close_square(squares, nsq, plen, path, log)
            if outcome == _STEP_TARGET:
                return _OK, plen, nsq
            if outcome != _STEP_EXIT:
                return _step_failure(outcome), plen, nsq
    if r == t:
        return _OK, plen, nsq
    return _FAIL_EXIT, plen, nsq  # unreachable by construction (phase 1 always ends in "t in square")


@njit
def _oriented_step(k, m, mask, i, r, t0, t1, path, plen, squares, nsq, dist, parent, queue, log):
    """Adaptive-square local routing from r in the square arranged along dimension i."""
    r0 = r % k
    r1 = r // k
    dir0 = _direction(r0, t0, k)
    dir1 = _direction(r1, t1, k)
    di = dir0 if i == 0 else dir1
    dj = dir1 if i == 0 else dir0
    ri = r0 if i == 0 else r1
    rj = r1 if i == 0 else r0
    cj = (rj - dj + k) % k
    nsq = _record_square(squares, nsq, i, ri, cj, di, dj, plen)
    outcome, plen, nxt = _square_step(k, m, mask, i, ri, cj, di, dj, 1, t0, t1, path, plen, dist, parent, queue)
    _close_square(squares, nsq, plen, path, log)
    return outcome, plen, nxt, nsq


@njit
def _square_kernel(k, m, mask, s, t, heuristic, force_previous, cap, path, squares, dist, parent, queue, log):
    """Adaptive_Square_Routing (Algorithm 2) and, with ``heuristic``, Heuristic_Square_Routing (Section 5)."""
    t0 = t % k
    t1 = t // k
    r = s
    path[0] = s
    plen = 1
    nsq = 0
    forced = -1
    for _ in range(cap):
        if r == t:
            return _OK, plen, nsq
        d0 = _ring_distance(r % k, t0, k)
        d1 = _ring_distance(r // k, t1, k)
        i = 0 if d0 >= d1 else 1
        if forced >= 0:
            i = forced
            forced = -1
        outcome, plen, nxt, nsq = _oriented_step(k, m, mask, i, r, t0, t1, path, plen, squares, nsq, dist, parent,
                                                 queue, log)
        if outcome == _STEP_TARGET:
            return _OK, plen, nsq
        if outcome == _STEP_EXIT:
            r = nxt
            continue
        if not heuristic or outcome == _STEP_OVERFLOW:
            return _step_failure(outcome), plen, nsq
        j = 1 - i
        if (d1 if i == 0 else d0) == 0:
            return _FAIL_ALIGNED, plen, nsq
        outcome, plen, nxt, nsq = _oriented_step(k, m, mask, j, r, t0, t1, path, plen, squares, nsq, dist, parent,
                                                 queue, log)
        if outcome == _STEP_TARGET:
            return _OK, plen, nsq
        if outcome != _STEP_EXIT:
            return _step_failure(outcome), plen, nsq
        r = nxt
        if force_previous:
            forced = i
    if r == t:
        return _OK, plen, nsq
    return _FAIL_CAP, plen, nsq


@njit
def _square_frame(k, i, r, t0, t1):
    """Corner and directions (ci, cj, di, dj) of the adaptive square along i at r."""
    r0 = r % k
    r1 = r // k
    dir0 = _direction(r0, t0, k)
    dir1 = _direction(r1, t1, k)
    di = dir0 if i == 0 else dir1
    dj = dir1 if i == 0 else dir0
    ci = r0 if i == 0 else r1
    cj = ((r1 if i == 0 else r0) - dj + k) % k
    return ci, cj, di, dj


@njit
def _collect_exits(k, m, mask, i, r, t0, t1, dist, parent, queue, cand, keys, ncand):
    """BFS the adaptive square along i at r and append its reachable exits, best first, to cand.

    Returns (t reachable in this square, ncand).  keys[c] holds the BFS distance of cand[c]."""
    ci, cj, di, dj = _square_frame(k, i, r, t0, t1)
    _square_bfs(k, m, mask, i, ci, cj, di, dj, 1, dist, parent, queue)
    ti = t0 if i == 0 else t1
    tj = t1 if i == 0 else t0
    ta = ((ti - ci) * di + k * m) % k
    tb = ((tj - cj) * dj + k * m) % k
    if ta < m and tb < m:
        return dist[ta * m + tb] >= 0, ncand
    ea = ta if ta < m else m - 1
    first = ncand
    vi = (ci + ea * di + k) % k
    for b in range(m):
        w = ea * m + b
        if dist[w] < 0:
            continue
        vj = (cj + b * dj + k) % k
        x = vi if i == 0 else vj
        y = vj if i == 0 else vi
        lee = _ring_distance(x, t0, k) + _ring_distance(y, t1, k)
        pos = ncand
        while pos > first:  # insertion sort by the exit preference
            p = cand[pos - 1]
            px = p % k
            py = p // k
            plee = _ring_distance(px, t0, k) + _ring_distance(py, t1, k)
            if not _exit_key_less(k, dist[w], lee, x, y, keys[pos - 1], plee, px, py):
                break
            cand[pos] = cand[pos - 1]
            keys[pos] = keys[pos - 1]
            pos -= 1
        cand[pos] = x + k * y
        keys[pos] = dist[w]
        ncand += 1
    return False, ncand


@njit
def _route_to(k, m, mask, i, r, goal, t0, t1, path, plen, squares, nsq, dist, parent, queue, log):
    """Re-run the adaptive square along i at r and append the local path to node goal (an exit or t)."""
    ci, cj, di, dj = _square_frame(k, i, r, t0, t1)
    nsq = _record_square(squares, nsq, i, ci, cj, di, dj, plen)
    _square_bfs(k, m, mask, i, ci, cj, di, dj, 1, dist, parent, queue)
    x = goal % k
    y = goal // k
    vi = x if i == 0 else y
    vj = y if i == 0 else x
    a = ((vi - ci) * di + k * m) % k
    b = ((vj - cj) * dj + k * m) % k
    new = _append_local_path(k, m, i, ci, cj, di, dj, a * m + b, dist, parent, path, plen)
    _close_square(squares, nsq, new, path, log)
    return new, nsq


@njit
def _backtracking_kernel(k, m, mask, s, t, budget, path, squares, dist, parent, queue, seen, seen_list, frames, cand,
                         keys, log):
    """Backtracking-Square (our variant): depth-first search over squares; see backtracking_square_routing."""
    t0 = t % k
    t1 = t // k
    path[0] = s
    plen = 1
    nsq = 0
    depth = 0
    max_depth = frames.shape[0]
    # frame columns: 0 node r, 1 path length on entry, 2 number of candidates, 3 next candidate,
    # 4 index where the second square's exits start, 5 dimension of the first square
    expansions = 0
    evaluations = 0
    travelled = 0
    status = _FAIL_EXHAUSTED
    r = s
    entering = True
    nseen = 0
    while True:
        if entering:
            seen[r] = True
            seen_list[nseen] = r
            nseen += 1
            frames[depth, 0] = r
            frames[depth, 1] = plen
            expansions += 1
            d0 = _ring_distance(r % k, t0, k)
            d1 = _ring_distance(r // k, t1, k)
            i = 0 if d0 >= d1 else 1
            reached, nc = _collect_exits(k, m, mask, i, r, t0, t1, dist, parent, queue, cand[depth], keys, 0)
            evaluations += 1
            if reached:
                new, nsq = _route_to(k, m, mask, i, r, t, t0, t1, path, plen, squares, nsq, dist, parent, queue, log)
                status = _OK if new >= 0 else _FAIL_OVERFLOW
                travelled += max(new - plen, 0)
                plen = max(new, plen)
                break
            split = nc
            if (d1 if i == 0 else d0) != 0:
                reached, nc = _collect_exits(k, m, mask, 1 - i, r, t0, t1, dist, parent, queue, cand[depth], keys, nc)
                evaluations += 1
                if reached:
                    new, nsq = _route_to(k, m, mask, 1 - i, r, t, t0, t1, path, plen, squares, nsq, dist, parent,
                                         queue, log)
                    status = _OK if new >= 0 else _FAIL_OVERFLOW
                    travelled += max(new - plen, 0)
                    plen = max(new, plen)
                    break
            frames[depth, 2] = nc
            frames[depth, 3] = 0
            frames[depth, 4] = split
            frames[depth, 5] = i
            entering = False
        r = frames[depth, 0]
        plen = frames[depth, 1]
        chosen = -1
        while frames[depth, 3] < frames[depth, 2]:
            c = frames[depth, 3]
            frames[depth, 3] += 1
            if not seen[cand[depth, c]]:
                chosen = c
                break
        if chosen < 0 or depth + 1 >= max_depth:
            if depth == 0:
                break
            travelled += frames[depth, 1] - frames[depth - 1, 1]  # walk back to the previous square position
            depth -= 1
            continue
        if expansions >= budget:
            status = _FAIL_BUDGET
            break
        i = frames[depth, 5] if chosen < frames[depth, 4] else 1 - frames[depth, 5]
        goal = cand[depth, chosen]
        new, nsq = _route_to(k, m, mask, i, r, goal, t0, t1, path, plen, squares, nsq, dist, parent, queue, log)
        if new < 0:
            status = _FAIL_OVERFLOW
            break
        travelled += new - plen
        plen = new
        depth += 1
        r = goal
        entering = True
    for q in range(nseen):  # leave the shared workspace clean
        seen[seen_list[q]] = False
    return status, plen, nsq, evaluations, travelled


@njit
def _route_kernel(alg, option, k, m, mask, s, t, cap, path, squares, dist, parent, queue, seen, seen_list, frames,
                  cand, keys, log):
    """Dispatch to one algorithm kernel.

    Returns (status, path length in nodes, squares recorded, local routings evaluated, hops travelled); for the
    three paper algorithms every recorded square is one local routing and the hops travelled are the walk.  A
    non-empty ``log`` receives every recorded square's local path (:func:`_close_square`)."""
    if alg == 0:
        status, plen, nsq = _chain_kernel(k, m, mask, s, t, path, squares, dist, parent, queue, log)
        return status, plen, nsq, nsq, plen - 1
    if alg == 1:
        status, plen, nsq = _square_kernel(k, m, mask, s, t, False, False, cap, path, squares, dist, parent, queue,
                                           log)
        return status, plen, nsq, nsq, plen - 1
    if alg == 2:
        status, plen, nsq = _square_kernel(k, m, mask, s, t, True, option == 1, cap, path, squares, dist, parent,
                                           queue, log)
        return status, plen, nsq, nsq, plen - 1
    return _backtracking_kernel(k, m, mask, s, t, cap, path, squares, dist, parent, queue, seen, seen_list, frames,
                                cand, keys, log)


@njit(inline="always")
def _torus_neighbour(u, x, step, k, total):
    """Neighbour ``step`` (+x, -x, +y, -y) of node ``u = y + x`` (``x = u % k``) of the ``k x k`` torus, wrapped by
    comparison (no division)."""
    y = u - x
    if step == 0:
        return y + (x + 1 if x + 1 < k else 0)
    if step == 1:
        return y + (x - 1 if x > 0 else k - 1)
    if step == 2:
        return (y + k if y + k < total else 0) + x
    return (y - k if y >= k else total - k) + x


@njit
def _oracle_kernel(k, mask, s, t, dist, queue):
    """Shortest fault-free distance ``s -> t != s`` by a bidirectional BFS over the whole torus (-1 if disconnected).

    Two searches, from ``s`` and from ``t``, advance one whole level at a time, the one with the smaller frontier
    first; they meet in about half the nodes one search from ``s`` visits.  ``dist`` codes both: ``d >= 0`` for
    a node at distance ``d`` from ``s``, ``-2 - d`` at distance ``d`` from ``t``, -1 unvisited.  A level that
    reaches the other search ends the search with the shortest ``du + 1 + dv`` over that level (the levels before
    it met nothing, so no shorter path exists).  The search from ``s`` fills ``queue`` from the front, the one
    from ``t`` from the back.  ``dist`` must be all -1 on entry and is all -1 again on return."""
    total = k * k
    dist[s] = 0
    dist[t] = -2
    queue[0] = s
    queue[total - 1] = t
    f_head, f_tail = 0, 1  # forward level: queue[f_head:f_tail]
    b_head, b_tail = total - 1, total - 2  # backward level: queue[b_tail + 1:b_head + 1], filled downwards
    f_end, b_end = 1, total - 2  # where each search's visited nodes end (for the reset)
    best = -1
    while best < 0 and f_tail > f_head and b_head > b_tail:
        forward = f_tail - f_head <= b_head - b_tail
        if forward:
            start, stop = f_head, f_tail
        else:
            start, stop = b_tail + 1, b_head + 1
        grown = 0
        for q in range(start, stop):
            u = queue[q]
            x = u % k  # the one division per visited node
            du = dist[u] if forward else -2 - dist[u]
            for step in range(4):
                v = _torus_neighbour(u, x, step, k, total)
                if mask[v]:
                    continue
                dv = dist[v]
                if dv == -1:
                    if forward:
                        dist[v] = du + 1
                        queue[f_tail + grown] = v
                    else:
                        dist[v] = -2 - (du + 1)
                        queue[b_tail - grown] = v
                    grown += 1
                elif (dv >= 0) != forward:  # reached by the other search
                    length = du + 1 + (dv if dv >= 0 else -2 - dv)
                    if best < 0 or length < best:
                        best = length
        if forward:
            f_head, f_tail = f_tail, f_tail + grown
            f_end = f_tail
        else:
            b_head, b_tail = b_tail, b_tail - grown
            b_end = b_tail
    for q in range(f_end):
        dist[queue[q]] = -1
    for q in range(b_end + 1, total):
        dist[queue[q]] = -1
    return best


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TWO_M53 = 1.0 / 9007199254740992.0


@njit
def _splitmix(state):
    """SplitMix64: returns (new state, 64-bit output)."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return state, z ^ (z >> np.uint64(31))


@njit
def _draw_trial(k, n_faults, seed, perm, swaps, mask):
    """One trial: n_faults uniform faulty nodes and a uniform pair of distinct non-faulty nodes (s, t).

    A partial Fisher-Yates shuffle of ``perm`` (the identity on entry and on return) driven by SplitMix64
    from ``seed``: the first n_faults entries are the faults, the next two are s and t.  Sets ``mask``.
    Returns (s, t)."""
    total = k * k
    state = np.uint64(seed)
    for p in range(n_faults + 2):
        state, z = _splitmix(state)
        j = p + int(float(z >> np.uint64(11)) * _TWO_M53 * (total - p))
        swaps[p] = j
        tmp = perm[p]
        perm[p] = perm[j]
        perm[j] = tmp
    for p in range(n_faults):
        mask[perm[p]] = True
    s = perm[n_faults]
    t = perm[n_faults + 1]
    for p in range(n_faults + 1, -1, -1):  # undo the swaps: perm is the identity again
        j = swaps[p]
        tmp = perm[p]
        perm[p] = perm[j]
        perm[j] = tmp
    return s, t


def _check_fault_count(fault_count: object, k: int) -> int:
    """``fault_count`` as an int in ``0..k*k - 2`` (the source and target stay fault-free)."""
    fault_count = check_int("fault_count", fault_count)
    if not 0 <= fault_count <= k * k - 2:
        raise ValueError(f"fault_count must be in 0..{k * k - 2}, got {fault_count} (at most k * k - 2 for k = {k})")
    return fault_count


def _workspace_bytes(k: int, m: int, cap: int) -> int:
    """Bytes of :func:`_new_workspace` plus a fault mask and a fault draw over the ``k x k`` nodes."""
    words = cap * m * m + 2 + (2 * cap + 2) * 8 + 3 * m * m + (cap + 1) * (7 + 2 * m) + 2 * m
    return 8 * words + 10 * k * k


def _check_workspace(k: int, m: int, cap: int, copies: int = 1) -> None:
    """MemoryLimitError before a routing workspace (``copies`` of them) would exceed the memory limit."""
    check_memory(copies * _workspace_bytes(k, m, cap), f"square routing on a {k} x {k} torus (m = {m}, cap = {cap})")


@njit
def _new_workspace(k, m, cap):
    path = np.empty(cap * m * m + 2, dtype=np.int64)
    squares = np.empty((2 * cap + 2, 8), dtype=np.int64)
    dist = np.empty(m * m, dtype=np.int64)
    parent = np.empty(m * m, dtype=np.int64)
    queue = np.empty(m * m, dtype=np.int64)
    seen = np.zeros(k * k, dtype=np.bool_)
    seen_list = np.empty(cap + 1, dtype=np.int64)
    frames = np.empty((cap + 1, 6), dtype=np.int64)
    cand = np.empty((cap + 1, 2 * m), dtype=np.int64)
    keys = np.empty(2 * m, dtype=np.int64)
    return path, squares, dist, parent, queue, seen, seen_list, frames, cand, keys


@njit
def _batch_block(k, m, n_faults, seeds, algs, options, cap, lo, hi, with_oracle, status, length, evaluations,
                 travelled, lee, oracle_dist):
    """Trials ``lo..hi-1`` of a batch, with one workspace."""
    nalg = algs.shape[0]
    path, squares, dist, parent, queue, seen, seen_list, frames, cand, keys = _new_workspace(k, m, cap)
    perm = np.arange(k * k)
    swaps = np.empty(n_faults + 2, dtype=np.int64)
    mask = np.zeros(k * k, dtype=np.bool_)
    no_log = np.empty(0, dtype=np.int64)
    big_dist = np.full(k * k, -1, dtype=np.int64)
    big_queue = np.empty(k * k, dtype=np.int64)
    for tr in range(lo, hi):
        s, t = _draw_trial(k, n_faults, seeds[tr], perm, swaps, mask)
        lee[tr] = _ring_distance(s % k, t % k, k) + _ring_distance(s // k, t // k, k)
        oracle_dist[tr] = _oracle_kernel(k, mask, s, t, big_dist, big_queue) if with_oracle else -2
        for a in range(nalg):
            st, plen, nsq, evals, hops = _route_kernel(algs[a], options[a], k, m, mask, s, t, cap, path, squares,
                                                       dist, parent, queue, seen, seen_list, frames, cand, keys,
                                                       no_log)
            status[tr, a] = st
            length[tr, a] = plen - 1 if st == 0 else -1
            evaluations[tr, a] = evals
            travelled[tr, a] = hops
        mask[:] = False


@njit(parallel=True)
def _batch_kernel(k, m, n_faults, seeds, algs, options, cap, n_blocks, with_oracle, status, length, evaluations,
                  travelled, lee, oracle_dist):
    trials = seeds.shape[0]
    for blk in prange(n_blocks):
        _batch_block(k, m, n_faults, seeds, algs, options, cap, blk * trials // n_blocks,
                     (blk + 1) * trials // n_blocks, with_oracle, status, length, evaluations, travelled, lee,
                     oracle_dist)


@njit
def _batch_kernel_serial(k, m, n_faults, seeds, algs, options, cap, n_blocks, with_oracle, status, length,
                         evaluations, travelled, lee, oracle_dist):
    """:func:`_batch_kernel` on the calling thread only: never starts numba's threading layer."""
    _batch_block(k, m, n_faults, seeds, algs, options, cap, 0, seeds.shape[0], with_oracle, status, length,
                 evaluations, travelled, lee, oracle_dist)


# ---------------------------------------------------------------------------------------------- Python API
@dataclass(frozen=True)
class Square:
    """One m-square used by a local routing.

    ``corner`` is the local origin ``(a, b) = (0, 0)`` and ``far_corner`` the node ``(m-1, m-1)``; for the
    square algorithms they are the paper's ``b`` and ``B``.  ``dim`` is the moving dimension ``i`` and
    ``directions`` = ``(dir_i, dir_j)``.
    """

    dim: int
    corner: tuple[int, int]
    far_corner: tuple[int, int]
    directions: tuple[int, int]
    m: int

    def nodes(self, k: int) -> list[tuple[int, int]]:
        """The ``m * m`` nodes of the square (coordinate tuples) in a ``k x k`` torus."""
        i = self.dim
        di, dj = self.directions
        ci, cj = self.corner[i], self.corner[1 - i]
        out = []
        for a in range(self.m):
            for b in range(self.m):
                vi, vj = (ci + a * di) % k, (cj + b * dj) % k
                out.append((vi, vj) if i == 0 else (vj, vi))
        return out


@dataclass(frozen=True)
class SquareStep:
    """One local routing of a traced routing (``route(..., trace=True)``): a square and what it did.

    Attributes
    ----------
    square : Square
        The square of this local routing.
    start : (x0, x1)
        The node the message stood on when the local routing began (a node of ``square``).
    local_path : tuple of (x0, x1)
        The BFS path inside the square from ``start`` to the exit (or to the target), ``start`` included; just
        ``(start,)`` when the local routing found no way.
    walk : tuple of (x0, x1)
        The message's path from the source after this step: the walk so far for the paper's algorithms; for
        Backtracking-Square the path of its search stack (a branch it backtracked from is no longer in it).
    backtracked : bool
        Backtracking-Square: the message walked back along its stack before this step.
    """

    square: Square
    start: tuple[int, int]
    local_path: tuple[tuple[int, int], ...]
    walk: tuple[tuple[int, int], ...]
    backtracked: bool = False

    @property
    def moved(self) -> bool:
        """Whether the local routing moved the message (found an exit or the target)."""
        return len(self.local_path) > 1


@dataclass(frozen=True)
class RoutingResult:
    """Outcome of one routing.

    Attributes
    ----------
    algorithm : str
    success : bool
    path : list of (x0, x1) or None
        The fault-free walk from source to target (concatenated local paths), None on failure.
    reason : str
        Why the routing failed ("" on success).
    walked : list of (x0, x1)
        The walk built before stopping (equals ``path`` on success).
    squares : tuple of Square
        The squares through which the walk was built, in order (for Backtracking-Square also those of
        abandoned branches).
    local_routings : int
        Number of local routings (square BFS evaluations); for Backtracking-Square this includes the squares of
        abandoned branches.
    travelled : int
        Hops the message moved, including walking back along abandoned branches (Backtracking-Square only);
        for the other algorithms the hop count of ``walked``.
    trace : tuple of SquareStep or None
        One record per square, in order (``route(..., trace=True)``; None otherwise).  Not compared: a traced
        result equals the untraced one.
    """

    algorithm: str
    success: bool
    path: list[tuple[int, int]] | None
    reason: str
    walked: list[tuple[int, int]] = field(repr=False)
    squares: tuple[Square, ...] = field(repr=False)
    local_routings: int = field(default=0, repr=False)
    travelled: int = field(default=0, repr=False)
    trace: tuple[SquareStep, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def length(self) -> int | None:
        """Hop count of ``path`` (None on failure)."""
        return None if self.path is None else len(self.path) - 1

    @property
    def loop_erased_length(self) -> int | None:
        """Hop count of ``path`` after chronological loop erasure (a diagnostic; None on failure)."""
        if self.path is None:
            return None
        stack: list[tuple[int, int]] = []
        position: dict[tuple[int, int], int] = {}
        for v in self.path:
            if v in position:
                cut = position[v]
                for u in stack[cut + 1 :]:
                    del position[u]
                del stack[cut + 1 :]
            else:
                position[v] = len(stack)
                stack.append(v)
        return len(stack) - 1


@dataclass(frozen=True)
class OracleResult:
    """Whether source and target are connected in the faulty torus, and their fault-free distance."""

    connected: bool
    distance: int | None


def _check_torus(torus: object) -> int:
    if not isinstance(torus, Torus):
        raise TypeError(f"torus must be a torus_lab.topology.Torus, got {torus!r}")
    if isinstance(torus, Mesh) or not torus.wraparound:
        raise ValueError(f"a 2D torus is required, got a mesh {torus!r}")
    if torus.n != 2:
        raise ValueError(f"a 2D torus is required, got {torus.n} dimensions ({torus!r})")
    if not torus.bidirectional:
        raise ValueError(f"a bidirectional torus is required, got {torus!r}")
    if torus.radices[0] != torus.radices[1]:
        raise ValueError(f"a square k x k torus is required, got radices {torus.radices!r}")
    return torus.radices[0]


def _fault_mask(torus: Torus, faults: object) -> np.ndarray:
    k = torus.radices[0]
    if isinstance(faults, Faults):
        if faults.links:
            raise ValueError(f"only node faults are supported (Li, Peng & Chu), got {len(faults.links)} faulty links")
        return faults.validate(torus).node_mask(torus)
    if isinstance(faults, np.ndarray):
        if faults.dtype != np.bool_:
            raise TypeError(f"faults as a mask must be a boolean array, got dtype {faults.dtype}")
        if faults.shape == (k * k,):
            return faults.copy()
        if faults.shape == (k, k):  # mask[x0, x1]
            return np.ascontiguousarray(faults.T).reshape(-1).copy()
        raise ValueError(f"faults as a mask must have shape ({k * k},) (by node id) or ({k}, {k}) (mask[x0, x1]), "
                         f"got {faults.shape}")
    if isinstance(faults, (set, frozenset, list, tuple)):
        mask = np.zeros(k * k, dtype=bool)
        for node in faults:
            mask[torus.node_id(torus.check_node(node, "faults: faulty node"))] = True
        return mask
    raise TypeError(f"faults must be a Faults, a set of nodes or a boolean mask, got {type(faults).__name__}")


def _check_m(m: object, k: int, algorithm: str) -> int:
    minimum = _MIN_M[algorithm]
    if not is_int(m):
        raise TypeError(f"m must be an int, got {m!r}")
    if not minimum <= m <= k:
        raise ValueError(f"m = {m} out of range for {algorithm}: need {minimum} <= m <= k = {k}")
    return int(m)


def _default_cap(k: int) -> int:
    return 4 * k


def route(
    algorithm: str,
    torus: Torus,
    faults: Faults | Iterable | np.ndarray,
    source: Iterable[int],
    target: Iterable[int],
    m: int,
    *,
    after_fallback: str = "max",
    cap: int | None = None,
    trace: bool = False,
) -> RoutingResult:
    """Route with one of :data:`ALGORITHMS` (the functions below are thin wrappers of this one).

    Parameters
    ----------
    algorithm : {"chain", "adaptive_square", "heuristic_square", "backtracking_square"}
    torus, faults, source, target, m
        As in :func:`chain_routing`.
    after_fallback : {"max", "previous"}
        Heuristic-Square only (REC / ALT), see :func:`heuristic_square_routing`.
    cap : int, optional
        Iteration cap (default ``4k``); the expansion budget of Backtracking-Square.
    trace : bool
        Also record every local routing, in order (``RoutingResult.trace``, one :class:`SquareStep` per
        square): what the square explorer steps through.  The kernel runs the same steps either way; a traced
        result equals the untraced one.

    Examples
    --------
    >>> route("chain", Torus(2, 8), set(), (0, 0), (3, 2), 3).length
    5
    >>> steps = route("adaptive_square", Torus(2, 8), set(), (0, 0), (4, 1), 3, trace=True).trace
    >>> [(step.start, step.local_path[-1]) for step in steps]
    [((0, 0), (2, 0)), ((2, 0), (4, 1))]
    """
    check_str("algorithm", algorithm, ALGORITHMS)
    check_str("after_fallback", after_fallback, ("max", "previous"))
    k = _check_torus(torus)
    m = _check_m(m, k, algorithm)
    mask = _fault_mask(torus, faults)
    s = torus.check_node(source, "source")
    t = torus.check_node(target, "target")
    if s == t:
        raise ValueError(f"source and target must differ, both are {s}")
    s_id, t_id = int(torus.node_id(s)), int(torus.node_id(t))
    if mask[s_id]:
        raise ValueError(f"source {s} is faulty")
    if mask[t_id]:
        raise ValueError(f"target {t} is faulty")
    if cap is None:
        cap = _default_cap(k)
    elif not is_int(cap) or cap < 1:
        raise ValueError(f"cap must be a positive int, got {cap!r}")
    check_instance("trace", trace, bool, "a bool")
    _check_workspace(k, m, int(cap))
    workspace = _new_workspace(k, m, int(cap))
    log_size = workspace[1].shape[0] * m * m if trace else 0  # every recorded square's local path fits
    check_memory(8 * log_size, f"the trace of a square routing on a {k} x {k} torus (m = {m})")
    log = np.empty(log_size, dtype=np.int64)
    status, plen, nsq, evaluations, travelled = _route_kernel(
        _ALG_CODE[algorithm], int(after_fallback == "previous"), k, m, mask, s_id, t_id, int(cap), *workspace, log)
    path_ids, squares = workspace[0], workspace[1][: min(nsq, workspace[1].shape[0])]
    walked = [(int(v % k), int(v // k)) for v in path_ids[: max(plen, 1)]]
    used = tuple(_square_of(row, k, m) for row in squares)
    steps = _trace_steps(used, squares, log, k) if trace else None
    ok = status == _OK
    return RoutingResult(algorithm, ok, walked if ok else None, REASONS[int(status)], walked, used,
                         int(evaluations), int(travelled), steps)


def _square_of(row: np.ndarray, k: int, m: int) -> Square:
    """The :class:`Square` of one row of the kernel's square record."""
    i, ci, cj, di, dj = (int(x) for x in row[:5])
    fi, fj = (ci + (m - 1) * di) % k, (cj + (m - 1) * dj) % k
    corner = (ci, cj) if i == 0 else (cj, ci)
    far = (fi, fj) if i == 0 else (fj, fi)
    return Square(i, corner, far, (di, dj), m)


def _trace_steps(squares: tuple[Square, ...], rows: np.ndarray, log: np.ndarray, k: int) -> tuple[SquareStep, ...]:
    """The :class:`SquareStep` records of a traced routing: each square's local path is its slice of ``log``
    (columns 5-7 of ``rows``: path length on entry and on leaving, end of its slice), and the message's path
    after each step is the path before it (cut to its length on entry: a backtrack) followed by that local path."""
    steps, walk, start = [], [], 0
    for square, row in zip(squares, rows, strict=True):
        before, end = int(row[5]), int(row[7])
        local = tuple((int(v % k), int(v // k)) for v in log[start:end])
        start = end
        backtracked = len(walk) > before
        walk = walk[:before] if walk else [local[0]]
        walk.extend(local[1:])
        steps.append(SquareStep(square, local[0], local, tuple(walk), backtracked))
    return tuple(steps)


def chain_routing(torus: Torus, faults, source, target, m: int, *, trace: bool = False) -> RoutingResult:
    """Chain_Routing (Li, Peng & Chu, Section 3, Algorithm 1 -- printed as "Channel_Routing").

    Parameters
    ----------
    torus : Torus
        A 2D ``k x k`` bidirectional torus (the paper's ``n`` is ``k``).
    faults : Faults, set of (x0, x1) or boolean mask
        Faulty nodes.  A mask has shape ``(k*k,)`` indexed by node id or ``(k, k)`` indexed ``mask[x0, x1]``.
    source, target : (x0, x1)
        Distinct non-faulty nodes.
    m : int
        Square width, ``2 <= m <= k``.
    trace : bool
        Also record every local routing (``RoutingResult.trace``; see :func:`route`).

    Returns
    -------
    RoutingResult

    Raises
    ------
    TypeError, ValueError
        For a topology that is not a square 2D torus, m out of range, a faulty or equal source/target,
        link faults.

    Notes
    -----
    Interpretation (``docs/conventions.md#chain``): ``dir_0, dir_1`` are computed once from ``(s, t)``; phase ``i = 0``
    then ``i = 1``; in each phase the band in dimension ``j`` is fixed at ``[r_j - dir_j, r_j + (m-2) dir_j]``
    with ``r`` the node where the phase starts (this realises the paper's "d(v_1, t_1) <= d(s_1, t_1) + 1");
    the squares are ``[r_i, r_i + (m-1) dir_i] x band``; "r_1 in the segment bounded by b_0 and B_0" is read
    as ``b_1, B_1``.  Theorem 1's symmetric chain (``+-m/2``) is not used.  Local routing and exits as in the
    module docstring.  Failure as soon as one local routing fails.

    Examples
    --------
    >>> t = Torus(2, 8)
    >>> r = chain_routing(t, {(1, 0), (1, 1)}, (0, 0), (3, 0), 3)
    >>> r.success, r.path[0], r.path[-1], r.length
    (True, (0, 0), (3, 0), 5)
    """
    return route("chain", torus, faults, source, target, m, trace=trace)


def adaptive_square_routing(torus: Torus, faults, source, target, m: int, *, trace: bool = False) -> RoutingResult:
    """Adaptive_Square_Routing (Li, Peng & Chu, Section 4, Algorithm 2).

    Parameters and exceptions as :func:`chain_routing`, with ``3 <= m <= k``.

    Notes
    -----
    Interpretation (``docs/conventions.md#adaptive-square``): every iteration recomputes ``dir_0, dir_1`` from
    ``(r, t)`` and picks ``i`` = the dimension with the larger ring distance ``d(r_i, t_i)`` (tie: dimension 0); the
    square is ``b = (r_i, r_j - dir_j)``, ``B = (r_i + (m-1) dir_i, r_j + (m-2) dir_j)``; if ``t`` is in it the routing
    succeeds iff BFS reaches ``t``, else it moves to the preferred reachable exit or fails.  A safety cap of
    ``4k`` iterations (never reached in our runs: Theorem 3 gives progress >= m - 2 per step).

    Examples
    --------
    >>> r = adaptive_square_routing(Torus(2, 8), {(1, 0)}, (0, 0), (4, 3), 3)
    >>> r.success, r.length
    (True, 7)
    """
    return route("adaptive_square", torus, faults, source, target, m, trace=trace)


def heuristic_square_routing(
    torus: Torus, faults, source, target, m: int, *, after_fallback: str = "max", trace: bool = False
) -> RoutingResult:
    """Heuristic_Square_Routing (Li, Peng & Chu, Section 5; prose only in the paper).

    Parameters and exceptions as :func:`adaptive_square_routing`, plus

    after_fallback : {"max", "previous"}
        REC ``"max"``: after a successful step along the other dimension ``j`` the next step re-evaluates
        ``i`` as the longer dimension; ALT ``"previous"``: it is forced back to the previous ``i`` (the
        paper's "arranged along dimension i again" read literally).

    Notes
    -----
    Interpretation (``docs/conventions.md#heuristic-square``): as Adaptive-Square, but when the local routing in the
    square along ``i`` fails (no reachable exit, or ``t`` in the square but unreachable) and ``d(r_j, t_j) != 0``, a
    square along ``j`` is tried (``b_j = r_j, B_j = r_j + (m-1) dir_j, b_i = r_i - dir_i, B_i = r_i + (m-2) dir_i``)
    with exit column ``v_j = t_j`` when ``d(r_j, t_j) < m - 1`` -- which coincides with the generic rule
    "``t_j`` in the square's ``j``-range", since ``d = m - 1`` puts ``t_j`` on ``B_j`` -- else ``v_j = B_j``,
    and ``t`` in the square means BFS to ``t``.  If that fails too, or ``d(r_j, t_j) = 0``, the routing fails.
    Safety cap ``4k`` iterations.

    Examples
    --------
    >>> faults = {(1, 0), (1, 1), (1, 7), (2, 1), (2, 7)}   # walls off the east side of (0, 0)
    >>> adaptive_square_routing(Torus(2, 8), faults, (0, 0), (3, 1), 3).success
    False
    >>> heuristic_square_routing(Torus(2, 8), faults, (0, 0), (3, 1), 3).success
    True
    """
    return route("heuristic_square", torus, faults, source, target, m, after_fallback=after_fallback, trace=trace)


def backtracking_square_routing(torus: Torus, faults, source, target, m: int, *, budget: int | None = None,
                                trace: bool = False) -> RoutingResult:
    """Backtracking-Square routing: our improved local-information variant (not in the paper).

    Parameters and exceptions as :func:`adaptive_square_routing`, plus

    budget : int, optional
        Most squares positions expanded (default ``4k``, the other algorithms' iteration cap).

    Notes
    -----
    Same information model as Heuristic-Square: at every node ``r`` where the message stands it sees only the
    fault status of the two adaptive squares anchored at ``r`` (along the longer dimension ``i`` and along
    ``j``); in addition the message carries its own history (the stack of nodes it came through and the set
    of nodes it has expanded), as in depth-first-search routing.  At ``r``: if ``t`` is in one of the two
    squares and reachable, go there; otherwise the candidates are **all** reachable exits of the ``i``-square
    (best first by the exit preference), then those of the ``j``-square (only if ``d(r_j, t_j) != 0``).  The
    message moves to the first candidate not yet expanded; when a node has no candidate left, the message
    backtracks to the previous node and tries its next candidate.  The returned path is the concatenation of
    the local paths on the final stack (a fault-free walk; abandoned branches are not part of it).  Heuristic
    -Square is the special case that tries only the first candidate of each square and never backtracks.
    Fails when the whole search is exhausted or ``budget`` expansions are used.

    Examples
    --------
    >>> faults = {(1, 0), (1, 1), (1, 7), (2, 1), (2, 7)}
    >>> backtracking_square_routing(Torus(2, 8), faults, (0, 0), (3, 1), 3).success
    True
    """
    if budget is not None:
        budget = check_int("budget", budget, minimum=1)
    return route("backtracking_square", torus, faults, source, target, m, cap=budget, trace=trace)


def oracle(torus: Torus, faults, source, target) -> OracleResult:
    """Whether ``source`` and ``target`` are connected in the faulty torus, and their shortest distance.

    Global BFS (not a local algorithm): every local algorithm's success implies ``connected`` and its path is
    never shorter than ``distance``.

    Examples
    --------
    >>> oracle(Torus(2, 5), {(1, 0), (0, 1), (4, 0), (0, 4)}, (0, 0), (2, 2))
    OracleResult(connected=False, distance=None)
    >>> oracle(Torus(2, 5), {(1, 0)}, (0, 0), (2, 0))
    OracleResult(connected=True, distance=3)
    """
    k = _check_torus(torus)
    mask = _fault_mask(torus, faults)
    s = torus.check_node(source, "source")
    t = torus.check_node(target, "target")
    s_id, t_id = int(torus.node_id(s)), int(torus.node_id(t))
    if mask[s_id]:
        raise ValueError(f"source {s} is faulty")
    if mask[t_id]:
        raise ValueError(f"target {t} is faulty")
    if s_id == t_id:
        return OracleResult(True, 0)
    dist = np.full(k * k, -1, dtype=np.int64)
    queue = np.empty(k * k, dtype=np.int64)
    d = int(_oracle_kernel(k, mask, s_id, t_id, dist, queue))
    return OracleResult(d >= 0, d if d >= 0 else None)


def draw_trial(k: int, fault_count: int, seed: int) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    """The fault mask (by node id), source and target of one trial, exactly as :func:`evaluate_batch` draws it.

    Examples
    --------
    >>> mask, s, t = draw_trial(16, 64, 12345)
    >>> int(mask.sum()), bool(mask[s[0] + 16 * s[1]]), s != t
    (64, False, True)
    """
    k = check_int("k", k, 2)
    fault_count = _check_fault_count(fault_count, k)
    seed = check_int("seed", seed, 0, 2**64 - 1)
    check_memory(10 * k * k, f"a fault draw on a {k} x {k} torus")
    mask = np.zeros(k * k, dtype=bool)
    s, t = _draw_trial(k, fault_count, np.uint64(seed), np.arange(k * k), np.empty(fault_count + 2, np.int64),
                       mask)
    return mask, (int(s % k), int(s // k)), (int(t % k), int(t // k))


def _check_algorithms(algorithms: object, m: object, k: int) -> tuple[str, ...]:
    """``algorithms`` of :func:`evaluate_batch` as a tuple of names from :data:`ALGORITHMS`, ``m`` checked for
    each (:func:`route`'s range of the square width).

    Examples
    --------
    >>> _check_algorithms(["chain", "adaptive_square"], 3, 16)
    ('chain', 'adaptive_square')
    """
    if isinstance(algorithms, (str, bytes)):
        raise TypeError(f"algorithms must be a sequence of names from {ALGORITHMS}, got {algorithms!r}")
    algorithms = tuple(check_sequence("algorithms", algorithms))
    for name in algorithms:
        if not isinstance(name, str) or name not in _ALG_CODE:
            raise ValueError(f"unknown algorithm {name!r} in algorithms; choose from {ALGORITHMS}")
        _check_m(m, k, name)
    return algorithms


def evaluate_batch(
    k: int,
    m: int,
    fault_count: int,
    seeds: np.ndarray,
    algorithms: tuple[str, ...] = ALGORITHMS,
    *,
    after_fallback: str = "max",
    with_oracle: bool = True,
    n_blocks: int = 32,
    parallel: bool = True,
) -> dict[str, np.ndarray]:
    """Run every algorithm and the oracle on the same random trials, in parallel (numba ``prange``).

    Trial ``q`` uses :func:`draw_trial` with ``seeds[q]`` (a uint64, e.g. from a ``SeedSequence``): the same
    fault set and ``(s, t)`` pair for every algorithm.  Results do not depend on the number of threads.

    ``parallel=False`` runs the trials on the calling thread with a kernel compiled without ``prange``: same
    results, and numba's threading layer is never started.  Use it in worker processes of a parallel sweep
    (one process per core already; and the GNU OpenMP layer cannot be used in a process forked from one that
    has used it).

    Parameters
    ----------
    k : int
        Radix of the ``k x k`` torus, ``k >= m``.
    m : int
        Square width (range per algorithm as in :func:`route`).
    fault_count : int
        Faulty nodes per trial, ``0..k*k - 2``.
    seeds : 1-D array of int
        One seed per trial, each in ``0..2**64 - 1`` (negative or non-integer seeds are refused, not wrapped).
    algorithms : sequence of str
        Names from :data:`ALGORITHMS`.
    after_fallback, with_oracle, n_blocks
        Heuristic-Square's rule (see :func:`route`), whether to run the global BFS, parallel blocks (``>= 1``).
    parallel : bool
        Run the trials over numba threads (default) or on the calling thread.

    Returns
    -------
    dict with ``status`` (trials x algorithms, 0 = success, else a key of :data:`REASONS`), ``length``
    (hops, -1 on failure), ``local_routings`` (square BFS evaluations), ``travelled`` (hops the message moved,
    including walking back when backtracking), ``lee`` (Lee distance of s, t) and ``oracle`` (fault-free
    distance, -1 if disconnected; -2 everywhere when ``with_oracle=False`` skips the global BFS).

    Examples
    --------
    >>> out = evaluate_batch(16, 3, 25, np.arange(4, dtype=np.uint64), ("chain", "adaptive_square"))
    >>> out["status"].shape, bool((out["oracle"] >= out["lee"]).all())
    ((4, 2), True)
    """
    k = check_int("k", k, 2)
    algorithms = _check_algorithms(algorithms, m, k)
    m = check_int("m", m, 2, k)
    fault_count = _check_fault_count(fault_count, k)
    check_str("after_fallback", after_fallback, ("max", "previous"))
    if not isinstance(with_oracle, (bool, np.bool_)):
        raise TypeError(f"with_oracle must be a bool, got {with_oracle!r}")
    n_blocks = check_int("n_blocks", n_blocks, 1)
    seeds = np.ascontiguousarray(check_int_array("seeds", seeds, 0, 2**64 - 1, ndim=1), dtype=np.uint64)
    trials = seeds.shape[0]
    algs = np.array([_ALG_CODE[a] for a in algorithms], dtype=np.int64)
    options = np.full(len(algorithms), int(after_fallback == "previous"), dtype=np.int64)
    status = np.empty((trials, len(algorithms)), dtype=np.int8)
    length = np.empty((trials, len(algorithms)), dtype=np.int32)
    evaluations = np.empty((trials, len(algorithms)), dtype=np.int32)
    travelled = np.empty((trials, len(algorithms)), dtype=np.int32)
    lee = np.empty(trials, dtype=np.int32)
    oracle_dist = np.empty(trials, dtype=np.int32)
    if not isinstance(parallel, (bool, np.bool_)):
        raise TypeError(f"parallel must be a bool, got {parallel!r}")
    blocks = max(1, min(n_blocks, trials))
    _check_workspace(k, m, _default_cap(k), blocks)
    kernel = _batch_kernel if parallel else _batch_kernel_serial
    kernel(k, m, fault_count, seeds, algs, options, _default_cap(k), blocks, bool(with_oracle),
           status, length, evaluations, travelled, lee, oracle_dist)
    return {"status": status, "length": length, "local_routings": evaluations, "travelled": travelled, "lee": lee,
            "oracle": oracle_dist}

# ---------------------------------------------------------------------------------------------- fault models, checks
#: The paper's algorithms (Theorems 2-4 and the locally-safe check); Backtracking-Square is ours.
PAPER_ALGORITHMS = ALGORITHMS[:3]


def _check_pair(name: str, pair: object) -> tuple[int, int]:
    """A node ``(x0, x1)``: two ints."""
    items = check_sequence(name, pair)
    if len(items) != 2:
        raise ValueError(f"{name} must hold pairs of two ints, got {pair!r}")
    return check_int(name, items[0]), check_int(name, items[1])


def _check_grid(grid: object) -> np.ndarray:
    """A square boolean fault grid ``grid[x0, x1]`` (True = faulty) of an ``N x N`` torus, ``N >= 2``."""
    array = np.asarray(check_instance("grid", grid, np.ndarray, "a boolean numpy array"))
    if array.dtype != np.bool_ or array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 2:
        raise ValueError(f"grid must be a square boolean N x N array with N >= 2, got dtype {array.dtype} and shape "
                         f"{array.shape}")  # fmt: skip
    return array


#: Mesh links of a 2-D window: :func:`scipy.ndimage.label`'s default structure, made once (not at every call).
_MESH_LINKS = ndimage.generate_binary_structure(2, 1)


def _window_connected(window: np.ndarray) -> bool:
    """The non-faulty nodes of ``window`` (a boolean fault array, mesh links) form one connected piece."""
    _, pieces = ndimage.label(~window, _MESH_LINKS)
    return pieces <= 1


def locally_safe(grid: np.ndarray, m: int, around: tuple[int, int] | None = None) -> bool:
    """Whether a 2D torus is locally-``m``-safe (Li, Peng & Chu, Section 2).

    Both conditions of the paper, for every ``m``-square (an ``m x m`` window of the torus, wrapping around, with
    its mesh links): (1) its non-faulty nodes form a connected subgraph, and (2) each of its four boundary line
    segments (``m`` consecutive nodes of a row or a column) has a non-faulty node, i.e. no ``m`` consecutive faulty
    nodes in any row or column.  With ``around = (x0, x1)`` only the squares and segments that contain that node
    are checked (the others are unchanged when only that node's state changed).

    Parameters
    ----------
    grid : ndarray of bool, shape (N, N)
        ``grid[x0, x1]`` is True for a faulty node.
    m : int
        Square width, ``2 <= m < N``.
    around : (int, int), optional
        Check only around this node.

    Examples
    --------
    >>> grid = np.zeros((6, 6), dtype=bool)
    >>> grid[[1, 3, 2, 2], [2, 2, 1, 3]] = True   # (2, 2) is cut off by its four faulty neighbours
    >>> locally_safe(grid, 3), locally_safe(np.zeros((6, 6), dtype=bool), 3)
    (False, True)
    >>> grid = np.zeros((6, 6), dtype=bool)
    >>> grid[0, :3] = True                        # three consecutive faults in a line: condition 2 fails for m = 3
    >>> locally_safe(grid, 3), locally_safe(grid, 4)
    (False, True)
    """
    grid = _check_grid(grid)
    radix = grid.shape[0]
    m = check_int("m", m, 2, radix - 1)
    if around is not None:
        x0, x1 = (check_int("around", v, 0, radix - 1) for v in _check_pair("around", around))
        offsets = np.arange(-(m - 1), m)
        lines = [grid[(x0 + offsets) % radix, x1], grid[x0, (x1 + offsets) % radix]]
        if any(np.convolve(line, np.ones(m, dtype=int), "valid").max() == m for line in lines):
            return False
        starts = [((x0 - a) % radix, (x1 - b) % radix) for a in range(m) for b in range(m)]
    else:
        for axis in (0, 1):
            if (sum(np.roll(grid, -q, axis=axis).astype(int) for q in range(m)) == m).any():
                return False
        starts = [(a, b) for a in range(radix) for b in range(radix)]
    wrapped = np.pad(grid, (0, m - 1), mode="wrap")
    return all(_window_connected(wrapped[a:a + m, b:b + m]) for a, b in starts)


def saturated_safe_faults(radix: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """A maximal random locally-``m``-safe fault set: the nodes in random order, each made faulty unless that
    breaks local ``m``-safety (:func:`locally_safe`); the densest fault sets Theorem 1 allows along that order.

    Examples
    --------
    >>> grid = saturated_safe_faults(8, 3, np.random.default_rng(1))
    >>> locally_safe(grid, 3), 0 < int(grid.sum()) < 64
    (True, True)
    """
    radix = check_int("radix", radix, 3)
    m = check_int("m", m, 2, radix - 1)
    check_instance("rng", rng, np.random.Generator, "a numpy.random.Generator")
    check_memory(radix * radix * (m + 1) ** 2 * 16, f"a {radix} x {radix} fault grid and its windows")
    grid = np.zeros((radix, radix), dtype=bool)
    for node in rng.permutation(radix * radix):
        x0, x1 = int(node) % radix, int(node) // radix
        grid[x0, x1] = True
        if not locally_safe(grid, m, around=(x0, x1)):
            grid[x0, x1] = False
    return grid


def torus_connected(grid: np.ndarray) -> bool:
    """Whether the non-faulty nodes of the torus (``grid[x0, x1]`` True = faulty) form one connected graph.

    Theorem 1 of Li, Peng & Chu (Section 2) says a locally-``m``-safe torus is connected (see :func:`locally_safe`).

    Examples
    --------
    >>> grid = np.zeros((4, 4), dtype=bool)
    >>> grid[1, :] = True
    >>> torus_connected(grid)             # the wraparound links keep rows 0, 2, 3 together
    True
    >>> grid[3, :] = True
    >>> torus_connected(grid)             # rows 0 and 2 are now cut apart
    False
    """
    grid = _check_grid(grid)
    radix = grid.shape[0]
    ids = np.arange(radix * radix).reshape(radix, radix)
    up = ~grid
    rows, cols = [], []
    for axis in (0, 1):
        keep = up & np.roll(up, -1, axis=axis)
        rows.append(ids[keep])
        cols.append(np.roll(ids, -1, axis=axis)[keep])
    edges = np.concatenate(rows), np.concatenate(cols)
    graph = coo_matrix((np.ones(len(edges[0])), edges), shape=(radix * radix,) * 2)
    _, labels = connected_components(graph, directed=False)
    return len(np.unique(labels[up.ravel()])) <= 1


def walk_is_fault_free(walk: Sequence[tuple[int, int]], grid: np.ndarray, source: tuple[int, int],
                       target: tuple[int, int] | None = None) -> bool:
    """Whether ``walk`` starts at ``source`` (and ends at ``target`` if given), every hop joins torus neighbours
    and no node of it is faulty (``grid[x0, x1]`` True = faulty).

    A valid output of Li, Peng & Chu's algorithms (Theorems 2-4, Sections 3-5) is such a walk from ``s`` to
    ``t``, or a failure with such a partial walk from ``s``.

    Examples
    --------
    >>> grid = np.zeros((4, 4), dtype=bool)
    >>> grid[1, 0] = True
    >>> walk_is_fault_free([(0, 0), (3, 0), (3, 1)], grid, (0, 0), (3, 1))
    True
    >>> walk_is_fault_free([(0, 0), (1, 0)], grid, (0, 0)), walk_is_fault_free([(0, 0), (2, 0)], grid, (0, 0))
    (False, False)
    """
    grid = _check_grid(grid)
    radix = grid.shape[0]
    source = _check_pair("source", source)
    target = None if target is None else _check_pair("target", target)
    nodes = np.array([_check_pair("walk", v) for v in check_sequence("walk", walk, min_length=1)], dtype=int)
    if (nodes < 0).any() or (nodes >= radix).any():
        return False
    step = np.abs(np.diff(nodes, axis=0)) % radix
    hops_ok = bool(((np.minimum(step, radix - step)).sum(axis=1) == 1).all()) if len(nodes) > 1 else True
    ends_ok = tuple(nodes[0]) == tuple(source) and (target is None or tuple(nodes[-1]) == tuple(target))
    return hops_ok and ends_ok and not grid[nodes[:, 0], nodes[:, 1]].any()


def local_routing_bound(algorithm: str, radix: int, m: int, source: tuple[int, int],
                        target: tuple[int, int]) -> int:  # fmt: skip
    """Most local routings a paper algorithm can use from ``source`` to ``target`` (a bound linear in N).

    * Chain (Theorem 2): each square of a leg advances ``r_i`` by ``m - 1`` or to ``t_i``, and the first leg
      may leave ``r_1`` one row behind ``s_1`` (the band starts at ``s_1 - dir_1``):
      ``ceil(d_0 / (m-1)) + ceil((d_1 + 1) / (m-1))``.
    * Adaptive-Square (Theorem 3): every local routing that does not reach ``t`` lowers the Lee distance
      ``d(r, t)`` by at least 1 (``docs/conventions.md#square-termination``): ``d(s, t)``.
    * Heuristic-Square (Theorem 4): an iteration is one square along ``i``, or a failed one and one along ``j``; a
      ``j``-step never raises ``d(r, t)`` and leaves ``d(r_j, t_j) = 0`` when it does not lower it, so at most
      ``d(s, t) + 1`` iterations make no progress: ``2 (2 d(s, t) + 1)``.

    Examples
    --------
    >>> [local_routing_bound(a, 16, 3, (0, 0), (5, 2)) for a in PAPER_ALGORITHMS]
    [5, 7, 30]
    """
    check_str("algorithm", algorithm, PAPER_ALGORITHMS)
    radix = check_int("radix", radix, 3)
    m = check_int("m", m, 2 if algorithm == "chain" else 3, radix)
    s = [check_int("source", v, 0, radix - 1) for v in _check_pair("source", source)]
    t = [check_int("target", v, 0, radix - 1) for v in _check_pair("target", target)]
    ring = [min(abs(a - b), radix - abs(a - b)) for a, b in zip(s, t, strict=True)]
    if algorithm == "chain":
        return -(-ring[0] // (m - 1)) - (-(ring[1] + 1) // (m - 1))
    if algorithm == "adaptive_square":
        return sum(ring)
    return 2 * (2 * sum(ring) + 1)


def chain_band(radix: int, m: int, source: int, target: int) -> tuple[int, ...]:
    """The band ``[b_j, B_j]`` of one leg of Chain_Routing (Algorithm 1, Li, Peng & Chu, Section 3): the ``m``
    coordinates along the other dimension ``j`` of every square of the leg, ``source`` and ``target`` being the
    ``j``-coordinates of ``r`` where the leg starts and of ``t``.

    As printed, ``b_j = r_j - dir_j`` and ``B_j = r_j + (m - 2) dir_j`` with ``dir_j`` the direction rule of
    Algorithms 1-2 (``docs/conventions.md#square-direction``), so the band holds one row behind ``r_j`` and ``m - 2``
    ahead, in the order ``b_j, ..., B_j`` (``docs/conventions.md#chain``); the kernel builds the same squares.

    Examples
    --------
    >>> chain_band(16, 5, 0, 6)      # t ahead: one row behind, three ahead
    (15, 0, 1, 2, 3)
    >>> chain_band(16, 5, 0, 0)      # t_j = r_j: dir_j = -1, the band reaches 3 rows past t_j
    (1, 0, 15, 14, 13)
    """
    radix = check_int("radix", radix, 3)
    m = check_int("m", m, 2, radix)
    source = check_int("source", source, 0, radix - 1)
    target = check_int("target", target, 0, radix - 1)
    step = int(_direction(source, target, radix))
    return tuple((source + (b - 1) * step) % radix for b in range(m))


def square_starts(result: RoutingResult, radix: int) -> list[tuple[int, int]]:
    """The node ``r`` at which each square of an Adaptive- or Heuristic-Square routing was built (the square's
    corner is ``b = (r_i, r_j - dir_j)``, ``docs/conventions.md#square-geometry``; Li, Peng & Chu, Sections 4-5).

    Examples
    --------
    >>> result = adaptive_square_routing(Torus(2, 8), set(), (0, 0), (4, 1), 3)
    >>> square_starts(result, 8)
    [(0, 0), (2, 0)]
    """
    check_instance("result", result, RoutingResult, "a RoutingResult")
    radix = check_int("radix", radix, 3)
    starts = []
    for square in result.squares:
        node = list(square.corner)
        node[1 - square.dim] = (node[1 - square.dim] + square.directions[1]) % radix
        starts.append((node[0], node[1]))
    return starts


def step_progress(result: RoutingResult, radix: int, target: tuple[int, int]) -> list[int]:
    """How much closer to ``target`` (Lee distance) each local routing that moved to an exit brought the message:
    ``d(r, t) - d(r', t)`` for consecutive square starts ``r, r'`` (:func:`square_starts`).

    The proof of Theorem 3 (Li, Peng & Chu, Section 4) says the worst case of an Adaptive-Square step is ``m - 2``.

    Examples
    --------
    >>> result = adaptive_square_routing(Torus(2, 8), set(), (0, 0), (4, 1), 3)
    >>> step_progress(result, 8, (4, 1))
    [2]
    """
    torus = Torus(2, check_int("radix", radix, 3))
    target = torus.check_node(target, "target")
    distance = [torus.lee_distance(r, target) for r in square_starts(result, radix)]
    return [int(a - b) for a, b in itertools.pairwise(distance)]


def square_cover(squares, radix: int) -> np.ndarray:
    """How many of ``squares`` (:class:`Square`) cover each node, as a ``radix x radix`` array indexed
    ``[x0, x1]``: the area a routing evaluated (the squares of Li, Peng & Chu's Figs. 2-3).

    Examples
    --------
    >>> cover = square_cover([Square(0, (0, 0), (1, 1), (1, 1), 2)] * 2, 4)
    >>> int(cover[0, 0]), int(cover[2, 2]), int(cover.sum())
    (2, 0, 8)
    """
    squares = check_sequence("squares", squares)
    check_int("radix", radix, minimum=1)
    for square in squares:
        check_instance("squares", square, Square, "routing Squares")
    check_memory(8 * radix * radix, f"the cover of a {radix} x {radix} torus")
    cover = np.zeros((radix, radix))
    for square in squares:
        for x, y in square.nodes(radix):
            cover[x, y] += 1
    return cover
