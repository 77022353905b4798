"""Experiments as data: ``experiments/<name>.yaml`` holds the notebook, a parameter schema and the presets.

An experiment file::

    notebook: notebooks/<name>.ipynb
    description: one line
    schema:          # JSON Schema (draft 2020-12) of one preset: types, ranges, required keys
      type: object
      required: [seed, ns]
      additionalProperties: false
      properties:
        seed: {type: integer, minimum: 0, description: root seed of every random draw}
        ns: {type: array, items: {type: integer, minimum: 2}, minItems: 1}
    presets:
      quick: {seed: 1, ns: [2, 3]}
      paper: {seed: 2018, ns: [2, 3, 4, 5, 6, 7]}

:func:`validate_parameters` checks a preset (the runner does so before any kernel starts) and names the bad
key and value.  In a notebook, :func:`start` collects the parameters cell's values, validates them the same
way and resolves the output folders against the project root (so a notebook opened in JupyterLab, whose
kernel starts in ``notebooks/``, writes to the project's ``scratch/``, never to ``notebooks/scratch/``)::

    run = start("loads", globals())
    results = study.run(run.params)
    run.save(results)

Examples
--------
>>> schema = {"type": "object", "required": ["seed"], "additionalProperties": False,
...           "properties": {"seed": {"type": "integer", "minimum": 0}}}
>>> check_against_schema({"seed": 3}, schema, experiment="demo")
{'seed': 3}
>>> check_against_schema({"seed": -1}, schema, experiment="demo")
Traceback (most recent call last):
...
torus_lab.experiment.ParameterError: demo: parameter 'seed' = -1 is invalid: -1 is less than the minimum of 0
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from torus_lab._errors import ExperimentError
from torus_lab._validate import did_you_mean
from torus_lab.manifest import MANIFEST_NAME, build_manifest, utc_now
from torus_lab.outputs import output_lock
from torus_lab.settings import ENVIRONMENT, current_settings

__all__ = [
    "CACHE_ENVIRONMENT",
    "Experiment",
    "ExperimentRun",
    "ExperimentError",
    "ParameterError",
    "RESERVED_PARAMETERS",
    "SavedFiles",
    "UnknownExperimentError",
    "check_against_schema",
    "check_study_rules",
    "check_output_root",
    "default_cache_dir",
    "load_experiment",
    "load_experiments",
    "project_root",
    "matching_preset",
    "start",
    "validate_parameters",
]

#: Parameters the runner sets itself (output folders); a preset or ``-p`` may not.
RESERVED_PARAMETERS = ("data_dir", "figures_dir")
#: Environment variable naming the result cache folder of :func:`torus_lab.sweep.sweep` (``off``: no cache).
CACHE_ENVIRONMENT = ENVIRONMENT["cache"]


class UnknownExperimentError(ExperimentError, LookupError, ValueError):
    """No ``experiments/<name>.yaml`` (a LookupError, and a ValueError of the ``name`` argument)."""

    exit_code = 2


class ParameterError(ExperimentError, ValueError):
    """An unknown or missing parameter, a value of the wrong type or range, or an unknown preset."""

    exit_code = 2


@dataclass(frozen=True)
class Experiment:
    """One ``experiments/<name>.yaml`` entry."""

    name: str
    notebook: Path
    description: str
    presets: dict[str, dict[str, Any]]
    root: Path
    schema: dict[str, Any] = field(repr=False)

    @property
    def notebook_path(self) -> Path:
        return self.root / self.notebook

    @property
    def parameter_names(self) -> list[str]:
        """The parameters the schema defines, in schema order."""
        return list(self.schema["properties"])


# ---------------------------------------------------------------------- discovery
def _check_folder(name: str, value: object) -> str | os.PathLike | None:
    """``value`` after checking it is a path (str or os.PathLike) or None."""
    if value is not None and not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a folder path or None, got {value!r} ({type(value).__name__})")
    if value is not None and "\0" in os.fspath(value):
        raise ValueError(f"{name} must be a folder path without NUL characters, got {value!r}")
    return value


def project_root(start: str | Path | None = None) -> Path:
    """The torus_lab project folder: the first ancestor of ``start`` (default: cwd) holding ``experiments/``
    and a ``pyproject.toml``; failing that, the folder above the installed package (editable install)."""
    candidates = [Path(_check_folder("start", start) or Path.cwd()).resolve()]
    candidates += list(candidates[0].parents)
    candidates.append(Path(__file__).resolve().parents[1])
    for folder in candidates:
        if (folder / "experiments").is_dir() and (folder / "pyproject.toml").is_file():
            return folder
    raise ExperimentError(f"no torus_lab project (experiments/ and pyproject.toml) found at or above {candidates[0]}")


# PyYAML's safe loader, its C implementation when PyYAML was built with libyaml (same documents, ~10x faster).
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_experiment(path: Path, root: Path) -> Experiment:
    try:
        spec = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except OSError as err:
        raise ExperimentError(f"{path.name}: cannot be read: {err.strerror or err}") from err
    except UnicodeDecodeError as err:
        raise ExperimentError(f"{path.name}: not UTF-8 text ({err.reason} at byte {err.start})") from err
    except yaml.YAMLError as err:
        raise ExperimentError(f"{path.name}: invalid YAML: {err}") from err
    if not isinstance(spec, dict):
        raise ExperimentError(f"{path.name}: expected a mapping with notebook, description, presets")
    missing = [key for key in ("notebook", "description", "presets") if key not in spec]
    unknown = [key for key in spec if key not in ("notebook", "description", "schema", "presets")]
    if unknown:
        raise ExperimentError(f"{path.name}: unknown key(s) {unknown}; expected notebook, description, schema, presets")
    if missing:
        raise ExperimentError(f"{path.name}: missing key(s) {missing}")
    presets = spec["presets"]
    if not isinstance(presets, dict) or not all(isinstance(v, dict) for v in presets.values()):
        raise ExperimentError(f"{path.name}: presets must map preset names to parameter mappings")
    if "schema" not in spec:
        raise ExperimentError(f"{path.name}: missing key 'schema' (a JSON Schema of one preset)")
    schema = spec["schema"]
    _check_schema(schema, path.name)
    return Experiment(
        name=path.stem,
        notebook=Path(spec["notebook"]),
        description=str(spec["description"]).strip(),
        presets={str(k): dict(v) for k, v in presets.items()},
        root=root,
        schema=schema,
    )


def _schema_validator() -> type:
    """jsonschema's Draft 2020-12 validator class, imported without the optional ``rfc3987_syntax`` library.

    At import, jsonschema registers a format checker for each optional library it finds; ``rfc3987_syntax``
    (installed with Jupyter) compiles 39 grammars when imported, about 1.2 s in every process that validates
    parameters (the CLI and each notebook kernel).  Our schemas check no formats (validators run without a format
    checker), so its import is refused while jsonschema loads, and allowed again after.  A process that has
    imported either library already keeps it as it is.

    >>> _schema_validator().META_SCHEMA["$id"]  # Draft 2020-12, with the ``order`` keyword added
    'https://json-schema.org/draft/2020-12/schema'
    """
    if "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # its import raises ImportError
        try:
            import jsonschema  # noqa: F401
        finally:
            del sys.modules["rfc3987_syntax"]
    return _with_order_keyword()


#: Values of the schema keyword ``order`` (an array's items compared pairwise; JSON Schema has no such keyword,
#: only ``uniqueItems``): what each asks of every item and the next.
ORDERS = {"increasing": "<", "non-decreasing": "<="}


@functools.cache
def _with_order_keyword() -> type:
    """Draft 2020-12 validator that also checks ``order: increasing | non-decreasing`` on arrays.

    Examples
    --------
    >>> schema = {"type": "array", "order": "increasing"}
    >>> [error.message for error in _schema_validator()(schema).iter_errors([0.1, 0.5, 0.3])]
    ['[0.1, 0.5, 0.3] is not increasing: 0.3 (item 2) comes after 0.5']
    """
    from jsonschema import Draft202012Validator, ValidationError, validators

    def order_rule(validator: Any, order: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
        if not validator.is_type(instance, "array") or order not in ORDERS:
            return
        strict = ORDERS[order] == "<"
        for index in range(1, len(instance)):
            before, item = instance[index - 1], instance[index]
            if not all(validator.is_type(value, "number") for value in (before, item)):
                continue
            if item < before or (strict and item == before):
                yield ValidationError(f"{instance!r} is not {order}: {item!r} (item {index}) comes after {before!r}")
                return

    return validators.extend(Draft202012Validator, {"order": order_rule})


def _check_schema(schema: Any, where: str) -> None:
    Draft202012Validator = _schema_validator()  # noqa: N806 (the library's class)
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict) or schema.get("type") != "object" or "properties" not in schema:
        raise ExperimentError(f"{where}: schema must be a JSON Schema of type object with properties")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        raise ExperimentError(f"{where}: invalid schema: {err.message}") from err
    orders = {key: rule["order"] for key, rule in schema["properties"].items()
              if isinstance(rule, Mapping) and "order" in rule}  # fmt: skip
    for key, order in orders.items():
        if order not in ORDERS:
            raise ExperimentError(f"{where}: parameter {key!r} has order {order!r}; orders: {', '.join(ORDERS)}")
    reserved = [name for name in RESERVED_PARAMETERS if name in schema["properties"]]
    if reserved:
        raise ExperimentError(f"{where}: schema may not define runner-owned parameters {reserved}")


def load_experiments(root: str | Path | None = None) -> dict[str, Experiment]:
    """Every experiment of the project, by name (sorted)."""
    root = project_root(_check_folder("root", root))
    return {p.stem: _read_experiment(p, root) for p in sorted((root / "experiments").glob("*.yaml"))}


def load_experiment(name: str, root: str | Path | None = None) -> Experiment:
    """The experiment called ``name``; :class:`UnknownExperimentError` lists the known ones otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"experiment name must be a str, got {name!r}")
    root = project_root(_check_folder("root", root))
    path = root / "experiments" / f"{name}.yaml"
    if not path.is_file() or Path(name).name != name:
        names = [p.stem for p in sorted((root / "experiments").glob("*.yaml"))]
        raise UnknownExperimentError(
            f"unknown experiment {name!r}{did_you_mean(name, names)}; known experiments: {', '.join(names) or 'none'}"
            " (name is the stem of experiments/<name>.yaml)"
        )
    return _read_experiment(path, root)


# ---------------------------------------------------------------------- validation
def _key_path(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def check_against_schema(params: Mapping[str, Any], schema: Mapping[str, Any], *, experiment: str) -> dict[str, Any]:
    """Validate ``params`` with the JSON Schema ``schema``; return them as a plain dict.

    :class:`ParameterError` names the experiment, the offending key (``group1[2].radix`` for nested values)
    and its value; an unknown top-level key lists the valid ones.
    """
    Draft202012Validator = _schema_validator()  # noqa: N806 (the library's class)
    if not isinstance(experiment, str):
        raise TypeError(f"experiment must be a str (the experiment's name), got {experiment!r}")
    if not isinstance(schema, Mapping):
        raise TypeError(f"{experiment}: schema must be a mapping (a JSON Schema), got {schema!r}")
    if not isinstance(params, Mapping):
        raise TypeError(f"{experiment}: params must be a mapping, got {params!r}")
    valid = list(schema.get("properties", {}))
    for name in params:
        if name in RESERVED_PARAMETERS:
            raise ParameterError(f"{experiment}: parameter {name!r} is set by the runner (use --out)")
        if name not in valid:
            raise ParameterError(f"{experiment}: unknown parameter {name!r}{did_you_mean(name, valid)}; valid "
                                 f"parameters: {', '.join(valid)}")  # fmt: skip
    missing = [name for name in schema.get("required", []) if name not in params]
    if missing:
        raise ParameterError(f"{experiment}: missing parameter(s) {', '.join(map(repr, missing))}")
    errors = sorted(Draft202012Validator(schema).iter_errors(dict(params)), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for error in errors[:5]:
            key = _key_path(error.absolute_path) or "(parameters)"
            lines.append(f"parameter {key!r} = {error.instance!r} is invalid: {error.message}")
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        raise ParameterError(f"{experiment}: " + "; ".join(lines) + more)
    return {name: _as_schema_types(value, schema["properties"][name]) for name, value in params.items()}


def _as_schema_types(value: Any, rule: Mapping[str, Any]) -> Any:
    """``value`` with ints made float where the schema says ``number`` (so ``-p scale=2`` means 2.0)."""
    kind = rule.get("type")
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "array" and isinstance(value, list) and isinstance(rule.get("items"), Mapping):
        return [_as_schema_types(item, rule["items"]) for item in value]
    if kind == "object" and isinstance(value, Mapping):
        rules = rule.get("properties", {})
        return {key: _as_schema_types(item, rules[key]) if key in rules else item for key, item in value.items()}
    return value


def check_study_rules(experiment: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Apply the rules a JSON Schema cannot express (e.g. ``t < k`` across two lists) before any work starts.

    A study module ``torus_lab.studies.<experiment>`` may define ``check_params(params)``, raising ValueError
    or TypeError naming the bad value; it is called here (by the runner before the kernel starts, and by
    :func:`validate_parameters`), and its error becomes a :class:`ParameterError` (CLI exit status 2).  An
    experiment without a study module, or a study without ``check_params``, has no extra rules.

    Examples
    --------
    >>> check_study_rules("loads", {"radices_by_dim": [{"dims": 2, "radices": [4]}], "ts": [1, 5]})
    Traceback (most recent call last):
    ...
    torus_lab.experiment.ParameterError: loads: ts holds t = 5 but radices_by_dim (dims 2) holds k = 4: ...
    """
    import importlib

    if not isinstance(experiment, str) or not experiment.isidentifier():
        raise TypeError(f"experiment must be an experiment name (an identifier), got {experiment!r}")
    if not isinstance(params, Mapping):
        raise TypeError(f"{experiment}: params must be a mapping, got {params!r}")
    module_name = f"torus_lab.studies.{experiment}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        return dict(params)
    check = getattr(module, "check_params", None)
    if check is not None:
        try:
            check(params)
        except (ValueError, TypeError) as err:
            raise ParameterError(f"{experiment}: {err}") from err
    return dict(params)


def validate_parameters(
    name: str, params: Mapping[str, Any], root: str | Path | None = None
) -> dict[str, Any]:
    """Validate one complete parameter set of experiment ``name``: its schema, then the study's own rules
    (:func:`check_study_rules`)."""
    experiment = load_experiment(name, root)
    return check_study_rules(name, check_against_schema(params, experiment.schema, experiment=name))


# ---------------------------------------------------------------------- output folders
def check_output_root(out: str | os.PathLike, *, option: str = "--out", create: bool = True) -> Path:
    """``out`` as an absolute folder that exists (created with its parents when ``create``) and is writable;
    :class:`ParameterError` naming ``option`` and the path otherwise.  Called before any work starts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_root(folder / "new" / "out") == (folder / "new" / "out").resolve()
    True
    >>> (folder / "a-file").write_text("x")
    1
    >>> check_output_root(folder / "a-file")
    Traceback (most recent call last):
    ...
    torus_lab.experiment.ParameterError: --out ...a-file' is a file, not a folder
    """
    if not isinstance(create, bool):
        raise TypeError(f"create must be a bool, got {create!r}")
    if not isinstance(option, str) or not option.strip():
        raise TypeError(f"option must be a non-empty str (the option's name for messages), got {option!r}")
    if not isinstance(out, (str, os.PathLike)) or not str(out).strip():
        raise ParameterError(f"{option} must be a folder path, got {out!r}")
    try:
        return _checked_output_root(out, option, create)
    except OSError as err:  # a name too long, a loop of links, ...: a bad path, named
        raise ParameterError(f"{option} {str(out)!r} cannot be used: {err.strerror or err}") from err


def _checked_output_root(out: str | os.PathLike, option: str, create: bool) -> Path:
    path = Path(out).expanduser().resolve()
    blocker = next((p for p in [path, *path.parents] if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise ParameterError(f"{option} {str(out)!r} is a file, not a folder" if blocker == path else
                             f"{option} {str(out)!r}: {str(blocker)!r} is a file, not a folder")  # fmt: skip
    if not path.exists():
        if not create:
            raise ParameterError(f"{option} {str(out)!r} does not exist (create=False)")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ParameterError(f"{option} {str(out)!r} cannot be created: {err.strerror or err}") from err
    if not os.access(path, os.W_OK | os.X_OK):
        raise ParameterError(f"{option} {str(out)!r} is not writable")
    return path


# ---------------------------------------------------------------------- notebook side
def default_cache_dir(root: str | Path | None = None) -> Path:
    """``<project root>/scratch/cache``: where results are cached unless :data:`CACHE_ENVIRONMENT` says."""
    return project_root(_check_folder("root", root)) / "scratch" / "cache"


class SavedFiles(list):
    """The files :meth:`ExperimentRun.save` wrote (a list of paths) with a short, path-free repr, so that a
    notebook cell ending in ``run.save(...)`` shows one line instead of the machine's absolute paths.

    Examples
    --------
    >>> SavedFiles([Path("data/a.csv"), Path("data/timing/a.csv")])
    <2 files saved>
    """

    def __repr__(self) -> str:
        return f"<{len(self)} file{'' if len(self) == 1 else 's'} saved>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ARG002 (IPython's signature)
        printer.text(repr(self))


@dataclass(frozen=True)
class ExperimentRun:
    """A notebook's run of an experiment: validated parameters and output folders (see :func:`start`).

    ``preset`` is the preset whose values the parameters are (None: none of them); ``interactive`` runs (a
    notebook run by hand, not by the runner) keep a manifest in their output folders (:meth:`write_manifest`)
    and write them holding the lock of their output root, the lock ``torus-lab run`` holds
    (``output_root``, :func:`torus_lab.outputs.output_lock`).
    """

    name: str
    params: dict[str, Any]
    data_dir: Path
    figures_dir: Path
    root: Path
    preset: str | None = None
    interactive: bool = False
    started_utc: str = ""
    clock: float = field(default_factory=time.perf_counter, repr=False)

    @property
    def seed(self) -> int:
        return int(self.params["seed"])

    @property
    def output_root(self) -> Path | None:
        """The output root the run writes into: ``<root>`` of ``<root>/data/<name>`` and ``<root>/figures/<name>``,
        the layout ``torus-lab run`` writes (None for other folders, which no run shares).

        Examples
        --------
        >>> ExperimentRun("demo", {}, Path("/out/data/demo"), Path("/out/figures/demo"), Path("/p")).output_root
        PosixPath('/out')
        >>> ExperimentRun("demo", {}, Path("/a"), Path("/b"), Path("/p")).output_root is None
        True
        """
        return _output_root(self.data_dir, self.figures_dir)

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """Within the block, an interactive run holds its output root's lock (``output_root``, the lock of
        ``torus-lab run``); :class:`torus_lab.outputs.OutputRootBusyError` naming the folder and its holder when
        another run holds it.  Runs under the runner (whose command holds the lock) and runs outside the layout
        take no lock."""
        return _writing(self.output_root if self.interactive else None)

    def save(self, results: Mapping[str, Any]) -> SavedFiles:
        """Write every DataFrame of ``results`` to ``data_dir/<key>.csv`` (no index); returns the paths as
        :class:`SavedFiles` (whose repr names no path).

        Science files are written by :func:`torus_lab.precision.to_science_csv`: floats at
        :data:`~torus_lab.precision.SCIENCE_SIGNIFICANT_DIGITS` significant digits, so that they are byte-identical
        across machines (``docs/conventions.md#science-precision``).  A key ending in ``_timing`` (wall-clock/CPU
        measurements) goes to ``data_dir/timing/<stem>.csv`` instead (:func:`torus_lab.timing.result_path`), apart
        from the science files and at full precision.  An interactive run then rewrites its manifest.
        """
        import pandas as pd

        from torus_lab.precision import to_science_csv
        from torus_lab.timing import is_timing_file, result_path

        for key, frame in results.items():  # every key and frame checked before the first file is written
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(f"results[{key!r}] must be a DataFrame, got {type(frame).__name__}")
            if not isinstance(key, str) or not key or Path(key).name != key:
                raise ValueError(f"results key {key!r} is not a plain file name")
        paths = SavedFiles()
        with self.writing():
            for key, frame in results.items():
                path = result_path(self.data_dir, key)
                path.parent.mkdir(parents=True, exist_ok=True)
                if is_timing_file(path.relative_to(self.data_dir)):
                    frame.to_csv(path, index=False)
                else:
                    to_science_csv(frame, path)
                paths.append(path)
            self.write_manifest()
        return paths

    def write_manifest(self) -> Path | None:
        """Interactive runs: write ``manifest.json`` (:func:`torus_lab.manifest.build_manifest`, the fields
        ``torus-lab run`` writes) into ``data_dir`` and ``figures_dir``, listing the files written so far; returns
        the data folder's manifest.  Runs under the runner write nothing here (the runner writes the manifest)."""
        if not self.interactive:
            return None
        experiment = load_experiment(self.name, self.root)
        manifest = build_manifest(name=self.name, description=experiment.description,
                                  notebook=experiment.notebook.as_posix(), root=self.root, preset=self.preset,
                                  params=self.params, folders={"data": self.data_dir, "figures": self.figures_dir},
                                  started=self.started_utc, duration=time.perf_counter() - self.clock)  # fmt: skip
        text = json.dumps(manifest, indent=2, sort_keys=False) + "\n"
        with self.writing():
            for folder in (self.data_dir, self.figures_dir):
                (folder / MANIFEST_NAME).write_text(text)
        return self.data_dir / MANIFEST_NAME

    def show(self, fig, name: str, caption: str | None = None) -> None:
        """Save ``fig`` as ``figures_dir/<name>.png`` and ``.svg`` and display it with ``caption`` (what the
        figure shows; the caption of the figure on the site, see :func:`torus_lab.plotting.show_figure`).

        Returns None, so that a notebook cell ending in ``run.show(...)`` displays the figure only (the files
        are ``figures_dir/<name>.png`` and ``.svg``)."""
        from torus_lab.plotting import show_figure

        with self.writing():
            show_figure(fig, self.figures_dir, name, caption=caption)
            self.write_manifest()

    def table(self, table: Any, name: str) -> None:
        """Show ``table`` (a DataFrame or a pandas Styler, drawn from the saved result ``name``): whole up to
        :data:`torus_lab.tables.TABLE_MAX_ROWS` rows, else its head and a link to ``data_dir/<name>.csv``, the
        full table (:func:`torus_lab.tables.show_table`; the CSV must have been saved, by :meth:`save`).

        Returns None, so that a notebook cell ending in ``run.table(...)`` shows the table once."""
        from torus_lab.tables import show_table

        show_table(table, self.data_dir, name)

    def show_all(self, figures: Mapping[str, Any], caption: str | None = None) -> None:
        """:meth:`show` every figure of ``figures`` (file stem -> figure), in order, each captioned by
        ``caption`` with ``{name}`` replaced by the figure's file stem."""
        if not isinstance(figures, Mapping):
            raise TypeError(f"figures must be a mapping of file stem -> figure, got {figures!r}")
        if caption is not None and not isinstance(caption, str):
            raise TypeError(f"caption must be a str (a template with {{name}}), got {caption!r}")
        for name, fig in figures.items():
            self.show(fig, name, None if caption is None else caption.replace("{name}", str(name)))


def _output_root(data_dir: Path, figures_dir: Path) -> Path | None:
    """``<root>`` when ``data_dir`` is ``<root>/data/<name>`` and ``figures_dir`` is ``<root>/figures/<name>``."""
    data, figures = Path(data_dir), Path(figures_dir)
    if (data.name == figures.name and data.parent.name == "data" and figures.parent.name == "figures"
            and data.parent.parent == figures.parent.parent):  # fmt: skip
        return data.parent.parent
    return None


#: What a notebook run by hand is told when another run holds its output root.
_INTERACTIVE_HINT = ("wait for it to finish, or point data_dir and figures_dir of the parameters cell at another "
                     "folder")  # fmt: skip


@contextlib.contextmanager
def _writing(root: Path | None) -> Iterator[None]:
    """Hold ``root``'s output lock (none when ``root`` is None) for the block."""
    if root is None or not root.is_dir():
        yield
        return
    with output_lock(root, hint=_INTERACTIVE_HINT):
        yield


def _output_dir(value: Any, root: Path, key: str) -> Path:
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise ParameterError(f"{key} must be a folder path, got {value!r}")
    path = Path(value)
    path = path if path.is_absolute() else root / path
    if path.exists() and not path.is_dir():
        raise ParameterError(f"{key} {str(value)!r} exists and is not a folder")
    path.mkdir(parents=True, exist_ok=True)
    return path


#: The project's committed output folders: an interactive run may not write into them (only ``torus-lab
#: reproduce`` or ``run --publish`` do).
COMMITTED_FOLDERS = ("data", "figures", "reports")


def matching_preset(experiment: Experiment, params: Mapping[str, Any]) -> str | None:
    """The name of the first preset of ``experiment`` whose values are ``params`` (None: no preset is).

    Examples
    --------
    >>> loads = load_experiment("loads")
    >>> matching_preset(loads, loads.presets["quick"]), matching_preset(loads, {**loads.presets["quick"], "seed": 99})
    ('quick', None)
    """
    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment must be an Experiment, got {experiment!r}")
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping, got {params!r}")
    return next((name for name, values in experiment.presets.items() if dict(values) == dict(params)), None)


def _outside_committed(value: str | os.PathLike, root: Path, key: str) -> None:
    """Refuse an interactive run's output folder ``value`` inside the project's committed outputs."""
    path = Path(value) if Path(value).is_absolute() else root / value
    for name in COMMITTED_FOLDERS:
        if path.resolve().is_relative_to((root / name).resolve()):
            raise ParameterError(f"{key} {str(value)!r} is inside the committed {name}/ folder; a notebook run by "
                                 "hand writes under scratch/ (the committed outputs are written by torus-lab "
                                 "reproduce)")  # fmt: skip


def _forget_previous_run(folders: Mapping[str, Path]) -> None:
    """Remove the outputs a previous run listed in the manifests of ``folders`` (output kind -> folder), so that
    an interactive run, like the runner's swap, leaves only its own files (nothing a manifest does not list)."""
    for kind, folder in folders.items():
        manifest = folder / MANIFEST_NAME
        try:
            listed = json.loads(manifest.read_text())["outputs"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for entry in listed if isinstance(listed, list) else []:
            parts = Path(str(entry.get("path", "") if isinstance(entry, Mapping) else "")).parts
            if len(parts) > 2 and parts[0] == kind and ".." not in parts:
                (folder / Path(*parts[2:])).unlink(missing_ok=True)
        manifest.unlink(missing_ok=True)


def start(name: str, namespace: Mapping[str, Any]) -> ExperimentRun:
    """Collect experiment ``name``'s parameters from a notebook's ``namespace`` (``globals()``), validate them
    against the experiment's schema, and prepare the output folders.

    Relative ``data_dir`` / ``figures_dir`` are resolved against the project root (the notebooks' defaults are
    ``scratch/quick/data/<name>`` and ``scratch/quick/figures/<name>``: the layout ``torus-lab run <name>
    --preset quick`` writes).  Unless :data:`CACHE_ENVIRONMENT` is set, sweeps of this process cache their
    results in :func:`default_cache_dir`.

    A notebook run by hand (not under the runner: ``under_runner`` of :class:`torus_lab.settings.Settings`) is
    *interactive*: its folders may not lie in the committed ``data/``, ``figures/`` or ``reports/``, the files
    a previous run listed in their manifests are removed (as the runner replaces its folders), and every
    :meth:`~ExperimentRun.save` and :meth:`~ExperimentRun.show` rewrites ``manifest.json`` in both folders with
    the fields ``torus-lab run`` records (the preset is the one whose values the parameters are:
    :func:`matching_preset`).

    Examples
    --------
    >>> import tempfile
    >>> cell = dict(load_experiment("loads").presets["quick"], data_dir=tempfile.mkdtemp(),
    ...             figures_dir=tempfile.mkdtemp())  # what a notebook's parameters cell defines
    >>> run = start("loads", cell)
    >>> run.params == load_experiment("loads").presets["quick"], run.data_dir.is_dir(), run.preset
    (True, True, 'quick')
    """
    experiment = load_experiment(name)
    if not isinstance(namespace, Mapping):
        raise TypeError(f"namespace must be a mapping (a notebook's globals()), got {namespace!r}")
    missing = [key for key in experiment.parameter_names if key not in namespace]
    if missing:
        raise ParameterError(f"{name}: the notebook does not define parameter(s) {', '.join(map(repr, missing))}")
    params = check_against_schema(
        {key: namespace[key] for key in experiment.parameter_names}, experiment.schema, experiment=name
    )
    root = experiment.root
    interactive = not current_settings().under_runner
    folders = {}
    for key, default in (("data_dir", f"scratch/quick/data/{name}"), ("figures_dir", f"scratch/quick/figures/{name}")):
        value = namespace.get(key, default)
        if interactive and isinstance(value, (str, os.PathLike)) and str(value):
            _outside_committed(value, root, key)
        folders[key] = _output_dir(value, root, key)
    if interactive:
        with _writing(_output_root(folders["data_dir"], folders["figures_dir"])):
            _forget_previous_run({"data": folders["data_dir"], "figures": folders["figures_dir"]})
    os.environ.setdefault(CACHE_ENVIRONMENT, str(default_cache_dir(root)))
    return ExperimentRun(name, params, folders["data_dir"], folders["figures_dir"], root,
                         preset=matching_preset(experiment, params), interactive=interactive,
                         started_utc=utc_now())  # fmt: skip
