"""A BookSim2-compatible router model (``SimConfig(router="booksim")``), built from small stage functions.

The model follows BookSim2's input-queued virtual-channel router (``IQRouter``, commit 28f4329, with its
default allocators) and its traffic manager, re-stated here in our own terms; the defaults are
``SimConfig.preset("booksim")``.  Every choice below was read from BookSim2's behaviour and checked against the
zero-load fits of its measured latencies; nothing is fitted to its numbers.

Network
    Every router has ``2n`` network input and output ports (fewer at a mesh edge), one injection input and one
    ejection output; every port has ``V`` VCs (the routing function's ``num_vcs``), the injection and ejection
    ports included.  Channels are numbered: network channels ``0..C-1`` (the topology's ids), then one
    injection channel per node (``C + node``: source -> router), then one ejection channel per node
    (``C + N + node``: router -> sink).  VC ``v`` of channel ``ch`` is ``ch * V + v``; a network VC id is also
    the id of the downstream input VC, so wait-for graphs use the same numbering as the simple model.
Timing (one cycle = one BookSim2 ``_Step``)
    * A flit or credit sent over a channel of latency ``c`` in cycle ``t`` is seen by the receiver in cycle
      ``t + c + 1``: BookSim2's channel delivers at the end of cycle ``t + c`` and the receiver reads its
      inputs at the start of the next cycle.  Network channels have ``channel_latency`` (credits too; a
      router adds ``credit_delay`` to process a received credit); injection and ejection channels 1 cycle;
      the source and the sink process credits at once.
    * A head that reaches the front of an idle input VC in cycle ``A`` is routed (``routing_delay`` cycles:
      VC allocation from ``A + routing_delay``; 0 = lookahead routing), then takes part in VC allocation
      each ``vc_alloc_delay`` cycles until granted, then in switch allocation from ``vc_alloc_delay`` cycles
      after the grant.  With ``speculative`` switch allocation it also bids for the switch in every cycle it
      bids for a VC (Allocation below), so a head granted both in its first cycle wins the switch in cycle
      ``A + routing_delay``; a head that won its VC but not the switch bids again ``sw_alloc_delay`` cycles
      later.  A flit that wins switch allocation in cycle ``S`` leaves its input buffer then (its
      credit goes back upstream); it is sent on the output channel in cycle
      ``S + sw_alloc_delay - 1 + st_final_delay`` (it enters its output port's queue then, and the channel sends
      one queued flit per cycle; without speedups the queue is empty) and seen downstream one channel later.  A
      body flit that arrives in an active VC can win switch allocation in its arrival cycle.
    * Internal steps (``internal_speedup`` s >= 1): the router's pipeline (listing, routing, both allocations,
      traversal) runs ``floor((t + 1) s) - floor(t s)`` times in cycle ``t`` (once without speedup); the stages
      count their readiness in steps, and a 1-cycle stage lets the next act in the next step
      (``docs/conventions.md#sim-booksim-speedup``).  An input channel sends one credit per cycle.
    * An input VC holds one packet at a time: when a tail leaves, the next head in that buffer is routed from
      the next cycle on (BookSim2's per-VC turnaround: with the default delays an input VC starts at most one
      packet every 3 cycles).
    * Zero-load latency of a packet of L flits over H network hops, from creation to tail ejection: the head
      is sent into the injection channel in its creation cycle and seen by the router 2 cycles later; each
      router sends it ``R - 1`` cycles after seeing it (``R = routing_delay + vc_alloc_delay + sw_alloc_delay
      + st_final_delay``; with speculation the two allocations overlap: ``R = routing_delay +
      max(vc_alloc_delay, sw_alloc_delay) + st_final_delay``); each network channel adds ``channel_latency + 1``
      and the ejection channel 2, so :func:`booksim_zero_load_latency` ``= 3 + R + H (R + channel_latency) +
      (L - 1) sw_alloc_delay`` (an input VC bids for the switch once per ``sw_alloc_delay`` cycles, so body
      flits follow at that pace); with the defaults ``7 + 6H + L - 1`` on a torus (2-cycle channels) and
      ``7 + 5H + L - 1`` with 1-cycle channels, BookSim2's measured fits; BookSim2's minimal pipeline
      (lookahead routing, speculation, 1-cycle allocations, traversal and channels) gives ``5 + 3H + L - 1``.
Allocation (separable iSLIP, one iteration, round-robin pointers, as BookSim2's default ``islip``)
    * VC allocation: a routed head requests every candidate output VC that is free (not held by another
      packet; credits are not checked, ``vc_busy_when_full = 0``).  Each output VC grants the requesting
      input VC first at or after its grant pointer (router-local order: input port x V + VC); each input VC
      accepts the granting output VC first at or after its accept pointer; pointers move past an accepted
      match only.  At the destination router the candidates are all V VCs of the ejection port.
    * Output VCs are reused non-atomically (``wait_for_tail_credit = 0``): an output VC is free again once the
      tail of its packet has been sent; credit counters per output VC start at ``buffer_depth``.
    * Switch allocation: of the VCs of one switch input that target the same output port and have a flit, a
      credit and room in the port's output queue, the first at or after the switch input's VC pointer requests
      it; then iSLIP between switch inputs and switch outputs (one flit per each per step); a winning VC moves
      the pointer ``input_speedup`` VCs past itself.  An input port has ``input_speedup`` switch inputs (VC ``v``
      uses input ``v mod input_speedup``) and an output port ``output_speedup`` switch outputs (input port ``p``
      uses output ``p mod output_speedup``); without speedups one flit per input and output port per cycle.
    * Speculative switch allocation (``speculative``, BookSim2's ``speculative = 1`` with its defaults
      ``spec_sw_allocator = prio``, ``spec_check_elig = spec_check_cred = 1``, ``spec_mask_by_reqs = 0``):
      in every cycle a head takes part in VC allocation it also requests the switch for each output port of
      its candidates where some candidate VC was free before that cycle's VC allocation and has a credit; if
      some port of its candidates fails that check, a grant to it is void in that cycle.  Its requests have
      the lowest priority, and in this allocator priority acts only within an input port: of the VCs of one
      input port asking for the same output port, a non-speculative one takes the request over from a
      speculative one; iSLIP between ports ignores it (BookSim2's iSLIP has no priorities), so a speculative
      request can win an output that a non-speculative request of another port also wanted.  VC allocation
      runs first; a speculative grant is used only if the head won, in this same cycle, an output VC of the
      granted port that has a credit; otherwise the grant is lost (the output port stays idle in that cycle),
      the port's VC pointer still moves past the VC (except when void), and the head bids again: for the
      switch non-speculatively ``sw_alloc_delay`` cycles later if it has its VC, else speculatively with its
      next VC-allocation attempt.  ``vc_alloc_delay > sw_alloc_delay`` is refused (BookSim2 stops on an
      assertion); with ``sw_alloc_delay > 1`` BookSim2 checks the VC grant at the end of the switch
      allocation instead of in its first cycle (a difference only then).
    * Multi-cycle allocation (``vc_alloc_delay`` or ``sw_alloc_delay`` > 1) is modelled as a decision taken
      in the first cycle whose effects appear at the end of the last; BookSim2 holds the output VC only at the
      end and re-checks it (a difference only for delays > 1, not in BookSim2's defaults).
Traffic and measurement (BookSim2's traffic manager)
    Every node draws a packet each cycle with probability ``offered_load / packet_length`` (Bernoulli; or
    the on-off process, shared with the simple router: :func:`torus_lab.sim.traffic.starts_packet`) into
    an unbounded-in-spirit source queue (``queue_capacity``); a node sends one packet at a time, one flit
    per cycle: its head takes the first free injection VC with a credit after the VC it used last, the body
    follows in that VC as credits allow, and the next packet may start the cycle after the tail.  The sink
    accepts one flit per cycle (the ejection port's switch output).  Latency is counted from creation to the
    tail's ejection; hops count network channels (BookSim2's ``hops`` counts routers: one more).
Not modelled
    Faults, dropping, hop limits (refused by :class:`torus_lab.sim.SimConfig` / :func:`torus_lab.sim.simulate`);
    internal speedup below 1, holding the switch for a packet, other allocators (also for speculative requests),
    other speculation checks (``spec_check_elig``, ``spec_check_cred``, ``spec_mask_by_reqs`` other than
    BookSim2's defaults).

State: one :class:`BookSimState` (a NamedTuple of numpy arrays, so numba compiles and caches every stage
against one type); :func:`state_for` builds it.  VC, packet and request ids and cycle numbers are 32-bit words
(:data:`torus_lab.sim.packets.WORD_LIMIT`; header states, packets' records and counters stay 64-bit), and the
three words of a buffer slot sit side by side: a flit's move then reads half as many cache lines, which matters
once the state outgrows the caches.  The stages are compiled with ``inline="always"``, so each stays a
small function of its own, callable and tested alone.  numba counts references to every array: passing the
state to a stage (inlined or not) increments and decrements the count of each of its arrays, and reading an
array through the tuple inside a loop does so at every read.  So the stages bind the arrays they use to local
names at their top, and :func:`run_booksim` is compiled without reference counting
(``torus_lab._jit.njit(refcount=False)``), which removes the count updates altogether.

Routing and both allocators visit only the input VCs holding flits that one of them can act on in the cycle (the
``occupied`` bitmap, kept by injection and traversal, filtered and listed in ascending order by :func:`list_ready`
once per cycle after injection; a flit still on its channel is in its downstream buffer, not yet visible, and costs
no visit), which keeps every round-robin decision and the order of random draws of a scan of all input VCs.
:func:`list_ready` also lists, for routing, the heads to route and, for VC allocation, the heads that bid for a VC
(routing adds the heads it routes with ``routing_delay = 0``, which bid in the same cycle; VC allocation's outcome
does not depend on the order of its bidders); switch allocation visits, without speculation, the active VCs that
bid for the switch (listed by :func:`list_ready` too, so the VCs of one input channel are neighbours in the list),
and with speculation the channels of the listed VCs that may bid.  :func:`list_ready` tests each VC's state
without branching on it: the state of a VC is unpredictable from one to the next, and the mispredicted branches
cost about 40% of the stage.
A stage called alone needs the lists first (:func:`list_ready`; for switch allocation also every VC holding flits:
:func:`torus_lab.sim.simple.list_occupied`, as in the simple model).  The visibility cycle of each VC's front flit
is kept in ``fvis`` (a 1-D copy of ``farr`` at the front slot), so these checks do not read the 2-D FIFO. Stages:
:func:`generate_packets`, :func:`inject_flits`, :func:`list_ready`, :func:`route_heads`, :func:`allocate_vcs`,
:func:`allocate_switch`, :func:`traverse_switch` (and the credit helpers :func:`credits_available`,
:func:`send_credit`), called in that order by :func:`run_booksim` (the last five in every internal step).
Generation into the source queues, packet finishing, the progress (deadlock) watch and the end-of-run test are
shared with the simple model (:mod:`torus_lab.sim.packets`).

Examples
--------
>>> booksim_zero_load_latency(hops=4, packet_length=1)          # default router, 2-cycle channels
31
>>> booksim_zero_load_latency(hops=0, packet_length=4, channel_latency=1)   # self-addressed packet
10
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_int, check_int_array
from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE
from torus_lab.sim.allocators import islip_match, wrap
from torus_lab.sim.buffers import (
    candidate_capacity,
    granted_state,
    mark_occupied,
    pop_flit,
    repeats_stored,
    split_vc,
    vc_split_shift,
)
from torus_lab.sim.config import check_speculative_delays
from torus_lab.sim.packets import (
    CN_FLITS_EJECTED,
    CN_FLITS_INJECTED,
    CN_NOW,
    CN_ROUTING_ERROR,
    CN_WINDOW_FLITS_EJECTED,
    CNT,
    LOOP_OVER,
    LOOP_POOL,
    LOOP_RAN,
    POOL_FIELDS,
    WORD_LIMIT,
    dequeue,
    finish,
    generate,
    grow_pool,
    packet_pool_size,
    run_over,
    watch_progress,
)
from torus_lab.sim.rng import splitmix_next
from torus_lab.topology import Torus

__all__ = [
    "BookSimState",
    "BCFG",
    "BCFG_WORDS",
    "booksim_zero_load_latency",
    "generate_packets",
    "inject_flits",
    "list_ready",
    "route_heads",
    "allocate_vcs",
    "allocate_switch",
    "traverse_switch",
    "credits_available",
    "send_credit",
    "run_booksim",
    "state_for",
    "state_layout",
    "state_memory_bytes",
    "request_capacity",
    "with_pool",
    "run",
    "BookSimRun",
    "IDLE",
    "VC_ALLOC",
    "ACTIVE",
    "WORD_LIMIT",
]

#: Input-VC states (BookSim2's ``VC::idle``; ``routing`` is folded into ``VC_ALLOC`` with a ready time).
IDLE, VC_ALLOC, ACTIVE = 0, 1, 2
#: The integer settings of ``BookSimState.cfg``, in word order: the one list their indices come from
#: (:data:`BCFG` and the constants the compiled stages read are both derived from it, by name).
BCFG_WORDS = (
    "vcs", "depth", "length", "routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay",
    "credit_delay", "warmup", "measure_end", "drain", "gen_end", "deadlock_cycles", "pattern", "hotspot_node",
    "queue_cap", "include_self", "num_channels", "num_nodes", "ports", "injection", "speculative",
    "input_speedup", "output_speedup", "output_buffer_size",
)
#: Index of each integer setting in ``BookSimState.cfg``.
BCFG = {name: index for index, name in enumerate(BCFG_WORDS)}
# The indices the compiled stages read (numba freezes module globals as constants): ``_`` + the word in capitals.
_VCS = BCFG["vcs"]
_DEPTH = BCFG["depth"]
_LENGTH = BCFG["length"]
_ROUTING_DELAY = BCFG["routing_delay"]
_VC_ALLOC_DELAY = BCFG["vc_alloc_delay"]
_SW_ALLOC_DELAY = BCFG["sw_alloc_delay"]
_ST_FINAL_DELAY = BCFG["st_final_delay"]
_CREDIT_DELAY = BCFG["credit_delay"]
_WARMUP = BCFG["warmup"]
_MEASURE_END = BCFG["measure_end"]
_DRAIN = BCFG["drain"]
_GEN_END = BCFG["gen_end"]
_DEADLOCK_CYCLES = BCFG["deadlock_cycles"]
_PATTERN = BCFG["pattern"]
_HOTSPOT_NODE = BCFG["hotspot_node"]
_QUEUE_CAP = BCFG["queue_cap"]
_INCLUDE_SELF = BCFG["include_self"]
_NUM_CHANNELS = BCFG["num_channels"]
_NUM_NODES = BCFG["num_nodes"]
_PORTS = BCFG["ports"]
_INJECTION = BCFG["injection"]
_SPECULATIVE = BCFG["speculative"]
_INPUT_SPEEDUP = BCFG["input_speedup"]
_OUTPUT_SPEEDUP = BCFG["output_speedup"]
_OUTPUT_BUFFER_SIZE = BCFG["output_buffer_size"]


#: Every array of one run of the BookSim-compatible model (see the module docstring for the numbering).
BookSimState = namedtuple(
    "BookSimState",
    [
        # settings; internal speedup (a real) and the index of the current internal step within the cycle
        "cfg", "fcfg", "burst_on", "active", "dest_map", "rng", "counters", "internal_speedup", "step",
        # channels (network, injection, ejection) and router ports
        "ch_src_router", "ch_dst_router", "ch_latency", "ch_in_port", "ch_out_port",
        # input VCs: FIFO (count, front slot; per slot packet, flit index, cycle from which it is visible), and
        # the cycle from which the front flit is visible (a copy of farr at the front slot, kept by push and pop)
        "count", "fhead", "fpk", "fidx", "farr", "fvis",
        # input VCs holding flits: bitmap kept by injection and traversal, and the ascending lists of those that a
        # stage may act on in the current cycle (list_ready): all of them, the heads to route, the heads that bid
        # for a VC, the active VCs that bid for the switch (used without speculation; nlive: their four lengths)
        "occupied", "live", "to_route", "to_allocate", "to_switch", "nlive",
        # input VCs: state machine, ready cycle, route candidates (output VCs; their header states only with
        # ``stored_states``, else no rows) and the random word of the routing, allocated output VC, VC-allocation
        # pointer
        "vstate", "vready", "ncand", "cand_vc", "cand_st", "cand_rand", "out_vc", "va_aptr",
        # output VCs: holder (-1 free), credits, pending credit arrivals (FIFO), VC-allocation grant pointer
        "busy", "credit", "cr_time", "cr_head", "cr_count", "va_gptr",
        # switch allocation pointers: VC round-robin and iSLIP accept per switch input (input_speedup per input
        # channel), iSLIP grant per switch output (output_speedup per output channel)
        "sa_rr", "sa_aptr", "sa_gptr",
        # output queues: the cycle from which each output channel can send its next flit; with a bounded queue
        # (output_buffer_size >= 1, else no rows) a ring per output channel of its queued flits (the internal step
        # each entered, the cycle it is sent), its front slot and length.  Credit links: per input channel the
        # internal step of its latest credit and the cycle that credit is sent (one credit per cycle and channel)
        "oq_next", "oq_tick", "oq_send", "oq_head", "oq_len", "cq_tick", "cq_send",
        # allocation scratch (requests of one cycle; lists as long as the packet pool allows, request_capacity)
        "req_in", "req_out", "req_c", "req_in_key", "req_out_key", "matched",
        "g_stamp", "g_best", "g_bestd",
        "port_stamp", "sa_req_in", "sa_req_out", "sa_req_iv", "sg_stamp", "sg_best", "sg_bestd", "grants", "ngrants",
        # speculation: cycle an input VC last bid for a VC / an output VC was taken / a speculative grant is void;
        # per switch request: speculative (1) or not; per output port: the request of the current input
        "va_tried", "vc_taken", "sa_void", "sa_req_spec", "port_req",
        "tmp_ch", "tmp_vc", "tmp_st",
        # packets
        "pk_src", "pk_dst", "pk_gen", "pk_inj", "pk_hops", "pk_meas", "pk_state", "free_stack", "free_top",
        # sources: queue of packets, packet being injected, its next flit and VC, last VC used
        "q_buf", "q_head", "q_len", "inj_pk", "inj_flit", "inj_vc", "inj_last_vc",
        # measured packets (src, dst, gen, inject, done, hops, dropped) and channel loads
        "rec", "rec_count", "ch_flits",
    ],
)  # fmt: skip


def booksim_zero_load_latency(
    hops, packet_length: int, *, routing_delay: int = 1, vc_alloc_delay: int = 1, sw_alloc_delay: int = 1,
    st_final_delay: int = 1, channel_latency: int = 2, speculative: bool = False,
):
    """Zero-load latency of the BookSim-compatible router: creation to tail ejection, in cycles.

    ``3 + R + hops * (R + channel_latency) + (packet_length - 1) * sw_alloc_delay`` with
    ``R = routing_delay + A + st_final_delay``, where the allocation delay ``A`` is ``vc_alloc_delay +
    sw_alloc_delay``, or ``max(vc_alloc_delay, sw_alloc_delay)`` with ``speculative`` switch allocation (module
    docstring, Timing).  BookSim2's measured fits: ``7 + 6D + (L-1)`` (torus, 2-cycle channels), ``7 + 5D +
    (L-1)`` (mesh), ``5 + 3D + (L-1)`` (its minimal pipeline: lookahead routing, speculation, 1-cycle channels).

    Examples
    --------
    >>> booksim_zero_load_latency(3, 4, channel_latency=1)
    25
    >>> booksim_zero_load_latency(3, 4, channel_latency=1, routing_delay=0, speculative=True)
    17
    """
    if not isinstance(speculative, bool):
        raise TypeError(f"speculative must be a bool, got {speculative!r}")
    sw_alloc_delay = check_int("sw_alloc_delay", sw_alloc_delay, 1)
    vc_alloc_delay = check_int("vc_alloc_delay", vc_alloc_delay, 1)
    check_speculative_delays(speculative, vc_alloc_delay, sw_alloc_delay)
    allocation = max(vc_alloc_delay, sw_alloc_delay) if speculative else vc_alloc_delay + sw_alloc_delay
    per_router = (check_int("routing_delay", routing_delay, 0) + allocation
                  + check_int("st_final_delay", st_final_delay, 1))  # fmt: skip
    channel_latency = check_int("channel_latency", channel_latency, 1)
    packet_length = check_int("packet_length", packet_length, 1)
    hops = np.asarray(hops) if not isinstance(hops, int) else check_int("hops", hops, 0)
    return 3 + per_router + hops * (per_router + channel_latency) + (packet_length - 1) * sw_alloc_delay


def _port_tables(topology: Torus, channel_latency: int):
    """Channel endpoints and router-local port numbers: network channels, then injection, then ejection."""
    n, nn, nch = topology.n, topology.num_nodes, topology.num_channels
    ports = 2 * n + 1
    total = nch + 2 * nn
    nodes = np.arange(nn, dtype=np.int64)
    ch_src = np.full(total, -1, dtype=np.int64)
    ch_dst = np.full(total, -1, dtype=np.int64)
    ch_src[:nch] = topology.channel_src
    ch_dst[:nch] = topology.channel_dst
    ch_dst[nch : nch + nn] = nodes
    ch_src[nch + nn :] = nodes
    latency = np.ones(total, dtype=np.int64)
    latency[:nch] = channel_latency
    # BookSim2's k-ary n-cube numbering: output 2d goes +, 2d+1 goes -; a flit travelling + arrives at input 2d+1
    dim = 2 * np.asarray(topology.channel_dim, dtype=np.int64)
    plus = np.asarray(topology.channel_sign) > 0
    in_port = np.full(total, -1, dtype=np.int64)
    out_port = np.full(total, -1, dtype=np.int64)
    in_port[:nch] = dim + plus
    out_port[:nch] = dim + ~plus
    in_port[nch : nch + nn] = ports - 1
    out_port[nch + nn :] = ports - 1
    return ch_src, ch_dst, latency, in_port, out_port, ports


def state_layout(topology: Torus, vcs: int, depth: int, queue_cap: int, rec_cap: int,
                 pool: int | None = None, *, stored_states: bool = False, queue_width: int | None = None,
                 speculative: bool = False, input_speedup: int = 1, output_speedup: int = 1,
                 output_buffer_size: int = -1) -> dict[str, int]:
    """Bytes of each array :func:`state_for` allocates (a pool of ``pool`` packets, by default the largest,
    :func:`torus_lab.sim.packets.packet_pool_size`; source-queue rings of ``queue_width`` slots, by default
    ``queue_cap``), by field of :class:`BookSimState` (``fpk`` holds the three words of every FIFO slot, ``fidx``
    and ``farr`` are views of it); every node active.  32-bit words per VC and per channel
    (:data:`torus_lab.sim.packets.WORD_LIMIT`), 64-bit header states, packets, sources and records; the
    candidates' header states (``cand_st``) only with ``stored_states`` (see :func:`state_for`); the allocators'
    request lists sized by :func:`request_capacity` (``speculative``: switch allocation with speculation); the
    switch allocator's pointers per switch input and output (``input_speedup``, ``output_speedup``); with a bounded
    output queue (``output_buffer_size >= 1``) a ring of ``vcs x depth`` slots per output channel (the most flits
    a queue can hold: each has taken a credit of its output port).
    What the memory check adds up before allocating and the breakdown of ``benchmarks/bench_scale.py``.

    Examples
    --------
    >>> layout = state_layout(Torus(2, 4), 2, 8, 16, 100)
    >>> layout["fpk"], layout["fidx"], layout["rec"]       # 192 VCs x 8 slots x 3 words of 4 bytes; a view; 100 x 7
    (18432, 0, 5600)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vcs, depth, queue_cap = (check_int(name, value, minimum=1) for name, value in
                             (("vcs", vcs), ("depth", depth), ("queue_cap", queue_cap)))  # fmt: skip
    rec_cap = check_int("rec_cap", rec_cap, minimum=0)
    check_instance("stored_states", stored_states, (bool, np.bool_), "a bool")
    check_instance("speculative", speculative, (bool, np.bool_), "a bool")
    width = queue_cap if queue_width is None else check_int("queue_width", queue_width, 1, queue_cap)
    ins = check_int("input_speedup", input_speedup, 1)
    outs = check_int("output_speedup", output_speedup, 1)
    bounded = check_int("output_buffer_size", output_buffer_size, -1) >= 0
    nn, nch = topology.num_nodes, topology.num_channels
    total = nch + 2 * nn
    nvc = total * vcs
    n_in = (nch + nn) * vcs
    ports = 2 * topology.n + 1
    kmax = candidate_capacity(topology, vcs)
    sa_cap = total * ins * ports
    npk = packet_pool_size(nn, nvc + nn, queue_cap) if pool is None else check_int("pool", pool, minimum=1)
    va_cap, sw_cap = request_capacity(n_in, kmax, sa_cap, ports, npk, bool(speculative))
    keys = max(va_cap, sw_cap)
    words = {  # (elements, bytes per element)
        "cfg": (len(BCFG), 8), "fcfg": (4, 8), "burst_on": (nn, 1), "active": (nn, 8), "dest_map": (nn, 8),
        "rng": (1, 8), "counters": (len(CNT), 8), "internal_speedup": (1, 8), "step": (1, 8),
        **{name: (total, 8) for name in ("ch_src_router", "ch_dst_router", "ch_latency", "ch_in_port",
                                         "ch_out_port")},
        "count": (nvc, 4), "fhead": (nvc, 4), "fpk": (nvc * depth * 3, 4), "fidx": (0, 4), "farr": (0, 4),
        "fvis": (nvc, 4), "occupied": ((n_in + 63) // 64, 8),
        **{name: (n_in, 4) for name in ("live", "to_route", "to_allocate", "to_switch")}, "nlive": (4, 8),
        "vstate": (nvc, 4), "vready": (nvc, 4), "ncand": (nvc, 4), "cand_vc": (nvc * kmax, 4),
        "cand_st": (nvc * kmax * STATE_SIZE * stored_states, 8), "cand_rand": (nvc, 8), "out_vc": (nvc, 4),
        "va_aptr": (nvc, 4),
        "busy": (nvc, 4), "credit": (nvc, 4), "cr_time": (nvc * depth, 4), "cr_head": (nvc, 4),
        "cr_count": (nvc, 4), "va_gptr": (nvc, 4),
        "sa_rr": (total * ins, 4), "sa_aptr": (total * ins, 4), "sa_gptr": (total * outs, 4),
        "oq_next": (total, 4), **{name: (total * vcs * depth * bounded, 4) for name in ("oq_tick", "oq_send")},
        "oq_head": (total * bounded, 4), "oq_len": (total * bounded, 4), "cq_tick": (total, 4), "cq_send": (total, 4),
        **{name: (va_cap, 4) for name in ("req_in", "req_out", "req_c")},
        **{name: (keys, 4) for name in ("req_in_key", "req_out_key", "matched")},
        "g_stamp": (nvc, 4), "g_best": (nvc, 4), "g_bestd": (nvc, 4),
        "port_stamp": (ports, 8), "sa_req_in": (sw_cap, 4), "sa_req_out": (sw_cap, 4), "sa_req_iv": (sw_cap, 4),
        "sg_stamp": (total * outs, 4), "sg_best": (total * outs, 4), "sg_bestd": (total * outs, 4),
        "grants": (total * min(ins, outs), 4),
        "ngrants": (1, 8),
        "va_tried": (nvc, 4), "vc_taken": (nvc, 4), "sa_void": (nvc, 4), "sa_req_spec": (sw_cap, 4),
        "port_req": (ports, 8),
        "tmp_ch": (MAX_CANDIDATES, 8), "tmp_vc": (MAX_CANDIDATES, 8), "tmp_st": (MAX_CANDIDATES * STATE_SIZE, 8),
        **{name: (npk, 8) for name in POOL_FIELDS if name != "pk_state"}, "pk_state": (npk * STATE_SIZE, 8),
        "free_stack": (npk, 8), "free_top": (1, 8),
        "q_buf": (nn * width, 4),
        **{name: (nn, 8) for name in ("q_head", "q_len", "inj_pk", "inj_flit", "inj_vc", "inj_last_vc")},
        "rec": (rec_cap * 7, 8), "rec_count": (1, 8), "ch_flits": (nch, 8),
    }  # fmt: skip
    return {name: count * size for name, (count, size) in words.items()}


def state_memory_bytes(topology: Torus, vcs: int, depth: int, queue_cap: int, rec_cap: int,
                       pool: int | None = None, *, stored_states: bool = False, queue_width: int | None = None,
                       speculative: bool = False, input_speedup: int = 1, output_speedup: int = 1,
                       output_buffer_size: int = -1) -> int:
    """Bytes :func:`state_for` allocates (the sum of :func:`state_layout`), estimated before allocating.

    Examples
    --------
    >>> plain = state_memory_bytes(Torus(2, 4), 2, 8, 16, 100)
    >>> state_memory_bytes(Torus(2, 4), 2, 8, 16, 100, output_buffer_size=4) - plain   # 96 channels' rings
    13056
    """
    return sum(state_layout(topology, vcs, depth, queue_cap, rec_cap, pool, stored_states=stored_states,
                            queue_width=queue_width, speculative=speculative, input_speedup=input_speedup,
                            output_speedup=output_speedup, output_buffer_size=output_buffer_size).values())


def request_capacity(input_vcs: int, kmax: int, switch_pairs: int, ports: int, pool: int,
                     speculative: bool) -> tuple[int, int]:
    """The most VC requests and switch requests one cycle can make: the lengths of the allocators' request lists.

    A VC request comes from a head waiting for a VC at the front of an input VC, one per free candidate
    (``kmax`` at most per head): the heads belong to distinct live packets, so there are at most ``min(input_vcs,
    pool)`` of them.  A switch request is one (input channel, output port) pair of at most ``switch_pairs``, made
    for an input VC holding a flit: one per VC, and with speculation a head adds up to ``min(kmax, ports) - 1``
    more (one per output port of its candidates).  The lists follow the packet pool (the engine grows both
    together, :func:`with_pool`), so they stay small while few packets are alive: on the 32-ary 4-cube the VC
    requests a whole router could make (its input VCs times ``kmax``) would take 7 KB per router.

    Examples
    --------
    >>> request_capacity(input_vcs=1000, kmax=16, switch_pairs=2000, ports=9, pool=100, speculative=False)
    (1600, 1000)
    >>> request_capacity(input_vcs=1000, kmax=16, switch_pairs=2000, ports=9, pool=100, speculative=True)
    (1600, 1800)
    """
    input_vcs, kmax, switch_pairs, ports = (check_int(name, value, minimum=1) for name, value in (
        ("input_vcs", input_vcs), ("kmax", kmax), ("switch_pairs", switch_pairs), ("ports", ports)))  # fmt: skip
    pool = check_int("pool", pool, minimum=1)
    check_instance("speculative", speculative, (bool, np.bool_), "a bool")
    heads = min(input_vcs, pool)
    extra = heads * (min(kmax, ports) - 1) if speculative else 0
    return heads * kmax, min(switch_pairs, input_vcs + extra)


def with_pool(st: BookSimState, size: int) -> BookSimState:
    """State ``st`` with a packet pool of ``size`` ids (:func:`torus_lab.sim.packets.grow_pool`) and request lists
    long enough for it (:func:`request_capacity`; they hold nothing between cycles, so they are allocated anew).
    The old state must not be used after.

    Examples
    --------
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> from torus_lab.sim import SimConfig
    >>> st = state_for(ecube_routing(Torus(2, 4), datelines=True, vcs=2), SimConfig.preset("booksim"), pool=20)
    >>> big = with_pool(st, 40)
    >>> big.free_stack.shape[0], st.req_in.shape[0], big.req_in.shape[0]     # 20, then 40 heads x 8 candidates
    (40, 160, 320)
    """
    check_instance("st", st, BookSimState, "a BookSimState (from state_for)")
    grown = grow_pool(st, size)
    va_cap, sw_cap = _request_capacity_of(grown)
    if va_cap == grown.req_in.shape[0] and sw_cap == grown.sa_req_in.shape[0]:
        return grown
    from torus_lab._memory import check_memory  # refuse before allocating

    keys = max(va_cap, sw_cap)
    check_memory(4 * (3 * va_cap + 3 * keys + 4 * sw_cap), f"request lists for a pool of {size} packets")
    lists = {name: np.zeros(va_cap, dtype=np.int32) for name in ("req_in", "req_out", "req_c")}
    lists.update({name: np.zeros(keys, dtype=np.int32) for name in ("req_in_key", "req_out_key", "matched")})
    lists.update({name: np.zeros(sw_cap, dtype=np.int32) for name in ("sa_req_in", "sa_req_out", "sa_req_iv",
                                                                        "sa_req_spec")})  # fmt: skip
    return grown._replace(**lists)


def _request_capacity_of(st: BookSimState) -> tuple[int, int]:
    """:func:`request_capacity` for state ``st``'s network, settings and packet pool."""
    pairs = st.ch_latency.shape[0] * int(st.cfg[_INPUT_SPEEDUP]) * int(st.cfg[_PORTS])
    return request_capacity(st.live.shape[0], st.cand_vc.shape[1], pairs, int(st.cfg[_PORTS]),
                            st.free_stack.shape[0], bool(st.cfg[_SPECULATIVE]))  # fmt: skip


def _new_state(topology: Torus, vcs: int, cfg: np.ndarray, fcfg: np.ndarray, burst_on: np.ndarray,
               active: np.ndarray, dest_map: np.ndarray, seed_word: int, rec_cap: int,
               channel_latency: int, pool: int | None = None, stored_states: bool = False,
               queue_width: int | None = None, internal_speedup: float = 1.0) -> BookSimState:
    """A fresh :class:`BookSimState`: empty buffers, full credits, free VCs (``cfg`` indexed by :data:`BCFG`;
    arguments checked by :func:`state_for`)."""
    from torus_lab._memory import check_memory, network_size

    depth, queue_cap = int(cfg[_DEPTH]), int(cfg[_QUEUE_CAP])
    nvc_all = (topology.num_channels + 2 * topology.num_nodes) * vcs
    npk = packet_pool_size(topology.num_nodes, nvc_all + topology.num_nodes, queue_cap) if pool is None else pool
    width = queue_cap if queue_width is None else queue_width
    speculative = bool(cfg[_SPECULATIVE])
    ins, outs, queue_size = int(cfg[_INPUT_SPEEDUP]), int(cfg[_OUTPUT_SPEEDUP]), int(cfg[_OUTPUT_BUFFER_SIZE])
    check_memory(state_memory_bytes(topology, vcs, depth, queue_cap, rec_cap, npk, stored_states=stored_states,
                                    queue_width=width, speculative=speculative, input_speedup=ins,
                                    output_speedup=outs, output_buffer_size=queue_size),
                 f"BookSim-model state ({vcs} VCs, buffer {depth} flits) on {network_size(topology)}")  # fmt: skip
    ch_src, ch_dst, latency, in_port, out_port, ports = _port_tables(topology, channel_latency)
    nn, nch = topology.num_nodes, topology.num_channels
    total = len(ch_src)
    nvc = total * vcs
    n_in = (nch + nn) * vcs  # input VCs of the routers (network and injection): the only ones holding flits
    cfg = cfg.astype(np.int64).copy()
    cfg[_VCS], cfg[_NUM_CHANNELS], cfg[_NUM_NODES], cfg[_PORTS] = vcs, nch, nn, ports
    bounded = int(queue_size >= 0)
    sa_cap = total * ins * ports  # switch requests per step: at most one per switch input and output port
    kmax = candidate_capacity(topology, vcs)  # candidates kept per routed head
    va_cap, sw_cap = request_capacity(n_in, kmax, sa_cap, ports, npk, speculative)  # the request lists' lengths
    keys = max(va_cap, sw_cap)
    if max(npk, n_in * kmax) > WORD_LIMIT:
        raise ValueError(f"the BookSim model numbers packets and VC requests in 32-bit words: {npk} packets and "
                         f"{n_in * kmax} requests on {topology!r} pass {WORD_LIMIT}")  # fmt: skip
    # the three words of a FIFO slot (packet, flit index, visible from) side by side: fpk, fidx and farr are views,
    # so a push or a pop touches one cache line instead of three (the 4096-node torus spends less in traversal)
    fifo = np.zeros((nvc, depth, 3), dtype=np.int32)

    def wide(*shape, value=0):  # 64-bit: settings, counters, header states, packets, sources, records
        return np.full(shape, value, dtype=np.int64)

    def narrow(*shape, value=0):  # 32-bit: VC, packet and request ids, cycle numbers (WORD_LIMIT)
        return np.full(shape, value, dtype=np.int32)

    return BookSimState(
        cfg=cfg, fcfg=np.asarray(fcfg, dtype=np.float64).copy(), burst_on=np.asarray(burst_on, dtype=np.uint8).copy(),
        active=active.astype(np.int64),
        dest_map=dest_map.astype(np.int64), rng=np.array([seed_word], dtype=np.uint64),
        counters=wide(len(CNT)), internal_speedup=np.array([internal_speedup], dtype=np.float64), step=wide(1),
        ch_src_router=ch_src, ch_dst_router=ch_dst, ch_latency=latency, ch_in_port=in_port, ch_out_port=out_port,
        count=narrow(nvc), fhead=narrow(nvc), fpk=fifo[:, :, 0], fidx=fifo[:, :, 1], farr=fifo[:, :, 2],
        fvis=narrow(nvc), occupied=np.zeros((n_in + 63) // 64, dtype=np.uint64), live=narrow(n_in),
        to_route=narrow(n_in), to_allocate=narrow(n_in), to_switch=narrow(n_in), nlive=wide(4),
        vstate=narrow(nvc), vready=narrow(nvc), ncand=narrow(nvc), cand_vc=narrow(nvc, kmax),
        cand_st=wide(nvc if stored_states else 0, kmax, STATE_SIZE), cand_rand=wide(nvc), out_vc=narrow(nvc, value=-1),
        va_aptr=narrow(nvc),
        busy=narrow(nvc, value=-1), credit=narrow(nvc, value=depth), cr_time=narrow(nvc, depth),
        cr_head=narrow(nvc), cr_count=narrow(nvc), va_gptr=narrow(nvc),
        # the VC pointer of switch input i of a channel starts at VC i (BookSim2's initial offsets)
        sa_rr=np.tile(np.arange(ins, dtype=np.int32), total), sa_aptr=narrow(total * ins), sa_gptr=narrow(total * outs),
        oq_next=narrow(total), oq_tick=narrow(total * bounded, vcs * depth),
        oq_send=narrow(total * bounded, vcs * depth),
        oq_head=narrow(total * bounded), oq_len=narrow(total * bounded), cq_tick=narrow(total, value=-1),
        cq_send=narrow(total, value=-1),
        req_in=narrow(va_cap), req_out=narrow(va_cap), req_c=narrow(va_cap),
        req_in_key=narrow(keys), req_out_key=narrow(keys), matched=narrow(keys),
        g_stamp=narrow(nvc, value=-1), g_best=narrow(nvc), g_bestd=narrow(nvc),
        port_stamp=wide(ports, value=-1), sa_req_in=narrow(sw_cap), sa_req_out=narrow(sw_cap),
        sa_req_iv=narrow(sw_cap), sg_stamp=narrow(total * outs, value=-1), sg_best=narrow(total * outs),
        sg_bestd=narrow(total * outs), grants=narrow(total * min(ins, outs)), ngrants=wide(1),
        va_tried=narrow(nvc, value=-1), vc_taken=narrow(nvc, value=-1), sa_void=narrow(nvc, value=-1),
        sa_req_spec=narrow(sw_cap), port_req=wide(ports),
        tmp_ch=wide(MAX_CANDIDATES), tmp_vc=wide(MAX_CANDIDATES), tmp_st=wide(MAX_CANDIDATES, STATE_SIZE),
        pk_src=wide(npk), pk_dst=wide(npk), pk_gen=wide(npk), pk_inj=wide(npk), pk_hops=wide(npk),
        pk_meas=wide(npk), pk_state=wide(npk, STATE_SIZE), free_stack=np.arange(npk, dtype=np.int64)[::-1].copy(),
        free_top=np.array([npk], dtype=np.int64),
        q_buf=narrow(nn, width), q_head=wide(nn), q_len=wide(nn), inj_pk=wide(nn, value=-1), inj_flit=wide(nn),
        inj_vc=wide(nn, value=-1), inj_last_vc=wide(nn, value=vcs - 1),
        rec=wide(rec_cap, 7), rec_count=wide(1), ch_flits=wide(nch),
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------------- credits
#
# Inside a loop every stage reads the state's arrays through local names bound at its top: with reference
# counting (a stage called alone), reading an array through the state tuple (``st.count[iv]``) costs a count
# update per access in numba.  The helpers below therefore take the arrays themselves; the public
# ``credits_available`` / ``send_credit`` keep their ``st`` signature for callers outside a loop.


@njit(inline="always", hoist_fields=True)
def _take_credits(credit, cr_time, cr_head, cr_count, vc, now):
    """:func:`credits_available` on the credit arrays themselves (for the stages' loops)."""
    depth = cr_time.shape[1]
    while cr_count[vc] > 0 and cr_time[vc, cr_head[vc]] <= now:
        cr_head[vc] = wrap(cr_head[vc] + 1, depth)
        cr_count[vc] -= 1
        credit[vc] += 1
    return credit[vc]


@njit(inline="always", hoist_fields=True)
def _queue_credit(cr_time, cr_head, cr_count, vc, arrival):
    """:func:`send_credit` on the credit arrays themselves (for the stages' loops)."""
    depth = cr_time.shape[1]
    cr_time[vc, wrap(cr_head[vc] + cr_count[vc], depth)] = arrival
    cr_count[vc] += 1


@njit(inline="always", hoist_fields=True)
def credits_available(st, vc, now):
    """Credits the sender of ``vc`` holds in cycle ``now`` (credits due by ``now`` are taken in first)."""
    return _take_credits(st.credit, st.cr_time, st.cr_head, st.cr_count, vc, now)


@njit(inline="always", hoist_fields=True)
def send_credit(st, vc, arrival):
    """A credit for ``vc`` that its sender sees from cycle ``arrival`` on (arrivals per VC are in order)."""
    _queue_credit(st.cr_time, st.cr_head, st.cr_count, vc, arrival)


@njit(inline="always", hoist_fields=True)
def _push(fpk, fidx, farr, fvis, fhead, count, occupied, vc, p, fi, visible):
    """Append flit ``fi`` of packet ``p`` to input VC ``vc``'s buffer, visible from cycle ``visible``."""
    depth = fpk.shape[1]
    slot = wrap(fhead[vc] + count[vc], depth)
    fpk[vc, slot] = p
    fidx[vc, slot] = fi
    farr[vc, slot] = visible
    if count[vc] == 0:
        fvis[vc] = visible
    count[vc] += 1
    mark_occupied(occupied, vc)


@njit(inline="always", hoist_fields=True)
def _push_flit(st, vc, p, fi, visible):
    _push(st.fpk, st.fidx, st.farr, st.fvis, st.fhead, st.count, st.occupied, vc, p, fi, visible)


@njit(inline="always", hoist_fields=True)
def _pop(fhead, fpk, fidx, farr, fvis, count, occupied, iv):
    """Take the front flit of input VC ``iv`` (:func:`torus_lab.sim.buffers.pop_flit`), keeping ``fvis``."""
    p, fi = pop_flit(fhead, fpk, fidx, count, occupied, iv)
    if count[iv] > 0:
        fvis[iv] = farr[iv, fhead[iv]]
    return p, fi


# ------------------------------------------------------------------------------------------ internal steps
#
# The router's pipeline (routing, both allocations, switch traversal) runs in internal steps, numbered from 0 over
# the whole run: floor(t * s) steps precede cycle t (s = internal_speedup), so with s = 1 step t is cycle t.  A stage
# of 1-cycle delay lets the next one act in the next step; a stage of d > 1 cycles completes in the first step of
# cycle t + d - 1 and the next acts in the step after it (as BookSim2's stage lists time their entries).


@njit(inline="always", hoist_fields=True)
def _steps_before(cycle, speedup):
    """Internal steps of all cycles before ``cycle``: ``floor(cycle * speedup)``."""
    return np.int64(np.floor(cycle * speedup))


@njit(inline="always", hoist_fields=True)
def _tick(st, now):
    """The current internal step: the steps before cycle ``now`` plus the index of this one within it."""
    return _steps_before(now, st.internal_speedup[0]) + st.step[0]


@njit(inline="always", hoist_fields=True)
def _ready_after(tick, now, delay, speedup):
    """The step from which a VC whose stage of ``delay`` cycles started in step ``tick`` (cycle ``now``) may act
    again (0 cycles: in the same step; 1: the next step; more: the step after the first of cycle
    ``now + delay - 1``).  With ``speedup`` 1: ``now + delay``."""
    if delay <= 1:
        return tick + delay
    return _steps_before(now + delay - 1, speedup) + 1


@njit(inline="always", hoist_fields=True)
def _cycle_of(tick, speedup, cycle):
    """The cycle of internal step ``tick``, searched from ``cycle`` (a cycle at or before it) on."""
    while _steps_before(cycle + 1, speedup) <= tick:
        cycle += 1
    return cycle


@njit(refcount=False)
def _queued(oq_tick, oq_send, oq_head, oq_len, oc, tick, now):
    """Flits in output channel ``oc``'s bounded queue as switch allocation sees them in step ``tick`` of cycle
    ``now``: entered in an earlier step and not sent before this cycle (flits sent earlier leave the ring).
    Compiled once, not inline: only bounded queues call it."""
    width = oq_tick.shape[1]
    while oq_len[oc] > 0 and oq_send[oc, oq_head[oc]] < now:
        oq_head[oc] = wrap(oq_head[oc] + 1, width)
        oq_len[oc] -= 1
    n = 0
    while n < oq_len[oc] and oq_tick[oc, wrap(oq_head[oc] + n, width)] < tick:
        n += 1
    return n


@njit(inline="always", hoist_fields=True)
def _queue_full(st, oc, tick, now):
    """Whether output channel ``oc``'s queue is full for switch allocation (never with ``output_buffer_size=-1``)."""
    size = st.cfg[_OUTPUT_BUFFER_SIZE]
    if size < 0:
        return False
    return _queued(st.oq_tick, st.oq_send, st.oq_head, st.oq_len, oc, tick, now) >= size


# ---------------------------------------------------------------------------------------------------- stages


@njit(inline="always", hoist_fields=True)
def generate_packets(st, now):
    """Generation: each active node may create a packet (the injection process of
    :func:`torus_lab.sim.traffic.starts_packet`: Bernoulli with probability ``offered/length``, or on-off).

    The packet joins the node's source queue with creation time ``now``; a full queue (``queue_capacity``)
    counts an overflow instead.
    """
    cfg = st.cfg
    if now >= cfg[_GEN_END]:
        return
    measuring = cfg[_WARMUP] <= now < cfg[_MEASURE_END]
    generate(st, now, measuring, cfg[_INJECTION], cfg[_PATTERN], cfg[_HOTSPOT_NODE], cfg[_INCLUDE_SELF] != 0,
             cfg[_QUEUE_CAP])


@njit(inline="always", hoist_fields=True)
def inject_flits(st, now):
    """Injection: each node sends at most one flit of its current packet into its injection channel.

    A head takes the first injection VC after the one used last that is free and has a credit (the VC is
    then held until the tail is sent); body flits follow in that VC while credits last.  The router sees a
    flit sent in cycle ``now`` in cycle ``now + 2`` (1-cycle channel).  Returns the number of flits sent.
    """
    cfg = st.cfg
    vcs = cfg[_VCS]
    length = cfg[_LENGTH]
    qcap = cfg[_QUEUE_CAP]
    inj_base = cfg[_NUM_CHANNELS]
    active, inj_pk, inj_flit, inj_vc, inj_last_vc, q_len = (st.active, st.inj_pk, st.inj_flit, st.inj_vc,
                                                           st.inj_last_vc, st.q_len)  # fmt: skip
    busy, credit, cr_time, cr_head, cr_count = st.busy, st.credit, st.cr_time, st.cr_head, st.cr_count
    fpk, fidx, farr, fvis, fhead, count, occupied = st.fpk, st.fidx, st.farr, st.fvis, st.fhead, st.count, st.occupied
    counters, pk_inj = st.counters, st.pk_inj
    sent = 0
    for a in range(active.shape[0]):
        node = active[a]
        if inj_pk[node] < 0:
            if q_len[node] == 0:
                continue
            inj_pk[node] = dequeue(st, node, qcap)
            inj_flit[node] = 0
            inj_vc[node] = -1
        base = (inj_base + node) * vcs
        if inj_vc[node] < 0:
            for i in range(1, vcs + 1):
                v = wrap(inj_last_vc[node] + i, vcs)
                if busy[base + v] == -1 and _take_credits(credit, cr_time, cr_head, cr_count, base + v, now) > 0:
                    inj_vc[node] = v
                    inj_last_vc[node] = v
                    busy[base + v] = -2 - node
                    break
            if inj_vc[node] < 0:
                continue
        vc = base + inj_vc[node]
        if _take_credits(credit, cr_time, cr_head, cr_count, vc, now) == 0:
            continue
        p = inj_pk[node]
        fi = inj_flit[node]
        credit[vc] -= 1
        _push(fpk, fidx, farr, fvis, fhead, count, occupied, vc, p, fi, now + 2)
        sent += 1
        counters[CN_FLITS_INJECTED] += 1
        if fi == 0:
            pk_inj[p] = now
        if fi == length - 1:
            busy[vc] = -1
            inj_pk[node] = -1
        else:
            inj_flit[node] = fi + 1
    return sent


@njit(inline="always", hoist_fields=True)
def list_ready(st, now):
    """Write the input VCs that a stage may act on in cycle ``now``, in ascending order, to
    ``st.live[:st.nlive[0]]``; return their number.  Of them, the heads to route go to ``st.to_route[:st.nlive[1]]``,
    the heads that bid for a VC to ``st.to_allocate[:st.nlive[2]]`` and the active VCs that bid for the switch
    (used without speculation) to ``st.to_switch[:st.nlive[3]]`` (the lists
    :func:`route_heads`, :func:`allocate_vcs` and :func:`allocate_switch` visit).

    Of the VCs holding flits (the ``occupied`` bitmap, read as :func:`torus_lab.sim.simple.list_occupied` does):
    an idle VC whose front flit is visible (routing), a VC waiting for a VC past its ready cycle (VC allocation,
    and speculative switch requests), an active VC past its ready cycle whose front flit is visible (switch
    allocation).  Those are the conditions under which each stage acts, and within a cycle a VC's state changes
    only in a stage acting on it, so a VC left out would have been skipped by every stage: the list keeps every
    decision of a scan of all VCs holding flits, while a flit still on its channel costs no stage a visit.
    Called once per cycle, after injection (routing and the allocators change no buffer).

    Examples
    --------
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> from torus_lab.sim import SimConfig
    >>> st = state_for(ecube_routing(Torus(2, 4), datelines=True, vcs=2), SimConfig.preset("booksim"))
    >>> _push_flit(st, 3, 0, 0, 5)                  # a head on VC 3, visible from cycle 5
    >>> int(list_ready(st, 4)), int(list_ready(st, 5)), int(st.live[0])
    (0, 1, 3)
    """
    occupied, live, vstate, vready, fvis = st.occupied, st.live, st.vstate, st.vready, st.fvis
    to_route, to_allocate, to_switch = st.to_route, st.to_allocate, st.to_switch
    tick = _tick(st, now)
    n = 0
    heads = 0
    bidders = 0
    switch_bidders = 0
    for k in range(occupied.shape[0]):
        word = occupied[k]
        while word != 0:
            iv = k * 64 + np.int64(trailing_zeros(word))
            word &= word - np.uint64(1)
            # the tests as flags and every list written at its end, kept by adding the flag to its length: no
            # branch on the (unpredictable) state of the VC
            state = vstate[iv]
            visible = fvis[iv] <= now
            ready = vready[iv] <= tick
            routes = (state == IDLE) & visible
            bids_for_vc = (state == VC_ALLOC) & ready
            bids_for_switch = (state == ACTIVE) & ready & visible
            to_route[heads] = iv
            heads += routes
            to_allocate[bidders] = iv
            bidders += bids_for_vc
            live[n] = iv
            n += routes | bids_for_vc | bids_for_switch
            to_switch[switch_bidders] = iv
            switch_bidders += bids_for_switch
    st.nlive[0] = n
    st.nlive[1] = heads
    st.nlive[2] = bidders
    st.nlive[3] = switch_bidders
    return n


@njit(inline="always", hoist_fields=True)
def route_heads(route, tables, st, now):
    """Routing: a head visible at the front of an idle input VC gets its candidate output VCs.

    At its destination router the candidates are the V ejection VCs; elsewhere the routing kernel ``route``
    gives them (its input channel is -1 at injection; of more candidates than a row holds,
    :func:`torus_lab.sim.buffers.candidate_capacity`, repeats are left out; the call's random word is kept,
    ``cand_rand``, for the grant).  The VC then waits ``routing_delay`` cycles before VC allocation.  Returns the
    number of heads routed.
    """
    cfg = st.cfg
    vcs = cfg[_VCS]
    nch = cfg[_NUM_CHANNELS]
    nn = cfg[_NUM_NODES]
    routing_delay = cfg[_ROUTING_DELAY]
    vstate, fvis, fhead, fpk = st.vstate, st.fvis, st.fhead, st.fpk
    ch_dst_router, ch_src_router, pk_dst, pk_state = st.ch_dst_router, st.ch_src_router, st.pk_dst, st.pk_state
    cand_vc, cand_st, ncand, vready = st.cand_vc, st.cand_st, st.ncand, st.vready
    rng, counters, tmp_ch, tmp_vc, tmp_st = st.rng, st.counters, st.tmp_ch, st.tmp_vc, st.tmp_st
    cand_rand = st.cand_rand
    stored = cand_st.shape[0] > 0
    ch_ok = tables.ch_ok
    to_route, to_allocate = st.to_route, st.to_allocate
    bidders = st.nlive[2]
    vc_shift = vc_split_shift(vcs)
    tick = _tick(st, now)
    ready = _ready_after(tick, now, routing_delay, st.internal_speedup[0])
    routed = 0
    for i in range(st.nlive[1]):  # the listed heads, ascending (the order of random draws)
        iv = to_route[i]
        if vstate[iv] != IDLE or fvis[iv] > now:
            continue
        p = fpk[iv, fhead[iv]]
        ch, v_in = split_vc(iv, vcs, vc_shift)
        router = ch_dst_router[ch]
        if router == pk_dst[p]:
            eject = (nch + nn + router) * vcs
            for v in range(vcs):
                cand_vc[iv, v] = eject + v
                if stored:
                    for w in range(STATE_SIZE):  # word by word: a fixed-size loop, no array views
                        cand_st[iv, v, w] = pk_state[p, w]
            m = vcs
        else:
            in_ch = ch if ch < nch else -1
            in_vc = v_in if ch < nch else 0
            r = np.int64(splitmix_next(rng) >> np.uint64(2))
            cand_rand[iv] = r
            m = route(tables, router, pk_dst[p], in_ch, in_vc, pk_state[p], r, tmp_ch, tmp_vc, tmp_st)
            if m < 0 or m > MAX_CANDIDATES:
                counters[CN_ROUTING_ERROR] += 1
                m = 0
            repeats = m > cand_vc.shape[1]  # more than the router's distinct outputs: keep the first of each
            kept = 0
            for c in range(m):
                out_ch = tmp_ch[c]
                if out_ch < 0 or out_ch >= nch or ch_src_router[out_ch] != router or tmp_vc[c] < 0 \
                        or tmp_vc[c] >= vcs or ch_ok[out_ch] == 0:
                    counters[CN_ROUTING_ERROR] += 1
                    kept = 0
                    break
                o = out_ch * vcs + tmp_vc[c]
                if repeats and repeats_stored(cand_vc, iv, kept, o):
                    continue
                cand_vc[iv, kept] = o
                if stored:
                    for w in range(STATE_SIZE):
                        cand_st[iv, kept, w] = tmp_st[c, w]
                kept += 1
            m = kept
        ncand[iv] = m
        vstate[iv] = VC_ALLOC
        vready[iv] = ready
        if routing_delay == 0:  # lookahead routing: the head bids for a VC in this cycle
            to_allocate[bidders] = iv
            bidders += 1
        routed += 1
    st.nlive[2] = bidders
    return routed


@njit(inline="always", hoist_fields=True)
def allocate_vcs(route, tables, st, now):
    """VC allocation: separable iSLIP (one iteration, :func:`torus_lab.sim.allocators.islip_match`) between routed
    heads and free output VCs, in the router-local order port x V + VC.  A granted head takes its candidate's
    header state (from the routing kernel ``route`` called again, :func:`torus_lab.sim.buffers.granted_state`;
    unchanged at the ejection port).  Returns the number of grants.
    """
    cfg = st.cfg
    vcs = cfg[_VCS]
    vc_alloc_delay = cfg[_VC_ALLOC_DELAY]
    span = cfg[_PORTS] * vcs
    vstate, vready, va_tried, ncand = st.vstate, st.vready, st.va_tried, st.ncand
    cand_vc, cand_st = st.cand_vc, st.cand_st
    busy, vc_taken, out_vc, ch_in_port, ch_out_port = st.busy, st.vc_taken, st.out_vc, st.ch_in_port, st.ch_out_port
    req_in, req_out, req_c, req_in_key, req_out_key = st.req_in, st.req_out, st.req_c, st.req_in_key, st.req_out_key
    fpk, fhead, pk_state, matched, to_allocate = st.fpk, st.fhead, st.pk_state, st.matched, st.to_allocate
    vc_shift = vc_split_shift(vcs)
    tick = _tick(st, now)
    again = _ready_after(tick, now, vc_alloc_delay, st.internal_speedup[0])
    nreq = 0
    for i in range(st.nlive[2]):  # the listed heads waiting for a VC (and those routed now with lookahead routing)
        iv = to_allocate[i]
        if vstate[iv] != VC_ALLOC or vready[iv] > tick:
            continue
        vready[iv] = again  # evaluated: next attempt after this allocation's delay
        va_tried[iv] = tick  # with speculation, this head also bids for the switch in this step
        ch, v = split_vc(iv, vcs, vc_shift)
        local_in = ch_in_port[ch] * vcs + v
        for c in range(ncand[iv]):
            o = cand_vc[iv, c]
            if busy[o] != -1:
                continue
            req_in[nreq] = iv
            req_out[nreq] = o
            req_c[nreq] = c
            req_in_key[nreq] = local_in
            oc, ov = split_vc(o, vcs, vc_shift)
            req_out_key[nreq] = ch_out_port[oc] * vcs + ov
            nreq += 1
    granted = islip_match(nreq, req_in, req_out, req_in_key, req_out_key, span, span, st.va_gptr, st.va_aptr,
                          st.g_stamp, st.g_best, st.g_bestd, matched, tick)  # fmt: skip
    nch = cfg[_NUM_CHANNELS]
    for m in range(granted):
        r = matched[m]
        iv = req_in[r]
        o = req_out[r]
        p = fpk[iv, fhead[iv]]
        busy[o] = iv
        vc_taken[o] = tick
        out_vc[iv] = o
        vstate[iv] = ACTIVE
        c = req_c[r]
        if cand_st.shape[0] > 0:
            for w in range(STATE_SIZE):
                pk_state[p, w] = cand_st[iv, c, w]
        elif split_vc(o, vcs, vc_shift)[0] < nch:  # a network hop (at the ejection port the state stays)
            ch, v = split_vc(iv, vcs, vc_shift)
            in_ch, in_vc = (ch, v) if ch < nch else (-1, 0)
            granted_state(route, tables, st.ch_dst_router[ch], st.pk_dst[p], in_ch, in_vc, pk_state[p],
                          st.cand_rand[iv], o, c, cand_vc.shape[1], vcs, st.tmp_ch, st.tmp_vc, st.tmp_st)  # fmt: skip
    return granted


@njit(inline="always", hoist_fields=True)
def _add_switch_request(st, nreq, tag, ic, sub, iv, op, oc, spec):
    """Switch input ``sub`` of input channel ``ic`` requests output port ``op`` (channel ``oc``) for input VC ``iv``.

    One request per switch input and output port: the first VC (in the switch input's round-robin order) keeps it,
    except that a non-speculative VC takes it over from a speculative one (BookSim2's priority between the two
    kinds).  The request names switch input ``ic x input_speedup + sub`` and the switch output of ``oc`` that input
    port ``p`` uses, ``oc x output_speedup + p mod output_speedup``; its keys are their router-local numbers.
    Returns the new number of requests.
    """
    port_stamp, port_req, sa_req_spec, sa_req_iv = st.port_stamp, st.port_req, st.sa_req_spec, st.sa_req_iv
    if port_stamp[op] == tag:  # an earlier VC of this switch input already requests that output port
        r = port_req[op]
        if sa_req_spec[r] == 1 and spec == 0:
            sa_req_iv[r] = iv
            sa_req_spec[r] = 0
        return nreq
    ins, outs = st.cfg[_INPUT_SPEEDUP], st.cfg[_OUTPUT_SPEEDUP]
    in_port = st.ch_in_port[ic]
    sub_out = 0 if outs == 1 else wrap(in_port, outs)  # in_port mod outs (ports are few: no division)
    port_stamp[op] = tag
    port_req[op] = nreq
    st.sa_req_in[nreq] = ic * ins + sub
    st.sa_req_out[nreq] = oc * outs + sub_out
    sa_req_iv[nreq] = iv
    sa_req_spec[nreq] = spec
    st.req_in_key[nreq] = in_port * ins + sub
    st.req_out_key[nreq] = op * outs + sub_out
    return nreq + 1


@njit(inline="always", hoist_fields=True)
def _speculative_requests(st, nreq, tag, ic, sub, iv, tick, now):
    """The speculative switch requests of a head that bid for a VC in step ``tick`` (BookSim2's default checks).

    Each output port of its candidates is requested if one of its candidate VCs there was free before this
    step's VC allocation and has a credit, and the port's output queue is not full; if some port fails that check,
    a grant to this VC is void in this step (as in BookSim2, which marks the VC stalled but keeps its other
    requests).  Returns the new number of requests.
    """
    vcs = st.cfg[_VCS]
    ncand, cand_vc, busy, vc_taken, sa_void, ch_out_port = (st.ncand, st.cand_vc, st.busy, st.vc_taken, st.sa_void,
                                                            st.ch_out_port)  # fmt: skip
    credit, cr_time, cr_head, cr_count = st.credit, st.cr_time, st.cr_head, st.cr_count
    vc_shift = vc_split_shift(vcs)
    for c in range(ncand[iv]):
        oc = split_vc(cand_vc[iv, c], vcs, vc_shift)[0]
        seen = False
        for d in range(c):  # each output channel once
            if split_vc(cand_vc[iv, d], vcs, vc_shift)[0] == oc:
                seen = True
                break
        if seen:
            continue
        usable = False
        if not _queue_full(st, oc, tick, now):
            for d in range(c, ncand[iv]):
                o = cand_vc[iv, d]
                if split_vc(o, vcs, vc_shift)[0] != oc:
                    continue
                if (busy[o] == -1 or vc_taken[o] == tick) and _take_credits(credit, cr_time, cr_head, cr_count, o,
                                                                             now) > 0:  # fmt: skip
                    usable = True
                    break
        if usable:
            nreq = _add_switch_request(st, nreq, tag, ic, sub, iv, ch_out_port[oc], oc, 1)
        else:
            sa_void[iv] = tick
    return nreq


@njit(inline="always", hoist_fields=True)
def _may_bid(state, ready, tried, tick):
    """Whether an input VC listed in step ``tick`` may bid for the switch in this step's switch allocation, with
    speculation or input speedup (otherwise :func:`list_ready` lists the VCs that bid).

    An active VC past its ready step, or a head that :func:`allocate_vcs` evaluated in this step
    (``tried == tick``).  A listed VC that fails this test cannot bid in this step, so a channel none of
    whose listed VCs pass it has nothing to offer and :func:`allocate_switch` does not visit it (on the 8x8 torus
    with 1-flit packets at offered 0.35, half of the channels holding listed VCs hold only heads being routed or
    waiting for a VC).
    """
    return (state == ACTIVE and ready <= tick) or tried == tick


@njit(inline="always", hoist_fields=True)
def _switch_request(st, nreq, tag, ic, sub, iv, tick, now, again):
    """The non-speculative switch request of input VC ``iv`` (active, past its ready step, a visible front flit):
    it bids again from step ``again`` (``sw_alloc_delay`` cycles later), and requests its output port if its
    output VC has a credit and the port's output queue is not full.  Returns the new number of requests."""
    vcs = st.cfg[_VCS]
    st.vready[iv] = again
    o = st.out_vc[iv]
    if _take_credits(st.credit, st.cr_time, st.cr_head, st.cr_count, o, now) == 0:
        return nreq
    oc = split_vc(o, vcs, vc_split_shift(vcs))[0]
    if _queue_full(st, oc, tick, now):
        return nreq
    return _add_switch_request(st, nreq, tag, ic, sub, iv, st.ch_out_port[oc], oc, 0)


@njit(inline="always", hoist_fields=True)
def allocate_switch(st, now):
    """Switch allocation: per switch input one VC per output port, then iSLIP between switch inputs and switch
    outputs (one iteration).

    An input port has ``input_speedup`` switch inputs (VC ``v`` uses input ``v mod input_speedup``, each with its
    own round-robin pointer over the VCs, starting at its own index and moving ``input_speedup`` past a winner, as
    in BookSim2) and an output port ``output_speedup`` switch outputs (input port ``p`` uses output ``p mod
    output_speedup``); without speedups, one flit per input and output port per step.  A VC requests when it is
    active, past its ready step, its front flit is visible, its output VC has a credit and its output queue is not
    full (``output_buffer_size``).  With ``speculative``, a head that bid for a VC in this step
    (:func:`allocate_vcs`) also requests (``_speculative_requests``), below any non-speculative VC of its switch
    input for the same output port; iSLIP itself ignores the difference (BookSim2's iSLIP has no priorities).  A
    speculative grant is used only if the head won an output VC of that port in this step's VC allocation and that
    VC has a credit; otherwise the grant is lost for this step.  Used grants go to ``st.grants[:st.ngrants[0]]``
    (input VC ids); returns their number.
    """
    cfg = st.cfg
    vcs = cfg[_VCS]
    nch = cfg[_NUM_CHANNELS]
    nn = cfg[_NUM_NODES]
    ins, outs = cfg[_INPUT_SPEEDUP], cfg[_OUTPUT_SPEEDUP]
    speculative = cfg[_SPECULATIVE] != 0
    tick = _tick(st, now)
    again = _ready_after(tick, now, cfg[_SW_ALLOC_DELAY], st.internal_speedup[0])
    sa_rr, va_tried, vstate, vready, out_vc = st.sa_rr, st.va_tried, st.vstate, st.vready, st.out_vc
    count, fvis = st.count, st.fvis
    credit, cr_time, cr_head, cr_count = st.credit, st.cr_time, st.cr_head, st.cr_count
    sa_req_in, sa_req_out, sa_req_iv, sa_req_spec = st.sa_req_in, st.sa_req_out, st.sa_req_iv, st.sa_req_spec
    req_in_key, req_out_key, sa_void, matched, grants = (st.req_in_key, st.req_out_key, st.sa_void, st.matched,
                                                         st.grants)  # fmt: skip
    live, to_switch = st.live, st.to_switch
    vc_shift = vc_split_shift(vcs)
    nreq = 0
    if speculative or ins > 1:
        last_ic = -1
        for i in range(st.nlive[0]):  # each input channel with a listed VC that may bid, once, ascending
            iv = live[i]
            if not _may_bid(vstate[iv], vready[iv], va_tried[iv], tick):
                continue
            ic = split_vc(iv, vcs, vc_shift)[0]
            if ic == last_ic:
                continue
            last_ic = ic
            # every switch input of the channel: switch input sub serves the VCs v = sub (mod input_speedup), in
            # round-robin order from its pointer, its requests consecutive (written out here rather than in a
            # helper: each level of inline functions compiles the code below it again)
            for sub in range(ins):
                tag = (tick * (nch + nn) + ic) * ins + sub
                p = sa_rr[ic * ins + sub]
                for k in range(2):  # its VCs at or after its pointer, then those before it
                    v = sub
                    while v < vcs:
                        iv = ic * vcs + v
                        v += ins
                        if (iv - ic * vcs >= p) != (k == 0):
                            continue
                        if speculative and va_tried[iv] == tick:
                            if vstate[iv] == ACTIVE:  # won its VC just now: bids non-speculatively later
                                vready[iv] = again
                            nreq = _speculative_requests(st, nreq, tag, ic, sub, iv, tick, now)
                        elif vstate[iv] == ACTIVE and vready[iv] <= tick and count[iv] > 0 and fvis[iv] <= now:
                            nreq = _switch_request(st, nreq, tag, ic, sub, iv, tick, now, again)
    else:
        # the VCs list_ready listed as bidding (no VC starts to bid for the switch between listing and now),
        # ascending, so the VCs of one input channel are neighbours: visited in the channel's round-robin order
        bidders = st.nlive[3]
        i = 0
        while i < bidders:
            ic = split_vc(to_switch[i], vcs, vc_shift)[0]
            end = i + 1
            while end < bidders and split_vc(to_switch[end], vcs, vc_shift)[0] == ic:
                end += 1
            tag = tick * (nch + nn) + ic
            first = ic * vcs + sa_rr[ic]  # from the pointer to the channel's last VC, then from its first
            n = end - i  # one loop, one call site (each call is compiled inline); one pass for a lone bidder
            for k in range(1 if n == 1 else 2 * n):
                iv = to_switch[i + k - n * (k >= n)]
                if n == 1 or (iv >= first) == (k < n):
                    nreq = _switch_request(st, nreq, tag, ic, 0, iv, tick, now, again)
            i = end
    ports = cfg[_PORTS]
    ng = islip_match(nreq, sa_req_in, sa_req_out, req_in_key, req_out_key, ports * ins, ports * outs, st.sa_gptr,
                     st.sa_aptr, st.sg_stamp, st.sg_best, st.sg_bestd, matched, tick)  # fmt: skip
    used = 0
    for m in range(ng):
        r = matched[m]
        iv = sa_req_iv[r]
        if sa_req_spec[r] == 1 and sa_void[iv] == tick:
            continue
        ic, v = split_vc(iv, vcs, vc_shift)
        sa_rr[sa_req_in[r]] = wrap(v + ins, vcs)  # the switch input's pointer moves past the winner
        if sa_req_spec[r] == 1:
            o = out_vc[iv]
            won = split_vc(o, vcs, vc_shift)[0] * outs + wrap(st.ch_in_port[ic], outs)  # its switch output
            if vstate[iv] != ACTIVE or won != sa_req_out[r] \
                    or _take_credits(credit, cr_time, cr_head, cr_count, o, now) == 0:
                continue
        grants[used] = iv
        used += 1
    st.ngrants[0] = used
    return used


@njit(inline="always", hoist_fields=True)
def _credit_sent(cq_tick, cq_send, ic, step, cycle):
    """The cycle input channel ``ic`` sends the credit of a flit that left it in internal step ``step`` (cycle
    ``cycle``): flits leaving in one step share a credit, and a channel sends one credit per cycle."""
    if cq_tick[ic] != step:
        cq_tick[ic] = step
        cq_send[ic] = max(cycle, cq_send[ic] + 1)
    return cq_send[ic]


@njit(inline="always", hoist_fields=True)
def _enqueue_output(st, oc, entered, entry_cycle, now):
    """A flit enters output channel ``oc``'s queue in step ``entered`` (cycle ``entry_cycle``); returns the cycle
    the channel sends it: the queue sends one flit per cycle, in order.  A bounded queue keeps it in its ring."""
    oq_next = st.oq_next
    sent = max(entry_cycle, oq_next[oc])
    oq_next[oc] = sent + 1
    if st.cfg[_OUTPUT_BUFFER_SIZE] >= 0:
        oq_tick, oq_send, oq_head, oq_len = st.oq_tick, st.oq_send, st.oq_head, st.oq_len
        _queued(oq_tick, oq_send, oq_head, oq_len, oc, entered, now)  # drops the flits sent before this cycle
        slot = wrap(oq_head[oc] + oq_len[oc], oq_tick.shape[1])
        oq_tick[oc, slot] = entered
        oq_send[oc, slot] = sent
        oq_len[oc] += 1
    return sent


@njit(inline="always", hoist_fields=True)
def traverse_switch(st, now):
    """Traversal: every switch-allocation winner moves its front flit through the switch into its output queue.

    The flit leaves the input buffer in the step switch allocation completes (``sw_alloc_delay`` cycles on); its
    credit goes upstream when the input channel's credit link is free (one credit per cycle, shared by the flits
    that left in one step), seen there ``latency + 1`` cycles later, plus ``credit_delay`` at a router.  It crosses
    the switch in the next step and enters the output queue ``st_final_delay - 1`` cycles after that step's cycle;
    the output channel sends one queued flit per cycle (without speedups, in the cycle it enters: cycle ``now +
    sw_alloc_delay - 1 + st_final_delay``).  It is seen downstream ``latency + 1`` cycles after it is sent; at the
    ejection port it leaves the network 2 cycles after (the sink returns the credit 2 cycles later).  The flit
    uses a credit of its output VC; a tail frees the output VC and the input VC.
    """
    cfg = st.cfg
    vcs = cfg[_VCS]
    nch = cfg[_NUM_CHANNELS]
    length = cfg[_LENGTH]
    credit_delay = cfg[_CREDIT_DELAY]
    sw_alloc_delay = cfg[_SW_ALLOC_DELAY]
    warmup, measure_end = cfg[_WARMUP], cfg[_MEASURE_END]
    fpk, fidx, farr, fvis, fhead, count, occupied = st.fpk, st.fidx, st.farr, st.fvis, st.fhead, st.count, st.occupied
    credit, cr_time, cr_head, cr_count = st.credit, st.cr_time, st.cr_head, st.cr_count
    grants, ch_latency, out_vc, pk_hops, ch_flits, counters = (st.grants, st.ch_latency, st.out_vc, st.pk_hops,
                                                               st.ch_flits, st.counters)  # fmt: skip
    busy, vstate, ncand, cq_tick, cq_send = st.busy, st.vstate, st.ncand, st.cq_tick, st.cq_send
    speedup = st.internal_speedup[0]
    tick = _tick(st, now)
    left_cycle = now + sw_alloc_delay - 1  # the flit leaves its input buffer in this cycle, in step left
    left = tick if sw_alloc_delay == 1 else _steps_before(left_cycle, speedup)
    crossed = _cycle_of(left + 1, speedup, left_cycle)  # it crosses the switch in the next step, of this cycle
    entry_cycle = crossed + cfg[_ST_FINAL_DELAY] - 1  # ... and enters the output queue in this one,
    entered = left + 1 if cfg[_ST_FINAL_DELAY] == 1 else _steps_before(entry_cycle, speedup)  # in this step
    measuring = warmup <= now < measure_end
    vc_shift = vc_split_shift(vcs)
    for g in range(st.ngrants[0]):
        iv = grants[g]
        p, fi = _pop(fhead, fpk, fidx, farr, fvis, count, occupied, iv)
        ic = split_vc(iv, vcs, vc_shift)[0]
        back = _credit_sent(cq_tick, cq_send, ic, left, left_cycle) + ch_latency[ic] + 1
        _queue_credit(cr_time, cr_head, cr_count, iv, back + (credit_delay if ic < nch else 0))
        o = out_vc[iv]
        oc = split_vc(o, vcs, vc_shift)[0]
        credit[o] -= 1
        tail = fi == length - 1
        sent_at = _enqueue_output(st, oc, entered, entry_cycle, now)
        if oc < nch:
            _push(fpk, fidx, farr, fvis, fhead, count, occupied, o, p, fi, sent_at + ch_latency[oc] + 1)
            if fi == 0:
                pk_hops[p] += 1
            if measuring:
                ch_flits[oc] += 1
        else:
            ejected = sent_at + 2  # 1-cycle ejection channel, read by the sink the cycle after
            _queue_credit(cr_time, cr_head, cr_count, o, ejected + 2 + credit_delay)
            counters[CN_FLITS_EJECTED] += 1
            if warmup <= ejected < measure_end:
                counters[CN_WINDOW_FLITS_EJECTED] += 1
            if tail:
                finish(st, p, ejected, False)
        if tail:
            busy[o] = -1
            out_vc[iv] = -1
            vstate[iv] = IDLE
            ncand[iv] = 0


@njit(refcount=False, hoist_fields=True)
def run_booksim(route, tables, st, max_cycles, reserve):
    """The cycle loop: the stages in BookSim2's order, up to ``max_cycles`` cycles.

    Each cycle: generation and injection once, then the router's pipeline (listing, routing, VC allocation, switch
    allocation, traversal) in each of the cycle's internal steps (one without ``internal_speedup``).  Returns
    :data:`torus_lab.sim.packets.LOOP_OVER` when the run is over, :data:`~torus_lab.sim.packets.LOOP_POOL`
    when it stopped at the start of a cycle because fewer than ``reserve`` packet ids were free (the engine passes
    the generating nodes while the pool may still grow, else 0: never), otherwise
    :data:`~torus_lab.sim.packets.LOOP_RAN`.  Compiled without reference counting (``njit(refcount=False)``): no
    count updates on the state's arrays at each stage call and each array read."""
    cfg, counters, free_top, step = st.cfg, st.counters, st.free_top, st.step
    speedup = st.internal_speedup[0]
    measure_end, drain, deadlock_cycles = cfg[_MEASURE_END], cfg[_DRAIN], cfg[_DEADLOCK_CYCLES]
    for _ in range(max_cycles):
        now = counters[CN_NOW]
        if run_over(st, now, measure_end, drain):
            return LOOP_OVER
        if free_top[0] < reserve:
            return LOOP_POOL
        generate_packets(st, now)
        moved = inject_flits(st, now)
        for j in range(_steps_before(now + 1, speedup) - _steps_before(now, speedup)):
            step[0] = j
            list_ready(st, now)  # once per step: routing and the allocators change no buffer
            route_heads(route, tables, st, now)
            allocate_vcs(route, tables, st, now)
            moved += allocate_switch(st, now)
            traverse_switch(st, now)
        step[0] = 0
        watch_progress(st, moved, deadlock_cycles)
        counters[CN_NOW] = now + 1
    return LOOP_RAN


class BookSimRun:
    """One run of the BookSim-compatible model: its :class:`BookSimState` plus what the engine reads.

    Offers the attributes the engine's shared result code uses (``counters``, ``rec``, ``rec_count``,
    ``ch_flits``, ``vcs``, :meth:`waiting_graph`), so results, packet tables and deadlock cycles are built
    by the same code for both router models; every field of the state is readable under its own name (the
    engine replaces ``state`` when it grows the packet pool).
    """

    def __init__(self, state: BookSimState) -> None:
        self.state = check_instance("state", state, BookSimState, "a BookSimState (from state_for)")
        self.vcs = int(state.cfg[_VCS])
        self.counters = state.counters
        self.rec = state.rec
        self.rec_count = state.rec_count
        self.ch_flits = state.ch_flits

    def __getattr__(self, name: str):
        state = self.__dict__.get("state")
        if state is not None and name in state._fields:
            return getattr(state, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def counter(self, name: str) -> int:
        """Value of one counter (names of :data:`torus_lab.sim.packets.CNT`)."""
        return int(self.counters[CNT[name]])

    def buffered_flits(self) -> int:
        """Flits sitting in network input buffers (injection ports excluded)."""
        return int(self.state.count[: int(self.state.cfg[_NUM_CHANNELS]) * self.vcs].sum())

    def waiting_graph(self):
        """Wait-for graph between VCs (``networkx.DiGraph``): ``a -> b`` when the packet at the front of input VC
        ``a`` holds output VC ``b`` (it waits for its credits) or waits for ``b``, a busy candidate."""
        import networkx as nx

        s = self.state
        graph = nx.DiGraph()
        for iv in np.flatnonzero(s.count > 0):
            iv = int(iv)
            if s.vstate[iv] == ACTIVE:
                graph.add_edge(iv, int(s.out_vc[iv]))
            elif s.vstate[iv] == VC_ALLOC:
                for c in range(int(s.ncand[iv])):
                    if s.busy[s.cand_vc[iv, c]] != -1:
                        graph.add_edge(iv, int(s.cand_vc[iv, c]))
        return graph


def state_for(routing, config, *, active: np.ndarray | None = None, dest_map: np.ndarray | None = None,
              hotspot: int = 0, seed_word: int = 1, rec_cap: int = 1024,
              burst_on: np.ndarray | None = None, pool: int | None = None,
              stored_states: bool = False, queue_width: int | None = None) -> BookSimState:
    """A fresh :class:`BookSimState` for ``routing``'s network under ``config`` (a ``router="booksim"`` SimConfig).

    ``active`` (default every node), ``dest_map`` (default none: random patterns), ``hotspot`` (node id) and
    ``burst_on`` (on-off injection: which nodes start in a burst; default none) are the engine's traffic set-up;
    tests pass their own to hand-place packets.  ``pool``: packet ids (default: the largest pool a run can use,
    :func:`torus_lab.sim.packets.packet_pool_size`; the engine starts smaller and grows it).  A routed head
    keeps its candidates' output VCs and its routing's random word; its granted candidate's header state comes
    from the routing kernel called again (:func:`torus_lab.sim.buffers.granted_state`).  ``stored_states``
    keeps every candidate's header state too (``cand_st``, ``STATE_SIZE`` words per candidate: most of the
    state), which the grant then copies: the same run, kept for the tests that compare the two.  ``queue_width``:
    slots of each source queue's ring (default ``config.queue_capacity``; the engine starts narrower and widens
    them, :func:`torus_lab.sim.packets.grow_queues`).

    Examples
    --------
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> from torus_lab.sim import SimConfig
    >>> rf = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
    >>> s = state_for(rf, SimConfig.preset("booksim"))
    >>> int(s.cfg[BCFG["depth"]]), int(s.ch_latency[0]), int(s.ch_latency[-1])
    (8, 2, 1)
    """
    from torus_lab.routing.interface import RoutingFunction
    from torus_lab.sim.config import SimConfig
    from torus_lab.sim.traffic import INJECTIONS, pattern_code

    check_instance("routing", routing, RoutingFunction)
    check_instance("config", config, SimConfig)
    if config.router != "booksim":
        raise ValueError(f"config must have router='booksim', got router={config.router!r}")
    topology = routing.topology
    nn = topology.num_nodes
    if active is None:
        active = np.arange(nn, dtype=np.int64)
    active = check_int_array("active", active, 0, nn - 1, ndim=1).astype(np.int64)
    if dest_map is None:
        dest_map = np.full(nn, -1, dtype=np.int64)
    dest_map = check_int_array("dest_map", dest_map, -1, nn - 1, ndim=1).astype(np.int64)
    if dest_map.shape[0] != nn:
        raise ValueError(f"dest_map must have one entry per node ({nn}), got {dest_map.shape[0]}")
    hotspot = check_int("hotspot", hotspot, 0, nn - 1)
    seed_word = check_int("seed_word", seed_word, 0, 2**64 - 1)
    rec_cap = check_int("rec_cap", rec_cap, 1)
    if pool is not None:
        pool = check_int("pool", pool, 1, WORD_LIMIT)
    check_instance("stored_states", stored_states, (bool, np.bool_), "a bool")
    if queue_width is not None:
        queue_width = check_int("queue_width", queue_width, 1, config.queue_capacity)
    if burst_on is None:
        burst_on = np.zeros(nn, dtype=np.uint8)
    burst_on = check_int_array("burst_on", burst_on, 0, 1, ndim=1).astype(np.uint8)
    if burst_on.shape[0] != nn:
        raise ValueError(f"burst_on must have one entry per node ({nn}), got {burst_on.shape[0]}")
    end = config.warmup + config.measure
    settings = dict(
        depth=config.buffer_depth, length=config.packet_length, routing_delay=config.routing_delay,
        vc_alloc_delay=config.vc_alloc_delay, sw_alloc_delay=config.sw_alloc_delay,
        st_final_delay=config.st_final_delay, credit_delay=config.credit_delay, warmup=config.warmup,
        measure_end=end, drain=config.drain, gen_end=end + config.drain if config.inject_during_drain else end,
        deadlock_cycles=config.deadlock_cycles, pattern=pattern_code(config.traffic), hotspot_node=int(hotspot),
        queue_cap=config.queue_capacity, include_self=int(config.uniform_includes_source),
        injection=INJECTIONS[config.injection], speculative=int(config.speculative),
        input_speedup=config.input_speedup, output_speedup=config.output_speedup,
        output_buffer_size=config.output_buffer_size,
    )  # fmt: skip
    cfg = np.zeros(len(BCFG), dtype=np.int64)
    for name, value in settings.items():
        cfg[BCFG[name]] = value
    longest = (config.warmup + config.measure if config.run_control == "fixed"
               else config.max_periods * config.sample_period) + config.drain + 1  # fmt: skip
    _check_cycles(longest, cfg, config.channel_latency, config.internal_speedup)
    fcfg = np.append(config.injection_rates(), config.hotspot_fraction)
    return _new_state(topology, routing.num_vcs, cfg, fcfg, burst_on, active, dest_map, seed_word, rec_cap,
                      config.channel_latency, pool, stored_states, queue_width, config.internal_speedup)  # fmt: skip


def _check_cycles(last_cycle: int, cfg: np.ndarray, channel_latency: int, internal_speedup: float = 1.0) -> None:
    """Refuse a run whose cycle numbers, plus the furthest a flit, credit or wait reaches past the current cycle,
    would pass :data:`torus_lab.sim.packets.WORD_LIMIT` (the state keeps cycles, and internal steps, about
    ``internal_speedup`` per cycle, in 32-bit words)."""
    delays = (_ROUTING_DELAY, _VC_ALLOC_DELAY, _SW_ALLOC_DELAY, _ST_FINAL_DELAY, _CREDIT_DELAY)
    reach = sum(int(cfg[i]) for i in delays) + channel_latency + 8
    if (last_cycle + reach) * internal_speedup > WORD_LIMIT:
        raise ValueError(f"the BookSim model counts cycles in 32-bit words: a run to cycle {last_cycle} (plus "
                         f"{reach} cycles of delays, internal_speedup={internal_speedup}) passes "
                         f"{WORD_LIMIT}")  # fmt: skip


def run(routing, state: BookSimState, max_cycles: int) -> BookSimRun:
    """Run :func:`run_booksim` with ``routing``'s kernel and tables on ``state`` (compiled once per process)."""
    from torus_lab.routing.interface import RoutingFunction, compile_for_kernel, kernel_handle

    check_instance("routing", routing, RoutingFunction)
    check_instance("state", state, BookSimState, "a BookSimState (from state_for)")
    max_cycles = check_int("max_cycles", max_cycles, 0)
    topology = routing.topology
    channels = topology.num_channels + 2 * topology.num_nodes
    if state.ch_latency.shape[0] != channels or int(state.cfg[_VCS]) != routing.num_vcs:
        raise ValueError(f"state was built for another network than routing {routing.name!r} on {topology!r}")
    _check_cycles(int(state.counters[CNT["now"]]) + max_cycles, state.cfg, int(state.ch_latency.max()),
                  float(state.internal_speedup[0]))
    args = (kernel_handle(routing.kernel), routing.tables, state, max_cycles, 0)
    compile_for_kernel(run_booksim, args)(*args)
    return BookSimRun(state)
