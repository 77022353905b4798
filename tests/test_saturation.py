"""The one saturation definition (torus_lab.sim.saturation): the criterion's boundaries and the curve rule."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from torus_lab.sim import Saturation, saturation_table, sustained_loads


def curve(latencies, accepted=None, generated=None, deadlock=None, loads=None, **extra):
    loads = loads or [0.1 * (i + 1) for i in range(len(latencies))]
    return pd.DataFrame({
        "offered_load": loads,
        "accepted_throughput": accepted or loads,
        "generated_throughput": generated or loads,
        "mean_latency": latencies,
        "deadlock": deadlock or [False] * len(loads),
        **extra,
    })  # fmt: skip


@pytest.mark.parametrize(
    ("accepted", "expected"),
    [(0.95, True), (0.9500001, True), (0.9499999, False), (math.nan, False)],
)
def test_accept_ratio_boundary(accepted, expected):
    assert Saturation().sustained(deadlock=False, accepted=accepted, generated=1.0, latency=1.0,
                                  base_latency=1.0) is expected  # fmt: skip


@pytest.mark.parametrize(("latency", "expected"), [(30.0, True), (29.999, True), (30.001, False), (math.nan, False)])
def test_latency_factor_boundary(latency, expected):
    assert Saturation().sustained(deadlock=False, accepted=1.0, generated=1.0, latency=latency,
                                  base_latency=10.0) is expected  # fmt: skip


def test_disabled_tests_and_deadlock():
    loose = Saturation(accept_ratio=None, latency_factor=None)
    assert loose.sustained(deadlock=False, accepted=0.0, generated=1.0, latency=1e9, base_latency=1.0)
    assert not loose.sustained(deadlock=True, accepted=1.0, generated=1.0, latency=1.0, base_latency=1.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [({"accept_ratio": 0}, ValueError, "accept_ratio must be > 0, got 0"),
     ({"accept_ratio": 1.5}, ValueError, "accept_ratio must be <= 1"),
     ({"latency_factor": "3"}, TypeError, "latency_factor must be a finite number or None, got '3'"),
     ({"latency_factor": math.inf}, TypeError, "latency_factor"),
     ({"accept_ratio": True}, TypeError, "accept_ratio")],
)
def test_bad_criterion_is_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        Saturation(**kwargs)


def test_a_recovery_after_a_failed_load_does_not_count():
    runs = curve([10.0, 40.0, 12.0, 90.0])  # 0.2 fails the latency test, 0.3 looks fine again
    table = saturation_table(runs, [])
    assert table["saturation_load"].item() == pytest.approx(0.1)
    flags = sustained_loads(runs, [])
    assert flags["sustained"].tolist() == [True, False, True, False]
    assert flags["sustained_so_far"].tolist() == [True, False, False, False]


def test_lightest_load_unsustained_gives_nan_and_deadlock_excludes_throughput():
    runs = curve([10.0, 11.0], accepted=[0.05, 0.3], generated=[0.1, 0.3], deadlock=[False, True])
    table = saturation_table(runs, [])
    assert math.isnan(table["saturation_load"].item())
    assert table["saturation_throughput"].item() == pytest.approx(0.05)  # the deadlocked load is ignored


def test_seeds_are_averaged_and_groups_kept_apart():
    a = curve([10.0, 10.0, 25.0, 35.0], loads=[0.1, 0.1, 0.2, 0.2], routing=["a"] * 4)  # mean 30 at 0.2: sustained
    b = curve([10.0, 40.0], routing=["b"] * 2)
    table = saturation_table(pd.concat([a, b]), ["routing"])
    assert table.set_index("routing")["saturation_load"].to_dict() == pytest.approx({"a": 0.2, "b": 0.1})
    assert table["loads"].tolist() == [2, 2]
    one_deadlock = a.assign(deadlock=[False, False, False, True])
    assert saturation_table(one_deadlock, ["routing"])["saturation_load"].item() == pytest.approx(0.1)


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"runs lack column\(s\) \['routing', 'deadlock'\]"):
        saturation_table(curve([1.0]).drop(columns="deadlock"), ["routing"])
