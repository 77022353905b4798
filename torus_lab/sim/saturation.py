"""Saturation: the one definition every study uses, with the criterion as a parameter.

A network *sustains* an offered load when, over the runs at that load (one per seed),

1. no run deadlocked and none was aborted as unstable (``end_rule == "unstable"``, adaptive run-length control,
   :mod:`torus_lab.sim.runlength`; a table without an ``end_rule`` column has no unstable runs);
2. the mean accepted throughput is at least ``accept_ratio`` times the mean *generated* throughput (the load the
   Bernoulli sources actually produced in the measurement window; comparing with the nominal offered load would
   call light loads unsustained by chance), unless ``accept_ratio`` is None;
3. the mean latency is at most ``latency_factor`` times the mean latency at the lightest load of the same curve,
   unless ``latency_factor`` is None, and at most ``latency_cap`` cycles, unless ``latency_cap`` is None.

The *saturation load* of a latency-load curve is the highest offered load that is sustained together with every
lighter load of the curve (a curve that recovers after a failed load does not count the recovery); the
*saturation throughput* is the largest mean accepted throughput over the curve's loads without deadlock.
:func:`torus_lab.sim.find_saturation` bisects with the same test (:meth:`Saturation.sustained`).

Examples
--------
>>> import pandas as pd
>>> runs = pd.DataFrame({"routing": "r", "offered_load": [0.1, 0.2, 0.3, 0.4],
...                      "accepted_throughput": [0.1, 0.2, 0.25, 0.26],
...                      "generated_throughput": [0.1, 0.2, 0.3, 0.4],
...                      "mean_latency": [10.0, 12.0, 25.0, 80.0], "deadlock": False})
>>> saturation_table(runs, ["routing"])[["saturation_load", "saturation_throughput"]].values.tolist()
[[0.2, 0.26]]
>>> saturation_table(runs, ["routing"], Saturation(accept_ratio=None))["saturation_load"].item()
0.3
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from torus_lab._validate import check_sequence, check_str

if TYPE_CHECKING:  # imported where a table is read or made: importing the simulator needs no pandas
    import pandas as pd

__all__ = ["Saturation", "RUN_COLUMNS", "sustained_loads", "saturation_table"]

#: Columns a table of runs must have (besides the grouping columns).
RUN_COLUMNS = ("offered_load", "accepted_throughput", "generated_throughput", "mean_latency", "deadlock")


@dataclass(frozen=True)
class Saturation:
    """The saturation criterion (see the module docstring); None switches a test off."""

    accept_ratio: float | None = 0.95
    latency_factor: float | None = 3.0
    latency_cap: float | None = None

    def __post_init__(self) -> None:
        for name in ("accept_ratio", "latency_factor", "latency_cap"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise TypeError(f"{name} must be a finite number or None, got {value!r}")
            if value <= 0:
                raise ValueError(f"{name} must be > 0, got {value!r}")
        if self.accept_ratio is not None and self.accept_ratio > 1:
            raise ValueError(f"accept_ratio must be <= 1, got {self.accept_ratio!r}")

    def sustained(self, *, deadlock: bool, accepted: float, generated: float, latency: float,
                  base_latency: float, unstable: bool = False) -> bool:  # fmt: skip
        """Whether one load (means over its runs) is sustained, given the curve's lightest-load latency.

        Examples
        --------
        >>> Saturation().sustained(deadlock=False, accepted=0.95, generated=1.0, latency=30.0, base_latency=10.0)
        True
        >>> Saturation().sustained(deadlock=False, accepted=0.94, generated=1.0, latency=30.0, base_latency=10.0)
        False
        >>> Saturation().sustained(deadlock=False, accepted=1.0, generated=1.0, latency=30.0, base_latency=10.0,
        ...                        unstable=True)
        False
        >>> Saturation(latency_factor=None, latency_cap=25.0).sustained(deadlock=False, accepted=1.0, generated=1.0,
        ...                                                          latency=30.0, base_latency=10.0)
        False
        """
        if deadlock or unstable:
            return False
        if self.accept_ratio is not None and not accepted >= self.accept_ratio * generated:
            return False
        if self.latency_factor is not None and not latency <= self.latency_factor * base_latency:
            return False
        if self.latency_cap is not None and not latency <= self.latency_cap:
            return False
        return True


def _check_runs(runs: pd.DataFrame, by: Sequence[str]) -> list[str]:
    import pandas as pd

    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}")
    if isinstance(by, str):
        by = [by]
    by = [check_str("by", col) for col in check_sequence("by", by)]
    missing = [col for col in [*by, *RUN_COLUMNS] if col not in runs.columns]
    if missing:
        raise ValueError(f"runs lack column(s) {missing}")
    return list(by)


def sustained_loads(runs: pd.DataFrame, by: Sequence[str], criterion: Saturation = Saturation()) -> pd.DataFrame:
    """Per group and offered load: mean accepted / generated throughput and latency over the runs, ``runs``,
    ``deadlocks``, ``unstable_runs`` (``end_rule == "unstable"``), ``sustained`` (this load passes the criterion)
    and ``sustained_so_far`` (it and every lighter load pass).

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"offered_load": [0.1, 0.1, 0.5], "accepted_throughput": [0.1, 0.1, 0.2],
    ...                      "generated_throughput": [0.1, 0.1, 0.5], "mean_latency": [9.0, 11.0, 50.0],
    ...                      "deadlock": [False, False, False]})
    >>> sustained_loads(runs, [])[["offered_load", "mean_latency", "sustained"]].values.tolist()
    [[0.1, 10.0, True], [0.5, 50.0, False]]
    """
    import pandas as pd

    by = _check_runs(runs, by)
    keys = [*by, "offered_load"]
    unstable = runs["end_rule"] == "unstable" if "end_rule" in runs.columns else False
    means = (
        runs.assign(deadlock=runs["deadlock"].astype(bool), unstable=unstable)
        .groupby(keys, sort=True, dropna=False)
        .agg(accepted_throughput=("accepted_throughput", "mean"),
             generated_throughput=("generated_throughput", "mean"),
             mean_latency=("mean_latency", "mean"),
             runs=("offered_load", "size"),
             deadlocks=("deadlock", "sum"),
             unstable_runs=("unstable", "sum"))  # fmt: skip
        .reset_index()
    )
    parts = []
    for _, curve in (means.groupby(by, sort=False, dropna=False) if by else [(None, means)]):
        curve = curve.sort_values("offered_load").copy()
        base = float(curve["mean_latency"].iloc[0])
        curve["sustained"] = [
            criterion.sustained(deadlock=bool(row.deadlocks), accepted=row.accepted_throughput,
                                generated=row.generated_throughput, latency=row.mean_latency, base_latency=base,
                                unstable=bool(row.unstable_runs))
            for row in curve.itertuples()
        ]  # fmt: skip
        curve["sustained_so_far"] = np.logical_and.accumulate(curve["sustained"].to_numpy(dtype=bool))
        parts.append(curve)
    return pd.concat(parts, ignore_index=True) if parts else means.assign(sustained=[], sustained_so_far=[])


def saturation_table(runs: pd.DataFrame, by: Sequence[str], criterion: Saturation = Saturation()) -> pd.DataFrame:
    """One row per group of ``by``: ``saturation_load`` (NaN when even the lightest load is not sustained),
    ``saturation_throughput`` and ``loads`` (the curve's number of offered loads)."""
    import pandas as pd

    by = _check_runs(runs, by)
    loads = sustained_loads(runs, by, criterion)
    rows = []
    for key, curve in (loads.groupby(by, sort=True, dropna=False) if by else [((), loads)]):
        key = key if isinstance(key, tuple) else (key,)
        ok = curve[curve["sustained_so_far"]]
        alive = curve[curve["deadlocks"] == 0]
        rows.append({
            **dict(zip(by, key, strict=True)),
            "saturation_load": float(ok["offered_load"].max()) if len(ok) else math.nan,
            "saturation_throughput": float(alive["accepted_throughput"].max()) if len(alive) else math.nan,
            "loads": len(curve),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=[*by, "saturation_load", "saturation_throughput", "loads"])
