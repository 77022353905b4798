"""BookSim2-style minimal adaptive routing with dateline escape VCs (``torus_lab.routing.min_adapt``)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from torus_lab.deadlock import cdg_verdict, channel_dependency_graph, duato_check
from torus_lab.routing import make_routing, routing_entry
from torus_lab.routing.min_adapt import ADAPTIVE_VC, ESCAPE_VCS, min_adapt_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Mesh, Torus


def _walks(rf, src, dst):
    """Every route from ``src`` to ``dst`` over all adaptive and random choices, stuck ones included."""
    return list(rf.enumerate_routes(src, dst))


@pytest.mark.parametrize("output_set", ["every", "booksim"])
@pytest.mark.parametrize("radix", [4, 5, 8])
def test_every_walk_is_valid_and_minimal(radix, output_set):
    t = Torus(2, radix)
    rf = make_routing({"name": "booksim-min-adapt", "output_set": output_set}, t)
    rng = np.random.default_rng(np.random.SeedSequence(11))
    pairs = [(tuple(rng.integers(radix, size=2)), tuple(rng.integers(radix, size=2))) for _ in range(40)]
    for src, dst in pairs:
        if src == dst:
            continue
        walks = _walks(rf, src, dst)
        assert walks
        for hops in walks:
            assert hops[-1][0] >= 0  # never stuck: minimal adaptive on a fault-free torus always has a candidate
            nodes = rf.hops_to_nodes(src, hops)
            assert nodes[0] == src and nodes[-1] == dst
            assert len(hops) == t.lee_distance(src, dst)
            vcs = [vc for _, vc in hops]
            assert set(vcs) <= {*ESCAPE_VCS, ADAPTIVE_VC}
            escaped = [vc in ESCAPE_VCS for vc in vcs]
            assert escaped == sorted(escaped)  # once on an escape VC, never back on the adaptive one


def test_adaptive_offers_every_minimal_direction_then_escape():
    t = Torus(2, 8)
    rf = make_routing("booksim-min-adapt", t)
    cands = rf.candidates((0, 0), (2, 4))  # dimension 1 is a tie: the adaptive VC takes - only
    assert [(t.channel(c.channel), c.vc) for c in cands] == [(((0, 0), 0, 1), 3), (((0, 0), 1, -1), 3),
                                                             (((0, 0), 0, 1), 0)]  # fmt: skip
    # the escape hop of a tie takes either direction, by the random word
    tie = {(t.channel(c.channel), c.vc) for r in range(2) for c in rf.candidates((0, 0), (0, 4), rand=r)}
    assert tie == {(((0, 0), 1, -1), 3), (((0, 0), 1, 1), 0), (((0, 0), 1, -1), 0)}  # BookSim2 rule: 4 > 0, class 0


def test_booksim_output_set_keeps_the_first_adaptive_candidate_and_the_escape():
    t = Torus(3, 6)
    every = make_routing("booksim-min-adapt", t)
    first = make_routing({"name": "booksim-min-adapt", "output_set": "booksim"}, t)
    for dst in [(1, 2, 5), (0, 4, 1), (0, 0, 2)]:
        for rand in range(2):
            full = every.candidates((0, 0, 0), dst, rand=rand)
            kept = first.candidates((0, 0, 0), dst, rand=rand)
            adaptive = [c for c in full if c.vc == ADAPTIVE_VC]
            assert kept == [adaptive[0], full[-1]]  # the lowest dimension's adaptive hop, then the escape hop
    assert len(every.candidates((0, 0, 0), (1, 2, 5))) == 4


def test_escape_keeps_direction_and_class_within_a_dimension():
    t = Torus(2, 8)
    rf = make_routing("booksim-min-adapt", t)
    # on VC 0 along + in dimension 0, still two hops to go: the same direction and class, nothing else
    arrived = t.channel_id((1, 3), 0, 1)
    assert [(t.channel(c.channel), c.vc) for c in rf.candidates((2, 3), (4, 5), in_channel=arrived, in_vc=0)] == [
        (((2, 3), 0, 1), 0)
    ]
    # turning into dimension 1 from the escape network: a fresh dimension-order decision (5 < 3 is false: class 0)
    arrived = t.channel_id((3, 3), 0, 1)
    assert [(t.channel(c.channel), c.vc) for c in rf.candidates((4, 3), (4, 5), in_channel=arrived, in_vc=0)] == [
        (((4, 3), 1, 1), 0)
    ]


@pytest.mark.parametrize(("rule", "expected"), [("booksim", 0), ("wrap", 1)])
def test_escape_class_rules(rule, expected):
    t = Torus(1, 8)
    rf = make_routing({"name": "booksim-min-adapt", "escape_class": rule}, t)
    # from 1 to 6 the minimal way is -, across the wraparound 0 -> 7: BookSim2's rule gives class 0 (6 > 1)
    escape = [c for c in rf.candidates((1,), (6,)) if c.vc in ESCAPE_VCS]
    assert [(t.channel(c.channel), c.vc) for c in escape] == [(((1,), 0, -1), expected)]
    # along + both rules agree: class 1 exactly when the route crosses the wraparound
    assert [c.vc for c in rf.candidates((6,), (1,)) if c.vc in ESCAPE_VCS] == [1]
    assert [c.vc for c in rf.candidates((1,), (3,)) if c.vc in ESCAPE_VCS] == [0]


@pytest.mark.parametrize(("rule", "output_set"), [("booksim", "every"), ("wrap", "every"), ("booksim", "booksim")])
@pytest.mark.parametrize(("dims", "radix"), [(1, 8), (2, 4), (2, 5), (2, 6)])
def test_escape_cdg_is_acyclic_and_duato_holds(rule, output_set, dims, radix):
    rf = make_routing({"name": "booksim-min-adapt", "escape_class": rule, "output_set": output_set},
                      Torus(dims, radix))
    full = channel_dependency_graph(rf)
    escape = full.subgraph([v for v in full if v[1] in ESCAPE_VCS])
    assert escape.number_of_edges() > 0 and nx.is_directed_acyclic_graph(escape)
    verdict = duato_check(rf, list(ESCAPE_VCS))
    assert verdict.connected and verdict.acyclic and verdict.deadlock_free
    assert not cdg_verdict(rf).acyclic  # the adaptive VC alone closes ring cycles (k > 4 or in two dimensions)


def test_registry_entry_and_refusals():
    entry = routing_entry("booksim-min-adapt")
    assert entry.defaults() == {"vcs": 4, "escape_class": "booksim", "output_set": "every"}
    rf = make_routing({"name": "booksim-min-adapt", "vcs": 6}, Torus(2, 4))
    assert rf.num_vcs == 6
    assert rf.spec == {"name": "booksim-min-adapt", "vcs": 6, "escape_class": "booksim", "output_set": "every"}
    with pytest.raises(ValueError, match="option 'vcs' must be >= 4"):
        make_routing({"name": "booksim-min-adapt", "vcs": 3}, Torus(2, 4))
    with pytest.raises(ValueError, match="escape_class"):
        make_routing({"name": "booksim-min-adapt", "escape_class": "x"}, Torus(2, 4))
    with pytest.raises(ValueError, match="output_set"):
        min_adapt_routing(Torus(2, 4), output_set="all")
    with pytest.raises(ValueError, match="topology must be a bidirectional torus"):
        min_adapt_routing(Mesh(2, 4))
    with pytest.raises(ValueError, match="topology must be a bidirectional torus"):
        min_adapt_routing(Torus(2, 4, bidirectional=False))
    with pytest.raises(TypeError, match="topology"):
        min_adapt_routing("torus")


@pytest.mark.parametrize("router", ["simple", "booksim"])
def test_simulation_is_seed_deterministic_and_minimal(router):
    rf = make_routing("booksim-min-adapt", Torus(2, 4))
    cfg = SimConfig.preset("booksim", packet_length=1, offered_load=0.3, warmup=200, measure=600)
    if router == "simple":
        cfg = SimConfig(offered_load=0.3, packet_length=2, warmup=200, measure=600)
    a, b, c = (simulate(rf, cfg, seed=s) for s in (4, 4, 5))
    assert not a.deadlock and a.delivered > 0
    assert a.packets.equals(b.packets) and a.mean_latency == b.mean_latency
    assert not a.packets.equals(c.packets)
    assert (a.packets.hops == a.packets.min_hops).all()
