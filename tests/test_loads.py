"""Tests of torus_lab.loads: fast link loads against per-pair enumeration, conservation, symmetry, bounds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.loads import (
    ROUTINGS,
    TIE_MODES,
    balanced_cut_search,
    bisection_width_upper_bound,
    cut_lower_bound,
    e_max,
    enumerate_paths,
    lemma1_bound,
    linear_placement,
    link_loads,
    link_loads_reference,
    load_frame,
    loads_by_dimension,
    multiple_linear_placement,
    natural_bisection_width,
    natural_cut_bound,
    node_placement,
    placement_bisection_width_bruteforce,
    residue_placement,
    single_node_bound,
)
from torus_lab.topology import Mesh, Torus, is_simple, is_walk


def total_path_length(torus: Torus, placement) -> int:
    coords = placement.coords()
    return int(sum(torus.lee_distance(p, q) for p in map(tuple, coords) for q in map(tuple, coords)))


def placements_of(torus: Torus) -> list:
    k = torus.radices[0]
    out = [linear_placement(torus), linear_placement(torus, constant=k - 1)]
    coprime = next(c for c in range(2, k + 2) if math.gcd(c, k) == 1)
    out.append(linear_placement(torus, coefficients=[coprime] + [0] * (torus.n - 1), constant=1 % k))
    if k > 2:
        out.append(multiple_linear_placement(torus, 2))
        out.append(residue_placement(torus, [0, k - 1]))
    rng = np.random.default_rng(torus.num_nodes)
    chosen = rng.choice(torus.num_nodes, size=min(torus.num_nodes, 6), replace=False)
    out.append(node_placement(torus, [torus.coords(int(v)) for v in chosen]))
    return out


SMALL = [(1, 5), (1, 6), (2, 2), (2, 3), (2, 4), (2, 5), (3, 2), (3, 3), (3, 4), (4, 2)]


# ---------------------------------------------------------------------- fast == per-pair enumeration
@pytest.mark.parametrize(("d", "k"), SMALL)
@pytest.mark.parametrize("routing", ROUTINGS)
def test_fast_matches_enumeration(d: int, k: int, routing: str) -> None:
    torus = Torus(d, k)
    for placement in placements_of(torus):
        for tie in TIE_MODES:
            fast = link_loads(torus, placement, routing, tie=tie)
            reference = link_loads_reference(torus, placement, routing, tie=tie)
            np.testing.assert_allclose(fast, reference, atol=1e-9, rtol=0, err_msg=f"{placement.kind} {tie}")


def test_reference_is_exact_fraction_sum() -> None:
    torus = Torus(2, 4)
    exact = link_loads_reference(torus, linear_placement(torus), "udr", exact=True)
    assert sum(exact) == total_path_length(torus, linear_placement(torus))
    np.testing.assert_allclose(link_loads(torus, linear_placement(torus), "udr"), [float(v) for v in exact])


@settings(max_examples=30, deadline=None)
@given(
    d=st.integers(1, 3),
    k=st.integers(2, 5),
    routing=st.sampled_from(ROUTINGS),
    tie=st.sampled_from(TIE_MODES),
    data=st.data(),
)
def test_fast_matches_enumeration_random_placements(d: int, k: int, routing: str, tie: str, data) -> None:
    torus = Torus(d, k)
    size = data.draw(st.integers(1, min(torus.num_nodes, 7)))
    ids = data.draw(st.lists(st.integers(0, torus.num_nodes - 1), min_size=size, max_size=size, unique=True))
    placement = node_placement(torus, [torus.coords(v) for v in ids])
    fast = link_loads(torus, placement, routing, tie=tie)
    np.testing.assert_allclose(fast, link_loads_reference(torus, placement, routing, tie=tie), atol=1e-9, rtol=0)


@settings(max_examples=15, deadline=None)
@given(
    d=st.integers(1, 3),
    k=st.integers(3, 5),
    routing=st.sampled_from(ROUTINGS),
    data=st.data(),
)
def test_fast_matches_enumeration_random_linear(d: int, k: int, routing: str, data) -> None:
    torus = Torus(d, k)
    coefficients = data.draw(st.lists(st.integers(0, k - 1), min_size=d, max_size=d))
    if not any(math.gcd(c, k) == 1 for c in coefficients):
        coefficients[0] = 1
    residues = data.draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=2, unique=True))
    placement = residue_placement(torus, residues, coefficients)
    fast = link_loads(torus, placement, routing)
    np.testing.assert_allclose(fast, link_loads_reference(torus, placement, routing), atol=1e-9, rtol=0)


# ---------------------------------------------------------------------- the path sets themselves
@pytest.mark.parametrize("routing", ROUTINGS)
def test_enumerated_paths_are_shortest_walks(routing: str) -> None:
    torus = Torus(3, 4)
    for p, q in itertools.product([(0, 0, 0), (1, 3, 2)], [(2, 2, 1), (3, 1, 0), (0, 0, 2)]):
        paths = enumerate_paths(torus, p, q, routing, tie="both")
        assert paths
        for path in paths:
            assert path[0] == p and path[-1] == q
            assert is_walk(torus, path) and is_simple(path)
            assert len(path) - 1 == torus.lee_distance(p, q)


def test_path_counts_match_the_paper() -> None:
    torus = Torus(3, 5)  # odd k: ODR has one path, UDR s! paths (Section 7)
    p, q = (0, 0, 0), (1, 2, 4)
    assert len(enumerate_paths(torus, p, q, "odr")) == 1
    assert len(enumerate_paths(torus, p, q, "udr")) == math.factorial(3)
    assert len(enumerate_paths(torus, p, (0, 2, 4), "udr")) == 2
    assert len(enumerate_paths(torus, p, q, "shortest")) == math.factorial(4) // (1 * 2 * 1)
    even = Torus(2, 4)  # tie in dimension 0: restricted ODR goes +, unrestricted ODR has both
    assert enumerate_paths(even, (0, 0), (2, 0), "odr") == [[(0, 0), (1, 0), (2, 0)]]
    assert len(enumerate_paths(even, (0, 0), (2, 1), "odr", tie="both")) == 2


# ---------------------------------------------------------------------- conservation and symmetry
@pytest.mark.parametrize(("d", "k"), [(2, 7), (3, 6), (4, 4), (3, 2), (2, 8)])
@pytest.mark.parametrize("routing", ROUTINGS)
def test_conservation(d: int, k: int, routing: str) -> None:
    torus = Torus(d, k)
    for placement in [linear_placement(torus), multiple_linear_placement(torus, 1 + (k > 2))]:
        loads = link_loads(torus, placement, routing)
        assert loads.shape == (torus.num_channels,)
        assert (loads >= -1e-12).all()
        assert loads.sum() == pytest.approx(total_path_length(torus, placement), rel=1e-12)


def _channel_lookup(torus: Torus, loads: np.ndarray):
    return {torus.channel(c): loads[c] for c in range(torus.num_channels)}


@pytest.mark.parametrize("routing", ROUTINGS)
def test_translation_symmetry_of_linear_placements(routing: str) -> None:
    torus, k = Torus(3, 6), 6
    placement = linear_placement(torus, coefficients=(1, 2, 5), constant=2)
    loads = _channel_lookup(torus, link_loads(torus, placement, routing))
    shift = np.array([1, 1, 3])  # 1 + 2 + 15 = 18 = 0 mod 6: maps the placement onto itself
    for (node, dim, sign), value in loads.items():
        moved = tuple(int(v) for v in (np.array(node) + shift) % k)
        assert loads[(moved, dim, sign)] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("routing", ROUTINGS)
def test_reflection_symmetry_for_odd_k(routing: str) -> None:
    torus, k = Torus(3, 5), 5
    loads = _channel_lookup(torus, link_loads(torus, linear_placement(torus), routing))
    for (node, dim, sign), value in loads.items():
        mirrored = tuple((-v) % k for v in node)
        assert loads[(mirrored, dim, -sign)] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("routing", ["udr", "shortest"])
def test_dimension_permutation_symmetry(routing: str) -> None:
    torus = Torus(3, 4)
    loads = _channel_lookup(torus, link_loads(torus, multiple_linear_placement(torus, 2), routing))
    for perm in itertools.permutations(range(3)):
        for (node, dim, sign), value in loads.items():
            permuted = tuple(node[perm.index(j)] for j in range(3))
            assert loads[(permuted, perm[dim], sign)] == pytest.approx(value, abs=1e-9)


def test_odr_is_not_dimension_symmetric_but_loads_every_dimension() -> None:
    torus = Torus(2, 6)
    table = loads_by_dimension(torus, link_loads(torus, linear_placement(torus), "odr"))
    assert set(table["dim"]) == {0, 1}
    assert (table["max"] > 0).all()


def test_general_node_set_equals_linear_path() -> None:
    torus = Torus(3, 4)
    linear = linear_placement(torus, constant=3)
    plain = node_placement(torus, linear.nodes())
    for routing in ROUTINGS:
        np.testing.assert_allclose(link_loads(torus, linear, routing), link_loads(torus, plain, routing), atol=1e-9)


def test_single_processor_has_no_load() -> None:
    torus = Torus(2, 4)
    loads = link_loads(torus, [(1, 2)], "udr")
    assert e_max(loads) == 0.0


# ---------------------------------------------------------------------- bounds
@pytest.mark.parametrize(("d", "k"), [(2, 6), (3, 4), (3, 5), (2, 9)])
def test_every_lower_bound_is_below_every_routing(d: int, k: int) -> None:
    torus = Torus(d, k)
    for placement in placements_of(torus):
        bound = cut_lower_bound(torus, placement, search=True, seed=3, max_steps=30)
        assert bound >= single_node_bound(torus, placement) - 1e-12
        for routing in ROUTINGS:
            assert e_max(link_loads(torus, placement, routing)) >= bound - 1e-9


def test_lemma1_single_node_reduces_to_bound_1() -> None:
    torus = Torus(3, 5)
    placement = linear_placement(torus)
    node = placement.nodes()[0]
    assert lemma1_bound(torus, placement, [node]).value == pytest.approx(single_node_bound(torus, placement))
    assert lemma1_bound(torus, placement, [node]).boundary == 4 * 3


@pytest.mark.parametrize(("d", "k"), [(2, 8), (3, 6), (4, 4)])
def test_natural_cut_of_linear_placement_is_k_pow_d_minus_1_over_8(d: int, k: int) -> None:
    torus = Torus(d, k)
    cut = natural_cut_bound(torus, linear_placement(torus))
    assert cut.boundary == 4 * k ** (d - 1)
    assert cut.value == pytest.approx(k ** (d - 1) / 8)
    assert int(cut.node_mask.sum()) == torus.num_nodes // 2
    # the reported numbers are those of the mask it returns
    direct = lemma1_bound(torus, linear_placement(torus), cut.node_mask)
    assert (direct.value, direct.boundary) == (cut.value, cut.boundary)


def test_cut_search_is_valid_and_seeded() -> None:
    torus = Torus(2, 6)
    placement = node_placement(torus, [(0, 0), (0, 1), (1, 0), (3, 3), (5, 5)])
    first = balanced_cut_search(torus, placement, seed=5, max_steps=50)
    again = balanced_cut_search(torus, placement, seed=5, max_steps=50)
    assert first.value == again.value
    direct = lemma1_bound(torus, placement, first.node_mask)
    assert direct.value == pytest.approx(first.value)
    assert first.value >= natural_cut_bound(torus, placement).value - 1e-12


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_corollary1_on_tiny_tori(data) -> None:
    d, k = data.draw(st.sampled_from([(2, 3), (2, 4), (1, 8)]))
    torus = Torus(d, k)
    ids = data.draw(st.lists(st.integers(0, torus.num_nodes - 1), min_size=2, max_size=torus.num_nodes, unique=True))
    placement = node_placement(torus, [torus.coords(v) for v in ids])
    width = placement_bisection_width_bruteforce(torus, placement)
    assert 0 < width <= bisection_width_upper_bound(torus)
    natural = natural_bisection_width(torus, placement)
    if natural is not None:
        assert natural >= width


def test_fully_populated_torus_exceeds_intro_bound() -> None:
    torus, k, d = Torus(2, 6), 6, 2
    full = residue_placement(torus, range(k))
    assert full.size == torus.num_nodes
    for routing in ROUTINGS:
        assert e_max(link_loads(torus, full, routing)) >= k ** (d + 1) / 8


# ---------------------------------------------------------------------- placements and validation
def test_placement_sizes() -> None:
    torus = Torus(3, 6)
    assert linear_placement(torus).size == 36
    assert linear_placement(torus, coefficients=(2, 5, 3)).size == 36
    assert multiple_linear_placement(torus, 4).size == 4 * 36
    coords = linear_placement(torus, coefficients=(2, 5, 3), constant=4).coords()
    assert ((coords @ np.array([2, 5, 3])) % 6 == 4).all()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: linear_placement(Torus(2, 6), coefficients=(2, 3)), ValueError, r"\(2, 3\).*relatively prime"),
        (lambda: linear_placement(Torus(2, 6), coefficients=(1,)), ValueError, "expected d = 2"),
        (lambda: linear_placement(Torus(2, 6), coefficients=(1, 1.5)), TypeError, "1.5"),
        (lambda: linear_placement(Torus(2, 6), constant=6), ValueError, "constant 6"),
        (lambda: multiple_linear_placement(Torus(2, 6), 6), ValueError, "t = 6"),
        (lambda: multiple_linear_placement(Torus(2, 6), 0), ValueError, "t = 0"),
        (lambda: multiple_linear_placement(Torus(2, 6), 2.0), TypeError, "2.0"),
        (lambda: node_placement(Torus(2, 3), [(0, 0), (0, 3)]), ValueError, "out of range"),
        (lambda: node_placement(Torus(2, 3), [(1, 1), (1, 1)]), ValueError, r"\(1, 1\) appears more than once"),
        (lambda: node_placement(Torus(2, 3), []), ValueError, "empty"),
        (lambda: residue_placement(Torus(2, 3), [0, 0]), ValueError, "repeat"),
        # found by the fuzz suite: residues=(0, -1) gave "residue -1 out of range", not naming residues
        (lambda: residue_placement(Torus(2, 5), (0, -1)), ValueError, r"residues holds -1, out of range 0\.\.4"),
        (lambda: link_loads(Torus(2, 3), [(0, 0)], "xy"), ValueError, "'xy'"),
        (lambda: link_loads(Torus(2, 3), [(0, 0)], "odr", tie="-"), ValueError, "'-'"),
        (lambda: link_loads(Mesh(2, 3), [(0, 0)]), TypeError, "Mesh"),
        (lambda: link_loads(Torus(2, 3, bidirectional=False), [(0, 0)]), ValueError, "bidirectional"),
        (lambda: link_loads(Torus(2, (3, 4)), [(0, 0)]), ValueError, "single radix"),
        (lambda: link_loads(Torus(2, 4), linear_placement(Torus(2, 5))), ValueError, "belongs to"),
        (lambda: lemma1_bound(Torus(2, 3), [(0, 0)], []), ValueError, "proper non-empty"),
        (lambda: Torus(0, 4), ValueError, "dims"),
        (lambda: Torus(2, 1), ValueError, "radix"),
        (lambda: placement_bisection_width_bruteforce(Torus(2, 5), [(0, 0)]), ValueError, "20 nodes"),
    ],
)
def test_validation(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


def test_load_frame_locates_channels() -> None:
    torus = Torus(2, 5)
    placement = linear_placement(torus)
    loads = link_loads(torus, placement, "odr")
    frame = load_frame(torus, loads, placement)
    row = frame.loc[frame["load"].idxmax()]
    assert torus.channel(int(row["channel"])) == ((int(row["x0"]), int(row["x1"])), int(row["dim"]), int(row["sign"]))
    # under a linear placement the load depends only on (residue, dim, sign)
    assert frame.groupby(["residue", "dim", "sign"])["load"].nunique().max() == 1


# ---------------------------------------------------------------------- ODR's maximum (study: test_loads_study.py)
@pytest.mark.parametrize(("d", "k"), [(2, 7), (2, 10), (3, 6), (3, 7), (4, 6), (5, 4)])
def test_odr_maximum_is_the_single_source_row_count(d: int, k: int) -> None:
    # ODR corrects dimension 0 while the other coordinates still hold the source's, which on a linear placement
    # determine the source: each dimension-0 link serves one source, whose first + link carries every destination
    # with dimension-0 offset in 1..floor(k/2), i.e. floor(k/2) k^(d-2) messages.
    torus = Torus(d, k)
    placement = linear_placement(torus)
    loads = link_loads(torus, placement, "odr")
    expected = (k // 2) * k ** (d - 2)
    assert e_max(loads) == pytest.approx(expected)
    source = placement.nodes()[0]
    assert loads[torus.channel_id(source, 0, 1)] == pytest.approx(expected)


@given(lengths=st.lists(st.integers(0, 4), min_size=1, max_size=4).filter(any))  # the origin has no box
@settings(max_examples=60, deadline=None)
def test_box_step_shares_cross_every_layer_once_and_do_not_depend_on_the_order_of_dimensions(lengths):
    """Every monotone path from 0 to ``lengths`` takes exactly one step from layer ``m_i = c`` to ``c + 1`` in each
    dimension ``i``, so the shares of those steps sum to 1; the steps come from the cached box with sorted sides,
    and equal the ones computed for the box as given."""
    from torus_lab.loads import _box_fractions, _sorted_box_fractions

    points, shares, dims = _box_fractions(tuple(lengths))
    for i, side in enumerate(lengths):
        for layer in range(side):
            assert shares[(dims == i) & (points[:, i] == layer)].sum() == pytest.approx(1.0, abs=1e-12)
    direct = _sorted_box_fractions.__wrapped__(tuple(lengths))

    def as_dict(p, s, d):
        return {(tuple(row), int(j)): float(v) for row, v, j in zip(p.tolist(), s, d, strict=True)}

    expected, got = as_dict(*direct), as_dict(points, shares, dims)
    assert got.keys() == expected.keys()
    assert all(got[key] == pytest.approx(expected[key], rel=1e-12) for key in got)


def _flow_shortest_by_bincount(weights: np.ndarray, tie: str, coefficients) -> np.ndarray:
    """The all-shortest-paths flow written with numpy: every step's link index and weight, summed by bincount."""
    from torus_lab.loads import _box_fractions

    d, k = weights.ndim, weights.shape[0]
    out_shape = (k, d, 2) if coefficients is not None else weights.shape + (d, 2)
    strides = np.asarray(coefficients if coefficients is not None else [k ** (d - 1 - j) for j in range(d)])
    deltas = np.argwhere(weights != 0)
    indices, step_weights = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
    lengths = np.minimum(deltas, k - deltas)
    groups, inverse = np.unique(lengths, axis=0, return_inverse=True)
    for g, box in enumerate(groups):
        rows = np.flatnonzero(inverse.reshape(-1) == g)
        signs = np.where(deltas[rows] <= k - deltas[rows], 1, -1)
        box_weights = weights[tuple(deltas[rows].T)].astype(float)
        tied = np.flatnonzero((2 * box == k) & (box > 0)) if tie == "both" else np.array([], dtype=np.int64)
        if tied.size:
            choices = np.asarray(list(itertools.product((1, -1), repeat=tied.size)))
            signs = np.repeat(signs, len(choices), axis=0)
            signs[:, tied] = np.tile(choices, (len(rows), 1))
            box_weights = np.repeat(box_weights, len(choices)) / len(choices)
        points, shares, dims = _box_fractions(tuple(int(v) for v in box))
        nodes = (points[None, :, :] * signs[:, None, :]) % k
        step_signs = np.take_along_axis(signs, np.broadcast_to(dims, (len(signs), len(dims))), axis=1)
        cells = nodes @ strides if coefficients is None else (nodes @ strides) % k
        indices.append(((cells * d + dims) * 2 + (step_signs > 0)).reshape(-1))
        step_weights.append((box_weights[:, None] * shares[None, :]).reshape(-1))
    flat = np.bincount(np.concatenate(indices), np.concatenate(step_weights), minlength=math.prod(out_shape))
    return flat.reshape(out_shape)


@given(data=st.data(), d=st.integers(1, 3), k=st.integers(2, 7), tie=st.sampled_from(TIE_MODES),
       per_class=st.booleans())  # fmt: skip
@settings(max_examples=60, deadline=None)
def test_compiled_shortest_path_flow_equals_the_bincount_formula_to_the_last_bit(data, d, k, tie, per_class):
    """The compiled step accumulation (:func:`_add_box_steps`) adds the same weights in the same order as
    ``numpy.bincount`` over every step of every box, so the flows are identical, not merely close."""
    from torus_lab.loads import _flow_shortest

    values = data.draw(st.lists(st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 2.0]), min_size=k**d, max_size=k**d))
    weights = np.asarray(values).reshape((k,) * d)
    weights[(0,) * d] = 0.0  # no flow to the source itself (as every caller sets)
    coefficients = tuple(data.draw(st.lists(st.integers(0, k - 1), min_size=d, max_size=d))) if per_class else None
    got = _flow_shortest(weights, tie, coefficients)
    expected = _flow_shortest_by_bincount(weights, tie, coefficients)
    assert got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


@given(d=st.integers(1, 3), k=st.integers(2, 7), data=st.data())
@settings(max_examples=40, deadline=None)
def test_cached_slab_boundary_is_the_boundary_of_the_slab_at_every_start(d, k, data):
    """The cached boundary of a slab (``_slab_boundary``, computed at start 0) is the number of links leaving the
    slab ``{x : (x_dim - a) mod k < width}`` for every start ``a``, counted link by link."""
    from torus_lab.loads import _slab_boundary

    torus = Torus(d, k)
    dim, width = data.draw(st.integers(0, d - 1)), data.draw(st.integers(1, k - 1))
    start = data.draw(st.integers(0, k - 1))
    inside = ((torus.all_coords()[:, dim] - start) % k) < width
    crossing = sum(inside[a] != inside[b] for a, b in zip(torus.channel_src, torus.channel_dst, strict=True))
    assert _slab_boundary(torus, dim, width) == crossing
