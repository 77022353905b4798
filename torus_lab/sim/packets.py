"""What both router models share: the run counters, packet generation into source queues, finishing a packet,
the progress (deadlock) watch and the end-of-run test.

The simple model (:mod:`torus_lab.sim.simple`) and the BookSim-compatible model (:mod:`torus_lab.sim.booksim`)
keep their state in different structures, but both hold the same packet pool and source queues under the same
names, so the functions here take either state (``st``; numba compiles them once per state type):

* packet pool: ``pk_src``, ``pk_dst``, ``pk_gen`` (creation cycle), ``pk_inj`` (cycle the head entered the
  network, -1 before), ``pk_hops``, ``pk_meas`` (1: created in the measurement window), ``pk_state`` (routing
  state, ``STATE_SIZE`` words), and the stack of free packet ids ``free_stack[:free_top[0]]``;
* source queues: ``q_buf`` (one ring per node, of ``q_buf.shape[1]`` slots: at most ``queue_cap``, the queue's
  capacity; the engine widens the rings as queues grow, :func:`grow_queues`), ``q_head``, ``q_len``;
* traffic: ``active`` (non-faulty nodes), ``dest_map``, ``burst_on``, ``fcfg`` (``starts_packet``'s rates, then
  the hotspot fraction), ``rng`` (the run's SplitMix64 word);
* results: ``counters`` (indexed by :data:`CNT`), ``rec`` / ``rec_count`` (one row per finished measured packet:
  src, dst, gen, inject, done, hops, dropped).

Where the two models differ (injection, routing, allocation, traversal) each has its own stages.  The functions
are compiled with ``inline="always"`` (see :mod:`torus_lab.sim.booksim` for why) and can be called from Python
or from any ``@njit`` function.

Examples
--------
>>> sorted(CNT)[:3], CNT["now"]
(['deadlock', 'flits_dropped', 'flits_ejected'], 0)
"""

from __future__ import annotations

import numpy as np

from torus_lab._jit import njit
from torus_lab._validate import check_int
from torus_lab.sim.rng import GAMMA, splitmix_mix, unit_float
from torus_lab.sim.traffic import draw_destination, starts_packet

__all__ = ["CNT", "COUNTER_WORDS", "WORD_LIMIT", "POOL_FIELDS", "POOL_HEADROOM", "packet_pool_size",
           "initial_pool_size", "grow_pool", "grow_queues", "generate", "dequeue", "finish", "watch_progress",
           "run_over", "LOOP_RAN", "LOOP_OVER", "LOOP_POOL"]

#: The run counters of a state's ``counters`` array, in word order (the same in both router models): the one list
#: their indices come from (:data:`CNT` and the constants the compiled functions read are both derived from it).
#: ``packets_delivered`` and ``latency_sum`` count every packet delivered (any phase) and the sum of their
#: latencies: what the run-length controller samples.
COUNTER_WORDS = (
    "now", "flits_injected", "flits_ejected", "flits_dropped", "measured_generated", "measured_done",
    "window_flits_ejected", "deadlock", "idle", "queue_overflow", "packets_generated", "measured_lost",
    "record_overflow", "packets_dropped", "routing_error", "hop_limit_drops", "packets_delivered",
    "latency_sum",
)
#: Index of each run counter in a state's ``counters`` array.
CNT = {name: index for index, name in enumerate(COUNTER_WORDS)}
# The indices the compiled functions of both router models read (numba freezes module globals as constants):
# ``CN_`` + the counter in capitals.
CN_NOW = CNT["now"]
CN_FLITS_INJECTED = CNT["flits_injected"]
CN_FLITS_EJECTED = CNT["flits_ejected"]
CN_FLITS_DROPPED = CNT["flits_dropped"]
CN_MEASURED_GENERATED = CNT["measured_generated"]
CN_MEASURED_DONE = CNT["measured_done"]
CN_WINDOW_FLITS_EJECTED = CNT["window_flits_ejected"]
CN_DEADLOCK = CNT["deadlock"]
CN_IDLE = CNT["idle"]
CN_QUEUE_OVERFLOW = CNT["queue_overflow"]
CN_PACKETS_GENERATED = CNT["packets_generated"]
CN_MEASURED_LOST = CNT["measured_lost"]
CN_RECORD_OVERFLOW = CNT["record_overflow"]
CN_PACKETS_DROPPED = CNT["packets_dropped"]
CN_ROUTING_ERROR = CNT["routing_error"]
CN_HOP_LIMIT_DROPS = CNT["hop_limit_drops"]
CN_PACKETS_DELIVERED = CNT["packets_delivered"]
CN_LATENCY_SUM = CNT["latency_sum"]
#: Both router models keep cycle numbers and packet ids in 32-bit words (the FIFOs' slots, the BookSim model's
#: timers), so the arrays a flit's move reads take half the cache.  A run that could reach a cycle, or a packet
#: pool that would number a packet, past this is refused before any work
#: (:func:`torus_lab.sim.runlength.check_run_bounds`).  The 64-bit counters then cannot overflow either: the
#: largest, ``latency_sum``, grows by at most the pool size per cycle, below ``WORD_LIMIT ** 2 < 2 ** 63``.
WORD_LIMIT = 2**31 - 1


def packet_pool_size(num_nodes: int, input_vcs: int, queue_cap: int) -> int:
    """Packet ids a run's pool holds: a full source queue of ``queue_cap`` packets per node, one packet per input
    VC of the network (``input_vcs``, every VC a packet can sit in besides a queue) and 16 spare, so the pool
    never runs dry before a queue overflows.

    Examples
    --------
    >>> packet_pool_size(16, 144, 512)
    8352
    """
    num_nodes = check_int("num_nodes", num_nodes, minimum=1)
    input_vcs = check_int("input_vcs", input_vcs, minimum=0)
    queue_cap = check_int("queue_cap", queue_cap, minimum=1)
    return num_nodes * queue_cap + input_vcs + 16


#: The packet pool's fields with one row per packet id (besides the stack of free ids, ``free_stack``).
POOL_FIELDS = ("pk_src", "pk_dst", "pk_gen", "pk_inj", "pk_hops", "pk_meas", "pk_state")
#: Cycles of generation (one packet per node per cycle at most) a run's first pool holds, at most; the engine
#: grows the pool as packets stay alive (:func:`grow_pool`), up to :func:`packet_pool_size`, so the pool follows
#: the packets a run keeps alive, not its source queues' capacity nor its number of input VCs.
POOL_HEADROOM = 8


def initial_pool_size(num_nodes: int, input_vcs: int, queue_cap: int, headroom: int = POOL_HEADROOM) -> int:
    """The pool a run starts with: ``headroom`` cycles of generation (the cycles one call of the compiled loop
    runs, at most :data:`POOL_HEADROOM`) and 16 spare, at most :func:`packet_pool_size`.

    Examples
    --------
    >>> initial_pool_size(16, 144, 512), initial_pool_size(16, 144, 512, headroom=1), initial_pool_size(16, 0, 1)
    (144, 32, 32)
    """
    full = packet_pool_size(num_nodes, input_vcs, queue_cap)
    headroom = check_int("headroom", headroom, minimum=1)
    return min(full, num_nodes * headroom + 16)


def grow_pool(st, size: int):
    """State ``st`` (either model's NamedTuple) with a packet pool of ``size`` ids: the new ids go to the bottom of
    the free stack, so the stack is the one a pool of ``size`` ids would have had from the start (ids are taken
    from the top), and a run whose pool grows in time takes the same ids, and so makes the same moves, as a
    run with the larger pool.  The pool's arrays are copied (the old state must not be used after); the other
    arrays are shared.

    Examples
    --------
    >>> from collections import namedtuple
    >>> S = namedtuple("S", [*POOL_FIELDS, "free_stack", "free_top"])
    >>> st = S(*(np.zeros(3, np.int64) for _ in POOL_FIELDS[:-1]), np.zeros((3, 2), np.int64),
    ...        np.array([2, 1, 0]), np.array([2]))   # ids 2 and 1 free, id 0 taken
    >>> big = grow_pool(st, 5)
    >>> big.free_stack[: big.free_top[0]].tolist(), big.pk_state.shape
    ([4, 3, 2, 1], (5, 2))
    """
    if not (isinstance(st, tuple) and all(name in getattr(st, "_fields", ()) for name in
                                          (*POOL_FIELDS, "free_stack", "free_top"))):  # fmt: skip
        raise TypeError(f"st must be a simulator state (a NamedTuple holding a packet pool), got {type(st).__name__}")
    pool = int(st.free_stack.shape[0])
    size = check_int("size", size, minimum=pool, maximum=WORD_LIMIT)
    extra = size - pool
    if extra == 0:
        return st
    from torus_lab._memory import check_memory  # refuse before allocating

    per_id = sum(getattr(st, name)[:1].nbytes for name in POOL_FIELDS) + st.free_stack.itemsize
    check_memory(per_id * size, f"a packet pool of {size} ids")
    fields = {}
    for name in POOL_FIELDS:
        old = getattr(st, name)
        new = np.zeros((size, *old.shape[1:]), dtype=old.dtype)
        new[:pool] = old
        fields[name] = new
    top = int(st.free_top[0])
    stack = np.zeros(size, dtype=st.free_stack.dtype)
    stack[:extra] = np.arange(size - 1, pool - 1, -1)
    stack[extra : extra + top] = st.free_stack[:top]
    fields["free_stack"] = stack
    fields["free_top"] = np.array([top + extra], dtype=st.free_top.dtype)
    return st._replace(**fields)


def grow_queues(st, width: int):
    """State ``st`` (either model's NamedTuple) with source-queue rings of ``width`` slots: each queue's packets are
    copied in order to the front of its new ring (``q_head`` becomes 0).  A ring narrower than the queue's capacity
    (``queue_cap``, which alone decides overflows) holds the run's packets as long as no queue outgrows it, which
    the engine ensures by widening the rings before a call of the compiled loop could fill one (a queue gains at
    most one packet per cycle), so the run is the run with full-width rings.  The old state must not be used after.

    Examples
    --------
    >>> from collections import namedtuple
    >>> S = namedtuple("S", ["q_buf", "q_head", "q_len"])
    >>> st = S(np.array([[7, 5], [0, 0]], np.int32), np.array([1, 0]), np.array([2, 0]))   # node 0 holds 5, 7
    >>> wide = grow_queues(st, 4)
    >>> wide.q_buf.tolist(), wide.q_head.tolist()
    ([[5, 7, 0, 0], [0, 0, 0, 0]], [0, 0])
    """
    if not (isinstance(st, tuple) and all(name in getattr(st, "_fields", ()) for name in ("q_buf", "q_head",
                                                                                          "q_len"))):  # fmt: skip
        raise TypeError(f"st must be a simulator state (a NamedTuple holding source queues), got {type(st).__name__}")
    nodes, old = st.q_buf.shape
    width = check_int("width", width, minimum=old, maximum=WORD_LIMIT)
    if width == old:
        return st
    from torus_lab._memory import check_memory  # refuse before allocating

    check_memory(nodes * width * st.q_buf.itemsize, f"source queues of {width} slots")
    rings = np.zeros((nodes, width), dtype=st.q_buf.dtype)
    for start in range(0, nodes, 1 << 16):  # a block of rings at a time: no (nodes, width) index table
        block = slice(start, start + (1 << 16))
        slots = (st.q_head[block, None] + np.arange(old)[None, :]) % old  # each ring read from its head on
        rings[block, :old] = np.take_along_axis(st.q_buf[block], slots, axis=1)
    return st._replace(q_buf=rings, q_head=np.zeros_like(st.q_head))


#: What a call of either model's compiled cycle loop returns: it ran every cycle asked for; the run is over
#: (:func:`run_over`); it stopped at the start of a cycle because fewer packet ids were free than a cycle may take
#: (one per generating node), so that the engine can grow the pool (:func:`grow_pool`) before the pool could run dry.
LOOP_RAN, LOOP_OVER, LOOP_POOL = 0, 1, 2

#: index of the hotspot fraction in a state's ``fcfg`` (after the three rates of ``starts_packet``)
HOT_FRAC = 3


@njit(inline="always")
def generate(st, now, measuring, injection, pattern, hotspot, include_self, queue_cap):
    """Generation: each active node may create a packet, which joins the node's source queue.

    The node starts a packet by the injection process ``injection`` (:func:`torus_lab.sim.traffic.starts_packet`:
    Bernoulli with probability ``offered / length``, or on-off) and draws its destination by ``pattern``
    (:func:`torus_lab.sim.traffic.draw_destination`; ``hotspot``, ``include_self``).  The packet is created
    with time ``now`` and marked measured when ``measuring``; a full queue (``queue_cap`` packets) or an empty
    packet pool counts an overflow (and a lost measured packet) instead.
    """
    # local names: with reference counting (a stage called alone), each read through the state tuple costs one
    active, fcfg, burst_on, rng, dest_map, counters = st.active, st.fcfg, st.burst_on, st.rng, st.dest_map, st.counters
    hot_frac = fcfg[HOT_FRAC]
    # Bernoulli (``starts_packet``'s draw, inlined): the stream's word stays in a local variable between the
    # draws, stored back before a destination is drawn (the same stream, one store per packet, not per node)
    bernoulli, start_prob, word = injection == 0, fcfg[0], rng[0]
    for a in range(active.shape[0]):
        node = active[a]
        if bernoulli:
            word += GAMMA
            if not unit_float(splitmix_mix(word)) < start_prob:
                continue
            rng[0] = word
        elif not starts_packet(injection, fcfg, burst_on, node, rng):
            continue
        dst = draw_destination(pattern, node, active, dest_map, hotspot, hot_frac, include_self, rng)
        word = rng[0]
        if dst < 0:
            continue
        counters[CN_PACKETS_GENERATED] += 1
        if st.q_len[node] >= queue_cap or st.free_top[0] == 0:
            counters[CN_QUEUE_OVERFLOW] += 1
            if measuring:
                counters[CN_MEASURED_LOST] += 1
            continue
        st.free_top[0] -= 1
        p = st.free_stack[st.free_top[0]]
        st.pk_src[p] = node
        st.pk_dst[p] = dst
        st.pk_gen[p] = now
        st.pk_inj[p] = -1
        st.pk_hops[p] = 0
        st.pk_meas[p] = 1 if measuring else 0
        for w in range(st.pk_state.shape[1]):  # word by word: cheaper than a slice assignment in the loop
            st.pk_state[p, w] = 0
        if measuring:
            counters[CN_MEASURED_GENERATED] += 1
        st.q_buf[node, (st.q_head[node] + st.q_len[node]) % st.q_buf.shape[1]] = p
        st.q_len[node] += 1
    if bernoulli:
        rng[0] = word


@njit(inline="always")
def dequeue(st, node, queue_cap):
    """Take the front packet out of ``node``'s (non-empty) source queue and return its id (the ring is ``q_buf``'s
    row, of at most ``queue_cap`` slots: :func:`grow_queues`)."""
    p = st.q_buf[node, st.q_head[node]]
    st.q_head[node] = (st.q_head[node] + 1) % st.q_buf.shape[1]
    st.q_len[node] -= 1
    return p


@njit(inline="always")
def finish(st, p, done, dropped):
    """Packet ``p``'s tail left the network in cycle ``done`` (ejected, or ``dropped``): count it, record it if
    measured (a full record table counts ``record_overflow``) and return its id to the pool."""
    if dropped:
        st.counters[CN_PACKETS_DROPPED] += 1
    else:
        st.counters[CN_PACKETS_DELIVERED] += 1
        st.counters[CN_LATENCY_SUM] += done - st.pk_gen[p]
    if st.pk_meas[p] != 0:
        st.counters[CN_MEASURED_DONE] += 1
        k = st.rec_count[0]
        if k < st.rec.shape[0]:
            st.rec[k, 0] = st.pk_src[p]
            st.rec[k, 1] = st.pk_dst[p]
            st.rec[k, 2] = st.pk_gen[p]
            st.rec[k, 3] = st.pk_inj[p]
            st.rec[k, 4] = done
            st.rec[k, 5] = st.pk_hops[p]
            st.rec[k, 6] = 1 if dropped else 0
            st.rec_count[0] = k + 1
        else:
            st.counters[CN_RECORD_OVERFLOW] += 1
    st.free_stack[st.free_top[0]] = p
    st.free_top[0] += 1


@njit(inline="always")
def watch_progress(st, moved, deadlock_cycles):
    """Deadlock watch: flits in the network (injected, not ejected or dropped) and none ``moved`` for
    ``deadlock_cycles`` consecutive cycles sets the ``deadlock`` counter; a cycle that moves one resets it."""
    c = st.counters
    in_net = c[CN_FLITS_INJECTED] - c[CN_FLITS_EJECTED] - c[CN_FLITS_DROPPED]
    if moved == 0 and in_net > 0:
        c[CN_IDLE] += 1
        if c[CN_IDLE] >= deadlock_cycles:
            c[CN_DEADLOCK] = 1
    else:
        c[CN_IDLE] = 0


@njit(inline="always")
def run_over(st, now, measure_end, drain):
    """Whether the run is over at the start of cycle ``now``: deadlocked, or past the measurement window with
    every measured packet finished or ``drain`` cycles spent draining."""
    c = st.counters
    if c[CN_DEADLOCK] != 0:
        return True
    if now >= measure_end:
        if c[CN_MEASURED_DONE] >= c[CN_MEASURED_GENERATED]:
            return True
        if now >= measure_end + drain:
            return True
    return False
