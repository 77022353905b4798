"""Statistics over simulation runs: confidence intervals over seeds and saturation by a load sweep.

Examples
--------
>>> mean, half = confidence_interval([10.0, 12.0, 11.0, 13.0])
>>> round(mean, 2), round(half, 2)
(11.5, 2.05)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats as _st

from torus_lab._validate import check_frame, check_real, check_real_array, check_sequence, check_str

__all__ = ["confidence_interval", "summarize"]


def confidence_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Mean and Student-t half-width of a ``level`` confidence interval (NaN half-width for one value).

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
    return mean, float(_st.t.ppf(0.5 + level / 2, arr.size - 1) * sem)


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
