"""``torus-lab verify``: re-run experiments into a temporary folder and compare their science outputs with a
reference (the committed ``data/<name>/`` for the ``paper`` preset).

What is compared: every file under ``data/<name>/`` of the reference and of the new run, except the manifest
and the timing files (``data/<name>/timing/``, :mod:`torus_lab.timing`), which hold machine-dependent
measurements.  Figures and executed notebooks are listed as *not compared*: their bytes carry renderer
versions, timestamps and run times.

The rule (also in ``docs/experiments.md``): a file is *identical* when its bytes (sha256) equal the
reference's, and *differs* otherwise; no tolerance is applied.  Science files are written at a stated
precision (floats rounded to :data:`torus_lab.precision.SCIENCE_SIGNIFICANT_DIGITS` significant digits,
``docs/conventions.md#science-precision``), so that a correct re-run on any machine writes the same bytes.  The
detail of a CSV that differs says how: the header or the number of rows, the first cell whose numbers disagree beyond
``math.isclose(a, b, rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL)`` or whose text differs, or, when every
cell agrees within that tolerance, the first cell whose text differs (a last-digit flip of the rounding, about
one value in a million for round-off of 1e-16).  A reference file the new run did not write is *missing*, a
new file absent from the reference *extra*.

Examples
--------
>>> cells_match("0.30000000000000004", "0.3"), cells_match("1.5", "1.6"), cells_match("nan", "nan")
(True, False, True)
>>> cells_match("holds", "holds"), cells_match("n^1.61", "n^1.62")
(True, False)
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torus_lab._validate import did_you_mean
from torus_lab.experiment import ExperimentError, ParameterError, check_output_root
from torus_lab.runner import (
    KERNEL_NAME,
    PUBLISH_PRESET,
    default_output_root,
    load_experiments,
    project_root,
    resolve_parameters,
    run_all,
)
from torus_lab.timing import is_timing_file

__all__ = [
    "FLOAT_ABS_TOL",
    "FLOAT_REL_TOL",
    "STATUSES",
    "FileComparison",
    "VerifyResult",
    "cells_match",
    "compare_file",
    "compare_outputs",
    "format_table",
    "reference_root",
    "verify",
]

#: Relative tolerance under which the detail of a differing CSV calls two numeric cells equal (not a pass).
FLOAT_REL_TOL = 1e-9
#: Absolute tolerance for numeric CSV cells near zero (in the detail of a differing CSV).
FLOAT_ABS_TOL = 1e-12
#: Results of one file's comparison; the first passes, the next three fail, the last is informational.
STATUSES = ("identical", "differs", "missing", "extra", "not compared")
PASSING = ("identical", "not compared")


@dataclass(frozen=True)
class FileComparison:
    """One output file (path relative to the output root) and the result of its comparison."""

    path: str
    status: str
    detail: str = ""


@dataclass
class VerifyResult:
    """The comparisons of a verify run; ``kept`` is the folder of the new outputs when it was kept."""

    preset: str
    reference: Path
    comparisons: list[FileComparison] = field(default_factory=list)
    kept: Path | None = None

    @property
    def ok(self) -> bool:
        return all(c.status in PASSING for c in self.comparisons)


# ---------------------------------------------------------------------- comparing
def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def cells_match(reference: str, candidate: str) -> bool:
    """Are two CSV cells equal as text, or numbers equal within :data:`FLOAT_REL_TOL` / :data:`FLOAT_ABS_TOL`?

    Used only to describe a CSV that differs (:func:`compare_file`): a file passes only when its bytes are equal.
    """
    if reference == candidate:
        return True
    a, b = _number(reference), _number(candidate)
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=FLOAT_REL_TOL, abs_tol=FLOAT_ABS_TOL)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _read_rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def compare_file(reference: Path, candidate: Path) -> tuple[str, str]:
    """(status, detail) of ``candidate`` against ``reference``: ``("identical", "")`` when the bytes are equal,
    else ``"differs"`` with a detail saying how (for a CSV, the first differing cell; see the module docstring).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_text("n,mean\\n2,0.9999999999999997\\n")
    >>> _ = (folder / "b.csv").write_text("n,mean\\n2,0.9999999999999998\\n")
    >>> compare_file(folder / "a.csv", folder / "b.csv")[0]
    'differs'
    >>> print(compare_file(folder / "a.csv", folder / "b.csv")[1].replace(": first", ":\\nfirst"))
    numbers agree within rel 1e-09 / abs 1e-12 but the bytes differ:
    first at row 1, column 'mean': '0.9999999999999997' vs '0.9999999999999998'
    """
    if _sha256(reference) == _sha256(candidate):
        return "identical", ""
    if reference.suffix != ".csv":
        return "differs", "sha256 differs"
    try:
        ref_rows, new_rows = _read_rows(reference), _read_rows(candidate)
    except (UnicodeDecodeError, csv.Error) as err:
        return "differs", f"sha256 differs; not comparable as CSV: {err}"
    if not ref_rows or not new_rows or ref_rows[0] != new_rows[0]:
        missing = sorted(set(ref_rows[0] if ref_rows else []) - set(new_rows[0] if new_rows else []))
        added = sorted(set(new_rows[0] if new_rows else []) - set(ref_rows[0] if ref_rows else []))
        return "differs", f"header differs (reference only: {missing}, new only: {added})"
    if len(ref_rows) != len(new_rows):
        return "differs", f"{len(ref_rows) - 1} rows in the reference, {len(new_rows) - 1} now"
    header = ref_rows[0]
    first_text = None  # the first cell whose text differs, though its numbers agree within the tolerance
    for number, (old, new) in enumerate(zip(ref_rows[1:], new_rows[1:], strict=True), start=1):
        if len(old) != len(new):
            return "differs", f"row {number}: {len(old)} cells in the reference, {len(new)} now"
        for column, a, b in zip(header, old, new, strict=True):
            if not cells_match(a, b):
                return "differs", f"row {number}, column {column!r}: {a[:40]!r} vs {b[:40]!r}"
            if first_text is None and a != b:
                first_text = f"row {number}, column {column!r}: {a[:40]!r} vs {b[:40]!r}"
    if first_text is None:
        return "differs", "the same cells, but the bytes differ (quoting, line endings or the final newline)"
    return "differs", (f"numbers agree within rel {FLOAT_REL_TOL:g} / abs {FLOAT_ABS_TOL:g} but the bytes differ: "
                       f"first at {first_text}")  # fmt: skip


def _science_files(root: Path, name: str) -> dict[str, Path]:
    """Science files of experiment ``name`` under output root ``root``, keyed by path relative to ``root``."""
    folder = root / "data" / name
    if not folder.is_dir():
        return {}
    files = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        inside = path.relative_to(folder)
        if inside.as_posix() == "manifest.json" or is_timing_file(inside):
            continue
        files[path.relative_to(root).as_posix()] = path
    return files


def compare_outputs(reference: Path, candidate: Path, names: Iterable[str]) -> list[FileComparison]:
    """Compare the science files of ``names`` under two output roots; figures are listed as not compared."""
    comparisons = []
    for name in names:
        old, new = _science_files(reference, name), _science_files(candidate, name)
        for path in sorted(old.keys() | new.keys()):
            if path not in new:
                comparisons.append(FileComparison(path, "missing", "in the reference, not written by this run"))
            elif path not in old:
                comparisons.append(FileComparison(path, "extra", "written by this run, not in the reference"))
            else:
                comparisons.append(FileComparison(path, *compare_file(old[path], new[path])))
        figures = sorted(p.relative_to(candidate).as_posix() for p in (candidate / "figures" / name).glob("*")
                         if p.is_file() and p.name != "manifest.json")  # fmt: skip
        comparisons += [FileComparison(path, "not compared", "figure") for path in figures]
    return comparisons


def format_table(comparisons: Sequence[FileComparison]) -> str:
    """A plain-text table ``file | result | detail`` and a one-line count per result."""
    width = max([len("file"), *(len(c.path) for c in comparisons)])
    lines = [f"{'file':{width}s} | {'result':16s} | detail", f"{'-' * width}-+-{'-' * 16}-+-------"]
    lines += [f"{c.path:{width}s} | {c.status:16s} | {c.detail}".rstrip() for c in comparisons]
    counts = {status: sum(c.status == status for c in comparisons) for status in STATUSES}
    lines.append(", ".join(f"{n} {status}" for status, n in counts.items() if n) or "no files")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the command
def reference_root(preset: str, against: str | Path | None = None, root: str | Path | None = None) -> Path:
    """The outputs to compare with: ``against`` if given; else the committed outputs (project folder) for the
    ``paper`` preset and ``scratch/<preset>/`` (where ``torus-lab run``/``reproduce`` leave them) otherwise."""
    if against is not None:
        return check_output_root(against, option="--against", create=False)
    project = project_root(root)
    return default_output_root(project, preset, publish=preset == PUBLISH_PRESET)


def _check_reference(reference: Path, names: Sequence[str], preset: str, root: str | Path | None) -> None:
    """Every experiment has reference outputs of the same preset and parameters (else nothing to compare)."""
    experiments = load_experiments(root)
    for name in names:
        manifest_path = reference / "reports" / name / "manifest.json"
        if not manifest_path.is_file():
            raise ParameterError(f"no reference outputs of {name!r} under {str(reference)!r} (expected "
                                 f"reports/{name}/manifest.json; run 'torus-lab run {name} --preset {preset}' "
                                 "first or pass --against DIR)")  # fmt: skip
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("preset") != preset:
            raise ParameterError(f"the reference outputs of {name!r} are of preset {manifest.get('preset')!r}, "
                                 f"not {preset!r}")  # fmt: skip
        expected = resolve_parameters(experiments[name], preset)
        if manifest.get("parameters") != expected:
            raise ParameterError(f"the reference outputs of {name!r} were run with other parameters than the "
                                 f"{preset!r} preset (overrides?): {manifest.get('parameters')!r}")  # fmt: skip


def verify(*, preset: str = PUBLISH_PRESET, names: Sequence[str] | None = None, against: str | Path | None = None,
           root: str | Path | None = None, keep: bool = False, kernel_name: str = KERNEL_NAME,
           progress: bool = True, jobs: int = 1) -> VerifyResult:  # fmt: skip
    """Re-run ``names`` (default: every experiment) at ``preset`` into a new temporary folder and compare.

    ``jobs``: experiments run side by side (:func:`torus_lab.runner.run_all`).

    The reference is :func:`reference_root`; it is checked (outputs present, same preset and parameters)
    before anything runs.  The temporary folder is removed when every file passes, unless ``keep``; it is kept
    (``VerifyResult.kept``) when a file differs, is missing or is extra, and when a run fails.
    """
    experiments = load_experiments(root)
    selected = list(names) if names else list(experiments)
    unknown = [name for name in selected if name not in experiments]
    if unknown:
        hints = "".join(did_you_mean(name, experiments) for name in unknown)
        raise ParameterError(f"unknown experiment(s) {unknown}{hints}; known experiments: {', '.join(experiments)}")
    for name in selected:
        resolve_parameters(experiments[name], preset)
    reference = reference_root(preset, against, root)
    _check_reference(reference, selected, preset, root)
    candidate = Path(tempfile.mkdtemp(prefix=f"torus-lab-verify-{preset}-"))
    result = VerifyResult(preset, reference, kept=candidate)
    try:
        run_all(preset=preset, out=candidate, root=root, names=selected, kernel_name=kernel_name,
                progress=progress, jobs=jobs)  # fmt: skip
    except ExperimentError as err:  # the CLI prints the message: name the kept folder in it
        err.args = (f"{err}; outputs of the verify run kept in {candidate}",)
        raise
    except KeyboardInterrupt:  # stopped (Ctrl-C, SIGTERM, SIGHUP): a partial run is worth nothing
        shutil.rmtree(candidate, ignore_errors=True)
        raise
    except BaseException as err:
        err.add_note(f"outputs of the verify run kept in {candidate}")
        raise
    result.comparisons = compare_outputs(reference, candidate, selected)
    if result.ok and not keep:
        shutil.rmtree(candidate, ignore_errors=True)
        result.kept = None
    return result
