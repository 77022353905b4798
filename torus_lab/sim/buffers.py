"""What both router models share about their input VCs: VC ids, the FIFO's front, the occupancy bitmap and the
rows of routing candidates.

Both models number VC ``v`` of channel ``ch`` as ``ch * vcs + v``, keep each input VC's flits in a ring buffer
(``fhead``: the front slot, ``count``: the flits held; per slot ``fpk``: the packet, ``fidx``: the flit's
index), mark the input VCs holding flits in a bitmap of 64-bit words (``occupied``), and keep the candidates a
routed head may take in one row per input VC.  The compiled functions here are numba functions compiled with
``inline="always"``, called by the stages of :mod:`torus_lab.sim.simple` and :mod:`torus_lab.sim.booksim`
inside their cycle loops; they take the arrays themselves, never a model's state.

Examples
--------
>>> import numpy as np
>>> occupied = np.zeros(2, dtype=np.uint64)
>>> mark_occupied(occupied, 3); mark_occupied(occupied, 70)
>>> occupied.tolist()
[8, 64]
>>> split_vc(13, 4, vc_split_shift(4)), split_vc(13, 3, vc_split_shift(3))     # channel and VC of VC id 13
((3, 1), (4, 1))
"""

from __future__ import annotations

import numpy as np

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_int
from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE
from torus_lab.sim.allocators import wrap
from torus_lab.topology import Torus

__all__ = ["candidate_capacity", "repeats_stored", "granted_state", "mark_occupied", "mark_empty", "vc_split_shift",
           "split_vc", "pop_flit"]


def candidate_capacity(topology: Torus, vcs: int) -> int:
    """Candidates a routed head keeps: the (channel, VC) outputs of the router with the most output channels.

    A kernel may return up to :data:`~torus_lab.routing.interface.MAX_CANDIDATES` candidates, but a router has
    no more distinct outputs than this, so the rows of the candidate arrays hold this many (at most
    ``MAX_CANDIDATES``, at least ``vcs``: the ejection port's VCs in the BookSim-compatible model).  Rows sized
    to the network instead of to ``MAX_CANDIDATES`` keep the arrays a routed head writes small enough to stay
    in the processor's cache: on the 1024-node hypercube they are 10 instead of 32 per input VC.  When a kernel
    returns more candidates than that, some repeat an earlier (channel, VC), and only the first of each is kept
    (:func:`repeats_stored`): neither model can ever choose a repeat.

    Examples
    --------
    >>> candidate_capacity(Torus(2, 8), 2), candidate_capacity(Torus(10, 2), 1)
    (8, 10)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vcs = check_int("vcs", vcs, minimum=1)
    outputs = np.bincount(np.asarray(topology.channel_src, dtype=np.int64), minlength=topology.num_nodes)
    return max(vcs, min(MAX_CANDIDATES, int(outputs.max(initial=0)) * vcs))


@njit(inline="always")
def repeats_stored(cand, iv, kept, target):
    """Whether ``target`` is one of the ``kept`` candidates already stored in row ``iv`` of ``cand``.

    Examples
    --------
    >>> import numpy as np
    >>> cand = np.array([[5, 7, 9]])
    >>> bool(repeats_stored(cand, 0, 2, 7)), bool(repeats_stored(cand, 0, 2, 9))   # 9 is not among the first 2
    (True, False)
    """
    for d in range(kept):
        if cand[iv, d] == target:
            return True
    return False


@njit(inline="always")
def granted_state(route, tables, node, dst, in_ch, in_vc, state, rand, target, kept, capacity, vcs, tmp_ch, tmp_vc,
                  tmp_st):  # fmt: skip
    """Replace the header ``state`` of a head granted its stored candidate number ``kept`` (output VC id
    ``target = channel * vcs + vc``) by that candidate's header state, got by calling the routing kernel
    ``route`` again with the arguments and the random word ``rand`` of the head's routing.

    Both router models keep, per routed head, only the candidates' output VCs and the random word, not the
    :data:`~torus_lab.routing.interface.STATE_SIZE` words of state of every candidate (two thirds of a
    router's state on a 3-D torus): a kernel is a pure function of its arguments, and between routing and the
    grant none of them changes (the head stays at the front of its input VC, and only its own grant writes its
    header state), so the call returns the candidates of the routing.  A row of ``capacity`` candidates keeps
    them in the kernel's order, or, when the kernel returned more (:func:`candidate_capacity`), the first
    candidate of each output VC: candidate ``kept`` is then the first one with output VC ``target``.

    Examples
    --------
    >>> import numpy as np
    >>> from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE, compile_for_kernel
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> rf = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
    >>> dst = rf.topology.node_id((3, 0))
    >>> (ch, vc, after), = [(c.channel, c.vc, c.state) for c in rf.candidates(0, dst)]
    >>> state, tmp_st = np.zeros(STATE_SIZE, np.int64), np.zeros((MAX_CANDIDATES, STATE_SIZE), np.int64)
    >>> tmp = np.zeros(MAX_CANDIDATES, np.int64), np.zeros(MAX_CANDIDATES, np.int64)
    >>> args = (rf.kernel, rf.tables, 0, dst, -1, 0, state, 0, ch * 2 + vc, 0, 8, 2, *tmp, tmp_st)
    >>> compile_for_kernel(granted_state, args)(*args)
    >>> tuple(state.tolist()) == tuple(after)
    True
    """
    m = route(tables, node, dst, in_ch, in_vc, state, rand, tmp_ch, tmp_vc, tmp_st)
    row = kept
    if m > capacity:  # the row kept the first candidate of each output VC
        for c in range(m):
            if tmp_ch[c] * vcs + tmp_vc[c] == target:
                row = c
                break
    for w in range(STATE_SIZE):  # word by word: a fixed-size loop, no array views
        state[w] = tmp_st[row, w]


@njit(inline="always")
def mark_occupied(occupied, iv):
    """Set input VC ``iv``'s bit in the occupancy bitmap ``occupied`` (64 VCs per word): it holds flits.

    Examples
    --------
    >>> import numpy as np
    >>> occupied = np.zeros(1, dtype=np.uint64)
    >>> mark_occupied(occupied, 5); int(occupied[0])
    32
    """
    occupied[iv >> 6] |= np.uint64(1) << np.uint64(iv & 63)


@njit(inline="always")
def mark_empty(occupied, iv):
    """Clear input VC ``iv``'s bit in the occupancy bitmap ``occupied``: it holds no flit.

    Examples
    --------
    >>> import numpy as np
    >>> occupied = np.array([33], dtype=np.uint64)
    >>> mark_empty(occupied, 5); int(occupied[0])
    1
    """
    occupied[iv >> 6] &= ~(np.uint64(1) << np.uint64(iv & 63))


@njit(inline="always")
def vc_split_shift(vcs):
    """``log2(vcs)`` when ``vcs`` is a power of two, else -1: :func:`split_vc` then shifts and masks instead of
    dividing (an integer division costs tens of cycles; the stages split VC ids several times per flit).

    Examples
    --------
    >>> vc_split_shift(1), vc_split_shift(4), vc_split_shift(3)
    (0, 2, -1)
    """
    if vcs & (vcs - 1) != 0:
        return -1
    shift = 0
    while (1 << shift) < vcs:
        shift += 1
    return shift


@njit(inline="always")
def split_vc(vc, vcs, vc_shift):
    """Channel and VC index ``(vc // vcs, vc % vcs)`` of VC id ``vc >= 0`` (``vc_shift`` from
    :func:`vc_split_shift`).

    Examples
    --------
    >>> split_vc(7, 2, 1), split_vc(7, 3, -1)
    ((3, 1), (2, 1))
    """
    if vc_shift >= 0:
        return vc >> vc_shift, vc & (vcs - 1)
    return vc // vcs, vc % vcs


@njit(inline="always")
def pop_flit(fhead, fpk, fidx, count, occupied, iv):
    """Take the front flit of input VC ``iv``'s FIFO (both models); returns its packet and flit index, and clears
    the VC's bit in ``occupied`` when it empties.

    Examples
    --------
    >>> import numpy as np
    >>> fpk, fidx = np.array([[4, 4]]), np.array([[0, 1]])          # packet 4's flits 0 and 1
    >>> fhead, count, occupied = np.array([1]), np.array([1]), np.array([1], dtype=np.uint64)
    >>> tuple(int(x) for x in pop_flit(fhead, fpk, fidx, count, occupied, 0)), int(fhead[0]), int(occupied[0])
    ((4, 1), 0, 0)
    """
    h = fhead[iv]
    p = fpk[iv, h]
    fi = fidx[iv, h]
    fhead[iv] = wrap(h + 1, fpk.shape[1])
    count[iv] -= 1
    if count[iv] == 0:
        mark_empty(occupied, iv)
    return p, fi
