"""BookSim2-style minimal adaptive routing on tori with dateline escape VCs (``"booksim-min-adapt"``).

The mechanism of BookSim2's ``min_adapt`` routing on a torus (``min_adapt_torus``, commit 28f4329), re-stated in
this package's kernel interface; every choice is in ``docs/conventions.md#booksim-min-adapt``.  It is Duato's
method (Duato 1993) with a one-way escape network:

* **VCs.** ``vcs >= 4``.  VC 0 and VC 1 are the *escape* VCs (dateline classes 0 and 1 of dimension-order
  routing); VC 3 is the *adaptive* VC.  VC 2 and VCs above 3 are never an output of the routing: in the BookSim
  router model they are used only on the injection channel (the source may put a packet on any VC there).
* **Adaptive state.** A packet at its source router (``in_ch = -1``) or on a VC other than 0 and 1 is adaptive:
  its candidates are VC 3 on the minimal direction of every dimension still to correct (lowest dimension first;
  when both directions are minimal, ``-`` only), then the escape candidate, computed as if the packet were
  injected at this router: dimension order from here, a random direction when both are minimal (bit 0 of the
  random word), and a dateline class decided on entering the dimension.
* **BookSim2's output set** (``output_set="booksim"``). BookSim2's router keeps a routing function's candidates
  in a set ordered by priority alone, so of several candidates with the same priority it keeps the first: of the
  adaptive candidates (priority 1) only the lowest dimension's survives, beside the escape one (priority 0).
  ``"every"`` (default) is the algorithm as written; ``"booksim"`` is what BookSim2 runs.
* **Escape state.** A packet on VC 0 or 1 stays in the escape network until delivered: in the dimension it
  arrived along it keeps its direction and its VC (class); on turning into a new dimension it takes a fresh
  dimension-order decision (direction and class) for the lowest dimension still to correct.
* **Dateline class** on entering a dimension in direction ``s`` from coordinate ``c`` towards ``e``:
  ``escape_class="booksim"`` (default) is BookSim2's own rule, class 1 when ``e < c`` *whatever the direction*
  (so along ``-`` class 1 is the class of routes that do **not** cross the wraparound; still deadlock-free, as
  minimal routes never go round a whole ring); ``escape_class="wrap"`` gives class 1 to the routes that cross the
  wraparound (``e < c`` along ``+``, ``e > c`` along ``-``), the textbook rule.

The kernel needs no header state (its decision depends only on node, destination, arrival channel and VC, and
the random word).  Faults are not supported (BookSim2's routing ignores them): a faulty channel is never offered,
and a packet whose escape channel is faulty gets adaptive candidates only.

Examples
--------
>>> from torus_lab.topology import Torus
>>> rf = min_adapt_routing(Torus(2, 8))
>>> [(rf.topology.channel(c.channel), c.vc) for c in rf.candidates((0, 0), (2, 5))]   # injection
[(((0, 0), 0, 1), 3), (((0, 0), 1, -1), 3), (((0, 0), 0, 1), 0)]
>>> east = rf.topology.channel_id((5, 0), 0, 1)     # escape VC 1 (class 1: 1 < 5) into (6, 0)
>>> [(rf.topology.channel(c.channel), c.vc) for c in rf.candidates((6, 0), (1, 0), in_channel=east, in_vc=1)]
[(((6, 0), 0, 1), 1)]
"""

from __future__ import annotations

from torus_lab._jit import njit
from torus_lab._validate import check_instance, check_str, is_int
from torus_lab.routing.ecube import minimal_sign
from torus_lab.routing.interface import MAX_CANDIDATES, RoutingFunction, build_tables
from torus_lab.routing.registry import Option, register_routing
from torus_lab.topology import Faults, Mesh, Torus

__all__ = ["min_adapt_kernel", "min_adapt_routing", "ESCAPE_VCS", "ADAPTIVE_VC", "escape_class"]

#: The escape VCs (dateline class 0 and class 1 of dimension-order routing).
ESCAPE_VCS = (0, 1)
#: The one VC adaptive hops use (BookSim2's ``min_adapt_torus``: the fourth VC of the range).
ADAPTIVE_VC = 3

# iparams layout
_P_RULE, _P_FIRST_ONLY = 0, 1
_RULE_BOOKSIM, _RULE_WRAP = 0, 1


@njit
def escape_class(c: int, e: int, sign: int, rule: int) -> int:
    """Dateline class (0/1) of an escape route entering a dimension at coordinate ``c`` towards ``e != c``.

    ``rule`` 0 is BookSim2's (class 1 when ``e < c``, whatever the direction ``sign``), 1 the wraparound rule
    (class 1 when the route crosses the wraparound: ``e < c`` along ``+``, ``e > c`` along ``-``).

    Examples
    --------
    >>> escape_class(6, 1, 1, 0), escape_class(1, 6, -1, 0), escape_class(1, 6, -1, 1)
    (1, 0, 1)
    """
    if rule == _RULE_WRAP and sign < 0:
        return 1 if e > c else 0
    return 1 if e < c else 0


@njit
def _escape_hop(tables, cur, dst, in_ch, in_vc, rand, fresh):
    """(channel, VC) of the escape candidate at ``cur``, or (-1, 0) when its channel is faulty.

    ``fresh``: decide as on injection (direction and class for the lowest unfinished dimension); else keep the
    direction and class of the arrival hop when it ran along that dimension.
    """
    n = tables.radices.shape[0]
    for d in range(n):
        c = tables.coords[cur * n + d]
        e = tables.coords[dst * n + d]
        if c == e:
            continue
        if fresh == 0 and tables.ch_dim[in_ch] == d:
            sign = tables.ch_sign[in_ch]
            vc = in_vc
        else:
            sign = minimal_sign(c, e, tables.radices[d], 1, 1, 1 if rand % 2 == 1 else -1)
            vc = escape_class(c, e, sign, tables.iparams[_P_RULE])
        ch = tables.slot[(cur * n + d) * 2 + (1 if sign > 0 else 0)]
        if ch < 0 or tables.ch_ok[ch] == 0:
            return -1, 0
        return ch, vc
    return -1, 0


@njit(refcount=False)
def min_adapt_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    """BookSim2-style minimal adaptive kernel (signature: :data:`torus_lab.routing.interface.KERNEL_SIGNATURE`)."""
    n = tables.radices.shape[0]
    adaptive = in_ch < 0 or in_vc > 1
    m = 0
    if adaptive:
        for d in range(n):
            c = tables.coords[cur * n + d]
            e = tables.coords[dst * n + d]
            if c == e:
                continue
            sign = minimal_sign(c, e, tables.radices[d], 1, 1, -1)
            ch = tables.slot[(cur * n + d) * 2 + (1 if sign > 0 else 0)]
            if ch >= 0 and tables.ch_ok[ch] != 0:
                out_ch[m] = ch
                out_vc[m] = ADAPTIVE_VC
                m += 1
                if tables.iparams[_P_FIRST_ONLY] != 0:  # BookSim2's output set: one candidate per priority
                    break
    ch, vc = _escape_hop(tables, cur, dst, in_ch, in_vc, rand, 1 if adaptive else 0)
    if ch >= 0:
        out_ch[m] = ch
        out_vc[m] = vc
        m += 1
    for j in range(m):
        for s in range(state.shape[0]):
            out_state[j, s] = state[s]
    return m


def min_adapt_routing(
    topology: Torus,
    *,
    vcs: int = 4,
    escape_class: str = "booksim",
    output_set: str = "every",
    faults: Faults | None = None,
) -> RoutingFunction:
    """BookSim2-style minimal adaptive routing with dateline escape VCs, bound to a torus.

    Parameters
    ----------
    topology : Torus
        A bidirectional torus (not a mesh: the escape classes are dateline classes).
    vcs : int, default 4
        Virtual channels per physical channel (at least 4: escape VCs 0-1, adaptive VC 3; VC 2 and VCs above 3
        are injection-only).
    escape_class : {"booksim", "wrap"}
        Dateline class rule of the escape network (module docstring; ``docs/conventions.md#booksim-min-adapt``).
    output_set : {"every", "booksim"}
        ``"every"``: the adaptive VC on every minimal direction (the algorithm as BookSim2's routing function
        writes it); ``"booksim"``: the candidates BookSim2's router keeps of them, the first adaptive one (lowest
        dimension still to correct) and the escape one (its output set holds one entry per priority level).
    faults : Faults or None
        Faulty channels are never offered (BookSim2 has no faults here).

    Returns
    -------
    RoutingFunction

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> rf = min_adapt_routing(Torus(2, 4))
    >>> rf.name, rf.num_vcs, rf.adaptive
    ('booksim-min-adapt', 4, True)
    """
    check_instance("topology", topology, Torus, "a Torus")
    if isinstance(topology, Mesh) or not topology.bidirectional:
        raise ValueError(f"topology must be a bidirectional torus (not a mesh), got {topology!r}")
    if not is_int(vcs) or isinstance(vcs, bool) or not 4 <= vcs <= MAX_CANDIDATES:
        raise ValueError(f"vcs must be an int in 4..{MAX_CANDIDATES} (escape VCs 0-1, adaptive VC 3), got {vcs!r}")
    check_str("escape_class", escape_class, ("booksim", "wrap"))
    check_str("output_set", output_set, ("every", "booksim"))
    rule = _RULE_BOOKSIM if escape_class == "booksim" else _RULE_WRAP
    return RoutingFunction(
        name="booksim-min-adapt",
        kernel=min_adapt_kernel,
        topology=topology,
        faults=faults,
        tables=build_tables(topology, faults, [rule, int(output_set == "booksim")]),
        num_vcs=int(vcs),
        adaptive=True,
        random_choices=2,
        options={"vcs": int(vcs), "escape_class": escape_class, "output_set": output_set},
    )


register_routing(
    "booksim-min-adapt",
    build=min_adapt_routing,
    options=(
        Option("vcs", "virtual channels per physical channel (escape VCs 0-1, adaptive VC 3)", minimum=4),
        Option("escape_class", "dateline class rule of the escape network: BookSim2's, or crossing the wraparound",
               choices=("booksim", "wrap")),
        Option("output_set", "adaptive VC on every minimal direction, or only the first (what BookSim2's router keeps)",
               choices=("every", "booksim")),
    ),
    summary="minimal adaptive on VC 3 over a one-way dimension-order escape network with datelines (VCs 0-1)",
    source="BookSim2's min_adapt routing on tori (commit 28f4329), re-stated; Duato 1993 (escape channels)",
    _builtin=True,
)
