"""The experiment runner and CLI: parameter checks, provenance, and its failure paths (on a throw-away project)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from throwaway_project import write_project

from torus_lab import cli, runner
from torus_lab.outputs import LOCK_NAME

PARAMETERS = (
    'seed = 1\nfail = False\nn_rows = 3\nscale = 1.0\nlabel = "x"\ndata_dir = "scratch/d"\nfigures_dir = "scratch/f"'
)
WORK = """from pathlib import Path
Path(data_dir).mkdir(parents=True, exist_ok=True)
(Path(data_dir) / "table.csv").write_text("".join(f"{i},{i * scale},{label}\\n" for i in range(n_rows)))
Path(figures_dir).mkdir(parents=True, exist_ok=True)
(Path(figures_dir) / "figure.svg").write_text("<svg/>")
print("wrote", Path(data_dir).resolve())"""


SCHEMA = """schema:
  type: object
  required: [seed, fail, n_rows, scale, label]
  additionalProperties: false
  properties:
    seed: {type: integer, minimum: 0, description: root seed}
    fail: {type: boolean, description: raise in the last cell}
    n_rows: {type: integer, minimum: 1, maximum: 100, description: rows of the table}
    scale: {type: number, exclusiveMinimum: 0}
    label: {type: string, enum: [x, y]}
"""


def make_project(root: Path) -> Path:
    """A minimal torus_lab-shaped project with one experiment, ``demo``."""
    return write_project(root, "demo", [PARAMETERS, WORK, 'if fail:\n    raise RuntimeError("boom as asked")'],
                         {"demo": "description: a demo\n" + SCHEMA + "presets:\n"
                                  "  quick: {seed: 5, fail: false, n_rows: 2, scale: 1.0, label: x}\n"
                                  "  paper: {seed: 6, fail: false, n_rows: 4, scale: 1.0, label: x}\n"})


def snapshot(out: Path) -> dict[str, bytes]:
    """Every output file under ``out`` (the writer lock file is bookkeeping, not an output)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != LOCK_NAME}  # fmt: skip


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("project"))


@pytest.fixture
def finished_run(project, tmp_path):
    out = tmp_path / "out"
    result = runner.run_experiment("demo", preset="quick", overrides={"scale": 2}, out=out, root=project,
                                   progress=False)  # fmt: skip
    return out, result


@pytest.mark.notebook
def test_successful_run_writes_outputs_and_manifest(finished_run):
    out, result = finished_run
    assert (out / "data/demo/table.csv").read_text() == "0,0.0,x\n1,2.0,x\n"
    assert (out / "figures/demo/figure.svg").exists()
    assert (out / "reports/demo/demo.ipynb").exists()
    manifest = json.loads((out / "data/demo/manifest.json").read_text())
    assert manifest == json.loads((out / "reports/demo/manifest.json").read_text())
    assert manifest["preset"] == "quick" and manifest["seed"] == 5
    assert manifest["parameters"] == {"seed": 5, "fail": False, "n_rows": 2, "scale": 2.0, "label": "x"}
    assert {"commit", "dirty"} <= set(manifest["git"])
    assert manifest["versions"]["numpy"] and manifest["duration_s"] > 0
    listed = {entry["path"]: entry["sha256"] for entry in manifest["outputs"]}
    assert "data/demo/table.csv" in listed and "reports/demo/demo.ipynb" in listed
    for path, digest in listed.items():
        assert runner.sha256(out / path) == digest
    assert not list(out.glob(".staging-*"))


@pytest.mark.notebook
def test_executed_notebook_holds_no_machine_paths(finished_run, project):
    out, _ = finished_run
    text = (out / "reports/demo/demo.ipynb").read_text()
    assert str(project) not in text and ".staging-" not in text
    assert json.loads(text)["metadata"]["papermill"]["input_path"] == "notebooks/demo.ipynb"


@pytest.mark.notebook
def test_failing_notebook_names_cell_and_keeps_outputs(finished_run, project):
    out, _ = finished_run
    before = snapshot(out)
    expected = r"cell 3 \(starting 'if fail:'\): RuntimeError: boom as asked"
    with pytest.raises(runner.NotebookFailedError, match=expected):
        runner.run_experiment("demo", preset="quick", overrides={"fail": True, "n_rows": 9}, out=out, root=project,
                              progress=False)  # fmt: skip
    assert snapshot(out) == before
    assert not list(out.glob(".staging-*"))
    assert (project / "scratch/failed/demo.ipynb").exists()


def test_interrupted_run_keeps_outputs(project, tmp_path, monkeypatch):
    out = tmp_path / "out"
    (out / "data/demo").mkdir(parents=True)
    (out / "data/demo/table.csv").write_text("precious\n")
    before = snapshot(out)

    def interrupted(experiment, params, executed, **_):
        Path(experiment.root, params["data_dir"], "table.csv").write_text("half-written\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "_execute", interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.run_experiment("demo", out=out, root=project, progress=False)
    assert snapshot(out) == before
    assert not list(out.glob(".staging-*"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"nrows": 3}, r"unknown parameter 'nrows' \(did you mean 'n_rows'\?\); valid parameters: seed, fail, n_rows, "
                       r"scale, label"),
        ({"n_rows": "many"}, r"parameter 'n_rows' = 'many' is invalid: 'many' is not of type 'integer'"),
        ({"n_rows": 2.5}, r"'n_rows' = 2.5 is invalid"),
        ({"n_rows": 0}, r"'n_rows' = 0 is invalid: 0 is less than the minimum of 1"),
        ({"n_rows": 101}, r"'n_rows' = 101 is invalid: 101 is greater than the maximum of 100"),
        ({"fail": 1}, r"'fail' = 1 is invalid: 1 is not of type 'boolean'"),
        ({"scale": "big"}, r"'scale' = 'big' is invalid"),
        ({"scale": 0}, r"'scale' = 0 is invalid: 0 is less than or equal to the minimum of 0"),
        ({"label": "z"}, r"'label' = 'z' is invalid: 'z' is not one of \['x', 'y'\]"),
        ({"seed": True}, r"'seed' = True is invalid"),
        ({"data_dir": "elsewhere"}, r"set by the runner"),
    ],
)
def test_bad_parameters_refused_before_running(project, tmp_path, overrides, message, monkeypatch):
    monkeypatch.setattr(runner, "_execute", lambda *a, **k: pytest.fail("the notebook must not start"))
    with pytest.raises(runner.ParameterError, match=message):
        runner.run_experiment("demo", overrides=overrides, out=tmp_path, root=project, progress=False)
    assert not any(tmp_path.iterdir())


def test_unknown_experiment_and_preset(project):
    with pytest.raises(runner.UnknownExperimentError, match="unknown experiment 'nope'; known experiments: demo"):
        runner.run_experiment("nope", root=project)
    with pytest.raises(runner.ParameterError, match="unknown preset 'huge'; presets: quick, paper"):
        runner.run_experiment("demo", preset="huge", root=project)


def test_parameters_cell_must_hold_literals(tmp_path):
    nb = new_notebook()
    nb.cells = [new_code_cell("seed = 1\nn = seed + 1", metadata={"tags": ["parameters"]})]
    nbformat.write(nb, tmp_path / "bad.ipynb")
    with pytest.raises(runner.RunnerError, match="'n' is not a plain literal"):
        runner.notebook_parameters(tmp_path / "bad.ipynb")
    nb.cells = [new_code_cell("seed = 1")]
    nbformat.write(nb, tmp_path / "untagged.ipynb")
    with pytest.raises(runner.RunnerError, match="exactly one cell tagged 'parameters', found 0"):
        runner.notebook_parameters(tmp_path / "untagged.ipynb")


def test_cli_exit_codes(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert cli.main(["run", "nope"]) == 2
    assert "unknown experiment 'nope'" in capsys.readouterr().err
    assert cli.main(["run", "demo", "-p", "n_rows=lots"]) == 2
    assert "'n_rows' = 'lots' is invalid" in capsys.readouterr().err
    assert cli.main(["list"]) == 0
    assert "demo" in capsys.readouterr().out
    assert cli.main(["params", "demo"]) == 0
    assert "n_rows (integer): rows of the table\n      quick: 2\n      paper: 4" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["run", "demo", "-p", "no-equals-sign"])
    assert exit_info.value.code == 2


@pytest.mark.notebook
def test_cli_run_failing_notebook_exits_1(project, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert cli.main(["run", "demo", "-p", "fail=true", "--out", str(tmp_path)]) == 1
    assert "RuntimeError: boom as asked" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


def test_dirty_flag_ignores_generated_outputs(tmp_path):
    import subprocess

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.csv").write_text("1\n")
    (tmp_path / "code.py").write_text("a = 1\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "init")
    assert runner.git_state(tmp_path)["dirty"] is False
    (tmp_path / "data" / "x.csv").write_text("2\n")  # a regenerated output
    assert runner.git_state(tmp_path)["dirty"] is False
    (tmp_path / "code.py").write_text("a = 2\n")  # changed code
    state = runner.git_state(tmp_path)
    assert state["dirty"] is True and state["dirty_files"] == ["code.py"]


def test_start_in_a_notebook_folder_writes_under_the_project_root(project, monkeypatch):
    """A notebook opened in JupyterLab runs in notebooks/: its relative output folders still land in the
    project's scratch/, its parameters are validated, and its sweeps cache under scratch/cache."""
    from torus_lab.experiment import CACHE_ENVIRONMENT, start

    monkeypatch.chdir(project / "notebooks")
    monkeypatch.delenv(CACHE_ENVIRONMENT, raising=False)
    namespace = {"seed": 5, "fail": False, "n_rows": 2, "scale": 1, "label": "x", "other": object(),
                 "data_dir": "scratch/quick/demo/data", "figures_dir": "scratch/quick/demo/figures"}
    run = start("demo", namespace)
    assert run.data_dir == project / "scratch/quick/demo/data" and run.data_dir.is_dir()
    assert run.figures_dir == project / "scratch/quick/demo/figures" and run.figures_dir.is_dir()
    assert run.params == {"seed": 5, "fail": False, "n_rows": 2, "scale": 1.0, "label": "x"}
    assert not (project / "notebooks/scratch").exists()
    assert Path(__import__("os").environ[CACHE_ENVIRONMENT]) == project / "scratch/cache"
    import pandas as pd

    assert run.save({"table": pd.DataFrame({"a": [1]})}) == [run.data_dir / "table.csv"]
    with pytest.raises(runner.ParameterError, match="'n_rows' = 0 is invalid"):
        start("demo", dict(namespace, n_rows=0))
    with pytest.raises(runner.ParameterError, match="does not define parameter\\(s\\) 'label'"):
        start("demo", {k: v for k, v in namespace.items() if k != "label"})


def test_output_folder_problems_exit_2_with_one_line(project, tmp_path, monkeypatch, capsys):
    """--out pointing at a file, below a file, or at an unwritable folder; report --out on a folder without
    outputs: refused before any work, exit status 2, one line on stderr, no traceback."""
    monkeypatch.chdir(project)
    monkeypatch.setattr(runner, "_execute", lambda *a, **k: pytest.fail("the notebook must not start"))
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    cases = [
        (["run", "demo", "--out", str(a_file)], "is a file, not a folder"),
        (["run", "demo", "--out", str(a_file / "below")], "is a file, not a folder"),
        (["reproduce", "--preset", "quick", "--out", str(a_file)], "is a file, not a folder"),
        (["report", "--out", str(a_file)], "is a file, not a folder"),
        (["report", "--out", str(tmp_path / "missing")], "does not exist"),
        (["report", "--out", str(tmp_path)], "no experiment outputs under"),
    ]
    if __import__("os").geteuid() != 0:  # root may write anywhere
        cases.append((["run", "demo", "--out", str(locked / "x")], "cannot be created"))
    for argv, message in cases:
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "locked"]


def test_run_all_checks_every_preset_before_the_first_run(project, monkeypatch):
    monkeypatch.setattr(runner, "_execute", lambda *a, **k: pytest.fail("nothing may start"))
    demo = runner.load_experiment("demo", project)
    presets = {"paper": {**demo.presets["paper"], "seed": -1}}
    broken = runner.Experiment("zz", demo.notebook, "d", presets, project, demo.schema)
    monkeypatch.setattr(runner, "load_experiments", lambda root=None: {"demo": demo, "zz": broken})
    with pytest.raises(runner.ParameterError, match="zz: parameter 'seed' = -1"):
        runner.run_all(preset="paper", root=project)


def test_unreadable_experiment_files_are_named(tmp_path):
    """Found by the atheris fuzzer (make fuzz): a YAML file that is not UTF-8 raised UnicodeDecodeError."""
    project = make_project(tmp_path / "p")
    (project / "experiments" / "bad.yaml").write_bytes(b"\n\n\xc5\n")
    with pytest.raises(runner.RunnerError, match="bad.yaml: not UTF-8 text"):
        runner.load_experiment("bad", project)
    (project / "experiments" / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(runner.RunnerError, match="list.yaml: expected a mapping"):
        runner.load_experiment("list", project)


@pytest.mark.notebook
def test_a_full_disk_is_one_line_and_keeps_earlier_outputs(project, tmp_path, monkeypatch, capsys):
    import errno

    monkeypatch.chdir(project)
    out = tmp_path / "out"
    assert cli.main(["run", "demo", "--out", str(out)]) == 0
    before = snapshot(out)

    def full_disk(executed, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(executed))

    monkeypatch.setattr(runner, "_clean_executed_notebook", full_disk)
    capsys.readouterr()
    assert cli.main(["run", "demo", "--out", str(out), "-p", "n_rows=4"]) == 1
    err = capsys.readouterr().err
    errors = [line for line in err.replace("\r", "\n").splitlines() if line.startswith("torus-lab:")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and "Traceback" not in err
    assert snapshot(out) == before


@pytest.mark.notebook
def test_a_failed_write_without_a_file_name_names_the_run_s_folder(project, tmp_path, monkeypatch, capsys):
    """ENOSPC from a write() carries no file name: the message names the run's staging folder instead."""
    import errno

    monkeypatch.chdir(project)
    out = tmp_path / "out"

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(runner, "_manifest", full_disk)
    assert cli.main(["run", "demo", "--out", str(out)]) == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("torus-lab:")]
    assert len(errors) == 1
    assert f"cannot write {out.resolve()}/.staging-demo-" in errors[0] and "No space left on device" in errors[0]
    assert not list(out.glob(".staging-*")) and not (out / "data").exists()


# ---------------------------------------------------------------------- safe default outputs
def _committed_outputs(project: Path) -> dict[str, bytes]:
    return {path: data for path, data in snapshot(project).items()
            if path.split("/")[0] in runner.OUTPUT_KINDS}  # fmt: skip


@pytest.mark.notebook
def test_only_the_published_paper_preset_writes_the_project_outputs(tmp_path, monkeypatch, capsys):
    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    assert cli.main(["run", "demo"]) == 0  # quick preset, no --out: scratch/quick
    assert _committed_outputs(project) == {}
    assert (project / "scratch/quick/data/demo/table.csv").read_text() == "0,0.0,x\n1,1.0,x\n"
    assert (project / "scratch/quick/reports/demo/manifest.json").exists()
    assert cli.main(["run", "demo", "--preset", "paper"]) == 0  # paper without --publish: scratch/paper
    assert _committed_outputs(project) == {}
    assert len((project / "scratch/paper/data/demo/table.csv").read_text().splitlines()) == 4
    capsys.readouterr()
    for argv, message in ((["run", "demo", "--publish"], "takes only the 'paper' preset, got preset 'quick'"),
                          (["run", "demo", "--preset", "paper", "--publish", "--out", str(tmp_path / "o")],
                           "cannot be combined with --out")):  # fmt: skip
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert _committed_outputs(project) == {} and not (tmp_path / "o").exists()
    assert cli.main(["run", "demo", "--preset", "paper", "--publish"]) == 0
    published = _committed_outputs(project)
    assert "data/demo/table.csv" in published and "reports/demo/manifest.json" in published
    manifest = json.loads(published["reports/demo/manifest.json"])
    assert {entry["path"]: entry["role"] for entry in manifest["outputs"]}["data/demo/table.csv"] == "science"


def test_default_output_roots(tmp_path):
    assert runner.default_output_root(tmp_path, "quick", publish=False) == tmp_path / "scratch" / "quick"
    assert runner.default_output_root(tmp_path, "paper", publish=False) == tmp_path / "scratch" / "paper"
    assert runner.default_output_root(tmp_path, "paper", publish=True) == tmp_path
    for bad in ("", "..", "a/b"):
        with pytest.raises(runner.ParameterError, match="plain name"):
            runner.default_output_root(tmp_path, bad, publish=False)
    project = make_project(tmp_path / "p")
    assert runner.reproduce_output_root("paper", root=project) == project.resolve()
    assert runner.reproduce_output_root("quick", root=project) == (project / "scratch" / "quick").resolve()
    assert runner.reproduce_output_root("quick", tmp_path / "x", root=project) == (tmp_path / "x").resolve()


@pytest.mark.notebook
def test_reproduce_quick_writes_run_and_report_under_scratch(tmp_path, monkeypatch):
    from torus_lab import report

    def a_site_page(entries, out, repository, html_dir=None, *, strict):  # built for real: test_reproduce_quick
        page = Path(out) / "site" / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(" ".join(entry.name for entry in entries))
        return page.parent

    project = make_project(tmp_path / "p")
    monkeypatch.chdir(project)
    monkeypatch.setattr(report, "build_site", a_site_page)
    report.reproduce(preset="quick", root=project, progress=False)
    assert _committed_outputs(project) == {}
    out = project / "scratch" / "quick"
    assert (out / "data/demo/table.csv").exists() and "demo" in (out / "site/index.html").read_text()
    assert (out / "data/claims.csv").exists()


def test_save_writes_timing_frames_apart(tmp_path):
    import pandas as pd

    from torus_lab.experiment import ExperimentRun

    run = ExperimentRun("demo", {}, tmp_path / "d", tmp_path / "f", tmp_path)
    run.data_dir.mkdir()
    frames = {"table": pd.DataFrame({"n": [1]}), "table_timing": pd.DataFrame({"n": [1], "seconds": [0.5]})}
    assert run.save(frames) == [run.data_dir / "table.csv", run.data_dir / "timing" / "table.csv"]
    assert runner.output_role("data", "timing/table.csv") == "timing"
    assert runner.output_role("data", "table.csv") == "science"
    with pytest.raises(ValueError, match="not a plain file name"):
        run.save({"a": pd.DataFrame(), "../b": pd.DataFrame()})
    assert not (run.data_dir / "a.csv").exists()  # nothing written before every key is checked


def test_a_rule_the_schema_cannot_express_is_refused_before_any_kernel_starts(tmp_path, monkeypatch, capsys):
    """``-p ts=[1,5]`` with radix 4 reached the notebook (exit 1); the loads study's ``check_params``
    now runs with the schema check, so the CLI exits 2 with one line and writes nothing."""
    import torus_lab.runner as runner_module

    def no_kernel(*args, **kwargs):
        raise AssertionError("a notebook was started")

    monkeypatch.setattr(runner_module, "_execute", no_kernel)
    out = tmp_path / "out"
    code = cli.main(["run", "loads", "--out", str(out), "-p", "radices_by_dim=[{dims: 2, radices: [4]}]",
                     "-p", "ts=[1, 5]"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "loads: ts holds t = 5 but radices_by_dim (dims 2) holds k = 4" in err
    assert len(err.strip().splitlines()) == 1
    assert not (out / "data").exists()


def _project_with(root: Path, presets: dict[str, str]) -> Path:
    """The demo project plus copies of ``demo`` named by ``presets`` (name -> its quick preset line)."""
    project = make_project(root)
    demo = (project / "experiments" / "demo.yaml").read_text()
    for name, quick in presets.items():
        text = demo.replace("  quick: {seed: 5, fail: false, n_rows: 2, scale: 1.0, label: x}", f"  quick: {quick}")
        (project / "experiments" / f"{name}.yaml").write_text(text)
    return project


@pytest.mark.notebook
def test_experiments_side_by_side_write_what_one_at_a_time_writes(tmp_path, monkeypatch):
    """``jobs=2``: the same files and bytes as one at a time, results in the given order, progress labelled per
    experiment, and the runner's own environment untouched (each kernel gets its variables directly)."""
    import io
    import os

    from torus_lab.progress import RUNNER_ENVIRONMENT, ProgressPrinter

    monkeypatch.delenv(RUNNER_ENVIRONMENT, raising=False)
    for key in runner.SWEEP_ENVIRONMENT:
        monkeypatch.delenv(key, raising=False)
    cwd = Path.cwd()
    project = _project_with(tmp_path / "p", {"other": "{seed: 7, fail: false, n_rows: 5, scale: 3.0, label: y}"})
    nb = nbformat.read(project / "notebooks" / "demo.ipynb", as_version=4)
    nb.cells.append(new_code_cell('import os\nprint("sweeps:", [os.environ.get(k) for k in '
                                  f'{list(runner.SWEEP_ENVIRONMENT)!r}])'))
    nbformat.write(nb, project / "notebooks" / "demo.ipynb")
    names = ["other", "demo"]
    one = runner.run_all(preset="quick", out=tmp_path / "one", root=project, names=names, progress=False)
    log = io.StringIO()
    two = runner.run_all(preset="quick", out=tmp_path / "two", root=project, names=names, jobs=2,
                         progress=ProgressPrinter(log, interactive=False))  # fmt: skip
    assert [r.name for r in two] == names == [r.name for r in one]
    for name in names:
        for kind in ("data", "figures"):
            science = {path: data for path, data in snapshot(tmp_path / "one" / kind / name).items()
                       if path != "manifest.json"}  # fmt: skip
            assert science and science == {path: data for path, data in snapshot(tmp_path / "two" / kind / name).items()
                                           if path != "manifest.json"}  # fmt: skip
    assert "[1/2] other cells: 5/5 (100%)" in log.getvalue() and "[2/2] demo cells: 5/5 (100%)" in log.getvalue()
    assert RUNNER_ENVIRONMENT not in os.environ and Path.cwd() == cwd  # each kernel got its own cwd and variables
    # side by side, the sweeps share the cores: each kernel got its share, and the manifest says so
    shared = runner.shared_sweep_environment(2)
    assert shared and not any(key in os.environ for key in runner.SWEEP_ENVIRONMENT)
    for out, expected in (("one", {}), ("two", shared)):
        manifest = json.loads((tmp_path / out / "data" / "demo" / "manifest.json").read_text())
        assert manifest["sweep_backend"] == expected
        executed = (tmp_path / out / "reports" / "demo" / "demo.ipynb").read_text()
        assert f"sweeps: {[expected.get(key) for key in runner.SWEEP_ENVIRONMENT]}" in executed


@pytest.mark.notebook
def test_a_failure_side_by_side_raises_after_the_running_one_finishes(tmp_path, monkeypatch):
    """``demo`` runs beside ``boom`` and returns only once ``boom`` has failed (both notebooks take about as long,
    so without this the order of the two endings would be left to chance): ``late`` must then never start."""
    import threading
    import time

    project = _project_with(tmp_path / "p", {"boom": "{seed: 5, fail: true, n_rows: 2, scale: 1.0, label: x}",
                                             "late": "{seed: 5, fail: false, n_rows: 2, scale: 1.0, label: x}"})
    out = tmp_path / "out"
    cwd = Path.cwd()
    boom_failed = threading.Event()
    run_experiment = runner.run_experiment

    def run_in_order(name, **options):
        try:
            result = run_experiment(name, **options)
        except runner.NotebookFailedError:
            boom_failed.set()
            raise
        if name == "demo":
            assert boom_failed.wait(timeout=300)
            time.sleep(1)  # the runner raises its stop flag as the failure leaves this wrapper: let it
        return result

    monkeypatch.setattr(runner, "run_experiment", run_in_order)
    with pytest.raises(runner.NotebookFailedError, match="boom"):
        runner.run_all(preset="quick", out=out, root=project, names=["boom", "demo", "late"], jobs=2, progress=False)
    assert Path.cwd() == cwd
    assert (out / "data" / "demo" / "table.csv").exists()  # started beside the failing one: finished and kept
    assert not (out / "data" / "boom").exists() and not (out / "data" / "late").exists()  # never started


def test_jobs_must_be_a_positive_int(project):
    with pytest.raises(ValueError, match="jobs"):
        runner.run_all(preset="quick", root=project, jobs=0)
    with pytest.raises(SystemExit):
        cli._build_parser().parse_args(["reproduce", "--jobs", "0"])


def test_cleaning_drops_the_installed_packages_folder(project, tmp_path):
    """A warning printed into a notebook names its source file under site-packages: no machine path stays."""
    import sysconfig

    purelib = sysconfig.get_paths()["purelib"]
    staging = tmp_path / "staging"
    executed = tmp_path / "demo.ipynb"
    nb = new_notebook(cells=[new_code_cell("x")])
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stderr",
                                                  text=f"{purelib}/joblib/x.py:1: UserWarning: w\\n")]  # fmt: skip
    nbformat.write(nb, executed)
    runner._clean_executed_notebook(executed, root=project, staging=staging,
                                    experiment=runner.load_experiment("demo", project))  # fmt: skip
    text = executed.read_text()
    assert purelib not in text and "site-packages/joblib/x.py:1: UserWarning" in text


def test_validating_parameters_does_not_load_the_iri_grammar_library_and_leaves_it_importable():
    """jsonschema loads without ``rfc3987_syntax`` (1.2 s of grammar compilation per process, for a format our
    schemas never check); validation still works, and the library can be imported afterwards."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import importlib.util, sys
        from torus_lab.experiment import check_against_schema, load_experiments
        e = load_experiments()["loads"]
        check_against_schema(e.presets["quick"], e.schema, experiment="loads")
        assert "rfc3987_syntax" not in sys.modules, "loaded"
        try:
            check_against_schema({**e.presets["quick"], "seed": -1}, e.schema, experiment="loads")
        except Exception as err:
            assert "seed" in str(err), err
        else:
            raise AssertionError("a negative seed was accepted")
        if importlib.util.find_spec("rfc3987_syntax") is not None:
            import rfc3987_syntax
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr


def test_the_command_line_starts_without_the_plotting_stack():
    """``torus-lab`` (and the runner it drives) needs no matplotlib or seaborn in its own process (~1.7 s of imports
    per command); the notebooks' kernels import them."""
    import subprocess
    import sys

    code = "import sys, torus_lab.cli\nprint(sorted({'matplotlib', 'seaborn', 'scipy.stats'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.notebook
@pytest.mark.parametrize("fail", [False, True])
def test_the_executed_notebook_is_written_at_start_and_end_only_and_holds_every_cell(project, tmp_path, monkeypatch,
                                                                                      fail):  # fmt: skip
    """The runner's papermill engine skips papermill's writes before and after every cell: two writes
    of a short notebook, the last after every cell ran, also when a cell fails (the kept notebook shows the
    error)."""
    import papermill.engines

    writes = []
    original = papermill.engines.write_ipynb

    def counting(nb, path):
        writes.append(sum(bool(cell.get("outputs")) for cell in nb.cells))
        return original(nb, path)

    monkeypatch.setattr(papermill.engines, "write_ipynb", counting)
    out = tmp_path / "out"
    if not fail:
        runner.run_experiment("demo", preset="quick", out=out, root=project, progress=False)
        executed = out / "reports/demo/demo.ipynb"
    else:
        with pytest.raises(runner.NotebookFailedError, match="boom as asked"):
            runner.run_experiment("demo", preset="quick", overrides={"fail": True}, out=out, root=project,
                                  progress=False)  # fmt: skip
        executed = project / "scratch/failed/demo.ipynb"
    assert len(writes) == 2 and writes[0] == 0
    cells = [cell for cell in json.loads(executed.read_text())["cells"] if cell["cell_type"] == "code"]
    statuses = [cell["metadata"]["papermill"]["status"] for cell in cells]
    assert statuses == ["completed"] * (len(cells) - 1) + ["failed" if fail else "completed"]
    outputs = ["".join(o.get("text", "")) + o.get("ename", "") for cell in cells for o in cell["outputs"]]
    assert any(text.startswith("wrote ") for text in outputs)
    assert any("RuntimeError" in text for text in outputs) == fail


def test_experiments_side_by_side_start_longest_first_by_their_last_manifest(tmp_path):
    """``start_order``: the longest recorded duration first; an experiment without a manifest (or with an unreadable
    one) before them, in the given order; the first output root holding a manifest wins."""
    import json

    def record(root, name, seconds):
        folder = root / "data" / name
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps({"duration_s": seconds}))

    out, project = tmp_path / "out", tmp_path / "project"
    record(project, "short", 5.0)
    record(project, "long", 50.0)
    record(project, "middle", 20.0)
    record(out, "short", 90.0)  # the output root's own record comes first
    (project / "data" / "broken").mkdir(parents=True)
    (project / "data" / "broken" / "manifest.json").write_text("{not json")
    names = ["short", "new", "middle", "broken", "long"]
    assert runner.start_order(names, [out, project]) == ["new", "broken", "short", "long", "middle"]
    assert runner.start_order(names, [project]) == ["new", "broken", "long", "middle", "short"]
    with pytest.raises(TypeError, match="records"):
        runner.start_order(names, [3])


CLAIMS = """from torus_lab.claims import Claim, Rule, claims_table, write_claims
write_claims(claims_table("demo", [Claim(claim_id="ratio", location="Section 1", statement="the ratio is 1",
    conditions="k = 4", paper_value=1.0, paper_text="1", measured_value=scale, measured_text=str(scale),
    rule=Rule("exact"), evidence=("data/demo/table.csv",))]), data_dir)"""


@pytest.mark.notebook
def test_a_run_that_changes_a_verdict_prints_it_records_it_and_the_site_shows_it(tmp_path, monkeypatch, capsys):
    """The runner compares the claims table of a run with the one it replaces: the first run has nothing to
    compare with; the second, whose measurement breaks the claim, prints the change, keeps it in the manifest,
    and the claims page of the site shows it under the paper's referee summary."""
    from torus_lab import report, site

    project = write_project(tmp_path / "project", "demo", [PARAMETERS, WORK, CLAIMS],
                            {"demo": "description: a demo\n" + SCHEMA + "presets:\n"
                                     "  quick: {seed: 5, fail: false, n_rows: 2, scale: 1.0, label: x}\n"})  # fmt: skip
    monkeypatch.chdir(project)
    out = tmp_path / "out"
    assert cli.main(["run", "demo", "--out", str(out)]) == 0
    assert "changed since the previous run" not in capsys.readouterr().out
    manifest = json.loads((out / "reports/demo/manifest.json").read_text())
    assert manifest["claims_changes"] == {"previous_run": None, "changes": []}
    first_commit_and_start = (manifest["git"]["commit"], manifest["started_utc"])

    assert cli.main(["run", "demo", "--out", str(out), "-p", "scale=2.0"]) == 0
    printed = capsys.readouterr().out
    assert "demo: 1 claim(s) changed since the previous run:\n  demo/ratio: holds -> does not hold" in printed
    record = json.loads((out / "reports/demo/manifest.json").read_text())["claims_changes"]
    assert (record["previous_run"]["commit"], record["previous_run"]["started_utc"]) == first_commit_and_start
    assert [(c["claim_id"], c["old_verdict"], c["new_verdict"]) for c in record["changes"]] == [
        ("ratio", "holds", "does not hold")]

    entries = report.site_entries(report.collect(out, project), out)
    source = site.prepare_site_source(tmp_path / "source", entries, out, site.REPOSITORY)
    page = (source / "results" / "claims.md").read_text()
    assert page.index("Referee's summary") < page.index("1 verdict(s) changed") < page.index("tl-claims")
    assert "1 claims, 0 reproduced" in page and "the ratio is 1&quot; does not hold" in page
    assert "holds &rarr; <b>does not hold</b>" in page


def test_the_change_record_of_a_first_run_of_a_run_without_claims_and_of_an_unreadable_table(tmp_path):
    from torus_lab.claims import Claim, Rule, claims_table

    new = tmp_path / "staged" / "claims.csv"
    new.parent.mkdir()
    assert runner.claims_change_record(tmp_path, "demo", new) is None  # no claims on either side
    table = claims_table("demo", [Claim(claim_id="c", location="Section 1", statement="s", conditions="k = 4",
                                        paper_value=1.0, paper_text="1", measured_value=1.0, measured_text="1",
                                        rule=Rule("exact"), evidence=("data/demo/t.csv",))])  # fmt: skip
    table.to_csv(new, index=False)
    assert runner.claims_change_record(tmp_path, "demo", new) == {"previous_run": None, "changes": []}
    old = tmp_path / "data" / "demo" / "claims.csv"
    old.parent.mkdir(parents=True)
    old.write_bytes(new.read_bytes())
    assert runner.claims_change_record(tmp_path, "demo", new) == {"previous_run": {}, "changes": []}
    new.unlink()  # the run wrote no claims table: the earlier row is removed
    record = runner.claims_change_record(tmp_path, "demo", new)
    assert [(c["claim_id"], c["change"], c["old_verdict"]) for c in record["changes"]] == [("c", "removed", "holds")]
    old.write_text("paper,claim_id,verdict\ndemo,c,mostly\n")
    table.to_csv(new, index=False)
    record = runner.claims_change_record(tmp_path, "demo", new)
    assert record["changes"] is None and "mostly" in record["error"]
