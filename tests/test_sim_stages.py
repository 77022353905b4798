"""Tests of the simple router model's stages (torus_lab.sim.simple) and the stages both models share
(torus_lab.sim.packets), each on a hand-made situation in a tiny torus."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from torus_lab._jit import njit
from torus_lab.routing.ecube import ecube_routing
from torus_lab.routing.interface import compile_for_kernel
from torus_lab.sim import packets
from torus_lab.sim import simple as k
from torus_lab.sim.packets import CNT
from torus_lab.sim.traffic import draw_destination, starts_packet
from torus_lab.topology import Torus

TORUS = Torus(2, 4)
DOR = ecube_routing(TORUS, datelines=True, vcs=2)


def _state(vcs=2, depth=4, length=1, atomic=True, queue_cap=4, **settings) -> k.SimpleState:
    """A quiet network (no generation) on TORUS; ``settings`` go into ``cfg`` (names of ``simple.CFG``)."""
    st = k.new_state(TORUS, vcs, queue_cap, 16, 1, depth=depth, length=length, atomic=atomic)
    values = dict(router_delay=1, warmup=0, measure_end=10**6, drain=0, gen_end=0, deadlock_cycles=5,
                  drop_after=-1) | settings  # fmt: skip
    for name, value in values.items():
        st.cfg[k.CFG[name]] = value
    return st


def _into(node, dim, sign) -> int:
    """The channel arriving at ``node`` along ``dim`` in direction ``sign``."""
    src = list(TORUS.coords(node))
    src[dim] = (src[dim] - sign) % TORUS.radices[dim]
    return int(TORUS.channel_id(tuple(src), dim, sign))


def _out(node, dim, sign) -> int:
    return int(TORUS.channel_id(TORUS.coords(node), dim, sign))


def _packet(st, src, dst, gen=0, measured=True) -> int:
    st.free_top[0] -= 1
    p = int(st.free_stack[st.free_top[0]])
    st.pk_src[p], st.pk_dst[p], st.pk_gen[p], st.pk_inj[p], st.pk_hops[p] = src, dst, gen, -1, 0
    st.pk_meas[p] = int(measured)
    return p


def _push(st, iv, p, fi, arrival=0) -> None:
    """Append flit ``fi`` of packet ``p`` to input VC ``iv`` and mark the VC occupied."""
    cap = st.fpk.shape[1]
    slot = (st.fhead[iv] + st.count[iv]) % cap
    st.fpk[iv, slot], st.fidx[iv, slot], st.farr[iv, slot] = p, fi, arrival
    st.count[iv] += 1
    st.occupied[iv >> 6] |= np.uint64(1 << (iv & 63))


def _waiting_head(st, iv, p, candidates=(), out=-1) -> None:
    """Packet ``p``'s head at the front of ``iv``, routed, with ``candidates`` (or allocated to ``out``)."""
    _push(st, iv, p, 0)
    st.routed[iv] = 1
    st.ncand[iv] = len(candidates)
    for c, tgt in enumerate(candidates):
        st.cand_ivc[iv, c] = tgt
    st.out_ivc[iv] = out


def _cycle_front(st, now) -> None:
    """What the loop does before routing: list the occupied VCs."""
    k.list_occupied(st)


@njit
def _route_jit(route, tables, st, now):
    return k.route_heads(route, tables, st, now)


def _route(st, now, routing=DOR):
    args = (routing.kernel, routing.tables, st, now)
    return compile_for_kernel(_route_jit, args)(*args)



@njit
def _allocate_vcs_jit(route, tables, st, now):
    return k.allocate_vcs(route, tables, st, now)


def _allocate_vcs(st, now, routing=DOR):
    """:func:`k.allocate_vcs` compiled for the routing-kernel type (a grant calls the kernel again)."""
    args = (routing.kernel, routing.tables, st, now)
    return compile_for_kernel(_allocate_vcs_jit, args)(*args)

# ------------------------------------------------------------------------------------------- occupancy list


@settings(max_examples=40, deadline=None)
@given(hst.sets(hst.integers(0, TORUS.num_channels * 2 + TORUS.num_nodes - 1), max_size=60))
def test_occupied_list_is_every_busy_vc_in_ascending_order(busy):
    st = _state()
    p = _packet(st, 0, 1)
    for iv in busy:
        _push(st, iv, p, 0)
    n = k.list_occupied(st)
    assert st.live[:n].tolist() == sorted(busy) == np.flatnonzero(st.count > 0).tolist()


# ------------------------------------------------------------------------------------- generation, injection


def test_generation_fills_source_queues_and_counts_overflow():
    st = _state(queue_cap=2, gen_end=10, warmup=1)
    st.fcfg[0] = 1.0  # Bernoulli, a packet every cycle at every node; uniform pattern (code 0)
    for now in range(3):
        k.generate_packets(st, now)
    nn = TORUS.num_nodes
    assert st.counters[CNT["packets_generated"]] == 3 * nn
    assert st.counters[CNT["queue_overflow"]] == nn  # the third packet of each node found its queue full
    assert st.counters[CNT["measured_lost"]] == nn and st.counters[CNT["measured_generated"]] == nn
    assert (st.q_len == 2).all()
    first = st.q_buf[:, 0]
    assert (st.pk_gen[first] == 0).all() and (st.pk_meas[first] == 0).all()  # created before warm-up ended
    assert (st.pk_src[first] == np.arange(nn)).all() and (st.pk_dst[first] != np.arange(nn)).all()
    k.generate_packets(st, 10)  # gen_end reached: nothing more
    assert st.counters[CNT["packets_generated"]] == 3 * nn


@njit
def _reference_starts(fcfg, active, dest_map, include_self, rng):
    """Bernoulli generation as ``starts_packet`` then ``draw_destination`` per node (uniform pattern): the
    destination each node draws (-1: no packet), advancing ``rng``."""
    out = np.full(active.shape[0], -1, dtype=np.int64)
    burst_on = np.zeros(active.shape[0], dtype=np.uint8)
    for a in range(active.shape[0]):
        if starts_packet(0, fcfg, burst_on, active[a], rng):
            out[a] = draw_destination(0, active[a], active, dest_map, 0, 0.0, include_self, rng)
    return out


@settings(max_examples=25, deadline=None)
@given(prob=hst.floats(0.0, 1.0), seed=hst.integers(0, 2**64 - 1), include_self=hst.booleans())
def test_bernoulli_generation_draws_the_stream_of_starts_packet_and_draw_destination(prob, seed, include_self):
    st = _state(queue_cap=4, gen_end=10, include_self=int(include_self))
    st.fcfg[0] = prob
    st.rng[0] = seed
    expected = _reference_starts(st.fcfg, st.active, st.dest_map, include_self, np.array([seed], dtype=np.uint64))
    k.generate_packets(st, 0)
    started = np.flatnonzero(expected >= 0)
    assert st.q_len.tolist() == (expected >= 0).astype(int).tolist()
    assert st.pk_dst[st.q_buf[started, 0]].tolist() == expected[started].tolist()
    rng = np.array([seed], dtype=np.uint64)
    _reference_starts(st.fcfg, st.active, st.dest_map, include_self, rng)
    assert st.rng[0] == rng[0]  # the next draw continues the same stream


def test_injection_moves_a_whole_packet_once_the_buffer_is_empty():
    st = _state(length=3)
    inj = TORUS.num_channels * 2 + 5
    p, q = _packet(st, 5, 6, gen=4), _packet(st, 5, 6, gen=4)
    st.q_buf[5, :2] = p, q
    st.q_len[5] = 2
    st.inj_free[5] = 7  # the previous tail left the injection buffer in cycle 7
    assert k.inject_packets(st, 8) == 1
    assert st.count[inj] == 3 and st.fpk[inj, :3].tolist() == [p] * 3 and st.fidx[inj, :3].tolist() == [0, 1, 2]
    assert st.farr[inj, :3].tolist() == [7, 7, 7]  # arrival max(creation 4, previous tail 7)
    assert k.list_occupied(st) == 1 and st.live[0] == inj
    assert k.inject_packets(st, 9) == 0 and st.q_len[5] == 1  # q waits for an empty buffer


# ------------------------------------------------------------------------------------------------- routing


def test_routing_ejects_at_the_destination_and_waits_for_the_router_delay():
    st = _state(router_delay=2)
    home = _into(5, 0, 1) * 2
    passing = _into(6, 0, 1) * 2
    _push(st, home, _packet(st, 4, 5), 0, arrival=3)
    _push(st, passing, _packet(st, 5, 7), 0, arrival=4)
    _cycle_front(st, 5)
    assert _route(st, 5) == 1  # only the head that arrived in cycle 3 is past its 2-cycle router delay
    assert st.out_ivc[home] == k.EJECT and st.routed[passing] == 0
    assert _route(st, 6) == 1
    assert st.routed[passing] == 1 and st.out_ivc[passing] == -1 and st.ncand[passing] >= 1
    for c in range(st.ncand[passing]):  # candidates leave node 6 towards 7 along dimension 0
        assert st.cand_ivc[passing, c] // 2 == _out(6, 0, 1)
    assert _route(st, 7) == 0  # routed once per packet


def test_hop_limit_sends_the_packet_to_drop():
    st = _state(hop_limit=3)
    iv = _into(6, 0, 1) * 2
    p = _packet(st, 5, 8)
    st.pk_hops[p] = 3
    _push(st, iv, p, 0)
    _cycle_front(st, 1)
    _route(st, 1)
    assert st.out_ivc[iv] == k.DROP and st.counters[CNT["hop_limit_drops"]] == 1


# ---------------------------------------------------------------------------------------------- VC allocation


def _two_heads_for_one_vc(atomic):
    """Heads in two input VCs of node 5 (from the west and from the south) both want VC 0 of 5's east channel."""
    st = _state(atomic=atomic)
    a, b = _into(5, 0, 1) * 2, _into(5, 1, 1) * 2
    tgt = _out(5, 0, 1) * 2
    _waiting_head(st, a, _packet(st, 4, 6), candidates=(tgt,))
    _waiting_head(st, b, _packet(st, 1, 6), candidates=(tgt,))
    return st, min(a, b), max(a, b), tgt


def test_vc_allocation_grants_a_free_vc_to_the_round_robin_winner():
    st, low, high, tgt = _two_heads_for_one_vc(atomic=True)
    st.rr_va[tgt] = low  # the last winner was `low`: `high` comes first now
    _cycle_front(st, 5)
    assert _allocate_vcs(st, 5) == 1
    assert st.out_ivc[high] == tgt and st.out_ivc[low] == -1
    assert st.writer[tgt] == st.fpk[high, st.fhead[high]] and st.rr_va[tgt] == high
    st2, low, high, tgt = _two_heads_for_one_vc(atomic=True)
    st2.rr_va[tgt] = high
    _cycle_front(st2, 5)
    _allocate_vcs(st2, 5)
    assert st2.out_ivc[low] == tgt and st2.out_ivc[high] == -1


@pytest.mark.parametrize("atomic", [True, False])
def test_vc_holding_flits_is_refused_under_atomic_allocation_only(atomic):
    st, low, high, tgt = _two_heads_for_one_vc(atomic)
    _push(st, tgt, _packet(st, 5, 6), 0)  # an earlier packet's last flit still sits in the target VC
    _cycle_front(st, 5)
    granted = _allocate_vcs(st, 5)
    assert granted == (0 if atomic else 1)
    assert (st.writer[tgt] >= 0) == (not atomic)


@pytest.mark.parametrize("atomic", [True, False])
def test_vc_with_a_writer_is_refused_under_both_allocations(atomic):
    st, low, high, tgt = _two_heads_for_one_vc(atomic)
    st.writer[tgt] = 99  # allocated to a packet whose tail has not been written yet
    _cycle_front(st, 5)
    assert _allocate_vcs(st, 5) == 0 and st.out_ivc[low] == -1 and st.out_ivc[high] == -1


def test_head_without_candidates_is_dropped_after_drop_after_cycles():
    st = _state(drop_after=2)
    iv = _into(5, 0, 1) * 2
    _waiting_head(st, iv, _packet(st, 4, 6), candidates=())
    for now in range(1, 4):
        _cycle_front(st, now)
        _allocate_vcs(st, now)
        assert st.out_ivc[iv] == (k.DROP if now == 3 else -1)


# ----------------------------------------------------------------------------------------- switch allocation


def test_switch_allocation_grants_one_input_per_output_round_robin():
    st = _state(depth=2)
    a, b = _into(5, 0, 1) * 2, _into(5, 1, 1) * 2
    east = _out(5, 0, 1)
    _waiting_head(st, a, _packet(st, 4, 6), out=east * 2)
    _waiting_head(st, b, _packet(st, 1, 6), out=east * 2 + 1)
    port_a, port_b = a // 2, b // 2
    st.rr_out[east] = port_a
    _cycle_front(st, 5)
    assert k.allocate_switch(st, 5) == 1
    assert st.grants[0] == b and st.rr_out[east] == port_b  # b's port is first after a's
    assert k.allocate_switch(st, 6) == 1 and st.grants[0] == a  # the pointer moved: a wins next


def test_switch_allocation_sends_one_flit_per_input_and_needs_a_free_slot():
    st = _state(depth=1)
    port = _into(5, 0, 1)
    v0, v1 = port * 2, port * 2 + 1
    east, north = _out(5, 0, 1) * 2, _out(5, 1, 1) * 2
    _waiting_head(st, v0, _packet(st, 4, 6), out=east)
    _waiting_head(st, v1, _packet(st, 4, 9), out=north)
    st.rr_in[port] = 1  # VC 1 went last: VC 0 is offered first
    _cycle_front(st, 5)
    assert k.allocate_switch(st, 5) == 1 and st.grants[0] == v0 and st.rr_in[port] == 0
    _push(st, north, _packet(st, 5, 9), 0)  # the north VC fills up (depth 1): VC 1 cannot be offered
    _cycle_front(st, 6)
    assert k.allocate_switch(st, 6) == 1 and st.grants[0] == v0


# ------------------------------------------------------------------------------------------------ traversal


def test_traversal_moves_one_flit_and_the_tail_frees_the_vc():
    st = _state(length=2)
    iv = _into(5, 0, 1) * 2
    east = _out(5, 0, 1) * 2
    p = _packet(st, 4, 6)
    _waiting_head(st, iv, p, out=east)
    _push(st, iv, p, 1)
    st.writer[east] = p
    for now, (left, arrived) in zip((5, 6), ((1, 1), (0, 2)), strict=True):
        _cycle_front(st, now)
        assert k.allocate_switch(st, now) == 1
        assert k.traverse(st, now) == 1
        assert st.count[iv] == left and st.count[east] == arrived
    assert st.fidx[east, :2].tolist() == [0, 1] and st.farr[east, :2].tolist() == [5, 6]
    assert st.pk_hops[p] == 1 and st.writer[east] == -1  # the tail was written: the VC takes a new packet
    assert st.routed[iv] == 0 and st.out_ivc[iv] == -1  # the input VC is ready for its next packet
    assert k.list_occupied(st) == 1 and st.live[0] == east
    assert st.ch_flits[east // 2] == 2


def test_ejecting_a_tail_finishes_and_records_the_packet():
    st = _state(length=1)
    iv = _into(6, 0, 1) * 2
    p = _packet(st, 5, 6, gen=2)
    st.pk_inj[p], st.pk_hops[p] = 3, 1
    _waiting_head(st, iv, p, out=k.EJECT)
    free = st.free_top[0]
    _cycle_front(st, 9)
    k.allocate_switch(st, 9)
    assert k.traverse(st, 9) == 1
    assert st.rec_count[0] == 1 and st.rec[0].tolist() == [5, 6, 2, 3, 9, 1, 0]
    assert st.counters[CNT["packets_delivered"]] == 1 and st.counters[CNT["latency_sum"]] == 7
    assert st.free_top[0] == free + 1 and st.free_stack[free] == p  # back in the pool
    assert st.count[iv] == 0 and k.list_occupied(st) == 0


# ------------------------------------------------------------------------------------ shared: progress, end


def test_progress_watch_flags_deadlock_after_deadlock_cycles():
    st = _state()
    st.counters[CNT["flits_injected"]] = 3
    st.counters[CNT["flits_ejected"]] = 1  # two flits still in the network
    for _ in range(4):
        packets.watch_progress(st, 0, 5)
    assert st.counters[CNT["deadlock"]] == 0 and st.counters[CNT["idle"]] == 4
    packets.watch_progress(st, 1, 5)  # something moved: the count starts again
    assert st.counters[CNT["idle"]] == 0
    for _ in range(5):
        packets.watch_progress(st, 0, 5)
    assert st.counters[CNT["deadlock"]] == 1
    assert packets.run_over(st, 0, 100, 10)


def test_empty_network_is_never_deadlocked_and_the_run_ends_after_its_drain():
    st = _state()
    for _ in range(20):
        packets.watch_progress(st, 0, 5)
    assert st.counters[CNT["deadlock"]] == 0
    st.counters[CNT["measured_generated"]] = 2
    st.counters[CNT["measured_done"]] = 1
    assert not packets.run_over(st, 99, 100, 10)  # still measuring
    assert not packets.run_over(st, 105, 100, 10)  # draining, one measured packet left
    assert packets.run_over(st, 110, 100, 10)  # drain cap
    st.counters[CNT["measured_done"]] = 2
    assert packets.run_over(st, 100, 100, 10)  # every measured packet finished
