"""The BookSim2 validation study: reference checks, the sweep grid, stability and the verdict rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.experiment import project_root
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.booksim import booksim_zero_load_latency
from torus_lab.studies import booksim_validation as bv
from torus_lab.studies import booksim_validation_claims as bvc

ROOT = project_root()
REFERENCE = ROOT / "reference" / "booksim2"
PRESETS = yaml.safe_load((ROOT / "experiments" / "booksim_validation.yaml").read_text())["presets"]
TOLERANCES = {"zero_load_rel": 0.02, "latency_rel": 0.05, "saturation_abs": 0.02, "below_fraction": 0.8}


def _record(**changes):
    return {"name": "torus88_dor_vc2_p1", "network": "torus", "dims": 2, "radix": 8, "vcs": 2, "packet_length": 1,
            "channel_latency": 2, "router": {}, **changes}  # fmt: skip


def test_paper_preset_covers_every_reference_configuration():
    _, summary = bv.read_reference(REFERENCE)
    configs = bv.check_configs(PRESETS["paper"]["configs"], summary)
    assert {c["name"] for c in configs} == set(summary.config)


@pytest.mark.parametrize("field, value", [("radix", 4), ("dims", 3), ("vcs", 4), ("packet_length", 4),
                                          ("network", "mesh")])  # fmt: skip
def test_a_record_that_disagrees_with_the_reference_is_refused_naming_the_field(field, value):
    _, summary = bv.read_reference(REFERENCE)
    with pytest.raises(ValueError, match=f"{field}={value!r}"):
        bv.check_configs([_record(**{field: value})], summary)


def test_a_record_routes_as_the_reference_configuration_did():
    _, summary = bv.read_reference(REFERENCE)
    adaptive = _record(name="torus88_minadapt_vc4_p1", vcs=4, routing={"name": "booksim-min-adapt", "vcs": 4})
    assert bv.network_routing(bv.check_configs([adaptive], summary)[0]).name == "booksim-min-adapt"
    with pytest.raises(ValueError, match="BookSim2 ran min_adapt_torus"):
        bv.check_configs([{**adaptive, "routing": None}], summary)
    with pytest.raises(ValueError, match="BookSim2 ran dim_order_torus"):
        bv.check_configs([_record(routing="booksim-min-adapt")], summary)
    with pytest.raises(ValueError, match="has 6 VCs, the record 4"):
        bv.network_routing({**adaptive, "routing": {"name": "booksim-min-adapt", "vcs": 6}})


def test_unknown_configuration_and_missing_reference_files_are_refused(tmp_path):
    _, summary = bv.read_reference(REFERENCE)
    with pytest.raises(ValueError, match="'nope' is not a configuration"):
        bv.check_configs([_record(name="nope")], summary)
    with pytest.raises(ValueError, match="booksim2_runs.csv"):
        bv.read_reference(tmp_path)


def test_duplicate_names_and_bad_run_length_fields_are_refused_before_any_run():
    params = dict(PRESETS["quick"], configs=[_record(), _record()])
    with pytest.raises(ValueError, match="torus88_dor_vc2_p1"):
        bv.check_params(params)
    for key in ("run_length", "zero_load_run_length", "overload_run_length"):
        with pytest.raises(ValueError, match=f"{key}.*warm_up"):
            bv.check_params(dict(PRESETS["quick"], **{key: {"warm_up": 10}}))
    with pytest.raises(ValueError, match="overload_run_length.*'adaptive'"):
        bv.check_params(dict(PRESETS["quick"], overload_run_length=dict(PRESETS["quick"]["run_length"])))


def test_an_unstable_load_under_adaptive_control_is_aborted_early_and_counts_as_unstable():
    """BookSim2's abort: past saturation the mean age of waiting packets passes the latency cap, the run stops at the
    end of that sample period (long before its period limit) and the point is not stable."""
    adaptive = {"run_control": "adaptive", "sample_period": 200, "warmup_periods": 1, "stop_rule": "ci-width",
                "ci_target": 0.01, "max_periods": 50, "latency_cap": 100, "drain": 2000}  # fmt: skip
    row = bv.simulate_point(_record(dims=1, radix=4), 0.9, "latency", 0, adaptive, np.random.default_rng(5))
    assert row["status"] == "unstable" and row["end_rule"] == "unstable"
    light = bv.simulate_point(_record(dims=1, radix=4), 0.05, "latency", 0, adaptive, np.random.default_rng(5))
    assert light["status"] == "ok" and light["end_rule"] in ("ci-width", "max-periods")
    points = pd.DataFrame({"mode": "latency", "load": [0.05, 0.9], "deadlocked": 0,
                           "unstable": [0, 1], "queue_overflow": 0, "latency_mean": [light["latency"], 90.0],
                           "accepted_mean": [light["accepted"], 0.5], "generated_mean": [light["generated"], 0.5]})
    assert bv.stability(points, latency_cap=500, accept_ratio=0.97).tolist() == [True, False]


def test_items_cover_zero_load_every_sweep_load_and_overload_for_each_replica():
    runs, _ = bv.read_reference(REFERENCE)
    items = bv.validation_items([_record()], runs, seeds=2, run_length={"measure": 100},
                                zero_load_run_length={"measure": 500}, overload_run_length={"measure": 50})
    sweep_loads = runs[(runs.config == "torus88_dor_vc2_p1") & (runs.sim_type == "latency")].offered_flit_rate
    loads = sorted({i["load"] for i in items})
    assert loads == sorted({*sweep_loads.round(6), bvc.OVERLOAD})
    assert len(items) == 2 * len(loads)
    expected = {bvc.ZERO_LOAD: 500, bvc.OVERLOAD: 50}
    assert all(i["run_length"]["measure"] == expected.get(i["load"], 100) for i in items)
    assert [i["mode"] for i in items if i["load"] == bvc.OVERLOAD] == ["throughput"] * 2


@given(count=st.integers(2, 12))
@settings(max_examples=20, deadline=None)
def test_a_subset_of_loads_keeps_the_lightest_and_the_heaviest(count):
    runs = pd.DataFrame({"config": "c", "sim_type": "latency", "offered_flit_rate": [0.001, *np.arange(1, 11) / 20]})
    items = bv.validation_items([{"name": "c"}], runs, seeds=1, run_length={}, zero_load_run_length={},
                                overload_run_length={}, loads_per_config=count)  # fmt: skip
    swept = [i["load"] for i in items if i["mode"] == "latency" and i["load"] != bvc.ZERO_LOAD]
    assert swept[0] == 0.05 and swept[-1] == 0.5
    assert len(swept) == min(count, 10) and swept == sorted(set(swept))


def test_a_lone_point_at_tiny_load_matches_the_zero_load_formula():
    row = bv.simulate_point(_record(dims=1), 0.002, "latency", 0, {"warmup": 100, "measure": 3000, "drain": 2000},
                            np.random.default_rng(7))  # fmt: skip
    assert row["status"] == "ok"
    assert row["latency"] == pytest.approx(row["t0_formula"], abs=0.5)
    assert row["t0_formula"] == pytest.approx(float(booksim_zero_load_latency(row["routers"] - 1, 1)), abs=1e-9)


def test_an_overloaded_latency_point_queues_its_packets_instead_of_turning_them_away():
    """BookSim2's source queues are unbounded: past saturation a latency-mode point keeps every packet (latency grows
    with the wait), where the default capacity of 512 packets would have discarded some."""
    run_length = {"warmup": 0, "measure": 3000, "drain": 0, "inject_during_drain": False}
    record = _record(dims=1, radix=4)
    row = bv.simulate_point(record, 0.9, "latency", 0, run_length, np.random.default_rng(3))
    assert row["queue_overflow"] == 0 and row["generated"] > row["accepted"] + 0.2
    cfg = SimConfig.preset("booksim", **run_length, packet_length=1, channel_latency=2, offered_load=0.9)
    assert bv.unbounded_queue_capacity(cfg) > 3000 * 0.9 > cfg.queue_capacity
    small = simulate(bv.network_routing(record), cfg, seed=3)
    assert small.counters["queue_overflow"] > 0  # the default capacity overflows in the same run


@pytest.mark.parametrize("load", [0.0, 0.001, 0.3, 1.0, 4.0])
def test_the_unbounded_capacity_covers_every_packet_a_node_can_generate(load):
    cfg = SimConfig.preset("booksim", warmup=50, measure=500, drain=200, packet_length=4, offered_load=load)
    capacity = bv.unbounded_queue_capacity(cfg)
    assert 1 <= capacity <= 750  # at most one packet per cycle of generation (inject_during_drain: 750 cycles)
    assert capacity >= 750 * min(1.0, load / 4)


def _points(latency, accepted, generated, deadlocked=0, mode="latency", unstable=0, queue_overflow=0):
    return pd.DataFrame({"config": "c", "load": np.arange(1, len(latency) + 1) / 10, "mode": mode,
                         "latency_mean": latency, "accepted_mean": accepted, "accepted_ci": 0.0,
                         "generated_mean": generated, "deadlocked": deadlocked, "unstable": unstable,
                         "queue_overflow": queue_overflow})  # fmt: skip


@pytest.mark.parametrize("latency, ratio, expected", [(500.0, 0.97, True), (500.01, 0.97, False),
                                                      (100.0, 0.9699, False), (100.0, 1.0, True)])  # fmt: skip
def test_stability_boundaries(latency, ratio, expected):
    points = _points([latency], [ratio * 0.1], [0.1])
    assert bv.stability(points, latency_cap=500, accept_ratio=0.97).tolist() == [expected]


def test_a_deadlocked_unstable_or_throughput_point_is_never_stable():
    assert not bv.stability(_points([30.0], [0.1], [0.1], unstable=1), latency_cap=500, accept_ratio=0.9).any()
    assert not bv.stability(_points([30.0], [0.1], [0.1], queue_overflow=3), latency_cap=500, accept_ratio=0.9).any()
    assert not bv.stability(_points([30.0], [0.1], [0.1], deadlocked=1), latency_cap=500, accept_ratio=0.9).any()
    assert not bv.stability(_points([30.0], [0.1], [0.1], mode="throughput"), latency_cap=500, accept_ratio=0.9).any()


def test_the_highest_stable_load_does_not_count_a_recovery_after_a_failed_load():
    points = _points([30.0, 40.0, 900.0, 50.0], [0.1, 0.2, 0.25, 0.4], [0.1, 0.2, 0.3, 0.4])
    summary = pd.DataFrame({"config": ["c"], "max_stable_offered": [0.3], "overload_accepted_at_offered_1": [0.3]})
    table = bv.saturation_comparison(points, summary, latency_cap=500, accept_ratio=0.97)
    assert table.max_stable.item() == pytest.approx(0.2)
    assert table.max_stable_diff.item() == pytest.approx(-0.1)
    assert np.isnan(table.accepted_at_1.item())  # no throughput-mode point in this table


def _claims(diff_zero, diff_latency, diff_knee, diff_accepted):
    points = pd.DataFrame({"config": "c", "load": [0.001, 0.1, 0.2, 0.3], "mode": "latency",
                           "latency_diff": [diff_zero, diff_latency, 0.0, 5.0]})  # fmt: skip
    zero = pd.DataFrame({"config": ["c"], "bs_latency": [30.0], "latency_mean": [30.0 * (1 + diff_zero)],
                         "diff": [diff_zero]})  # fmt: skip
    saturation = pd.DataFrame({"config": ["c"], "bs_max_stable": [0.3], "max_stable": [0.3 + diff_knee],
                               "max_stable_diff": [diff_knee], "bs_accepted_at_1": [0.2],
                               "accepted_at_1": [0.2 + diff_accepted], "accepted_at_1_diff": [diff_accepted]})
    zero = zero.assign(latency_ci=0.1)
    saturation = saturation.assign(accepted_at_1_ci=0.001)
    params = {"tolerances": TOLERANCES, "seeds": 1, "run_length": {}, "zero_load_run_length": {},
              "overload_run_length": {}, "configs": [{"name": "c", "router": {}, "channel_latency": 1,
                                                      "not_modelled": "speculation"}]}  # fmt: skip
    table = bvc.claims({"points": points, "zero_load": zero, "saturation": saturation}, params)
    return dict(zip(table.claim_id, table.verdict, strict=True)), table


def test_verdicts_follow_the_tolerances_at_their_boundaries():
    verdicts, table = _claims(0.02, -0.05, 0.02, -0.02)
    assert set(verdicts.values()) == {"holds"}
    assert table.conditions.str.contains("not modelled: speculation").all()
    verdicts, _ = _claims(0.0201, 0.0501, 0.03, 0.021)
    assert set(verdicts.values()) == {"does not hold"}


def test_latency_beyond_the_comparison_limit_does_not_count():
    verdicts, _ = _claims(0.0, 0.01, 0.0, 0.0)  # the load 0.3 (100% of the knee) is 500% off and ignored
    assert verdicts["c_latency"] == "holds"
