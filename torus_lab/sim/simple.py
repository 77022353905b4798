"""The simple router model (``SimConfig(router="simple")``, the default), built from small stage functions.

All state of one run lives in one :class:`SimpleState` (a NamedTuple of numpy arrays, built by
:func:`new_state`; :class:`torus_lab.sim.engine.SimState` is its Python-side view); nothing here is global.

Router model (one cycle, synchronous: every decision reads the state at the start of the cycle)
-------------------------------------------------------------------------------------------------
1. *Generation*: every active node may start a packet (injection process and destination pattern:
   :func:`torus_lab.sim.traffic.starts_packet`, :func:`torus_lab.sim.traffic.draw_destination`); it joins the
   node's unbounded-in-spirit source queue
   (capacity ``queue_cap``; overflowing packets are counted and not generated).
2. *Injection*: the front packet of a source queue occupies the node's injection input (one VC).
3. *Routing*: a head flit at the front of an input VC, ``router_delay`` cycles after it arrived, is routed
   once: at its destination it is sent to the ejection port, otherwise the routing kernel (the routing
   function's own, received as the argument ``route``) returns its candidate (channel, VC) outputs.
4. *VC allocation*: a routed head requests the first candidate whose VC is idle (selection policy "first
   free"; the routing kernel orders candidates by preference); each output VC grants one request by
   round-robin over input VCs.  Default *atomic* allocation: a VC is idle when it is empty and no packet is
   allocated to it, so a buffer holds flits of one packet at a time.  Option *non-atomic*: a VC is idle as
   soon as the tail of the packet allocated to it has been written into it (two packets may share the FIFO).
   A head with no candidate waits; after ``drop_after`` cycles (if ``>= 0``) the packet is dropped (its
   flits are consumed where the head sits); so is a packet whose head has taken ``hop_limit`` hops (if
   ``> 0``; a guard against livelock).
5. *Switch allocation* (separable, input first): each input channel offers one VC (round-robin) that has a
   flit, an output VC and a credit (free slot downstream, counted at the start of the cycle: a slot freed in
   this cycle is usable in the next, i.e. a one-cycle credit loop); each output channel and each node's
   ejection port grants one input channel (round-robin).  At most one flit per channel per cycle.
6. *Traversal*: granted flits move; a head written into a buffer in cycle t may leave it in cycle
   ``t + router_delay``; body flits follow one per cycle.

Zero-load latency of a packet of L flits over H hops: ``(H + 1) * router_delay + L - 1`` cycles from
generation to tail ejection (H + 1 router traversals including the source and the destination router,
plus serialisation).  Deadlock: if flits are in the network and none moved for ``deadlock_cycles`` cycles,
the loop stops and sets the deadlock flag (the Python side extracts the cycle of waiting channels).

Stages
------
Each step above is one function taking the state ``st`` and the cycle ``now``, compiled with
``inline="always"`` (as in :mod:`torus_lab.sim.booksim`: the loop costs what one function would, while each
stage stays small, callable from Python or a small ``@njit`` wrapper, and tested alone):
:func:`generate_packets`, :func:`inject_packets`, :func:`list_occupied`, :func:`route_heads`,
:func:`allocate_vcs`, :func:`allocate_switch`, :func:`traverse`, then the shared progress watch
(:func:`torus_lab.sim.packets.watch_progress`), composed by :func:`run_kernel`.  Generation, the source
queues, packet finishing and the end-of-run test are shared with the BookSim-compatible model
(:mod:`torus_lab.sim.packets`); its injection differs (here a whole packet enters the injection buffer at
once, one packet at a time).  The allocators' steps (the VC request, the round-robin arbiter, the switch
allocator's input arbiter) come from :mod:`torus_lab.sim.allocators`, which the BookSim-compatible model shares.

Only input VCs holding flits are visited: ``occupied`` is a bitmap of them, kept by injection and traversal,
and :func:`list_occupied` turns it into the ascending list ``live[:nlive[0]]`` once per cycle (after
injection; routing and the allocators change no buffer).  Visiting them in ascending order keeps every
round-robin decision and the order of random draws what a scan of all input VCs gives.

Examples
--------
>>> from torus_lab.topology import Torus
>>> st = new_state(Torus(2, 4), vcs=2, queue_cap=4, rec_cap=8, seed_word=1, depth=4, length=2, atomic=True)
>>> int(st.cfg[CFG["num_channels"]]), st.count.shape[0], st.occupied.shape[0]   # 64 x 2 VCs + 16 injection
(64, 144, 3)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_int, check_int_array
from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE
from torus_lab.sim.allocators import arbiter_request, first_idle_candidate, first_ready_vc, wrap
from torus_lab.sim.buffers import (
    candidate_capacity,
    granted_state,
    mark_occupied,
    pop_flit,
    repeats_stored,
    split_vc,
    vc_split_shift,
)
from torus_lab.sim.packets import (
    CN_FLITS_DROPPED,
    CN_FLITS_EJECTED,
    CN_FLITS_INJECTED,
    CN_HOP_LIMIT_DROPS,
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
    packet_pool_size,
    run_over,
    watch_progress,
)
from torus_lab.sim.rng import splitmix_next
from torus_lab.topology import Torus

__all__ = [
    "SimpleState",
    "new_state",
    "state_layout",
    "state_memory_bytes",
    "generate_packets",
    "inject_packets",
    "list_occupied",
    "route_heads",
    "allocate_vcs",
    "allocate_switch",
    "traverse",
    "run_kernel",
    "EJECT",
    "DROP",
    "CFG",
    "CFG_WORDS",
]

#: ``out_ivc`` codes besides a downstream input-VC index (-1 = not allocated yet).
EJECT = -2
DROP = -3

#: The integer settings of ``SimpleState.cfg``, in word order: the one list their indices come from
#: (:data:`CFG` and the constants the compiled stages read are both derived from it, by name).
CFG_WORDS = (
    "vcs", "depth", "length", "router_delay", "warmup", "measure_end", "drain", "gen_end", "deadlock_cycles",
    "drop_after", "pattern", "hotspot_node", "queue_cap", "hop_limit", "atomic", "injection", "include_self",
    "num_channels", "num_nodes",
)
#: Index of each integer setting in ``SimpleState.cfg``.
CFG = {name: index for index, name in enumerate(CFG_WORDS)}
# The indices the compiled stages read (numba freezes module globals as constants): ``_`` + the word in capitals.
_VCS = CFG["vcs"]
_DEPTH = CFG["depth"]
_LENGTH = CFG["length"]
_ROUTER_DELAY = CFG["router_delay"]
_WARMUP = CFG["warmup"]
_MEASURE_END = CFG["measure_end"]
_DRAIN = CFG["drain"]
_GEN_END = CFG["gen_end"]
_DEADLOCK_CYCLES = CFG["deadlock_cycles"]
_DROP_AFTER = CFG["drop_after"]
_PATTERN = CFG["pattern"]
_HOTSPOT_NODE = CFG["hotspot_node"]
_QUEUE_CAP = CFG["queue_cap"]
_HOP_LIMIT = CFG["hop_limit"]
_ATOMIC = CFG["atomic"]
_INJECTION = CFG["injection"]
_INCLUDE_SELF = CFG["include_self"]
_NUM_CHANNELS = CFG["num_channels"]
_NUM_NODES = CFG["num_nodes"]


#: Every array of one run of the simple model.  Input VCs are numbered ``channel * vcs + vc`` for network
#: channels and ``num_channels * vcs + node`` for the injection port of each node; router ports (the units of
#: switch allocation) are the network channels, then one injection port per node; outputs of switch allocation
#: are the channels, then one ejection port per node.
SimpleState = namedtuple(
    "SimpleState",
    [
        # settings (cfg indexed by CFG; fcfg: starts_packet's rates, then the hotspot fraction) and traffic
        "cfg", "fcfg", "burst_on", "active", "dest_map", "ivc_node", "rng", "counters",
        # input VCs: FIFO (count, front slot; per slot packet, flit index, arrival cycle), the packet allowed to
        # write into the VC (-1: none), whether the front packet is routed, its candidates' output VCs (their
        # header states only with ``stored_states``, else no rows) and the random word of its routing, allocated
        # output VC (or EJECT / DROP), cycles waited without a candidate; bitmap of VCs holding flits, and its list
        "count", "fhead", "fpk", "fidx", "farr", "writer", "routed", "ncand", "cand_ivc", "cand_st", "cand_rand",
        "out_ivc", "waitc", "occupied", "live", "nlive",
        # round-robin pointers: per input port (last VC served), per output (last port served), per VC (VA)
        "rr_in", "rr_out", "rr_va",
        # allocation scratch of one cycle: routing kernel outputs, VC requests and their best requester per
        # target, switch requests per port and best per output, the granted input VCs
        "tmp_ch", "tmp_vc", "tmp_st", "va_mark", "va_best", "va_bestd", "req_iv", "req_tgt", "req_c", "nreq",
        "sa_mark", "sa_best", "sa_bestd", "port_iv", "port_out", "req_ports", "nports_req", "grants", "ngrants",
        # packets
        "pk_src", "pk_dst", "pk_gen", "pk_inj", "pk_hops", "pk_meas", "pk_state", "free_stack", "free_top",
        # source queues, and the cycle each injection port's last tail left
        "q_buf", "q_head", "q_len", "inj_free",
        # measured packets (src, dst, gen, inject, done, hops, dropped) and flits per channel in the window
        "rec", "rec_count", "ch_flits",
    ],
)  # fmt: skip


def state_layout(topology: Torus, vcs: int, cap: int, queue_cap: int, rec_cap: int,
                 pool: int | None = None, *, stored_states: bool = False) -> dict[str, int]:
    """Bytes of each array :func:`new_state` allocates (FIFOs of ``cap`` flits, a pool of ``pool`` packets, by
    default the largest, :func:`torus_lab.sim.packets.packet_pool_size`; ``stored_states`` as there), by field
    of :class:`SimpleState`; every node active.  What the memory check adds up before allocating (house rule)
    and the breakdown of ``benchmarks/bench_scale.py``.

    Examples
    --------
    >>> layout = state_layout(Torus(2, 4), 2, 4, 16, 100)
    >>> layout["fpk"], layout["q_buf"], layout["rec"]      # 144 input VCs x 4 slots, 16 nodes x 16, 100 x 7 words
    (2304, 1024, 5600)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vcs, cap, queue_cap = (check_int(name, value, minimum=1) for name, value in
                           (("vcs", vcs), ("cap", cap), ("queue_cap", queue_cap)))  # fmt: skip
    rec_cap = check_int("rec_cap", rec_cap, minimum=0)
    check_instance("stored_states", stored_states, (bool, np.bool_), "a bool")
    nch, nn = topology.num_channels, topology.num_nodes
    niv, ports = nch * vcs + nn, nch + nn
    npk = packet_pool_size(nn, niv, queue_cap) if pool is None else check_int("pool", pool, minimum=1)
    kmax = candidate_capacity(topology, vcs)
    words = {  # (elements, bytes per element)
        "cfg": (len(CFG), 8), "fcfg": (4, 8), "burst_on": (nn, 1), "active": (nn, 8), "dest_map": (nn, 8),
        "ivc_node": (niv, 8), "rng": (1, 8), "counters": (len(CNT), 8),
        "count": (niv, 8), "fhead": (niv, 8), "fpk": (niv * cap, 4), "fidx": (niv * cap, 4), "farr": (niv * cap, 4),
        "writer": (niv, 8), "routed": (niv, 8), "ncand": (niv, 8), "cand_ivc": (niv * kmax, 8),
        "cand_st": (niv * kmax * STATE_SIZE * stored_states, 8), "cand_rand": (niv, 8), "out_ivc": (niv, 8),
        "waitc": (niv, 8),
        "occupied": ((niv + 63) // 64, 8), "live": (niv, 8), "nlive": (1, 8),
        "rr_in": (ports, 8), "rr_out": (ports, 8), "rr_va": (niv, 8),
        "tmp_ch": (MAX_CANDIDATES, 8), "tmp_vc": (MAX_CANDIDATES, 8), "tmp_st": (MAX_CANDIDATES * STATE_SIZE, 8),
        "va_mark": (niv, 8), "va_best": (niv, 8), "va_bestd": (niv, 8), "req_iv": (niv, 8), "req_tgt": (niv, 8),
        "req_c": (niv, 8), "nreq": (1, 8),
        "sa_mark": (ports, 8), "sa_best": (ports, 8), "sa_bestd": (ports, 8), "port_iv": (ports, 8),
        "port_out": (ports, 8), "req_ports": (ports, 8), "nports_req": (1, 8), "grants": (ports, 8),
        "ngrants": (1, 8),
        **{name: (npk, 8) for name in POOL_FIELDS if name != "pk_state"}, "pk_state": (npk * STATE_SIZE, 8),
        "free_stack": (npk, 8), "free_top": (1, 8),
        "q_buf": (nn * queue_cap, 4), "q_head": (nn, 8), "q_len": (nn, 8), "inj_free": (nn, 8),
        "rec": (rec_cap * 7, 8), "rec_count": (1, 8), "ch_flits": (nch, 8),
    }  # fmt: skip
    return {name: count * size for name, (count, size) in words.items()}


def state_memory_bytes(topology: Torus, vcs: int, cap: int, queue_cap: int, rec_cap: int,
                       pool: int | None = None, *, stored_states: bool = False) -> int:
    """Bytes :func:`new_state` allocates (the sum of :func:`state_layout`), estimated before allocating.

    Examples
    --------
    >>> state_memory_bytes(Torus(2, 4), 2, 4, 16, 100) > 0
    True
    """
    return sum(state_layout(topology, vcs, cap, queue_cap, rec_cap, pool, stored_states=stored_states).values())


def new_state(topology: Torus, vcs: int, queue_cap: int, rec_cap: int, seed_word: int, *, depth: int, length: int,
              atomic: bool, active: np.ndarray | None = None, pool: int | None = None,
              stored_states: bool = False) -> SimpleState:
    """A fresh :class:`SimpleState`: empty buffers, free VCs, a packet pool of ``pool`` free ids (default the
    largest a run can use, :func:`torus_lab.sim.packets.packet_pool_size`; the engine starts smaller and grows
    it, :func:`torus_lab.sim.packets.grow_pool`).

    ``cfg`` holds the network's settings (``vcs``, ``depth``, ``length``, ``queue_cap``, ``atomic``,
    ``num_channels``, ``num_nodes``); the caller writes the traffic and run-length ones, ``fcfg``, ``dest_map``
    and ``burst_on``.  ``active`` (non-faulty nodes) defaults to every node.  Arguments are checked and the
    state's memory (``state_memory_bytes``) is estimated before anything is allocated.  A routed head keeps its
    candidates' output VCs and its routing's random word; its granted candidate's header state comes from the
    routing kernel called again (:func:`torus_lab.sim.buffers.granted_state`).  ``stored_states`` keeps every
    candidate's header state too (``cand_st``, ``STATE_SIZE`` words per candidate: most of the state), which
    the grant then copies: the same run, kept for the tests that compare the two.

    >>> st = new_state(Torus(2, 4), 2, 8, 16, 1, depth=4, length=4, atomic=True)
    >>> st.count.shape, int(st.cfg[CFG["num_nodes"]])
    ((144,), 16)
    """
    from torus_lab._memory import check_memory, network_size  # refuse before allocating

    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vcs, queue_cap, rec_cap, depth, length = (
        check_int(name, value, minimum=1)
        for name, value in (("vcs", vcs), ("queue_cap", queue_cap), ("rec_cap", rec_cap), ("depth", depth),
                            ("length", length))
    )  # fmt: skip
    seed_word = check_int("seed_word", seed_word, minimum=0, maximum=2**64 - 1)
    check_instance("atomic", atomic, (bool, np.bool_), "a bool")
    check_instance("stored_states", stored_states, (bool, np.bool_), "a bool")
    if active is not None:
        active = check_int_array("active", active, 0, topology.num_nodes - 1, ndim=1)
    nch, nn = topology.num_channels, topology.num_nodes
    niv = nch * vcs + nn
    npk = packet_pool_size(nn, niv, queue_cap) if pool is None else check_int("pool", pool, minimum=1,
                                                                              maximum=WORD_LIMIT)  # fmt: skip
    check_memory(state_memory_bytes(topology, vcs, max(depth, length), queue_cap, rec_cap, npk,
                                    stored_states=stored_states),
                 f"simulator state ({vcs} VCs, buffer {max(depth, length)} flits) on {network_size(topology)}")
    ports = nch + nn
    cap = max(depth, length)
    kmax = candidate_capacity(topology, vcs)

    def zeros(*shape):
        return np.zeros(shape, dtype=np.int64)

    def full(value, *shape):
        return np.full(shape, value, dtype=np.int64)

    def narrow(*shape):  # 32-bit: the FIFO slots' packet ids, flit indices and arrival cycles (WORD_LIMIT)
        return np.zeros(shape, dtype=np.int32)

    cfg = zeros(len(CFG))
    for name, value in dict(vcs=vcs, depth=depth, length=length, queue_cap=queue_cap, atomic=int(atomic),
                            num_channels=nch, num_nodes=nn).items():  # fmt: skip
        cfg[CFG[name]] = value
    ivc_node = np.concatenate([np.repeat(np.asarray(topology.channel_dst), vcs), np.arange(nn)]).astype(np.int64)
    return SimpleState(
        cfg=cfg, fcfg=np.zeros(4), burst_on=np.zeros(nn, dtype=np.uint8),
        active=np.arange(nn, dtype=np.int64) if active is None else np.asarray(active, dtype=np.int64).copy(),
        dest_map=full(-1, nn), ivc_node=ivc_node, rng=np.array([seed_word], dtype=np.uint64), counters=zeros(len(CNT)),
        count=zeros(niv), fhead=zeros(niv), fpk=narrow(niv, cap), fidx=narrow(niv, cap), farr=narrow(niv, cap),
        writer=full(-1, niv), routed=zeros(niv), ncand=zeros(niv), cand_ivc=zeros(niv, kmax),
        cand_st=zeros(niv if stored_states else 0, kmax, STATE_SIZE), cand_rand=zeros(niv), out_ivc=full(-1, niv),
        waitc=zeros(niv),
        occupied=np.zeros((niv + 63) // 64, dtype=np.uint64), live=zeros(niv), nlive=zeros(1),
        rr_in=zeros(ports), rr_out=zeros(ports), rr_va=zeros(niv),
        tmp_ch=zeros(MAX_CANDIDATES), tmp_vc=zeros(MAX_CANDIDATES), tmp_st=zeros(MAX_CANDIDATES, STATE_SIZE),
        va_mark=full(-1, niv), va_best=zeros(niv), va_bestd=zeros(niv), req_iv=zeros(niv), req_tgt=zeros(niv),
        req_c=zeros(niv), nreq=zeros(1),
        sa_mark=full(-1, ports), sa_best=zeros(ports), sa_bestd=zeros(ports), port_iv=full(-1, ports),
        port_out=zeros(ports), req_ports=zeros(ports), nports_req=zeros(1), grants=zeros(ports), ngrants=zeros(1),
        pk_src=zeros(npk), pk_dst=zeros(npk), pk_gen=zeros(npk), pk_inj=zeros(npk), pk_hops=zeros(npk),
        pk_meas=zeros(npk), pk_state=zeros(npk, STATE_SIZE), free_stack=np.arange(npk, dtype=np.int64)[::-1].copy(),
        free_top=np.array([npk], dtype=np.int64),
        q_buf=np.zeros((nn, queue_cap), dtype=np.int32), q_head=zeros(nn), q_len=zeros(nn), inj_free=full(-(10**9), nn),
        rec=zeros(rec_cap, 7), rec_count=zeros(1), ch_flits=zeros(nch),
    )  # fmt: skip


@njit(inline="always", hoist_fields=True)
def list_occupied(st):
    """Write the input VCs that hold flits, in ascending order, to ``st.live[:st.nlive[0]]``; return their number.

    Reads the ``occupied`` bitmap word by word (empty words cost one test), so a cycle costs the number of
    busy VCs, not of all VCs.
    """
    occupied, live = st.occupied, st.live
    n = 0
    for k in range(occupied.shape[0]):
        word = occupied[k]
        while word != 0:
            live[n] = k * 64 + np.int64(trailing_zeros(word))
            n += 1
            word &= word - np.uint64(1)
    st.nlive[0] = n
    return n


@njit(inline="always", hoist_fields=True)
def _head_ready(fidx, farr, h, iv, now, router_delay):
    """Whether the front flit (slot ``h``) of a non-empty input VC ``iv`` is a head past its router delay."""
    return fidx[iv, h] == 0 and now >= farr[iv, h] + router_delay


# ---------------------------------------------------------------------------------------------------- stages
# Each stage binds the arrays it uses to local names first: with reference counting (a stage called alone),
# reading an array through the state tuple inside a loop costs a count update per access.


@njit(inline="always", hoist_fields=True)
def generate_packets(st, now):
    """Generation (step 1): until ``gen_end``, each active node may create a packet into its source queue
    (:func:`torus_lab.sim.packets.generate`; measured when created in ``[warmup, measure_end)``)."""
    cfg = st.cfg
    if now >= cfg[_GEN_END]:
        return
    measuring = cfg[_WARMUP] <= now < cfg[_MEASURE_END]
    generate(st, now, measuring, cfg[_INJECTION], cfg[_PATTERN], cfg[_HOTSPOT_NODE], cfg[_INCLUDE_SELF] != 0,
             cfg[_QUEUE_CAP])


@njit(inline="always", hoist_fields=True)
def inject_packets(st, now):
    """Injection (step 2): a node whose injection buffer is empty moves the front packet of its source queue
    into it, all flits at once, each arriving at ``max(creation, cycle the previous tail left)``.  Returns the
    number of packets injected."""
    cfg = st.cfg
    length, qcap = cfg[_LENGTH], cfg[_QUEUE_CAP]
    cv = cfg[_NUM_CHANNELS] * cfg[_VCS]
    active, count, q_len, fpk, fidx, farr = st.active, st.count, st.q_len, st.fpk, st.fidx, st.farr
    injected = 0
    for a in range(active.shape[0]):
        node = active[a]
        iv = cv + node
        if count[iv] != 0 or q_len[node] == 0:
            continue
        p = dequeue(st, node, qcap)
        arrival = max(st.pk_gen[p], st.inj_free[node])
        st.fhead[iv] = 0
        for f in range(length):
            fpk[iv, f] = p
            fidx[iv, f] = f
            farr[iv, f] = arrival
        count[iv] = length
        mark_occupied(st.occupied, iv)
        injected += 1
    return injected


@njit(inline="always", hoist_fields=True)
def route_heads(route, tables, st, now):
    """Routing (step 3): a head ready at the front of an input VC (``router_delay`` after it arrived) is routed
    once: to the ejection port at its destination, to DROP past ``hop_limit`` hops, else to the candidates of
    the routing kernel ``route`` (``tables``: its tables).  Invalid candidates count ``routing_error`` and leave
    none; of more candidates than a row holds (:func:`torus_lab.sim.buffers.candidate_capacity`), repeats are
    left out; the random word of the call is kept (``cand_rand``) for the grant.  Visits ``st.live``
    (:func:`list_occupied`); returns the number of heads routed."""
    cfg = st.cfg
    vcs, nch, hop_limit, rdelay = cfg[_VCS], cfg[_NUM_CHANNELS], cfg[_HOP_LIMIT], cfg[_ROUTER_DELAY]
    cv = nch * vcs
    vc_shift = vc_split_shift(vcs)
    live, routed_vc, fhead, fpk, fidx, farr = st.live, st.routed, st.fhead, st.fpk, st.fidx, st.farr
    ncand, out_ivc, pk_dst, cand_ivc = st.ncand, st.out_ivc, st.pk_dst, st.cand_ivc
    tmp_ch, tmp_vc, tmp_st = st.tmp_ch, st.tmp_vc, st.tmp_st
    ivc_node, waitc, pk_hops, pk_state, cand_st, counters = st.ivc_node, st.waitc, st.pk_hops, st.pk_state, \
        st.cand_st, st.counters  # fmt: skip
    cand_rand = st.cand_rand
    stored = cand_st.shape[0] > 0
    routed = 0
    for i in range(st.nlive[0]):
        iv = live[i]
        if routed_vc[iv] != 0:
            continue
        h = fhead[iv]
        if not _head_ready(fidx, farr, h, iv, now, rdelay):
            continue
        p = fpk[iv, h]
        node = ivc_node[iv]
        routed += 1
        routed_vc[iv] = 1
        ncand[iv] = 0
        out_ivc[iv] = -1
        waitc[iv] = 0
        if node == pk_dst[p]:
            out_ivc[iv] = EJECT
            continue
        if hop_limit > 0 and pk_hops[p] >= hop_limit:
            out_ivc[iv] = DROP
            counters[CN_HOP_LIMIT_DROPS] += 1
            continue
        in_ch, in_vc = split_vc(iv, vcs, vc_shift) if iv < cv else (-1, 0)
        r = np.int64(splitmix_next(st.rng) >> np.uint64(2))
        cand_rand[iv] = r
        m = route(tables, node, pk_dst[p], in_ch, in_vc, pk_state[p], r, tmp_ch, tmp_vc, tmp_st)
        if m < 0 or m > MAX_CANDIDATES:
            counters[CN_ROUTING_ERROR] += 1
            m = 0
        repeats = m > cand_ivc.shape[1]  # more than the router's distinct outputs: keep the first of each
        kept = 0
        for c in range(m):
            ch = tmp_ch[c]
            bad_channel = ch < 0 or ch >= nch or tables.ch_src[ch] != node or tables.ch_ok[ch] == 0
            if bad_channel or tmp_vc[c] < 0 or tmp_vc[c] >= vcs:
                counters[CN_ROUTING_ERROR] += 1
                kept = 0
                break
            tgt = ch * vcs + tmp_vc[c]
            if repeats and repeats_stored(cand_ivc, iv, kept, tgt):
                continue
            cand_ivc[iv, kept] = tgt
            if stored:
                for w in range(STATE_SIZE):  # word by word: a fixed-size loop, no array views
                    cand_st[iv, kept, w] = tmp_st[c, w]
            kept += 1
        ncand[iv] = kept
    return routed


@njit(inline="always", hoist_fields=True)
def allocate_vcs(route, tables, st, now):
    """VC allocation (step 4): each routed, unallocated head requests its first candidate VC that is idle (no
    writer; under atomic allocation also empty); each requested VC grants the requester first after its
    round-robin pointer (input VC order), which takes the VC and the candidate's routing state (from the routing
    kernel ``route`` called again, :func:`torus_lab.sim.buffers.granted_state`).  A head with
    no candidate waits, and is sent to DROP after ``drop_after`` cycles (if >= 0).  Returns the grants.  The
    request is :func:`torus_lab.sim.allocators.first_idle_candidate`, each VC's arbiter
    :func:`torus_lab.sim.allocators.arbiter_request`."""
    cfg = st.cfg
    atomic, drop_after, rdelay = cfg[_ATOMIC] != 0, cfg[_DROP_AFTER], cfg[_ROUTER_DELAY]
    live, fhead, fidx, farr, out_ivc, ncand, cand_ivc = st.live, st.fhead, st.fidx, st.farr, st.out_ivc, st.ncand, \
        st.cand_ivc  # fmt: skip
    writer, count, rr_va, va_mark, va_best, va_bestd = st.writer, st.count, st.rr_va, st.va_mark, st.va_best, \
        st.va_bestd  # fmt: skip
    req_iv, req_tgt, req_c, waitc = st.req_iv, st.req_tgt, st.req_c, st.waitc
    niv = count.shape[0]
    nreq = 0
    for i in range(st.nlive[0]):
        iv = live[i]
        if out_ivc[iv] != -1 or not _head_ready(fidx, farr, fhead[iv], iv, now, rdelay):
            continue
        if ncand[iv] == 0:
            waitc[iv] += 1
            if drop_after >= 0 and waitc[iv] > drop_after:
                out_ivc[iv] = DROP
            continue
        c = first_idle_candidate(cand_ivc, ncand, writer, count, atomic, iv)
        if c < 0:
            continue
        tgt = cand_ivc[iv, c]
        arbiter_request(va_mark, va_best, va_bestd, tgt, iv, iv, rr_va[tgt] + 1, niv, now)  # first after the last
        req_iv[nreq] = iv
        req_tgt[nreq] = tgt
        req_c[nreq] = c
        nreq += 1
    st.nreq[0] = nreq
    granted = 0
    vcs = cfg[_VCS]
    cv = cfg[_NUM_CHANNELS] * vcs
    vc_shift = vc_split_shift(vcs)
    for r in range(nreq):
        iv = req_iv[r]
        tgt = req_tgt[r]
        if va_best[tgt] != iv:
            continue
        p = st.fpk[iv, fhead[iv]]
        out_ivc[iv] = tgt
        writer[tgt] = p
        rr_va[tgt] = iv
        if st.cand_st.shape[0] > 0:
            for w in range(STATE_SIZE):
                st.pk_state[p, w] = st.cand_st[iv, req_c[r], w]
        else:
            in_ch, in_vc = split_vc(iv, vcs, vc_shift) if iv < cv else (-1, 0)
            granted_state(route, tables, st.ivc_node[iv], st.pk_dst[p], in_ch, in_vc, st.pk_state[p], st.cand_rand[iv],
                          tgt, req_c[r], cand_ivc.shape[1], vcs, st.tmp_ch, st.tmp_vc, st.tmp_st)  # fmt: skip
        granted += 1
    return granted


@njit(inline="always", hoist_fields=True)
def allocate_switch(st, now):
    """Switch allocation (step 5, separable, input first): each input port offers its first VC after its
    round-robin pointer that has a flit, an output (VC, EJECT or DROP) and, for a VC, a free slot downstream
    (counted at the start of the cycle); each output channel and ejection port grants the offering port first
    after its pointer (DROP needs no grant).  Granted input VCs go to ``st.grants[:st.ngrants[0]]`` in port
    order, and both pointers move to the winners; returns their number.  The input arbiter is
    :func:`torus_lab.sim.allocators.first_ready_vc`, each output's :func:`torus_lab.sim.allocators.arbiter_request`.
    """
    cfg = st.cfg
    vcs, depth, nch = cfg[_VCS], cfg[_DEPTH], cfg[_NUM_CHANNELS]
    cv = nch * vcs
    live, count, routed, out_ivc, ivc_node = st.live, st.count, st.routed, st.out_ivc, st.ivc_node
    rr_in, rr_out, sa_mark, sa_best, sa_bestd = st.rr_in, st.rr_out, st.sa_mark, st.sa_best, st.sa_bestd
    port_iv, port_out, req_ports, grants = st.port_iv, st.port_out, st.req_ports, st.grants
    nports = rr_in.shape[0]
    vc_shift = vc_split_shift(vcs)
    nports_req = 0
    last_port = -1
    for i in range(st.nlive[0]):  # each port holding flits once, in ascending order
        ip = split_vc(live[i], vcs, vc_shift)[0] if live[i] < cv else nch + (live[i] - cv)
        if ip == last_port:
            continue
        last_port = ip
        base, nv = (ip * vcs, vcs) if ip < nch else (cv + (ip - nch), 1)
        chosen = first_ready_vc(base, nv, rr_in[ip], count, routed, out_ivc, depth)
        if chosen < 0:
            continue
        o = out_ivc[chosen]
        outp = -1 if o == DROP else (nch + ivc_node[chosen] if o == EJECT else split_vc(o, vcs, vc_shift)[0])
        port_iv[ip] = chosen
        port_out[ip] = outp
        req_ports[nports_req] = ip
        nports_req += 1
        if outp >= 0:
            arbiter_request(sa_mark, sa_best, sa_bestd, outp, ip, ip, rr_out[outp] + 1, nports, now)
    st.nports_req[0] = nports_req
    ngrants = 0
    for r in range(nports_req):
        ip = req_ports[r]
        outp = port_out[ip]
        if outp >= 0 and sa_best[outp] != ip:
            continue
        iv = port_iv[ip]
        grants[ngrants] = iv
        ngrants += 1
        if outp >= 0:
            rr_out[outp] = ip
        rr_in[ip] = iv - (ip * vcs if ip < nch else cv + (ip - nch))
    st.ngrants[0] = ngrants
    return ngrants


@njit(inline="always", hoist_fields=True)
def traverse(st, now):
    """Traversal (step 6): each granted input VC sends its front flit to its output VC (arriving ``now``), the
    ejection port or DROP.  A tail leaving a buffer frees the output VC's writer slot downstream and resets the
    input VC for its next packet; a finished packet is counted and recorded (:func:`torus_lab.sim.packets.finish`).
    Returns the number of flits moved."""
    cfg = st.cfg
    vcs, length = cfg[_VCS], cfg[_LENGTH]
    cv = cfg[_NUM_CHANNELS] * vcs
    measuring = cfg[_WARMUP] <= now < cfg[_MEASURE_END]
    grants, count, fhead, fpk, fidx, farr, out_ivc = st.grants, st.count, st.fhead, st.fpk, st.fidx, st.farr, \
        st.out_ivc  # fmt: skip
    counters, occupied, writer, pk_hops, ch_flits = st.counters, st.occupied, st.writer, st.pk_hops, st.ch_flits
    routed, ncand, waitc = st.routed, st.ncand, st.waitc
    fcap = fpk.shape[1]
    vc_shift = vc_split_shift(vcs)
    for g in range(st.ngrants[0]):
        iv = grants[g]
        p, fi = pop_flit(fhead, fpk, fidx, count, occupied, iv)
        o = out_ivc[iv]
        tail = fi == length - 1
        if iv >= cv:
            counters[CN_FLITS_INJECTED] += 1
            if fi == 0:
                st.pk_inj[p] = now
        if o >= 0:
            slot = wrap(fhead[o] + count[o], fcap)
            fpk[o, slot] = p
            fidx[o, slot] = fi
            farr[o, slot] = now
            if count[o] == 0:
                mark_occupied(occupied, o)
            count[o] += 1
            if fi == 0:
                pk_hops[p] += 1
            if tail:
                writer[o] = -1
            if measuring:
                ch_flits[split_vc(o, vcs, vc_shift)[0]] += 1
        elif o == EJECT:
            counters[CN_FLITS_EJECTED] += 1
            if measuring:
                counters[CN_WINDOW_FLITS_EJECTED] += 1
            if tail:
                finish(st, p, now, False)
        else:
            counters[CN_FLITS_DROPPED] += 1
            if tail:
                finish(st, p, now, True)
        if tail:  # the packet's tail left: the next packet in this buffer (if any) is routed afresh
            routed[iv] = 0
            ncand[iv] = 0
            out_ivc[iv] = -1
            waitc[iv] = 0
            if iv >= cv:
                st.inj_free[iv - cv] = now
    return st.ngrants[0]


@njit(refcount=False, hoist_fields=True)
def run_kernel(route, tables, st, max_cycles, reserve):
    """The cycle loop: advance the run by up to ``max_cycles`` cycles, the stages in the order of the model.

    ``route`` is the routing kernel (compiled first-class function, see
    :func:`torus_lab.routing.interface.compile_for_kernel`), ``tables`` its routing function's tables, ``st``
    a :class:`SimpleState`.  Returns :data:`torus_lab.sim.packets.LOOP_OVER` if the run is finished (drained,
    drain cap reached, or deadlock), :data:`~torus_lab.sim.packets.LOOP_POOL` if it stopped at the start of a
    cycle because fewer than ``reserve`` packet ids were free (0: never), else
    :data:`~torus_lab.sim.packets.LOOP_RAN`.  Compiled without reference counting (``njit(refcount=False)``): no
    count updates on the state's arrays at each stage call and each array read.
    """
    cfg = st.cfg
    for _ in range(max_cycles):
        now = st.counters[CN_NOW]
        if run_over(st, now, cfg[_MEASURE_END], cfg[_DRAIN]):
            return LOOP_OVER
        if st.free_top[0] < reserve:
            return LOOP_POOL
        generate_packets(st, now)
        inject_packets(st, now)
        list_occupied(st)
        route_heads(route, tables, st, now)
        allocate_vcs(route, tables, st, now)
        allocate_switch(st, now)
        moved = traverse(st, now)
        watch_progress(st, moved, cfg[_DEADLOCK_CYCLES])
        st.counters[CN_NOW] = now + 1
    return LOOP_RAN
