"""Destination rules of the simulator's traffic patterns, each checked on a small torus
against its definition written out independently, plus properties shared by all permutation patterns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.traffic import PATTERNS, PERMUTATIONS, destination_map
from torus_lab.topology import Faults, Torus


def _rule_pairs(topology: Torus, traffic: str) -> dict[int, int]:
    """Source id -> destination id per the pattern's definition, node by node (no numpy)."""
    pairs = {}
    n_bits = topology.num_nodes.bit_length() - 1
    for node in range(topology.num_nodes):
        x = topology.coords(node)
        ks = topology.radices
        if traffic == "transpose":
            image = topology.node_id(tuple(reversed(x)))
        elif traffic == "bit-complement":
            image = topology.node_id(tuple(k - 1 - xi for xi, k in zip(x, ks, strict=True)))
        elif traffic == "tornado":
            image = topology.node_id(tuple((xi + -(-k // 2) - 1) % k for xi, k in zip(x, ks, strict=True)))
        elif traffic == "neighbor":
            image = topology.node_id(tuple((xi + 1) % k for xi, k in zip(x, ks, strict=True)))
        elif traffic == "bit-reverse":
            image = int(format(node, f"0{n_bits}b")[::-1], 2)
        elif traffic == "shuffle":
            text = format(node, f"0{n_bits}b")
            image = int(text[1:] + text[0], 2)
        else:
            raise AssertionError(traffic)
        pairs[node] = int(image)
    return pairs


@pytest.mark.parametrize("traffic", ["transpose", "bit-complement", "tornado", "neighbor", "bit-reverse", "shuffle"])
@pytest.mark.parametrize("shape", [(2, 4), (3, 2), (2, 8)])
def test_permutation_matches_its_definition(traffic, shape):
    topology = Torus(*shape)
    dmap = destination_map(topology, traffic)
    for src, dst in _rule_pairs(topology, traffic).items():
        assert dmap[src] == (-1 if dst == src else dst), (traffic, topology.coords(src))


def test_bit_patterns_on_a_hypercube_flip_reverse_and_rotate_address_bits():
    cube = Torus(3, 2)  # node id = x0 + 2 x1 + 4 x2
    assert destination_map(cube, "bit-complement").tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
    assert destination_map(cube, "bit-reverse").tolist() == [-1, 4, -1, 6, 1, -1, 3, -1]
    assert destination_map(cube, "shuffle").tolist() == [-1, 2, 4, 6, 1, 3, 5, -1]


def test_tornado_goes_ceil_half_minus_one_positive_steps_in_every_dimension():
    for k in (3, 4, 5, 8, 9):
        topology = Torus(2, k)
        dmap = destination_map(topology, "tornado")
        step = (k + 1) // 2 - 1
        for node in range(topology.num_nodes):
            x = topology.coords(node)
            expected = tuple((xi + step) % k for xi in x)
            assert dmap[node] == (-1 if step == 0 else topology.node_id(expected))


@pytest.mark.parametrize("traffic", ["bit-reverse", "shuffle"])
def test_bit_patterns_refuse_a_node_count_that_is_not_a_power_of_two(traffic):
    with pytest.raises(ValueError, match=f"traffic '{traffic}' needs a power-of-two number of nodes, got 25"):
        destination_map(Torus(2, 5), traffic)


def test_transpose_refuses_unequal_radices():
    with pytest.raises(ValueError, match=r"transpose' needs equal radices, got \(4, 6\)"):
        destination_map(Torus(2, (4, 6)), "transpose")


def test_random_permutation_needs_an_rng_and_is_seed_deterministic():
    topology = Torus(2, 4)
    with pytest.raises(ValueError, match="random-permutation' needs rng"):
        destination_map(topology, "random-permutation")
    a = destination_map(topology, "random-permutation", rng=np.random.default_rng(1))
    b = destination_map(topology, "random-permutation", rng=np.random.default_rng(1))
    c = destination_map(topology, "random-permutation", rng=np.random.default_rng(2))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@settings(max_examples=40, deadline=None)
@given(
    dims=st.integers(1, 3),
    radix=st.sampled_from([2, 3, 4, 5, 8]),
    traffic=st.sampled_from(PERMUTATIONS),
    fault=st.integers(-1, 7),
    seed=st.integers(0, 2**32),
)
def test_every_permutation_is_injective_and_avoids_faulty_nodes(dims, radix, traffic, fault, seed):
    topology = Torus(dims, radix)
    faults = Faults(nodes=frozenset({topology.coords(fault % topology.num_nodes)})) if fault >= 0 else None
    try:
        dmap = destination_map(topology, traffic, faults, rng=np.random.default_rng(seed))
    except ValueError as err:  # the only refusals: a bit pattern on a node count that is not a power of two
        assert traffic in ("bit-reverse", "shuffle") and topology.num_nodes & (topology.num_nodes - 1), err
        return
    senders = np.flatnonzero(dmap >= 0)
    assert len(set(dmap[senders].tolist())) == len(senders)  # no two sources share a destination
    assert (dmap[senders] != senders).all()
    if faults is not None:
        bad = topology.node_id(next(iter(faults.nodes)))
        assert dmap[bad] == -1 and bad not in dmap[senders]


@pytest.mark.parametrize("traffic", sorted(PATTERNS))
def test_simulated_packets_follow_the_pattern(traffic):
    topology = Torus(2, 4)
    routing = ecube_routing(topology, datelines=True, vcs=2)
    config = SimConfig(traffic=traffic, offered_load=0.2, warmup=0, measure=300, hotspot_node=5, hotspot_fraction=0.5)
    packets = simulate(routing, config, seed=3).packets
    assert len(packets) > 0 and (packets.src != packets.dst).all()
    if traffic in PERMUTATIONS:
        per_source = packets.groupby("src").dst.nunique()
        assert (per_source == 1).all()  # a fixed destination per source
        senders = packets.drop_duplicates("src")
        assert senders.dst.is_unique
        if traffic != "random-permutation":
            dmap = destination_map(topology, traffic)
            assert (dmap[packets.src.to_numpy()] == packets.dst.to_numpy()).all()
    if traffic == "hotspot":
        assert (packets.dst == 5).mean() > 0.4


def test_random_permutation_is_drawn_from_the_run_seed():
    topology = Torus(2, 4)
    routing = ecube_routing(topology, datelines=True, vcs=2)
    config = SimConfig(traffic="random-permutation", offered_load=0.3, warmup=0, measure=300)

    def pairs(seed: int) -> set[tuple[int, int]]:
        packets = simulate(routing, config, seed=seed).packets
        return set(zip(packets.src.tolist(), packets.dst.tolist(), strict=True))

    assert pairs(4) == pairs(4)
    assert pairs(4) != pairs(5)


# ---------------------------------------------------------------------------------------------------- injection


def test_on_off_state_machine_toggles_when_both_switch_probabilities_are_one():
    from torus_lab.sim.traffic import starts_packet

    rates = np.array([1.0, 1.0, 1.0])  # always switch, always send while on
    on, rng = np.zeros(2, dtype=np.uint8), np.array([5], dtype=np.uint64)
    sent = [bool(starts_packet(1, rates, on, 1, rng)) for _ in range(6)]
    assert sent == [True, False, True, False, True, False]
    assert on[0] == 0  # other nodes' states untouched


def test_on_off_never_sends_while_off_and_bernoulli_ignores_the_state():
    from torus_lab.sim.traffic import starts_packet

    rates = np.array([1.0, 1e-300, 0.0])  # practically never turns on
    on, rng = np.zeros(1, dtype=np.uint8), np.array([5], dtype=np.uint64)
    assert not any(starts_packet(1, rates, on, 0, rng) for _ in range(100))
    assert all(starts_packet(0, rates, on, 0, rng) for _ in range(100))


def _gap_cv2(packets) -> float:
    """Squared coefficient of variation of the gaps between consecutive packets of a source."""
    gaps = np.concatenate([np.diff(np.sort(g.gen.to_numpy())) for _, g in packets.groupby("src")])
    return float(gaps.var() / gaps.mean() ** 2)


def test_on_off_keeps_the_mean_rate_and_makes_traffic_bursty():
    topology = Torus(2, 4)
    routing = ecube_routing(topology, datelines=True, vcs=2)
    base = dict(offered_load=0.1, packet_length=1, warmup=0, measure=20000, drain=2000)
    bernoulli = simulate(routing, SimConfig(**base), seed=1)
    bursty = simulate(routing, SimConfig(**base, injection="on-off", burst_alpha=0.01, burst_beta=0.04), seed=1)
    for result in (bernoulli, bursty):
        assert result.generated_throughput == pytest.approx(0.1, rel=0.1)
    assert _gap_cv2(bernoulli.packets) < 1.2  # geometric gaps: CV^2 = 1 - p
    assert _gap_cv2(bursty.packets) > 2.0


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"injection": "poisson"}, "injection must be one of"),
        ({"injection": "on-off", "burst_alpha": 0.0}, "burst_alpha must be > 0"),
        ({"injection": "on-off", "offered_load": 0.9, "packet_length": 1, "burst_alpha": 0.2, "burst_beta": 0.2},
         r"offered_load=0.9 needs 1.8 packets per cycle during a burst"),
        ({"burst_beta": 1.5}, r"burst_beta must be in \[0.0, 1.0\], got 1.5"),
    ],
)
def test_injection_settings_are_checked(changes, message):
    with pytest.raises(ValueError, match=message):
        SimConfig(**changes)


# ---------------------------------------------------------------------------------------------------- asymmetric


def test_asymmetric_partner_is_the_node_half_the_ids_away_and_needs_an_even_count():
    topology = Torus(2, 4)
    partner = destination_map(topology, "asymmetric")
    assert partner.tolist() == [(node + 8) % 16 for node in range(16)]
    faulty = destination_map(topology, "asymmetric", Faults(nodes=frozenset({topology.coords(3)})))
    assert faulty[3] == -1 and faulty[11] == -1  # the faulty node and the node whose partner it is
    with pytest.raises(ValueError, match="traffic 'asymmetric' needs an even number of nodes, got 9"):
        destination_map(Torus(2, 3), "asymmetric")


@pytest.mark.parametrize("router", ["simple", "booksim"])
def test_asymmetric_packets_go_to_the_partner_or_with_self_traffic_half_to_themselves(router):
    topology = Torus(2, 4)
    routing = ecube_routing(topology, datelines=True, vcs=2, dateline_rule="entry")
    base = dict(traffic="asymmetric", offered_load=0.1, packet_length=1, warmup=0, measure=3000)
    if router == "booksim":
        make = lambda **extra: SimConfig.preset("booksim", **base, **extra)  # noqa: E731
    else:
        make = lambda **extra: SimConfig(**base, **extra)  # noqa: E731
    partner = (np.arange(16) + 8) % 16
    only_partner = simulate(routing, make(uniform_includes_source=False), seed=2).packets
    assert (only_partner.dst.to_numpy() == partner[only_partner.src.to_numpy()]).all()
    mixed = simulate(routing, make(uniform_includes_source=True), seed=2).packets
    to_self = (mixed.dst == mixed.src).to_numpy()
    assert (mixed.dst.to_numpy()[~to_self] == partner[mixed.src.to_numpy()[~to_self]]).all()
    assert 0.4 < to_self.mean() < 0.6
