"""Progress inside an experiment (cells, sweeps) and quiet runs."""

from __future__ import annotations

import io
import json
import re

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell

from torus_lab import cli, runner
from torus_lab.hooks import Hooks
from torus_lab.lockfile import LOCK_FILE
from torus_lab.progress import (
    PROGRESS_ENVIRONMENT,
    ProgressEvent,
    ProgressFollower,
    ProgressPrinter,
    ProgressReporter,
    read_events,
    runner_progress_bar,
)
from torus_lab.sweep import grid, sweep

ROOT = runner.project_root()
#: What a run must not print: kernel transport warnings, spurious interrupts, tqdm's widget warning.
NOISE = ("without encryption", "KeyboardInterrupt", "IProgress", "Warning", "Traceback")


def square(x, rng):  # noqa: ARG001 (sweep passes rng)
    return x * x


# ---------------------------------------------------------------------- the printer
def _bar(done: int, total: int, elapsed_per_step: float = 1.0) -> ProgressEvent:
    return ProgressEvent("bar", done, total, elapsed_s=done * elapsed_per_step, bar_id="b")


@settings(max_examples=60, deadline=None)
@given(total=st.integers(1, 5000), step=st.sampled_from([1, 5, 10, 25, 50, 100]))
def test_line_mode_prints_a_few_increasing_lines_per_bar(total, step):
    """Without a terminal: no carriage returns, at most one line per step plus start and end, counts increase,
    the first line is the start and the last one the end."""
    log = io.StringIO()
    printer = ProgressPrinter(log, step_percent=step, interactive=False)
    for done in range(total + 1):
        printer.update(_bar(done, total))
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) <= 100 // step + 2
    counts = [int(re.search(r"bar: (\d+)/(\d+)", line).group(1)) for line in lines]
    assert counts == sorted(set(counts)) and counts[0] == 0 and counts[-1] == total
    assert "done in" in lines[-1] and all("ETA" in line for line in lines[1:-1])


def test_eta_follows_the_rate_of_counted_steps():
    event = ProgressEvent("sweep", 30, 40, initial=20, elapsed_s=5.0)  # 10 steps in 5 s, 10 left
    assert event.eta_s == pytest.approx(5.0)
    assert ProgressEvent("sweep", 20, 40, initial=20, elapsed_s=5.0).eta_s is None  # nothing counted yet


def test_terminal_mode_redraws_one_status_line():
    log = io.StringIO()
    printer = ProgressPrinter(log, interactive=True, min_interval_s=0.0)
    printer.prefix = "[1/2] demo "
    for done in range(4):
        printer.update(_bar(done, 3))
    printer.close()
    text = log.getvalue()
    assert "\n" not in text and text.count("\r") >= 3
    assert "[1/2] demo bar: 2/3 (66%)" in text
    assert text.endswith("\r")  # the status line was cleared: later output starts at the left margin


def test_bad_step_is_refused():
    with pytest.raises(ValueError, match=r"step_percent must be in 1\.\.100, got 150"):
        ProgressPrinter(io.StringIO(), step_percent=150)


# ---------------------------------------------------------------------- kernel side: file, follower, sweep
def test_reporter_throttles_but_always_writes_start_and_end(tmp_path):
    path = tmp_path / "progress.jsonl"
    bar = ProgressReporter("slow writes", total=1000, path=path, min_interval_s=3600.0)
    for _ in range(1000):
        bar.advance()
    assert [event.done for event in read_events(path.read_text().splitlines())] == [0, 1000]


def test_follower_skips_a_partly_written_line(tmp_path):
    path = tmp_path / "progress.jsonl"
    seen: list[ProgressEvent] = []
    follower = ProgressFollower(path, seen.append)
    whole = json.dumps({"name": "s", "done": 1, "total": 2})
    path.write_text(whole + "\n" + whole[:10])
    follower._read()
    assert [event.done for event in seen] == [1]
    with path.open("a") as handle:
        handle.write(whole[10:] + "\n")  # the writer finishes the line
    follower._read()
    assert [event.done for event in seen] == [1, 1]


def test_sweep_reports_to_the_runner_file_only_when_asked(tmp_path, monkeypatch):
    """A kernel of the runner adds the runner's bar to its hooks; it writes only when the runner names a file."""
    path = tmp_path / "progress.jsonl"
    hooks = Hooks()
    hooks.add_progress_bar("runner", runner_progress_bar)
    monkeypatch.delenv(PROGRESS_ENVIRONMENT, raising=False)
    sweep(square, grid(x=[1, 2, 3]), seed=1, backend="serial", desc="squares", hooks=hooks)
    assert not path.exists()
    monkeypatch.setenv(PROGRESS_ENVIRONMENT, str(path))
    assert sweep(square, grid(x=[1, 2, 3]), seed=1, backend="serial", desc="squares") == [1, 4, 9]
    assert not path.exists()  # the process's own hooks have no runner bar: not a runner's kernel
    assert sweep(square, grid(x=[1, 2, 3]), seed=1, backend="serial", desc="squares", hooks=hooks) == [1, 4, 9]
    events = read_events(path.read_text().splitlines())
    assert {event.name for event in events} == {"squares"}
    assert events[0].done == 0 and events[-1].done == events[-1].total == 3


# ---------------------------------------------------------------------- a real CLI run: quiet, with progress
#: Makes the kernel linger in its handler after answering papermill's final kernel_info request: the moment at
#: which jupyter_client's shutdown used to interrupt it ("KeyboardInterrupt caught in kernel.").
LINGER = '''import inspect, time
kernel = get_ipython().kernel
answer = kernel.shell_handlers["kernel_info_request"]
async def answer_then_linger(*args):
    result = answer(*args)
    if inspect.isawaitable(result):
        await result
    time.sleep(1)
kernel.shell_handlers["kernel_info_request"] = answer_then_linger'''
SWEEP = '''from torus_lab.sweep import grid, sweep
def square(x, rng):
    return x * x
squares = sweep(square, grid(x=list(range(n_rows))), seed=seed, backend="serial", desc="squares")'''


@pytest.mark.notebook
def test_cli_run_is_quiet_and_shows_progress(tmp_path, monkeypatch, capfd):
    from test_runner import make_project

    project = make_project(tmp_path / "project")
    notebook = project / "notebooks" / "demo.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    nb.cells += [new_code_cell(SWEEP), new_code_cell(LINGER)]
    nbformat.write(nb, notebook)
    (project / LOCK_FILE).write_text("numpy==0.0.1 \\\n    --hash=sha256:00\n")
    monkeypatch.chdir(project)
    assert cli.main(["run", "demo", "-p", "n_rows=5", "--out", str(tmp_path / "out")]) == 0
    captured = capfd.readouterr()  # file-descriptor level: the kernel process writes there too
    output = captured.out + captured.err
    for noise in NOISE:
        assert noise not in output, output
    assert "\r" not in captured.err  # not a terminal: whole lines only
    assert re.search(r"^  cells: 6/6 \(100%\) done in \d+:\d\d$", captured.err, re.M), captured.err
    assert re.search(r"^  squares: 5/5 \(100%\) done in \d+:\d\d$", captured.err, re.M), captured.err
    manifest = json.loads((tmp_path / "out/data/demo/manifest.json").read_text())
    lock = manifest["environment_lock"]
    assert lock["sha256"] == runner.sha256(project / LOCK_FILE) and lock["packages"] == 1
    assert lock["matches_environment"] is False and lock["differing"][0].startswith("numpy: locked 0.0.1")
