"""Direction-first e-cube (Demaine & Srinivas, Section 5) and west-first on 2D tori (Section 4.3).

Interpretation choices: ``docs/conventions.md#df-phase`` and the entries after it.  One kernel serves both algorithms.

**Direction-first (west-first) phase in the 2D sub-torus X = dim i, Y = dim j** (``docs/conventions.md#df-phase``):

1. at the first hop of a phase (``h = 0``) a wraparound hop in X or Y is allowed iff it is the first hop of a
   torus-minimal path in that dimension (coordinate k-1 going +, or 0 going -; with a tie, k even and offset
   k/2, both ways are minimal); k = 2 has no wraparounds;
2. mesh directions ``mx = sign(d_X - s_X)``, ``my = sign(d_Y - s_Y)`` on plain integers (no wrap);
3. if ``mx = -1`` the only mesh option is W (= - along X); otherwise E (if ``mx = +1``) and N/S per ``my``;
4. an E/N/S mesh hop sets ``closedW``; wrap and W hops do not.

Candidate order (the simulator's selection takes the first free one; the paper leaves it open,
``docs/conventions.md#df-candidate-order``): rule-1 wraps whose wrap way is the unique minimal way (X then Y), then the
mesh hop in X, then in Y (REC tie -> X first), then rule-1 wraps in a tie dimension (both ways minimal).  This order
makes the *preferred* route minimal in the cases we checked; the other candidates are what adaptivity may choose under
congestion or faults, and they can be non-minimal (the mesh way round a ring whose wrap is no longer allowed).

**Main loop** (the paper's steps 1-4, ``docs/conventions.md#df-main-loop``): ``i`` = lowest incorrect dimension, ``j`` =
the next one; if there is none, ``j = y`` when ``y != i``, else a uniformly random dimension ``!= i`` (from the
simulator's seeded random word); when ``(i, j) != (x, y)`` the phase restarts (``x, y = i, j``, ``h = 0``,
``closedW = 0``).

**Header state** (paper: ``(f, x, y)``, one flag).  Slots: 0 = x, 1 = y, 2 = "phase started" (``h > 0``;
only ``h == 0`` is ever tested, so one bit suffices), 3 = closedW (diagnostic: decisions never read it),
4 = "message started" (for the ``"first"`` wrap rule), 5 = "has misrouted" (diagnostic).  All flags are
0/1 so the reachable header states are finite (the CDG tool enumerates them).  Deviation from the paper:
our flag means "this phase has started" rather than "the direction has been traversed" -- the paper's
``f`` cannot express rule 1 and rule 3 together (``docs/conventions.md#df-header``).  The decision-relevant header is
therefore (dest, x, y, started), the same size as the paper's Theorem 5.4 (see :func:`header_size_bits`); the
``"first"`` wrap rule needs one more bit ("message started").

**Wrap rules**: ``"phase"`` (REC = default, first hop of each 2D phase), ``"first"`` (only the
message's very first hop, ``docs/conventions.md#first-hop-wraps``), ``"none"``.

**Faults** (``docs/conventions.md#df-faults``, a design decision, not the paper's): allowed = the options above minus
faulty links (and links touching faulty nodes).  If none is left: (a) if ``mx >= 0`` (a non-west move is blocked) the
packet misroutes one mesh hop along +Y or -Y (non-faulty, non-wrap; +Y first), which sets ``closedW``;
(b) with a single incorrect dimension, Y is a fresh correct dimension (the random rule), so (a) detours
through it; (c) if a west hop is blocked no output is permitted -- the kernel returns no candidate and the
simulator waits ``drop_after`` cycles and then drops the packet (counted as undeliverable).
Finding: on hypercubes the REC misroute can bounce straight back (when Y < X the next phase corrects Y
first, and a forced west hop is a U-turn), which livelocks one packet and deadlocks two facing packets.
ALT ``misroute="detour"`` (ours): never take a U-turn, and when every allowed move is faulty misroute one
mesh hop along any *correct* dimension other than X (``-`` first, so that its later correction is an east
move the next phase may postpone).

**West-first on a 2D torus** (``west_first_routing``): the same phase rules with X = dim 0, Y = dim 1
fixed for the whole message and wraparounds allowed only on the message's first hop
(``docs/conventions.md#df-west-first``).

Examples
--------
>>> from torus_lab.topology import Torus
>>> r = direction_first_routing(Torus(3, 3))
>>> fig3 = [(1, 1, 0), (2, 1, 0), (2, 2, 0), (2, 2, 2)]   # paper Fig. 3: 011 -> 012 -> 022 -> 222 (s2 s1 s0)
>>> fig3 in [r.hops_to_nodes(fig3[0], hops) for hops in r.enumerate_routes(fig3[0], fig3[-1])]
True
>>> r.route((1, 1, 0), (2, 2, 2))   # the preferred route takes the dim-2 wrap at the start of phase (1, 2)
[(1, 1, 0), (2, 1, 0), (2, 1, 2), (2, 2, 2)]
>>> header_size_bits(3, 3)   # 2*ceil(log2 3) + ceil(3 log2 3) + 1
10
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_sequence, check_str, is_int
from torus_lab.routing.interface import MAX_CANDIDATES, RoutingFunction, build_tables
from torus_lab.routing.registry import Option, register_routing
from torus_lab.topology import Faults, Torus

__all__ = [
    "WRAP_RULES",
    "MISROUTE_POLICIES",
    "direction_first_kernel",
    "direction_first_routing",
    "west_first_routing",
    "header_size_bits",
    "double_ecube_route",
]

#: Where wraparound hops are allowed: first hop of each 2D phase (REC), of the message only, or never.
WRAP_RULES = ("phase", "first", "none")

# iparams layout
_P_VCS, _P_WRAP, _P_MISROUTE, _P_WEST_FIRST = 0, 1, 2, 3
#: Fault policies (``docs/conventions.md#df-faults``): REC misroute along +-Y, ALT detour through any correct dimension
#: without U-turns, or no misrouting at all.
MISROUTE_POLICIES = ("y", "detour", "none")
_MISROUTE_CODE = {"none": 0, "y": 1, "detour": 2}
# state layout (all flags saturate at 1)
_S_X, _S_Y, _S_H, _S_CLOSED, _S_MSG, _S_MIS = 0, 1, 2, 3, 4, 5


@njit(inline="always")
def _emit(ch, vcs, mesh_non_west, misroute, x, y, state, closed, m, out_ch, out_vc, out_state):
    """Append ``ch`` on every VC with the header state after the hop; returns the new count.

    The state after the hop is ``state`` with the phase ``(x, y)``, ``h = 1``, the message flag set, ``closedW``
    set by a mesh non-west hop and otherwise ``closed`` (0 when the phase restarts), the misroute flag set by a
    misroute (no copy of ``state`` is made: this runs once per routed head).
    """
    for v in range(vcs):
        out_ch[m] = ch
        out_vc[m] = v
        for s in range(state.shape[0]):
            out_state[m, s] = state[s]
        out_state[m, _S_X] = x
        out_state[m, _S_Y] = y
        out_state[m, _S_H] = 1
        out_state[m, _S_CLOSED] = 1 if mesh_non_west else closed
        out_state[m, _S_MSG] = 1
        if misroute:
            out_state[m, _S_MIS] = 1
        m += 1
    return m


@njit(inline="always")
def _wrap_channel(tables, cur, dim, c, e, k, strict):
    """The wraparound channel that starts a torus-minimal path from ``c`` to ``e`` in ``dim``, or -1.

    ``strict = True`` returns it only when the wrap way is the *unique* minimal way; ``False`` only when both
    ways are minimal (the tie, k even and offset k/2).
    """
    if k <= 2 or tables.kind[0] == 0 or c == e:
        return -1
    n = tables.radices.shape[0]
    f = (e - c) % k
    if (f == k - f) == strict:
        return -1
    if c == k - 1 and f <= k - f:
        return tables.slot[(cur * n + dim) * 2 + 1]
    if c == 0 and k - f <= f and tables.kind[1] != 0:
        return tables.slot[(cur * n + dim) * 2]
    return -1


@njit(inline="always")
def _mesh_channel(tables, cur, dim, sign):
    """The non-wraparound channel from ``cur`` along ``sign * e_dim``, or -1."""
    n = tables.radices.shape[0]
    ch = tables.slot[(cur * n + dim) * 2 + (1 if sign > 0 else 0)]
    if ch < 0 or tables.ch_wrap[ch] != 0:
        return -1
    return ch


@njit(refcount=False)
def direction_first_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    """Direction-first e-cube / west-first kernel (signature: ``interface.KERNEL_SIGNATURE``)."""
    radices = tables.radices
    coords = tables.coords
    n = radices.shape[0]
    vcs = tables.iparams[_P_VCS]
    wrap_rule = tables.iparams[_P_WRAP]
    misroute_ok = tables.iparams[_P_MISROUTE]
    # ---- choose the phase (X, Y) and whether it restarts
    h = state[_S_H]
    if tables.iparams[_P_WEST_FIRST] != 0:
        x_dim = 0
        y_dim = 1
    else:
        i = -1
        j = -1
        for d in range(n):
            if coords[cur * n + d] != coords[dst * n + d]:
                if i < 0:
                    i = d
                else:
                    j = d
                    break
        if i < 0:
            return 0
        if j < 0 and n > 1:
            if state[_S_Y] != i:
                j = state[_S_Y]
            else:
                r = rand % (n - 1)
                j = r if r < i else r + 1
        if i != state[_S_X] or j != state[_S_Y]:
            h = 0
        x_dim = i
        y_dim = j
    if wrap_rule == 0:
        allow_wrap = h == 0
    elif wrap_rule == 1:
        allow_wrap = state[_S_MSG] == 0
    else:
        allow_wrap = False
    # closedW handed to _emit: 0 when the phase restarts (h, reset too, is always 1 after a hop)
    closed = 0 if h == 0 and tables.iparams[_P_WEST_FIRST] == 0 else state[_S_CLOSED]
    kx = radices[x_dim]
    cx = coords[cur * n + x_dim]
    ex = coords[dst * n + x_dim]
    cy = 0
    ey = 0
    ky = 1
    if y_dim >= 0:
        ky = radices[y_dim]
        cy = coords[cur * n + y_dim]
        ey = coords[dst * n + y_dim]
    m = 0
    # ---- rule 1: wraparound first hops whose wrap way is the unique minimal one (X then Y)
    if allow_wrap:
        ch = _wrap_channel(tables, cur, x_dim, cx, ex, kx, True)
        if ch >= 0 and tables.ch_ok[ch] != 0:
            m = _emit(ch, vcs, False, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
        if y_dim >= 0:
            ch = _wrap_channel(tables, cur, y_dim, cy, ey, ky, True)
            if ch >= 0 and tables.ch_ok[ch] != 0:
                m = _emit(ch, vcs, False, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
    # ---- rules 2-3: mesh directions on plain integers
    mx = 1 if ex > cx else (-1 if ex < cx else 0)
    my = 1 if ey > cy else (-1 if ey < cy else 0)
    if mx == -1:
        ch = _mesh_channel(tables, cur, x_dim, -1)
        if ch >= 0 and tables.ch_ok[ch] != 0:
            m = _emit(ch, vcs, False, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
    else:
        if mx == 1:
            ch = _mesh_channel(tables, cur, x_dim, 1)
            if ch >= 0 and tables.ch_ok[ch] != 0:
                m = _emit(ch, vcs, True, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
        if my != 0:
            ch = _mesh_channel(tables, cur, y_dim, my)
            if ch >= 0 and tables.ch_ok[ch] != 0:
                m = _emit(ch, vcs, True, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
    # ---- rule 1 for ties (both ways minimal): offered after the mesh hops
    if allow_wrap:
        ch = _wrap_channel(tables, cur, x_dim, cx, ex, kx, False)
        if ch >= 0 and tables.ch_ok[ch] != 0:
            m = _emit(ch, vcs, False, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
        if y_dim >= 0:
            ch = _wrap_channel(tables, cur, y_dim, cy, ey, ky, False)
            if ch >= 0 and tables.ch_ok[ch] != 0:
                m = _emit(ch, vcs, False, False, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
    # ---- ALT "detour": never take a U-turn (back over the link just used)
    if misroute_ok == 2 and in_ch >= 0:
        back = tables.ch_src[in_ch]
        kept = 0
        for c in range(m):
            if tables.ch_dst[out_ch[c]] != back:
                out_ch[kept] = out_ch[c]
                out_vc[kept] = out_vc[c]
                for s in range(out_state.shape[1]):
                    out_state[kept, s] = out_state[c, s]
                kept += 1
        m = kept
    if m > 0 or mx < 0 or misroute_ok == 0 or y_dim < 0:
        return m
    if misroute_ok == 1:
        # ---- df-faults (a)/(b) REC: every allowed non-west move is faulty -> one mesh hop along +-Y
        for sign in (1, -1):
            ch = _mesh_channel(tables, cur, y_dim, sign)
            if ch >= 0 and tables.ch_ok[ch] != 0:
                m = _emit(ch, vcs, True, True, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
        return m
    # ---- ALT "detour": one mesh hop along any *correct* dimension other than X, "-" first (its correction
    # is then an east move, which the next phase may postpone), never a U-turn
    back = tables.ch_src[in_ch] if in_ch >= 0 else -1
    for sign in (-1, 1):
        for d in range(n):
            if d == x_dim or coords[cur * n + d] != coords[dst * n + d]:
                continue
            ch = _mesh_channel(tables, cur, d, sign)
            if ch >= 0 and tables.ch_ok[ch] != 0 and tables.ch_dst[ch] != back:
                m = _emit(ch, vcs, True, True, x_dim, y_dim, state, closed, m, out_ch, out_vc, out_state)
    return m


def header_size_bits(k: int, n: int, *, rounding: str = "ceil") -> float:
    """Header size of direction-first e-cube, Theorem 5.4: ``2 log2 n + n log2 k + 1`` bits.

    Parameters
    ----------
    k : int
        Radix, ``k >= 2``.
    n : int
        Number of dimensions, ``n >= 1``.
    rounding : {"ceil", "exact"}
        ``"ceil"`` (``docs/conventions.md#df-header``): whole fields, ``2 ceil(log2 n) + ceil(n log2 k) + 1`` (an int);
        ``"exact"``: the paper's real-valued formula.

    Examples
    --------
    >>> header_size_bits(2, 9), header_size_bits(4, 3), round(header_size_bits(3, 3, rounding="exact"), 3)
    (18, 11, 8.925)
    """
    for name, value, low in (("k", k, 2), ("n", n, 1)):
        if not is_int(value):
            raise TypeError(f"{name} must be an int, got {value!r}")
        if value < low:
            raise ValueError(f"{name} must be >= {low}, got {value!r}")
    check_str("rounding", rounding, ("ceil", "exact"))
    if rounding == "exact":
        return 2 * math.log2(n) + n * math.log2(k) + 1
    if rounding != "ceil":
        raise ValueError(f"rounding must be 'ceil' or 'exact', got {rounding!r}")
    return 2 * math.ceil(math.log2(n)) + math.ceil(n * math.log2(k) - 1e-12) + 1


def _common_checks(topology: Torus, vcs: int, faults: Faults | None) -> None:
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    if not is_int(vcs) or not 1 <= vcs <= MAX_CANDIDATES:
        raise ValueError(f"vcs must be an int in 1..{MAX_CANDIDATES}, got {vcs!r}")
    if faults is not None and not isinstance(faults, Faults):
        raise TypeError(f"faults must be a Faults or None, got {faults!r}")


def direction_first_routing(
    topology: Torus,
    *,
    wraps: str = "phase",
    misroute: str = "y",
    vcs: int = 1,
    faults: Faults | None = None,
) -> RoutingFunction:
    """Direction-first e-cube routing (Demaine & Srinivas, Section 5; ``docs/conventions.md#df-phase``) on ``topology``.

    Parameters
    ----------
    topology : Torus or Mesh
        Any k-ary n-cube (hypercubes are ``Torus(n, 2)``), mixed radix allowed.
    wraps : {"phase", "first", "none"}
        Wrap rule, see :data:`WRAP_RULES` (REC ``"phase"``).
    misroute : {"y", "detour", "none"}
        Fault policy, see :data:`MISROUTE_POLICIES`: REC ``"y"`` (``docs/conventions.md#df-faults`` (a), misroute along
        +-Y when every allowed non-west move is faulty), ALT ``"detour"``, or ``"none"``.
    vcs : int, default 1
        VCs per channel (the paper uses none, i.e. 1); every VC of an allowed channel is a candidate.
    faults : Faults or None

    Returns
    -------
    RoutingFunction
        Adaptive; ``random_choices = n - 1`` (the random Y dimension of step 1).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> r = direction_first_routing(Torus(2, 4))
    >>> sorted({c.channel for c in r.candidates((1, 1), (2, 3))}) == sorted(
    ...     [r.topology.channel_id((1, 1), 0, 1), r.topology.channel_id((1, 1), 1, 1)])
    True
    """
    _common_checks(topology, vcs, faults)
    check_str("wraps", wraps, WRAP_RULES)
    check_str("misroute", misroute, MISROUTE_POLICIES)
    iparams = [int(vcs), WRAP_RULES.index(wraps), _MISROUTE_CODE[misroute], 0]
    return RoutingFunction(
        name="direction-first-ecube"
        + ("" if wraps == "phase" else f"(wraps={wraps})")
        + ("" if misroute == "y" else f"(misroute={misroute})"),
        kernel=direction_first_kernel,
        topology=topology,
        faults=faults,
        tables=build_tables(topology, faults, iparams),
        num_vcs=int(vcs),
        adaptive=True,
        random_choices=max(1, topology.n - 1),
        options={"wraps": wraps, "misroute": misroute, "vcs": int(vcs)},
    )


def west_first_routing(
    topology: Torus, *, misroute: str = "y", vcs: int = 1, faults: Faults | None = None
) -> RoutingFunction:
    """West-first routing on a 2D torus with wraparounds only on the first hop (paper 4.3;
    ``docs/conventions.md#df-west-first``).

    West = - along dimension 0.  Same phase rules as :func:`direction_first_routing` with X = 0, Y = 1 for
    the whole message.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> west_first_routing(Torus(2, 4)).route((3, 0), (1, 3))   # Y wrap 0 -> 3 first, then west
    [(3, 0), (3, 3), (2, 3), (1, 3)]
    >>> west_first_routing(Torus(2, 8)).route((7, 7), (2, 2))   # needs two wraps: only the first is allowed
    [(7, 7), (0, 7), (1, 7), (2, 7), (2, 6), (2, 5), (2, 4), (2, 3), (2, 2)]
    """
    _common_checks(topology, vcs, faults)
    if topology.n != 2:
        raise ValueError(f"west-first needs a 2D topology, got n = {topology.n}")
    check_str("misroute", misroute, MISROUTE_POLICIES)
    iparams = [int(vcs), WRAP_RULES.index("first"), _MISROUTE_CODE[misroute], 1]
    return RoutingFunction(
        name="west-first",
        kernel=direction_first_kernel,
        topology=topology,
        faults=faults,
        tables=build_tables(topology, faults, iparams),
        num_vcs=int(vcs),
        adaptive=True,
        random_choices=1,
        options={"misroute": misroute, "vcs": int(vcs)},
    )


_MISROUTE_OPTION = Option("misroute", "fault policy: misroute along +-Y (default), detour, or none",
                          choices=MISROUTE_POLICIES)
_VCS_OPTION = Option("vcs", "virtual channels per channel (the paper uses 1); every VC of a channel is offered",
                     minimum=1)
register_routing(
    "direction-first",
    build=direction_first_routing,
    options=(Option("wraps", "wrap rule (see WRAP_RULES)", choices=WRAP_RULES), _MISROUTE_OPTION, _VCS_OPTION),
    summary="direction-first e-cube: west (negative) moves first, then adaptive positive moves",
    source="Demaine & Srinivas 1996, Section 5 (Theorem 5.1, Corollaries 5.2-5.3)",
    _builtin=True,
)
register_routing(
    "west-first",
    build=west_first_routing,
    options=(_MISROUTE_OPTION, _VCS_OPTION),
    summary="west-first turn-model routing on a 2D torus, wraparound only on the first hop",
    source="Demaine & Srinivas 1996, Section 4.3; Glass & Ni 1992",
    _builtin=True,
)


# ---------------------------------------------------------------------- double e-cube, written out
def _minimal_step(c: int, e: int, k: int) -> int:
    """The minimal way round a ring of ``k`` from digit ``c`` to ``e`` (``+1`` / ``-1``; a tie goes ``+``)."""
    forward = (e - c) % k
    return 1 if forward <= k - forward else -1


def double_ecube_route(topology: Torus, src: Sequence[int], dst: Sequence[int], *,
                       reading: str = "dimension") -> list[tuple[int, ...]]:  # fmt: skip
    """The node sequence of double e-cube (Demaine & Srinivas, Section 4.2) from ``src`` to ``dst``, written out
    from the text.

    Independent of the routing kernels (it checks them): take the two lowest incorrect dimensions ``i < j``,
    move along ``i``, then along ``j``, and repeat until no incorrect dimension is left (with one left, move
    along it).  Each move takes the minimal way round the ring (a tie, ``k`` even, goes ``+`` as e-cube's
    default).  ``reading`` says how far a move goes where ``k > 2`` (the paper defines double e-cube on
    hypercubes only, where both readings coincide): ``"dimension"`` corrects the dimension completely,
    ``"hop"`` takes one hop.

    Examples
    --------
    >>> double_ecube_route(Torus(4, 2), (0, 0, 0, 0), (1, 1, 1, 0))  # paper Fig. 1: 0000 -> 0111
    [(0, 0, 0, 0), (1, 0, 0, 0), (1, 1, 0, 0), (1, 1, 1, 0)]
    >>> double_ecube_route(Torus(2, 4), (0, 0), (2, 1), reading="hop")
    [(0, 0), (1, 0), (1, 1), (2, 1)]
    """
    check_instance("topology", topology, Torus, "a Torus")
    check_str("reading", reading, ("dimension", "hop"))
    radices = topology.radices
    cur = [int(v) for v in check_sequence("src", src)]
    target = [int(v) for v in check_sequence("dst", dst)]
    for name, node in (("src", cur), ("dst", target)):
        if len(node) != len(radices) or any(not 0 <= v < k for v, k in zip(node, radices, strict=True)):
            raise ValueError(f"{name} must be a node of {topology!r}, got {node!r}")
    return _double_ecube_path(radices, cur, target, reading)


def _double_ecube_path(radices: Sequence[int], src: Sequence[int], dst: Sequence[int],
                       reading: str) -> list[tuple[int, ...]]:  # fmt: skip
    """:func:`double_ecube_route` for checked arguments (nodes of ``radices``, ``reading`` one of the two)."""
    cur, target = list(src), list(dst)
    path = [tuple(cur)]

    def move(dim: int) -> None:
        while cur[dim] != target[dim]:
            cur[dim] = (cur[dim] + _minimal_step(cur[dim], target[dim], radices[dim])) % radices[dim]
            path.append(tuple(cur))
            if reading == "hop":
                return

    while cur != target:
        incorrect = [d for d in range(len(radices)) if cur[d] != target[d]]
        for dim in incorrect[:2]:
            move(dim)
    return path
