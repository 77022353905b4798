"""Tests of the topology core: neighbours, channels, distances, subtori, faults and path checks."""

from __future__ import annotations

import itertools

import networkx as nx
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.topology import (
    Faults,
    Mesh,
    Torus,
    are_vertex_disjoint,
    avoids_faults,
    bfs_distances,
    definition_torus_properties,
    first_shared_vertex,
    is_simple,
    is_walk,
    lee_ball,
    path_length,
    random_link_faults,
    random_node_faults,
)

SMALL_TOPOLOGIES = [
    Torus(1, 5),
    Torus(2, 4),
    Torus(2, 5),
    Torus(3, 3),
    Torus(3, 2),  # hypercube Q3
    Torus(4, 2),  # hypercube Q4
    Torus(2, (4, 3)),  # mixed radix
    Torus(3, (2, 5, 4)),  # mixed radix with a radix-2 dimension
    Mesh(2, 4),
    Mesh(3, (2, 3, 4)),
    Torus(2, 5, bidirectional=False),
]


@st.composite
def topologies(draw):
    dims = draw(st.integers(1, 3))
    radices = draw(st.lists(st.integers(2, 6), min_size=dims, max_size=dims))
    kind = draw(st.sampled_from(["torus", "mesh", "unidirectional"]))
    if kind == "mesh":
        return Mesh(dims, radices)
    return Torus(dims, radices, bidirectional=kind == "torus")


@pytest.mark.parametrize("topology", SMALL_TOPOLOGIES, ids=repr)
def test_neighbour_relation_symmetric_for_bidirectional(topology):
    for node in topology.nodes():
        for other in topology.neighbors(node):
            if topology.bidirectional:
                assert node in topology.neighbors(other)
            else:  # unidirectional: only the + neighbour in each dimension
                diff = [(b - a) % r for a, b, r in zip(node, other, topology.radices, strict=True)]
                assert sorted(diff)[-1] == 1 and sum(diff) == 1


@pytest.mark.parametrize("topology", SMALL_TOPOLOGIES, ids=repr)
def test_lee_distance_equals_bfs_distance(topology):
    graph = topology.to_networkx()
    nodes = topology.nodes()
    coords = topology.all_coords()
    for source in nodes:
        bfs = nx.single_source_shortest_path_length(graph, source)
        expected = np.array([bfs[v] for v in nodes])
        vectorised = topology.lee_distance(np.tile(np.array(source), (len(nodes), 1)), coords)
        assert np.array_equal(vectorised, expected)
        assert np.array_equal(bfs_distances(topology, source), expected)
        assert all(topology.lee_distance(source, v) == bfs[v] for v in nodes[:7])


@pytest.mark.parametrize("topology", SMALL_TOPOLOGIES, ids=repr)
def test_channel_ids_bijective_and_consistent(topology):
    seen = set()
    for cid in range(topology.num_channels):
        node, dim, sign = topology.channel(cid)
        assert topology.channel_id(node, dim, sign) == cid
        assert topology.neighbor(node, dim, sign) == topology.coords(int(topology.channel_dst[cid]))
        seen.add((node, dim, sign))
    assert len(seen) == topology.num_channels
    # every (node, dim, sign) with a neighbour has exactly one id
    slots = [(v, d, s) for v in topology.nodes() for d in range(topology.n) for s in (-1, 1)
             if topology.neighbor(v, d, s) is not None]  # fmt: skip
    assert set(slots) == seen
    # one channel per ordered neighbour pair: no duplicated links (radix 2)
    ends = list(zip(topology.channel_src.tolist(), topology.channel_dst.tolist(), strict=True))
    assert len(set(ends)) == len(ends)


def test_hypercube_has_one_link_per_neighbour_pair():
    cube = Torus(4, 2)
    assert cube.num_channels == 4 * 2**4
    assert cube.is_hypercube
    assert all(len(cube.neighbors(v)) == 4 for v in cube.nodes())
    assert cube.neighbor((0, 0, 0, 0), 0, -1) is None and cube.neighbor((1, 0, 0, 0), 0, -1) == (0, 0, 0, 0)
    assert not any(cube.is_wraparound(c) for c in range(cube.num_channels))


@pytest.mark.parametrize("topology", SMALL_TOPOLOGIES, ids=repr)
def test_wraparound_mask_matches_scalar(topology):
    expected = [topology.is_wraparound(c) for c in range(topology.num_channels)]
    assert topology.wraparound_mask().tolist() == expected
    if not topology.wraparound or topology.is_hypercube:
        assert not any(expected)


def test_wraparound_channels():
    ring = Torus(1, 5)
    wraps = sorted(ring.channel(c) for c in range(ring.num_channels) if ring.is_wraparound(c))
    assert wraps == [((0,), 0, -1), ((4,), 0, 1)]
    assert Mesh(1, 5).num_channels == 8


@given(topologies(), st.data())
@settings(max_examples=60, deadline=None)
def test_node_id_coords_round_trip(topology, data):
    ids = np.array(data.draw(st.lists(st.integers(0, topology.num_nodes - 1), min_size=1, max_size=20)))
    coords = topology.coords(ids)
    assert coords.shape == (len(ids), topology.n)
    assert np.array_equal(topology.node_id(coords), ids)
    for node_id, row in zip(ids.tolist(), coords.tolist(), strict=True):
        assert topology.coords(node_id) == tuple(row)
        assert topology.node_id(tuple(row)) == node_id


@given(topologies(), st.data())
@settings(max_examples=60, deadline=None)
def test_signed_offset_reaches_target_and_is_shortest(topology, data):
    a = topology.coords(data.draw(st.integers(0, topology.num_nodes - 1)))
    b = topology.coords(data.draw(st.integers(0, topology.num_nodes - 1)))
    for tie in ("+", "-"):
        offset = topology.signed_offset(a, b, tie=tie)
        for i, (x, y, step, radix) in enumerate(zip(a, b, offset, topology.radices, strict=True)):
            moved = x + step
            assert (moved % radix if topology.wraparound else moved) == y, (i, a, b, offset)
        assert sum(abs(s) for s in offset) == topology.lee_distance(a, b)


def test_tie_rule():
    torus = Torus(1, 6)
    assert torus.signed_offset((0,), (3,), tie="+") == (3,)
    assert torus.signed_offset((0,), (3,), tie="-") == (-3,)
    assert torus.signed_offset((0,), (4,)) == (-2,)
    with pytest.raises(ValueError, match="tie"):
        torus.signed_offset((0,), (3,), tie="up")


def test_subtorus_membership():
    torus = Torus(3, 5)
    members = torus.subtorus_nodes(1, 2)
    assert len(members) == 25
    assert all(torus.coords(int(v))[1] == 2 for v in members)
    assert torus.in_subtorus(torus.all_coords(), 1, 2).sum() == 25
    with pytest.raises(ValueError, match="value 5"):
        torus.in_subtorus((0, 0, 0), 1, 5)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("2", 5), {}, TypeError, "dims"),
        ((0, 5), {}, ValueError, "dims must be >= 1, got 0"),
        ((2, 1), {}, ValueError, "radix must be >= 2, got 1"),
        ((2, 2.5), {}, TypeError, "2.5"),
        ((2, (4, 1)), {}, ValueError, r"radix\[1\] must be >= 2, got 1"),
        ((2, (4, 4, 4)), {}, ValueError, "3 entries"),
        ((2, True), {}, TypeError, "True"),
        ((2, 5), {"bidirectional": "yes"}, TypeError, "yes"),
    ],
)
def test_constructor_validation(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        Torus(*args, **kwargs)


def test_mesh_must_be_bidirectional():
    with pytest.raises(ValueError, match="mesh"):
        Mesh(2, 4, bidirectional=False)


@pytest.mark.parametrize(
    ("node", "error", "message"),
    [
        ((0, 5), ValueError, "coordinate 1 = 5 out of range"),
        ((0, -1), ValueError, "coordinate 1 = -1"),
        ((0, 0, 0), ValueError, "3 coordinates, expected 2"),
        ((0, 1.5), TypeError, "not an int"),
        ("ab", TypeError, "sequence"),
        (7, TypeError, "sequence"),
    ],
)
def test_node_validation(node, error, message):
    torus = Torus(2, 5)
    with pytest.raises(error, match=message):
        torus.lee_distance(node, (0, 0))


def test_array_and_id_validation():
    torus = Torus(2, 4)
    with pytest.raises(ValueError, match="out of range"):
        torus.node_id(np.array([[0, 4]]))
    with pytest.raises(ValueError, match="last axis of length 2"):
        torus.node_id(np.array([[0, 1, 2]]))
    with pytest.raises(TypeError, match="integers"):
        torus.node_id(np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="node id 16"):
        torus.coords(16)
    with pytest.raises(ValueError, match="node id 99"):
        torus.coords(np.array([1, 99]))
    with pytest.raises(ValueError, match="sign"):
        torus.neighbor((0, 0), 0, 2)
    with pytest.raises(ValueError, match="dim 2"):
        torus.neighbor((0, 0), 2, 1)
    with pytest.raises(ValueError, match="no channel"):
        Mesh(2, 4).channel_id((0, 0), 0, -1)
    with pytest.raises(ValueError, match="not joined"):
        torus.channel_between((0, 0), (2, 0))
    with pytest.raises(ValueError, match="mixed radix"):
        _ = Torus(2, (3, 4)).k


def test_path_utilities():
    torus = Torus(2, 5)
    path = [(0, 0), (4, 0), (4, 1), (4, 2)]
    assert is_walk(torus, path) and is_simple(path) and path_length(path) == 3
    assert not is_walk(torus, [(0, 0), (2, 0)])
    assert not is_walk(torus, [(0, 0), (0, 7)])
    assert not is_walk(torus, [])
    assert not is_simple([(0, 0), (1, 0), (0, 0)])
    assert first_shared_vertex([path, [(1, 1), (4, 1)]]) == ((4, 1), 0, 1)
    assert are_vertex_disjoint([path, [(1, 1), (1, 2)]])
    assert are_vertex_disjoint([[(0, 0), (1, 0), (0, 0)]])  # repeats inside one path do not count
    cid = torus.channel_between((4, 0), (4, 1))
    assert not avoids_faults(torus, path, Faults(links=frozenset({cid})))
    assert not avoids_faults(torus, path, Faults(nodes=frozenset({(4, 2)})))
    assert avoids_faults(torus, path, Faults(nodes=frozenset({(3, 3)})))
    with pytest.raises(ValueError, match="empty"):
        path_length([])


def test_random_node_faults_exact_and_seeded():
    torus = Torus(2, 10)
    faults = random_node_faults(torus, count=17, seed=3, exclude=[(0, 0)])
    assert len(faults.nodes) == 17 and (0, 0) not in faults.nodes
    assert faults == random_node_faults(torus, count=17, seed=3, exclude=[(0, 0)])
    assert faults != random_node_faults(torus, count=17, seed=4, exclude=[(0, 0)])
    assert len(random_node_faults(torus, rate=0.15, seed=1).nodes) == 15
    assert faults.node_mask(torus).sum() == 17
    with pytest.raises(ValueError, match="exactly one"):
        random_node_faults(torus, seed=1)
    with pytest.raises(ValueError, match="rate must be"):
        random_node_faults(torus, rate=1.5, seed=1)
    with pytest.raises(ValueError, match="count 101 exceeds"):
        random_node_faults(torus, count=101, seed=1)
    with pytest.raises(TypeError, match="seed"):
        random_node_faults(torus, count=1, seed="x")


@pytest.mark.parametrize("topology", [Torus(2, 4), Torus(3, 2), Mesh(2, 3), Torus(1, 5, bidirectional=False)], ids=repr)
def test_random_link_faults_fail_whole_links(topology):
    faults = random_link_faults(topology, count=3, seed=11)
    per_link = 2 if topology.bidirectional else 1
    assert len(faults.links) == 3 * per_link
    for cid in faults.links:
        if topology.bidirectional:
            back = topology.channel_between(topology.coords(int(topology.channel_dst[cid])),
                                            topology.coords(int(topology.channel_src[cid])))  # fmt: skip
            assert back in faults.links
    graph = topology.to_networkx(faults)
    assert graph.number_of_edges() == topology.num_channels - len(faults.links)


def test_bfs_distances_respects_faults():
    ring = Torus(1, 6)
    faults = Faults(nodes=frozenset({(1,)}))
    assert bfs_distances(ring, (0,), faults).tolist() == [0, -1, 4, 3, 2, 1]
    assert bfs_distances(ring, (1,), faults).tolist() == [-1] * 6


def test_topology_pickles_and_hashes():
    import pickle

    for topology in SMALL_TOPOLOGIES:
        clone = pickle.loads(pickle.dumps(topology))
        assert clone == topology and hash(clone) == hash(topology)
        assert np.array_equal(clone.channel_dst, topology.channel_dst)
    assert Torus(2, 4) != Mesh(2, 4)


def test_diameter_matches_bfs():
    for topology in SMALL_TOPOLOGIES:
        coords = topology.all_coords()
        far = max(int(bfs_distances(topology, tuple(c)).max()) for c in itertools.islice(coords, 0, None, 3))
        assert far <= topology.diameter
        assert int(bfs_distances(topology, tuple(coords[0])).max()) == topology.diameter


@settings(max_examples=40, deadline=None)
@given(topologies())
def test_routing_tables_coordinates_match_the_node_ids(topology):
    # kernels read coordinates from Tables.coords instead of dividing by strides: the table must agree with
    # the topology's own coordinates and with the (v // strides[d]) % radices[d] rule it replaces
    from torus_lab.routing.interface import build_tables

    tables = build_tables(topology, None, [0])
    n = topology.n
    ids = np.arange(topology.num_nodes)
    table = tables.coords.reshape(topology.num_nodes, n)
    assert tables.coords.dtype == np.int64 and tables.coords.flags.c_contiguous
    assert np.array_equal(table, topology.coords(ids))
    for d in range(n):
        assert np.array_equal(table[:, d], (ids // tables.strides[d]) % tables.radices[d])


@settings(max_examples=40, deadline=None)
@given(topologies())
def test_link_table_groups_each_links_channels(topology):
    """Every channel in exactly one link; a link is every channel joining one node pair (one channel on a
    unidirectional torus); links ordered by their lowest channel, channels ascending (random_link_faults' numbering)."""
    offsets, channels = topology._link_table()
    groups = [channels[a:b].tolist() for a, b in itertools.pairwise(offsets.tolist())]
    assert sorted(c for group in groups for c in group) == list(range(topology.num_channels))
    pairs = [{frozenset((int(topology.channel_src[c]), int(topology.channel_dst[c]))) for c in group}
             for group in groups]  # fmt: skip
    assert all(len(p) == 1 for p in pairs)
    if topology.bidirectional:
        assert len({next(iter(p)) for p in pairs}) == len(groups)
    else:
        assert all(len(group) == 1 for group in groups)
    assert all(group == sorted(group) for group in groups)
    assert [group[0] for group in groups] == sorted(group[0] for group in groups)


@settings(max_examples=40, deadline=None)
@given(topologies(), st.integers(0, 2**32 - 1), st.data())
def test_random_link_faults_are_the_drawn_links(topology, seed, data):
    """The fault set is the links at the indices one ``choice`` of the seed's Generator draws (seed-stable sets)."""
    offsets, channels = topology._link_table()
    count = data.draw(st.integers(0, len(offsets) - 1))
    drawn = np.random.default_rng(np.random.SeedSequence(seed)).choice(len(offsets) - 1, size=count, replace=False)
    expected = {int(c) for i in drawn for c in channels[offsets[i] : offsets[i + 1]]}
    assert random_link_faults(topology, count=count, seed=seed).links == expected


@settings(max_examples=40, deadline=None)
@given(topologies(), st.data())
def test_bfs_distances_with_faults_match_networkx(topology, data):
    nodes = topology.nodes()
    faulty = data.draw(st.sets(st.sampled_from(nodes), max_size=2))
    links = data.draw(st.sets(st.integers(0, topology.num_channels - 1), max_size=4))
    faults = Faults(nodes=frozenset(faulty), links=frozenset(links))
    source = data.draw(st.sampled_from(nodes))
    dist = bfs_distances(topology, source, faults)
    if source in faulty:
        assert (dist == -1).all()
        return
    reached = nx.single_source_shortest_path_length(topology.to_networkx(faults), source)
    assert dist.tolist() == [reached.get(v, -1) for v in nodes]


def test_routing_tables_are_one_struct_a_kernel_reads_and_python_shares():
    """Tables reach a kernel as one struct (numba StructRef) of the twelve vectors; Python sees the same memory,
    pickles by value, and gets clear errors for a wrong set of vectors."""
    import pickle

    from torus_lab._jit import njit
    from torus_lab.routing.interface import TABLE_FIELDS, TABLES_TYPE, Tables, build_tables

    @njit(refcount=False)
    def read(tables, node):  # a kernel compiled without reference counting reads its tables
        return tables.coords[node * tables.radices.shape[0] + 1] + 10 * tables.ch_ok[0]

    tables = build_tables(Torus(2, 4), None, [3])
    assert numba.typeof(tables) == TABLES_TYPE and tables._fields == TABLE_FIELDS
    assert read(tables, 6) == 1 + 10
    tables.ch_ok[0] = 0  # Python's vector is the struct's vector
    assert read(tables, 6) == 1
    copy = pickle.loads(pickle.dumps(tables))
    assert all(np.array_equal(a, b) for a, b in zip(copy, tables, strict=True)) and copy.ch_ok is not tables.ch_ok
    replaced = tables._replace(iparams=np.arange(8))
    assert replaced.iparams.tolist() == list(range(8)) and np.shares_memory(replaced.coords, tables.coords)
    assert tables._asdict()["kind"].tolist() == [1, 1]
    with pytest.raises(TypeError, match="coords"):
        Tables(*list(tables)[:-1])
    with pytest.raises(ValueError, match="ch_ok"):
        Tables(**(tables._asdict() | {"ch_ok": np.zeros((2, 2), dtype=np.int64)}))


def test_minimal_path_count_by_network_kind():
    from torus_lab.topology import minimal_path_count

    assert minimal_path_count(Mesh(2, 4), (0, 0), (3, 3)) == 20                          # C(6, 3)
    assert minimal_path_count(Torus(2, 4), (0, 0), (3, 3)) == 2                          # one hop back each way
    assert minimal_path_count(Torus(2, 4, bidirectional=False), (0, 0), (3, 3)) == 20    # only the + way
    assert minimal_path_count(Torus(2, 4), (0, 0), (2, 2), tie="both") == 4 * minimal_path_count(
        Torus(2, 4), (0, 0), (2, 2), tie="+")                                           # both ways round, twice
    assert minimal_path_count(Torus(3, 3), (1, 1, 1), (1, 1, 1)) == 1
    with pytest.raises(ValueError, match="tie"):
        minimal_path_count(Torus(2, 4), (0, 0), (1, 1), tie="x")
    with pytest.raises(ValueError, match="b"):
        minimal_path_count(Torus(2, 4), (0, 0), (5, 1))


@pytest.mark.parametrize("topology", [Torus(2, 4), Torus(2, 5, bidirectional=False), Mesh(2, 3), Torus(3, 4)],
                         ids=repr)  # fmt: skip
@pytest.mark.parametrize("tie", ["+", "-", "both"])
def test_minimal_path_counts_from_every_node_agree_with_the_pairwise_count(topology, tie):
    from torus_lab.topology import minimal_path_count, minimal_path_counts

    nodes = topology.nodes()
    for b in (nodes[0], nodes[-1]):
        assert minimal_path_counts(topology, b, tie=tie) == [minimal_path_count(topology, a, b, tie=tie) for a in nodes]
    with pytest.raises(ValueError, match="b"):
        minimal_path_counts(topology, (9,) * topology.n)


def _lee_distance(u, v, k):
    return sum(min((a - b) % k, (b - a) % k) for a, b in zip(u, v, strict=True))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 4), k=st.integers(2, 7), data=st.data())
def test_lee_ball_is_every_vertex_within_lee_distance_two(n, k, data):
    """Brute force over the whole torus: the ball holds exactly the vertices at Lee distance <= 2, once each."""
    centre = tuple(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    ball = lee_ball(centre, k)
    expected = {v for v in itertools.product(range(k), repeat=n) if _lee_distance(v, centre, k) <= 2}
    assert ball[0] == centre and len(ball) == len(set(ball)) and set(ball) == expected
    with pytest.raises(ValueError, match=r"centre\[1\]"):
        lee_ball((0, 5), 5)


def test_definition_torus_properties_measure_the_graph_not_the_formula():
    rows = [definition_torus_properties(n, k) for n, k in [(1, 5), (2, 6), (3, 5)]]
    assert [r["diameter"] for r in rows] == [2, 6, 6] and [r["links"] for r in rows] == [5, 72, 375]
    assert all(r["regular"] and r["degree"] == 2 * n for r, n in zip(rows, (1, 2, 3), strict=True))
    with pytest.raises(ValueError, match="k"):
        definition_torus_properties(2, 2)
    with pytest.raises(ValueError, match="65,536"):
        definition_torus_properties(4, 17)


def test_connected_link_faults_leave_every_node_reachable():
    from torus_lab.topology import connected_link_faults

    rng = np.random.default_rng(3)
    for count in (1, 3, 6):
        faults = connected_link_faults(Torus(2, 4), count, rng)
        assert len(faults.links) == 2 * count  # both directions of each faulty link
        assert (bfs_distances(Torus(2, 4), (0, 0), faults) >= 0).all()
    assert connected_link_faults(Torus(2, 4), 0, rng) == Faults()
    with pytest.raises(ValueError, match="no connected fault set"):
        connected_link_faults(Torus(1, 4), 2, rng, tries=3)  # two faulty links always cut a ring

