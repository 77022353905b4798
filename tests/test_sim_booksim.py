"""Tests of the BookSim-compatible router model (torus_lab.sim.booksim): each stage on a hand-made situation,
then properties of the whole model (conservation, exact hops, determinism, zero-load latency, deadlock)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sim_state_checks import run_checking_flits

from torus_lab._jit import njit
from torus_lab.routing import make_routing
from torus_lab.routing.ecube import ecube_kernel, ecube_routing
from torus_lab.routing.interface import MAX_CANDIDATES, compile_for_kernel, kernel_handle
from torus_lab.sim import SimConfig, SimulationDeadlock, simulate
from torus_lab.sim import booksim as bs
from torus_lab.sim.packets import CNT
from torus_lab.sim.simple import list_occupied
from torus_lab.topology import Mesh, Torus

TORUS = Torus(2, 4)
DOR = ecube_routing(TORUS, datelines=True, vcs=2, dateline_rule="entry")


def _state(routing=DOR, **overrides) -> bs.BookSimState:
    """A quiet network (no generation) with the preset's router, plus ``overrides``."""
    settings = dict(offered_load=0.0, packet_length=1, warmup=0, measure=1000, drain=1000) | overrides
    return bs.state_for(routing, SimConfig.preset("booksim", **settings))


def _vc(ch: int, v: int, vcs: int = 2) -> int:
    return ch * vcs + v


def _in_channel(topology, node, dim, sign) -> int:
    """Channel arriving at ``node`` travelling along ``dim`` in direction ``sign``."""
    src = np.array(topology.coords(node))
    src[dim] = (src[dim] - sign) % topology.radices[dim]
    return int(topology.channel_id(tuple(src), dim, sign))


def _new_packet(st, src, dst, now=0, measured=True) -> int:
    st.free_top[0] -= 1
    p = int(st.free_stack[st.free_top[0]])
    st.pk_src[p], st.pk_dst[p], st.pk_gen[p], st.pk_inj[p], st.pk_hops[p] = src, dst, now, -1, 0
    st.pk_meas[p] = int(measured)
    st.pk_state[p] = 0
    return p


def _put_head(st, iv, p, state, ready=0, out=-1, cands=()):
    """Place the 1-flit packet ``p`` at the front of input VC ``iv`` in ``state``."""
    bs._push_flit(st, iv, p, 0, 0)
    st.vstate[iv], st.vready[iv], st.out_vc[iv] = state, ready, out
    st.ncand[iv] = len(cands)
    for c, o in enumerate(cands):
        st.cand_vc[iv, c] = o


@njit
def _route_jit(route, tables, st, now):
    bs.list_ready(st, now)
    return bs.route_heads(route, tables, st, now)


def _allocate_vcs(st, now, routing=DOR):
    """:func:`bs.allocate_vcs` after listing the VCs that can act in cycle ``now`` (:func:`bs.list_ready`, which
    the cycle loop calls once per cycle, before routing: listed again here, a test may call the stages one after
    another in any cycle)."""
    bs.list_ready(st, now)
    args = (routing.kernel, routing.tables, st, now)
    return compile_for_kernel(_allocate_vcs_jit, args)(*args)


@njit
def _allocate_vcs_jit(route, tables, st, now):
    return bs.allocate_vcs(route, tables, st, now)


def _allocate_switch(st, now):
    """:func:`bs.allocate_switch` after listing: the VCs :func:`bs.list_ready` lists for it (without
    speculation; VC allocation changes none of them), and every VC holding flits (with speculation the heads that
    bid for a VC in this cycle bid for the switch too, listed before VC allocation in the cycle loop)."""
    bs.list_ready(st, now)
    list_occupied(st)
    return bs.allocate_switch(st, now)


def _route_once(kernel, tables, st, now):
    """:func:`bs.route_heads` compiled for the routing-kernel type, as the cycle loop calls it."""
    args = (kernel, tables, st, now)
    return compile_for_kernel(_route_jit, args)(*args)


def _enqueue(st, src, dst, now=0) -> int:
    p = _new_packet(st, src, dst, now)
    qcap = st.q_buf.shape[1]
    st.q_buf[src, (st.q_head[src] + st.q_len[src]) % qcap] = p
    st.q_len[src] += 1
    st.counters[CNT["measured_generated"]] += 1
    return p


# ------------------------------------------------------------------------------------------------- stages


def test_vc_allocation_round_robin_alternates_between_two_requesters():
    st = _state()
    node = 5
    a = _vc(_in_channel(TORUS, node, 0, 1), 0)
    b = _vc(_in_channel(TORUS, node, 1, 1), 0)
    out = _vc(int(TORUS.channel_id(TORUS.coords(node), 0, 1)), 0)
    for iv in (a, b):
        _put_head(st, iv, _new_packet(st, 0, 1), bs.VC_ALLOC, cands=(out,))
    winners = []
    for now in range(4):
        assert _allocate_vcs(st, now) == 1
        winner = int(st.busy[out])
        loser = b if winner == a else a
        assert st.vstate[winner] == bs.ACTIVE and st.vstate[loser] == bs.VC_ALLOC
        assert st.vready[loser] == now + 1  # re-evaluated after vc_alloc_delay
        winners.append(winner)
        st.busy[out] = -1  # the winner's tail has gone: it asks again
        st.vstate[winner], st.vready[winner], st.out_vc[winner] = bs.VC_ALLOC, now + 1, -1
    assert winners[0] != winners[1] and winners[0] == winners[2] and winners[1] == winners[3]


def test_vc_allocation_skips_held_output_vcs_and_waits_its_delay():
    st = _state(vc_alloc_delay=3)
    node = 5
    iv = _vc(_in_channel(TORUS, node, 0, 1), 0)
    ch = int(TORUS.channel_id(TORUS.coords(node), 0, 1))
    _put_head(st, iv, _new_packet(st, 0, 1), bs.VC_ALLOC, ready=2, cands=(_vc(ch, 0), _vc(ch, 1)))
    st.busy[_vc(ch, 0)] = 999
    assert _allocate_vcs(st, 1) == 0  # not ready yet
    assert _allocate_vcs(st, 2) == 1
    assert st.out_vc[iv] == _vc(ch, 1) and st.vready[iv] == 5  # switch allocation from 2 + vc_alloc_delay


def test_switch_allocation_one_flit_per_output_alternating_inputs():
    st = _state()
    node = 5
    out_ch = int(TORUS.channel_id(TORUS.coords(node), 0, 1))
    ivs = [_vc(_in_channel(TORUS, node, 0, 1), 0), _vc(_in_channel(TORUS, node, 1, 1), 1)]
    for i, iv in enumerate(ivs):
        for _ in range(3):
            bs._push_flit(st, iv, _new_packet(st, 0, 1), 0, 0)
        st.vstate[iv], st.out_vc[iv] = bs.ACTIVE, _vc(out_ch, i)
    order = []
    for now in range(4):
        assert _allocate_switch(st, now) == 1
        order.append(int(st.grants[0]))
        st.vstate[order[-1]] = bs.ACTIVE  # keep both requesting (no traversal here)
    assert order[0] != order[1] and order[0] == order[2] and order[1] == order[3]


def test_switch_allocation_one_flit_per_input_and_needs_a_credit():
    st = _state()
    node = 5
    iv0, iv1 = _vc(_in_channel(TORUS, node, 0, 1), 0), _vc(_in_channel(TORUS, node, 0, 1), 1)
    out0 = _vc(int(TORUS.channel_id(TORUS.coords(node), 0, 1)), 0)
    out1 = _vc(int(TORUS.channel_id(TORUS.coords(node), 1, 1)), 1)
    for iv, out in ((iv0, out0), (iv1, out1)):
        bs._push_flit(st, iv, _new_packet(st, 0, 1), 0, 0)
        st.vstate[iv], st.out_vc[iv] = bs.ACTIVE, out
    assert _allocate_switch(st, 0) == 1  # two VCs of one input port: one flit per cycle
    st.credit[out0] = st.credit[out1] = 0
    assert _allocate_switch(st, 1) == 0  # no credit, no request


@pytest.mark.parametrize("pointer", [0, 1])
def test_switch_allocation_serves_the_vcs_of_one_input_in_round_robin_order(pointer):
    """Both VCs of one input port bid for the same output port: the VC at or after the port's pointer requests
    it, and the winner moves the pointer past itself, so the two alternate, starting from the pointer."""
    st = _state()
    node = 5
    ic = _in_channel(TORUS, node, 0, 1)
    out_ch = int(TORUS.channel_id(TORUS.coords(node), 0, 1))
    for v in range(2):
        for _ in range(3):
            bs._push_flit(st, _vc(ic, v), _new_packet(st, 0, 1), 0, 0)
        st.vstate[_vc(ic, v)], st.out_vc[_vc(ic, v)] = bs.ACTIVE, _vc(out_ch, v)
    st.sa_rr[ic] = pointer
    order = []
    for now in range(4):
        assert _allocate_switch(st, now) == 1
        order.append(int(st.grants[0]) - _vc(ic, 0))
    assert order == [pointer, 1 - pointer, pointer, 1 - pointer]


def _spec_setup():
    """A speculative router at node 5: input VCs ``a`` (port x+, VC 0) and ``b`` (port y+, VC 0), the output
    channel x+ and its two VCs."""
    st = _state(speculative=True, routing_delay=0, channel_latency=1)
    node = 5
    a = _vc(_in_channel(TORUS, node, 0, 1), 0)
    b = _vc(_in_channel(TORUS, node, 1, 1), 0)
    out_ch = int(TORUS.channel_id(TORUS.coords(node), 0, 1))
    return st, a, b, out_ch


def test_speculative_bid_loses_to_a_non_speculative_vc_of_its_input_for_the_same_output():
    st, a, _, out_ch = _spec_setup()
    other = a + 1  # VC 1 of a's input port: active, holding the output VC (out_ch, 1), after a in round-robin order
    _put_head(st, a, _new_packet(st, 0, 1), bs.VC_ALLOC, cands=(_vc(out_ch, 0),))
    _put_head(st, other, _new_packet(st, 0, 1), bs.ACTIVE, out=_vc(out_ch, 1))
    st.busy[_vc(out_ch, 1)] = other
    assert st.sa_rr[a // 2] == 0
    assert _allocate_vcs(st, 0) == 1 and st.vstate[a] == bs.ACTIVE  # a wins its VC in this cycle ...
    assert _allocate_switch(st, 0) == 1 and st.grants[0] == other  # ... but its speculative bid is taken over
    assert st.vready[a] == 1  # a, now active, bids non-speculatively in the next cycle
    bs.traverse_switch(st, 0)
    assert _allocate_switch(st, 1) == 1 and st.grants[0] == a


def test_speculative_grant_is_used_with_a_vc_and_discarded_without_one():
    st, a, b, out_ch = _spec_setup()
    out = _vc(out_ch, 0)
    for iv in (a, b):
        _put_head(st, iv, _new_packet(st, 0, 1), bs.VC_ALLOC, cands=(out,))
    vcs = 2
    st.va_gptr[out] = st.ch_in_port[b // vcs] * vcs  # b wins the output VC ...
    st.sa_gptr[out_ch] = st.ch_in_port[a // vcs]  # ... a wins the switch (iSLIP ignores the speculative priority)
    assert _allocate_vcs(st, 0) == 1 and st.busy[out] == b and st.vstate[a] == bs.VC_ALLOC
    assert _allocate_switch(st, 0) == 0  # a's speculative grant has no VC: discarded, the output stays idle
    assert st.count[a] == 1 and st.count[b] == 1 and st.vready[b] == 1
    # next cycle: a's VC is held, so it makes no speculative request; b bids non-speculatively and wins
    assert _allocate_vcs(st, 1) == 0
    assert _allocate_switch(st, 1) == 1 and st.grants[0] == b
    # alone, a head granted its VC and the switch in the same cycle is sent at once
    st2, a2, _, _ = _spec_setup()
    _put_head(st2, a2, _new_packet(st2, 0, 1), bs.VC_ALLOC, cands=(out,))
    assert _allocate_vcs(st2, 0) == 1 and _allocate_switch(st2, 0) == 1 and st2.grants[0] == a2
    # a speculative grant needs a credit on the won VC: without one the head only keeps its VC
    st3, a3, _, _ = _spec_setup()
    _put_head(st3, a3, _new_packet(st3, 0, 1), bs.VC_ALLOC, cands=(out,))
    st3.credit[out] = 0
    assert _allocate_vcs(st3, 0) == 1 and _allocate_switch(st3, 0) == 0 and st3.out_vc[a3] == out


@pytest.mark.parametrize(("latency", "credit_delay"), [(1, 0), (2, 0), (3, 2)])
def test_credit_returns_after_channel_latency_plus_read_cycle_plus_credit_delay(latency, credit_delay):
    st = _state(channel_latency=latency, credit_delay=credit_delay)
    node = 5
    iv = _vc(_in_channel(TORUS, node, 0, 1), 0)
    out = _vc(int(TORUS.channel_id(TORUS.coords(node), 0, 1)), 1)
    depth = int(st.credit[iv])
    st.credit[iv] = depth - 1  # the upstream router spent a credit on this flit
    p = _new_packet(st, 0, 1)
    _put_head(st, iv, p, bs.ACTIVE, out=out)
    st.busy[out] = iv
    st.grants[0], st.ngrants[0] = iv, 1
    now = 10
    bs.traverse_switch(st, now)
    arrival = now + latency + 1 + credit_delay  # BookSim2: a channel's output is read the cycle after it lands
    assert bs.credits_available(st, iv, arrival - 1) == depth - 1
    assert bs.credits_available(st, iv, arrival) == depth
    # the flit itself: sent after st_final_delay, seen downstream latency + 1 cycles later; its credit is spent
    assert st.count[out] == 1 and st.farr[out, st.fhead[out]] == now + 1 + latency + 1
    assert st.credit[out] == depth - 1
    # a tail frees the output VC and the input VC
    assert st.busy[out] == -1 and st.vstate[iv] == bs.IDLE and st.count[iv] == 0


def test_ready_list_leaves_out_vcs_no_stage_can_act_on_this_cycle():
    st = _state()
    node = 5
    idle, waiting, active = (_vc(_in_channel(TORUS, node, 0, 1), 0), _vc(_in_channel(TORUS, node, 1, 1), 0),
                             _vc(_in_channel(TORUS, node, 1, -1), 1))  # fmt: skip
    bs._push_flit(st, idle, _new_packet(st, 0, node), 0, 4)  # a head still on its channel until cycle 4
    _put_head(st, waiting, _new_packet(st, 0, 1), bs.VC_ALLOC, ready=3)
    bs._push_flit(st, active, _new_packet(st, 0, 1), 1, 6)  # a body flit of an active VC, seen from cycle 6
    st.vstate[active], st.vready[active] = bs.ACTIVE, 2
    listed = {}
    for now in range(7):
        listed[now] = st.live[: bs.list_ready(st, now)].tolist()
    assert listed[2] == [] and listed[3] == [waiting] and listed[4] == sorted([idle, waiting])
    assert listed[6] == sorted([idle, waiting, active])
    assert list_occupied(st) == 3  # every VC still holds its flit


@pytest.mark.parametrize("cycles", [37, 150, 401])
def test_ready_list_mid_run_is_the_occupied_vcs_a_stage_can_act_on(cycles):
    cfg = SimConfig.preset("booksim", offered_load=0.6, packet_length=3, warmup=0, measure=1000, drain=0)
    st = bs.state_for(DOR, cfg, seed_word=cycles)
    bs.run(DOR, st, cycles)
    now = int(st.counters[CNT["now"]])
    occupied = np.flatnonzero(st.count > 0)
    front = st.farr[occupied, st.fhead[occupied]]
    assert (st.fvis[occupied] == front).all()  # the copy of the front flit's visibility is kept up to date
    state, ready_at = st.vstate[occupied], st.vready[occupied]
    can_act = np.where(state == bs.IDLE, front <= now, (ready_at <= now) & ((state != bs.ACTIVE) | (front <= now)))
    n = bs.list_ready(st, now)
    assert st.live[:n].tolist() == occupied[can_act].tolist()
    assert 0 < n < occupied.size  # a loaded network has VCs of both kinds
    # the stages' own lists: the heads to route, the heads that bid for a VC
    assert st.to_route[: st.nlive[1]].tolist() == occupied[can_act & (state == bs.IDLE)].tolist()
    assert st.to_allocate[: st.nlive[2]].tolist() == occupied[can_act & (state == bs.VC_ALLOC)].tolist()


@pytest.mark.parametrize("routing_delay", [0, 1])
def test_heads_routed_with_lookahead_routing_bid_for_a_vc_in_the_same_cycle(routing_delay):
    cfg = SimConfig.preset("booksim", offered_load=0.6, packet_length=2, warmup=0, measure=1000, drain=0,
                           routing_delay=routing_delay)  # fmt: skip
    st = bs.state_for(DOR, cfg, seed_word=7)
    bs.run(DOR, st, 120)
    now = int(st.counters[CNT["now"]])
    bs.list_ready(st, now)
    heads, waiting = st.to_route[: st.nlive[1]].tolist(), st.to_allocate[: st.nlive[2]].tolist()
    args = (kernel_handle(DOR.kernel), DOR.tables, st, now)
    assert compile_for_kernel(_route_listed, args)(*args) == len(heads) > 0
    expected = waiting + (heads if routing_delay == 0 else [])
    assert st.to_allocate[: st.nlive[2]].tolist() == expected


@njit
def _route_listed(route, tables, st, now):
    return bs.route_heads(route, tables, st, now)  # on the list list_ready made, as the cycle loop does


@pytest.mark.parametrize(("speculative", "routing_delay", "cycles"), [(False, 1, 60), (False, 1, 301), (True, 0, 90),
                                                                    (True, 1, 240)])  # fmt: skip
def test_switch_allocation_visits_every_input_channel_with_a_vc_that_can_bid(speculative, routing_delay, cycles):
    """Switch allocation visits only the channels of listed VCs passing ``_may_bid``: mid-run, every channel with
    a VC that can bid in this cycle (active, ready, a visible flit; or a head that bid for a VC in this cycle, with
    speculation) has one; the others are skipped.  Without speculation list_ready lists exactly the VCs that bid."""
    cfg = SimConfig.preset("booksim", offered_load=0.7, packet_length=2, warmup=0, measure=1000, drain=0,
                           speculative=speculative, routing_delay=routing_delay)  # fmt: skip
    st = bs.state_for(DOR, cfg, seed_word=cycles)
    bs.run(DOR, st, cycles)
    skipped = 0
    for _ in range(20):  # one cycle at a time, the stages in the cycle loop's order, up to switch allocation
        now = int(st.counters[CNT["now"]])
        bs.generate_packets(st, now)
        bs.inject_flits(st, now)
        listed = st.live[: bs.list_ready(st, now)]
        args = (kernel_handle(DOR.kernel), DOR.tables, st, now)
        compile_for_kernel(_route_listed, args)(*args)
        compile_for_kernel(_allocate_vcs_jit, args)(*args)
        bidders = (st.vstate == bs.ACTIVE) & (st.vready <= now) & (st.count > 0) & (st.fvis <= now)
        if speculative:
            bidders |= st.va_tried == now
        may_bid = (st.vstate == bs.ACTIVE) & (st.vready <= now)  # the switch bids, and with speculation ...
        if speculative:
            may_bid |= st.va_tried == now  # ... the heads VC allocation evaluated in this cycle
            assert all(bs._may_bid(st.vstate[iv], st.vready[iv], st.va_tried[iv], now) == may_bid[iv] for iv in listed)
        visited = {int(iv) // 2 for iv in listed if may_bid[iv]}
        assert {int(iv) // 2 for iv in np.flatnonzero(bidders)} <= visited
        if not speculative:  # the VCs list_ready listed for switch allocation, before routing and VC allocation
            assert st.to_switch[: st.nlive[3]].tolist() == np.flatnonzero(bidders).tolist()
        skipped += len({int(iv) // 2 for iv in listed} - visited)
        bs.allocate_switch(st, now)
        bs.traverse_switch(st, now)
        st.counters[CNT["now"]] = now + 1
    # with speculation and lookahead routing every listed head bids for a VC in its listing cycle, and may bid
    assert (skipped == 0 if speculative and routing_delay == 0 else skipped > 0), skipped


def test_injection_alternates_vcs_and_serializes_one_packet_at_a_time():
    st = _state(packet_length=2)
    a, b = _enqueue(st, 3, 7), _enqueue(st, 3, 9)
    base = (TORUS.num_channels + 3) * 2
    sent = [bs.inject_flits(st, now) for now in range(4)]
    assert sent == [1, 1, 1, 1]
    assert list(st.fpk[base, :2]) == [a, a] and list(st.fpk[base + 1, :2]) == [b, b]
    assert list(st.farr[base, :2]) == [2, 3] and list(st.farr[base + 1, :2]) == [4, 5]  # seen 2 cycles later
    assert st.pk_inj[a] == 0 and st.pk_inj[b] == 2


@pytest.mark.parametrize("routing_delay", [0, 1, 3])
def test_head_waits_routing_delay_before_vc_allocation(routing_delay):
    cfg = SimConfig.preset("booksim", offered_load=0.0, packet_length=1, routing_delay=routing_delay, warmup=0,
                           measure=200, drain=100)  # fmt: skip
    st = bs.state_for(DOR, cfg)
    p = _enqueue(st, 0, int(TORUS.node_id((1, 0))))
    iv = (TORUS.num_channels + 0) * 2 + 0
    for now in range(3):  # generation (none), injection at 0, head seen at 2
        bs.inject_flits(st, now)
    _route_once(DOR.kernel, DOR.tables, st, 2)
    assert st.vstate[iv] == bs.VC_ALLOC and st.vready[iv] == 2 + routing_delay
    assert _allocate_vcs(st, 2 + routing_delay - 1) == 0 if routing_delay else True
    assert _allocate_vcs(st, 2 + routing_delay) == 1
    assert st.out_vc[iv] // 2 == TORUS.channel_id((0, 0), 0, 1) and st.pk_state[p].sum() == 0


def test_next_packet_in_a_vc_waits_for_the_previous_tail():
    mesh = Mesh(1, 3)
    routing = ecube_routing(mesh, vcs=1)
    st = bs.state_for(routing, SimConfig.preset("booksim", offered_load=0.0, packet_length=1, channel_latency=1,
                                                warmup=0, measure=100, drain=100))  # fmt: skip
    for _ in range(3):
        _enqueue(st, 0, 0)
    bs.run(routing, st, 60)
    done = sorted(st.rec[: st.rec_count[0], 4])
    # one VC: each packet enters it once the previous has gone; then route 1, VC alloc 1, switch alloc 1 cycle
    assert done[0] == 7 and np.diff(done).tolist() == [3, 3]


# ------------------------------------------------------------------------------------------------- whole model


@pytest.mark.parametrize(
    ("topology", "length", "delays", "pairs"),
    [
        (Torus(2, 8), 1, {}, [((0, 0), (0, 0)), ((0, 0), (4, 3)), ((6, 1), (1, 7))]),
        (Torus(2, 8), 4, {"channel_latency": 1}, [((2, 2), (5, 5)), ((7, 7), (0, 0))]),
        (Mesh(2, 5), 3, {"routing_delay": 2, "st_final_delay": 2, "channel_latency": 3, "credit_delay": 1},
         [((0, 0), (4, 4)), ((3, 1), (3, 1))]),
        (Torus(3, 4), 2, {"routing_delay": 0, "vc_alloc_delay": 2}, [((0, 0, 0), (2, 1, 3))]),
        (Torus(2, 8), 4, {"routing_delay": 0, "channel_latency": 1, "speculative": True},
         [((0, 0), (0, 0)), ((1, 2), (5, 6))]),
    ],
)
def test_single_packet_latency_equals_the_pipeline_formula(topology, length, delays, pairs):
    routing = ecube_routing(topology, datelines=topology.wraparound, vcs=2, dateline_rule="entry")
    cfg = SimConfig.preset("booksim", offered_load=0.0, packet_length=length, warmup=0, measure=500, drain=500,
                           **delays)  # fmt: skip
    for src, dst in pairs:
        st = bs.state_for(routing, cfg)
        st.counters[CNT["now"]] = 5
        _enqueue(st, topology.node_id(src), topology.node_id(dst), now=5)
        bs.run(routing, st, 300)
        assert st.rec_count[0] == 1
        gen, done, hops = st.rec[0, 2], st.rec[0, 4], st.rec[0, 5]
        assert hops == topology.lee_distance(np.array(src), np.array(dst))
        expect = bs.booksim_zero_load_latency(int(hops), length, **{
            k: cfg.as_dict()[k] for k in ("routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay",
                                          "channel_latency", "speculative")})  # fmt: skip
        assert done - gen == expect


@settings(max_examples=40, deadline=None)
@given(
    topology=st.sampled_from([Torus(2, 5), Mesh(2, 4), Torus(3, 3)]),
    length=st.integers(1, 5),
    delays=st.fixed_dictionaries({
        "routing_delay": st.integers(0, 3), "vc_alloc_delay": st.integers(1, 3), "sw_alloc_delay": st.integers(1, 3),
        "st_final_delay": st.integers(1, 3), "channel_latency": st.integers(1, 4), "credit_delay": st.integers(0, 3),
    }),
    data=st.data(),
)
def test_lone_packet_latency_is_the_formula_for_any_delays(topology, length, delays, data):
    routing = ecube_routing(topology, datelines=topology.wraparound, vcs=2, dateline_rule="entry")
    if data.draw(st.booleans(), label="speculative"):  # speculation needs vc_alloc_delay <= sw_alloc_delay
        delays |= {"speculative": True, "vc_alloc_delay": min(delays["vc_alloc_delay"], delays["sw_alloc_delay"])}
    src = data.draw(st.integers(0, topology.num_nodes - 1), label="src")
    dst = data.draw(st.integers(0, topology.num_nodes - 1), label="dst")
    st_ = bs.state_for(routing, SimConfig.preset("booksim", offered_load=0.0, packet_length=length, warmup=0,
                                                 measure=400, drain=400, **delays))  # fmt: skip
    _enqueue(st_, src, dst)
    bs.run(routing, st_, 400)
    hops = int(topology.lee_distance(np.array(topology.coords(src)), np.array(topology.coords(dst))))
    assert st_.rec_count[0] == 1 and st_.rec[0, 5] == hops
    expect = bs.booksim_zero_load_latency(hops, length, **{k: v for k, v in delays.items() if k != "credit_delay"})
    assert st_.rec[0, 4] - st_.rec[0, 2] == expect


def test_default_router_zero_load_matches_booksim_cycles_per_hop():
    assert bs.booksim_zero_load_latency(np.arange(4), 1).tolist() == [7, 13, 19, 25]  # 7 + 6D on a torus
    assert bs.booksim_zero_load_latency(np.arange(4), 4, channel_latency=1).tolist() == [10, 15, 20, 25]
    minimal = {"routing_delay": 0, "channel_latency": 1, "speculative": True}  # BookSim2's minimal pipeline
    assert bs.booksim_zero_load_latency(np.arange(4), 1, **minimal).tolist() == [5, 8, 11, 14]  # 5 + 3D
    with pytest.raises(ValueError, match="vc_alloc_delay <= sw_alloc_delay"):
        bs.booksim_zero_load_latency(1, 1, vc_alloc_delay=2, speculative=True)


def test_flits_are_conserved_mid_run_and_hops_are_minimal():
    cfg = SimConfig.preset("booksim", offered_load=0.5, packet_length=3, warmup=100, measure=600)
    st = bs.state_for(DOR, cfg, seed_word=11, rec_cap=4000)
    for chunk in (137, 250, 400):
        run_checking_flits(bs.run, DOR, st, (chunk,))
        # the occupancy bitmap the stages visit marks exactly the input VCs holding flits
        bits = np.unpackbits(st.occupied.view(np.uint8), bitorder="little")[: st.live.shape[0]]
        assert (bits == (st.count[: st.live.shape[0]] > 0)).all() and st.count[st.live.shape[0]:].sum() == 0
    res = simulate(DOR, cfg, seed=4)
    assert not res.deadlock and res.delivered > 100
    assert (res.packets.extra_hops == 0).all() and (res.packets.dst == res.packets.src).any()


def test_seed_determinism():
    cfg = SimConfig.preset("booksim", offered_load=0.3, packet_length=2, warmup=50, measure=300)
    a, b, c = (simulate(DOR, cfg, seed=s) for s in (7, 7, 8))
    assert a.packets.equals(b.packets) and a.mean_latency == b.mean_latency
    assert not a.packets.equals(c.packets)


def test_dateline_dor_survives_overload_and_plain_dor_deadlocks_with_its_cycle():
    cfg = SimConfig.preset("booksim", offered_load=1.0, packet_length=8, buffer_depth=2, warmup=200, measure=1500,
                           drain=0, deadlock_cycles=200)  # fmt: skip
    safe = simulate(DOR, cfg, seed=1)
    assert not safe.deadlock and safe.accepted_throughput > 0.1  # 2-flit buffers, 9-cycle credit loop: slow
    ring = Torus(2, 6)
    with pytest.warns(SimulationDeadlock, match="deadlocked in measurement"):
        stuck = simulate(ecube_routing(ring, vcs=1), cfg.replace(warmup=0, measure=3000), seed=1)
    assert stuck.deadlock and stuck.cycles < 3000 and stuck.end_rule == "deadlocked"
    cycle = stuck.deadlock_cycle
    assert len(cycle) >= 2  # a closed chain of channels of one ring
    for (a, _), (b, _) in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert ring.channel_dst[a] == ring.channel_src[b]
    assert len({(int(ring.channel_dim[a]), int(ring.channel_sign[a])) for a, _ in cycle}) == 1


def test_uniform_including_the_source_sends_a_share_to_itself_on_both_routers():
    for preset in ("booksim", "simple"):
        extra = {} if preset == "booksim" else {"uniform_includes_source": True}
        cfg = SimConfig.preset(preset, offered_load=0.2, packet_length=1, warmup=0, measure=3000, **extra)
        packets = simulate(DOR, cfg, seed=2).packets
        share = (packets.src == packets.dst).mean()
        assert abs(share - 1 / TORUS.num_nodes) < 4 * np.sqrt(1 / TORUS.num_nodes / len(packets))
        assert (packets[packets.src == packets.dst].hops == 0).all()
    assert not (simulate(DOR, SimConfig(warmup=0, measure=500), seed=2).packets.eval("src == dst")).any()


def test_any_registry_routing_runs_on_the_booksim_router():
    routing = make_routing("duato", TORUS)  # adaptive: several candidate channels and VCs
    res = simulate(routing, SimConfig.preset("booksim", offered_load=0.3, warmup=100, measure=500), seed=3)
    assert not res.deadlock and res.undelivered == 0 and res.delivered > 50
    assert (res.packets.hops >= res.packets.min_hops).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"channel_latency": 2}, "channel_latency=2 needs router='booksim'"),
        ({"router": "booksim", "drop_after": -1}, "vc_allocation must be 'nonatomic'"),
        ({"router": "booksim", "vc_allocation": "nonatomic"}, "drop_after=64"),
        ({"router": "wormhole"}, "router must be one of"),
        ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "router_delay": 2}, "router_delay=2"),
        ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "vc_alloc_delay": 0},
         "vc_alloc_delay"),
        ({"speculative": True}, "speculative=True needs router='booksim'"),
        ({"router": "booksim", "vc_allocation": "nonatomic", "drop_after": -1, "speculative": True,
          "vc_alloc_delay": 2}, "speculative=True needs vc_alloc_delay <= sw_alloc_delay"),
    ],
)
def test_combinations_the_router_cannot_run_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SimConfig(**kwargs)


def test_speculative_must_be_a_bool():
    with pytest.raises(TypeError, match="speculative must be a bool"):
        SimConfig.preset("booksim", speculative=1)


@pytest.mark.parametrize("overrides", [{"measure": bs.WORD_LIMIT}, {"drain": bs.WORD_LIMIT - 1010},
                                       {"routing_delay": bs.WORD_LIMIT}])  # fmt: skip
def test_runs_past_the_32_bit_cycle_range_are_refused_before_allocating(overrides):
    """Cycle numbers are 32-bit words in the BookSim model's state: a run (or a delay) that would pass them is
    refused by state_for, naming the cycle, before the state is built."""
    cfg = SimConfig.preset("booksim", offered_load=0.1, warmup=10, measure=1000, drain=0).replace(**overrides)
    with pytest.raises(ValueError, match="32-bit words: a run to cycle"):
        bs.state_for(DOR, cfg)


def test_run_refuses_cycles_past_the_32_bit_range():
    st = _state()
    bs.run(DOR, st, 10)
    with pytest.raises(ValueError, match=f"a run to cycle {bs.WORD_LIMIT + 10}"):
        bs.run(DOR, st, bs.WORD_LIMIT)


@pytest.mark.parametrize("topology, vcs", [(Torus(2, 4), 2), (Torus(3, 4), 4), (Mesh(2, 5), 3)])
def test_state_memory_estimate_bounds_what_state_for_allocates(topology, vcs):
    """The estimate made before allocating is at least the state's bytes, and within 10% of them."""
    cfg = SimConfig.preset("booksim", offered_load=0.1, buffer_depth=5)
    routing = ecube_routing(topology, datelines=not isinstance(topology, Mesh), vcs=vcs)
    st = bs.state_for(routing, cfg, rec_cap=500)
    buffers = {id(a.base if a.base is not None else a): (a.base if a.base is not None else a).nbytes for a in st
               if isinstance(a, np.ndarray)}  # fmt: skip
    allocated = sum(buffers.values())
    estimate = bs.state_memory_bytes(topology, vcs, 5, cfg.queue_capacity, 500)
    assert allocated <= estimate <= 1.1 * allocated


def test_preset_gives_booksim_defaults_and_refuses_unknown_names():
    cfg = SimConfig.preset("booksim")
    assert (cfg.router, cfg.routing_delay, cfg.vc_alloc_delay, cfg.sw_alloc_delay, cfg.st_final_delay,
            cfg.channel_latency, cfg.credit_delay, cfg.buffer_depth, cfg.vc_allocation,
            cfg.uniform_includes_source) == ("booksim", 1, 1, 1, 1, 2, 0, 8, "nonatomic", True)  # fmt: skip
    assert SimConfig.preset("simple") == SimConfig()
    with pytest.raises(ValueError, match="preset name"):
        SimConfig.preset("garnet")


def test_faults_are_refused_by_the_booksim_router():
    from torus_lab.topology import Faults

    routing = ecube_routing(TORUS, datelines=True, vcs=2, faults=Faults(links={0}))
    with pytest.raises(ValueError, match="does not model faults"):
        simulate(routing, SimConfig.preset("booksim", measure=10), seed=0)


@pytest.mark.parametrize("traffic", ["tornado", "bit-reverse", "hotspot"])
def test_booksim_router_delivers_every_pattern_to_its_destination_under_on_off_injection(traffic):
    from torus_lab.sim.traffic import destination_map

    cfg = SimConfig.preset("booksim", traffic=traffic, injection="on-off", burst_alpha=0.2, burst_beta=0.2,
                           offered_load=0.3, packet_length=2, warmup=200, measure=4000, hotspot_node=3)  # fmt: skip
    res = simulate(DOR, cfg, seed=5)
    assert not res.deadlock and res.undelivered == 0
    fixed = destination_map(TORUS, traffic)
    senders = 1.0 if traffic == "hotspot" else (fixed >= 0).mean()  # a node mapped to itself sends nothing
    assert abs(res.generated_throughput - 0.3 * senders) < 0.05  # on-off keeps the long-run rate
    packets = res.packets
    if traffic != "hotspot":
        assert (packets.dst.to_numpy() == fixed[packets.src.to_numpy()]).all()
    else:
        assert (packets.dst == 3).mean() > 0.1


def test_islip_match_desynchronises_its_pointers_in_the_second_round():
    """Two inputs both request outputs 0 and 1: the first iteration matches one pair (both outputs grant input
    0, which accepts output 0); the moved pointers then let both pairs match (iSLIP's desynchronisation)."""
    from torus_lab.sim.allocators import islip_match

    req_in, req_out = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    in_key, out_key = req_in.copy(), req_out.copy()
    gptr, aptr = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    scratch = [np.full(2, -1, dtype=np.int64) for _ in range(3)]
    matched = np.zeros(4, dtype=np.int64)
    n = islip_match(4, req_in, req_out, in_key, out_key, 2, 2, gptr, aptr, *scratch, matched, 0)
    assert [(req_in[r], req_out[r]) for r in matched[:n]] == [(0, 0)]
    assert gptr.tolist() == [1, 0] and aptr.tolist() == [1, 0]
    n = islip_match(4, req_in, req_out, in_key, out_key, 2, 2, gptr, aptr, *scratch, matched, 1)
    assert sorted((req_in[r], req_out[r]) for r in matched[:n]) == [(0, 1), (1, 0)]


@njit
def _ecube_with_repeats(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    """e-cube's candidates, then each repeated to MAX_CANDIDATES entries with another header state."""
    m = ecube_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state)
    if m == 0:
        return 0
    for c in range(m, MAX_CANDIDATES):
        out_ch[c] = out_ch[c % m]
        out_vc[c] = out_vc[c % m]
        for w in range(out_state.shape[1]):
            out_state[c, w] = out_state[c % m, w] + 1000 + c  # a repeat's state must never be taken
    return MAX_CANDIDATES


@pytest.mark.parametrize("router", ["simple", "booksim"])
def test_repeated_candidates_beyond_the_row_change_nothing(router):
    """A kernel returning more candidates than a router has outputs (so repeats) runs exactly as without them."""
    import dataclasses

    from torus_lab.sim.buffers import candidate_capacity

    topology = Torus(2, 4)
    plain = ecube_routing(topology, datelines=True, vcs=2)
    repeating = dataclasses.replace(plain, name="ecube-with-repeats", kernel=_ecube_with_repeats)
    assert candidate_capacity(topology, 2) == 8 < 32
    config = (SimConfig.preset("booksim") if router == "booksim" else SimConfig()).replace(
        offered_load=0.3, packet_length=2, warmup=100, measure=400)
    a, b = simulate(plain, config, seed=5), simulate(repeating, config, seed=5)
    assert b.counters["routing_error"] == 0 and len(a.packets) > 100
    assert a.packets.equals(b.packets) and a.counters == b.counters
