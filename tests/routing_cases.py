"""Registry round-trip cases: routing specs on small topologies and a digest of each one's complete behaviour.

The digest walks every routing state reachable from an injection at any source, for every destination and
every random choice, through :meth:`RoutingFunction.candidates` (the kernel itself), and hashes the sorted
list of ``(destination, node, input channel, input VC, header state, rand) -> candidates``.  Two routing
functions with the same digest offer the same candidates everywhere a message can be, so they route alike.

``tests/data/routing_golden.json`` holds the digests computed with the code *before* the registry existed
(commit "Golden digests of every built-in routing ..."); ``test_registry.py`` rebuilds each case through
the registry and compares.
"""

from __future__ import annotations

import hashlib

import numpy as np

from torus_lab.topology import Faults, Mesh, Torus

#: (case id, registry name, options, topology factory, fault channel ids given as (node, dim, sign) triples)
CASES = [
    ("ecube-t24", "ecube", {}, lambda: Torus(2, 4), ()),
    ("ecube-dl-t25", "ecube", {"datelines": True, "vcs": 2}, lambda: Torus(2, 5), ()),
    ("ecube-dl-tie-t24", "ecube", {"datelines": True, "vcs": 2, "tie": "-"}, lambda: Torus(2, 4), ()),
    ("ecube-entry-t25", "ecube", {"datelines": True, "vcs": 4, "dateline_rule": "entry"}, lambda: Torus(2, 5), ()),
    ("ecube-entry-random-t24", "ecube", {"datelines": True, "vcs": 2, "dateline_rule": "entry", "tie": "random"},
     lambda: Torus(2, 4), ()),
    ("ecube-double-t33", "ecube", {"variant": "double"}, lambda: Torus(3, 3), ()),
    ("ecube-mesh", "ecube", {}, lambda: Mesh(2, 3), ()),
    ("ecube-cube", "ecube", {}, lambda: Torus(4, 2), ()),
    ("ecube-mixed", "ecube", {"datelines": True, "vcs": 2}, lambda: Torus(2, (3, 5)), ()),
    ("ecube-uni", "ecube", {"datelines": True, "vcs": 2}, lambda: Torus(2, 4, bidirectional=False), ()),
    ("ecube-fault", "ecube", {}, lambda: Torus(2, 4), (((1, 0), 0, 1),)),
    ("df-t24", "direction-first", {}, lambda: Torus(2, 4), ()),
    ("df-t33", "direction-first", {}, lambda: Torus(3, 3), ()),
    ("df-first-t25", "direction-first", {"wraps": "first"}, lambda: Torus(2, 5), ()),
    ("df-none-t24", "direction-first", {"wraps": "none", "vcs": 2}, lambda: Torus(2, 4), ()),
    ("df-fault-y", "direction-first", {}, lambda: Torus(2, 5), (((1, 1), 0, 1), ((2, 2), 1, -1))),
    ("df-fault-detour", "direction-first", {"misroute": "detour"}, lambda: Torus(2, 5), (((1, 1), 0, 1),)),
    ("df-fault-none", "direction-first", {"misroute": "none"}, lambda: Torus(2, 5), (((1, 1), 0, 1),)),
    ("df-cube", "direction-first", {}, lambda: Torus(3, 2), ()),
    ("wf-t24", "west-first", {}, lambda: Torus(2, 4), ()),
    ("wf-t25-fault", "west-first", {"misroute": "none"}, lambda: Torus(2, 5), (((2, 2), 0, -1),)),
    ("wf-detour-fault", "west-first", {"misroute": "detour", "vcs": 2}, lambda: Torus(2, 4), (((2, 2), 1, 1),)),
    ("tm-wf-mesh", "turn-model", {"algorithm": "west-first"}, lambda: Mesh(2, 4), ()),
    ("tm-nl-mesh", "turn-model", {"algorithm": "north-last"}, lambda: Mesh(2, 4), ()),
    ("tm-nf-paper", "turn-model", {"algorithm": "negative-first", "scheme": "paper"}, lambda: Torus(2, 4), ()),
    ("tm-pf-count", "turn-model", {"algorithm": "positive-first", "scheme": "count"}, lambda: Torus(2, 5), ()),
    ("tm-ma-layer", "turn-model", {"algorithm": "minimal-adaptive", "scheme": "layer"}, lambda: Torus(2, 4), ()),
    ("tm-nw-firsthop", "turn-model", {"algorithm": "nw-first", "wraps": "first-hop"}, lambda: Torus(2, 4), ()),
    ("tm-se-tie", "turn-model", {"algorithm": "se-first", "tie": "-"}, lambda: Mesh(2, 4), ()),
    ("pfnf-mesh", "pfnf", {}, lambda: Mesh(2, 4), ()),
    ("pfnf-literal-mesh", "pfnf", {"variant": "literal"}, lambda: Mesh(2, 4), ()),
    ("pfnf-switch-mesh", "pfnf", {"variant": "switch"}, lambda: Mesh(2, 4), ()),
    ("pfnf-mirror-paper", "pfnf", {"variant": "mirror", "scheme": "paper"}, lambda: Torus(2, 4), ()),
    ("pfnf-paper", "pfnf", {"scheme": "paper"}, lambda: Torus(2, 5), ()),
    ("pfnf-paper-4vc", "pfnf", {"scheme": "paper", "layout": "separate"}, lambda: Torus(2, 4), ()),
    ("pfnf-literal-4vc", "pfnf", {"variant": "literal", "scheme": "paper", "layout": "separate"},
     lambda: Torus(2, 4), ()),
    ("pfnf-count", "pfnf", {"scheme": "count"}, lambda: Torus(2, 4), ()),
    ("pfnf-tie-minus", "pfnf", {"scheme": "paper", "tie": "-"}, lambda: Torus(2, 4), ()),
    ("pfnf-layer-off1", "pfnf", {"scheme": "layer", "dateline_offset": 1}, lambda: Torus(2, 5), ()),
    ("duato-t24", "duato", {}, lambda: Torus(2, 4), ()),
    ("duato-t35", "duato", {"tie": "-"}, lambda: Torus(2, 5), ()),
    # booksim-min-adapt came after the registry: its digests pin the behaviour it was introduced with
    ("bs-min-adapt-t24", "booksim-min-adapt", {}, lambda: Torus(2, 4), ()),
    ("bs-min-adapt-wrap-t25", "booksim-min-adapt", {"escape_class": "wrap"}, lambda: Torus(2, 5), ()),
    ("bs-min-adapt-set-t34", "booksim-min-adapt", {"output_set": "booksim", "vcs": 5}, lambda: Torus(3, 4), ()),
]


def case_faults(topology: Torus, triples) -> Faults | None:
    """Faults of a case: the channels ``(node, dim, sign)`` (both directions of each link)."""
    if not triples:
        return None
    links = set()
    for node, dim, sign in triples:
        ch = topology.channel_id(node, dim, sign)
        links.add(int(ch))
        back = topology.channel_id(tuple(int(v) for v in topology.coords(int(topology.channel_dst[ch]))), dim, -sign)
        links.add(int(back))
    return Faults(links=frozenset(links))


def behaviour_digest(rf) -> str:
    """sha256 of every reachable ``(dst, node, in_ch, in_vc, state, rand) -> candidates`` of ``rf``."""
    topo = rf.topology
    bad = rf.faults.node_mask(topo) if rf.faults is not None else np.zeros(topo.num_nodes, dtype=bool)
    lines = []
    for dst in range(topo.num_nodes):
        if bad[dst]:
            continue
        seen = set()
        stack = [(src, None, 0, rf.initial_state()) for src in range(topo.num_nodes) if src != dst and not bad[src]]
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            cur, in_ch, in_vc, state = key
            for rand in range(rf.random_choices):
                cands = rf.candidates(cur, dst, in_ch, in_vc, state, rand)
                lines.append(repr((dst, cur, in_ch, in_vc, state, rand, [(c.channel, c.vc, c.state) for c in cands])))
                for c in cands:
                    nxt = int(topo.channel_dst[c.channel])
                    if nxt != dst:
                        stack.append((nxt, c.channel, c.vc, c.state))
    lines.sort()
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()
