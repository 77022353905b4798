"""Experiment runner: parameter checking, papermill execution, provenance manifests, atomic outputs.

An *experiment* is ``experiments/<name>.yaml`` (notebook, description, parameter schema, presets; see
:mod:`torus_lab.experiment`).

:func:`run_experiment` validates the parameters against the experiment's schema, executes the notebook
with papermill (explicit kernel, working directory = project root) into a staging folder, writes
``manifest.json`` (parameters, preset,
seed, git commit, versions, times, sha256 and role of every output) and only then swaps the staging folders
into ``data/<name>``, ``figures/<name>`` and ``reports/<name>`` of the output root.  A failing or
interrupted run leaves earlier outputs untouched.

The output root is ``--out`` if given; otherwise ``scratch/<preset>/`` of the project, except for the
``paper`` preset through ``torus-lab reproduce`` or ``torus-lab run --publish``, which write the committed
outputs in the project folder itself (:func:`default_output_root`).

Examples
--------
>>> parse_value("3"), parse_value("0.25"), parse_value("[5, 6]"), parse_value("odr")
(3, 0.25, [5, 6], 'odr')
"""

from __future__ import annotations

import ast
import contextlib
import json
import logging
import os
import shutil
import sys
import sysconfig
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from torus_lab._validate import check_instance, check_int, check_sequence, check_str, did_you_mean
from torus_lab.experiment import (
    CACHE_ENVIRONMENT,
    RESERVED_PARAMETERS,
    Experiment,
    ExperimentError,
    ParameterError,
    UnknownExperimentError,
    check_against_schema,
    check_output_root,
    check_study_rules,
    default_cache_dir,
    load_experiment,
    load_experiments,
    project_root,
)
from torus_lab.interrupt import STOP
from torus_lab.manifest import GENERATED_PATHS as GENERATED_PATHS
from torus_lab.manifest import OUTPUT_ROLES as OUTPUT_ROLES
from torus_lab.manifest import RECORDED_PACKAGES as RECORDED_PACKAGES
from torus_lab.manifest import build_manifest, sweep_settings, utc_now
from torus_lab.manifest import git_state as git_state
from torus_lab.manifest import output_role as output_role
from torus_lab.manifest import package_versions as package_versions
from torus_lab.manifest import sha256 as sha256
from torus_lab.outputs import output_lock, staging_folder, swap_into_place
from torus_lab.progress import RUNNER_ENVIRONMENT, ProgressPrinter
from torus_lab.settings import ENVIRONMENT, Settings, current_settings

__all__ = [
    "Experiment",
    "RunResult",
    "RunnerError",
    "UnknownExperimentError",
    "ParameterError",
    "NotebookFailedError",
    "OutputWriteError",
    "OUTPUT_KINDS",
    "RESERVED_PARAMETERS",
    "project_root",
    "load_experiments",
    "load_experiment",
    "shared_sweep_environment",
    "notebook_parameters",
    "parse_value",
    "run_experiment",
    "run_all",
    "start_order",
    "ensure_kernel",
    "PUBLISH_PRESET",
    "default_output_root",
    "reproduce_output_root",
    "claims_change_record",
    "change_record",
]

#: The three output folders every experiment writes into (``<kind>/<name>``).
OUTPUT_KINDS = ("data", "figures", "reports")
#: Environment variables that choose the sweep backend and its local workers (see :mod:`torus_lab.sweep`).
SWEEP_ENVIRONMENT = (ENVIRONMENT["backend_text"], ENVIRONMENT["scheduler"], ENVIRONMENT["workers_text"])
#: Experiments ``torus-lab reproduce`` and ``verify`` run side by side by default (``--jobs``): on 2 cores,
#: one experiment's serial steps (kernel start, figures, report) overlap another's sweeps.
DEFAULT_JOBS = 2
#: Default kernel name, registered by ``make kernel`` (and by :func:`ensure_kernel` if missing).
KERNEL_NAME = "torus-lab"


RunnerError = ExperimentError  # the runner's user-facing errors (the CLI prints the message, no traceback)


class NotebookFailedError(RunnerError):
    """The notebook raised; the message names the failing cell."""

    exit_code = 1


class OutputWriteError(RunnerError):
    """An output file could not be written (disk full, permissions); the message names the file or folder."""

    exit_code = 1


@dataclass
class RunResult:
    """What one run produced: output folders, the manifest and its duration."""

    name: str
    preset: str
    parameters: dict[str, Any]
    outputs: dict[str, Path]
    manifest: dict[str, Any] = field(repr=False)
    duration_s: float = 0.0


# ---------------------------------------------------------------------- parameters
def notebook_parameters(notebook: str | Path) -> dict[str, Any]:
    """Names and default values of the notebook's cell tagged ``parameters`` (plain literals only)."""
    path = Path(notebook)
    try:
        nb = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise RunnerError(f"cannot read notebook {path}: {err}") from err
    cells = [c for c in nb.get("cells", []) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise RunnerError(f"{path.name}: expected exactly one cell tagged 'parameters', found {len(cells)}")
    source = cells[0]["source"]
    source = "".join(source) if isinstance(source, list) else source
    defaults: dict[str, Any] = {}
    for statement in ast.parse(source).body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring-like comment
            raise RunnerError(f"{path.name}: parameters cell may hold only 'name = literal' lines")
        target = statement.targets[0]
        if not isinstance(target, ast.Name):
            raise RunnerError(f"{path.name}: parameters cell may hold only 'name = literal' lines")
        try:
            defaults[target.id] = ast.literal_eval(statement.value)
        except ValueError as err:
            raise RunnerError(f"{path.name}: parameter {target.id!r} is not a plain literal") from err
    return defaults


def parse_value(text: str) -> Any:
    """Parse a ``-p key=value`` value as YAML: ``3`` -> int, ``0.5`` -> float, ``[1, 2]`` -> list, else str."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def resolve_parameters(
    experiment: Experiment, preset: str, overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Preset values updated by ``overrides``, validated against the experiment's schema before anything runs."""
    if preset not in experiment.presets:
        raise ParameterError(
            f"{experiment.name}: unknown preset {preset!r}{did_you_mean(preset, experiment.presets)}; presets: "
            f"{', '.join(experiment.presets)}"
        )
    params = {**experiment.presets[preset], **dict(overrides or {})}
    checked = check_against_schema(params, experiment.schema, experiment=experiment.name)
    return check_study_rules(experiment.name, checked)


# ---------------------------------------------------------------------- kernel and notebook execution
def ensure_kernel(kernel_name: str = KERNEL_NAME) -> str:
    """Make sure ``kernel_name`` exists; the project kernel is registered into this environment if missing."""
    from jupyter_client.kernelspec import KernelSpecManager

    if kernel_name in KernelSpecManager().find_kernel_specs():
        return kernel_name
    if kernel_name != KERNEL_NAME:
        raise RunnerError(f"kernel {kernel_name!r} is not installed (python -m ipykernel install --name ...)")
    from ipykernel.kernelspec import install

    install(kernel_name=KERNEL_NAME, display_name="Python (torus_lab)", prefix=sys.prefix)
    return kernel_name


def _clean_executed_notebook(path: Path, *, root: Path, staging: Path, experiment: Experiment) -> None:
    """Drop machine paths from an executed notebook: staging folders become the final ``<kind>/<name>``
    folders, the installed packages' folder ``site-packages/`` (a warning names its source file), the project
    folder becomes ``.``, and papermill's path metadata is made relative."""
    replacements = [(str(staging) + os.sep, ""), (_as_notebook_path(staging, root) + "/", ""),
                    (sysconfig.get_paths()["purelib"] + os.sep, "site-packages/"),
                    (str(root) + os.sep, ""), (str(root), "."), (str(Path.home()) + os.sep, "~/")]  # fmt: skip
    text = path.read_text(encoding="utf-8")
    for old, new in replacements:
        text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    nb = json.loads(text)
    meta = nb.setdefault("metadata", {}).setdefault("papermill", {})
    meta["input_path"] = experiment.notebook.as_posix()
    meta["output_path"] = f"reports/{experiment.name}/{experiment.name}.ipynb"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _not_while_stopping(record: logging.LogRecord) -> bool:  # noqa: ARG001 (a logging filter's signature)
    """Logging filter: nothing while the run stops (its kernel was ended on purpose: "Kernel died ...")."""
    return not STOP.requested


def _silence_papermill_when_stopping() -> None:
    """Add :func:`_not_while_stopping` to papermill's logger (nbclient logs through it), once."""
    logger = logging.getLogger("papermill")
    if _not_while_stopping not in logger.filters:
        logger.addFilter(_not_while_stopping)


def _cache_setting(root: Path) -> str:
    """The kernel's ``TORUS_LAB_CACHE``: this process's setting, else the project's default cache folder."""
    cache = current_settings().cache
    return str(default_cache_dir(root)) if cache is None else cache


def _execute(experiment: Experiment, params: dict[str, Any], executed: Path, *, kernel_name: str,
             progress: ProgressPrinter | None, sweep_environment: Mapping[str, str]) -> None:  # fmt: skip
    """Run the notebook with papermill; ``progress`` shows its cells and the sweeps inside it (the kernel appends
    sweep progress to a file named by :data:`torus_lab.progress.PROGRESS_ENVIRONMENT`, followed here)."""
    import papermill
    from nbclient.exceptions import DeadKernelError
    from papermill.exceptions import PapermillExecutionError

    from torus_lab._kernel import CELLS_BAR, KernelRun
    from torus_lab.progress import PROGRESS_ENVIRONMENT, ProgressEvent, ProgressFollower

    def show_cells(done: int, total: int, elapsed_s: float) -> None:
        if progress is not None:
            progress.update(ProgressEvent(CELLS_BAR, done, total, elapsed_s=elapsed_s, bar_id=str(executed)))

    _silence_papermill_when_stopping()
    with tempfile.TemporaryDirectory(prefix="torus-lab-progress-") as folder:
        events = Path(folder) / "progress.jsonl"
        kernel_env = {
            RUNNER_ENVIRONMENT: "1",  # figures are shown as links to their files
            CACHE_ENVIRONMENT: _cache_setting(experiment.root),
            PROGRESS_ENVIRONMENT: str(events) if progress is not None else None,
            **sweep_environment,
        }
        kernel_run = KernelRun(on_cells=show_cells, env=kernel_env, cwd=str(experiment.root))
        follower = contextlib.nullcontext()
        if progress is not None:
            follower = ProgressFollower(events, progress.update)
        try:
            with follower:
                papermill.execute_notebook(
                    str(experiment.notebook_path),
                    str(executed),
                    parameters=params,
                    kernel_name=kernel_name,
                    progress_bar=False,  # cells are shown through kernel_run (one line per step without a terminal)
                    log_output=False,
                    report_mode=False,
                    **kernel_run.client_options(),
                )
        except PapermillExecutionError as err:
            # papermill counts the injected-parameters cell; the number below is the cell's 1-based position in
            # the committed notebook (the failing cell comes after the injected one).
            STOP.check()  # a cell that failed because the run is being stopped
            first_line = next((line for line in str(err.source).splitlines() if line.strip()), "")
            raise NotebookFailedError(
                f"{experiment.name}: notebook {experiment.notebook} failed in cell {err.cell_index} "
                f"(starting {first_line.strip()!r}): {err.ename}: {err.evalue}"
            ) from err
        except DeadKernelError as err:
            STOP.check()  # the kernel was ended by a stop request
            raise NotebookFailedError(f"{experiment.name}: the kernel running notebook {experiment.notebook} died "
                                      f"after {kernel_run.executed} of {kernel_run.total} cells (out of memory, or "
                                      "killed by another process?)") from err  # fmt: skip
        finally:
            if kernel_run.pgid:
                STOP.discard_group(kernel_run.pgid)
            if progress is not None:
                progress.close()


#: The one preset whose outputs are committed: only it may write into the project's own output folders.
PUBLISH_PRESET = "paper"
#: Git-ignored folder under the project root; other presets write into ``scratch/<preset>/`` by default.
SCRATCH_FOLDER = "scratch"


def default_output_root(project: Path, preset: str, *, publish: bool) -> Path:
    """Where a run writes when no ``--out`` is given: the project folder (``publish``), else ``scratch/<preset>``.

    Only the :data:`PUBLISH_PRESET` may be published: committed ``data/``, ``figures/`` and ``reports/`` hold
    the paper-scale results, and a quick run must never overwrite them.  Under the returned root the
    layout is always ``data/<name>``, ``figures/<name>``, ``reports/<name>`` (so ``torus-lab report --out`` and
    ``torus-lab verify`` read any root the same way).

    Examples
    --------
    >>> root = Path("/project")
    >>> default_output_root(root, "quick", publish=False).as_posix()
    '/project/scratch/quick'
    >>> default_output_root(root, "paper", publish=True).as_posix()
    '/project'
    >>> default_output_root(root, "quick", publish=True)
    Traceback (most recent call last):
    ...
    torus_lab.experiment.ParameterError: --publish ... takes only the 'paper' preset, got preset 'quick'
    """
    if not isinstance(preset, str) or not preset or Path(preset).name != preset or preset in (".", ".."):
        raise ParameterError(f"preset must be a plain name, got {preset!r}")
    if not isinstance(publish, bool):
        raise TypeError(f"publish must be a bool, got {publish!r}")
    if publish:
        if preset != PUBLISH_PRESET:
            raise ParameterError(f"--publish writes the committed outputs and takes only the {PUBLISH_PRESET!r} "
                                 f"preset, got preset {preset!r}")  # fmt: skip
        return project
    return project / SCRATCH_FOLDER / preset


def _output_root(out: str | Path | None, project: Path, preset: str, publish: bool) -> Path:
    """``out`` checked (created if missing), else :func:`default_output_root`; ``--out`` and ``--publish`` clash."""
    if out is not None and publish:
        raise ParameterError("--publish writes into the project folder and cannot be combined with --out")
    if out is not None:
        return check_output_root(out)
    return check_output_root(default_output_root(project.resolve(), preset, publish=publish))


def _as_notebook_path(path: Path, root: Path) -> str:
    """Path as the notebook (cwd = project root) should see it: relative when inside the project."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def run_experiment(
    name: str,
    *,
    preset: str = "quick",
    overrides: Mapping[str, Any] | None = None,
    out: str | Path | None = None,
    root: str | Path | None = None,
    kernel_name: str = KERNEL_NAME,
    progress: bool | ProgressPrinter = True,
    publish: bool = False,
    sweep_environment: Mapping[str, str] | None = None,
    wait: bool = False,
) -> RunResult:
    """Run one experiment at ``preset`` (with ``overrides``) into ``out``.

    Without ``out`` the outputs go to ``scratch/<preset>/`` of the project, or, with ``publish=True`` (only
    for the ``paper`` preset), into the project's committed ``data/``, ``figures/`` and ``reports/``
    (:func:`default_output_root`).

    ``progress``: show the cells executed and the sweeps inside the notebook on standard error (True), on a
    given :class:`~torus_lab.progress.ProgressPrinter`, or not at all (False).

    ``wait``: when another process writes into the output root, wait for it instead of refusing
    (:func:`torus_lab.outputs.output_lock`).

    ``sweep_environment``: settings of the notebook's sweeps (``TORUS_LAB_BACKEND``, ``TORUS_LAB_SCHEDULER``,
    ``TORUS_LAB_WORKERS``) for its kernel only, on top of this process's environment (:func:`run_all` passes
    :func:`shared_sweep_environment`); the manifest records the settings the kernel ran with.

    Raises
    ------
    UnknownExperimentError, ParameterError
        Before anything runs (also for ``publish`` with another preset, with overrides, or with ``out``).
    OutputRootBusyError
        Another process writes into the output root (unless ``wait``).
    torus_lab.interrupt.Interrupted
        When the run is stopped (:mod:`torus_lab.interrupt`); earlier outputs are left as they were.
    NotebookFailedError
        When a cell raises; earlier outputs are left as they were.
    """
    sweep_environment = dict(check_instance("sweep_environment", sweep_environment or {}, Mapping, "a mapping"))
    for key, value in sweep_environment.items():
        if key not in SWEEP_ENVIRONMENT or not isinstance(value, str):
            raise ValueError(f"sweep_environment must map names of {SWEEP_ENVIRONMENT} to str, got {key!r}: {value!r}")
    experiment = load_experiment(name, root)
    project = experiment.root
    if publish and overrides:
        raise ParameterError(f"--publish writes the committed outputs of the {PUBLISH_PRESET!r} preset exactly as "
                             f"it is and takes no overrides, got {', '.join(map(repr, overrides))}")  # fmt: skip
    params = resolve_parameters(experiment, preset, overrides)
    out_root = _output_root(out, project, preset, publish)
    kernel_name = ensure_kernel(kernel_name)
    STOP.check()
    with output_lock(out_root, wait=wait, notify=_notice):
        return _run_locked(experiment, preset, params, out_root, kernel_name, progress, sweep_environment)


def _notice(message: str) -> None:
    print(f"torus-lab: {message}", file=sys.stderr, flush=True)


def _run_locked(experiment: Experiment, preset: str, params: dict[str, Any], out_root: Path, kernel_name: str,
                progress: bool | ProgressPrinter, sweep_environment: dict[str, str]) -> RunResult:  # fmt: skip
    """:func:`run_experiment` once the output root's lock is held: stage, execute, export, swap."""
    name, project = experiment.name, experiment.root
    staging = staging_folder(out_root, name, uuid.uuid4().hex[:8])
    staged = {kind: staging / kind / name for kind in OUTPUT_KINDS}
    executed = staged["reports"] / f"{name}.ipynb"
    injected = dict(params)
    injected["data_dir"] = _as_notebook_path(staged["data"], project)
    injected["figures_dir"] = _as_notebook_path(staged["figures"], project)

    started, clock = utc_now(), time.perf_counter()
    try:
        try:
            for folder in staged.values():
                folder.mkdir(parents=True)
            _execute(experiment, injected, executed, kernel_name=kernel_name, progress=_printer(progress),
                     sweep_environment=sweep_environment)
        except NotebookFailedError:
            _keep_failed_notebook(executed, project, name)
            raise
        STOP.check()
        _clean_executed_notebook(executed, root=project, staging=staging, experiment=experiment)
        duration = time.perf_counter() - clock
        changes = claims_change_record(out_root, name, staged["data"] / "claims.csv")
        manifest = _manifest(experiment, preset, params, staged, started, duration, sweep_environment, changes)
        for folder in staged.values():
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=False) + "\n")
        targets = {kind: out_root / kind / name for kind in OUTPUT_KINDS}
        STOP.check()  # the last moment to stop: once the swap starts, it finishes
        swap_into_place(staging, [(staged[kind], targets[kind]) for kind in OUTPUT_KINDS])
    except OSError as err:  # a file-system failure (disk full, permissions): name the file, or at least the root
        where = err.filename or staging
        raise OutputWriteError(f"{name}: cannot write {where}: {err.strerror or err}; earlier outputs were left "
                               "as they were") from err  # fmt: skip
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return RunResult(name, preset, params, targets, manifest, duration)


def _printer(progress: bool | ProgressPrinter) -> ProgressPrinter | None:
    if isinstance(progress, ProgressPrinter):
        return progress
    check_instance("progress", progress, bool, "a bool or a ProgressPrinter")
    return ProgressPrinter() if progress else None


def _keep_failed_notebook(executed: Path, project: Path, name: str) -> None:
    """Keep the partly executed notebook under ``scratch/failed/`` (git-ignored) for debugging."""
    if executed.exists():
        failed = project / "scratch" / "failed"
        failed.mkdir(parents=True, exist_ok=True)
        shutil.copy2(executed, failed / f"{name}.ipynb")


def _manifest(experiment: Experiment, preset: str, params: dict[str, Any], staged: dict[str, Path], started: str,
              duration: float, sweep_environment: Mapping[str, str],
              changes: Mapping[str, Any] | None) -> dict[str, Any]:  # fmt: skip
    return build_manifest(name=experiment.name, description=experiment.description,
                          notebook=experiment.notebook.as_posix(), root=experiment.root, preset=preset, params=params,
                          folders=staged, started=started, duration=duration,
                          sweep_environment=sweep_environment, claims_changes=changes)  # fmt: skip


def _claims_as_written(path: Path) -> Any:
    """The claims table at ``path`` as written (every column text), None when there is none."""
    import pandas as pd

    return pd.read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else None


def claims_change_record(out_root: str | Path, name: str, new_claims: str | Path) -> dict[str, Any] | None:
    """How the claims table ``new_claims`` of a run of experiment ``name`` differs from the one it replaces in
    ``out_root`` (``data/<name>/claims.csv``): the record the runner keeps in the run's manifest under
    ``claims_changes``, where the site reads it (``docs/conventions.md#claims-summary``).

    ``{"previous_run": ..., "changes": [...]}``: ``previous_run`` is None when the output root held no claims
    table of the experiment (the first run), else the commit and start of the run that wrote it (empty when its
    manifest is gone); ``changes`` are the rows of :func:`torus_lab.claims.claims_changes` as records (empty:
    nothing changed), or None with ``error`` saying why the earlier table could not be compared.  None when
    neither table exists (an experiment without claims).

    Examples
    --------
    >>> import tempfile
    >>> claims_change_record(tempfile.mkdtemp(), "loads", "no-such-claims.csv") is None
    True
    """
    out = Path(check_instance("out_root", out_root, (str, os.PathLike), "a folder path"))
    check_str("name", name)
    new_path = Path(check_instance("new_claims", new_claims, (str, os.PathLike), "a path"))
    old_path = out / "data" / name / "claims.csv"
    previous: dict[str, Any] = {}
    try:
        earlier = json.loads((out / "reports" / name / "manifest.json").read_text(encoding="utf-8"))
        previous = {"commit": (earlier.get("git") or {}).get("commit"), "started_utc": earlier.get("started_utc")}
    except (OSError, ValueError, AttributeError):  # no manifest, or not one
        pass
    try:
        old, new = _claims_as_written(old_path), _claims_as_written(new_path)
    except (OSError, ValueError) as error:  # an unreadable earlier table never fails the run
        return {"previous_run": previous, "changes": None, "error": f"cannot read a claims table: {error}"[:500]}
    return change_record(old, new, previous)


def change_record(old: Any, new: Any, previous: Mapping[str, Any]) -> dict[str, Any] | None:
    """The record of :func:`claims_change_record` from the claims tables ``old`` (the one replaced) and ``new``
    (DataFrames as written, or None when there is none) and ``previous`` (what is known of the run that wrote
    ``old``)."""
    from torus_lab.claims import claims_changes

    check_instance("previous", previous, Mapping, "a mapping")
    if old is None and new is None:
        return None
    if old is None:
        return {"previous_run": None, "changes": []}
    try:
        changes = claims_changes(old, new if new is not None else old.iloc[0:0])
    except (ValueError, TypeError) as error:
        return {"previous_run": dict(previous), "changes": None, "error": str(error)[:500]}
    return {"previous_run": dict(previous), "changes": changes.to_dict("records")}


def run_all(
    *,
    preset: str = "paper",
    out: str | Path | None = None,
    root: str | Path | None = None,
    names: Iterable[str] | None = None,
    kernel_name: str = KERNEL_NAME,
    progress: bool | ProgressPrinter = True,
    jobs: int = 1,
    wait: bool = False,
) -> list[RunResult]:
    """Run every experiment (or ``names``) at ``preset``; stops at the first failure, keeping what succeeded.

    ``jobs`` experiments run side by side (each notebook in its own kernel), so one experiment's serial steps
    (kernel start, plotting, the report) overlap another's sweeps; they start longest first
    (:func:`start_order`), and their sweeps share the machine's cores (:func:`shared_sweep_environment`).
    After a failure no further experiment starts; those running finish, and the error of the first failed
    experiment (in the order of ``names``) is raised.
    Results come in the order of ``names``.  The output root's lock is held throughout (``wait``: see
    :func:`run_experiment`).

    Without ``out`` the ``paper`` preset writes into the project folder (the committed outputs) and any other
    preset into ``scratch/<preset>/`` (:func:`reproduce_output_root`).
    :func:`torus_lab.report.reproduce` (what ``torus-lab reproduce`` runs) adds the report.
    """
    jobs = check_int("jobs", jobs, minimum=1)
    experiments = load_experiments(root)
    selected = list(names) if names else list(experiments)
    for name in selected:
        if name not in experiments:
            raise UnknownExperimentError(f"unknown experiment {name!r}{did_you_mean(name, experiments)}; known "
                                         f"experiments: {', '.join(experiments)}")  # fmt: skip
    for name in selected:  # every preset is checked before the first experiment starts
        resolve_parameters(experiments[name], preset)
    out = reproduce_output_root(preset, out, root)
    with output_lock(out, wait=wait, notify=_notice):  # one writer for the whole run
        return _run_all_locked(selected, experiments, preset=preset, out=out, root=root, kernel_name=kernel_name,
                               progress=progress, jobs=jobs)  # fmt: skip


def _run_all_locked(selected: list[str], experiments: Mapping[str, Experiment], *, preset: str, out: Path,
                    root: str | Path | None, kernel_name: str, progress: bool | ProgressPrinter,
                    jobs: int) -> list[RunResult]:  # fmt: skip
    printer = _printer(progress)
    shared = shared_sweep_environment(min(jobs, len(selected)))

    def run_one(number: int, name: str) -> RunResult:
        tag = f"[{number}/{len(selected)}] {name}"
        view = None
        if printer is not None:
            printer.message(f"{tag} ({preset})")
            view = printer.labelled(f"{tag} ") if jobs > 1 else printer
            view.prefix = "" if jobs > 1 else f"{tag} "
        result = run_experiment(name, preset=preset, out=out, root=root, kernel_name=kernel_name,
                                progress=view if view is not None else False,
                                sweep_environment=shared)  # fmt: skip
        if printer is not None:
            printer.message(f"{tag} done in {result.duration_s:.1f} s")
        return result

    if jobs == 1:
        return [run_one(number, name) for number, name in enumerate(selected, start=1)]
    failed = threading.Event()

    def run_unless_failed(number: int, name: str) -> RunResult | None:
        if failed.is_set() or STOP.requested:  # an earlier experiment failed, or the run stops: not started
            return None
        try:
            return run_one(number, name)
        except BaseException:
            failed.set()
            raise

    records = [out, default_output_root(project_root(root), PUBLISH_PRESET, publish=True)]
    order = start_order(selected, records)
    with ThreadPoolExecutor(max_workers=jobs) as pool:  # leaving it waits for the running experiments
        futures = {name: pool.submit(run_unless_failed, number, name) for number, name in enumerate(order, start=1)}
    STOP.check()  # stopped: experiments not started returned nothing
    return [futures[name].result() for name in selected]  # raises the first failure in the order of names


def shared_sweep_environment(jobs: int, cpus: int | None = None,
                             environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Sweep settings for each of ``jobs`` experiments running side by side: the ``cpus`` cores (default: this
    machine's) shared out, ``cpus // jobs`` worker processes each, the serial backend where that is one.

    Each experiment's sweeps would otherwise start a worker per core, ``jobs`` times as many processes as cores:
    on 2 cores with 2 experiments side by side, the paper preset then took 329 s and 639 CPU s, against 294 s
    and 569 CPU s with serial sweeps (the workers' start-up, and the cores and their caches shared four ways).
    Nothing is set when one experiment runs at a time, or when ``environ`` (default: this process's
    environment) already chooses (``TORUS_LAB_BACKEND``, ``TORUS_LAB_SCHEDULER`` or ``TORUS_LAB_WORKERS``): the
    user's choice stands.  Results do not depend on the backend or the workers (:mod:`torus_lab.sweep`).

    Examples
    --------
    >>> shared_sweep_environment(2, cpus=2, environ={}), shared_sweep_environment(2, cpus=8, environ={})
    ({'TORUS_LAB_BACKEND': 'serial'}, {'TORUS_LAB_WORKERS': '4'})
    >>> shared_sweep_environment(2, cpus=2, environ={"TORUS_LAB_BACKEND": "dask"})
    {}
    """
    jobs = check_int("jobs", jobs, minimum=1)
    cpus = check_int("cpus", (os.cpu_count() or 1) if cpus is None else cpus, minimum=1)
    settings = Settings.from_environment(environ)
    if jobs == 1 or sweep_settings(settings):
        return {}
    share = max(1, cpus // jobs)
    return {ENVIRONMENT["backend_text"]: "serial"} if share == 1 else {ENVIRONMENT["workers_text"]: str(share)}


def start_order(names: Sequence[str], records: Sequence[Path]) -> list[str]:
    """The order in which :func:`run_all` starts ``names`` side by side: the longest first (so that a long
    experiment does not start last and run alone), by the duration in each experiment's last manifest
    (``data/<name>/manifest.json`` under the first of the output roots ``records`` that has one); experiments
    without one first, in the given order.

    Examples
    --------
    >>> start_order(["a", "b"], [])
    ['a', 'b']
    """
    names = [check_str("names", name) for name in check_sequence("names", names)]
    records = [check_instance("records", root, (str, Path), "a str or Path")
               for root in check_sequence("records", records)]  # fmt: skip
    durations = {name: _recorded_duration(name, records) for name in names}
    unknown = [name for name in names if durations[name] is None]
    known = sorted((name for name in names if durations[name] is not None), key=lambda name: -durations[name])
    return unknown + known


def _recorded_duration(name: str, records: Sequence[Path]) -> float | None:
    """``duration_s`` of ``name``'s manifest under the first root of ``records`` holding a readable one."""
    for root in records:
        try:
            manifest = json.loads((Path(root) / "data" / name / "manifest.json").read_text())
            return float(manifest["duration_s"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def reproduce_output_root(preset: str, out: str | Path | None = None, root: str | Path | None = None) -> Path:
    """Output root of ``torus-lab reproduce``: ``out`` if given, else the project folder for the ``paper``
    preset (reproducing *is* publishing) and ``scratch/<preset>/`` for any other preset.  Checked and created.
    """
    if out is not None:
        return check_output_root(out)
    project = project_root(root)
    return check_output_root(default_output_root(project, preset, publish=preset == PUBLISH_PRESET))
