"""The allocators both router models use: round-robin priorities, the round-robin arbiter, iSLIP, and the simple
router's request and input-arbitration steps.

Every function here is a small numba function compiled with ``inline="always"`` (the router models' stages call
them inside their cycle loops, where a call would cost more than the work) and takes the arrays it reads and
writes, never a model's state, so either model can use it and each is tested alone.

Round-robin priority
    :func:`wrap` (``x % n`` without a division) and :func:`ring_offset` (how far a key lies after a pointer on a
    ring: 0 is served first).
Round-robin arbiter
    :func:`arbiter_request`: one request to an output's arbiter, which keeps the request whose key comes first at
    or after its pointer.  The arbiter's pick per output lives in three arrays (``stamp``: the cycle it was last
    written, ``best``: the requester, ``best_d``: its ring distance), so no output needs clearing between cycles.
Separable allocation
    :func:`islip_match`: one iteration of iSLIP (grant by each output's arbiter, accept by each input's), the
    BookSim-compatible model's VC and switch allocator (:mod:`torus_lab.sim.booksim`).  The simple model
    (:mod:`torus_lab.sim.simple`) allocates VCs by :func:`first_idle_candidate` and one arbiter per output VC, and
    the switch separably, input first: :func:`first_ready_vc` per input port, then one arbiter per output.

Examples
--------
>>> import numpy as np
>>> stamp, best, best_d = np.full(1, -1), np.zeros(1, np.int64), np.zeros(1, np.int64)
>>> for port in (0, 2, 3):                                   # three ports ask for output 0, its pointer at 2
...     arbiter_request(stamp, best, best_d, 0, port, port, 2, 4, 7)
>>> int(best[0])                                             # port 2 is first at or after the pointer
2
"""

from __future__ import annotations

from torus_lab._jit import njit

__all__ = ["wrap", "ring_offset", "arbiter_request", "islip_match", "first_idle_candidate", "first_ready_vc"]


# ------------------------------------------------------------------------------------------ round-robin priority


@njit(inline="always")
def wrap(x, n):
    """``x % n`` for ``x >= 0`` without a division (ring-buffer slots and round-robin offsets, where ``x < 2n``:
    one comparison; an integer division costs tens of cycles in the cycle loops).

    Examples
    --------
    >>> wrap(7, 8), wrap(8, 8), wrap(17, 8)
    (7, 0, 1)
    """
    x -= n * (x >= n)  # the usual case, x < 2n, without a branch (which way it goes is unpredictable)
    while x >= n:
        x -= n
    return x


@njit(inline="always")
def ring_offset(key, start, span):
    """Steps from ``start`` forward to ``key`` on a ring of ``span`` positions, ``0 <= key < span`` and
    ``0 <= start <= span``: a round-robin priority (0 is served first), without a division.

    Examples
    --------
    >>> ring_offset(2, 3, 4), ring_offset(3, 3, 4), ring_offset(0, 4, 4)
    (3, 0, 0)
    """
    offset = key - start
    return offset + span * (offset < 0)  # no branch: which way it goes is unpredictable


# -------------------------------------------------------------------------------------------------- arbiter


@njit(inline="always")
def arbiter_request(stamp, best, best_d, target, requester, key, start, span, now):
    """One request to output ``target``'s round-robin arbiter in cycle ``now``.

    The arbiter keeps the request whose ``key`` comes first at or after its pointer ``start`` on a ring of
    ``span`` keys (:func:`ring_offset`; ties: the earlier request); ``best[target]`` is then its ``requester``
    and ``best_d[target]`` its distance.  ``stamp[target] != now`` marks an arbiter without a request in this
    cycle yet (its old pick is overwritten), so the arrays need no clearing between cycles.  The requester wins
    when ``best[target] == requester`` once every request of the cycle is in.

    Examples
    --------
    >>> import numpy as np
    >>> stamp, best, best_d = np.full(2, -1), np.zeros(2, np.int64), np.zeros(2, np.int64)
    >>> arbiter_request(stamp, best, best_d, 1, 5, 0, 1, 3, 0)      # key 0 is 2 steps after pointer 1
    >>> arbiter_request(stamp, best, best_d, 1, 6, 2, 1, 3, 0)      # key 2 is 1 step after it: takes over
    >>> int(best[1]), int(best_d[1]), int(stamp[0])
    (6, 1, -1)
    """
    d = ring_offset(key, start, span)
    if stamp[target] != now or d < best_d[target]:
        stamp[target] = now
        best_d[target] = d
        best[target] = requester


# ----------------------------------------------------------------------------------------------------- iSLIP


@njit(inline="always")
def islip_match(nreq, req_in, req_out, in_key, out_key, span, out_span, gptr, aptr, g_stamp, g_best, g_bestd,
                matched, now):  # fmt: skip
    """One iteration of iSLIP over the requests ``r < nreq`` (input ``req_in[r]`` asks for output ``req_out[r]``;
    the requests of one input are consecutive).

    Grant: each requested output picks the request whose input key ``in_key[r]`` comes first at or after its
    pointer ``gptr`` (:func:`arbiter_request`, round-robin over ``span`` input keys, the router-local order);
    accept: each input picks, among the requests granted to it, the one whose output key comes first at or after
    its pointer ``aptr`` (round-robin over ``out_span`` output keys); both pointers move one past an accepted
    match.  Accepted request indices go to
    ``matched[:n]``, in request order; returns ``n``.  ``g_stamp`` marks the outputs whose pick (``g_best``, at
    ring distance ``g_bestd``) was written in cycle ``now``.  Used by the BookSim-compatible model's VC allocator
    (inputs: input VCs; keys: port x V + VC) and switch allocator (inputs: switch inputs, ``input_speedup`` per
    input port; outputs: switch outputs, ``output_speedup`` per output port; keys: their router-local order), which
    both list an input's requests together, so the accept step reads each input's run of requests once, in
    order, and needs no table per input.

    Examples
    --------
    >>> import numpy as np
    >>> req_in, req_out = np.array([0, 1, 1]), np.array([0, 0, 1])   # input 1 also asks for output 1
    >>> gptr, aptr, g_stamp = np.zeros(2, np.int64), np.zeros(2, np.int64), np.full(2, -1, np.int64)
    >>> matched = np.zeros(3, np.int64)
    >>> n = islip_match(3, req_in, req_out, req_in, req_out, 2, 2, gptr, aptr, g_stamp, np.zeros(2, np.int64),
    ...                 np.zeros(2, np.int64), matched, 0)
    >>> matched[:n].tolist(), gptr.tolist(), aptr.tolist()     # output 0 grants input 0; input 1 accepts output 1
    ([0, 2], [1, 0], [1, 0])
    """
    for r in range(nreq):  # grant (keys and pointers are in 0..span-1)
        arbiter_request(g_stamp, g_best, g_bestd, req_out[r], r, in_key[r], gptr[req_out[r]], span, now)
    n = 0
    r = 0
    while r < nreq:  # accept: one input's run of requests at a time
        i = req_in[r]
        start = aptr[i]
        best = -1
        best_d = out_span
        while r < nreq and req_in[r] == i:
            if g_best[req_out[r]] == r:
                d = ring_offset(out_key[r], start, out_span)
                if d < best_d:
                    best = r
                    best_d = d
            r += 1
        if best >= 0:
            gptr[req_out[best]] = wrap(in_key[best] + 1, span)
            aptr[i] = wrap(out_key[best] + 1, out_span)
            matched[n] = best
            n += 1
    return n


# ------------------------------------------------------------------------------------- the simple router's steps


@njit(inline="always")
def first_idle_candidate(cand, ncand, writer, count, atomic, iv):
    """The simple router's VC request ("first free" selection): the index in row ``iv`` of ``cand`` of input VC
    ``iv``'s first candidate output VC that is idle, or -1 when none is.

    An output VC is idle when no packet is allocated to it (``writer < 0``) and, under ``atomic`` allocation,
    it is also empty (``count == 0``).  The routing kernel orders the ``ncand[iv]`` candidates by preference.

    Examples
    --------
    >>> import numpy as np
    >>> cand, ncand = np.array([[3, 1, 2]]), np.array([3])
    >>> writer, count = np.array([-1, -1, -1, 0]), np.array([0, 2, 0, 0])    # VC 3 is taken, VC 1 holds flits
    >>> int(first_idle_candidate(cand, ncand, writer, count, True, 0))        # atomic: VC 2 (candidate 2)
    2
    >>> int(first_idle_candidate(cand, ncand, writer, count, False, 0))       # non-atomic: VC 1 (candidate 1)
    1
    """
    for c in range(ncand[iv]):
        tgt = cand[iv, c]
        if writer[tgt] >= 0 or (atomic and count[tgt] != 0):
            continue
        return c
    return -1


@njit(inline="always")
def first_ready_vc(base, nv, pointer, count, routed, out_ivc, depth):
    """The input arbiter of the simple router's switch allocator: of the ``nv`` input VCs ``base, base + 1, ...``
    of one port, the first after the port's round-robin ``pointer`` (the VC it served last, as an offset from
    ``base``) that can send a flit; -1 when none can.

    A VC can send when it holds a flit (``count > 0``), is routed, has an output (``out_ivc != -1``: an output VC,
    or a negative code such as ejection or drop) and, for an output VC, a free slot there (``count < depth``,
    counted at the start of the cycle).

    Examples
    --------
    >>> import numpy as np
    >>> count, routed = np.array([1, 1, 0, 0]), np.array([1, 1, 0, 0])
    >>> out_ivc = np.array([3, -2, -1, -1])           # VC 0 waits for VC 3 (full below), VC 1 ejects
    >>> int(first_ready_vc(0, 2, 1, count, routed, out_ivc, 4))
    0
    >>> count[3] = 4
    >>> int(first_ready_vc(0, 2, 1, count, routed, out_ivc, 4))
    1
    """
    for t in range(nv):
        iv = base + wrap(pointer + 1 + t, nv)
        o = out_ivc[iv]
        if count[iv] == 0 or routed[iv] == 0 or o == -1 or (o >= 0 and count[o] >= depth):
            continue
        return iv
    return -1
