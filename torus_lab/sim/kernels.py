"""Compiled (numba) core of the wormhole simulator: the cycle loop.

All state lives in arrays owned by one run (:class:`torus_lab.sim.engine.SimState`); nothing here is global.

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
"""

from __future__ import annotations

import numpy as np

from torus_lab._jit import njit
from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE
from torus_lab.sim.rng import splitmix_next
from torus_lab.sim.traffic import draw_destination, starts_packet

__all__ = ["run_kernel", "EJECT", "DROP", "CFG", "CNT", "splitmix_next"]

#: ``out_ivc`` codes besides a downstream input-VC index (-1 = not allocated yet).
EJECT = -2
DROP = -3

#: Index of each integer configuration entry in ``cfg``.
CFG = {
    name: i
    for i, name in enumerate(
        [
            "vcs",
            "depth",
            "length",
            "router_delay",
            "warmup",
            "measure",
            "drain",
            "gen_end",
            "deadlock_cycles",
            "drop_after",
            "pattern",
            "hotspot_node",
            "queue_cap",
            "hop_limit",
            "atomic",
            "injection",
            "include_self",
        ]
    )
}
#: Index of each counter in ``counters``.
CNT = {
    name: i
    for i, name in enumerate(
        [
            "now",
            "flits_injected",
            "flits_ejected",
            "flits_dropped",
            "measured_generated",
            "measured_done",
            "window_flits_ejected",
            "deadlock",
            "idle",
            "queue_overflow",
            "packets_generated",
            "measured_lost",
            "record_overflow",
            "packets_dropped",
            "routing_error",
            "hop_limit_drops",
            "packets_delivered",
            "latency_sum",
        ]
    )
}
_CF_VCS = 0
_CF_DEPTH = 1
_CF_LENGTH = 2
_CF_ROUTER_DELAY = 3
_CF_WARMUP = 4
_CF_MEASURE = 5
_CF_DRAIN = 6
_CF_GEN_END = 7
_CF_DEADLOCK_CYCLES = 8
_CF_DROP_AFTER = 9
_CF_PATTERN = 10
_CF_HOTSPOT_NODE = 11
_CF_QUEUE_CAP = 12
_CF_HOP_LIMIT = 13
_CF_ATOMIC = 14
_CF_INJECTION = 15
_CF_INCLUDE_SELF = 16
_CN_NOW = 0
_CN_FLITS_INJECTED = 1
_CN_FLITS_EJECTED = 2
_CN_FLITS_DROPPED = 3
_CN_MEASURED_GENERATED = 4
_CN_MEASURED_DONE = 5
_CN_WINDOW_FLITS_EJECTED = 6
_CN_DEADLOCK = 7
_CN_IDLE = 8
_CN_QUEUE_OVERFLOW = 9
_CN_PACKETS_GENERATED = 10
_CN_MEASURED_LOST = 11
_CN_RECORD_OVERFLOW = 12
_CN_PACKETS_DROPPED = 13
_CN_ROUTING_ERROR = 14
_CN_HOP_LIMIT_DROPS = 15
#: every packet delivered (any phase) and the sum of their latencies: what the run-length controller samples
_CN_PACKETS_DELIVERED = 16
_CN_LATENCY_SUM = 17


@njit
def run_kernel(
    route,
    tables,
    cfg,
    rates,
    hotspot_frac,
    burst_on,
    active,
    dest_map,
    ivc_node,
    rng,
    counters,
    # input-VC state: a FIFO of flits per input VC, plus the routing state of the packet at its front
    count,
    fhead,
    fpk,
    fidx,
    farr,
    writer,
    routed,
    ncand,
    cand_ivc,
    cand_st,
    out_ivc,
    waitc,
    rr_in,
    rr_out,
    rr_va,
    # packets
    pk_src,
    pk_dst,
    pk_gen,
    pk_inj,
    pk_hops,
    pk_meas,
    pk_state,
    free_stack,
    free_top,
    # source queues
    q_buf,
    q_head,
    q_len,
    inj_free,
    # records of measured packets: src, dst, gen, inject, done, hops, dropped
    rec,
    rec_count,
    ch_flits,
    max_cycles,
):
    """Advance the simulation by up to ``max_cycles`` cycles (or until it finishes / deadlocks).

    ``route`` is the routing kernel (compiled first-class function, see
    :func:`torus_lab.routing.interface.compile_for_kernel`); ``tables`` its routing function's tables.

    Returns 1 if the run is finished (drained, drain cap reached, or deadlock), else 0.
    """
    vcs = cfg[_CF_VCS]
    depth = cfg[_CF_DEPTH]
    length = cfg[_CF_LENGTH]
    rdelay = cfg[_CF_ROUTER_DELAY]
    warmup = cfg[_CF_WARMUP]
    measure_end = warmup + cfg[_CF_MEASURE]
    drain = cfg[_CF_DRAIN]
    gen_end = cfg[_CF_GEN_END]
    dl_cycles = cfg[_CF_DEADLOCK_CYCLES]
    drop_after = cfg[_CF_DROP_AFTER]
    pattern = cfg[_CF_PATTERN]
    hotspot = cfg[_CF_HOTSPOT_NODE]
    qcap = cfg[_CF_QUEUE_CAP]
    hop_limit = cfg[_CF_HOP_LIMIT]
    atomic = cfg[_CF_ATOMIC] != 0
    injection = cfg[_CF_INJECTION]
    include_self = cfg[_CF_INCLUDE_SELF] != 0
    nch = tables.ch_dst.shape[0]
    nnodes = tables.slot.shape[0] // (2 * tables.radices.shape[0])
    cv = nch * vcs
    niv = cv + nnodes
    nports = nch + nnodes
    nactive = active.shape[0]
    rec_cap = rec.shape[0]
    fcap = fpk.shape[1]
    tmp_ch = np.zeros(MAX_CANDIDATES, dtype=np.int64)
    tmp_vc = np.zeros(MAX_CANDIDATES, dtype=np.int64)
    tmp_st = np.zeros((MAX_CANDIDATES, STATE_SIZE), dtype=np.int64)
    # per-cycle scratch
    va_mark = np.full(niv, -1, dtype=np.int64)
    va_best = np.zeros(niv, dtype=np.int64)
    va_bestd = np.zeros(niv, dtype=np.int64)
    req_iv = np.zeros(niv, dtype=np.int64)
    req_tgt = np.zeros(niv, dtype=np.int64)
    req_c = np.zeros(niv, dtype=np.int64)
    sa_mark = np.full(nports, -1, dtype=np.int64)
    sa_best = np.zeros(nports, dtype=np.int64)
    sa_bestd = np.zeros(nports, dtype=np.int64)
    port_iv = np.full(nports, -1, dtype=np.int64)
    port_out = np.zeros(nports, dtype=np.int64)
    req_ports = np.zeros(nports, dtype=np.int64)
    outs = np.zeros(nports, dtype=np.int64)

    for _ in range(max_cycles):
        now = counters[_CN_NOW]
        if counters[_CN_DEADLOCK] != 0:
            return 1
        if now >= measure_end:
            if counters[_CN_MEASURED_DONE] >= counters[_CN_MEASURED_GENERATED]:
                return 1
            if now >= measure_end + drain:
                return 1
        measuring = warmup <= now < measure_end
        # ---------------------------------------------------------------- 1. generation
        if now < gen_end:
            for a in range(nactive):
                node = active[a]
                if not starts_packet(injection, rates, burst_on, node, rng):
                    continue
                dst = draw_destination(pattern, node, active, dest_map, hotspot, hotspot_frac, include_self, rng)
                if dst < 0:
                    continue
                counters[_CN_PACKETS_GENERATED] += 1
                if q_len[node] >= qcap or free_top[0] == 0:
                    counters[_CN_QUEUE_OVERFLOW] += 1
                    if measuring:
                        counters[_CN_MEASURED_LOST] += 1
                    continue
                free_top[0] -= 1
                p = free_stack[free_top[0]]
                pk_src[p] = node
                pk_dst[p] = dst
                pk_gen[p] = now
                pk_inj[p] = -1
                pk_hops[p] = 0
                pk_meas[p] = 1 if measuring else 0
                for s in range(STATE_SIZE):
                    pk_state[p, s] = 0
                if measuring:
                    counters[_CN_MEASURED_GENERATED] += 1
                q_buf[node, (q_head[node] + q_len[node]) % qcap] = p
                q_len[node] += 1
        # ---------------------------------------------------------------- 2. injection
        for a in range(nactive):
            node = active[a]
            iv = cv + node
            if count[iv] == 0 and q_len[node] > 0:
                p = q_buf[node, q_head[node]]
                q_head[node] = (q_head[node] + 1) % qcap
                q_len[node] -= 1
                arrival = max(pk_gen[p], inj_free[node])
                fhead[iv] = 0
                for f in range(length):
                    fpk[iv, f] = p
                    fidx[iv, f] = f
                    farr[iv, f] = arrival
                count[iv] = length
        # ---------------------------------------------------------------- 3. routing + 4. VC allocation
        nreq = 0
        for iv in range(niv):
            if count[iv] == 0:
                continue
            h = fhead[iv]
            if fidx[iv, h] != 0 or now < farr[iv, h] + rdelay:
                continue
            p = fpk[iv, h]
            if routed[iv] == 0:
                node = ivc_node[iv]
                routed[iv] = 1
                ncand[iv] = 0
                out_ivc[iv] = -1
                waitc[iv] = 0
                if node == pk_dst[p]:
                    out_ivc[iv] = EJECT
                    continue
                if hop_limit > 0 and pk_hops[p] >= hop_limit:
                    out_ivc[iv] = DROP
                    counters[_CN_HOP_LIMIT_DROPS] += 1
                    continue
                in_ch = iv // vcs if iv < cv else -1
                in_vc = iv % vcs if iv < cv else 0
                r = np.int64(splitmix_next(rng) >> np.uint64(2))
                m = route(tables, node, pk_dst[p], in_ch, in_vc, pk_state[p], r, tmp_ch, tmp_vc, tmp_st)
                if m < 0 or m > MAX_CANDIDATES:
                    counters[_CN_ROUTING_ERROR] += 1
                    m = 0
                for c in range(m):
                    ch = tmp_ch[c]
                    bad_channel = ch < 0 or ch >= nch or tables.ch_src[ch] != node or tables.ch_ok[ch] == 0
                    if bad_channel or tmp_vc[c] < 0 or tmp_vc[c] >= vcs:
                        counters[_CN_ROUTING_ERROR] += 1
                        m = 0
                        break
                    cand_ivc[iv, c] = tmp_ch[c] * vcs + tmp_vc[c]
                    for s in range(STATE_SIZE):
                        cand_st[iv, c, s] = tmp_st[c, s]
                ncand[iv] = m
            if out_ivc[iv] != -1:
                continue
            if ncand[iv] == 0:
                waitc[iv] += 1
                if drop_after >= 0 and waitc[iv] > drop_after:
                    out_ivc[iv] = DROP
                continue
            for c in range(ncand[iv]):
                tgt = cand_ivc[iv, c]
                if writer[tgt] < 0 and (not atomic or count[tgt] == 0):
                    d = (iv - rr_va[tgt] - 1) % niv
                    if va_mark[tgt] != now or d < va_bestd[tgt]:
                        va_mark[tgt] = now
                        va_bestd[tgt] = d
                        va_best[tgt] = iv
                    req_iv[nreq] = iv
                    req_tgt[nreq] = tgt
                    req_c[nreq] = c
                    nreq += 1
                    break
        for r_i in range(nreq):
            iv = req_iv[r_i]
            tgt = req_tgt[r_i]
            if va_best[tgt] != iv:
                continue
            p = fpk[iv, fhead[iv]]
            c = req_c[r_i]
            out_ivc[iv] = tgt
            writer[tgt] = p
            rr_va[tgt] = iv
            for s in range(STATE_SIZE):
                pk_state[p, s] = cand_st[iv, c, s]
        # ---------------------------------------------------------------- 5. switch allocation
        nports_req = 0
        for ip in range(nports):
            if ip < nch:
                base = ip * vcs
                nv = vcs
            else:
                base = cv + (ip - nch)
                nv = 1
            chosen = -1
            for t in range(nv):
                v = (rr_in[ip] + 1 + t) % nv
                iv = base + v
                if count[iv] == 0 or routed[iv] == 0 or out_ivc[iv] == -1:
                    continue
                o = out_ivc[iv]
                if o >= 0 and count[o] >= depth:
                    continue
                chosen = v
                break
            if chosen < 0:
                continue
            iv = base + chosen
            o = out_ivc[iv]
            if o == DROP:
                outp = -1
            elif o == EJECT:
                outp = nch + ivc_node[iv]
            else:
                outp = o // vcs
            port_iv[ip] = iv
            port_out[ip] = outp
            req_ports[nports_req] = ip
            nports_req += 1
            if outp >= 0:
                d = (ip - rr_out[outp] - 1) % nports
                if sa_mark[outp] != now or d < sa_bestd[outp]:
                    sa_mark[outp] = now
                    sa_bestd[outp] = d
                    sa_best[outp] = ip
        # ---------------------------------------------------------------- 6. traversal
        moved = 0
        nouts = 0
        for r_i in range(nports_req):
            ip = req_ports[r_i]
            outp = port_out[ip]
            if outp >= 0 and sa_best[outp] != ip:
                continue
            iv = port_iv[ip]
            outs[nouts] = iv
            nouts += 1
            if outp >= 0:
                rr_out[outp] = ip
            rr_in[ip] = iv - (ip * vcs if ip < nch else cv + (ip - nch))
        for r_i in range(nouts):
            iv = outs[r_i]
            h = fhead[iv]
            p = fpk[iv, h]
            fi = fidx[iv, h]
            fhead[iv] = (h + 1) % fcap
            count[iv] -= 1
            moved += 1
            o = out_ivc[iv]
            if iv >= cv:
                counters[_CN_FLITS_INJECTED] += 1
                if fi == 0:
                    pk_inj[p] = now
            finished = False
            dropped = False
            if o >= 0:
                slot = (fhead[o] + count[o]) % fcap
                fpk[o, slot] = p
                fidx[o, slot] = fi
                farr[o, slot] = now
                count[o] += 1
                if fi == 0:
                    pk_hops[p] += 1
                if fi == length - 1:
                    writer[o] = -1
                if measuring:
                    ch_flits[o // vcs] += 1
            elif o == EJECT:
                counters[_CN_FLITS_EJECTED] += 1
                if measuring:
                    counters[_CN_WINDOW_FLITS_EJECTED] += 1
                finished = fi == length - 1
            else:
                counters[_CN_FLITS_DROPPED] += 1
                finished = fi == length - 1
                dropped = True
            if finished:
                if dropped:
                    counters[_CN_PACKETS_DROPPED] += 1
                else:
                    counters[_CN_PACKETS_DELIVERED] += 1
                    counters[_CN_LATENCY_SUM] += now - pk_gen[p]
                if pk_meas[p] != 0:
                    counters[_CN_MEASURED_DONE] += 1
                    k = rec_count[0]
                    if k < rec_cap:
                        rec[k, 0] = pk_src[p]
                        rec[k, 1] = pk_dst[p]
                        rec[k, 2] = pk_gen[p]
                        rec[k, 3] = pk_inj[p]
                        rec[k, 4] = now
                        rec[k, 5] = pk_hops[p]
                        rec[k, 6] = 1 if dropped else 0
                        rec_count[0] = k + 1
                    else:
                        counters[_CN_RECORD_OVERFLOW] += 1
                free_stack[free_top[0]] = p
                free_top[0] += 1
            if fi == length - 1:
                # the packet's tail left: the next packet in this buffer (if any) is routed afresh
                routed[iv] = 0
                ncand[iv] = 0
                out_ivc[iv] = -1
                waitc[iv] = 0
                if iv >= cv:
                    inj_free[iv - cv] = now
        # ---------------------------------------------------------------- 7. progress / deadlock watch
        in_net = counters[_CN_FLITS_INJECTED] - counters[_CN_FLITS_EJECTED] - counters[_CN_FLITS_DROPPED]
        if moved == 0 and in_net > 0:
            counters[_CN_IDLE] += 1
            if counters[_CN_IDLE] >= dl_cycles:
                counters[_CN_DEADLOCK] = 1
        else:
            counters[_CN_IDLE] = 0
        counters[_CN_NOW] = now + 1
    return 0
