"""Tests of the simulator at scale: run lengths the state can count, chunked runs, memory estimates."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from sim_state_checks import allocated_bytes

from torus_lab.routing.ecube import ecube_routing
from torus_lab.routing.interface import kernel_handle
from torus_lab.sim import SimConfig, booksim, engine, simple, simulate
from torus_lab.sim.packets import CNT, LOOP_POOL, LOOP_RAN, WORD_LIMIT, initial_pool_size, packet_pool_size
from torus_lab.sim.runlength import check_run_bounds, run_horizon
from torus_lab.topology import Torus

DOR = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
_NEW_STATE, _STATE_FOR = simple.new_state, booksim.state_for  # the state builders, before any test patches them
SIMPLE = SimConfig(offered_load=0.2, warmup=50, measure=200, drain=2000)
BOOKSIM = SimConfig.preset("booksim", offered_load=0.2, warmup=50, measure=200, drain=2000)


def _reach(config: SimConfig) -> int:
    """Cycles past the current one a model writes (the margin the bound leaves below WORD_LIMIT)."""
    if config.router == "simple":
        return config.router_delay
    return (config.routing_delay + config.vc_alloc_delay + config.sw_alloc_delay + config.st_final_delay
            + config.credit_delay + config.channel_latency + 8)  # fmt: skip


# ------------------------------------------------------------------------------------------------ bounded runs


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
@pytest.mark.parametrize("field", ["warmup", "measure", "drain"])
def test_a_run_longer_than_the_cycle_words_is_refused_at_the_boundary(base, field):
    """The longest fixed run the 32-bit cycle words allow passes the check; one cycle more is refused, naming
    the fields, their values and the limit."""
    others = run_horizon(base)[0] - getattr(base, field)
    longest = WORD_LIMIT - _reach(base) - others
    check_run_bounds(base.replace(**{field: longest}), DOR.topology, DOR.num_vcs)
    with pytest.raises(ValueError, match=rf"warmup \+ measure \+ drain = .*{field}={longest + 1}.*{WORD_LIMIT}"):
        check_run_bounds(base.replace(**{field: longest + 1}), DOR.topology, DOR.num_vcs)


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
def test_an_adaptive_run_longer_than_the_cycle_words_is_refused(base):
    adaptive = base.replace(run_control="adaptive", max_periods=4, drain=0)
    period = (WORD_LIMIT - _reach(base) - 1) // 4
    check_run_bounds(adaptive.replace(sample_period=period), DOR.topology, DOR.num_vcs)
    with pytest.raises(ValueError, match=r"max_periods \* sample_period \+ drain .*max_periods=4"):
        check_run_bounds(adaptive.replace(sample_period=period + 1), DOR.topology, DOR.num_vcs)


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
def test_simulate_refuses_an_endless_run_before_any_work(base, monkeypatch):
    """``warmup=10**15`` used to be accepted (and ran for ever): now refused before the state is built."""

    def no_work(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(engine, "_new_runner", no_work)
    monkeypatch.setattr(engine, "_traffic_nodes", no_work)
    with pytest.raises(ValueError, match=r"warmup=1000000000000000.*32-bit words"):
        simulate(DOR, base.replace(warmup=10**15), seed=1)


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
def test_a_packet_pool_past_the_id_words_is_refused_at_the_boundary(base):
    """The packet pool (a full source queue per node plus one packet per input VC and 16) must number its
    packets in 32-bit words: the largest queue capacity that fits passes, one more is refused naming it."""
    topology = Torus(3, 64)  # 262,144 nodes: the pool passes 2**31 at a queue of about 8,000 packets
    nn, nch, vcs = topology.num_nodes, topology.num_channels, 2
    input_vcs = nch * vcs + nn if base.router == "simple" else (nch + 2 * nn) * vcs + nn
    largest = (WORD_LIMIT - input_vcs - 16) // nn
    check_run_bounds(base.replace(queue_capacity=largest), topology, vcs)
    with pytest.raises(ValueError, match=f"queue_capacity={largest + 1} .*packet ids are 32-bit words"):
        check_run_bounds(base.replace(queue_capacity=largest + 1), topology, vcs)


def test_the_64_bit_counters_cannot_overflow_within_the_bounds():
    """The largest counter, latency_sum, grows by at most one per live packet per cycle: within the bounds
    (cycles and pool both below WORD_LIMIT) it stays below 2**63."""
    assert WORD_LIMIT * WORD_LIMIT < np.iinfo(np.int64).max


# ------------------------------------------------------------------------------------------------ chunked runs


def _frames(result) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    return result.packets, result.counters, result.period_table


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
@pytest.mark.parametrize("control", ["fixed", "adaptive"])
def test_a_run_in_chunks_equals_a_run_in_one_call(base, control, monkeypatch):
    """The compiled loop resumes from its state: chunks of 7 cycles (not dividing any window) give the run of
    one call, packet for packet."""
    config = base if control == "fixed" else base.replace(run_control="adaptive", sample_period=100, max_periods=6)
    monkeypatch.setattr(engine, "CHUNK_WORK", 10**12)
    whole = simulate(DOR, config, seed=5)
    monkeypatch.setattr(engine, "CHUNK_WORK", 7 * DOR.topology.num_nodes)
    assert engine.chunk_cycles(DOR.topology) == 7
    chunked = simulate(DOR, config, seed=5)
    assert len(whole.packets) > 50
    pd.testing.assert_frame_equal(chunked.packets, whole.packets)
    assert chunked.counters == whole.counters
    pd.testing.assert_frame_equal(chunked.period_table, whole.period_table)
    assert (chunked.end_rule, chunked.cycles) == (whole.end_rule, whole.cycles)


def test_chunks_shrink_with_the_network():
    sizes = [Torus(2, 4), Torus(3, 16), Torus(3, 32), Torus(4, 32)]
    chunks = [engine.chunk_cycles(t) for t in sizes]
    assert chunks == sorted(chunks, reverse=True) and chunks[-1] == 1
    assert all(c * t.num_nodes <= max(engine.CHUNK_WORK, t.num_nodes) for c, t in zip(chunks, sizes, strict=True))


# ------------------------------------------------------------------------------------------------ packet pool


@pytest.mark.parametrize("chunk", [None, 1], ids=["headroom-8", "headroom-1"])
@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
def test_a_pool_grown_in_time_gives_the_run_of_a_full_pool(base, chunk, monkeypatch):
    """Past saturation packets pile up in the source queues: the pool starts with ``pool_headroom`` cycles of ids
    (POOL_HEADROOM, or one when the loop runs one cycle per call, as on a large network) and grows several
    times, yet the run is the one of a pool as large as the queues from the start."""
    if chunk is not None:
        monkeypatch.setattr(engine, "CHUNK_WORK", chunk * DOR.topology.num_nodes)
    headroom = engine.pool_headroom(DOR.topology)
    assert headroom == (8 if chunk is None else 1)
    config = base.replace(offered_load=0.9, queue_capacity=64)
    grown = simulate(DOR, config, seed=3, keep_state=True)
    pool = grown.state.free_stack.shape[0]
    first = initial_pool_size(16, pool_input_vcs(base), 64, headroom)
    assert first == 16 * headroom + 16 < pool <= packet_pool_size(16, pool_input_vcs(base), 64)
    monkeypatch.setattr(engine, "initial_pool_size", lambda nodes, input_vcs, cap, headroom: packet_pool_size(
        nodes, input_vcs, cap))  # fmt: skip
    full = simulate(DOR, config, seed=3, keep_state=True)
    assert full.state.free_stack.shape[0] == packet_pool_size(16, pool_input_vcs(base), 64)
    pd.testing.assert_frame_equal(grown.packets, full.packets)
    assert grown.counters == full.counters and grown.in_flight == full.in_flight


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
def test_the_loop_stops_itself_for_the_pool_so_chunks_run_whole(base, monkeypatch):
    """The compiled loop stops at the start of a cycle with fewer free packet ids than generating nodes (so the
    pool cannot run dry), having run every cycle before it; the engine then grows the pool and goes on.  So a
    light run calls the loop about once per chunk, not once per few cycles of free ids."""
    calls = []
    make = engine._booksim_runner if base.router == "booksim" else engine._simple_runner

    def counting(*args):
        runner = make(*args)
        loop = runner.loop
        runner.loop = lambda cycles, reserve: calls.append((cycles, reserve, loop(cycles, reserve))) or calls[-1][2]
        return runner

    monkeypatch.setattr(engine, "_booksim_runner" if base.router == "booksim" else "_simple_runner", counting)
    config = base.replace(offered_load=0.1, warmup=500, measure=4000, drain=4000)
    result = simulate(DOR, config, seed=5, keep_state=True)
    chunk = engine.chunk_cycles(DOR.topology)
    stops = [call for call in calls if call[2] == LOOP_POOL]
    assert len(calls) <= -(-result.cycles // chunk) + len(stops) + 1
    assert all(reserve == 16 for _, reserve, code in stops)  # 16 generating nodes
    pool = result.state.free_stack.shape[0]
    assert pool < packet_pool_size(16, pool_input_vcs(base), config.queue_capacity)  # the pool could still grow
    # called alone with a reserve above the free ids, the loop runs no cycle and says why
    state = result.state.state if base.router == "booksim" else result.state.arrays
    state.counters[CNT["deadlock"]] = 0
    state.cfg[(booksim.BCFG if base.router == "booksim" else simple.CFG)["measure_end"]] = 10**6
    before = int(state.counters[CNT["now"]])
    loop = booksim.run_booksim if base.router == "booksim" else simple.run_kernel
    free = int(state.free_top[0])
    code = loop(kernel_handle(DOR.kernel), DOR.tables, state, 10, free + 1)
    assert code == LOOP_POOL and int(state.counters[CNT["now"]]) == before
    assert loop(kernel_handle(DOR.kernel), DOR.tables, state, 10, 0) == LOOP_RAN
    assert int(state.counters[CNT["now"]]) == before + 10


@pytest.mark.parametrize("speculative", [False, True], ids=["plain", "speculative"])
def test_queues_and_request_lists_grown_in_time_give_the_run_of_full_ones(speculative, monkeypatch):
    """One cycle per call of the loop, as on a large network: the BookSim model's source-queue rings start one slot
    wide and its request lists as long as the first packet pool allows, and both grow as the queues and the pool
    do (past saturation, so queues fill up and overflow), yet the run is the one of full rings and lists from the
    start."""
    monkeypatch.setattr(engine, "CHUNK_WORK", DOR.topology.num_nodes)
    assert engine.initial_queue_width(DOR.topology, 64) == 1
    config = BOOKSIM.replace(offered_load=0.9, queue_capacity=64, speculative=speculative)
    grown = simulate(DOR, config, seed=4, keep_state=True)
    st = grown.state
    assert 1 < st.q_buf.shape[1] <= 64 and grown.counters["queue_overflow"] > 0
    capacity = booksim.request_capacity(st.live.shape[0], st.cand_vc.shape[1], st.ch_latency.shape[0] * 5, 5,
                                        st.free_stack.shape[0], speculative)  # fmt: skip
    assert (st.req_in.shape[0], st.sa_req_in.shape[0]) == capacity
    monkeypatch.setattr(engine, "initial_queue_width", lambda topology, cap: cap)
    monkeypatch.setattr(engine, "initial_pool_size", lambda nodes, input_vcs, cap, headroom: packet_pool_size(
        nodes, input_vcs, cap))  # fmt: skip
    full = simulate(DOR, config, seed=4, keep_state=True)
    assert full.state.q_buf.shape[1] == 64 and full.state.req_in.shape[0] > 16 * 8 * 2
    pd.testing.assert_frame_equal(grown.packets, full.packets)
    assert grown.counters == full.counters and grown.in_flight == full.in_flight


def pool_input_vcs(config: SimConfig) -> int:
    topology, vcs = DOR.topology, DOR.num_vcs
    if config.router == "simple":
        return topology.num_channels * vcs + topology.num_nodes
    return (topology.num_channels + 2 * topology.num_nodes) * vcs + topology.num_nodes


# ------------------------------------------------------------------------------------------------ memory



@pytest.mark.parametrize("stored", [False, True], ids=["states-recomputed", "states-stored"])
@pytest.mark.parametrize("topology, vcs", [(Torus(2, 4), 2), (Torus(3, 4), 3)])
def test_the_memory_estimates_match_the_allocation(topology, vcs, stored):
    """What the memory check adds up before a run is what the state holds, byte for byte, in both models."""
    st = simple.new_state(topology, vcs, 16, 100, 1, depth=8, length=4, atomic=True, pool=500, stored_states=stored)
    assert allocated_bytes(st) == simple.state_memory_bytes(topology, vcs, 8, 16, 100, 500, stored_states=stored)
    routing = ecube_routing(topology, datelines=True, vcs=vcs)
    bs = booksim.state_for(routing, BOOKSIM.replace(queue_capacity=16), rec_cap=100, pool=500, stored_states=stored)
    assert allocated_bytes(bs) == booksim.state_memory_bytes(topology, vcs, 8, 16, 100, 500, stored_states=stored)
    # narrow source-queue rings, speculation's longer switch-request lists, and the lists grown with the pool
    spec = booksim.state_for(routing, BOOKSIM.replace(queue_capacity=16, speculative=True), rec_cap=100, pool=50,
                             stored_states=stored, queue_width=3)  # fmt: skip
    for state, pool in ((spec, 50), (booksim.with_pool(spec, 400), 400)):
        assert allocated_bytes(state) == booksim.state_memory_bytes(topology, vcs, 8, 16, 100, pool,
                                                                    stored_states=stored, queue_width=3,
                                                                    speculative=True)  # fmt: skip
    layout = booksim.state_layout(topology, vcs, 8, 16, 100, 500, stored_states=stored)
    assert {name for name, size in layout.items() if size} <= set(booksim.BookSimState._fields)
    assert all(getattr(st, name).nbytes == size for name, size in simple.state_layout(
        topology, vcs, 8, 16, 100, 500, stored_states=stored).items())  # fmt: skip


#: Routings whose grants take header states that depend on the candidate (adaptive ones over several VC classes)
#: or on the random word (e-cube's random ties), and whether a head's candidates carry different states.
_STATEFUL = [
    ("duato", {}, True),
    ("pfnf", {"scheme": "count"}, True),
    ("turn-model", {"algorithm": "minimal-adaptive", "scheme": "layer"}, True),
    ("ecube", {"datelines": True, "vcs": 2, "tie": "random"}, False),
]


@pytest.mark.parametrize("base", [SIMPLE, BOOKSIM], ids=["simple", "booksim"])
@pytest.mark.parametrize("name, options, differ", _STATEFUL, ids=[name for name, *_ in _STATEFUL])
def test_header_states_from_the_kernel_called_again_give_the_run_of_stored_states(base, name, options, differ,
                                                                                  monkeypatch):  # fmt: skip
    """A grant takes its candidate's header state from the routing kernel called again with the routing's random
    word (no candidate states kept): the run is, packet for packet and counter for counter, the run that stores
    every candidate's header state at routing and copies it at the grant (``stored_states``), for a few seeds."""
    from torus_lab.routing import make_routing

    routing = make_routing({"name": name, **options}, Torus(2, 4))
    config = base.replace(offered_load=0.4, packet_length=2)
    kept = {}
    for stored in (False, True):
        monkeypatch.setattr(simple, "new_state", functools.partial(_NEW_STATE, stored_states=stored))
        monkeypatch.setattr(booksim, "state_for", functools.partial(_STATE_FOR, stored_states=stored))
        monkeypatch.setattr(engine, "_stores_states", lambda topology, vcs, stored=stored: stored)  # small networks
        kept[stored] = [simulate(routing, config, seed=seed, keep_state=True) for seed in (1, 2, 3)]
    for again, stored in zip(kept[False], kept[True], strict=True):
        assert again.state.cand_st.shape[0] == 0 < stored.state.cand_st.shape[0]
        assert len(stored.packets) > 50
        pd.testing.assert_frame_equal(again.packets, stored.packets)
        assert again.counters == stored.counters and again.counters["routing_error"] == 0
    # the comparison can fail: some routed head's candidates carried different header states
    assert differ == any(np.ptp(r.state.cand_st[r.state.ncand >= 2, :2], axis=1).any() for r in kept[True])
