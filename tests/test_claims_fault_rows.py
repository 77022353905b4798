"""Boundaries of the verdict rules of the fault rows (direction-first: delivery judged per cell, fault policies named)
and of the Li, Peng & Chu rows on Algorithms 1-2 (instances as the independent sample, Chain's band)."""

import pandas as pd
import pytest

from torus_lab.claims import MIN_JUDGED
from torus_lab.studies.direction_first import latency_change_table
from torus_lab.studies.direction_first_claims import (
    EXTRA_HOPS_MAX,
    FAULT_EFFECT_MAX,
    LOST_MAX,
    _extra_hops_claims,
    _fault_effect_claims,
)

PARAMS = {"policies": ["y"], "fig4_ns": [4, 6], "fig4_seeds": 2, "seed": 1}


def _runs(rows):
    """Fig. 4 runs from (nodes, faults, latency, delivered, dropped, deadlock, extra_hops) tuples, policy 'y'."""
    frame = pd.DataFrame(rows, columns=["nodes", "faults", "latency", "delivered", "dropped", "deadlock",
                                        "extra_hops"])  # fmt: skip
    return frame.assign(misroute="y", undelivered=0, hop_limit_drops=0)


def _fault_row(rows):
    runs = _runs(rows)
    changes = latency_change_table({"paper": runs}, ["y"])
    return _fault_effect_claims({"paper": runs}, changes, PARAMS, "experiment seed 1")[0]


#: Fault counts per size: MIN_JUDGED faulty cells per size, so that either size alone has enough judged cells
#: (docs/conventions.md#claims-judged) and half of the cells still meet the judged share.
FAULTS = tuple(range(1, MIN_JUDGED + 1))


def _base(small=(100, 0), large=(1000, 0), change=0.05, faults=FAULTS):
    """Fault-free and faulty runs (each fault count of ``faults``) at 16 and 64 nodes (two runs each);
    ``small``/``large``: the faulty runs' (delivered, dropped); ``change``: the relative latency change of every
    faulty cell."""
    rows = []
    for nodes, (delivered, dropped) in ((16, small), (64, large)):
        for latency in (10.0, 10.0):
            rows.append((nodes, 0, latency, 1000, 0, False, 0.0))
            rows += [(nodes, f, latency * (1 + change), delivered, dropped, False, 0.2) for f in faults]
    return rows


def test_fault_effect_judges_delivery_per_cell_not_pooled():
    # the small cell loses 5% of its messages, the large none: pooled 0.45%, but the small cell does not deliver
    row = _fault_row(_base(small=(95, 5), large=(1000, 0)))
    cells = len(FAULTS)
    assert row.verdict == "holds under conditions"
    assert row.rule.params["conditional_n"] == cells == row.rule.params["judged"] and row.measured_value == cells
    assert f"{cells} of {2 * cells} cells did not deliver under policy 'y'" in row.measured_text
    assert "5.0% of messages lost" in row.measured_text and "'y'" in row.statement
    assert _fault_row(_base()).verdict == "holds"


@pytest.mark.parametrize("delivered, dropped, delivers", [(99, 1, False), (199, 1, True)])
def test_fault_effect_loss_boundary_is_strict(delivered, dropped, delivers):
    assert (delivered and dropped / (delivered + dropped) >= LOST_MAX) != delivers
    row = _fault_row(_base(small=(delivered, dropped)))
    assert row.verdict == ("holds" if delivers else "holds under conditions")


@pytest.mark.parametrize("change, verdict", [(FAULT_EFFECT_MAX, "holds"), (FAULT_EFFECT_MAX + 0.01, "does not hold")])
def test_fault_effect_latency_boundary_is_inclusive(change, verdict):
    # a change beyond the tolerance in cells that delivered is a failure of the claim, not of the policy
    assert _fault_row(_base(change=change)).verdict == verdict


@pytest.mark.parametrize("judged", [MIN_JUDGED - 1, MIN_JUDGED, MIN_JUDGED + 1])
def test_fault_effect_needs_enough_delivering_cells(judged):
    """Every delivering cell within the tolerance: "holds under conditions" only from MIN_JUDGED of them on; with
    fewer the row is inconclusive and says how many cells were judged (docs/conventions.md#claims-judged)."""
    rows = _base(small=(90, 10), large=(90, 10), faults=range(1, 11))    # 20 cells, none delivers
    delivering = {(64, f) for f in range(1, judged + 1)}
    rows = [(n, f, lat, 1000, 0, dl, x) if (n, f) in delivering else (n, f, lat, d, p, dl, x)
            for n, f, lat, d, p, dl, x in rows]
    row = _fault_row(rows)
    assert row.verdict == ("inconclusive" if judged < MIN_JUDGED else "holds under conditions")
    assert f"{judged} of 20 cases delivered a judgement" in row.evidence_text
    assert ("too few, inconclusive" in row.evidence_text) is (judged < MIN_JUDGED)


def test_fault_effect_deadlocked_run_makes_its_cell_undelivered_and_no_cell_is_not_testable():
    rows = _base()
    rows[1] = (16, 1, 10.5, 1000, 0, True, 0.2)  # one faulty run of the small cell deadlocked, none lost
    row = _fault_row(rows)
    runs = 2 * 2 * len(FAULTS)
    assert row.verdict == "holds under conditions"
    assert f"1 with deadlocked runs (1 of {runs} runs)" in row.measured_text
    rows = [(n, f, lat, d, 50 if f else 0, False, x) for n, f, lat, d, _, _, x in _base()]  # 5%-33% lost everywhere
    row = _fault_row(rows)
    assert row.verdict == "not testable here" and "no cell delivered" in row.measured_text


@pytest.mark.parametrize("hops, verdict", [(EXTRA_HOPS_MAX - 0.01, "holds"), (EXTRA_HOPS_MAX, "does not hold")])
def test_extra_hops_boundary_is_strict_per_run(hops, verdict):
    rows = [(n, f, lat, d, p, dl, hops if f else x) for n, f, lat, d, p, dl, x in _base()]
    row = _extra_hops_claims(_runs(rows), _runs(rows).iloc[0:0], "experiment seed 1")[0]
    assert row.verdict == verdict


def test_extra_hops_cells_that_lose_messages_leave_the_condition():
    rows = _base(small=(90, 10))
    row = _extra_hops_claims(_runs(rows), _runs(rows), "experiment seed 1")[0]
    # the small cells lose 10% in both runs labels: half the cells do not deliver, the others hold
    cells = 4 * len(FAULTS)
    assert (row.verdict, row.measured_value, row.rule.params["n"]) == ("holds under conditions", cells // 2, cells)
    assert f"{cells // 2} of {cells} cells did not deliver" in row.measured_text


# ------------------------------------------------------------------------------------------ Li, Peng & Chu
def _safety(instances, failed=0, m=3):
    pairs = 30 * instances
    return pd.DataFrame({"N": [8], "m": [m], "instances": [instances], "locally_safe": [instances],
                         "connected": [instances], "fault_rate_min": [0.2], "fault_rate_mean": [0.25],
                         "fault_rate_max": [0.3], "pairs": [pairs], "chain_successes": [pairs - failed],
                         "adaptive_square_successes": [pairs], "heuristic_square_successes": [pairs],
                         "seed": [1]})  # fmt: skip


@pytest.mark.parametrize("instances, verdict", [(298, "inconclusive"), (299, "holds")])
def test_locally_safe_rows_bound_the_rate_over_instances_not_pairs(instances, verdict):
    from torus_lab.studies.fault_tolerant_claims import _locally_safe_routing_claims

    label = {"chain": "Chain", "adaptive_square": "Adaptive-Square", "heuristic_square": "Heuristic-Square"}
    chain, adaptive = _locally_safe_routing_claims(_safety(instances), label)
    # 30 pairs per instance: 8940 pairs would pass the 1% bound, 298 instances do not
    assert chain.rule.params["n"] == instances and chain.verdict == verdict and adaptive.verdict == verdict
    assert chain.evidence_kind == "statistical" and adaptive.location.startswith("Algorithm 2")
    failed, _ = _locally_safe_routing_claims(_safety(instances, failed=2), label)
    assert failed.measured_value == instances - 2 and failed.verdict == "does not hold"


def test_chain_band_is_the_kernels_band_and_the_property_needs_t_far_enough():
    from torus_lab import Torus
    from torus_lab.routing.square import chain_band, chain_routing
    from torus_lab.studies.fault_tolerant import chain_band_table

    for target in [(5, 0), (5, 2), (5, 7), (4, 4)]:
        first = chain_routing(Torus(2, 8), set(), (0, 0), target, 4).squares[0]
        band = chain_band(8, 4, 0, target[1])
        assert sorted({node[1] for node in first.nodes(8)}) == sorted(band) and band[1] == 0, target
    # m = 3: one row behind, one ahead, always within d + 1; m = 4: t_1 = s_1 fails, one row away holds
    assert max(min(abs(v - 5), 16 - abs(v - 5)) for v in chain_band(16, 3, 5, 5)) == 1
    assert max(min(abs(v - 5), 16 - abs(v - 5)) for v in chain_band(16, 4, 5, 5)) == 2
    assert max(min(abs(v - 6), 16 - abs(v - 6)) for v in chain_band(16, 4, 5, 6)) <= 2
    table = chain_band_table([(8, 3), (8, 4), (16, 6)])
    assert (table.condition_satisfied == table.condition_pairs).all()
    assert table.set_index("m").satisfied.to_dict() == {3: 64, 4: 56, 6: 16 * 16 - 3 * 16}
    with pytest.raises(ValueError, match="m"):
        chain_band(8, 9, 0, 1)
