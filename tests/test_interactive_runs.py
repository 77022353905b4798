"""A notebook run by hand: progress bars only when a person watches, the runner's layout and manifest, no paths
printed.

The round trip runs one throw-away experiment twice, through ``torus-lab run`` (papermill, the runner's kernel)
and "by hand" (a kernel started in ``notebooks/`` as JupyterLab does, the notebook's own parameters cell), and
compares what each leaves in ``scratch/quick/``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from throwaway_project import write_project

from torus_lab import runner
from torus_lab.experiment import ExperimentRun, ParameterError, SavedFiles, start
from torus_lab.settings import ENVIRONMENT
from torus_lab.sweep import shows_progress, sweep

PARAMETERS = 'seed = 5\nn_rows = 2\ndata_dir = "scratch/quick/data/demo"\nfigures_dir = "scratch/quick/figures/demo"'
WORK = """import matplotlib.pyplot as plt
import pandas as pd
from torus_lab.experiment import start
from torus_lab.sweep import shows_progress, sweep

def draw(i, rng):
    return {"i": i, "x": round(float(rng.random()), 6)}

run = start("demo", globals())
rows = sweep(draw, [{"i": i} for i in range(n_rows)], seed=seed, backend="serial")
print("progress", shows_progress())"""
SAVE = 'run.save({"table": pd.DataFrame(rows), "table_timing": pd.DataFrame({"seconds": [0.1]})})'
SHOW = "fig, ax = plt.subplots()\nax.plot([0, 1], [0, n_rows])\nrun.show(fig, \"line\")"
EXPERIMENT = """description: a demo of the interactive layout
schema:
  type: object
  required: [seed, n_rows]
  additionalProperties: false
  properties:
    seed: {type: integer, minimum: 0, description: root seed}
    n_rows: {type: integer, minimum: 1, description: rows of the table}
presets:
  quick: {seed: 5, n_rows: 2}
  paper: {seed: 6, n_rows: 3}
"""
#: Manifest fields that differ between two runs of the same experiment and preset: when they ran.
RUN_TIMES = ("started_utc", "finished_utc", "duration_s")


@pytest.fixture
def project(tmp_path) -> Path:
    return write_project(tmp_path / "project", "demo", [PARAMETERS, WORK, SAVE, SHOW], {"demo": EXPERIMENT})


def run_by_hand(project: Path) -> nbformat.NotebookNode:
    """Execute the notebook as a person does: its own parameters, a kernel started in ``notebooks/``."""
    from nbclient import NotebookClient

    nb = nbformat.read(project / "notebooks/demo.ipynb", as_version=4)
    NotebookClient(nb, kernel_name=runner.ensure_kernel(), timeout=600,
                   resources={"metadata": {"path": str(project / "notebooks")}}).execute()  # fmt: skip
    return nb


def layout(out: Path, kinds=("data", "figures")) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for kind in kinds for p in (out / kind).rglob("*") if p.is_file())


def text_outputs(nb) -> str:
    return "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", ""))
                   for cell in nb.cells for o in cell.get("outputs", []))  # fmt: skip


@pytest.mark.notebook
def test_a_run_by_hand_and_torus_lab_run_write_the_same_layout_and_manifest(project, monkeypatch):
    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    out = project / "scratch" / "quick"
    runner.run_experiment("demo", preset="quick", root=project, progress=False)
    cli_layout = layout(out)
    cli_manifest = json.loads((out / "data/demo/manifest.json").read_text())
    assert (out / "reports/demo/demo.ipynb").exists()  # the executed notebook, a page of the site
    shutil.rmtree(out)

    nb = run_by_hand(project)
    assert layout(out) == cli_layout  # data/demo/{table.csv, timing/table.csv, manifest.json}, figures/demo/...
    assert "data/demo/table.csv" in cli_layout and "figures/demo/line.png" in cli_layout
    manifest = json.loads((out / "data/demo/manifest.json").read_text())
    assert manifest == json.loads((out / "figures/demo/manifest.json").read_text())
    assert manifest.keys() == cli_manifest.keys()
    for key in manifest.keys() - {*RUN_TIMES, "outputs"}:
        assert manifest[key] == cli_manifest[key], key
    assert manifest["preset"] == "quick" and manifest["seed"] == 5
    cli_outputs = {o["path"]: o for o in cli_manifest["outputs"] if not o["path"].startswith("reports/")}
    outputs = {o["path"]: o for o in manifest["outputs"]}
    assert outputs.keys() == cli_outputs.keys()
    for path, entry in outputs.items():
        assert entry["role"] == cli_outputs[path]["role"]
        assert runner.sha256(out / path) == entry["sha256"]  # the manifest describes the files as they are
        if entry["role"] == "science":
            assert entry["sha256"] == cli_outputs[path]["sha256"]  # same science, byte for byte
    printed = text_outputs(nb)
    assert "<2 files saved>" in printed  # run.save shows one short line
    assert str(project) not in printed and "PosixPath" not in printed
    assert "progress False" in printed  # nbclient (papermill's client) sends cells without stdin: no bars


@pytest.mark.notebook
def test_a_run_by_hand_never_writes_the_committed_outputs(project, monkeypatch):
    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    monkeypatch.chdir(project)
    for key in ("data_dir", "figures_dir"):
        namespace = {"seed": 6, "n_rows": 3, "data_dir": "scratch/d", "figures_dir": "scratch/f", key: "data/demo"}
        with pytest.raises(ParameterError, match=f"{key} 'data/demo' is inside the committed data/ folder"):
            start("demo", namespace)
    assert not (project / "data").exists()
    run = start("demo", {"seed": 6, "n_rows": 3, "data_dir": "scratch/paper/data/demo",
                         "figures_dir": "scratch/paper/figures/demo"})  # fmt: skip
    assert run.interactive and run.preset == "paper"
    assert start("demo", {"seed": 7, "n_rows": 3}).preset is None  # no preset has these values
    monkeypatch.setenv(ENVIRONMENT["under_runner"], "1")  # the runner injects its staging folders
    assert not start("demo", {"seed": 6, "n_rows": 3}).interactive


def test_a_run_by_hand_replaces_what_the_previous_run_listed(project, monkeypatch):
    """Like the runner's swap, a new interactive run leaves no output of the previous one (a figure it no longer
    draws), while a file no manifest lists is not touched."""
    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    monkeypatch.chdir(project)
    data, figures = project / "scratch/quick/data/demo", project / "scratch/quick/figures/demo"
    for folder, kind in ((data, "data"), (figures, "figures")):
        folder.mkdir(parents=True)
        (folder / "old.txt").write_text("from the previous run")
        (folder / "mine.txt").write_text("the user's own")
        (folder / "manifest.json").write_text(json.dumps({"outputs": [{"path": f"{kind}/demo/old.txt"},
                                                                      {"path": f"{kind}/demo/../../escape.txt"}]}))
    (project / "scratch/quick/escape.txt").write_text("outside the folder")
    run = start("demo", {"seed": 5, "n_rows": 2})
    assert run.data_dir == data and run.preset == "quick"
    for folder in (data, figures):
        assert sorted(p.name for p in folder.iterdir()) == ["mine.txt"]
    assert (project / "scratch/quick/escape.txt").exists()
    run.save({"table": pd.DataFrame({"a": [1]})})
    listed = [o["path"] for o in json.loads((data / "manifest.json").read_text())["outputs"]]
    assert listed == ["data/demo/mine.txt", "data/demo/table.csv", "figures/demo/mine.txt"]


def test_save_returns_a_short_path_free_value(tmp_path):
    run = ExperimentRun("demo", {}, tmp_path, tmp_path, tmp_path)
    saved = run.save({"a": pd.DataFrame({"x": [1]}), "b": pd.DataFrame({"x": [2]})})
    assert isinstance(saved, SavedFiles) and saved == [tmp_path / "a.csv", tmp_path / "b.csv"]
    assert repr(saved) == "<2 files saved>" and str(tmp_path) not in repr(saved)
    from IPython.lib.pretty import pretty

    assert pretty(saved) == "<2 files saved>"  # what a notebook cell ending in run.save(...) shows
    assert not (tmp_path / "manifest.json").exists()  # not an interactive run: the runner writes the manifest


class Kernel:
    """What ipykernel keeps of the cell being executed."""

    def __init__(self, allow_stdin: bool) -> None:
        self._allow_stdin = allow_stdin


@pytest.mark.parametrize(("under_runner", "allow_stdin", "shown"), [
    (False, True, True),    # JupyterLab, Notebook, VS Code
    (False, False, False),  # papermill / nbclient
    (True, True, False),    # torus-lab run / reproduce (progress goes to the terminal)
    (True, False, False),
])  # fmt: skip
def test_progress_is_shown_only_when_a_person_watches(monkeypatch, capsys, under_runner, allow_stdin, shown):
    import torus_lab.sweep as sweep_module

    monkeypatch.setattr(sweep_module, "_running_kernel", lambda: Kernel(allow_stdin))
    if under_runner:
        monkeypatch.setenv(ENVIRONMENT["under_runner"], "1")
    else:
        monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    assert shows_progress() is shown
    sweep(_double, [{"i": 1}, {"i": 2}], seed=1, backend="serial", cache=False, desc="watched")
    assert ("watched: 100%" in capsys.readouterr().err) is shown  # tqdm.auto falls back to the terminal bar
    sweep(_double, [{"i": 1}], seed=1, backend="serial", cache=False, desc="forced", progress=False)
    assert "forced" not in capsys.readouterr().err


def _double(i, rng):  # noqa: ARG001 (a sweep function's signature)
    return 2 * i


def test_no_kernel_no_progress(monkeypatch):
    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    assert shows_progress() is False  # pytest is no kernel


@pytest.mark.notebook
def test_a_kernel_knows_whether_its_front_end_accepts_input(monkeypatch):
    """A real kernel: a cell sent as JupyterLab sends it (stdin allowed) shows progress; as papermill sends it,
    or under the runner's environment, not."""
    from jupyter_client.manager import start_new_kernel

    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)

    def answers(allow_stdin: bool, env: dict[str, str] | None = None) -> str:
        import os

        km, kc = start_new_kernel(kernel_name=runner.ensure_kernel(), env={**os.environ, **(env or {})})
        printed: list[str] = []
        try:
            kc.execute_interactive("from torus_lab.sweep import shows_progress; print(shows_progress())",
                                   allow_stdin=allow_stdin, timeout=120,
                                   output_hook=lambda msg: printed.append(msg["content"].get("text", "")))
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        return "".join(printed).strip()

    assert answers(True) == "True"
    assert answers(False) == "False"
    assert answers(True, {ENVIRONMENT["under_runner"]: "1"}) == "False"


HOLDER = """import sys, time
from torus_lab.outputs import output_lock
with output_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


def test_a_run_by_hand_takes_the_output_lock_of_torus_lab_run(project, monkeypatch, tmp_path):
    """While another process holds the output root's lock (the lock ``torus-lab run`` holds for its whole run), a
    notebook run by hand refuses to write, naming the folder and the holder, and writes nothing; once the lock is
    free it saves."""
    import os
    import subprocess
    import sys

    from torus_lab.outputs import OutputRootBusyError

    monkeypatch.delenv(ENVIRONMENT["under_runner"], raising=False)
    monkeypatch.chdir(project)
    run = start("demo", {"seed": 5, "n_rows": 2})
    root = project / "scratch/quick"
    assert run.output_root == root
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    holder = subprocess.Popen([sys.executable, str(script), str(root)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(OutputRootBusyError, match=rf"output root {root} is in use by pid {holder.pid} .*"
                                                      "point data_dir and figures_dir"):
            run.save({"table": pd.DataFrame({"a": [1]})})
        assert not (run.data_dir / "table.csv").exists() and not (run.data_dir / "manifest.json").exists()
        with pytest.raises(OutputRootBusyError, match=str(root)):
            start("demo", {"seed": 5, "n_rows": 2})  # a new run by hand would remove the previous outputs
    finally:
        holder.kill()
        holder.wait()
    run.save({"table": pd.DataFrame({"a": [1]})})
    assert (run.data_dir / "table.csv").exists() and (run.data_dir / "manifest.json").exists()
    assert os.getpid() != holder.pid
