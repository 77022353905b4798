"""Hostile input: every entry point refuses bad input up front, naming the parameter and the value."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab._validate import check_int, check_int_array, check_real
from torus_lab.topology import MAX_NODES, Faults, Mesh, Torus, avoids_faults, bfs_distances


# ---------------------------------------------------------------------- shared helpers
def test_check_int_accepts_numpy_ints_and_refuses_the_rest():
    assert check_int("x", np.uint16(7), minimum=0) == 7 and type(check_int("x", np.int64(7))) is int
    for bad in (True, np.True_, 7.0, float("nan"), "7", b"7", None):
        with pytest.raises(TypeError, match="x must be an int"):
            check_int("x", bad)
    with pytest.raises(ValueError, match="x must be in 0..3, got 4"):
        check_int("x", 4, minimum=0, maximum=3)


def test_check_real_refuses_nan_inf_bool():
    assert check_real("r", np.float32(0.5), minimum=0, maximum=1) == 0.5
    for bad in (float("nan"), float("inf"), -math.inf):
        with pytest.raises(ValueError, match="r must be a finite number"):
            check_real("r", bad)
    with pytest.raises(TypeError, match="r must be a number"):
        check_real("r", True)
    with pytest.raises(ValueError, match=r"r must be in \[0, 1\), got 1"):
        check_real("r", 1, minimum=0, maximum=1, open_maximum=True)


def test_check_int_array():
    assert check_int_array("s", [2**64 - 1]).dtype == np.uint64
    assert check_int_array("s", []).dtype == np.int64
    with pytest.raises(ValueError, match="s must be >= 0, got -1"):
        check_int_array("s", np.array([3, -1]), minimum=0)
    with pytest.raises(TypeError, match="s must hold integers"):
        check_int_array("s", [0.5])
    with pytest.raises(ValueError, match="s must be 1-dimensional"):
        check_int_array("s", [[1]], ndim=1)
    with pytest.raises(ValueError, match="s must fit int64 or uint64"):
        check_int_array("s", [2**64])


# ---------------------------------------------------------------------- Torus / Mesh size and types
@pytest.mark.parametrize("cls", [Torus, Mesh])
@pytest.mark.parametrize(
    ("dims", "radix", "message"),
    [
        (64, 2, "dims = 64 is too large"),
        (100, 3, "dims = 100 is too large"),
        (10, 1024, "radix 1024 with dims = 10 gives about 2\\*\\*100.0 nodes"),
        (2, 2**40, "radix 1099511627776 with dims = 2"),
        (2, 10**30, "radix 10{30} with dims = 2"),
        (2, (2**31, 2**32), r"radix \(2147483648, 4294967296\) with dims = 2"),
    ],
)
def test_topology_too_large_is_refused(cls, dims, radix, message):
    with pytest.raises(ValueError, match=message):
        cls(dims, radix)


def test_topology_size_limit_is_inclusive():
    assert Torus(62, 2).num_nodes == MAX_NODES
    assert Torus(1, MAX_NODES).num_nodes == MAX_NODES
    with pytest.raises(ValueError, match="MAX_NODES"):
        Torus(1, MAX_NODES + 1)
    big = Torus(4, 2**15)  # 2**60 nodes: ids stay exact int64
    last = (2**15 - 1,) * 4
    assert big.node_id(last) == 2**60 - 1 and big.coords(2**60 - 1) == last


@pytest.mark.parametrize("cls", [Torus, Mesh])
@pytest.mark.parametrize("radix", [b"45", "45", bytearray(b"45"), {4, 5}, 4.0, float("nan"), None, True, np.bool_(1)])
def test_radix_of_wrong_type_is_refused(cls, radix):
    with pytest.raises(TypeError, match="radix"):
        cls(2, radix)


@pytest.mark.parametrize("dims", [2.0, float("nan"), True, "2", None])
def test_dims_of_wrong_type_is_refused(dims):
    with pytest.raises(TypeError, match="dims must be an int"):
        Torus(dims, 4)


@pytest.mark.parametrize("radix", [(4, 5.0), (4, float("nan")), (4, True), np.array([4.0, 5.0])])
def test_radix_entry_of_wrong_type_is_refused(radix):
    with pytest.raises(TypeError, match=r"radix\[[01]\] must be an int"):
        Torus(2, radix)


def test_numpy_ints_are_accepted_as_ints():
    t = Torus(np.int8(2), np.uint32(5), bidirectional=np.True_)
    assert t == Torus(2, 5) and type(t.n) is int and all(type(r) is int for r in t.radices)
    assert Torus(2, np.array([3, 4])).radices == (3, 4)
    assert Torus(2, np.array(6)).radices == (6, 6)
    assert Mesh(np.int64(3), [np.int16(2), 3, np.uint8(4)]).radices == (2, 3, 4)


@settings(max_examples=60, deadline=None)
@given(dims=st.integers(1, 70), radix=st.integers(2, 2**70))
def test_topology_either_fits_or_is_refused(dims, radix):
    if radix**dims <= MAX_NODES:
        torus = Torus(dims, radix)
        assert torus.num_nodes == radix**dims
        assert torus.node_id((radix - 1,) * dims) == radix**dims - 1
    else:
        with pytest.raises(ValueError, match="dims|radix"):
            Torus(dims, radix)


def test_coords_refuses_float_and_unsigned_out_of_range_arrays():
    t = Torus(2, 4)
    with pytest.raises(TypeError, match="node ids must be integers"):
        t.coords(np.array([1.5]))
    with pytest.raises(ValueError, match=f"node id {2**64 - 1} out of range 0..15"):
        t.coords(np.array([2**64 - 1], dtype=np.uint64))


# ---------------------------------------------------------------------- Faults
@pytest.mark.parametrize("link", [-1, 64, 999, -(2**70)])
@pytest.mark.parametrize("method", ["link_mask", "node_mask", "validate", "to_networkx", "bfs", "avoids"])
def test_out_of_range_fault_links_are_refused(link, method):
    t, faults = Torus(2, 4), Faults(links={link})
    calls = {
        "link_mask": lambda: faults.link_mask(t),
        "node_mask": lambda: faults.node_mask(t),
        "validate": lambda: faults.validate(t),
        "to_networkx": lambda: t.to_networkx(faults),
        "bfs": lambda: bfs_distances(t, (0, 0), faults),
        "avoids": lambda: avoids_faults(t, [(0, 0)], faults),
    }
    with pytest.raises(ValueError, match=rf"faulty link: channel id {link} out of range 0\.\.63"):
        calls[method]()


@pytest.mark.parametrize("node", [(4, 0), (-1, 0), (0, 0, 0)])
@pytest.mark.parametrize("method", ["link_mask", "node_mask", "to_networkx"])
def test_out_of_range_fault_nodes_are_refused(node, method):
    t, faults = Torus(2, 4), Faults(nodes={node})
    with pytest.raises(ValueError, match=r"faulty node \("):
        t.to_networkx(faults) if method == "to_networkx" else getattr(faults, method)(t)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"links": {1.5}}, "faulty link .channel id. must be an int, got 1.5"),
        ({"links": "12"}, "Faults.links must be a set"),
        ({"links": 3}, "Faults.links must be a set"),
        ({"nodes": {5}}, "Faults.nodes must hold coordinate tuples, got 5"),
        ({"nodes": {(1, 0.5)}}, r"faulty node \(1, 0.5\): coordinate must be an int"),
    ],
)
def test_faults_of_wrong_type_are_refused(kwargs, message):
    with pytest.raises(TypeError, match=message):
        Faults(**kwargs)


def test_faults_accept_any_iterable_and_numpy_ints():
    t = Torus(2, 4)
    faults = Faults(nodes=[(np.int64(1), 1)], links=(np.int32(3),))
    assert faults == Faults(nodes=frozenset({(1, 1)}), links=frozenset({3}))
    assert hash(faults) == hash(Faults(nodes=frozenset({(1, 1)}), links=frozenset({3})))
    assert faults.link_mask(t).sum() == 1 and faults.node_mask(t)[t.node_id((1, 1))]
    with pytest.raises(TypeError, match="topology must be a Torus"):
        faults.validate((2, 4))
    with pytest.raises(TypeError, match="faults must be a Faults"):
        t.to_networkx({(1, 1)})


@settings(max_examples=50, deadline=None)
@given(link=st.integers(-(2**65), 2**65))
def test_fault_links_in_range_or_refused(link):
    t = Torus(2, 3)
    faults = Faults(links={link})
    if 0 <= link < t.num_channels:
        assert faults.link_mask(t).nonzero()[0].tolist() == [link]
    else:
        with pytest.raises(ValueError, match=f"channel id {link} out of range 0..{t.num_channels - 1}"):
            faults.link_mask(t)


# ---------------------------------------------------------------------- square routing and its study
_SEEDS = np.arange(3, dtype=np.uint64)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": 16.5}, TypeError, "k must be an int, got 16.5"),
        ({"k": True}, TypeError, "k must be an int"),
        ({"k": "16"}, TypeError, "k must be an int"),
        ({"m": 3.0}, TypeError, "m must be an int"),
        ({"fault_count": 2.0}, TypeError, "fault_count must be an int"),
        ({"fault_count": -1}, ValueError, r"fault_count must be in 0\.\.254, got -1"),
        ({"seeds": np.array([1, -1])}, ValueError, "seeds must be >= 0, got -1"),
        ({"seeds": [-5]}, ValueError, "seeds must be >= 0, got -5"),
        ({"seeds": np.array([[1, 2], [3, 4]], dtype=np.uint64)}, ValueError, r"seeds must be 1-dimensional"),
        ({"seeds": np.array([1.5, 2.0])}, TypeError, "seeds must hold integers"),
        ({"seeds": [2**64]}, ValueError, "seeds must fit"),
        ({"seeds": "123"}, TypeError, "seeds must be integers"),
        ({"algorithms": "chain"}, TypeError, "algorithms must be a sequence"),
        ({"algorithms": ("chain", "zigzag")}, ValueError, "unknown algorithm 'zigzag' in algorithms"),
        ({"with_oracle": "yes"}, TypeError, "with_oracle must be a bool"),
        ({"n_blocks": 0}, ValueError, "n_blocks must be >= 1"),
    ],
)
def test_evaluate_batch_refuses(kwargs, error, message):
    from torus_lab.routing.square import evaluate_batch

    args = {"k": 16, "m": 3, "fault_count": 10, "seeds": _SEEDS} | kwargs
    with pytest.raises(error, match=message):
        evaluate_batch(**args)


def test_evaluate_batch_accepts_numpy_ints_and_seed_lists():
    from torus_lab.routing.square import evaluate_batch

    reference = evaluate_batch(16, 3, 10, _SEEDS, ("chain",))
    again = evaluate_batch(np.int64(16), np.int8(3), np.uint16(10), [0, 1, 2], ["chain"])
    assert all(np.array_equal(reference[key], again[key]) for key in reference)
    big = evaluate_batch(16, 3, 10, [2**64 - 1], ("chain",))
    assert big["status"].shape == (1, 1)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((16.0, 3, 1), TypeError, "k must be an int"),
        ((16, 255, 1), ValueError, r"fault_count must be in 0\.\.254, got 255"),
        ((16, 3, -1), ValueError, r"seed must be in 0\.\.18446744073709551615, got -1"),
        ((16, 3, 1.5), TypeError, "seed must be an int"),
    ],
)
def test_draw_trial_refuses(args, error, message):
    from torus_lab.routing.square import draw_trial

    with pytest.raises(error, match=message):
        draw_trial(*args)


RNG = np.random.default_rng(1)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((16, 3, 0.999, 10, RNG), ValueError, r"fault_rate must be in \[0, 0\.9922\] for N = 16.*got 0\.999"),
        ((16, 3, 1.0, 10, RNG), ValueError, r"fault_rate must be in \[0, 1\), got 1"),
        ((16, 3, -0.1, 10, RNG), ValueError, "fault_rate must be in"),
        ((16, 3, float("nan"), 10, RNG), ValueError, "fault_rate must be a finite number"),
        ((16, 3, "0.1", 10, RNG), TypeError, "fault_rate must be a number"),
        ((16, 3, 0.1, 0, RNG), ValueError, "trials must be >= 1, got 0"),
        ((16, 3, 0.1, 2.5, RNG), TypeError, "trials must be an int"),
        ((16, 3, 0.1, 10, -1), TypeError, "rng must be a numpy.random.Generator, got -1"),
        ((16.0, 3, 0.1, 10, RNG), TypeError, "radix must be an int"),
    ],
)
def test_run_point_refuses(args, error, message):
    from torus_lab.studies.fault_tolerant import run_point

    with pytest.raises(error, match=message):
        run_point(*args)


def test_disjoint_paths_accept_numpy_integer_arrays_as_pairs():
    """Pairs given as numpy integer arrays (a 3-D array, or arrays per pair) are valid coordinates: the same
    paths as with plain tuples; a float array is refused naming its dtype."""
    from torus_lab.routing.disjoint_paths import pairwise_disjoint_paths

    plain = [((0, 0, 0), (3, 4, 1)), ((1, 2, 3), (4, 0, 2))]
    expected = pairwise_disjoint_paths((3, 6), plain)
    as_array = np.array(plain, dtype=np.int32)
    assert pairwise_disjoint_paths((3, 6), as_array) == expected
    assert pairwise_disjoint_paths((3, 6), [tuple(np.array(p, dtype=np.uint8) for p in pair)
                                            for pair in plain]) == expected  # fmt: skip
    with pytest.raises(TypeError, match="coordinates must be integers, got an array of dtype float64"):
        pairwise_disjoint_paths((3, 6), as_array.astype(float))
