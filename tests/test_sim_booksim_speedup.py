"""Tests of the BookSim-compatible router's speedups (``input_speedup``, ``output_speedup``, ``internal_speedup``)
and its output queues (``output_buffer_size``): each on a hand-made router, then properties of whole runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sim_state_checks import allocated_bytes, run_checking_flits

from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim import booksim as bs
from torus_lab.sim.simple import list_occupied
from torus_lab.topology import Torus

TORUS = Torus(2, 4)
DOR = ecube_routing(TORUS, datelines=True, vcs=2, dateline_rule="entry")
NODE = 5


def _state(**overrides) -> bs.BookSimState:
    """A quiet network (no generation) with the preset's router, plus ``overrides``."""
    settings = dict(offered_load=0.0, packet_length=8, warmup=0, measure=1000, drain=1000) | overrides
    return bs.state_for(DOR, SimConfig.preset("booksim", **settings))


def _vc(ch: int, v: int) -> int:
    return ch * 2 + v


def _in_channel(dim: int, sign: int) -> int:
    """The channel arriving at ``NODE`` travelling along ``dim`` in direction ``sign``."""
    src = np.array(TORUS.coords(NODE))
    src[dim] = (src[dim] - sign) % TORUS.radices[dim]
    return int(TORUS.channel_id(tuple(src), dim, sign))


def _out_channel(dim: int, sign: int) -> int:
    return int(TORUS.channel_id(TORUS.coords(NODE), dim, sign))


def _hold(st, iv, out, flits):
    """Input VC ``iv`` holds ``flits`` body flits (visible from cycle 0) of one packet that holds output VC ``out``:
    it bids for the switch every step while it has a flit and ``out`` a credit."""
    st.free_top[0] -= 1
    p = int(st.free_stack[st.free_top[0]])
    st.pk_src[p], st.pk_dst[p], st.pk_gen[p] = 0, 1, 0
    for fi in range(1, flits + 1):
        bs._push_flit(st, iv, p, fi, 0)
    st.vstate[iv], st.vready[iv], st.out_vc[iv], st.busy[out] = bs.ACTIVE, 0, out, iv


def _switch(st, now):
    """Switch allocation then traversal in cycle ``now`` (one internal step), after listing; the grants."""
    bs.list_ready(st, now)
    list_occupied(st)
    bs.allocate_switch(st, now)
    grants = sorted(int(g) for g in st.grants[: st.ngrants[0]])
    bs.traverse_switch(st, now)
    return grants


def _arrivals(st, vc):
    """The cycles from which the flits in input VC ``vc``'s buffer are visible, front first."""
    depth = st.fpk.shape[1]
    return [int(st.farr[vc, (st.fhead[vc] + k) % depth]) for k in range(int(st.count[vc]))]


# --------------------------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"input_speedup": 2}, ValueError, "input_speedup=2 needs router='booksim'"),
    ({"output_speedup": 3}, ValueError, "output_speedup=3 needs router='booksim'"),
    ({"internal_speedup": 1.5}, ValueError, "internal_speedup=1.5 needs router='booksim'"),
    ({"output_buffer_size": 4}, ValueError, "output_buffer_size=4 needs router='booksim'"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "input_speedup": 0}, ValueError,
     "input_speedup"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "output_speedup": 1.0}, TypeError,
     "output_speedup"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "internal_speedup": 0.5}, ValueError,
     "internal_speedup"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "internal_speedup": True}, TypeError,
     "internal_speedup"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "internal_speedup": float("nan")},
     ValueError, "internal_speedup"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "output_buffer_size": 0}, ValueError,
     "output_buffer_size"),
    ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "output_buffer_size": -2}, ValueError,
     "output_buffer_size"),
])  # fmt: skip
def test_bad_speedups_are_refused_naming_the_field(kwargs, error, message):
    with pytest.raises(error, match=message):
        SimConfig(**kwargs)


def test_preset_has_booksim2s_defaults_no_speedup_and_unbounded_output_queues():
    cfg = SimConfig.preset("booksim")
    assert (cfg.input_speedup, cfg.output_speedup, cfg.internal_speedup, cfg.output_buffer_size) == (1, 1, 1.0, -1)
    assert SimConfig.preset("booksim", internal_speedup=2).internal_speedup == 2.0  # an int is taken as a real


def test_results_tables_gain_speedup_columns_only_when_a_speedup_is_set():
    """A run without speedups keeps the columns results tables had before them; a set speedup is recorded."""
    from torus_lab.sim.config import SPEEDUP_FIELDS

    cfg = SimConfig.preset("booksim", offered_load=0.1, warmup=20, measure=50)
    plain = simulate(DOR, cfg, seed=1).params
    assert not set(SPEEDUP_FIELDS) & set(plain) and "speculative" in plain
    fast = cfg.replace(output_speedup=2, internal_speedup=1.5)
    params = simulate(DOR, fast, seed=1).params
    assert (params["output_speedup"], params["internal_speedup"]) == (2, 1.5) and "input_speedup" not in params
    assert SimConfig.from_mapping(fast.as_dict()) == fast and SimConfig.from_mapping(cfg.as_dict()) == cfg


# ------------------------------------------------------------------------------------------ hand-made routers


@pytest.mark.parametrize("speedup", [1, 2])
def test_input_speedup_lets_two_vcs_of_one_input_port_cross_in_one_cycle(speedup):
    """VCs 0 and 1 of one input port, bound for different output ports: one switch input serves one of them per
    cycle; two switch inputs (VC v uses input v mod 2) serve both at once."""
    st = _state(input_speedup=speedup)
    ic = _in_channel(0, 1)
    _hold(st, _vc(ic, 0), _vc(_out_channel(0, 1), 0), 3)
    _hold(st, _vc(ic, 1), _vc(_out_channel(1, 1), 1), 3)
    per_cycle = [_switch(st, now) for now in range(3)]
    if speedup == 1:
        assert [len(g) for g in per_cycle] == [1, 1, 1]
        assert per_cycle[0] != per_cycle[1]  # the VCs take turns
    else:
        assert per_cycle == [[_vc(ic, 0), _vc(ic, 1)]] * 3
        assert st.count[_vc(ic, 0)] == st.count[_vc(ic, 1)] == 0


def test_input_speedup_serves_the_vcs_of_one_switch_input_in_round_robin_order():
    """With 4 VCs and input speedup 2, VCs 0 and 2 share switch input 0: bound for the same output port they take
    turns (starting from VC 0, the input's first pointer), while VC 1 (switch input 1) crosses every cycle."""
    routing = ecube_routing(TORUS, datelines=True, vcs=4, dateline_rule="entry")
    st = bs.state_for(routing, SimConfig.preset("booksim", offered_load=0.0, packet_length=8, input_speedup=2))
    ic = _in_channel(0, 1)
    out_ch, other = _out_channel(0, 1), _out_channel(1, 1)
    for v, out in ((0, out_ch * 4), (2, out_ch * 4 + 2), (1, other * 4 + 1)):
        _hold(st, ic * 4 + v, out, 3)
    order = [[g - ic * 4 for g in _switch(st, now)] for now in range(4)]
    assert order == [[0, 1], [1, 2], [0, 1], [2]]


@pytest.mark.parametrize("speedup", [1, 2])
def test_output_speedup_lets_two_input_ports_reach_one_output_port_in_one_cycle(speedup):
    """Input ports 0 (x-) and 1 (x+) both send to output port y+: with output speedup 2 they use its two switch
    outputs (port mod 2) and cross together; the output queue then sends one flit per cycle."""
    st = _state(output_speedup=speedup)
    a, b = _vc(_in_channel(0, -1), 0), _vc(_in_channel(0, 1), 1)
    assert {int(st.ch_in_port[a // 2]), int(st.ch_in_port[b // 2])} == {0, 1}
    out_ch = _out_channel(1, 1)
    _hold(st, a, _vc(out_ch, 0), 2)
    _hold(st, b, _vc(out_ch, 1), 2)
    per_cycle = [len(_switch(st, now)) for now in range(2)]
    downstream = sorted(_arrivals(st, _vc(out_ch, 0)) + _arrivals(st, _vc(out_ch, 1)))
    # a flit that wins the switch in cycle S enters the output queue in S + 1 and the 2-cycle channel delivers it
    # (seen) 3 cycles after it is sent: one flit per cycle leaves the queue either way
    if speedup == 1:
        assert per_cycle == [1, 1] and downstream == [4, 5]
    else:
        assert per_cycle == [2, 2] and downstream == [4, 5, 6, 7]
        assert st.oq_next[out_ch] == 5  # the queue sends its last flit in cycle 4


def test_ejection_output_queue_sends_one_flit_per_cycle_to_the_sink():
    """Two input ports eject at NODE in the same cycle (output speedup 2): the sink takes one flit per cycle."""
    st = _state(output_speedup=2, packet_length=1)
    eject = (TORUS.num_channels + TORUS.num_nodes + NODE) * 2
    for iv, out in ((_vc(_in_channel(0, -1), 0), eject), (_vc(_in_channel(0, 1), 0), eject + 1)):
        st.free_top[0] -= 1
        p = int(st.free_stack[st.free_top[0]])
        st.pk_src[p], st.pk_dst[p], st.pk_gen[p], st.pk_inj[p], st.pk_meas[p] = 0, NODE, 0, 0, 1
        bs._push_flit(st, iv, p, 0, 0)
        st.vstate[iv], st.out_vc[iv], st.busy[out] = bs.ACTIVE, out, iv
    assert len(_switch(st, 0)) == 2
    done = sorted(int(t) for t in st.rec[: st.rec_count[0], 4])
    assert done == [3, 4]  # in the queue in cycle 1, sent in cycles 1 and 2, read by the sink 2 cycles later


def test_bounded_output_queue_takes_no_request_while_full():
    """Output speedup 2 fills output port y+'s queue at two flits per cycle; with room for one flit the switch
    allocator sends nothing to it while it holds a flit that entered in an earlier step (BookSim2's check of its
    queue's length), so requests resume once the queue has drained."""
    grants = {}
    for size in (-1, 1):
        st = _state(output_speedup=2, output_buffer_size=size)
        out_ch = _out_channel(1, 1)
        _hold(st, _vc(_in_channel(0, -1), 0), _vc(out_ch, 0), 6)
        _hold(st, _vc(_in_channel(0, 1), 1), _vc(out_ch, 1), 6)
        grants[size] = [len(_switch(st, now)) for now in range(7)]
    assert grants[-1] == [2, 2, 2, 2, 2, 2, 0]  # unbounded: only the 6 flits each VC holds limit it
    # cycle 0 and 1: the queue is empty when allocated (flits enter it the cycle after their grant); cycles 2-4 it
    # holds a flit that entered earlier (4 queued, one sent per cycle)
    assert grants[1] == [2, 2, 0, 0, 0, 2, 2]


@pytest.mark.parametrize("speedup", [1.0, 2.0])
def test_internal_speedup_runs_allocation_and_traversal_twice_per_cycle(speedup):
    """One active VC with 6 flits: the router's pipeline runs twice per cycle with internal speedup 2, so two
    flits leave per cycle; the output queue sends one per cycle, and the input channel one credit per cycle."""
    st = _state(internal_speedup=speedup)
    iv, out = _vc(_in_channel(0, 1), 0), _vc(_out_channel(0, 1), 0)
    st.credit[iv] -= 6  # the upstream router spent a credit on each flit
    _hold(st, iv, out, 6)
    bs.run(DOR, st, 2)
    assert int(st.count[iv]) == 6 - 2 * int(speedup)
    left = 2 * int(speedup)
    # cycle 0: flits leave in steps 0 (and 1); they cross the switch in the next step, enter the queue in that
    # step's cycle and are sent one per cycle
    assert _arrivals(st, out) == ([4, 5] if speedup == 1 else [3, 4, 5, 6])
    # credits: the input channel sends one per cycle, seen upstream 3 cycles later (2-cycle channel + 1)
    seen = np.diff([0] + [bs.credits_available(st, iv, t) for t in range(8)])  # seen[0]: the 2 credits held
    assert seen.tolist() == [2, 0, 0] + [1] * left + [0] * (5 - left)


@settings(max_examples=12, deadline=None)
@given(speedup=st.sampled_from([1.0, 1.25, 1.5, 2.0, 2.5, 3.0]), cycles=st.integers(1, 5))
def test_an_input_vc_moves_one_flit_per_internal_step(speedup, cycles):
    """With a flit, a credit and no rival, an active VC crosses the switch once per internal step: after ``c``
    cycles ``floor(c x internal_speedup)`` flits have left (BookSim2's accumulated fraction of steps)."""
    st = _state(internal_speedup=speedup, buffer_depth=16, packet_length=20)
    iv, out = _vc(_in_channel(0, 1), 0), _vc(_out_channel(0, 1), 0)
    _hold(st, iv, out, 16)
    bs.run(DOR, st, cycles)
    assert 16 - int(st.count[iv]) == int(np.floor(cycles * speedup))
    sends = _arrivals(st, out)
    assert sends == sorted(set(sends))  # the output channel sends at most one flit per cycle


# ----------------------------------------------------------------------------------------------- whole runs

SPEEDUPS = [dict(input_speedup=2), dict(output_speedup=2), dict(internal_speedup=1.5),
            dict(input_speedup=2, output_speedup=3, internal_speedup=2.0, output_buffer_size=2),
            dict(input_speedup=2, output_speedup=2, speculative=True, routing_delay=0)]  # fmt: skip


@pytest.mark.parametrize("speedups", SPEEDUPS)
def test_flits_are_conserved_and_runs_are_deterministic_with_speedups(speedups):
    cfg = SimConfig.preset("booksim", offered_load=0.6, packet_length=3, warmup=100, measure=400, **speedups)
    st = bs.state_for(DOR, cfg, seed_word=5, rec_cap=4000)
    run_checking_flits(bs.run, DOR, st)
    a, b, c = (simulate(DOR, cfg, seed=s) for s in (7, 7, 8))
    assert not a.deadlock and a.delivered > 100 and (a.packets.extra_hops == 0).all()
    assert a.packets.equals(b.packets) and not a.packets.equals(c.packets)


def test_speedups_of_one_change_nothing():
    """Speedups of 1 are the default router, and a bounded queue never fills without speedups (a flit is sent in
    the cycle it enters): the same packets, cycle for cycle."""
    cfg = SimConfig.preset("booksim", offered_load=0.5, packet_length=4, warmup=100, measure=400)
    base = simulate(DOR, cfg, seed=3)
    same = simulate(DOR, cfg.replace(output_buffer_size=1, internal_speedup=1.0), seed=3)
    assert base.packets.equals(same.packets)


def test_input_speedup_accepts_no_less_at_a_saturating_load():
    """Past saturation on the 8x8 torus with 4-flit packets, a second switch input per port (the two VCs of a port
    no longer wait for each other) does not lower the accepted throughput (BookSim2 on this network: 0.327 and
    0.332 flits/node/cycle, docs/conventions.md#sim-booksim-speedup)."""
    routing = ecube_routing(Torus(2, 8), datelines=True, vcs=2, dateline_rule="entry")
    cfg = SimConfig.preset("booksim", offered_load=1.0, packet_length=4, warmup=500, measure=2000, drain=0)
    one = simulate(routing, cfg, seed=1)
    two = simulate(routing, cfg.replace(input_speedup=2), seed=1)
    assert not one.deadlock and not two.deadlock
    assert two.accepted_throughput >= one.accepted_throughput



def test_memory_estimate_is_what_state_for_allocates_with_speedups():
    cfg = SimConfig.preset("booksim", input_speedup=3, output_speedup=2, output_buffer_size=4, speculative=True)
    st = bs.state_for(DOR, cfg, rec_cap=100, pool=50, queue_width=16)
    kwargs = dict(queue_width=16, speculative=True, input_speedup=3, output_speedup=2, output_buffer_size=4)
    layout = bs.state_layout(TORUS, 2, 8, cfg.queue_capacity, 100, 50, **kwargs)
    estimate = bs.state_memory_bytes(TORUS, 2, 8, cfg.queue_capacity, 100, 50, **kwargs)
    assert allocated_bytes(st) == sum(layout.values()) == estimate
    views = ("fpk", "fidx", "farr")  # the three words of each buffer slot: one array
    assert all(getattr(st, name).nbytes == size for name, size in layout.items() if name not in views)
    assert st.oq_tick.shape == (TORUS.num_channels + 2 * TORUS.num_nodes, 2 * 8)
    unbounded = bs.state_layout(TORUS, 2, 8, cfg.queue_capacity, 100, 50, **(kwargs | {"output_buffer_size": -1}))
    assert unbounded["oq_tick"] == unbounded["oq_send"] == 0 and unbounded["oq_next"] == layout["oq_next"]
