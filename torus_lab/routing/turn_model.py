"""Turn-model routing, PFNF and virtual-mesh mappings onto tori (Upadhyay, Varavithya & Mohapatra; Glass & Ni).

Interpretation choices: ``docs/conventions.md#turn-model`` and the entries after it.  One numba kernel
(:func:`virtual_mesh_kernel`) serves every algorithm and VC scheme here, all *minimal*.

**Turn model (2D, minimal; Glass & Ni)** as a "first set" F of directions: while a productive direction of F
remains, only those are offered; afterwards all productive directions.  Minimal routing never re-enters F,
so the prohibited turns are exactly "non-F direction -> F direction":

=================  ==============  ====================
algorithm           F (first)       prohibited turns
=================  ==============  ====================
west-first          {W}             N->W, S->W
north-last          {E, W, S}       N->E, N->W
negative-first      {W, S}          N->W, E->S
positive-first      {E, N}          W->N, S->E
nw-first            {N, W}          E->N, S->W  (PFNF REC VN1)
se-first            {S, E}          N->E, W->S  (PFNF mirror ALT VN1)
minimal-adaptive    {}              none (unrestricted; cyclic CDG on a mesh)
=================  ==============  ====================

(E = +dim0, W = -dim0, N = +dim1, S = -dim1.)  On a torus "productive" means the minimal direction per
dimension (tie for even k at offset k/2: REC ``"+"``, ALT ``"-"``, as e-cube).  ``wraps="first-hop"``
(``docs/conventions.md#first-hop-wraps``, tori without VCs) uses mesh directions instead and allows a wraparound only as
a message's first hop (when it starts a torus-minimal path); the resulting routes can be non-minimal.

**PFNF on a 2D mesh** (two virtual networks = VC 0 and VC 1; a message never changes VN unless stated):

* ``"reconstruction"`` (REC, ``docs/conventions.md#pfnf`` -- a reconstruction, the original paper's text was not
  available): VN0 = negative-first carries Δx·Δy >= 0, VN1 = nw-first (NF rotated 90°) carries Δx·Δy < 0.
* ``"mirror"`` (ALT): as REC with VN1 = se-first.
* ``"literal"`` (ALT): VN0 = negative-first, VN1 = positive-first; a message uses VN1 iff Δx > 0 (or
  Δx = 0 and Δy > 0), else VN0 -- the literal reading of "positive-first in one VN, negative-first in the
  other".
* ``"switch"`` (ALT, ``docs/conventions.md#pfnf``): NF on VN0 and PF on VN1, the VN chosen hop by hop -- a hop may use
  a VN whose turn rules permit the turn ``(input direction -> output direction)``.

Selection among the returned candidates is the simulator's business (they are listed dimension 0 first).

**VC schemes on a torus** (``docs/conventions.md#virtual-mesh-schemes``).  Each VN ``v`` has a dateline node per
dimension and direction: ``k-1`` for ``+`` and ``0`` for ``-`` (the wrap links) shifted by ``v * dateline_offset``
(default ``k // 2``, "halfway across", paper Section 4; for k = 5 this puts VN1's +y dateline at row 1 as in the paper's
Fig. 5).  The hop leaving the dateline node is the crossing hop.  Header state: slot 0 = VN, slot 1 = bit d
set once the message crossed its VN's dateline of dimension d (minimal routing moves one way per dimension).

* ``"none"``: VC = VN (a mesh, or a torus without dateline VCs).
* ``"paper"`` (the paper's mapping): a hop in dimension d uses its VN's "after" class iff bit d is set
  after the hop.  ``layout="shared"`` (REC, the paper's 3 VCs): VC 0 = VN0 before, VC 1 = VN1 before,
  VC 2 = after-class of *both* VNs (the datelines being halfway apart is what should keep them on disjoint
  channels); ``layout="separate"``: VC ``2 v + after`` (4 VCs, used to measure which classes each channel
  needs).  One VN: VC = after (2 VCs).
* ``"count"`` (ALT): VC = ``v (n + 1) + number of datelines crossed so far`` (crossing hop included).
* ``"layer"`` (ALT, another reading of "the virtual mesh ... as a superposition of two virtual networks
  comprising VC1 channels and VC2 channels"): a message moves to the after-dateline layer once it has crossed
  *any* dateline of its VN and stays there; same VC layout as ``"paper"``.
* ``"duato"`` (:func:`duato_routing`, ALT baseline): VCs 0/1 = escape network, dimension-order routing whose
  class is the crossed bit of the current dimension (datelines at the wrap links); VC 2 = fully adaptive
  minimal.  Adaptive candidates first, then the escape VC.

Faulty channels are never offered; none of these algorithms is fault tolerant.

Examples
--------
>>> from torus_lab.topology import Mesh, Torus
>>> r = turn_model_routing(Mesh(2, 4), "west-first")
>>> r.route((3, 0), (0, 2))               # all west hops first
[(3, 0), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2)]
>>> p = pfnf_routing(Torus(2, 5), scheme="paper")
>>> p.num_vcs, [vc for _, vc in p.route_hops((3, 3), (0, 0))]    # NE via the wraps: VN0, crossing -> VC 2
(3, [0, 2, 0, 2])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from torus_lab._jit import njit
from torus_lab._validate import check_int, check_mapping, check_sequence, check_str, is_int
from torus_lab.routing.ecube import minimal_sign
from torus_lab.routing.interface import RoutingFunction, build_tables
from torus_lab.routing.registry import Option, register_routing
from torus_lab.topology import NETWORK_KINDS, Faults, Torus

__all__ = [
    "TURN_MODELS",
    "PFNF_VARIANTS",
    "SCHEMES",
    "direction_bit",
    "virtual_mesh_kernel",
    "turn_model_routing",
    "pfnf_routing",
    "duato_routing",
    "dateline_node",
    "dateline_positions",
    "pack_datelines",
    "MAX_DATELINE_RADIX",
]



def direction_bit(dim: int, sign: int) -> int:
    """Bit of direction ``sign * e_dim`` in a direction mask: E = 1, W = 2, N = 4, S = 8 in 2D.

    >>> direction_bit(0, 1), direction_bit(0, -1), direction_bit(1, 1), direction_bit(1, -1)
    (1, 2, 4, 8)
    """
    dim = check_int("dim", dim, minimum=0, maximum=31)
    sign = check_int("sign", sign)
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign!r}")
    return 1 << (2 * dim + (1 if sign < 0 else 0))


_E, _W, _N, _S = 1, 2, 4, 8
#: First-set masks of the 2D turn-model algorithms (see the module docstring).
TURN_MODELS = {
    "west-first": _W,
    "north-last": _E | _W | _S,
    "negative-first": _W | _S,
    "positive-first": _E | _N,
    "nw-first": _N | _W,
    "se-first": _S | _E,
    "minimal-adaptive": 0,
}
#: PFNF variants: (VN0 mask, VN1 mask, VN rule).
PFNF_VARIANTS = {
    "reconstruction": (TURN_MODELS["negative-first"], TURN_MODELS["nw-first"], 1),
    "mirror": (TURN_MODELS["negative-first"], TURN_MODELS["se-first"], 1),
    "literal": (TURN_MODELS["negative-first"], TURN_MODELS["positive-first"], 2),
    "switch": (TURN_MODELS["negative-first"], TURN_MODELS["positive-first"], 3),
}
#: VC schemes of the kernel.
SCHEMES = ("none", "paper", "count", "duato", "layer")

# iparams layout
_P_VCS, _P_MASK0, _P_MASK1, _P_VNRULE, _P_SCHEME, _P_FLAGS, _P_TIE, _P_OFFSET = range(8)
_VN_SINGLE, _VN_QUADRANT, _VN_SIGNX, _VN_SWITCH = 0, 1, 2, 3
_SC_NONE, _SC_PAPER, _SC_COUNT, _SC_DUATO, _SC_LAYER = 0, 1, 2, 3, 4
_FLAG_SEPARATE, _FLAG_WRAP_FIRST, _FLAG_DATELINES = 1, 2, 4
# header state layout
_S_VN, _S_BITS = 0, 1
#: Bits per packed dateline shift (``_FLAG_DATELINES``: iparams[_P_OFFSET] packs one shift per (vn, dim, sign)).
_SHIFT_BITS = 7
#: Largest radix of a torus whose datelines are placed one by one (``datelines=`` of the factories).
MAX_DATELINE_RADIX = 1 << _SHIFT_BITS


@njit
def _dateline(k, sign, vn, offset):
    """Dateline node of ring direction ``sign`` for virtual network ``vn``."""
    base = k - 1 if sign > 0 else 0
    return (base + vn * offset) % k


@njit
def _dateline_at(p, k, d, sign, vn):
    """Dateline node of dimension ``d``, direction ``sign``, VN ``vn``: from the packed shifts when the routing
    was built with explicit datelines, else :func:`_dateline` (VN1 ``offset`` nodes from VN0)."""
    if (p[_P_FLAGS] & _FLAG_DATELINES) == 0:
        return _dateline(k, sign, vn, p[_P_OFFSET])
    slot = (vn * 2 + d) * 2 + (0 if sign > 0 else 1)
    shift = (p[_P_OFFSET] >> (_SHIFT_BITS * slot)) & ((1 << _SHIFT_BITS) - 1)
    base = k - 1 if sign > 0 else 0
    return (base + shift) % k


@njit
def _popcount(x):
    c = 0
    while x:
        c += x & 1
        x >>= 1
    return c


@njit
def _emit(tables, state, ch, d, sign, c, k, vn, dl_vn, m, out_ch, out_vc, out_state):
    """Append hop ``ch`` (dimension d, coordinate c before the hop) for VN ``vn``; returns the new count."""
    p = tables.iparams
    n = tables.radices.shape[0]
    scheme = p[_P_SCHEME]
    bits = state[_S_BITS]
    if tables.kind[0] != 0 and k > 2 and scheme != _SC_NONE:
        if c == _dateline_at(p, k, d, sign, dl_vn):
            bits = bits | (1 << d)
    after = (bits >> d) & 1
    if scheme == _SC_LAYER:
        after = 1 if bits != 0 else 0
    if scheme == _SC_NONE:
        vc = vn
    elif scheme == _SC_PAPER or scheme == _SC_LAYER:
        if p[_P_MASK1] < 0:  # one virtual network
            vc = after
        elif (p[_P_FLAGS] & _FLAG_SEPARATE) != 0:
            vc = 2 * vn + after
        else:
            vc = 2 if after != 0 else vn
    elif scheme == _SC_COUNT:
        vc = vn * (n + 1) + _popcount(bits)
    else:  # duato: vn = -1 marks the adaptive VC
        vc = 2 if vn < 0 else after
    out_ch[m] = ch
    out_vc[m] = vc
    for s in range(state.shape[0]):
        out_state[m, s] = state[s]
    out_state[m, _S_VN] = vn if vn >= 0 else 0
    out_state[m, _S_BITS] = bits
    return m + 1


@njit
def virtual_mesh_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    """Turn-model / PFNF / virtual-mesh kernel (signature: ``interface.KERNEL_SIGNATURE``)."""
    radices = tables.radices
    coords = tables.coords
    n = radices.shape[0]
    p = tables.iparams
    torus = tables.kind[0] != 0
    wrap_first = (p[_P_FLAGS] & _FLAG_WRAP_FIRST) != 0
    scheme = p[_P_SCHEME]
    # ---- productive physical hops: (dim, sign, channel, coordinate), at most two per dimension
    h_dim = np.empty(2 * n, dtype=np.int64)
    h_sign = np.empty(2 * n, dtype=np.int64)
    h_ch = np.empty(2 * n, dtype=np.int64)
    h_c = np.empty(2 * n, dtype=np.int64)
    dsign = np.zeros(n, dtype=np.int64)
    nh = 0
    pbits = 0
    for d in range(n):
        k = radices[d]
        c = coords[cur * n + d]
        e = coords[dst * n + d]
        if c == e:
            continue
        if wrap_first and torus:
            sgn = 1 if e > c else -1
        else:
            sgn = minimal_sign(c, e, k, tables.kind[0], tables.kind[1], p[_P_TIE])
        dsign[d] = sgn
        ch = tables.slot[(cur * n + d) * 2 + (1 if sgn > 0 else 0)]
        if ch >= 0 and tables.ch_ok[ch] != 0:
            h_dim[nh] = d
            h_sign[nh] = sgn
            h_ch[nh] = ch
            h_c[nh] = c
            nh += 1
            pbits |= 1 << (2 * d + (1 if sgn < 0 else 0))
        if wrap_first and torus and in_ch < 0 and k > 2:
            # first-hop-wraps: a wraparound may be the first hop of a message if it starts a torus-minimal path
            f = (e - c) % k
            wsgn = 0
            if c == k - 1 and f <= k - f:
                wsgn = 1
            elif c == 0 and k - f <= f and tables.kind[1] != 0:
                wsgn = -1
            if wsgn != 0:
                wch = tables.slot[(cur * n + d) * 2 + (1 if wsgn > 0 else 0)]
                if wch >= 0 and tables.ch_ok[wch] != 0:
                    h_dim[nh] = d
                    h_sign[nh] = wsgn
                    h_ch[nh] = wch
                    h_c[nh] = c
                    nh += 1
                    pbits |= 1 << (2 * d + (1 if wsgn < 0 else 0))
    m = 0
    if scheme == _SC_DUATO:
        for q in range(nh):  # adaptive VC on every productive hop
            m = _emit(tables, state, h_ch[q], h_dim[q], h_sign[q], h_c[q], radices[h_dim[q]], -1, 0, m,
                      out_ch, out_vc, out_state)
        for q in range(nh):  # escape VC: dimension order, lowest unfinished dimension
            if h_dim[q] == h_dim[0]:
                m = _emit(tables, state, h_ch[q], h_dim[q], h_sign[q], h_c[q], radices[h_dim[q]], 0, 0, m,
                          out_ch, out_vc, out_state)
                break
        return m
    # ---- virtual network
    rule = p[_P_VNRULE]
    if rule == _VN_SWITCH:
        in_bit = 0
        if in_ch >= 0:
            in_bit = 1 << (2 * tables.ch_dim[in_ch] + (1 if tables.ch_sign[in_ch] < 0 else 0))
        for q in range(nh):
            bit = 1 << (2 * h_dim[q] + (1 if h_sign[q] < 0 else 0))
            for vn in range(2):
                mask = p[_P_MASK0] if vn == 0 else p[_P_MASK1]
                prohibited = in_ch >= 0 and (in_bit & mask) == 0 and (bit & mask) != 0
                if not prohibited:
                    m = _emit(tables, state, h_ch[q], h_dim[q], h_sign[q], h_c[q], radices[h_dim[q]], vn, vn, m,
                              out_ch, out_vc, out_state)
        return m
    if in_ch >= 0 or rule == _VN_SINGLE:
        vn = state[_S_VN]
    else:
        s0 = dsign[0]
        s1 = dsign[1] if n > 1 else 0
        if rule == _VN_QUADRANT:
            vn = 1 if s0 * s1 < 0 else 0
        else:  # literal: positive-first network iff dx > 0 (or dx = 0 and dy > 0)
            vn = 1 if (s0 > 0 or (s0 == 0 and s1 > 0)) else 0
    mask = p[_P_MASK0] if vn == 0 else p[_P_MASK1]
    allowed = pbits & mask
    if allowed == 0:
        allowed = pbits
    for q in range(nh):
        bit = 1 << (2 * h_dim[q] + (1 if h_sign[q] < 0 else 0))
        if (bit & allowed) != 0:
            m = _emit(tables, state, h_ch[q], h_dim[q], h_sign[q], h_c[q], radices[h_dim[q]], vn, vn, m,
                      out_ch, out_vc, out_state)
    return m


# ====================================================================== factories
def _check_topology(topology: object, two_d: bool) -> Torus:
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    if two_d and topology.n != 2:
        raise ValueError(f"this algorithm is defined for 2D networks, got n = {topology.n}")
    return topology


def _check_choice(name: str, value: object, choices) -> None:
    check_str(name, value, tuple(choices))


def _offset(topology: Torus, dateline_offset: int | None) -> int:
    if dateline_offset is None:
        return topology.radices[0] // 2
    if not is_int(dateline_offset) or not 0 <= dateline_offset < min(topology.radices):
        raise ValueError(f"dateline_offset must be an int in 0..{min(topology.radices) - 1} (a shift along a ring of "
                         f"{topology!r}), got {dateline_offset!r}")
    return int(dateline_offset)


def dateline_node(k: int, sign: int, vn: int = 0, offset: int | None = None) -> int:
    """Dateline node of a ring direction for virtual network ``vn`` (``offset`` default ``k // 2``).

    >>> dateline_node(5, 1, 0), dateline_node(5, 1, 1), dateline_node(5, -1, 1)   # paper Figs. 4, 5
    (4, 1, 2)
    """
    k = check_int("k", k, minimum=2, maximum=2**62)
    sign = check_int("sign", sign)
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign!r}")
    vn = check_int("vn", vn, minimum=0, maximum=1)
    offset = None if offset is None else check_int("offset", offset, minimum=0, maximum=k - 1)
    off = k // 2 if offset is None else offset
    return int(_dateline(int(k), int(sign), int(vn), int(off)))


def pack_datelines(topology: Torus, datelines: object, vns: int) -> int:
    """The explicit datelines of a 2-D torus routing as the kernel reads them (one int).

    ``datelines`` holds, per virtual network, the dateline nodes ``(x+, x-, y+, y-)``: the dateline of ring
    direction ``+``/``-`` of dimension x (0) / y (1) is at that coordinate (the hop leaving it is the crossing hop,
    ``docs/conventions.md#datelines``).  Each node is stored as its shift from the wrap-link dateline (``k - 1``
    for ``+``, ``0`` for ``-``), :data:`MAX_DATELINE_RADIX` values per shift.

    >>> pack_datelines(Torus(2, 5), [(4, 0, 4, 0)], 1)      # the wrap links: every shift 0
    0
    >>> pack_datelines(Torus(2, 5), [(0, 0, 4, 0)], 1)      # x+ one node on: shift 1 in the first slot
    1
    """
    _check_topology(topology, True)
    vns = check_int("vns", vns, minimum=1, maximum=2)
    if max(topology.radices) > MAX_DATELINE_RADIX:
        raise ValueError(f"datelines can be placed one by one on radices up to {MAX_DATELINE_RADIX}, got "
                         f"{topology.radices}")
    rows = check_sequence("datelines", datelines)
    if len(rows) != vns:
        raise ValueError(f"datelines must hold {vns} row(s) (one per virtual network), got {len(rows)}")
    packed = 0
    for vn, row in enumerate(rows):
        nodes = check_sequence(f"datelines[{vn}]", row)
        if len(nodes) != 4:
            raise ValueError(f"datelines[{vn}] must be (x+, x-, y+, y-), got {row!r}")
        for i, node in enumerate(nodes):
            d, sign = i // 2, (1 if i % 2 == 0 else -1)
            k = topology.radices[d]
            node = check_int(f"datelines[{vn}][{i}]", node, minimum=0, maximum=k - 1)
            shift = (node - (k - 1 if sign > 0 else 0)) % k
            packed |= shift << (_SHIFT_BITS * ((vn * 2 + d) * 2 + i % 2))
    return packed


def _build(topology, faults, name, mask0, mask1, vn_rule, scheme, *, separate=False, wrap_first=False, tie="+",
           offset=0, options=None, datelines=None) -> RoutingFunction:
    _check_choice("tie", tie, ("+", "-"))
    if faults is not None and not isinstance(faults, Faults):
        raise TypeError(f"faults must be a Faults or None, got {faults!r}")
    two_vns = mask1 >= 0
    sc = SCHEMES.index(scheme)
    if sc == _SC_NONE:
        vcs = 2 if two_vns else 1
    elif sc == _SC_PAPER or sc == _SC_LAYER:
        vcs = (4 if separate else 3) if two_vns else 2
    elif sc == _SC_COUNT:
        vcs = (2 if two_vns else 1) * (topology.n + 1)
    else:
        vcs = 3
    flags = (_FLAG_SEPARATE if separate else 0) | (_FLAG_WRAP_FIRST if wrap_first else 0)
    if datelines is not None:
        if sc == _SC_NONE:
            raise ValueError("datelines need a dateline scheme ('paper', 'count' or 'layer'), got scheme 'none'")
        flags |= _FLAG_DATELINES
        offset = pack_datelines(topology, datelines, 2 if two_vns else 1)
        options = {**(options or {}), "datelines": [list(map(int, row)) for row in datelines]}
    iparams = [vcs, mask0, mask1, vn_rule, sc, flags, 1 if tie == "+" else -1, offset]
    return RoutingFunction(
        name=name,
        kernel=virtual_mesh_kernel,
        topology=topology,
        faults=faults,
        tables=build_tables(topology, faults, iparams),
        num_vcs=vcs,
        adaptive=True,
        random_choices=1,
        options=dict(options or {}),
    )


def _check_scheme(topology: Torus, scheme: str) -> None:
    _check_choice("scheme", scheme, ("none", "paper", "count", "layer"))
    if scheme != "none" and not topology.wraparound:
        raise ValueError(f"scheme {scheme!r} needs datelines, i.e. a torus; a mesh uses scheme='none'")


def turn_model_routing(
    topology: Torus,
    algorithm: str = "negative-first",
    *,
    scheme: str = "none",
    wraps: str = "minimal",
    tie: str = "+",
    faults: Faults | None = None,
    datelines: Sequence[Sequence[int]] | None = None,
) -> RoutingFunction:
    """One turn-model algorithm (one virtual network), on a mesh or mapped onto a torus.

    Parameters
    ----------
    topology : Mesh or Torus, 2D
    algorithm : one of :data:`TURN_MODELS`
    scheme : {"none", "paper", "count", "layer"}
        VC scheme on a torus (module docstring); ``"none"`` = one VC.
    wraps : {"minimal", "first-hop"}
        Torus directions: minimal per dimension (REC), or mesh directions with a wraparound only as the first
        hop (``docs/conventions.md#first-hop-wraps``, for tori without VCs).
    tie : {"+", "-"}
        Direction of a tie dimension (k even, offset k/2).
    faults : Faults or None
    datelines : sequence of one ``(x+, x-, y+, y-)``, optional
        Explicit dateline nodes (:func:`pack_datelines`; a dateline scheme only); default the wrap links.

    Examples
    --------
    >>> from torus_lab.topology import Mesh
    >>> r = turn_model_routing(Mesh(2, 3), "north-last")
    >>> sorted(r.hops_to_nodes((0, 0), h)[1] for h in r.enumerate_routes((0, 0), (2, 2)))[:1]  # N is last
    [(1, 0)]
    """
    _check_topology(topology, True)
    _check_choice("algorithm", algorithm, TURN_MODELS)
    _check_scheme(topology, scheme)
    _check_choice("wraps", wraps, ("minimal", "first-hop"))
    if wraps == "first-hop" and scheme != "none":
        raise ValueError("wraps='first-hop' is the no-VC torus rule; use it with scheme='none'")
    name = algorithm + ("" if scheme == "none" else f"+{scheme}") + ("+firsthop" if wraps == "first-hop" else "")
    return _build(topology, faults, name, TURN_MODELS[algorithm], -1, _VN_SINGLE, scheme,
                  wrap_first=wraps == "first-hop", tie=tie,
                  options={"algorithm": algorithm, "scheme": scheme, "wraps": wraps, "tie": tie}, datelines=datelines)


def pfnf_routing(
    topology: Torus,
    variant: str = "reconstruction",
    *,
    scheme: str = "none",
    layout: str = "shared",
    dateline_offset: int | None = None,
    tie: str = "+",
    faults: Faults | None = None,
    datelines: Sequence[Sequence[int]] | None = None,
) -> RoutingFunction:
    """PFNF with two virtual networks on a 2D mesh, or mapped onto a 2D torus (paper Section 4).

    Parameters
    ----------
    topology : Mesh or Torus, 2D
    variant : {"reconstruction", "mirror", "literal", "switch"}
        REC reconstruction (NF + NF rotated 90°, VN by quadrant) and ALTs (module docstring).
    scheme : {"none", "paper", "count", "layer"}
        ``"paper"`` = the paper's mapping (per-direction datelines, VN1's datelines ``dateline_offset`` nodes
        from VN0's); ``"count"`` = VC class counts datelines crossed.
    layout : {"shared", "separate"}
        For ``scheme="paper"``: the after-dateline classes of the two VNs share VC 2 (REC, the paper's 3 VCs)
        or get VCs 1 and 3 (4 VCs; measurement of which channels need which class).
    dateline_offset : int, optional
        Shift of VN1's datelines, ``0 <= dateline_offset < k`` (default ``k // 2``, "halfway across").
    tie : {"+", "-"}
    faults : Faults or None
    datelines : sequence of two ``(x+, x-, y+, y-)``, optional
        Explicit dateline nodes per VN (:func:`pack_datelines`; a dateline scheme only), replacing
        ``dateline_offset``.

    Examples
    --------
    >>> from torus_lab.topology import Mesh
    >>> r = pfnf_routing(Mesh(2, 4))
    >>> [vc for _, vc in r.route_hops((0, 3), (3, 0))], [vc for _, vc in r.route_hops((0, 0), (3, 3))]
    ([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0])
    """
    _check_topology(topology, True)
    _check_choice("variant", variant, PFNF_VARIANTS)
    _check_scheme(topology, scheme)
    _check_choice("layout", layout, ("shared", "separate"))
    if variant == "switch" and scheme != "none":
        raise ValueError("variant 'switch' changes VN hop by hop; it is defined with scheme='none' only")
    mask0, mask1, rule = PFNF_VARIANTS[variant]
    offset = _offset(topology, dateline_offset)
    name = f"pfnf-{variant}" + ("" if scheme == "none" else f"+{scheme}") + ("-4vc" if layout == "separate"
                                                                              and scheme in ("paper", "layer") else "")
    return _build(topology, faults, name, mask0, mask1, rule, scheme, separate=layout == "separate", tie=tie,
                  offset=offset, options={"variant": variant, "scheme": scheme, "layout": layout,
                                          "dateline_offset": offset, "tie": tie}, datelines=datelines)


def duato_routing(topology: Torus, *, tie: str = "+", faults: Faults | None = None) -> RoutingFunction:
    """Duato-style design: escape VCs 0/1 = DOR with dateline classes, VC 2 = minimal fully adaptive.

    Check it with :func:`torus_lab.deadlock.duato_check` (escape VCs ``[0, 1]``), not the plain CDG.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> r = duato_routing(Torus(2, 4))
    >>> [(c.vc) for c in r.candidates((0, 0), (1, 1))]     # adaptive E, adaptive N, escape E
    [2, 2, 0]
    """
    _check_topology(topology, False)
    if not topology.wraparound:
        raise ValueError("duato_routing is the torus baseline; use pfnf_routing or turn_model_routing on a mesh")
    return _build(topology, faults, "duato-dor-escape", 0, -1, _VN_SINGLE, "duato", tie=tie,
                  options={"tie": tie, "escape_vcs": [0, 1], "adaptive_vcs": [2]})



_SCHEME_OPTION = Option("scheme", "VC scheme on a torus: none (one VC), paper datelines, dateline counting, or layers",
                        choices=("none", "paper", "count", "layer"))
_TIE_OPTION = Option("tie", "direction of a tie dimension (k even, offset k/2)", choices=("+", "-"))
register_routing(
    "turn-model",
    build=turn_model_routing,
    options=(
        Option("algorithm", "the turn-model algorithm", choices=tuple(TURN_MODELS)),
        _SCHEME_OPTION,
        Option("wraps", "torus directions: minimal per dimension, or a wraparound only as the first hop",
               choices=("minimal", "first-hop")),
        _TIE_OPTION,
    ),
    summary="turn-model algorithms (one virtual network) on a 2D mesh, or mapped onto a 2D torus",
    source="Upadhyay, Varavithya & Mohapatra, Section 3 (virtual mesh networks); Glass & Ni 1992",
    _builtin=True,
)
register_routing(
    "pfnf",
    build=pfnf_routing,
    options=(
        Option("variant", "PFNF reading: reconstruction (REC), mirror, literal, switch", choices=tuple(PFNF_VARIANTS)),
        _SCHEME_OPTION,
        Option("layout", "scheme paper/layer: after-dateline classes share VC 2 (3 VCs) or are separate (4 VCs)",
               choices=("shared", "separate")),
        Option("dateline_offset", "shift of VN1's datelines (None: k // 2)", minimum=0, types=(int, type(None))),
        _TIE_OPTION,
    ),
    summary="positive-first negative-first (two virtual networks) on a 2D mesh, or mapped onto a 2D torus",
    source="Upadhyay, Varavithya & Mohapatra, Section 4 (PFNF)",
    _builtin=True,
)
register_routing(
    "duato",
    build=duato_routing,
    options=(_TIE_OPTION,),
    summary="Duato-style design: escape VCs 0/1 = DOR with datelines, VC 2 = minimal fully adaptive",
    source="control design of this project (Duato, IEEE TPDS 4(12), 1993)",
    _builtin=True,
)


#: Largest radix :func:`dateline_positions` accepts.
_MAX_DATELINE_K = 4096


def dateline_positions(kind: str, spec: Mapping[str, Any], k: int) -> list[tuple[int, int, int]]:
    """The datelines of a routing spec (e-cube, a turn model or PFNF) on the k x k ``kind`` torus, as
    ``(vn, sign, node)``: the dateline of virtual network ``vn`` for ring direction ``sign`` is at ``node`` in
    both dimensions (row ``node`` for y, column ``node`` for x).

    The paper's Section 3.1: the *dateline* is the set of nodes that force the switch to the after-dateline
    VC (the hop leaving the node in that direction is the crossing hop, ``docs/conventions.md#datelines``).
    Unidirectional tori have only the ``+`` direction; PFNF has two VNs whose datelines are
    ``dateline_offset`` (default k // 2) apart (:func:`dateline_node`); e-cube's
    are the wraparound links (node k - 1 for ``+``, 0 for ``-``).  A routing without datelines (any routing on
    a mesh, e-cube without ``datelines``, a turn model or PFNF with scheme ``none``, any other entry) has none.

    >>> dateline_positions("bidirectional", {"name": "pfnf", "scheme": "paper"}, 5)   # paper Figs. 4, 5
    [(0, 1, 4), (0, -1, 0), (1, 1, 1), (1, -1, 2)]
    >>> dateline_positions("unidirectional", {"name": "ecube", "datelines": True}, 5)
    [(0, 1, 4)]
    >>> dateline_positions("mesh", {"name": "pfnf"}, 5), dateline_positions("bidirectional", {"name": "ecube"}, 5)
    ([], [])
    """
    check_str("kind", kind, NETWORK_KINDS)
    check_mapping("spec", spec, ["name"])
    k = check_int("k", k, minimum=3, maximum=_MAX_DATELINE_K)
    name = spec["name"]
    with_datelines = (name == "ecube" and bool(spec.get("datelines"))
                      or name in ("pfnf", "turn-model") and spec.get("scheme", "none") != "none")
    if kind == "mesh" or not with_datelines:
        return []
    vns = 2 if name == "pfnf" else 1
    signs = (1,) if kind == "unidirectional" else (1, -1)
    offset = spec.get("dateline_offset")
    return [(vn, sign, dateline_node(k, sign, vn, offset)) for vn in range(vns) for sign in signs]
