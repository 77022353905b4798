"""Tests of run-length control (torus_lab.sim.runlength): the adaptive rules on both router models, deadlock as a
status with a warning, fixed windows unchanged by chunked running, option validation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import END_RULES, SimConfig, SimulationDeadlock, load_sweep, saturation_table, simulate
from torus_lab.sim.runlength import MIN_BATCHES, ci_width_met, relative_change
from torus_lab.topology import Torus

DOR = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
ROUTERS = ("simple", "booksim")


def _adaptive(router: str, **overrides) -> SimConfig:
    return SimConfig.preset(router, run_control="adaptive", sample_period=400, **overrides)


def _measured_window_is_consistent(res) -> None:
    """Every recorded packet was created in the measurement window; all of them drained; phases in order."""
    assert 0 < res.warmup_end < res.measure_end <= res.cycles
    assert res.packets.gen.between(res.warmup_end, res.measure_end - 1).all()
    assert res.undelivered == 0 and res.delivered == res.counters["measured_done"] > 0
    phases = res.period_table.phase.tolist()
    assert phases == sorted(phases, key=["warm-up", "measurement", "drain"].index)
    assert res.periods == sum(p != "drain" for p in phases)


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
def test_relative_change_is_booksims_measure(previous, current):
    change = relative_change(previous, current)
    if previous == current:
        assert change == 0.0
    elif current == 0:
        assert change == math.inf
    else:
        assert change == pytest.approx(abs(current - previous) / abs(current))


@given(st.lists(st.floats(1.0, 100.0), min_size=1, max_size=12))
def test_ci_width_rule_needs_enough_batches_and_holds_for_equal_batches(batches):
    if len(batches) < MIN_BATCHES:
        assert not ci_width_met(batches, target=0.5)
    else:
        assert ci_width_met([batches[0]] * len(batches), target=1e-9)  # zero spread: any target is met
        spread = np.std(batches, ddof=1) / np.mean(batches)
        if spread > 0.5:  # the half-width exceeds 0.5 * mean / sqrt(n) * t > target for n <= 12
            assert not ci_width_met(batches, target=0.1)


@pytest.mark.parametrize("router", ROUTERS)
def test_low_load_converges_says_so_and_agrees_with_a_long_fixed_run(router):
    res = simulate(DOR, _adaptive(router, offered_load=0.1, max_periods=30), seed=2)
    assert res.end_rule == "converged" and res.end_phase == "drain" and not res.deadlock
    _measured_window_is_consistent(res)
    measuring = res.period_table[res.period_table.phase == "measurement"]
    assert len(measuring) >= 3  # converged_periods = 3 consecutive comparisons (the first with the last warm-up)
    fixed = simulate(DOR, SimConfig.preset(router, offered_load=0.1, warmup=1000, measure=6000), seed=3)
    assert res.mean_latency == pytest.approx(fixed.mean_latency, rel=0.05)
    assert res.accepted_throughput == pytest.approx(fixed.accepted_throughput, rel=0.1)


@pytest.mark.parametrize("router", ROUTERS)
def test_ci_width_rule_stops_once_the_interval_is_narrow(router):
    res = simulate(DOR, _adaptive(router, offered_load=0.2, stop_rule="ci-width", ci_target=0.02, max_periods=40),
                   seed=4)  # fmt: skip
    assert res.end_rule == "ci-width"
    _measured_window_is_consistent(res)
    batches = res.period_table[res.period_table.phase == "measurement"].latency
    assert len(batches) >= MIN_BATCHES
    assert res.latency_ci < 0.02 * batches.mean()
    shorter = batches.iloc[:-1]  # the rule was not met one period earlier
    assert len(shorter) < MIN_BATCHES or not ci_width_met(shorter.tolist(), 0.02)


def test_an_unreachable_threshold_runs_to_max_periods_then_drains():
    res = simulate(DOR, _adaptive("simple", offered_load=0.1, stop_threshold=1e-12, max_periods=6), seed=5)
    assert res.end_rule == "max-periods" and res.periods == 6
    _measured_window_is_consistent(res)


def test_a_warmup_that_never_settles_ends_at_max_periods_with_nothing_measured():
    res = simulate(DOR, _adaptive("booksim", offered_load=0.2, warmup_threshold=1e-12, max_periods=4), seed=5)
    assert res.end_rule == "max-periods" and res.end_phase == "warm-up" and res.periods == 4
    assert res.warmup_end == -1 and res.delivered == 0 and math.isnan(res.mean_latency)
    assert res.packets_delivered > 0  # the network did work; only the measurement never began


@pytest.mark.parametrize("router", ROUTERS)
def test_far_above_saturation_ends_unstable_quickly(router):
    res = simulate(DOR, _adaptive(router, offered_load=2.0, max_periods=50), seed=6)
    assert res.end_rule == "unstable" and not res.deadlock
    assert res.periods <= 6  # aborted long before max_periods
    last = res.period_table.iloc[-1]
    assert last.mean_age > 500.0 or last.queue_overflow > 0
    assert res.in_flight > 0


@pytest.mark.parametrize("router", ROUTERS)
def test_without_a_latency_cap_an_overloaded_run_is_not_aborted(router):
    """``latency_cap=None``: only a full source queue (or a deadlock) ends a run early; past saturation with room
    in the queues it runs its periods out (here the same run is aborted with the default cap)."""
    overloaded = dict(offered_load=0.9, max_periods=6, warmup_periods=1, queue_capacity=20_000, drain=400)
    capped = simulate(DOR, _adaptive(router, **overloaded), seed=6)
    assert capped.end_rule == "unstable"
    res = simulate(DOR, _adaptive(router, latency_cap=None, **overloaded), seed=6)
    assert res.end_rule in ("max-periods", "drain-timeout") and res.counters["queue_overflow"] == 0
    assert res.periods >= 6 and res.period_table.mean_age.max() > 500.0


def test_saturation_counts_unstable_loads_as_not_sustained():
    runs = load_sweep(DOR, _adaptive("simple", max_periods=20), [0.1, 2.0])
    assert runs.end_rule.tolist()[1] == "unstable"
    table = saturation_table(runs, ["routing"])
    assert table.saturation_load.item() == 0.1
    # an unstable run with otherwise passing figures is still not sustained
    good = pd.DataFrame({"offered_load": [0.1, 0.2], "accepted_throughput": [0.1, 0.2],
                         "generated_throughput": [0.1, 0.2], "mean_latency": [10.0, 11.0],
                         "deadlock": False})  # fmt: skip
    assert saturation_table(good, []).saturation_load.item() == 0.2
    marked = good.assign(end_rule=["converged", "unstable"])
    assert saturation_table(marked, []).saturation_load.item() == 0.1


@pytest.mark.parametrize("run_control", ["fixed", "adaptive"])
@pytest.mark.parametrize("router", ROUTERS)
def test_deadlock_in_warmup_is_a_status_with_a_warning_cycle_and_counts(router, run_control):
    ring = Torus(2, 6)
    plain = ecube_routing(ring, datelines=False, vcs=1)  # no dateline VCs: each ring can deadlock
    kwargs = dict(offered_load=1.0, packet_length=8, buffer_depth=2, deadlock_cycles=200)
    if router == "simple":
        kwargs["vc_allocation"] = "nonatomic"
    if run_control == "fixed":
        cfg = SimConfig.preset(router, warmup=20000, **kwargs)
    else:
        # no latency abort: at this overload the unstable rule would otherwise stop the run before it deadlocks
        cfg = SimConfig.preset(router, run_control="adaptive", warmup_periods=5, latency_cap=math.inf, **kwargs)
    with pytest.warns(SimulationDeadlock, match=r"deadlocked in warm-up at cycle \d+ .*waiting cycle"):
        res = simulate(plain, cfg, seed=1)
    assert res.end_rule == "deadlocked" and res.end_phase == "warm-up" and res.deadlock
    assert res.warmup_end == -1 and res.cycles < 5000
    assert len(res.deadlock_cycle) >= 2
    assert res.packets_generated > 0 and res.in_flight > 0
    c = res.counters
    assert c["packets_generated"] - c["queue_overflow"] == res.packets_delivered + c["packets_dropped"] + res.in_flight


@pytest.mark.parametrize("router", ROUTERS)
def test_adaptive_runs_are_seed_deterministic(router):
    cfg = _adaptive(router, offered_load=0.3)
    a, b, c = (simulate(DOR, cfg, seed=s) for s in (9, 9, 10))
    assert a.packets.equals(b.packets) and a.period_table.equals(b.period_table) and a.end_rule == b.end_rule
    assert not a.packets.equals(c.packets)
    assert a.summary()["end_rule"] in END_RULES


def test_a_fixed_run_says_fixed_window_or_drain_timeout():
    cfg = SimConfig(offered_load=0.2, warmup=100, measure=400)
    assert simulate(DOR, cfg, seed=1).end_rule == "fixed-window"
    cut = simulate(DOR, cfg.replace(offered_load=3.0, drain=0), seed=1)  # beyond saturation, no drain
    assert cut.end_rule == "drain-timeout" and cut.undelivered > 0


def test_both_kernels_resume_exactly_from_their_state():
    """The adaptive controller runs the loop in chunks; chunked and one-piece runs must be the same run."""
    from torus_lab.sim.engine import _booksim_runner, _simple_runner

    cfg = SimConfig(offered_load=0.4, warmup=50, measure=500, drain=300)
    setup = dict(rates=cfg.injection_rates(), burst_on=np.zeros(16, np.uint8), active=np.arange(16),
                 dest_map=np.full(16, -1), hot=0, words=np.array([7, 8], np.uint64), rec_cap=4096)  # fmt: skip
    for make, config in ((_simple_runner, cfg), (_booksim_runner, SimConfig.preset("booksim", **{
            k: cfg.as_dict()[k] for k in ("offered_load", "warmup", "measure", "drain")}))):  # fmt: skip
        whole, pieces = make(DOR, config, **setup), make(DOR, config, **setup)
        whole.advance(2000)
        for _ in range(2000 // 137 + 1):
            pieces.advance(137)
        assert np.array_equal(whole.counters, pieces.counters)
        assert np.array_equal(whole.records(), pieces.records())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"run_control": "auto"}, "run_control must be one of 'fixed', 'adaptive', got 'auto'"),
        ({"sample_period": 500}, r"sample_period=500 needs run_control='adaptive'"),
        ({"run_control": "adaptive", "sample_period": 0}, "sample_period must be >= 1, got 0"),
        ({"run_control": "adaptive", "stop_rule": "exact"}, "stop_rule must be one of .*got 'exact'"),
        ({"run_control": "adaptive", "warmup_threshold": 0.0}, "warmup_threshold must be > 0 .*got 0.0"),
        ({"run_control": "adaptive", "ci_target": 1.5}, r"ci_target must be in \[0.0, 1.0\], got 1.5"),
        ({"run_control": "adaptive", "latency_cap": float("nan")}, "latency_cap must be in .*got nan"),
        ({"run_control": "adaptive", "max_periods": 1}, "max_periods must be >= 2, got 1"),
        ({"run_control": "adaptive", "warmup_periods": 10}, "warmup_periods=10 must be below max_periods=10"),
    ],
)
def test_bad_run_length_options_are_refused_naming_the_value(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SimConfig(**kwargs)


def test_no_deadlock_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SimulationDeadlock)
        res = simulate(DOR, _adaptive("booksim", offered_load=0.2), seed=1)
    assert res.end_rule in ("converged", "max-periods")


def test_adaptive_control_compiles_each_loop_once():
    """Periods are chunks of the same compiled loops: no new machine code per period or per run."""
    from torus_lab.sim.booksim import run_booksim
    from torus_lab.sim.simple import run_kernel

    for router in ROUTERS:
        simulate(DOR, _adaptive(router, offered_load=0.2, max_periods=4), seed=1)
    assert len(run_kernel.signatures) == 1 and len(run_booksim.signatures) == 1
