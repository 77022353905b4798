"""Timing data kept apart from science data: wall-clock and CPU measurements never enter a science CSV.

Two correct runs of an experiment give byte-identical science files (``data/<name>/*.csv``) on any machine and
sweep backend; measured times differ from run to run.  A study therefore returns its measurements as separate
frames whose result key ends in :data:`TIMING_SUFFIX`; :meth:`torus_lab.experiment.ExperimentRun.save` writes
the frame ``<stem>_timing`` to ``data/<name>/timing/<stem>.csv`` (:func:`result_path`).  The runner's manifest
marks those files with role ``"timing"``, and ``torus-lab verify`` does not compare them.  Each timing frame
repeats the key columns of the science rows it belongs to, so the two can be joined.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"n": [2, 3], "max_len": [4, 7], "seconds": [0.25, 0.5]})
>>> science, timing = split_timing(frame, ["seconds"], keys=["n"])
>>> list(science.columns), list(timing.columns)
(['n', 'max_len'], ['n', 'seconds'])
>>> result_path("data/demo", "loads").as_posix(), result_path("data/demo", timing_key("loads")).as_posix()
('data/demo/loads.csv', 'data/demo/timing/loads.csv')
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath

import pandas as pd

from torus_lab._validate import check_frame, check_instance, check_sequence, check_str

__all__ = ["TIMING_FOLDER", "TIMING_SUFFIX", "is_timing_file", "result_path", "split_timing", "timing_key"]

#: Result keys ending in this suffix hold machine-dependent measurements (wall-clock or CPU times).
TIMING_SUFFIX = "_timing"
#: Sub-folder of an experiment's data folder that holds the timing files.
TIMING_FOLDER = "timing"


def timing_key(stem: str) -> str:
    """The result key under which the timing frame of ``stem`` is returned (``stem + "_timing"``)."""
    check_str("stem", stem)
    if not stem or Path(stem).name != stem:
        raise ValueError(f"stem must be a plain file name, got {stem!r}")
    return stem + TIMING_SUFFIX


def result_path(data_dir: str | os.PathLike, key: str) -> Path:
    """Where the frame of result ``key`` is written: ``data_dir/<key>.csv``, or for a timing key
    ``<stem>_timing`` the file ``data_dir/timing/<stem>.csv``."""
    folder = Path(check_instance("data_dir", data_dir, (str, os.PathLike), "a folder path"))
    check_str("key", key)
    if not key or Path(key).name != key:
        raise ValueError(f"results key {key!r} is not a plain file name")
    if key.endswith(TIMING_SUFFIX) and len(key) > len(TIMING_SUFFIX):
        return folder / TIMING_FOLDER / f"{key[: -len(TIMING_SUFFIX)]}.csv"
    return folder / f"{key}.csv"


def is_timing_file(relative: str | PurePath) -> bool:
    """Is ``relative`` (a path inside an experiment's data folder, e.g. ``timing/loads.csv``) a timing file?

    Examples
    --------
    >>> is_timing_file("timing/loads.csv"), is_timing_file("loads.csv")
    (True, False)
    """
    parts = PurePath(check_instance("relative", relative, (str, PurePath), "a relative path")).parts
    return len(parts) > 1 and parts[0] == TIMING_FOLDER


def split_timing(frame: pd.DataFrame, columns: Sequence[str], keys: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``frame`` without the timing ``columns`` (science), and ``keys + columns`` (timing), same row order.

    Timing columns absent from ``frame`` are ignored (a frame without rows may lack them).
    """
    columns = [check_str("columns", c) for c in check_sequence("columns", columns)]
    keys = [check_str("keys", k) for k in check_sequence("keys", keys)]
    check_frame("frame", frame, keys)
    overlap = sorted(set(columns) & set(keys))
    if overlap:
        raise ValueError(f"columns and keys overlap: {overlap}")
    present = [c for c in columns if c in frame.columns]
    return frame.drop(columns=present), frame[keys + present].copy()
