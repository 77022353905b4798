"""Tests of the shared statistics (torus_lab.stats): confidence intervals, the paired ratio, growth fits."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.stats import (
    confidence_interval,
    corrected_power_law_exponent,
    leading_constant_fit,
    log_fit,
    paired_ratio_interval,
    power_law_fit,
    summarize,
    wilson_interval,
)


# ---------------------------------------------------------------------------------------------- Student-t
def test_confidence_interval_contains_mean_and_shrinks():
    rng = np.random.default_rng(0)
    small = confidence_interval(rng.normal(5, 1, 5))
    large = confidence_interval(rng.normal(5, 1, 500))
    assert large[1] < small[1]
    assert abs(large[0] - 5) < 3 * large[1]


def test_summarize_leaves_non_finite_values_out_of_mean_and_count():
    frame = pd.DataFrame({"load": [0.1, 0.1, 0.1], "lat": [10.0, 12.0, math.nan]})
    row = summarize(frame, ["load"], ["lat"]).iloc[0]
    assert row["lat_mean"] == 11.0 and row["lat_n"] == 2
    with pytest.raises(ValueError, match="columns names column"):
        summarize(frame, ["load"], ["latency"])


# ---------------------------------------------------------------------------------------------- Wilson
def test_wilson_interval_matches_scipy():
    from scipy.stats import binomtest

    for successes, trials in ((0, 10), (3, 10), (9_000, 10_000), (10_000, 10_000), (57, 80)):
        expected = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
        low, high = wilson_interval(successes, trials)
        assert low == pytest.approx(expected.low, abs=1e-12) and high == pytest.approx(expected.high, abs=1e-12)


@pytest.mark.parametrize(
    ("successes", "trials", "message"),
    [
        (0, 0, "trials must be >= 1, got 0"),
        (5, 3, "successes must be in 0..trials, got successes = 5 with trials = 3"),
        (-1, 3, "successes must be in 0..trials, got successes = -1"),
        (np.array([1, 2, 3]), np.array([3, 3, 0]), "trials must be >= 1, got 0"),
        (np.array([1, 4]), 3, "successes = 4 with trials = 3"),
        (float("nan"), 3, "successes must be finite"),
        (1, float("inf"), "trials must be finite"),
        (np.array([1, 2]), np.array([3, 3, 3]), "compatible shapes"),
    ],
)
def test_wilson_interval_refuses(successes, trials, message):
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, trials)


def test_wilson_interval_types_and_confidence():
    with pytest.raises(TypeError, match="successes must be a number"):
        wilson_interval(True, 3)
    with pytest.raises(TypeError, match="trials must be a number"):
        wilson_interval(1, "3")
    for confidence in (0, 1, 1.5):
        with pytest.raises(ValueError, match="confidence must be in"):
            wilson_interval(1, 3, confidence)


def test_wilson_interval_of_huge_trials_needs_no_overflow():
    # the fuzz run warned "overflow encountered in multiply" for trials near 1e308 (n * n)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = wilson_interval(np.array([5e307]), np.array([1e308]))
    assert low[0] == pytest.approx(0.5) and high[0] == pytest.approx(0.5) and low[0] <= 0.5 <= high[0]


@settings(max_examples=80, deadline=None)
@given(successes=st.integers(-5, 30), trials=st.integers(-5, 30))
def test_wilson_interval_in_range_or_refused(successes, trials):
    if trials >= 1 and 0 <= successes <= trials:
        low, high = wilson_interval(successes, trials)
        assert -1e-12 <= low <= successes / trials <= high <= 1 + 1e-12  # (high can exceed 1 by an ulp)
    else:
        with pytest.raises(ValueError, match="trials|successes"):
            wilson_interval(successes, trials)


# ---------------------------------------------------------------------------------------------- paired ratio
def test_paired_ratio_interval_uses_the_pairing():
    rng = np.random.default_rng(1)
    y = rng.random(2000) < 0.5
    x = y | (rng.random(2000) < 0.2)  # x succeeds wherever y does: strongly paired
    ratio, low, high = paired_ratio_interval(x, y)
    assert ratio == pytest.approx(x.mean() / y.mean()) and low < ratio < high
    unpaired = rng.permutation(x)
    _, low_u, high_u = paired_ratio_interval(unpaired, y)
    assert high - low < high_u - low_u  # positive covariance narrows the interval
    assert paired_ratio_interval(x.tolist(), y.tolist()) == (ratio, low, high)  # booleans in lists read as 0/1
    assert paired_ratio_interval([1], [1]) == (1.0, 1.0, 1.0)  # one trial: a zero-width interval


@pytest.mark.parametrize(
    ("x", "y", "confidence", "message"),
    [([1, 0], [1], 0.95, "x and y must have equal lengths"),
     ([], [], 0.95, "x must hold at least one outcome"),
     ([1, math.nan], [1, 1], 0.95, "x must hold finite numbers"),
     ([[1, 0]], [[1, 0]], 0.95, "x must be 1-dimensional"),
     ([1, 0], [1, 1], 1.0, "confidence must be in")],
)  # fmt: skip
def test_paired_ratio_interval_refuses_naming_the_parameter(x, y, confidence, message):
    with pytest.raises(ValueError, match=message):
        paired_ratio_interval(x, y, confidence)


# ---------------------------------------------------------------------------------------------- fits
def test_power_law_fit():
    exponent, log_prefactor = power_law_fit([2, 3, 4], [2 * 2**1.5, 2 * 3**1.5, 2 * 4**1.5])
    assert exponent == pytest.approx(1.5) and np.exp(log_prefactor) == pytest.approx(2.0)
    assert all(np.isnan(power_law_fit([2, 2], [1.0, 2.0])))  # one distinct n
    assert all(np.isnan(power_law_fit([2, 3], [1.0, 0.0])))  # a zero time cannot be logged


@pytest.mark.parametrize(
    ("nodes", "values", "message"),
    [([1, 1, 1], [1.0, 2.0, 3.0], "nodes: need two different network sizes"),
     ([16, 32, math.inf], [1.0, 2.0, 3.0], "nodes must be finite and positive"),
     ([16, 32, 64], [1.0, math.nan, 3.0], "values must be finite")],
)  # fmt: skip
def test_log_fit_refuses_one_size_and_non_finite_values_naming_them(nodes, values, message):
    # the fit functions' fuzz findings: nodes=[1, 1, 1] ended in numpy's "SVD did not converge"
    with pytest.raises(ValueError, match=message):
        log_fit(nodes, values)


def test_log_fit_tells_logarithmic_from_linear_growth():
    nodes = [16, 64, 256, 1024]
    fit = log_fit(nodes, [math.log2(n) for n in nodes])
    assert fit["log_r2"] == pytest.approx(1.0) and fit["linear_r2"] < 0.99
    assert math.isnan(log_fit(nodes, [3.0] * 4)["log_r2"])  # constant values: R^2 undefined


def test_leading_constant_fit_recovers_the_limit():
    a, b = leading_constant_fit([5, 9], [0.4, 0.4 + 0.5 / 5 - 0.5 / 9])
    assert (a, b) == (pytest.approx(0.5), pytest.approx(-0.5))  # two radices: the line through both points
    assert leading_constant_fit([7, 7], [0.2, 0.4]) == (pytest.approx(0.3), 0.0)  # one radix: the mean, no slope


@pytest.mark.parametrize(
    ("radices", "ratios", "message"),
    [([0, 0, 1], [0.1, 0.2, 0.3], "radices must be finite numbers >= 2"),
     ([5, float("inf")], [0.1, 0.2], "radices must be finite numbers >= 2"),
     ([5, 9], [0.1, float("nan")], "ratios must be finite")],
)  # fmt: skip
def test_leading_constant_fit_refuses_radices_below_two_and_non_finite_values(radices, ratios, message):
    # found by the fuzz suite: radices=[0, 0, 1] ended in numpy's "SVD did not converge" (1 / 0)
    with pytest.raises(ValueError, match=message):
        leading_constant_fit(radices, ratios)


def test_corrected_power_law_exponent_absorbs_the_one_over_k_term():
    k = np.array([6.0, 8.0, 10.0, 14.0, 20.0])
    y = 3.0 * k**1.5 * np.exp(0.7 / k)  # exponent 1.5 against x = k, a 1/k correction in log y
    assert corrected_power_law_exponent(k, y, k) == pytest.approx(1.5)
    assert power_law_fit(k, y)[0] != pytest.approx(1.5, abs=1e-3)  # the plain fit is biased by the correction
    assert corrected_power_law_exponent([2, 8], [3, 48], [2, 8]) == pytest.approx(2.0)  # two points: their slope


@pytest.mark.parametrize(
    ("x", "y", "k", "message"),
    [([2, 4, 8], [1.0, 2.0], [2, 4, 8], "equal lengths"),
     ([2, 0, 8], [1.0, 2.0, 3.0], [2, 4, 8], "x must be finite and positive"),
     ([2, 4, 8], [1.0, math.nan, 3.0], [2, 4, 8], "y must be finite and positive"),
     ([2, 4, 8], [1.0, 2.0, 3.0], [0, 4, 8], "k must be finite numbers >= 1"),
     ([4, 4, 4], [1.0, 2.0, 3.0], [2, 4, 8], "x: need two different values")],
)  # fmt: skip
def test_corrected_power_law_exponent_refuses_naming_the_parameter(x, y, k, message):
    with pytest.raises(ValueError, match=message):
        corrected_power_law_exponent(x, y, k)
