"""e-cube / dimension-order routing (DOR) on k-ary n-cubes, meshes and hypercubes, with optional datelines.

Demaine & Srinivas, Section 4.1 (e-cube) and 4.2 (double e-cube); conventions ``docs/conventions.md#ecube`` and
``docs/conventions.md#datelines``.

* e-cube corrects the lowest-index differing dimension first, in its minimal direction (REC tie for even k
  with offset k/2: ``+``; ALT ``tie="-"``; ``tie="random"``: either way with equal probability, drawn from
  the kernel's random word as BookSim2's ``dor_next_torus`` does).  On a hypercube this is "lowest set bit of s XOR d".
* double e-cube picks the two lowest differing dimensions i < j and corrects i then j; the paper's Lemma says
  it is the same as e-cube, and the kernel is literally the same decision (``variant="double"`` only changes
  the name and records the pair in the header state, slots 0-1, for inspection).
* Datelines (Dally & Seitz; Dally & Towles): the VCs are split into two classes, class 0 = VCs
  ``0 .. V//2 - 1`` and class 1 = ``V//2 .. V-1``.  REC **switch-at-dateline**: a packet enters each dimension
  in class 0 and moves to class 1 on the hop that crosses the ring's dateline (the wraparound channel,
  ``k-1 -> 0`` along + and ``0 -> k-1`` along -), staying in class 1 for the rest of that dimension.  ALT
  **decide-at-entry** (BookSim ``dor_next_torus``): on entering a dimension use class 1 for the whole
  traversal if the minimal route crosses the wrap.  Datelines apply to every ring with a wraparound (k >= 3;
  for k = 3 they are harmless but not needed).  Without datelines every VC is a candidate.
* Faults: DOR is not fault tolerant; if the one channel it wants is faulty the kernel returns no candidate.

The kernel is routing-relation form: its decision depends only on (node, destination, input channel, input
VC), so it needs no header state.

Examples
--------
>>> from torus_lab.topology import Torus
>>> r = ecube_routing(Torus(2, 8), datelines=True, vcs=2)
>>> r.route((6, 0), (1, 0))        # + direction, crosses the dateline 7 -> 0
[(6, 0), (7, 0), (0, 0), (1, 0)]
>>> [vc for _, vc in r.route_hops((6, 0), (1, 0))]
[0, 1, 1]
"""

from __future__ import annotations

from torus_lab._jit import njit
from torus_lab._validate import check_str, is_int
from torus_lab.routing.interface import MAX_CANDIDATES, RoutingFunction, build_tables
from torus_lab.routing.registry import Option, register_routing
from torus_lab.topology import Faults, Torus

__all__ = ["ecube_routing", "ecube_kernel", "minimal_sign"]


# iparams layout
_P_VCS, _P_DATELINES, _P_TIE, _P_MODE, _P_DOUBLE = 0, 1, 2, 3, 4
_MODE_SWITCH, _MODE_ENTRY = 0, 1


@njit
def minimal_sign(c: int, e: int, k: int, wraparound: int, bidirectional: int, tie: int) -> int:
    """Direction (+1/-1) of a minimal route from coordinate ``c`` to ``e != c`` in one dimension.

    Radix 2 and meshes: the sign of ``e - c``; unidirectional torus: +1; bidirectional torus: the shorter
    way round, ``tie`` (+1/-1) when both are equally long.

    Examples
    --------
    >>> minimal_sign(0, 3, 4, 1, 1, 1), minimal_sign(0, 2, 4, 1, 1, -1), minimal_sign(0, 3, 4, 0, 1, 1)
    (-1, -1, 1)
    """
    if k == 2 or wraparound == 0:
        return 1 if e > c else -1
    if bidirectional == 0:
        return 1
    f = (e - c) % k
    if f < k - f:
        return 1
    if f > k - f:
        return -1
    return tie


@njit(refcount=False)
def ecube_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    """e-cube / DOR kernel (signature: :data:`torus_lab.routing.interface.KERNEL_SIGNATURE`)."""
    radices = tables.radices
    coords = tables.coords
    n = radices.shape[0]
    vcs = tables.iparams[_P_VCS]
    datelines = tables.iparams[_P_DATELINES]
    tie = tables.iparams[_P_TIE]
    mode = tables.iparams[_P_MODE]
    for d in range(n):
        k = radices[d]
        c = coords[cur * n + d]
        e = coords[dst * n + d]
        if c == e:
            continue
        if tie == 0:  # random tie-break: bit 0 of the random word
            sign = minimal_sign(c, e, k, tables.kind[0], tables.kind[1], 1 if rand % 2 == 0 else -1)
        else:
            sign = minimal_sign(c, e, k, tables.kind[0], tables.kind[1], tie)
        ch = tables.slot[(cur * n + d) * 2 + (1 if sign > 0 else 0)]
        if ch < 0 or tables.ch_ok[ch] == 0:
            return 0
        lo = 0
        hi = vcs
        if datelines != 0 and tables.kind[0] != 0 and k > 2:
            half = vcs // 2
            same_dim = in_ch >= 0 and tables.ch_dim[in_ch] == d
            if same_dim:
                cls = 1 if in_vc >= half else 0
            else:
                cls = 0
            if mode == _MODE_SWITCH:
                if tables.ch_wrap[ch] != 0:
                    cls = 1
            elif not same_dim:
                crosses = (e < c) if sign > 0 else (e > c)
                cls = 1 if crosses else 0
            if cls == 0:
                hi = half
            else:
                lo = half
        m = 0
        for v in range(lo, hi):
            out_ch[m] = ch
            out_vc[m] = v
            for s in range(state.shape[0]):
                out_state[m, s] = state[s]
            if tables.iparams[_P_DOUBLE] != 0:
                # double e-cube: record the pair (i, j) of the two lowest incorrect dimensions (i = d)
                out_state[m, 0] = d
                j = -1
                for d2 in range(d + 1, n):
                    if coords[cur * n + d2] != coords[dst * n + d2]:
                        j = d2
                        break
                out_state[m, 1] = j
            m += 1
        return m
    return 0


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return value


def ecube_routing(
    topology: Torus,
    *,
    datelines: bool = False,
    vcs: int = 1,
    tie: str = "+",
    dateline_rule: str = "switch",
    variant: str = "ecube",
    faults: Faults | None = None,
) -> RoutingFunction:
    """e-cube / dimension-order routing bound to ``topology``.

    Parameters
    ----------
    topology : Torus or Mesh (hypercubes are ``Torus(n, 2)``)
    datelines : bool, default False
        Split the VCs into two dateline classes (needs ``vcs >= 2``; only rings with a wraparound use them).
    vcs : int, default 1
        Virtual channels per physical channel.
    tie : {"+", "-", "random"}
        Direction taken when both ways round are minimal (REC ``"+"``; ``"random"``: either, equally likely).
    dateline_rule : {"switch", "entry"}
        REC switch-at-dateline or ALT decide-at-entry (``docs/conventions.md#datelines``).
    variant : {"ecube", "double"}
        e-cube or double e-cube (identical routes, paper Lemma of 4.2).
    faults : Faults or None
        Faulty channels/nodes; DOR returns no candidate when its channel is faulty.

    Returns
    -------
    RoutingFunction

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> ecube_routing(Torus(4, 2)).route((0, 0, 0, 0), (1, 1, 1, 0))   # paper Fig. 1: 0000 -> 0111
    [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0)]
    """
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    _check_bool("datelines", datelines)
    if not is_int(vcs) or not 1 <= vcs <= MAX_CANDIDATES:  # the kernel offers at most MAX_CANDIDATES choices
        raise ValueError(f"vcs must be an int in 1..{MAX_CANDIDATES}, got {vcs!r}")
    if datelines and vcs < 2:
        raise ValueError(f"datelines need vcs >= 2, got vcs={vcs}")
    check_str("tie", tie, ("+", "-", "random"))
    check_str("dateline_rule", dateline_rule, ("switch", "entry"))
    check_str("variant", variant, ("ecube", "double"))
    iparams = [0] * 5
    iparams[_P_VCS] = int(vcs)
    iparams[_P_DATELINES] = int(datelines)
    iparams[_P_TIE] = {"+": 1, "-": -1, "random": 0}[tie]
    iparams[_P_MODE] = _MODE_SWITCH if dateline_rule == "switch" else _MODE_ENTRY
    iparams[_P_DOUBLE] = int(variant == "double")
    name = ("double-ecube" if variant == "double" else "ecube") + ("+dateline" if datelines else "")
    return RoutingFunction(
        name=name,
        kernel=ecube_kernel,
        topology=topology,
        faults=faults,
        tables=build_tables(topology, faults, iparams),
        num_vcs=int(vcs),
        adaptive=False,
        random_choices=2 if tie == "random" else 1,
        options={
            "datelines": datelines,
            "vcs": int(vcs),
            "tie": tie,
            "dateline_rule": dateline_rule,
            "variant": variant,
        },
    )


register_routing(
    "ecube",
    build=ecube_routing,
    options=(
        Option("datelines", "split the VCs into two dateline classes (needs vcs >= 2)"),
        Option("vcs", "virtual channels per physical channel", minimum=1),
        Option("tie", "direction taken when both ways round are minimal (k even)", choices=("+", "-", "random")),
        Option("dateline_rule", "switch class at the dateline, or decide at dimension entry (BookSim)",
               choices=("switch", "entry")),
        Option("variant", "e-cube, or double e-cube (same routes, Lemma of 4.2)", choices=("ecube", "double")),
    ),
    summary="dimension-order routing, minimal per dimension, with optional dateline VC classes",
    source="Demaine & Srinivas 1996, Sections 4.1 (e-cube) and 4.2 (double e-cube); datelines: Dally & Seitz 1987",
    _builtin=True,
)
