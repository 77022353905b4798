"""Tests of the bounded-memory rule: limit parsing, refusals before allocating, chunked link loads."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab import _memory
from torus_lab import loads as loads_module
from torus_lab._memory import MemoryLimitError, check_memory, memory_limit, parse_memory_size
from torus_lab.loads import (
    ROUTINGS,
    TIE_MODES,
    linear_placement,
    link_loads,
    link_loads_reference,
    node_placement,
    residue_placement,
)
from torus_lab.topology import Torus


# ---------------------------------------------------------------------- the limit
@pytest.mark.parametrize(
    ("text", "expected"),
    [("1000", 1000), ("4G", 4 * 2**30), ("512m", 512 * 2**20), ("1.5G", 3 * 2**29), ("2GiB", 2 * 2**30),
     (" 8K ", 8192), ("1T", 2**40), ("3MB", 3 * 2**20)],
)  # fmt: skip
def test_parse_memory_size(text: str, expected: int) -> None:
    assert parse_memory_size(text) == expected


@pytest.mark.parametrize("text", ["", "lots", "4X", "-1G", "1e9", "G", "0", "0.1"])
def test_parse_memory_size_rejects_with_the_variable_and_value(text: str) -> None:
    with pytest.raises(ValueError, match="TORUS_LAB_MEMORY_LIMIT=") as info:
        parse_memory_size(text)
    assert repr(text) in str(info.value)


def test_env_override_and_default_fraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "3G")
    assert memory_limit() == 3 * 2**30
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "three")
    with pytest.raises(ValueError, match="TORUS_LAB_MEMORY_LIMIT='three'"):
        memory_limit()
    monkeypatch.delenv("TORUS_LAB_MEMORY_LIMIT")
    monkeypatch.setattr(_memory, "available_memory", lambda: 10 * 2**30)
    assert memory_limit() == int(_memory.DEFAULT_FRACTION * 10 * 2**30) == 5 * 2**30


class _CountedReadings:
    """A stand-in for ``available_memory`` returning the given figures in turn, counting the readings."""

    def __init__(self, *figures: int) -> None:
        self.figures, self.calls = list(figures), 0

    def __call__(self) -> int:
        self.calls += 1
        return self.figures[min(self.calls, len(self.figures)) - 1]


def test_small_checks_reuse_a_recent_reading_and_large_ones_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORUS_LAB_MEMORY_LIMIT", raising=False)
    readings = _CountedReadings(8 * 2**30, 2**20)  # then almost everything is taken
    monkeypatch.setattr(_memory, "available_memory", readings)
    check_memory(2**20, "a small table")
    check_memory(2**20, "a small table")
    assert readings.calls == 1  # the second small check reused the first reading
    with pytest.raises(MemoryLimitError, match="a large table"):  # a large estimate reads afresh: 1 MiB left
        check_memory(2**30, "a large table")
    assert readings.calls == 2
    with pytest.raises(MemoryLimitError, match="a small table"):  # the new reading's limit (512 KiB) applies now
        check_memory(2**20, "a small table")


def test_a_recent_reading_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORUS_LAB_MEMORY_LIMIT", raising=False)
    readings = _CountedReadings(8 * 2**30, 2**20)
    monkeypatch.setattr(_memory, "available_memory", readings)
    clock = [100.0]
    monkeypatch.setattr(_memory.time, "monotonic", lambda: clock[0])
    check_memory(2**20, "a small table")
    clock[0] += _memory.READING_TTL_S / 2
    check_memory(2**20, "a small table")
    assert readings.calls == 1
    clock[0] += _memory.READING_TTL_S
    with pytest.raises(MemoryLimitError, match="a small table"):  # the reading expired: read again, 1 MiB left
        check_memory(2**20, "a small table")
    assert readings.calls == 2


def test_a_recent_reading_never_overrides_the_environment_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORUS_LAB_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(_memory, "available_memory", _CountedReadings(8 * 2**30))
    check_memory(2**20, "a small table")  # a recent reading with a high limit
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "64K")
    with pytest.raises(MemoryLimitError, match="TORUS_LAB_MEMORY_LIMIT=64K"):
        check_memory(2**20, "a small table")
    from torus_lab.routing.disjoint_paths import disjoint_paths_run

    with pytest.raises(MemoryLimitError, match="disjoint paths"):  # also through a caller, before any work
        disjoint_paths_run((3, 2001), [((0, 0, 0), (1000, 1000, 1000))])


def test_available_memory_falls_back_without_psutil(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_psutil(name, *args, **kwargs):
        if name == "psutil":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_psutil)
    assert _memory.available_memory() > 0


def test_refusal_names_what_estimate_limit_and_remedy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    check_memory(2**30, "exactly at the limit")  # allowed
    with pytest.raises(MemoryLimitError) as info:
        check_memory(5 * 2**30, "thing on Torus(4, 64): 16,777,216 nodes")
    message = str(info.value)
    for part in ["thing on Torus(4, 64): 16,777,216 nodes", "5.00 GiB", "1.00 GiB", "TORUS_LAB_MEMORY_LIMIT=1G",
                 "TORUS_LAB_MEMORY_LIMIT=10G"]:  # fmt: skip
        assert part in message
    assert isinstance(info.value, MemoryError)


def test_default_limit_message_names_the_fraction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORUS_LAB_MEMORY_LIMIT", raising=False)
    monkeypatch.setattr(_memory, "available_memory", lambda: 2 * 2**30)
    with pytest.raises(MemoryLimitError, match=r"limit of 1\.00 GiB \(0\.5 of the 2\.00 GiB available\)"):
        check_memory(3 * 2**30, "x")


# ---------------------------------------------------------------------- link loads refuse before allocating
@pytest.mark.parametrize(("d", "k"), [(4, 64), (8, 9)])
@pytest.mark.parametrize("routing", ["odr", "udr"])
def test_link_loads_refuses_large_tori_quickly(monkeypatch: pytest.MonkeyPatch, d: int, k: int, routing: str) -> None:
    torus = Torus(d, k)
    placement = linear_placement(torus)  # 24 bytes per node: within 1G for both
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    start = time.perf_counter()
    with pytest.raises(MemoryLimitError, match=rf"link_loads\('{routing}'.*Torus\({d}, {k}\): [\d,]+ nodes.*GiB"):
        link_loads(torus, placement, routing)
    assert time.perf_counter() - start < 1.0
    assert torus._channels is None  # no channel table was built


def test_node_set_and_placement_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    torus = Torus(3, 40)
    nodes = node_placement(torus, [(0, 0, 0), (1, 2, 3)])
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "4M")
    with pytest.raises(MemoryLimitError, match=r"nodes placement of 2\) on Torus\(3, 40\): 64,000 nodes"):
        link_loads(torus, nodes, "udr")
    with pytest.raises(MemoryLimitError, match="residue_placement on Torus"):
        linear_placement(Torus(4, 40))


# ---------------------------------------------------------------------- chunked == grid == reference
def _class_placement(draw, torus: Torus):
    k = torus.radices[0]
    coefficients = draw(st.lists(st.integers(0, k - 1), min_size=torus.n, max_size=torus.n))
    coefficients[draw(st.integers(0, torus.n - 1))] = 1  # one coprime coefficient
    residues = draw(st.sets(st.integers(0, k - 1), min_size=1, max_size=k))
    return residue_placement(torus, sorted(residues), coefficients)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), d=st.integers(1, 4), k=st.integers(2, 7), chunk=st.integers(1, 50))
def test_chunked_class_loads_equal_the_per_source_grid(data, d: int, k: int, chunk: int) -> None:
    torus = Torus(d, k)
    placement = _class_placement(data.draw, torus)
    routing = data.draw(st.sampled_from(ROUTINGS))
    tie = data.draw(st.sampled_from(TIE_MODES))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loads_module, "_CHUNK_NODES", chunk)
        chunked = link_loads(torus, placement, routing, tie=tie)
    per_source = link_loads(torus, node_placement(torus, placement.nodes()), routing, tie=tie)  # grid path
    np.testing.assert_allclose(chunked, per_source, atol=1e-9 * max(1.0, per_source.max()), rtol=0)
    if placement.size ** 2 * torus.n <= 600:
        reference = link_loads_reference(torus, placement, routing, tie=tie)
        np.testing.assert_allclose(chunked, reference, atol=1e-9, rtol=0)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), d=st.integers(2, 4), k=st.integers(2, 9))
def test_class_programme_equals_class_grid(data, d: int, k: int) -> None:
    placement = _class_placement(data.draw, Torus(d, k))
    routing = data.draw(st.sampled_from(["odr", "udr"]))
    tie = data.draw(st.sampled_from(TIE_MODES))
    args = (k, placement.coefficients, placement.residues, routing, tie)
    np.testing.assert_allclose(
        loads_module._class_table(*args), loads_module._class_table_grid(k, d, *args[1:]), atol=1e-9, rtol=1e-12
    )


@pytest.mark.parametrize(("d", "k"), [(1, 5), (2, 2), (3, 2), (2, 3), (3, 4)])
def test_channel_order_matches_the_topology(d: int, k: int) -> None:
    torus = Torus(d, k)
    per_node = loads_module._channels_per_node(torus)
    assert torus.num_nodes * per_node == torus.num_channels
    ids = np.arange(torus.num_nodes).repeat(2 * d)
    dims = np.tile(np.arange(d).repeat(2), torus.num_nodes)
    signs = np.tile([-1, 1], torus.num_nodes * d)
    cids = torus.channel_ids(ids, dims, signs)
    expected = (ids * d + dims) * 2 + (signs > 0) if k > 2 else ids * d + dims
    assert np.array_equal(cids[cids >= 0], expected[cids >= 0])


# ---------------------------------------------------------------------- routing tables, CDG, simulator state
def test_build_tables_refuses_before_building_the_channel_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from torus_lab.routing.interface import build_tables

    torus = Torus(4, 64)
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    start = time.perf_counter()
    with pytest.raises(MemoryLimitError, match=r"routing tables of Torus\(4, 64\): 16,777,216 nodes: .* 21\.00 GiB"):
        build_tables(torus, None, [0])
    assert time.perf_counter() - start < 1.0
    assert torus._channels is None


def test_routing_tables_estimate_covers_the_traced_peak() -> None:
    import tracemalloc

    from torus_lab.routing.interface import _tables_memory_estimate, build_tables
    from torus_lab.topology import Mesh

    for topology in (Torus(2, 300), Torus(5, 7), Torus(9, 2), Mesh(3, 20), Torus(2, 300, bidirectional=False)):
        estimate = _tables_memory_estimate(topology)  # channel table not built yet: counted
        tracemalloc.start()
        try:
            build_tables(topology, None, [0])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= estimate, (topology, peak, estimate)


def test_cdg_constructions_refuse_under_a_tiny_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from torus_lab.deadlock import cdg_verdict, channel_dependency_graph, extended_cdg
    from torus_lab.routing.ecube import ecube_routing

    routing = ecube_routing(Torus(2, 6), datelines=True, vcs=2)
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "64K")
    pattern = r"channel dependency graph \({form}\) of .* on Torus\(2, 6\): 36 nodes, up to 288 virtual channels"
    for form in ("reachable", "paths", "relation"):
        with pytest.raises(MemoryLimitError, match=pattern.format(form=form) + r" x 36 destinations: .*GiB"):
            channel_dependency_graph(routing, form=form)
    with pytest.raises(MemoryLimitError, match=pattern.format(form="reachable")):
        cdg_verdict(routing)
    with pytest.raises(MemoryLimitError, match="extended channel dependency graph"):
        extended_cdg(routing, [0])
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    assert cdg_verdict(routing).acyclic


def test_simulator_state_refuses_under_a_tiny_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from torus_lab.routing.ecube import ecube_routing
    from torus_lab.sim.engine import SimState

    torus = Torus(2, 8)
    routing = ecube_routing(torus, datelines=True, vcs=2)
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "256K")
    words = np.zeros(2, dtype=np.uint64)
    with pytest.raises(MemoryLimitError, match=r"simulator state \(2 VCs, buffer 4 flits\) on Torus\(2, 8\): 64 nodes"):
        SimState(routing.topology, 2, 16, 100, words)
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "64M")
    assert SimState(routing.topology, 2, 16, 100, words).num_ivcs == torus.num_channels * 2 + torus.num_nodes


# ---------------------------------------------------------------------- disjoint paths (found by the fuzz suite)
def test_solve_random_instance_k_2_pow_31_is_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # solve_random_instance(n=2, k=2**31, c=2) grew by over a GiB in 10 s (paths of ~k hops), unchecked
    from torus_lab.studies.disjoint_paths import solve_random_instance

    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    start = time.perf_counter()
    with pytest.raises(MemoryLimitError, match=r"disjoint paths in the \(2, 2147483648\)-torus \(2 pairs, paths of "
                                               r"up to 6,442,450,944 hops\)"):  # fmt: skip
        solve_random_instance(2, 2**31, 2, np.random.default_rng(0))
    assert time.perf_counter() - start < 1.0


def test_disjoint_paths_memory_estimate_covers_the_traced_peak() -> None:
    import tracemalloc

    from torus_lab.routing.disjoint_paths import _paths_memory_estimate, disjoint_paths_run
    from torus_lab.studies.disjoint_paths import random_instance

    rng = np.random.default_rng(5)
    for n, k in [(2, 2001), (3, 401), (5, 41)]:
        for _ in range(3):
            pairs = random_instance(n, k, n, rng)
            tracemalloc.start()
            try:
                disjoint_paths_run((n, k), pairs, trace=True)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak <= _paths_memory_estimate(n, k, n), (n, k, pairs)


def test_optimal_disjoint_paths_refuses_an_integer_programme_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    # optimal_disjoint_paths((2, 2**31), ...) asked numpy for k**n = 2**62 nodes (a bare MemoryError)
    from torus_lab.routing.baselines import optimal_disjoint_paths

    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    for k in (2**31, 2**16):
        with pytest.raises(MemoryLimitError, match=rf"\(2, {k}\)-torus"):
            optimal_disjoint_paths((2, k), [((0, 0), (2, 2))])
    assert optimal_disjoint_paths((2, 9), [((0, 0), (2, 2))]) is not None


# ---------------------------------------------------------------------- the channel table (found by the mid-size probe)
def test_channel_table_is_refused_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    # evaluate_point(2, 5000, ...) died in numpy's allocator building the channel table of 25 M nodes, unchecked
    from torus_lab.studies.loads import evaluate_point

    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    torus = Torus(2, 5000)
    with pytest.raises(MemoryLimitError, match=r"the channel table of Torus\(2, 5000\): 25,000,000 nodes"):
        _ = torus.num_channels
    assert torus._channels is None
    with pytest.raises(MemoryLimitError, match=r"the channel table of Torus\(12, 3\): 531,441 nodes"):
        evaluate_point(12, 3, 1, "linear")


def test_channel_table_estimate_covers_the_traced_peak() -> None:
    import tracemalloc

    from torus_lab.topology import _CHANNEL_TABLE_BYTES, Mesh

    for topology in (Torus(2, 300), Torus(5, 7), Torus(9, 2), Mesh(3, 20), Torus(2, 300, bidirectional=False)):
        tracemalloc.start()
        try:
            _ = topology.channel_src
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= _CHANNEL_TABLE_BYTES * topology.num_nodes * topology.n, topology


# ---------------------------------------------------------------------- channel VC usage (found by the fuzz suite)
def test_channel_vc_usage_keeps_no_edge_rows_and_checks_its_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # vc_count_table(ks=[451]) grew by ~25 MB every 5 s: channel_vc_usage kept every destination's CDG edge
    # rows (which it never uses) without a memory check
    import tracemalloc

    from torus_lab.deadlock import channel_dependency_graph, channel_vc_usage
    from torus_lab.routing.ecube import ecube_routing

    routing = ecube_routing(Torus(2, 16), datelines=True, vcs=2)
    channel_vc_usage(routing)  # compiled and the channel table built, outside the measurement
    tracemalloc.start()
    try:
        usage = channel_vc_usage(routing)
        usage_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        channel_dependency_graph(routing)
        graph_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    vertices = routing.topology.num_nodes * 2 * 2 * 2
    assert usage.shape == (routing.topology.num_channels, 2) and usage.any()
    assert usage_peak <= vertices + 128 * vertices * 2 < graph_peak  # one destination at a time, not the graph
    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "64K")
    with pytest.raises(MemoryLimitError, match=r"channel VC usage of .* on Torus\(2, 16\): 256 nodes, up to "
                                               r"2,048 virtual channels"):  # fmt: skip
        channel_vc_usage(routing)
