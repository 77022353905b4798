"""Shared argument checks: refuse bad input before any work, naming the parameter and the bad value.

Python ints and numpy integer scalars count as ints; bools, floats (even ``2.0``), strings and bytes do not.

Examples
--------
>>> check_int("k", np.int32(8), minimum=2)
8
>>> check_int("k", 1, minimum=2)
Traceback (most recent call last):
...
ValueError: k must be >= 2, got 1
>>> check_real("fault_rate", 0.25, minimum=0, maximum=1)
0.25
>>> check_int_array("seeds", [3, 4], minimum=0).tolist()
[3, 4]
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas is imported by whoever makes a frame, not here: `import torus_lab` needs no pandas
    import pandas as pd

__all__ = [
    "did_you_mean",
    "is_int",
    "check_int",
    "check_real",
    "check_int_array",
    "check_instance",
    "check_str",
    "check_frame",
    "check_mapping",
    "check_results",
    "check_sequence",
    "check_real_array",
    "naming",
]


def is_int(value: object) -> bool:
    """True for a Python int or a numpy integer scalar, False for bools and everything else.

    Examples
    --------
    >>> is_int(3), is_int(np.uint8(3)), is_int(True), is_int(3.0)
    (True, True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_, np.timedelta64))


def check_int(name: str, value: object, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int after checking its type and ``minimum <= value <= maximum``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the message.
    value : object
        An int or numpy integer scalar (bools are refused).
    minimum, maximum : int, optional
        Inclusive bounds.

    Raises
    ------
    TypeError
        If ``value`` is not an int.
    ValueError
        If ``value`` is out of range.

    Examples
    --------
    >>> check_int("dims", 3, minimum=1)
    3
    >>> check_int("dims", 2.0)
    Traceback (most recent call last):
    ...
    TypeError: dims must be an int, got 2.0 (float)
    """
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {value!r} ({type(value).__name__})")
    value = int(value)  # type: ignore[call-overload]
    if minimum is not None and maximum is not None and not minimum <= value <= maximum:
        raise ValueError(f"{name} must be in {minimum}..{maximum}, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value!r}")
    return value


def check_real(name: str, value: object, minimum: float | None = None, maximum: float | None = None, *,
               open_maximum: bool = False, finite: bool = True) -> float:  # fmt: skip
    """Return ``value`` as a finite float after checking ``minimum <= value <= maximum`` (``< maximum`` when
    ``open_maximum``); ints and numpy scalars count, bools, NaN and infinities do not (``finite=False``: NaN and
    infinities pass, unchecked against the bounds).

    Examples
    --------
    >>> check_real("rate", 1, minimum=0, maximum=1)
    1.0
    >>> check_real("rate", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: rate must be a finite number, got nan
    """
    if isinstance(value, (bool, np.bool_, np.timedelta64)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r} ({type(value).__name__})")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number, got {value!r}") from None
    if not math.isfinite(number):
        if not finite:
            return number
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    too_big = maximum is not None and (number >= maximum if open_maximum else number > maximum)
    if (minimum is not None and number < minimum) or too_big:
        low = "-inf" if minimum is None else f"{minimum!r}"
        high = "inf" if maximum is None else f"{maximum!r}"
        interval = f"[{low}, {high}{')' if open_maximum or maximum is None else ']'}"
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
    return number


def check_int_array(name: str, values: object, minimum: int | None = None, maximum: int | None = None, *,
                    ndim: int | None = None) -> np.ndarray:  # fmt: skip
    """``values`` as an integer numpy array after checking its dtype, dimensions and range (elementwise).

    Python ints beyond int64 (up to ``2**64 - 1``) give a uint64 array; bools, floats and objects are refused.

    Examples
    --------
    >>> check_int_array("seeds", np.arange(3, dtype=np.uint64), minimum=0, ndim=1).tolist()
    [0, 1, 2]
    >>> check_int_array("seeds", [1, -2], minimum=0)
    Traceback (most recent call last):
    ...
    ValueError: seeds must be >= 0, got -2 (at index (1,))
    """
    if isinstance(values, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be integers, got {values!r}")
    try:
        array = np.asarray(values)
    except (OverflowError, ValueError) as err:
        raise ValueError(f"{name} must be an array of integers, got {values!r} ({err})") from None
    if not isinstance(values, np.ndarray) and array.dtype.kind in "fO":
        array = _python_ints(name, values, array)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype} ({values!r})")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    if array.size:
        checks = [(minimum, ">=", lambda a, b: a < b), (maximum, "<=", lambda a, b: a > b)]
        for bound, relation, outside in checks:
            if bound is not None:
                bad = outside(array, bound)
                if bad.any():
                    where = tuple(int(i) for i in np.argwhere(bad)[0])
                    raise ValueError(f"{name} must be {relation} {bound}, got {int(array[where])} (at index {where})")
    return array


def check_instance(name: str, value: object, types: type | tuple[type, ...], what: str | None = None) -> object:
    """``value`` itself after checking ``isinstance(value, types)``; ``what`` describes the expected type.

    Examples
    --------
    >>> check_instance("topology", 3, str, "a Torus or Mesh")
    Traceback (most recent call last):
    ...
    TypeError: topology must be a Torus or Mesh, got 3 (int)
    """
    if not isinstance(value, types):
        if what is None:
            names = types if isinstance(types, tuple) else (types,)
            what = "a " + " or ".join(t.__name__ for t in names)
        raise TypeError(f"{name} must be {what}, got {_short(value)} ({type(value).__name__})")
    return value


def did_you_mean(value: object, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the choices closest to ``value`` (difflib's ratio of at least 0.6), else
    an empty string: the tail of an "unknown name" message.

    Examples
    --------
    >>> did_you_mean("lods", ["loads", "direction_first"])
    " (did you mean 'loads'?)"
    >>> did_you_mean("zzz", ["loads"]), did_you_mean(3, ["loads"])
    ('', '')
    """
    if not isinstance(value, str):
        return ""
    close = difflib.get_close_matches(value, [str(choice) for choice in choices], n=2)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def check_str(name: str, value: object, choices: object = None) -> str:
    """``value`` after checking it is a str (TypeError), or one of ``choices`` when given (ValueError, whatever
    the type, like a failed ``in`` test).

    Examples
    --------
    >>> check_str("tie", "+", ("+", "-"))
    '+'
    >>> check_str("tie", "x", ("+", "-"))
    Traceback (most recent call last):
    ...
    ValueError: tie must be one of '+', '-', got 'x'
    """
    if choices is not None and (not isinstance(value, str) or value not in choices):
        raise ValueError(f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {_short(value)}"
                         f"{did_you_mean(value, choices)}")
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {_short(value)} ({type(value).__name__})")
    return value


def _is_frame(value: object) -> bool:
    """True for a pandas DataFrame, without importing pandas (a frame exists only once pandas is imported)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def check_frame(name: str, value: object, columns: object = ()) -> pd.DataFrame:
    """``value`` after checking it is a pandas DataFrame holding every column in ``columns``.

    Examples
    --------
    >>> import pandas as pd
    >>> check_frame("runs", pd.DataFrame({"load": [0.1]}), ["load"]).shape
    (1, 1)
    >>> check_frame("runs", pd.DataFrame({"load": [0.1]}), ["load", "latency"])
    Traceback (most recent call last):
    ...
    ValueError: runs lacks the column(s) 'latency' (has 'load')
    """
    if not _is_frame(value):
        raise TypeError(f"{name} must be a pandas DataFrame, got {_short(value)} ({type(value).__name__})")
    missing = [c for c in columns if c not in value.columns]
    if missing:
        have = ", ".join(repr(c) for c in value.columns) or "no columns"
        raise ValueError(f"{name} lacks the column(s) {', '.join(repr(c) for c in missing)} (has {have})")
    return value


def check_mapping(name: str, value: object, keys: object = ()) -> Mapping:
    """``value`` after checking it is a mapping holding every key in ``keys``.

    Examples
    --------
    >>> check_mapping("params", {"k": 4}, ["k", "n"])
    Traceback (most recent call last):
    ...
    ValueError: params lacks the key(s) 'n'
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping, got {_short(value)} ({type(value).__name__})")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {', '.join(repr(k) for k in missing)}")
    return value


def check_results(name: str, value: object, frames: Mapping[str, Iterable[str]]) -> Mapping:
    """``value`` after checking it maps every key of ``frames`` to a DataFrame holding that key's columns.

    For the figure functions, whose ``results`` are a study's tables keyed by CSV stem.

    Examples
    --------
    >>> import pandas as pd
    >>> check_results("results", {"loads": pd.DataFrame({"k": [4]})}, {"loads": ["k", "e_max"]})
    Traceback (most recent call last):
    ...
    ValueError: results['loads'] lacks the column(s) 'e_max' (has 'k')
    """
    check_mapping(name, value, list(frames))
    for key, columns in frames.items():
        check_frame(f"{name}[{key!r}]", value[key], columns)  # type: ignore[index]
    return value  # type: ignore[return-value]


def check_sequence(name: str, value: object, *, min_length: int = 0) -> list:
    """``value`` as a list after checking it is an iterable that is not a str, bytes or mapping.

    Examples
    --------
    >>> check_sequence("ks", (4, 5))
    [4, 5]
    >>> check_sequence("ks", "45")
    Traceback (most recent call last):
    ...
    TypeError: ks must be a sequence, got '45' (str)
    """
    if isinstance(value, (str, bytes, bytearray, Mapping)) or _is_frame(value) or not isinstance(value, Iterable) or (
            isinstance(value, np.ndarray) and value.ndim == 0):
        raise TypeError(f"{name} must be a sequence, got {_short(value)} ({type(value).__name__})")
    items = list(value)
    if len(items) < min_length:
        raise ValueError(f"{name} must hold at least {min_length} item(s), got {len(items)}")
    return items


def check_real_array(name: str, values: object, *, ndim: int | None = None, finite: bool = False) -> np.ndarray:
    """``values`` as a float numpy array after checking it holds real numbers (no bools, strings or objects).

    Examples
    --------
    >>> check_real_array("loads", [1, 2.5]).tolist()
    [1.0, 2.5]
    >>> check_real_array("loads", [[1.0], [2.0, 3.0]])
    Traceback (most recent call last):
    ...
    ValueError: loads must be an array of numbers, got [[1.0], [2.0, 3.0]] (ragged or not numeric)
    """
    if isinstance(values, (str, bytes, bytearray, Mapping)):
        raise TypeError(f"{name} must be numbers, got {_short(values)} ({type(values).__name__})")
    try:
        array = np.asarray(values)
    except (OverflowError, ValueError, TypeError):
        raise ValueError(f"{name} must be an array of numbers, got {_short(values)} (ragged or not numeric)") from None
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        if array.dtype.kind == "O":
            raise ValueError(f"{name} must be an array of numbers, got {_short(values)} (ragged or not numeric)")
        raise TypeError(f"{name} must hold numbers, got dtype {array.dtype} ({_short(values)})")
    array = array.astype(float)
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    if finite and not np.isfinite(array).all():
        raise ValueError(f"{name} must hold finite numbers, got {_short(values)}")
    return array


@contextmanager
def naming(name: str) -> Iterator[None]:
    """Inside the block, a ValueError or TypeError whose message does not name ``name`` gets it as a prefix.

    For checks delegated to another checker (``topology.check_node``, ``make_routing``, ...) that describe
    the value but not the caller's parameter.

    Examples
    --------
    >>> with naming("source"):
    ...     int("x")
    Traceback (most recent call last):
    ...
    ValueError: source: invalid literal for int() with base 10: 'x'
    """
    try:
        yield
    except (TypeError, ValueError) as err:
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", str(err)):
            raise
        raise (TypeError if isinstance(err, TypeError) else ValueError)(f"{name}: {err}") from err


def _short(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _python_ints(name: str, values: object, array: np.ndarray) -> np.ndarray:
    """A nested sequence of Python ints that numpy made float or object: int64 or uint64 if it fits."""
    if array.size == 0:
        return array.astype(np.int64)
    items = np.asarray(values, dtype=object)
    if not all(is_int(v) for v in items.flat):
        return array  # refused by the caller (floats, strings, ...)
    low, high = min(int(v) for v in items.flat), max(int(v) for v in items.flat)
    if -(2**63) <= low and high < 2**63:
        return items.astype(np.int64)
    if 0 <= low and high < 2**64:
        return items.astype(np.uint64)
    raise ValueError(f"{name} must fit int64 or uint64, got values from {low} to {high}")
