"""Statistics shared by the simulator and the studies: confidence intervals and least-squares growth fits.

* :func:`confidence_interval` and :func:`summarize`: Student-t intervals of a mean over seeds (simulation runs);
* :func:`wilson_interval`: the Wilson score interval of a binomial proportion (success rates; Li, Peng & Chu's
  trials, ``docs/conventions.md#square-trials``);
* :func:`paired_ratio_interval`: the ratio of two means measured on the same trials, with a delta-method interval
  on the log scale (Li, Peng & Chu's improvement ratios, ISPA 2005, Section 6);
* :func:`power_law_fit`: ``log y = exponent * log x + log_prefactor`` (Bossard & Kaneko's running time, Sensors
  2018, Section 7, Fig. 10);
* :func:`log_fit`: ``v = a + b log2 N`` against ``v = a + b N`` (Demaine & Srinivas' latency growth, IJHSC 1996,
  Section 6);
* :func:`leading_constant_fit`: ``ratio = a + b / k``, the constant as ``k -> oo``, and
  :func:`corrected_power_law_exponent`: ``log y = alpha log x + beta + gamma / k`` (Azizoglu & Eğecioğlu's
  leading constants and linear loads, Theorems 3-6).

Examples
--------
>>> mean, half = confidence_interval([10.0, 12.0, 11.0, 13.0])
>>> round(mean, 2), round(half, 2)
(11.5, 2.05)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from torus_lab._validate import check_frame, check_real, check_real_array, check_sequence, check_str

__all__ = [
    "confidence_interval", "summarize", "wilson_interval", "paired_ratio_interval", "power_law_fit", "log_fit",
    "leading_constant_fit", "corrected_power_law_exponent",
]  # fmt: skip


def _scipy_stats():
    """``scipy.stats``, imported on first use: it costs about half a CPU second, which a simulation that computes
    no interval (the simulator imports this module) should not pay at start-up."""
    from scipy import stats

    return stats


def confidence_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Mean and Student-t half-width of a ``level`` confidence interval (NaN half-width for one value).

    Non-finite values are left out.

    Examples
    --------
    >>> confidence_interval([3.0])
    (3.0, nan)
    """
    level = check_real("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    arr = check_real_array("values", values).ravel()
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return float("nan"), float("nan")
    mean = float(arr.mean())
    if arr.size < 2:
        return mean, float("nan")
    sem = float(arr.std(ddof=1) / np.sqrt(arr.size))
    return mean, float(_scipy_stats().t.ppf(0.5 + level / 2, arr.size - 1) * sem)


def summarize(frame, by: Sequence[str], columns: Sequence[str], level: float = 0.95):
    """Group ``frame`` by ``by`` and give mean, CI half-width and count of each column (over seeds).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"load": [0.1, 0.1, 0.2, 0.2], "lat": [10.0, 12.0, 20.0, 22.0]})
    >>> summarize(df, ["load"], ["lat"])[["load", "lat_mean", "lat_n"]].values.tolist()
    [[0.1, 11.0, 2.0], [0.2, 21.0, 2.0]]
    """
    import pandas as pd

    check_frame("frame", frame)
    by = [check_str("by", name) for name in check_sequence("by", by, min_length=1)]
    columns = [check_str("columns", name) for name in check_sequence("columns", columns)]
    for name, names in (("by", by), ("columns", columns)):
        missing = [col for col in names if col not in frame.columns]
        if missing:
            raise ValueError(f"{name} names column(s) {missing} that frame lacks (it has {list(frame.columns)})")
    level = check_real("level", level)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    rows = []
    for key, group in frame.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key, strict=True))
        for col in columns:
            mean, half = confidence_interval(group[col].to_numpy(dtype=float), level)
            row[f"{col}_mean"] = mean
            row[f"{col}_ci"] = half
            row[f"{col}_n"] = int(np.isfinite(group[col].to_numpy(dtype=float)).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def _counts(name: str, values: object) -> np.ndarray:
    """``values`` (a number or an array of numbers) as a float array, refusing bools, strings and NaN."""
    try:
        array = np.asarray(values)
    except (ValueError, TypeError, OverflowError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {values!r:.200}") from None
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a number or an array of numbers, got {values!r}")
    array = array.astype(float)
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite, got {values!r}")
    return array


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


def _first(values: np.ndarray, bad: np.ndarray) -> int | float:
    return _num(values[tuple(np.argwhere(bad)[0])])


def _check_confidence(confidence: object) -> float:
    confidence = check_real("confidence", confidence, 0, 1, open_maximum=True)
    if confidence == 0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    return confidence


def wilson_interval(successes: int | np.ndarray, trials: int | np.ndarray, confidence: float = 0.95):
    """Wilson score interval for a binomial proportion.

    Parameters
    ----------
    successes, trials : int or array of int
        Elementwise ``trials >= 1`` and ``0 <= successes <= trials`` (broadcast against each other).
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    (low, high)
        Floats for scalar input, arrays otherwise.

    Raises
    ------
    ValueError
        For ``trials < 1``, ``successes`` outside ``0..trials`` or ``confidence`` outside ``(0, 1)``
        (elementwise; the message names the first offending entry).

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(90, 100)]
    [0.8256, 0.9448]
    >>> wilson_interval(5, 3)
    Traceback (most recent call last):
    ...
    ValueError: successes must be in 0..trials, got successes = 5 with trials = 3
    """
    n = _counts("trials", trials)
    x = _counts("successes", successes)
    confidence = _check_confidence(confidence)
    try:
        x, n = np.broadcast_arrays(x, n)
    except ValueError:
        raise ValueError(f"successes and trials must have compatible shapes, got {np.shape(successes)} and "
                         f"{np.shape(trials)}") from None  # fmt: skip
    if (n < 1).any():
        raise ValueError(f"trials must be >= 1, got {_first(n, n < 1)}")
    bad = (x < 0) | (x > n)
    if bad.any():
        where = tuple(np.argwhere(bad)[0])
        raise ValueError(f"successes must be in 0..trials, got successes = {_num(x[where])} with trials = "
                         f"{_num(n[where])}")  # fmt: skip
    z = _scipy_stats().norm.ppf(0.5 + confidence / 2)
    p = x / n
    centre = (p + z * z / 2 / n) / (1 + z * z / n)  # divided step by step: no n * n overflow for huge trials
    half = z * np.sqrt(p * (1 - p) / n + (z / 2 / n) ** 2) / (1 + z * z / n)
    low = np.minimum(centre - half, p)  # the interval contains p; guard against rounding at p = 0 or 1
    high = np.maximum(centre + half, p)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def _outcomes(name: str, values: object) -> np.ndarray:
    """Paired outcomes as a 1-D float array of finite numbers (booleans read as 0/1)."""
    if isinstance(values, np.ndarray) and values.dtype == np.bool_:
        values = values.astype(float)
    elif isinstance(values, (list, tuple)) and values and all(isinstance(v, (bool, np.bool_)) for v in values):
        values = [float(v) for v in values]
    array = check_real_array(name, values, ndim=1, finite=True)
    if array.size == 0:
        raise ValueError(f"{name} must hold at least one outcome, got an empty array")
    return array


def paired_ratio_interval(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
                          confidence: float = 0.95) -> tuple[float, float, float]:
    """Ratio ``mean(x) / mean(y)`` of outcomes measured on the same trials, with a delta-method interval on the
    log scale.

    Li, Peng & Chu (ISPA 2005, Section 6) compare success rates of two algorithms on shared trials ("improvement
    ratios"); the pairing enters through the covariance of ``x`` and ``y``:
    ``var(log r) = (var x / mean x^2 + var y / mean y^2 - 2 cov(x, y) / (mean x mean y)) / n``.

    Parameters
    ----------
    x, y : 1-D arrays of numbers or booleans
        Outcomes of the same ``n >= 1`` trials (a success as 1 or True).
    confidence : float
        In ``(0, 1)``.

    Returns
    -------
    (ratio, low, high)
        NaNs when either mean is 0; a zero-width interval for one trial.

    Examples
    --------
    >>> ratio, low, high = paired_ratio_interval([1, 1, 1, 0], [1, 0, 1, 0])
    >>> round(ratio, 3), low < ratio < high
    (1.5, True)
    >>> paired_ratio_interval([0, 0], [1, 1])
    (nan, nan, nan)
    """
    x = _outcomes("x", x)
    y = _outcomes("y", y)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have equal lengths (paired outcomes), got {x.size} and {y.size}")
    confidence = _check_confidence(confidence)
    n = len(x)
    px, py = x.mean(), y.mean()
    if px == 0 or py == 0:
        return (float("nan"),) * 3
    cov = np.cov(np.vstack([x, y]).astype(float), ddof=1) if n > 1 else np.zeros((2, 2))
    var = (cov[0, 0] / px**2 + cov[1, 1] / py**2 - 2 * cov[0, 1] / (px * py)) / n
    z = _scipy_stats().norm.ppf(0.5 + confidence / 2)
    ratio = px / py
    half = z * np.sqrt(max(var, 0.0))
    return float(ratio), float(ratio * np.exp(-half)), float(ratio * np.exp(half))


def power_law_fit(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit of ``log y = exponent * log x + log_prefactor``; NaNs with fewer than 2 usable points.

    Points with a non-positive or non-finite coordinate are left out (they cannot be logged).  Bossard & Kaneko
    (Sensors 2018, Section 7, Fig. 10) read their running time's growth in ``n`` this way.

    Examples
    --------
    >>> exponent, log_prefactor = power_law_fit([1, 2, 4], [3, 12, 48])
    >>> round(exponent, 6), round(math.exp(log_prefactor), 6)
    (2.0, 3.0)
    >>> power_law_fit([2], [1.0])
    (nan, nan)
    """
    x = check_real_array("x", x, ndim=1)
    y = check_real_array("y", y, ndim=1)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have equal lengths, got {x.size} and {y.size}")
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    usable = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if np.unique(x[usable]).size < 2:
        return math.nan, math.nan
    exponent, log_prefactor = np.polyfit(np.log(x[usable]), np.log(y[usable]), 1)
    return float(exponent), float(log_prefactor)


def log_fit(nodes: Sequence[float], values: Sequence[float]) -> dict:
    """Least-squares fits ``v = a + b log2 N`` and ``v = a + b N``; R^2 of each (which growth fits better).

    Demaine & Srinivas (IJHSC 1996, Section 6) read their latency's growth with the network size ``N`` this way.
    Returns ``log_slope``, ``log_intercept``, ``log_r2``, ``linear_slope``, ``linear_intercept``, ``linear_r2``
    (R^2 NaN when every value is equal).

    Examples
    --------
    >>> fit = log_fit([16, 32, 64, 128], [4, 5, 6, 7])
    >>> round(fit["log_slope"], 3), round(fit["log_r2"], 3)
    (1.0, 1.0)
    """
    nodes = check_real_array("nodes", nodes, ndim=1)
    values = check_real_array("values", values, ndim=1)
    if nodes.shape != values.shape or nodes.size < 2:
        raise ValueError(f"nodes and values must have equal lengths >= 2, got {nodes.size} and {values.size}")
    if not (np.isfinite(nodes) & (nodes > 0)).all():
        raise ValueError(f"nodes must be finite and positive, got {nodes.tolist()!r:.80}")
    if np.unique(nodes).size < 2:
        raise ValueError(f"nodes: need two different network sizes to fit a growth, got {nodes.tolist()!r:.80}")
    if not np.isfinite(values).all():
        raise ValueError(f"values must be finite, got {values.tolist()!r:.80}")
    x = np.log2(np.asarray(nodes, dtype=float))
    y = np.asarray(values, dtype=float)
    out = {}
    for name, xs in (("log", x), ("linear", np.asarray(nodes, dtype=float))):
        slope, intercept = np.polyfit(xs, y, 1)
        resid = y - (intercept + slope * xs)
        total = ((y - y.mean()) ** 2).sum()
        out[f"{name}_slope"] = float(slope)
        out[f"{name}_intercept"] = float(intercept)
        out[f"{name}_r2"] = float(1 - (resid**2).sum() / total) if total > 0 else math.nan
    return out


def leading_constant_fit(radices: Sequence[int], ratios: Sequence[float]) -> tuple[float, float]:
    """Least-squares fit ``ratio = a + b / k``; returns ``(a, b)`` (``a`` = the constant as ``k -> oo``).

    With a single radix, ``a`` is that ratio and ``b = 0``.  Azizoglu & Eğecioğlu (Theorem 3) state a leading
    constant, ``E_max = k^(d-1)/8 + o(k^(d-1))``: ``a`` of ``E_max / k^(d-1)`` is what the claim reads.

    Examples
    --------
    >>> a, b = leading_constant_fit([5, 9, 17], [0.5 - 0.5 / 5, 0.5 - 0.5 / 9, 0.5 - 0.5 / 17])
    >>> round(a, 6), round(b, 6)
    (0.5, -0.5)
    """
    k = check_real_array("radices", radices, ndim=1)
    y = check_real_array("ratios", ratios, ndim=1)
    if k.size == 0 or k.size != y.size:
        raise ValueError(f"need equally many radices and ratios (at least one), got {k.size} and {y.size}")
    if not (np.isfinite(k) & (k >= 2)).all():  # 1 / k must be finite for the fit
        raise ValueError(f"radices must be finite numbers >= 2, got {k.tolist()!r:.80}")
    if not np.isfinite(y).all():
        raise ValueError(f"ratios must be finite, got {y.tolist()!r:.80}")
    if np.unique(k).size == 1:
        return float(y.mean()), 0.0
    design = np.column_stack([np.ones_like(k), 1 / k])
    (a, b), *_ = np.linalg.lstsq(design, y, rcond=None)
    return float(a), float(b)


def corrected_power_law_exponent(x: Sequence[float], y: Sequence[float], k: Sequence[float]) -> float:
    """Exponent ``alpha`` of ``y ~ x**alpha``, with a ``1/k`` correction term.

    With three or more points, the least-squares fit ``log y = alpha log x + beta + gamma / k``: the ``gamma / k``
    term absorbs an ``O(1/k)`` convergence of ``y / x**alpha`` (Azizoglu & Eğecioğlu's ``E_max / |P|`` at small
    radix ``k``, Theorems 3-6); with two points, the slope of ``log y`` against ``log x`` between them.

    Examples
    --------
    >>> k = np.array([8.0, 12.0, 16.0, 24.0])
    >>> round(corrected_power_law_exponent(k**2, 0.5 * np.exp(-2 / k) * k**2, k), 6)
    1.0
    >>> round(corrected_power_law_exponent([4, 16], [2, 32], [2, 4]), 6)
    2.0
    """
    x = check_real_array("x", x, ndim=1)
    y = check_real_array("y", y, ndim=1)
    k = check_real_array("k", k, ndim=1)
    if not x.shape == y.shape == k.shape or x.size < 2:
        raise ValueError(f"x, y and k must have equal lengths >= 2, got {x.size}, {y.size} and {k.size}")
    for name, values in (("x", x), ("y", y)):
        if not (np.isfinite(values) & (values > 0)).all():
            raise ValueError(f"{name} must be finite and positive (it is logged), got {values.tolist()!r:.80}")
    if not (np.isfinite(k) & (k >= 1)).all():
        raise ValueError(f"k must be finite numbers >= 1, got {k.tolist()!r:.80}")
    if np.unique(x).size < 2:
        raise ValueError(f"x: need two different values to fit an exponent, got {x.tolist()!r:.80}")
    log_x, log_y = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    if x.size >= 3:
        design = np.column_stack([log_x, np.ones_like(log_x), 1.0 / np.asarray(k, dtype=float)])
        return float(np.linalg.lstsq(design, log_y, rcond=None)[0][0])
    return float((log_y[1] - log_y[0]) / (log_x[1] - log_x[0]))
