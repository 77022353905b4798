"""The stated precision of science files: floats rounded to :data:`SCIENCE_SIGNIFICANT_DIGITS` significant digits.

A float computed by a reduction (a sum, a mean, a least-squares fit) may differ in its last bits from one
machine to another: the order of the additions depends on the CPU's SIMD width and on how numpy and BLAS were
built.  Written at full precision (Python's shortest round-trip ``repr``) such a value reads
``0.9999999999999997`` on one machine and ``0.9999999999999998`` on another, and a correct re-run would rewrite
the committed file.  Every writer of a science file (:meth:`torus_lab.experiment.ExperimentRun.save`,
:func:`torus_lab.claims.write_claims`, the report's ``data/claims.csv``) therefore goes through
:func:`to_science_csv`, which writes each float64 value rounded to :data:`SCIENCE_SIGNIFICANT_DIGITS`
significant digits, as the shortest ``repr`` of the rounded number: ``12.0`` stays ``12.0``, ``0.1`` stays
``0.1``, and a column of floats reads back as floats.  A relative difference of about 1e-16 changes a 10-digit
rounding only when the value lies within that distance of a rounding boundary, for about one value in a
million; ``torus-lab verify`` then reports the file as differing and says by how much.  See
``docs/conventions.md#science-precision``.

Only float64 values are rounded (float64 and nullable ``Float64`` columns, and Python or numpy float64 values in
object columns); integers, booleans, strings, column names and narrower floats (whose shortest ``repr`` has at
most 9 digits) are written as pandas writes them.  NaN is written as an empty cell and infinities as ``inf`` /
``-inf``, as before.  Timing files (``data/<name>/timing/``) are not science files and keep full precision.

Examples
--------
>>> round_significant(0.9999999999999997), round_significant(0.9999999999999998)
(1.0, 1.0)
>>> round_significant(2 / 3), round_significant(12.0), round_significant(1.23456789012e-7)
(0.6666666667, 12.0, 1.23456789e-07)
>>> import pandas as pd
>>> print(to_science_csv(pd.DataFrame({"n": [2, 3], "mean": [1 / 3, 12.0], "name": ["a", "b"]})), end="")
n,mean,name
2,0.3333333333,a
3,12.0,b
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from torus_lab._validate import check_frame, check_instance, check_int, check_real

__all__ = ["SCIENCE_SIGNIFICANT_DIGITS", "round_significant", "science_frame", "to_science_csv"]

#: Significant digits of every float written to a science file (``data/<name>/*.csv`` and ``data/claims.csv``).
SCIENCE_SIGNIFICANT_DIGITS = 10
#: The most significant digits a float64 can need (17 round-trips every value, so rounding to 17 changes none).
_MAX_DIGITS = 17


def _round(value: float, digits: int) -> float:
    """``value`` rounded to ``digits`` significant digits (correctly rounded, ties to even on the exact value)."""
    rounded = float(f"{value:.{digits - 1}e}")
    return value if math.isinf(rounded) and not math.isinf(value) else rounded


def round_significant(value: float, digits: int = SCIENCE_SIGNIFICANT_DIGITS) -> float:
    """``value`` rounded to ``digits`` significant digits, as the float nearest to the rounded decimal.

    The rounding is that of Python's ``format(value, ".{digits - 1}e")``: correct rounding of the float's exact
    binary value, ties to even.  ``repr`` of the result is the rounded decimal in its shortest form
    (``repr(round_significant(2 / 3)) == '0.6666666667'``).  NaN, infinities and zeros (with their sign) are
    returned unchanged, and so is a finite value whose rounding would overflow to infinity (within about
    ``5e-10`` relative of the largest float64).

    Parameters
    ----------
    value : float
        A real number (int, float or numpy scalar; bools are refused).
    digits : int, default :data:`SCIENCE_SIGNIFICANT_DIGITS`
        Significant digits, 1 to 17 (17 keeps every float64 as it is).

    Returns
    -------
    float

    Raises
    ------
    TypeError
        If ``value`` is not a real number or ``digits`` not an int.
    ValueError
        If ``digits`` is outside 1..17.

    Examples
    --------
    >>> round_significant(0.30000000000000004), round_significant(-123456.78901234, digits=4)
    (0.3, -123500.0)
    >>> round_significant(float("nan")), round_significant(float("-inf"))
    (nan, -inf)
    """
    number = check_real("value", value, finite=False)
    return _round(number, check_int("digits", digits, minimum=1, maximum=_MAX_DIGITS))


def _round_array(values: np.ndarray, digits: int) -> np.ndarray:
    """A float64 array with every element rounded (:func:`_round`)."""
    return np.array([_round(x, digits) for x in values.tolist()], dtype=np.float64)


def _round_column(column: pd.Series, digits: int) -> pd.Series:
    """``column`` with its float64 values rounded; the dtype, index and name kept."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype == np.float64:
        return pd.Series(_round_array(column.to_numpy(), digits), index=column.index, name=column.name)
    if isinstance(dtype, pd.Float64Dtype):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        rounded = pd.array(_round_array(values, digits), dtype=dtype)
        rounded[column.isna().to_numpy()] = pd.NA
        return pd.Series(rounded, index=column.index, name=column.name)
    if pd.api.types.is_object_dtype(dtype):
        values = [_round(float(v), digits) if isinstance(v, float) else v for v in column.tolist()]
        return pd.Series(values, index=column.index, name=column.name, dtype=object)
    return column


def science_frame(frame: pd.DataFrame, digits: int = SCIENCE_SIGNIFICANT_DIGITS) -> pd.DataFrame:
    """A copy of ``frame`` with every float64 value rounded to ``digits`` significant digits.

    Rounded are float64 and nullable ``Float64`` columns and the Python or numpy float64 values of object
    columns; every other column, the column names, the index and the dtypes are kept.  Written with pandas'
    ``to_csv`` (default float format), each rounded value reads as its shortest ``repr``.

    Parameters
    ----------
    frame : pandas.DataFrame
    digits : int, default :data:`SCIENCE_SIGNIFICANT_DIGITS`
        Significant digits, 1 to 17.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> frame = pd.DataFrame({"k": [4, 5], "ratio": [1 / 7, float("nan")], "note": [0.1 + 0.2, "text"]})
    >>> rounded = science_frame(frame)
    >>> rounded["ratio"].tolist(), rounded["note"].tolist(), list(rounded.dtypes) == list(frame.dtypes)
    ([0.1428571429, nan], [0.3, 'text'], True)
    """
    check_frame("frame", frame)
    digits = check_int("digits", digits, minimum=1, maximum=_MAX_DIGITS)
    rounded = frame.copy()
    for position in range(frame.shape[1]):  # by position: column names may repeat
        rounded.isetitem(position, _round_column(frame.iloc[:, position], digits))
    return rounded


def to_science_csv(frame: pd.DataFrame, path: str | os.PathLike | None = None) -> str | None:
    """Write ``frame`` as a science CSV: no index, floats at :data:`SCIENCE_SIGNIFICANT_DIGITS` significant digits.

    ``frame.to_csv(path, index=False)`` of :func:`science_frame` of ``frame``: the text when ``path`` is None
    (as pandas returns it), else None after writing the file (its folder must exist).

    Parameters
    ----------
    frame : pandas.DataFrame
    path : str or os.PathLike, optional
        The file to write.

    Returns
    -------
    str or None

    Examples
    --------
    >>> print(to_science_csv(pd.DataFrame({"x": [0.1 + 0.2, float("inf"), None], "n": [1, 2, 3]})), end="")
    x,n
    0.3,1
    inf,2
    ,3
    """
    check_frame("frame", frame)
    if path is not None:
        check_instance("path", path, (str, os.PathLike), "a file path")
        if not str(path).strip():
            raise ValueError(f"path must be a file path, got {path!r}")
        path = Path(path)
    return science_frame(frame).to_csv(path, index=False)
