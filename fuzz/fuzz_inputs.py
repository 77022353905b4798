"""Coverage-guided fuzzing (atheris) of what a user types: CLI arguments, ``-p key=value`` values, experiment
YAML files and parameter sets checked against every experiment's schema.

Run with ``make fuzz`` (a fixed budget; not part of ``make test``)::

    python fuzz/fuzz_inputs.py -atheris_runs=200000

Every input must end in a result or in the project's own user-facing errors (``ExperimentError`` and its
subclasses, ``TypeError``/``ValueError`` naming a parameter, argparse's exit status 2): any other exception
is a finding and atheris stops with the input that caused it.  Nothing is executed: the runner, the report
and the cache commands are replaced by stubs, so no notebook runs and no file is written outside a temporary
folder.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    import yaml

    from torus_lab import cli, experiment, report, runner

EXPERIMENTS = experiment.load_experiments()
SCHEMAS = [e.schema for e in EXPERIMENTS.values() if e.schema is not None]
SCRATCH = Path(tempfile.mkdtemp(prefix="torus-lab-fuzz-"))
(SCRATCH / "experiments").mkdir()
(SCRATCH / "pyproject.toml").write_text("[project]\nname = 'fuzz'\n")
COMMANDS = ["list", "params", "run", "reproduce", "report", "site", "--html", "--strict", "routings", "cache",
            "--preset", "-p", "--out", "--backend", "--no-cache", "--only", "quick", "paper", *EXPERIMENTS, "seed=1",
            "info", "clear", "--wait",
            "--version", "--publish", "--jobs", "curve_loads=[0.5,0.1]", "ks=[4,4]"]


def _no_run(*args, **kwargs):
    raise runner.ParameterError("fuzzing: nothing runs")


runner.run_experiment = _no_run  # type: ignore[assignment]
report.reproduce = _no_run  # type: ignore[assignment]
report.build_report = _no_run  # type: ignore[assignment]
report.build_project_site = _no_run  # type: ignore[assignment]
cli._cache = lambda action: None  # type: ignore[assignment]


def fuzz_cli(data: atheris.FuzzedDataProvider) -> None:
    argv = []
    for _ in range(data.ConsumeIntInRange(0, 6)):
        argv.append(data.PickValueInList(COMMANDS) if data.ConsumeBool() else data.ConsumeUnicodeNoSurrogates(12))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = cli.main(argv)
        except SystemExit as exit_:  # argparse: --help (0) or a usage error (2)
            assert exit_.code in (0, 2), exit_.code
            return
    assert code in (0, 1, 2), code


def fuzz_assignments(data: atheris.FuzzedDataProvider) -> None:
    items = [data.ConsumeUnicodeNoSurrogates(20) for _ in range(data.ConsumeIntInRange(0, 4))]
    try:
        cli.parse_assignments(items)
    except cli.argparse.ArgumentTypeError:
        pass


def fuzz_yaml_file(data: atheris.FuzzedDataProvider) -> None:
    (SCRATCH / "experiments" / "x.yaml").write_bytes(data.ConsumeBytes(4096))
    try:
        experiment.load_experiment("x", SCRATCH)
    except experiment.ExperimentError:
        pass


def fuzz_parameters(data: atheris.FuzzedDataProvider) -> None:
    schema = SCHEMAS[data.ConsumeIntInRange(0, len(SCHEMAS) - 1)]
    try:
        params = yaml.safe_load(data.ConsumeUnicodeNoSurrogates(512))
    except yaml.YAMLError:
        return
    try:
        experiment.check_against_schema(params, schema, experiment="fuzz")
    except (experiment.ParameterError, TypeError):
        pass


TARGETS = [fuzz_cli, fuzz_assignments, fuzz_yaml_file, fuzz_parameters]


def test_one_input(raw: bytes) -> None:
    data = atheris.FuzzedDataProvider(raw)
    TARGETS[data.ConsumeIntInRange(0, len(TARGETS) - 1)](data)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
