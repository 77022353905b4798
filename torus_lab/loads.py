"""Processor placements, exact link loads under complete exchange, and load lower bounds in k-ary d-cubes.

Implements Azizoglu & Eğecioğlu, *Lower Bounds on Communication Loads and Optimal Placements in Torus
Networks* (IPPS/SPDP 1998) (interpretation choices: ``docs/conventions.md#loads-definitions`` ff.):

* placements (Definition 2): linear placements ``{p : c . p = c0 (mod k)}`` (Definition 10, at least one
  ``c_i`` coprime to ``k``), multiple linear placements (``t`` consecutive residue classes, Section 5), unions of
  any residue classes, and any user node set;
* routings as weighted sets of shortest paths (Definition 3): ``"odr"`` (dimensions 0..d-1 in order, Section 6),
  ``"udr"`` (every order of the differing dimensions, equally weighted, Section 7) and ``"shortest"`` (every
  shortest path, equally weighted; a reference);
* the exact load of every directed link (Definition 4: ordered pairs, each pair's unit of traffic split evenly
  over its paths), ``E_max`` (Definition 5) and per-dimension summaries;
* the lower bounds (1) and Lemma 1 / (4) over natural and searched cuts, and Corollary 1's upper bound on the
  bisection width with respect to a placement.

Choices (``docs/conventions.md#loads-ties``, recorded here and in the notebook):

* **REC** ties (``k`` even, offset ``k/2``) are broken towards ``+`` for ODR and UDR (the paper's restricted
  ODR; UDR then has ``s!`` paths as the paper states).  **ALT** ``tie="both"``: both directions, equally
  weighted (the unrestricted ODR of Section 6).  ``"shortest"`` defaults to ``tie="both"`` (truly all shortest
  paths) and accepts ``tie="+"``.
* Dimensions are 0-based: the paper's ``p_1..p_d`` are coordinates ``0..d-1``; ODR corrects dimension 0 first.
* ``k = 2``: the topology has one channel per neighbour pair (the paper's edge set is a set, so it has one edge
  too); a move ``x -> x + 1 (mod 2)`` loads that channel whatever its sign.

Fast computation (``docs/conventions.md#loads-computation``): the routings are translation invariant, so a pair
``(p, q)`` loads the links of the pair ``(0, q - p)`` shifted by ``p``.  For a source at the origin and a weight
``w(delta)`` on destination offsets, the link flow is built dimension by dimension from a 1-D segment table without
materialising paths (ODR: marginal sums; UDR: a dynamic programme over (#dimensions already corrected, #dimensions still
to correct), the weight of a prefix set being a count of orders; all shortest paths: path counting
``paths(0 -> u) * paths(v -> delta) / paths(0 -> delta)`` per offset).  For placements that are unions of
residue classes of ``c . p`` the load depends only on ``(c . x mod k, dim, sign)``, so one flow per class is
enough; any other node set uses one flow per source.  :func:`link_loads_reference` is the plain per-pair path
enumeration used as the test oracle.

Examples
--------
>>> from torus_lab.topology import Torus
>>> torus = Torus(2, 4)
>>> placement = linear_placement(torus)
>>> placement.size
4
>>> loads = link_loads(torus, placement, "odr")
>>> float(loads.sum()) == sum(torus.lee_distance(p, q) for p in placement.nodes() for q in placement.nodes())
True
>>> float(e_max(loads))      # k/2: one source feeds each dimension-0 row
2.0
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd
from scipy.special import gammaln

from torus_lab._jit import njit
from torus_lab._memory import check_memory, network_size
from torus_lab._validate import check_instance, check_int, check_real_array, check_sequence, check_str, is_int, naming
from torus_lab.topology import Mesh, Torus, bfs_distances

__all__ = [
    "ROUTINGS",
    "TIE_MODES",
    "Placement",
    "linear_placement",
    "multiple_linear_placement",
    "residue_placement",
    "node_placement",
    "link_loads",
    "link_loads_reference",
    "enumerate_paths",
    "e_max",
    "load_frame",
    "loads_by_dimension",
    "CutBound",
    "single_node_bound",
    "lemma1_bound",
    "natural_cut_bound",
    "balanced_cut_search",
    "cut_lower_bound",
    "bisection_width_upper_bound",
    "natural_bisection_width",
    "placement_bisection_width_bruteforce",
    "MAX_EXHAUSTIVE_NODES",
    "SLACK_OBJECTIVES",
    "random_placements",
    "certified_bisection_width",
    "all_placement_bisection_widths",
    "BisectionSlack",
    "bisection_slack_search",
    "MAX_LP_PAIRS",
    "optimal_routing_load",
]

#: Routings: ordered dimensional (Section 6), unordered dimensional (Section 7), all shortest paths.
ROUTINGS = ("odr", "udr", "shortest")
#: Tie modes for an offset of exactly k/2 (k even): "+" (REC for ODR/UDR) or "both" (equal halves).
TIE_MODES = ("+", "both")
_DEFAULT_TIE = {"odr": "+", "udr": "+", "shortest": "both"}


# ---------------------------------------------------------------------- validation helpers
def _check_torus(torus: object) -> int:
    """Return the radix ``k`` of a bidirectional k-ary d-cube torus, or raise."""
    if not isinstance(torus, Torus) or isinstance(torus, Mesh):
        raise TypeError(f"torus must be a torus_lab.topology.Torus (not a Mesh), got {torus!r}")
    if not torus.bidirectional:
        raise ValueError(f"link loads need a bidirectional torus, got {torus!r}")
    if len(set(torus.radices)) != 1:
        raise ValueError(f"placements need a single radix k, got radices {torus.radices!r}")
    return torus.radices[0]


def _check_int(name: str, value: object) -> int:
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    return int(value)


def _resolve_routing(routing: object, tie: object) -> tuple[str, str]:
    check_str("routing", routing, ROUTINGS)
    if tie is None:
        tie = _DEFAULT_TIE[routing]  # type: ignore[index]
    check_str("tie", tie, TIE_MODES)
    return routing, tie  # type: ignore[return-value]


# ---------------------------------------------------------------------- placements
@dataclass(frozen=True, eq=False)
class Placement:
    """A set of processor nodes of a torus (Definition 2), with its linear structure when it has one.

    Build it with :func:`linear_placement`, :func:`multiple_linear_placement`, :func:`residue_placement` or
    :func:`node_placement`.

    Attributes
    ----------
    torus : Torus
    node_ids : numpy.ndarray
        Sorted node ids of the processors (read-only).
    kind : str
        ``"linear"``, ``"multiple_linear"``, ``"residues"`` or ``"nodes"``.
    coefficients : tuple of int or None
        ``c_1..c_d`` (0-based dimensions) when the placement is a union of classes ``c . p = r (mod k)``.
    residues : tuple of int or None
        The classes ``r`` of that union.
    """

    torus: Torus
    node_ids: np.ndarray = field(repr=False)
    kind: str
    coefficients: tuple[int, ...] | None = None
    residues: tuple[int, ...] | None = None

    @property
    def size(self) -> int:
        """Number of processors ``|P|``."""
        return int(self.node_ids.size)

    @property
    def t(self) -> int:
        """Number of residue classes (1 for a linear placement; 0 for a plain node set)."""
        return len(self.residues) if self.residues is not None else 0

    def coords(self) -> np.ndarray:
        """Array ``(|P|, d)`` of processor coordinates."""
        return self.torus.coords(self.node_ids)

    def nodes(self) -> list[tuple[int, ...]]:
        """Processors as coordinate tuples, in node-id order."""
        return [tuple(int(v) for v in row) for row in self.coords()]

    def mask(self) -> np.ndarray:
        """Boolean array over node ids, True at processors."""
        out = np.zeros(self.torus.num_nodes, dtype=bool)
        out[self.node_ids] = True
        return out


def _check_coefficients(torus: Torus, k: int, coefficients: object) -> tuple[int, ...]:
    if coefficients is None:
        return (1,) * torus.n
    if isinstance(coefficients, (str, bytes)) or not isinstance(coefficients, (Sequence, np.ndarray)):
        raise TypeError(f"coefficients must be a sequence of {torus.n} ints, got {coefficients!r}")
    coeffs = tuple(_check_int("coefficients", c) for c in check_sequence("coefficients", coefficients))
    if len(coeffs) != torus.n:
        raise ValueError(f"coefficients {coeffs!r} has {len(coeffs)} entries, expected d = {torus.n}")
    if not any(math.gcd(c % k, k) == 1 for c in coeffs):
        raise ValueError(
            f"coefficients {coeffs!r}: at least one must be relatively prime to k = {k} (Definition 10)"
        )
    return tuple(c % k for c in coeffs)


def _outer_classes(k: int, coefficients: Sequence[int]) -> np.ndarray:
    """``sum_j c_j x_j mod k`` over the grid ``(k,)*len(c)`` in C order (the last coefficient's axis fastest),
    flattened; built by outer sums, never as a ``(k^d, d)`` coordinate table.

    The C-order flow grid ``[x_0, ..., x_{d-1}]`` uses ``coefficients``; node-id order (``x_0`` fastest) uses
    them reversed.

    Examples
    --------
    >>> _outer_classes(3, (1, 2)).tolist()
    [0, 2, 1, 1, 0, 2, 2, 1, 0]
    """
    dtype = np.int32 if k < 2**15 else np.int64
    steps = np.arange(k, dtype=np.int64)
    classes = ((coefficients[0] * steps) % k).astype(dtype)
    for c in coefficients[1:]:
        classes = ((classes[:, None] + ((c * steps) % k).astype(dtype)[None, :]) % k).reshape(-1)
    return classes


def residue_placement(
    torus: Torus, residues: Iterable[int], coefficients: Sequence[int] | None = None, *, kind: str = "residues"
) -> Placement:
    """The union of the classes ``{p : c . p = r (mod k)}`` over ``r`` in ``residues``.

    With one residue this is a linear placement, with ``0..t-1`` a multiple linear placement, with every
    residue the fully populated torus.

    Examples
    --------
    >>> residue_placement(Torus(2, 5), [0, 2]).size
    10
    """
    k = _check_torus(torus)
    coeffs = _check_coefficients(torus, k, coefficients)
    if isinstance(residues, (str, bytes)) or not isinstance(residues, Iterable):
        raise TypeError(f"residues must be an iterable of ints, got {residues!r}")
    values = tuple(_check_int("residues", r) for r in check_sequence("residues", residues))
    if not values:
        raise ValueError("residues is empty: a placement needs at least one processor")
    for r in values:
        if not 0 <= r < k:
            raise ValueError(f"residues holds {r}, out of range 0..{k - 1}")
    if len(set(values)) != len(values):
        raise ValueError(f"residues {values!r} repeat a value")
    check_memory(24 * torus.num_nodes, f"residue_placement on {network_size(torus)}")  # classes, mask, ids
    classes = _outer_classes(k, coeffs[::-1])  # node-id order: x_0 fastest
    node_ids = np.flatnonzero(np.isin(classes, values)).astype(np.int64)
    node_ids.setflags(write=False)
    return Placement(torus, node_ids, kind, coeffs, tuple(sorted(values)))


def linear_placement(torus: Torus, coefficients: Sequence[int] | None = None, constant: int = 0) -> Placement:
    """Linear placement ``{p : c_1 p_1 + ... + c_d p_d = c (mod k)}`` (Definition 10, eq. (6)).

    Parameters
    ----------
    torus : Torus
        A bidirectional k-ary d-cube.
    coefficients : sequence of d ints, optional
        ``c_1..c_d``; default all ones (the paper's choice).  At least one must be relatively prime to ``k``
        (the paper's condition, which gives ``|P| = k^(d-1)``); values are taken mod ``k``.
    constant : int, default 0
        ``c`` in ``0..k-1``.

    Raises
    ------
    TypeError, ValueError
        For a non-torus, bad coefficients (wrong length, none coprime to ``k``) or a constant out of range.

    Examples
    --------
    >>> p = linear_placement(Torus(3, 4), constant=1)
    >>> p.size, p.nodes()[0]
    (16, (1, 0, 0))
    >>> linear_placement(Torus(2, 4), coefficients=(2, 2))
    Traceback (most recent call last):
    ...
    ValueError: coefficients (2, 2): at least one must be relatively prime to k = 4 (Definition 10)
    """
    k = _check_torus(torus)
    constant = _check_int("constant", constant)
    if not 0 <= constant < k:
        raise ValueError(f"constant {constant} out of range 0..{k - 1}")
    return residue_placement(torus, [constant], coefficients, kind="linear")


def multiple_linear_placement(torus: Torus, t: int, coefficients: Sequence[int] | None = None) -> Placement:
    """Multiple linear placement ``P_1 u ... u P_t`` with ``P_j = {p : c . p = j - 1 (mod k)}`` (Section 5).

    Parameters
    ----------
    torus : Torus
    t : int
        Number of classes, ``1 <= t < k``; ``|P| = t k^(d-1)``.
    coefficients : sequence of d ints, optional
        As in :func:`linear_placement` (the paper uses all ones).

    Examples
    --------
    >>> multiple_linear_placement(Torus(2, 6), 3).size
    18
    """
    k = _check_torus(torus)
    t = _check_int("t", t)
    if not 1 <= t < k:
        raise ValueError(f"t must satisfy 1 <= t < k = {k}, got t = {t}")
    return residue_placement(torus, range(t), coefficients, kind="multiple_linear")


def node_placement(torus: Torus, nodes: Iterable[Iterable[int]] | np.ndarray) -> Placement:
    """A placement from any non-empty set of distinct nodes (coordinate tuples or an ``(m, d)`` array).

    Examples
    --------
    >>> node_placement(Torus(2, 3), [(0, 0), (2, 1)]).size
    2
    >>> node_placement(Torus(2, 3), [(0, 0), (0, 0)])
    Traceback (most recent call last):
    ...
    ValueError: placement node (0, 0) appears more than once in nodes
    """
    _check_torus(torus)
    if isinstance(nodes, np.ndarray):
        if nodes.ndim == 0 or nodes.size % torus.n:
            raise ValueError(f"nodes must be an (m, {torus.n}) array of coordinates, got shape {nodes.shape}")
        rows: list = [tuple(row) for row in nodes.reshape(-1, torus.n)] if nodes.size else []
    elif isinstance(nodes, (str, bytes)) or not isinstance(nodes, Iterable):
        raise TypeError(f"nodes must be an iterable of coordinate tuples, got {nodes!r}")
    else:
        rows = list(nodes)
    checked = [torus.check_node(v, "nodes: placement node") for v in rows]
    if not checked:
        raise ValueError("nodes is empty: a placement needs at least one processor")
    seen: set[tuple[int, ...]] = set()
    for v in checked:
        if v in seen:
            raise ValueError(f"placement node {v} appears more than once in nodes")
        seen.add(v)
    node_ids = np.sort(np.asarray([torus.node_id(v) for v in checked], dtype=np.int64))
    node_ids.setflags(write=False)
    return Placement(torus, node_ids, "nodes")


def _as_placement(torus: Torus, placement: object) -> Placement:
    _check_torus(torus)
    if isinstance(placement, Placement):
        if placement.torus != torus:
            raise ValueError(f"placement belongs to {placement.torus!r}, not to torus {torus!r}")
        return placement
    with naming("placement"):
        return node_placement(torus, placement)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- one-source flows
def _segment_table(k: int, tie: str) -> np.ndarray:
    """``S[m, s, t]``: weight with which the 1-D shortest walk ``0 -> t`` (mod k) leaves ``m`` along sign ``s``.

    ``s = 0`` is the ``-`` direction, ``s = 1`` the ``+`` direction; a tie (``t = k/2``) goes ``+`` or is split.
    """
    table = np.zeros((k, 2, k))
    for target in range(1, k):
        forward, backward = target, k - target
        plus = 1.0 if forward < backward else 0.0 if forward > backward else (1.0 if tie == "+" else 0.5)
        if plus:
            table[np.arange(forward), 1, target] += plus
        if plus < 1.0:
            table[(-np.arange(backward)) % k, 0, target] += 1.0 - plus
    return table


def _flow_odr(weights: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Link flow of ODR from the origin to destination offsets weighted by ``weights`` (shape ``(k,)*d``).

    The dimension-i segment of the path to ``delta`` runs through nodes ``(delta_<i, m, 0, ..., 0)``, so the
    flow on dimension ``i`` needs only ``weights`` summed over the later dimensions.
    """
    d = weights.ndim
    flow = np.zeros(weights.shape + (d, 2))
    for i in range(d):
        marginal = weights.sum(axis=tuple(range(i + 1, d))) if i + 1 < d else weights
        seg = np.tensordot(marginal, segment, axes=([i], [2]))  # axes: y_0..y_{i-1}, m, sign
        flow[(slice(None),) * (i + 1) + (0,) * (d - i - 1) + (i, slice(None))] = seg
    return flow


def _udr_order_weights(d: int) -> np.ndarray:
    """``W[a, c] = a! c! / (a + c + 1)!``: share of the orders of ``a + c + 1`` dimensions with a given set of
    ``a`` dimensions first, then the current one, then the other ``c``."""
    weights = np.zeros((d, d))
    for a in range(d):
        for c in range(d - a):
            weights[a, c] = math.factorial(a) * math.factorial(c) / math.factorial(a + c + 1)
    return weights


def _flow_udr(weights: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Link flow of UDR from the origin to destination offsets weighted by ``weights``.

    A dimension-i link at ``y`` is used by ``delta`` when the dimensions already corrected are exactly
    ``A = {j != i : y_j != 0}`` (with ``delta_A = y_A``) and the others still sit at 0.  A dynamic programme
    over the dimensions ``j != i`` turns axis ``j`` from ``delta_j`` into ``y_j`` while counting ``a = |A|`` and
    ``c`` = number of differing dimensions not yet corrected; the share of orders is ``a! c! / (a + c + 1)!``.
    """
    d, k = weights.ndim, weights.shape[0]
    order_weights = _udr_order_weights(d)
    flow = np.zeros(weights.shape + (d, 2))
    for i in range(d):
        state = np.zeros(weights.shape + (d, d))
        state[..., 0, 0] = weights
        for j in range(d):
            if j == i:
                continue
            view = np.moveaxis(state, j, 0)
            new = np.zeros_like(view)
            new[0] = view[0]
            if k > 1:
                new[0][..., 1:] += view[1:].sum(axis=0)[..., :-1]  # y_j = 0, delta_j != 0: one more to correct
                new[1:, ..., 1:, :] = view[1:, ..., :-1, :]  # y_j = delta_j != 0: already corrected
            state = np.moveaxis(new, 0, j)
        reduced = np.tensordot(state, order_weights, axes=([d, d + 1], [0, 1]))  # (k,)*d, axis i = delta_i
        seg = np.tensordot(reduced, segment, axes=([i], [2]))  # axes: y_{-i}, m, sign
        flow[..., i, :] = np.moveaxis(seg, d - 1, i)
    return flow


def _box_fractions(lengths: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For monotone lattice paths from 0 to ``lengths``: the steps ``m -> m + e_i`` (box point ``m``, dimension
    ``i``) and the share of paths using each, ``paths(0 -> m) paths(m + e_i -> lengths) / paths(0 -> lengths)``.

    Path counts are symmetric under a permutation of the dimensions, so the steps are computed once for the box
    with its sides in ascending order (:func:`_sorted_box_fractions`, cached) and its dimensions renamed back:
    a ``d``-cube of side ``s`` has ``(s+1)^d`` boxes but far fewer side multisets.

    >>> points, shares, dims = _box_fractions((2, 1))
    >>> len(points), round(float(shares[(dims == 0) & (points[:, 0] == 0) & (points[:, 1] == 0)][0]), 4)
    (7, 0.6667)
    """
    rename = _ascending_sides(lengths)  # canonical dimension c is dimension rename[c]
    points, shares, dims = _sorted_box_fractions(tuple(lengths[j] for j in rename))
    renamed = np.empty_like(points)
    renamed[:, rename] = points
    return renamed, shares, rename[dims]


def _ascending_sides(lengths: Sequence[int]) -> np.ndarray:
    """The dimensions of a box in ascending order of their sides (ties by dimension): ``rename[c]`` is the box
    dimension that is dimension ``c`` of its canonical box (:func:`_sorted_box_fractions`).

    >>> _ascending_sides((3, 0, 3, 1)).tolist()
    [1, 3, 0, 2]
    """
    return np.asarray(sorted(range(len(lengths)), key=lambda j: lengths[j]), dtype=np.int64)


@functools.lru_cache(maxsize=4096)
def _sorted_box_fractions(lengths: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_box_fractions` of a box with ascending sides (cached; the arrays are shared, never modified)."""
    d = len(lengths)
    grids = np.stack(np.meshgrid(*[np.arange(n + 1) for n in lengths], indexing="ij"), axis=-1).reshape(-1, d)
    target = np.asarray(lengths)
    log_factorial = gammaln(np.arange(sum(lengths) + 2) + 1.0)

    def log_count(v: np.ndarray) -> np.ndarray:  # log of the multinomial (sum v)! / prod v_j!
        return log_factorial[v.sum(axis=-1)] - log_factorial[v].sum(axis=-1)

    total = log_count(target)
    points, shares, dims = [], [], []
    for i in range(d):
        if lengths[i] == 0:
            continue
        step_from = grids[grids[:, i] < lengths[i]]
        rest = target - step_from
        rest[:, i] -= 1
        points.append(step_from)
        shares.append(np.exp(log_count(step_from) + log_count(rest) - total))
        dims.append(np.full(len(step_from), i, dtype=np.int64))
    return np.concatenate(points), np.concatenate(shares), np.concatenate(dims)


@njit
def _add_box_steps(
    buffer: np.ndarray, points: np.ndarray, shares: np.ndarray, dims: np.ndarray, rename: np.ndarray,
    signs: np.ndarray, box_weights: np.ndarray, strides: np.ndarray, k: int, per_class: bool,
) -> None:
    """Add the flow of the boxes with corner signs ``signs`` (one row per box) to ``buffer`` in place.

    ``points, shares, dims`` are the steps of :func:`_sorted_box_fractions` and ``rename`` maps their
    dimensions to the box's (:func:`_box_fractions`: canonical dimension ``c`` is dimension ``rename[c]``).
    Step ``s`` of box ``r`` is the link at node ``y`` with ``y[rename[c]] = points[s, c] * signs[r, rename[c]]
    mod k`` in dimension ``i = rename[dims[s]]`` with sign ``signs[r, i]``; its cell is ``y . strides``
    (``mod k`` if ``per_class``) and it adds ``box_weights[r] * shares[s]`` to
    ``buffer[(cell * d + i) * 2 + (signs[r, i] > 0)]``, boxes in row order and steps in order (the additions of
    ``numpy.bincount`` over the same index and weight sequence, so the sums are the same to the last bit).
    Box sides are at most ``k / 2``, so a coordinate ``p`` maps to ``p`` or ``(k - p) mod k``.

    >>> buffer = np.zeros(4 * 1 * 2)
    >>> _add_box_steps(buffer, np.array([[0], [1]]), np.array([1.0, 1.0]), np.array([0, 0]), np.array([0]),
    ...                np.array([[-1]]), np.array([0.5]), np.array([1]), 4, False)
    >>> buffer.tolist()  # 0 -> 3 -> 2 on the ring of 4: links (0, -) and (3, -), half a unit each
    [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0]
    """
    d = points.shape[1]
    side = 0
    for s in range(points.shape[0]):
        for c in range(d):
            side = max(side, points[s, c])
    contribution = np.empty((d, side + 1), dtype=np.int64)  # [c, p]: stride times the coordinate of p
    for r in range(signs.shape[0]):
        for c in range(d):
            j = rename[c]
            for p in range(side + 1):
                coordinate = p if signs[r, j] > 0 or p == 0 else k - p
                contribution[c, p] = coordinate * strides[j]
        weight = box_weights[r]
        for s in range(points.shape[0]):
            cell = 0
            for c in range(d):
                cell += contribution[c, points[s, c]]
            if per_class:
                cell %= k
            dim = rename[dims[s]]
            buffer[(cell * d + dim) * 2 + (1 if signs[r, dim] > 0 else 0)] += weight * shares[s]


def _flow_shortest(weights: np.ndarray, tie: str, coefficients: Sequence[int] | None = None) -> np.ndarray:
    """Link flow of all shortest paths, equally weighted, from the origin (path counting).

    The share of a link ``u -> v`` among the shortest paths to ``delta`` is
    ``paths(0 -> u) paths(v -> delta) / paths(0 -> delta)``; shortest paths to ``delta`` are monotone lattice
    paths in a box with side ``|offset_j|`` (two mirrored boxes per tied dimension with ``tie="both"``, equally
    many paths in each).  Offsets with the same box sides are processed together (:func:`_add_box_steps`,
    compiled), their sums collected in a buffer that is added to the flow every few million steps.  With
    ``coefficients`` the flow is summed per class ``c . y mod k`` of the link's node on the fly: the result is
    ``(k, d, 2)``.
    """
    d, k = weights.ndim, weights.shape[0]
    out_shape = (k, d, 2) if coefficients is not None else weights.shape + (d, 2)
    size = math.prod(out_shape)
    flat = np.zeros(size)
    if coefficients is not None:  # node -> its class
        strides = np.asarray(coefficients, dtype=np.int64)
    else:  # node -> its C-order index in (k,)*d
        strides = np.asarray([k ** (d - 1 - j) for j in range(d)], dtype=np.int64)
    deltas = np.argwhere(weights != 0)
    if deltas.size == 0:
        return flat.reshape(out_shape)
    delta_weights = weights[tuple(deltas.T)].astype(float)
    lengths = np.minimum(deltas, k - deltas)
    base_signs = np.where(deltas <= k - deltas, 1, -1).astype(np.int64)  # ties and zero offsets: +
    groups, inverse = np.unique(lengths, axis=0, return_inverse=True)
    by_group = np.argsort(inverse.reshape(-1), kind="stable")  # the offsets of group g, ascending
    group_starts = np.searchsorted(inverse.reshape(-1)[by_group], np.arange(len(groups) + 1))
    buffer, pending = np.zeros(size), 0
    for g, box in enumerate(groups):
        rows = by_group[group_starts[g]:group_starts[g + 1]]
        signs, box_weights = base_signs[rows], delta_weights[rows]
        tied = np.flatnonzero((2 * box == k) & (box > 0)) if tie == "both" else np.array([], dtype=np.int64)
        if tied.size:
            choices = np.asarray(list(itertools.product((1, -1), repeat=tied.size)), dtype=np.int64)
            signs = np.repeat(signs, len(choices), axis=0)
            signs[:, tied] = np.tile(choices, (len(rows), 1))
            box_weights = np.repeat(box_weights, len(choices)) / len(choices)
        sides = [int(v) for v in box]
        rename = _ascending_sides(sides)
        points, shares, dims = _sorted_box_fractions(tuple(sides[j] for j in rename))
        _add_box_steps(buffer, points, shares, dims, rename, signs, box_weights, strides, k,
                       coefficients is not None)
        pending += len(signs) * len(dims)
        if pending > 4_000_000 or g == len(groups) - 1:
            flat += buffer
            buffer[:], pending = 0.0, 0
    return flat.reshape(out_shape)


def _source_flow(weights: np.ndarray, routing: str, tie: str) -> np.ndarray:
    """Flow ``(k,)*d + (d, 2)`` on links ``(y, dim, sign)`` for a source at the origin (see module notes)."""
    k = weights.shape[0]
    if routing == "odr":
        return _flow_odr(weights, _segment_table(k, tie))
    if routing == "udr":
        return _flow_udr(weights, _segment_table(k, tie))
    return _flow_shortest(weights, tie)


def _shift_sum(values: np.ndarray, histogram: np.ndarray, axis: int) -> np.ndarray:
    """Cyclic convolution along ``axis``: ``out[..., r, ...] = sum_u histogram[u] values[..., r - u mod k, ...]``."""
    k = histogram.size
    circulant = histogram[(np.arange(k)[:, None] - np.arange(k)[None, :]) % k]  # C[r, r'] = h[r - r']
    return np.moveaxis(np.moveaxis(values, axis, -1) @ circulant.T, -1, axis)


def _class_histogram(k: int, coefficient: int, *, nonzero: bool) -> np.ndarray:
    """``h[r]`` = number of moves ``v`` (``1..k-1`` if ``nonzero`` else ``0..k-1``) with ``c v = r (mod k)``."""
    return np.bincount((coefficient * np.arange(1 if nonzero else 0, k)) % k, minlength=k).astype(float)


def _class_states(k: int, coefficients: tuple[int, ...], routing: str, i: int) -> np.ndarray:
    """``Q[rho, e]``: weighted count of (link position, destination offset) pairs over the dimensions ``j != i``
    with ``c . y = rho`` and ``c . delta - c . y = e`` (mod k) on those dimensions, for dimension-``i`` links.

    ODR: dimensions ``j < i`` are corrected (``y_j = delta_j``, any value), dimensions ``j > i`` not yet
    (``y_j = 0``, ``delta_j`` any); weight 1.  UDR: a dimension ``j`` is corrected (``y_j = delta_j != 0``: one
    more in ``a``), equal at the origin (``y_j = delta_j = 0``) or still to correct (``y_j = 0 != delta_j``: one
    more in ``c``); the weight of a state is the share of orders ``a! c! / (a + c + 1)!``.
    """
    d = len(coefficients)
    if routing == "odr":
        state = np.zeros((k, k))
        state[0, 0] = 1.0
        for j in range(d):
            if j != i:
                state = _shift_sum(state, _class_histogram(k, coefficients[j], nonzero=False), 0 if j < i else 1)
        return state
    state = np.zeros((d, d, k, k))  # (a, c, rho, e)
    state[0, 0, 0, 0] = 1.0
    for j in range(d):
        if j == i:
            continue
        histogram = _class_histogram(k, coefficients[j], nonzero=True)
        new = state.copy()
        new[1:] += _shift_sum(state[:-1], histogram, 2)
        new[:, 1:] += _shift_sum(state[:, :-1], histogram, 3)
        state = new
    return np.tensordot(_udr_order_weights(d), state, axes=([0, 1], [0, 1]))


def _class_table(
    k: int, coefficients: tuple[int, ...], residues: tuple[int, ...], routing: str, tie: str
) -> np.ndarray:
    """``T[r, dim, sign]``: load of every link whose source node ``x`` has ``c . x = r (mod k)`` (ODR, UDR).

    For sources ``p`` of class ``a`` the load at ``x`` is the one-source flow summed over ``y = x - p`` with
    ``c . y = c . x - a`` and destination offsets ``delta`` with ``c . delta + a`` a placement residue; the
    sum over the other dimensions is :func:`_class_states`, the own dimension adds ``c_i m`` to ``c . y``
    (link at ``y_i = m``) and ``c_i t`` to ``c . delta`` (offset ``delta_i = t``), weighted by the 1-D segment
    table.  Cost ``O(d^4 k^3 + t d k^3)`` time and ``O(d^2 k^2)`` memory, independent of ``k^d``.
    """
    d = len(coefficients)
    segment = _segment_table(k, tie)  # (m, sign, t)
    member = np.zeros(k, dtype=bool)
    member[list(residues)] = True
    steps = np.arange(k)
    wanted = member[(steps[:, None] + steps[None, :]) % k].astype(float)  # [e, u]: e + u is a residue
    segment_rows = segment.reshape(2 * k, k).T  # (t, (m, sign))
    table = np.zeros((k, d, 2))
    for i in range(d):
        state = _class_states(k, coefficients, routing, i)  # (rho, e)
        c_i = coefficients[i]
        # by_class[rho, u] = sum_e state[rho, e] [u + e is a residue]; the destination's class is
        # c . q = rho + e + c_i t + a, so offsets delta_i = t take column u = rho + c_i t + a
        by_class = state @ wanted
        offset_class = steps[:, None] + c_i * steps[None, :]  # rho + c_i t
        link_class = (steps[:, None] + c_i * steps[None, :]) % k  # rho + c_i m
        for a in residues:
            shares = np.take_along_axis(by_class, (offset_class + a) % k, axis=1)  # (rho, t)
            flows = (shares @ segment_rows).reshape(k, k, 2)  # (rho, m, sign)
            index = ((link_class + a) % k).reshape(-1)
            for sign in range(2):
                table[:, i, sign] += np.bincount(index, flows[:, :, sign].reshape(-1), minlength=k)
    return table


#: Nodes per chunk when link loads are written out (bounded temporaries; tests shrink it).
_CHUNK_NODES = 1 << 18


def _channels_per_node(torus: Torus) -> int:
    """``2 d`` channels leave each node of a bidirectional torus (``d`` for ``k = 2``, one per neighbour pair)."""
    return torus.n if torus.radices[0] == 2 else 2 * torus.n


def _fill_from_class_table(torus: Torus, classes: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Channel loads from a per-class table ``(k, d, 2)``, written in chunks of :data:`_CHUNK_NODES` nodes.

    Channel ids of a bidirectional torus are ``(node * d + dim) * 2 + (sign > 0)`` (``node * d + dim`` for
    ``k = 2``, where both moves use the one channel), so no channel table is built.
    """
    per_node = _channels_per_node(torus)
    rows = (table if torus.radices[0] > 2 else table.sum(axis=-1)).reshape(table.shape[0], per_node)
    out = np.empty(torus.num_nodes * per_node)
    view = out.reshape(torus.num_nodes, per_node)
    for lo in range(0, torus.num_nodes, _CHUNK_NODES):
        hi = min(lo + _CHUNK_NODES, torus.num_nodes)
        np.take(rows, classes[lo:hi], axis=0, out=view[lo:hi], mode="clip")  # "raise" would buffer out
    return out


def _grid_view(torus: Torus, out: np.ndarray) -> np.ndarray:
    """View of ``out`` (channel order, ``k > 2``) indexed ``[x_0, ..., x_{d-1}, dim, sign]`` like a flow grid."""
    d, k = torus.n, torus.radices[0]
    return out.reshape((k,) * d + (d, 2)).transpose(tuple(range(d - 1, -1, -1)) + (d, d + 1))


def _load_estimate(torus: Torus, placement: Placement, routing: str) -> int:
    """Peak bytes of :func:`link_loads` (documented in its Notes)."""
    d, n = torus.n, torus.num_nodes
    output = 8 * n * _channels_per_node(torus)
    if placement.coefficients is not None and routing in ("odr", "udr") and d >= 3:
        k = torus.radices[0]
        return output + 8 * n + 8 * _CHUNK_NODES * (2 + 2 * d) + 8 * k**2 * (2 * d * d + 12)
    per_grid = {"odr": 4 * d + 5, "udr": 2 * d * d + 4 * d + 5, "shortest": 14 * d + 4}[routing]
    if placement.coefficients is not None:  # "shortest" per class: no flow grid, offsets and pending arrays
        per_grid = 6 * d + 4
    return output + 8 * n * per_grid + 200 * 2**20


def _class_table_grid(
    k: int, d: int, coefficients: tuple[int, ...], residues: tuple[int, ...], routing: str, tie: str
) -> np.ndarray:
    """Per-class table ``T[r, dim, sign]`` from one-source flows on the ``(k,)*d`` grid, one per residue class.

    ``T[r] = sum_a F_a[r - a]`` with ``F_a[r]`` the flow of a source of class ``a`` summed over the links whose
    offset ``y`` has ``c . y = r``: ``E(x) = sum_{p in class a} flow(x - p)``.  Memory ``O(k^d)`` (used for
    ``d <= 2`` and for ``"shortest"``, and as the tests' independent check of :func:`_class_table`).
    """
    member = np.zeros(k, dtype=bool)
    member[list(residues)] = True
    classes = _outer_classes(k, coefficients)  # C order over the grid
    table = np.zeros((k, d, 2))
    for a in residues:
        weights = member[(classes + a) % k].astype(float).reshape((k,) * d)  # c . q = c . delta + a in P
        weights[(0,) * d] = 0.0
        if routing == "shortest":
            per_class = _flow_shortest(weights, tie, coefficients)
        else:
            flow = _source_flow(weights, routing, tie).reshape(-1, 2 * d)
            columns = [np.bincount(classes, flow[:, col], minlength=k) for col in range(2 * d)]
            per_class = np.stack(columns, axis=1).reshape(k, d, 2)
            del flow
        table += per_class[(np.arange(k) - a) % k]
    return table


def _node_set_loads(torus: Torus, placement: Placement, routing: str, tie: str) -> np.ndarray:
    """Channel loads of a plain node set: one flow per source, shifted onto the source and summed in place."""
    k, d = torus.radices[0], torus.n
    shape = (k,) * d
    out = np.zeros(torus.num_nodes * _channels_per_node(torus))
    grid = _grid_view(torus, out) if k > 2 else np.zeros(shape + (d, 2))
    mask = np.zeros(shape)
    mask[tuple(placement.coords().T)] = 1.0
    for source in placement.coords():
        weights = np.roll(mask, tuple(-source), axis=tuple(range(d)))
        weights[(0,) * d] = 0.0
        flow = _source_flow(weights, routing, tie)
        del weights
        grid += np.roll(flow, tuple(source), axis=tuple(range(d)))
        del flow
    if k == 2:  # both moves of a dimension use its one channel
        out.reshape(shape + (d,)).transpose(tuple(range(d - 1, -1, -1)) + (d,))[...] = grid.sum(axis=-1)
    return out


# ---------------------------------------------------------------------- link loads
def link_loads(
    torus: Torus, placement: Placement | Iterable, routing: str = "odr", *, tie: str | None = None
) -> np.ndarray:
    """Exact load ``E(l)`` of every directed link under complete exchange (Definition 4, eq. (3)).

    Parameters
    ----------
    torus : Torus
        Bidirectional k-ary d-cube.
    placement : Placement or iterable of nodes
        The processors ``P``; a plain iterable is read with :func:`node_placement`.
    routing : {"odr", "udr", "shortest"}
        Ordered dimensional routing (dimension 0 first; Section 6), unordered dimensional routing (all
        ``s!`` orders of the ``s`` differing dimensions, equally weighted; Section 7), or every shortest path
        equally weighted.
    tie : {"+", "both"}, optional
        Offsets of exactly ``k/2``: ``"+"`` (REC for ODR/UDR, the paper's restricted ODR) or ``"both"``
        (each direction half; default for ``"shortest"``).

    Returns
    -------
    numpy.ndarray
        Float array of length ``torus.num_channels`` indexed by channel id: ``sum over ordered pairs
        p != q of |paths of (p, q) through l| / |paths of (p, q)|``.

    Raises
    ------
    torus_lab._memory.MemoryLimitError
        (a ``MemoryError``) before allocating, when the estimated peak memory exceeds the limit
        (``TORUS_LAB_MEMORY_LIMIT``, default half the available memory).

    Notes
    -----
    Exact up to float rounding (checked against :func:`link_loads_reference` to 1e-9).

    For a union of ``t`` residue classes with ODR or UDR (``d >= 3``) the load of a link depends only on
    ``(c . x mod k, dim, sign)``: a table of ``k x d x 2`` loads is computed by a dynamic programme over
    the dimensions on ``(c . y, c . delta - c . y)`` classes (UDR also counting corrected and pending
    dimensions), in ``O(d^4 k^3 + t d k^3)`` time and ``O(d^2 k^2)`` memory, and the result is written out in
    chunks of nodes.  Peak memory: the result (``8 x 2d x k^d`` bytes) + ``4 k^d`` (node classes) + small.
    ``d <= 2`` (where ``k^3`` would exceed ``k^d``) and ``"shortest"`` use one ``(k,)*d`` flow grid per class
    (``O(d k^d)`` memory, UDR ``O(d^2 k^d)``); a plain node
    set uses ``|P|`` flows on the grid (UDR ``O(d^2 k^d)`` memory).  The peak is estimated up front and
    checked with the memory limit.

    Examples
    --------
    >>> torus = Torus(3, 4)
    >>> loads = link_loads(torus, linear_placement(torus), "udr")
    >>> loads.shape, round(float(loads.max()), 4)
    ((384,), 3.6667)
    """
    k = _check_torus(torus)
    placement = _as_placement(torus, placement)
    routing, tie = _resolve_routing(routing, tie)
    d = torus.n
    check_memory(
        _load_estimate(torus, placement, routing),
        f"link_loads({routing!r}, {placement.kind} placement of {placement.size:,}) on {network_size(torus)}",
    )
    if placement.coefficients is None:
        return _node_set_loads(torus, placement, routing, tie)
    residues = tuple(int(r) for r in placement.residues)  # type: ignore[union-attr]
    if routing == "shortest" or d <= 2:
        table = _class_table_grid(k, d, placement.coefficients, residues, routing, tie)
    else:
        table = _class_table(k, placement.coefficients, residues, routing, tie)
    return _fill_from_class_table(torus, _outer_classes(k, placement.coefficients[::-1]), table)


# ---------------------------------------------------------------------- reference enumeration
def enumerate_paths(
    torus: Torus, source: Iterable[int], target: Iterable[int], routing: str = "odr", *, tie: str | None = None
) -> list[list[tuple[int, ...]]]:
    """Every path of the routing's path set ``C_{p -> q}`` as a node list (duplicates kept for k = 2 ties).

    ODR and UDR walk the differing dimensions in one order (ODR) or in every order (UDR), each along its
    shortest direction (both directions at a tie with ``tie="both"``).  ``"shortest"`` enumerates every
    shortest path by depth-first search on BFS distances of the graph (with ``tie="+"`` only those moving
    ``+`` in tied dimensions), independently of the lattice-path counting of :func:`link_loads`.

    Examples
    --------
    >>> enumerate_paths(Torus(2, 5), (0, 0), (1, 4), "udr")
    [[(0, 0), (1, 0), (1, 4)], [(0, 0), (0, 4), (1, 4)]]
    """
    k = _check_torus(torus)
    routing, tie = _resolve_routing(routing, tie)
    p, q = torus.check_node(source, "source"), torus.check_node(target, "target")
    offset = torus.signed_offset(p, q, tie="+")
    tied = [j for j in range(torus.n) if offset[j] != 0 and 2 * abs(offset[j]) == k]
    if routing == "shortest":
        return _all_shortest_paths(torus, p, q, tied if (tie == "+" and k > 2) else [])
    differing = [j for j in range(torus.n) if offset[j] != 0]
    orders = [tuple(differing)] if routing == "odr" else list(itertools.permutations(differing))
    sign_options = [(1, -1) if (j in tied and tie == "both") else (1 if offset[j] > 0 else -1,) for j in differing]
    paths = []
    for order in orders:
        for chosen in itertools.product(*sign_options):
            sign_of = dict(zip(differing, chosen, strict=True))
            node = list(p)
            path = [tuple(node)]
            for j in order:
                for _ in range(abs(offset[j])):
                    node[j] = (node[j] + sign_of[j]) % k
                    path.append(tuple(node))
            paths.append(path)
    return paths


@functools.lru_cache(maxsize=1024)
def _distances_to(torus: Torus, target: tuple[int, ...]) -> np.ndarray:
    """BFS hop distances to ``target`` (the torus is symmetric: distance to = distance from)."""
    return bfs_distances(torus, target)


def _all_shortest_paths(torus: Torus, p: tuple, q: tuple, plus_only_dims: list[int]) -> list[list[tuple]]:
    k = torus.radices[0]
    dist = _distances_to(torus, q)
    strides = [int(v) for v in torus.strides]
    out: list[list[tuple]] = []

    def node_id(node: tuple) -> int:
        return sum(c * s for c, s in zip(node, strides, strict=True))

    def extend(path: list[tuple]) -> None:
        node = path[-1]
        if node == q:
            out.append(list(path))
            return
        here = dist[node_id(node)]
        for j in range(torus.n):
            for step in (1, -1) if k > 2 else (1,):
                if step == -1 and j in plus_only_dims:
                    continue
                nxt = node[:j] + ((node[j] + step) % k,) + node[j + 1 :]
                if dist[node_id(nxt)] == here - 1:
                    path.append(nxt)
                    extend(path)
                    path.pop()

    extend([p])
    return out


@functools.lru_cache(maxsize=64)
def _channel_of_hop(torus: Torus) -> dict[tuple[int, int], int]:
    """``{(source id, target id): channel id}`` for every channel."""
    return {(int(a), int(b)): cid for cid, (a, b) in enumerate(zip(torus.channel_src, torus.channel_dst, strict=True))}


def link_loads_reference(
    torus: Torus,
    placement: Placement | Iterable,
    routing: str = "odr",
    *,
    tie: str | None = None,
    exact: bool = False,
) -> np.ndarray | list[Fraction]:
    """Plain per-pair enumeration of Definition 4 (the test oracle for :func:`link_loads`).

    Every ordered pair ``p != q`` splits one unit evenly over :func:`enumerate_paths`; each hop is mapped to
    the channel joining its two nodes in the topology's channel table.  Sums are exact
    :class:`fractions.Fraction`.  Cost ``O(|P|^2 x paths x length)``: small cases only.

    Returns
    -------
    numpy.ndarray of float, or list of Fraction when ``exact=True``.

    Examples
    --------
    >>> torus = Torus(2, 3)
    >>> ref = link_loads_reference(torus, linear_placement(torus), "odr", exact=True)
    >>> sum(ref)
    Fraction(12, 1)
    """
    _check_torus(torus)
    placement = _as_placement(torus, placement)
    routing, tie = _resolve_routing(routing, tie)
    totals = [Fraction(0)] * torus.num_channels
    nodes = placement.nodes()
    hop_channel = _channel_of_hop(torus)
    strides = [int(v) for v in torus.strides]
    for p in nodes:
        for q in nodes:
            if p == q:
                continue
            paths = enumerate_paths(torus, p, q, routing, tie=tie)
            share = Fraction(1, len(paths))
            for path in paths:
                ids = [sum(c * s for c, s in zip(v, strides, strict=True)) for v in path]
                for a, b in itertools.pairwise(ids):
                    totals[hop_channel[(a, b)]] += share
    if check_instance("exact", exact, (bool, np.bool_), "a bool"):
        return totals
    return np.asarray([float(v) for v in totals])


# ---------------------------------------------------------------------- summaries
def e_max(loads: np.ndarray) -> float:
    """``E_max = max_l E(l)`` (Definition 5); 0 for a placement of one processor.

    Examples
    --------
    >>> e_max(np.array([0.5, 2.0, 1.0]))
    2.0
    """
    loads = check_real_array("loads", loads)
    if loads.ndim != 1 or loads.size == 0:
        raise ValueError(f"loads must be a non-empty 1-D array, got shape {loads.shape}")
    return float(loads.max())


def load_frame(torus: Torus, loads: np.ndarray, placement: Placement | None = None) -> pd.DataFrame:
    """One row per channel: ``channel, x0..x{d-1}, dim, sign, load`` (+ ``residue`` = ``c . x mod k`` of the
    channel's source node when ``placement`` is a union of residue classes).

    Examples
    --------
    >>> torus = Torus(2, 3)
    >>> frame = load_frame(torus, link_loads(torus, linear_placement(torus)), linear_placement(torus))
    >>> list(frame.columns)
    ['channel', 'x0', 'x1', 'dim', 'sign', 'load', 'residue']
    """
    _check_torus(torus)
    loads = check_real_array("loads", loads)
    if placement is not None:
        placement = _as_placement(torus, check_instance("placement", placement, Placement))
    if loads.shape != (torus.num_channels,):
        raise ValueError(f"loads has shape {loads.shape}, expected ({torus.num_channels},)")
    coords = torus.all_coords()[torus.channel_src]  # the node table, gathered (no division per channel)
    frame = pd.DataFrame({"channel": np.arange(torus.num_channels)})
    for j in range(torus.n):
        frame[f"x{j}"] = coords[:, j]
    frame["dim"] = torus.channel_dim
    frame["sign"] = torus.channel_sign
    frame["load"] = loads
    if placement is not None and placement.coefficients is not None:
        frame["residue"] = (coords @ np.asarray(placement.coefficients)) % torus.radices[0]
    return frame


def loads_by_dimension(torus: Torus, loads: np.ndarray) -> pd.DataFrame:
    """Distribution of link loads per ``(dim, sign)``: count, min, mean, max, std, number at the maximum.

    Examples
    --------
    >>> torus = Torus(2, 4)
    >>> table = loads_by_dimension(torus, link_loads(torus, linear_placement(torus)))
    >>> table["max"].tolist()
    [1.0, 2.0, 1.0, 2.0]
    """
    frame = load_frame(torus, loads)
    top = frame["load"].max()
    grouped = frame.groupby(["dim", "sign"])["load"]
    table = grouped.agg(["count", "min", "mean", "max", "std"]).reset_index()
    table["links_at_e_max"] = grouped.apply(lambda s: int(np.isclose(s, top, rtol=1e-12, atol=1e-12).sum())).values
    return table


# ---------------------------------------------------------------------- lower bounds
@dataclass(frozen=True)
class CutBound:
    """A Lemma 1 bound ``2 |S| (|P| - |S|) / |dS|`` for a node set ``S`` (``|S|`` = processors in it)."""

    value: float
    processors_inside: int
    boundary: int
    description: str
    node_mask: np.ndarray = field(repr=False, compare=False)


def single_node_bound(torus: Torus, placement: Placement | Iterable) -> float:
    """Bound (1) of Blaum et al.: ``E_max >= (|P| - 1) / (2d)``.

    Examples
    --------
    >>> single_node_bound(Torus(3, 4), linear_placement(Torus(3, 4)))
    2.5
    """
    _check_torus(torus)
    placement = _as_placement(torus, placement)
    return (placement.size - 1) / (2 * torus.n)


def _boundary(torus: Torus, node_mask: np.ndarray) -> int:
    return int((node_mask[torus.channel_src] != node_mask[torus.channel_dst]).sum())


def _node_mask(torus: Torus, node_set: object) -> np.ndarray:
    if isinstance(node_set, np.ndarray) and node_set.dtype == bool:
        if node_set.shape != (torus.num_nodes,):
            raise ValueError(f"node_set mask has shape {node_set.shape}, expected ({torus.num_nodes},)")
        return node_set
    mask = np.zeros(torus.num_nodes, dtype=bool)
    for v in check_sequence("node_set", node_set):
        mask[torus.node_id(torus.check_node(v, "node_set node"))] = True
    return mask


def lemma1_bound(torus: Torus, placement: Placement | Iterable, node_set: Iterable | np.ndarray) -> CutBound:
    """Lemma 1, eq. (4): ``E_max >= 2 |S| (|P| - |S|) / |dS|`` for a node set ``S``.

    ``|S|`` counts the processors in ``S``; ``dS`` is every directed link with one end in ``S`` (both
    directions), as in the paper's reduction of (4) to (1) with ``|dS| = 4d``.

    Parameters
    ----------
    node_set : iterable of nodes or boolean mask over node ids
        Must be a proper non-empty subset of the nodes.

    Examples
    --------
    >>> torus = Torus(2, 4)
    >>> lemma1_bound(torus, linear_placement(torus), [(0, 0)]).value   # (|P| - 1) / (2d)
    0.75
    """
    _check_torus(torus)
    placement = _as_placement(torus, placement)
    mask = _node_mask(torus, node_set)
    boundary = _boundary(torus, mask)
    if boundary == 0:
        raise ValueError("node_set must be a proper non-empty subset of the torus' nodes (its boundary is empty)")
    inside = int(mask[placement.node_ids].sum())
    value = 2 * inside * (placement.size - inside) / boundary
    return CutBound(value, inside, boundary, "node set", mask)


def _slab_mask(torus: Torus, dim: int, start: int, width: int) -> np.ndarray:
    k = torus.radices[0]
    return ((torus.all_coords()[:, dim] - start) % k) < width


@functools.lru_cache(maxsize=256)
def _slab_boundary(torus: Torus, dim: int, width: int) -> int:
    """Links leaving the slab ``{x : x_dim mod k < width}`` (any start has as many); cached per torus, which
    compares by value (the studies ask for the same slabs for every placement).

    >>> _slab_boundary(Torus(2, 4), 0, 2)   # two cut rings of 4 links, both directions
    16
    """
    return _boundary(torus, _slab_mask(torus, dim, 0, width))


def natural_cut_bound(torus: Torus, placement: Placement | Iterable, *, widths: str = "half") -> CutBound:
    """Best Lemma 1 bound over slabs ``{x : (x_j - a) mod k < w}`` (half-tori for ``widths="half"``).

    ``widths="half"`` uses ``w = floor(k/2)`` (the natural cuts: half-tori along each dimension, every start
    ``a``); ``widths="all"`` tries every ``1 <= w < k``.

    Examples
    --------
    >>> torus = Torus(3, 8)
    >>> cut = natural_cut_bound(torus, linear_placement(torus))
    >>> cut.value, cut.boundary, cut.value / 8 ** 2    # k^(d-1)/8 for a linear placement
    (8.0, 256, 0.125)
    """
    k = _check_torus(torus)
    placement = _as_placement(torus, placement)
    if not isinstance(widths, str) or widths not in ("half", "all"):
        raise ValueError(f"widths must be 'half' or 'all', got {widths!r}")
    width_list = [k // 2] if widths == "half" else list(range(1, k))
    coords = placement.coords()
    best: CutBound | None = None
    for dim in range(torus.n):
        histogram = np.bincount(coords[:, dim], minlength=k)
        doubled = np.concatenate([histogram, histogram])
        for width in width_list:
            boundary = _slab_boundary(torus, dim, width)  # the boundary of a slab does not depend on its start
            windows = np.array([doubled[a : a + width].sum() for a in range(k)])
            values = 2 * windows * (placement.size - windows) / boundary
            start = int(np.argmax(values))
            if best is None or values[start] > best.value:
                best = CutBound(
                    float(values[start]),
                    int(windows[start]),
                    boundary,
                    f"slab dim={dim} start={start} width={width}",
                    _slab_mask(torus, dim, start, width),
                )
    assert best is not None
    return best


def _neighbor_table(torus: Torus) -> np.ndarray:
    order = np.argsort(torus.channel_src, kind="stable")
    per_node = torus.num_channels // torus.num_nodes
    return torus.channel_dst[order].reshape(torus.num_nodes, per_node)


def _improve_cut(torus: Torus, processors: np.ndarray, mask: np.ndarray, neighbors: np.ndarray, max_steps: int):
    """Greedy single-node moves that raise ``2 m (|P| - m) / |dS|``; returns the final mask."""
    total = int(processors.sum())
    mask = mask.copy()
    for _ in range(max_steps):
        inside = int(processors[mask].sum())
        boundary = _boundary(torus, mask)
        current = 2 * inside * (total - inside) / boundary if boundary else -1.0
        same = (mask[neighbors] == mask[:, None]).sum(axis=1)
        cross = neighbors.shape[1] - same
        new_boundary = boundary + 2 * (same - cross)  # out- and in-links of the moved node
        new_inside = inside + np.where(mask, -1, 1) * processors
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(new_boundary > 0, 2 * new_inside * (total - new_inside) / new_boundary, -1.0)
        best = int(np.argmax(values))
        if values[best] <= current * (1 + 1e-12):
            break
        mask[best] = ~mask[best]
    return mask


#: Budgets :func:`balanced_cut_search` accepts (restarts x improvement steps per restart).
MAX_RESTARTS = 1000
MAX_STEPS = 100_000


def balanced_cut_search(
    torus: Torus,
    placement: Placement | Iterable,
    *,
    seed: int | np.random.SeedSequence = 0,
    restarts: int = 8,
    max_steps: int = 200,
) -> CutBound:
    """Search node sets ``S`` for a large Lemma 1 bound (4): greedy single-node moves from several starts.

    Starts: every half-torus slab, and ``restarts`` random boxes (a random interval per dimension, about half
    the processors inside).  Each start is improved by greedy single-node moves (at most ``max_steps``); the
    best bound found is returned.  This is a heuristic search: the result is a valid lower bound on
    ``E_max`` but not necessarily the best Lemma 1 bound.

    Examples
    --------
    >>> torus = Torus(2, 6)
    >>> cut = balanced_cut_search(torus, linear_placement(torus), seed=1)
    >>> cut.value >= natural_cut_bound(torus, linear_placement(torus)).value
    True
    """
    k = _check_torus(torus)
    placement = _as_placement(torus, placement)
    restarts = check_int("restarts", restarts, maximum=MAX_RESTARTS)
    max_steps = check_int("max_steps", max_steps, maximum=MAX_STEPS)
    if restarts < 0 or max_steps < 0:
        raise ValueError(f"restarts and max_steps must be >= 0, got {restarts}, {max_steps}")
    if not isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(check_int("seed", seed, minimum=0))
    rng = np.random.default_rng(seed)
    processors = placement.mask().astype(np.int64)
    neighbors = _neighbor_table(torus)
    coords = torus.all_coords()
    starts = [_slab_mask(torus, dim, a, k // 2) for dim in range(torus.n) for a in range(k)]
    for _ in range(restarts):
        lo = rng.integers(0, k, size=torus.n)
        width = rng.integers(max(1, k // 4), k, size=torus.n)
        starts.append((((coords - lo) % k) < width).all(axis=1))
    best: CutBound | None = None
    for start in starts:
        if not start.any() or start.all():
            continue
        mask = _improve_cut(torus, processors, start, neighbors, max_steps)
        bound = lemma1_bound(torus, placement, mask)
        if best is None or bound.value > best.value:
            best = CutBound(bound.value, bound.processors_inside, bound.boundary, "greedy search", mask)
    if best is None:  # k = 2, d = 1 style corner: fall back to the natural cut
        return natural_cut_bound(torus, placement)
    return best


def cut_lower_bound(
    torus: Torus, placement: Placement | Iterable, *, search: bool = True, seed: int = 0, max_steps: int = 200
) -> float:
    """Best lower bound on ``E_max`` found from (1), natural cuts and (optionally) the greedy cut search.

    Examples
    --------
    >>> torus = Torus(2, 8)
    >>> cut_lower_bound(torus, linear_placement(torus), search=False)   # (1) wins for d = 2
    1.75
    """
    placement = _as_placement(torus, placement)
    check_instance("search", search, (bool, np.bool_), "a bool")
    values = [single_node_bound(torus, placement), natural_cut_bound(torus, placement, widths="all").value]
    if search:
        values.append(balanced_cut_search(torus, placement, seed=seed, max_steps=max_steps).value)
    return float(max(values))


def bisection_width_upper_bound(torus: Torus) -> int:
    """Corollary 1: ``|d_b P| <= 6 d k^(d-1)`` directed links, for every placement ``P``.

    Examples
    --------
    >>> bisection_width_upper_bound(Torus(3, 4))
    288
    """
    k = _check_torus(torus)
    return 6 * torus.n * k ** (torus.n - 1)


def natural_bisection_width(torus: Torus, placement: Placement | Iterable) -> int | None:
    """Smallest boundary of a slab (any dimension, start, width) that splits ``P`` evenly (within one);
    an upper bound on ``|d_b P|`` (Definition 8), or None when no slab bisects ``P``.

    Examples
    --------
    >>> natural_bisection_width(Torus(3, 4), linear_placement(Torus(3, 4)))   # 4 k^(d-1)
    64
    """
    k = _check_torus(torus)
    placement = _as_placement(torus, placement)
    coords = placement.coords()
    best: int | None = None
    for dim in range(torus.n):
        histogram = np.bincount(coords[:, dim], minlength=k)
        doubled = np.concatenate([histogram, histogram])
        for width in range(1, k):
            counts = [int(doubled[a : a + width].sum()) for a in range(k)]
            if any(abs(2 * c - placement.size) <= 1 for c in counts):
                boundary = _slab_boundary(torus, dim, width)
                best = boundary if best is None else min(best, boundary)
    return best


def placement_bisection_width_bruteforce(torus: Torus, placement: Placement | Iterable) -> int:
    """Exact ``|d_b P|`` (Definition 8) by trying every split of the nodes; tiny tori only (<= 20 nodes).

    Examples
    --------
    >>> placement_bisection_width_bruteforce(Torus(2, 4), linear_placement(Torus(2, 4)))
    16
    """
    _check_torus(torus)
    placement = _as_placement(torus, placement)
    if torus.num_nodes > 20:
        raise ValueError(f"brute force needs at most 20 nodes, the torus has {torus.num_nodes}")
    subsets = np.arange(1 << (torus.num_nodes - 1), dtype=np.int64)  # node n-1 always outside: halves symmetry
    bits = (subsets[:, None] >> np.arange(torus.num_nodes)) & 1
    inside = bits[:, placement.node_ids].sum(axis=1)
    balanced = np.abs(2 * inside - placement.size) <= 1
    bits = bits[balanced]
    crossing = (bits[:, torus.channel_src] != bits[:, torus.channel_dst]).sum(axis=1)
    return int(crossing.min())


# ---------------------------------------------------------------------- Corollary 1 over any placement
#: Largest torus (nodes) :func:`all_placement_bisection_widths` enumerates (every placement: 2^N of them).
MAX_EXHAUSTIVE_NODES = 16
#: Budgets :func:`bisection_slack_search` accepts (restarts x steps).
MAX_SEARCH_RESTARTS = 1000
MAX_SEARCH_STEPS = 100_000
#: Objectives of :func:`bisection_slack_search`: the exact width (brute force, tiny tori) or a certified cut.
SLACK_OBJECTIVES = ("exact", "certified")


def random_placements(torus: Torus, count: int, *, seed: int | np.random.SeedSequence = 0,
                      min_size: int = 2) -> list[Placement]:  # fmt: skip
    """``count`` random placements (Definition 2): each draws its size uniformly in ``min_size..N`` and then its
    nodes uniformly without replacement (``N`` = nodes of the torus).  The sample Corollary 1's "any placement" is
    checked on (``docs/conventions.md#loads-any-placement``).

    Examples
    --------
    >>> ps = random_placements(Torus(2, 4), 3, seed=1)
    >>> len(ps), all(2 <= p.size <= 16 for p in ps)
    (3, True)
    """
    _check_torus(torus)
    count = check_int("count", count, minimum=0, maximum=10**6)
    min_size = check_int("min_size", min_size, minimum=1, maximum=torus.num_nodes)
    rng = np.random.default_rng(_seed_sequence(seed))
    out = []
    for _ in range(count):
        size = int(rng.integers(min_size, torus.num_nodes + 1))
        ids = np.sort(rng.choice(torus.num_nodes, size=size, replace=False)).astype(np.int64)
        ids.setflags(write=False)
        out.append(Placement(torus, ids, "nodes"))
    return out


def _seed_sequence(seed: object) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    return np.random.SeedSequence(check_int("seed", seed, minimum=0))


@functools.lru_cache(maxsize=32)
def _staircase_orders(torus: Torus) -> tuple[np.ndarray, np.ndarray]:
    """Node orders of the staircase cuts and the boundary of every prefix: ``(perms, boundary)``, both
    ``(orders, N)``; ``boundary[o, m - 1]`` = directed links leaving the first ``m`` nodes of order ``o``.

    One order per dimension ``j`` and start ``a``: nodes sorted by ``(x_j - a) mod k``, then by the other
    coordinates (lexicographic), so every prefix is a slab of whole layers plus a prefix of the next layer.

    >>> perms, boundary = _staircase_orders(Torus(2, 4))
    >>> perms.shape, int(boundary[0, 3])     # the first layer (one row of 4 nodes): 2 x 4 links each way
    ((8, 16), 16)
    """
    k, d, n = torus.radices[0], torus.n, torus.num_nodes
    coords = torus.all_coords()
    perms, bounds = [], []
    for j in range(d):
        others = [coords[:, i] for i in reversed(range(d)) if i != j]
        for a in range(k):
            perm = np.lexsort((*others, (coords[:, j] - a) % k))
            rank = np.empty(n, dtype=np.int64)
            rank[perm] = np.arange(n)
            lo = np.minimum(rank[torus.channel_src], rank[torus.channel_dst])
            hi = np.maximum(rank[torus.channel_src], rank[torus.channel_dst])
            diff = np.bincount(lo + 1, minlength=n + 2) - np.bincount(hi + 1, minlength=n + 2)
            perms.append(perm)
            bounds.append(np.cumsum(diff)[1 : n + 1])
    return np.array(perms), np.array(bounds)


def certified_bisection_width(torus: Torus, placement: Placement | Iterable) -> int:
    """An upper bound on ``|d_b P|`` (Definition 8) certified by a cut: the fewest directed links leaving a
    staircase node set (a slab of whole layers of one dimension plus a lexicographic prefix of the next layer,
    every dimension and start) that holds half of ``P`` (within one).  Such a set exists for every placement, so
    the bound is always defined; it equals :func:`natural_bisection_width` or beats it
    (``docs/conventions.md#loads-any-placement``).

    Examples
    --------
    >>> torus = Torus(3, 4)
    >>> certified_bisection_width(torus, linear_placement(torus)) <= natural_bisection_width(
    ...     torus, linear_placement(torus))
    True
    >>> certified_bisection_width(Torus(2, 3), [(0, 0), (1, 1)])     # a single node's 4 links, both ways
    8
    """
    _check_torus(torus)
    placement = _as_placement(torus, placement)
    perms, boundary = _staircase_orders(torus)
    counts = np.cumsum(placement.mask()[perms], axis=1)
    balanced = np.abs(2 * counts - placement.size) <= 1
    balanced[:, -1] = False  # the whole torus is no split
    if placement.size <= 1:
        return 0
    return int(boundary[balanced].min())


@njit
def _popcount64(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit
def _widths_kernel(split_masks, split_bounds, num_nodes):
    """Exact ``|d_b P|`` of every placement mask ``P`` (index), from the splits sorted by boundary."""
    out = np.zeros(1 << num_nodes, dtype=np.int64)
    for p in range(1, 1 << num_nodes):
        size = _popcount64(p)
        for j in range(split_masks.shape[0]):
            inside = _popcount64(p & split_masks[j])
            if abs(2 * inside - size) <= 1:
                out[p] = split_bounds[j]
                break
    return out


def all_placement_bisection_widths(torus: Torus) -> np.ndarray:
    """Exact ``|d_b P|`` (Definition 8) of every placement of a tiny torus (at most
    :data:`MAX_EXHAUSTIVE_NODES` nodes): entry ``m`` is the width of the placement whose node ids are the set bits
    of ``m`` (entry 0, the empty placement, is 0).  Each split of the nodes is tried once (node ``N - 1`` outside,
    the other side being its complement), in increasing order of its boundary; a placement's width is the
    boundary of the first split that halves it.

    Examples
    --------
    >>> widths = all_placement_bisection_widths(Torus(2, 3))
    >>> widths.shape, int(widths.max()), int(widths[0b11])   # two neighbours: cut one off, 4 links both ways
    ((512,), 16, 8)
    """
    _check_torus(torus)
    n = torus.num_nodes
    if n > MAX_EXHAUSTIVE_NODES:
        raise ValueError(f"torus must have at most {MAX_EXHAUSTIVE_NODES} nodes to enumerate every placement, "
                         f"{torus!r} has {n}")
    subsets = np.arange(1 << (n - 1), dtype=np.int64)
    bits = ((subsets[:, None] >> np.arange(n)) & 1).astype(bool)
    boundary = (bits[:, torus.channel_src] != bits[:, torus.channel_dst]).sum(axis=1)
    order = np.argsort(boundary, kind="stable")
    return _widths_kernel(subsets[order], boundary[order].astype(np.int64), n)


@dataclass(frozen=True)
class BisectionSlack:
    """The placement of least Corollary 1 slack a :func:`bisection_slack_search` found.

    Attributes
    ----------
    placement : Placement
    width : int
        Its ``|d_b P|`` (``exact``) or a certified upper bound on it (a cut that halves ``P``).
    bound : int
        Corollary 1's ``6 d k^(d-1)``.
    exact : bool
        Whether ``width`` is the exact bisection width.
    evaluations : int
        Placements whose width the search computed.
    """

    placement: Placement
    width: int
    bound: int
    exact: bool
    evaluations: int

    @property
    def slack(self) -> int:
        """``bound - width``: negative would contradict Corollary 1 (when ``exact``)."""
        return self.bound - self.width


def bisection_slack_search(torus: Torus, *, seed: int | np.random.SeedSequence = 0, restarts: int = 4,
                           steps: int = 200, objective: str = "certified") -> BisectionSlack:  # fmt: skip
    """Adversarial search for a placement of least Corollary 1 slack ``6 d k^(d-1) - |d_b P|``: hill climbing on
    the placement (from each of ``restarts`` random placements, ``steps`` proposals that add or remove one random
    node, accepted when the width does not fall), maximising the exact width (``objective="exact"``, brute force,
    at most 20 nodes) or the certified upper bound :func:`certified_bisection_width` (``"certified"``)
    (``docs/conventions.md#loads-any-placement``).  A heuristic: the least slack it reports is an upper bound on
    the least slack over every placement (for ``"exact"``; a certified width can only overstate ``|d_b P|``).

    Examples
    --------
    >>> found = bisection_slack_search(Torus(2, 3), seed=1, restarts=2, steps=30, objective="exact")
    >>> found.bound, found.slack >= 36 - int(all_placement_bisection_widths(Torus(2, 3)).max())
    (36, True)
    """
    _check_torus(torus)
    restarts = check_int("restarts", restarts, minimum=1, maximum=MAX_SEARCH_RESTARTS)
    steps = check_int("steps", steps, minimum=0, maximum=MAX_SEARCH_STEPS)
    check_str("objective", objective, SLACK_OBJECTIVES)
    if objective == "exact" and torus.num_nodes > 20:
        raise ValueError(f"objective 'exact' brute-forces the bisection (at most 20 nodes), {torus!r} has "
                         f"{torus.num_nodes}")
    rng = np.random.default_rng(_seed_sequence(seed))
    n = torus.num_nodes
    width_of = placement_bisection_width_bruteforce if objective == "exact" else certified_bisection_width

    def score(mask: np.ndarray) -> int:
        ids = np.flatnonzero(mask).astype(np.int64)
        ids.setflags(write=False)
        return width_of(torus, Placement(torus, ids, "nodes"))

    best_mask, best, evaluations = None, -1, 0
    for _ in range(restarts):
        mask = np.zeros(n, dtype=bool)
        mask[rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False)] = True
        current = score(mask)
        evaluations += 1
        for _ in range(steps):
            trial = mask.copy()
            trial[int(rng.integers(n))] ^= True
            if trial.sum() < 2:
                continue
            value = score(trial)
            evaluations += 1
            if value >= current:
                mask, current = trial, value
        if current > best:
            best_mask, best = mask, current
    ids = np.flatnonzero(best_mask).astype(np.int64)
    ids.setflags(write=False)
    return BisectionSlack(Placement(torus, ids, "nodes"), int(best), bisection_width_upper_bound(torus),
                          objective == "exact", evaluations)


# ---------------------------------------------------------------------- the best routing of a placement
#: Largest number of ordered processor pairs :func:`optimal_routing_load` accepts (one flow per pair).
MAX_LP_PAIRS = 20_000


def _lee_from(torus: Torus, node: int) -> np.ndarray:
    """Lee distance of every node from ``node``."""
    k = torus.radices[0]
    diff = np.abs(torus.all_coords() - torus.coords(node)) % k
    return np.minimum(diff, k - diff).sum(axis=1)


def _pair_flow_rows(torus: Torus, dist: dict[int, np.ndarray], p: int, q: int, first_var: int, first_row: int):
    """One pair's shortest-path DAG as LP pieces: the channels of its variables, the conservation entries
    (row, variable, +-1), the right-hand side and the rows used."""
    src, dst = torus.channel_src, torus.channel_dst
    on = np.flatnonzero(dist[p][src] + 1 + dist[q][dst] == dist[p][q])
    var = np.arange(first_var, first_var + on.size)
    nodes = np.unique(src[on])  # every DAG node but q has an out-channel
    row_of = np.full(torus.num_nodes, -1, dtype=np.int64)
    row_of[nodes] = first_row + np.arange(nodes.size)
    keep = dst[on] != q
    rows = np.concatenate([row_of[src[on]], row_of[dst[on][keep]]])
    cols = np.concatenate([var, var[keep]])
    vals = np.concatenate([np.ones(on.size), -np.ones(int(keep.sum()))])
    rhs = np.zeros(nodes.size)
    rhs[row_of[p] - first_row] = 1.0
    return on, (rows, cols, vals), rhs, nodes.size


def optimal_routing_load(torus: Torus, placement: Placement | Iterable) -> float:
    """The least ``E_max`` of complete exchange on ``placement`` over every routing on shortest paths that splits
    each ordered pair's unit of traffic over its shortest paths in any fractions (a linear programme: one flow per
    pair on its shortest-path DAG, the largest link load minimised; HiGHS).  Definition 3 splits equally over a
    subset of the shortest paths, so this is a lower bound on the ``E_max`` of every such routing, the paper's and
    Blaum et al.'s included (``docs/conventions.md#loads-optimal-routing``).

    Examples
    --------
    >>> torus = Torus(2, 5)
    >>> optimal_routing_load(torus, linear_placement(torus)), single_node_bound(torus, linear_placement(torus))
    (1.0, 1.0)
    """
    from scipy import sparse
    from scipy.optimize import linprog

    _check_torus(torus)
    placement = _as_placement(torus, placement)
    pairs = placement.size * (placement.size - 1)
    if pairs > MAX_LP_PAIRS:
        raise ValueError(f"placement has {pairs} ordered pairs; optimal_routing_load accepts at most {MAX_LP_PAIRS}")
    if pairs == 0:
        return 0.0
    nodes = [int(v) for v in placement.node_ids]
    dist = {p: _lee_from(torus, p) for p in nodes}
    load_rows, load_cols, eq, rhs = [], [], [], []
    n_var = n_row = 0
    for p in nodes:
        for q in nodes:
            if p == q:
                continue
            on, entries, b, used = _pair_flow_rows(torus, dist, p, q, n_var, n_row)
            load_rows.append(on)
            load_cols.append(np.arange(n_var, n_var + on.size))
            eq.append(entries)
            rhs.append(b)
            n_var, n_row = n_var + on.size, n_row + used
    channels = torus.num_channels
    a_ub = sparse.hstack([sparse.csr_matrix((np.ones(n_var), (np.concatenate(load_rows), np.concatenate(load_cols))),
                                            shape=(channels, n_var)),
                          sparse.csr_matrix(-np.ones((channels, 1)))]).tocsr()  # fmt: skip
    rows, cols, vals = (np.concatenate([e[i] for e in eq]) for i in range(3))
    a_eq = sparse.csr_matrix((vals, (rows, cols)), shape=(n_row, n_var + 1))
    cost = np.zeros(n_var + 1)
    cost[-1] = 1.0
    result = linprog(cost, A_ub=a_ub, b_ub=np.zeros(channels), A_eq=a_eq, b_eq=np.concatenate(rhs),
                     bounds=(0, None), method="highs")
    if not result.success:  # pragma: no cover - a feasible, bounded programme by construction
        raise RuntimeError(f"the routing programme did not solve: {result.message}")
    return float(result.fun)
