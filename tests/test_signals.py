"""Runs stopped by signals, for real: the command line in its own process, a notebook kernel, sweep workers.

Each test starts ``torus-lab`` on a throw-away project whose notebook holds a sweep of two local worker
processes, waits until the workers run (they leave a marker file each), sends one signal to the command line
only (as ``kill``, ``timeout`` or a batch scheduler do), and checks what a careful command-line tool promises:
the exit status is 128 + the signal, standard error ends with one line and holds no traceback, the earlier
outputs are byte-identical, no staging folder is left, the output root's lock is free, and no process the run
started (kernel, sweep workers) outlives it.  A tag in the environment marks every process of a run (children
inherit it), so none is missed.  The waits are generous: they only end a test that hangs.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from throwaway_project import write_project

from torus_lab.outputs import LOCK_NAME, lock_holder
from torus_lab.runner import project_root

ROOT = project_root()

pytestmark = [pytest.mark.notebook, pytest.mark.slow]

#: Seconds a test waits for a run to reach the point where the signal is sent (kernel start, imports, workers:
#: seconds on an idle machine); only a hung run takes longer.
READY_WAIT_S = 300
#: Seconds a stopped command gets to exit, and its processes to end.
EXIT_WAIT_S = 120

PARAMETERS = 'seed = 1\nhold = False\ndata_dir = "scratch/d"\nfigures_dir = "scratch/f"'
WRITE = """from pathlib import Path
Path(data_dir).mkdir(parents=True, exist_ok=True)
(Path(data_dir) / "table.csv").write_text("new\\n")
Path(figures_dir).mkdir(parents=True, exist_ok=True)
(Path(figures_dir) / "figure.svg").write_text("<svg/>")"""
HOLD = """import os, time
from torus_lab.sweep import sweep

def nap(i, rng, hold=hold, markers=os.environ["TEST_MARKERS"]):
    Path(markers, f"worker-{i}-{os.getpid()}").write_text("")
    time.sleep(600 if hold else 0)
    return i

Path(os.environ["TEST_MARKERS"], f"kernel-{os.getpid()}").write_text("")
sweep(nap, [{"i": 0}, {"i": 1}], seed=seed, backend="processes", workers=2, cache=False)"""
SCHEMA = """schema:
  type: object
  required: [seed, hold]
  additionalProperties: false
  properties:
    seed: {type: integer, minimum: 0, description: root seed}
    hold: {type: boolean, description: sweep items sleep for ten minutes}
"""


def make_project(root: Path) -> Path:
    """A throw-away project with two experiments, ``first`` and ``second``, of the notebook above."""
    presets = ("presets:\n  quick: {seed: 1, hold: true}\n  paper: {seed: 2, hold: false}\n"
               "  brief: {seed: 3, hold: false}\n")
    text = "description: holds its sweep workers\n" + SCHEMA + presets
    return write_project(root, "hold", [PARAMETERS, WRITE, HOLD], {"first": text, "second": text})


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("project"))


def earlier_outputs(out: Path, names=("first", "second")) -> dict[str, bytes]:
    for name in names:
        for kind in ("data", "figures", "reports"):
            (out / kind / name).mkdir(parents=True, exist_ok=True)
            (out / kind / name / "earlier.txt").write_text(f"earlier {kind}")
    return snapshot(out)


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != LOCK_NAME}  # fmt: skip


class Run:
    """One ``torus-lab`` command in its own session, its processes tagged through the environment."""

    def __init__(self, project: Path, markers: Path, args: list[str], *, driver: str | None = None,
                 env: dict[str, str] | None = None) -> None:  # fmt: skip
        self.tag = uuid.uuid4().hex
        self.markers = markers
        markers.mkdir(parents=True, exist_ok=True)
        environment = {**os.environ, "TEST_MARKERS": str(markers), "TORUS_LAB_TEST_TAG": self.tag, **(env or {})}
        command = [sys.executable, "-c", driver, *args] if driver else [sys.executable, "-m", "torus_lab.cli", *args]
        self.process = subprocess.Popen(command, cwd=project, env=environment, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip

    def wait_for(self, prefix: str, count: int = 1) -> None:
        deadline = time.monotonic() + READY_WAIT_S
        while len(list(self.markers.glob(f"{prefix}*"))) < count:
            assert self.process.poll() is None, f"the run ended early: {self.process.communicate()}"
            assert time.monotonic() < deadline, f"no {count} {prefix} marker(s) after {READY_WAIT_S} s"
            time.sleep(0.05)

    def stop(self, signum: int) -> tuple[int, str]:
        self.process.send_signal(signum)
        _, err = self.process.communicate(timeout=EXIT_WAIT_S)
        return self.process.returncode, err

    def processes(self) -> list[int]:
        """Live processes carrying this run's tag (the command itself, once it has exited, excluded)."""
        found = []
        needle = f"TORUS_LAB_TEST_TAG={self.tag}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "environ").read_bytes() and b"Z" != (entry / "stat").read_bytes().rsplit(
                        b")", 1)[1].split()[0]:  # fmt: skip
                    found.append(int(entry.name))
            except OSError:
                continue
        return found

    def assert_no_process_left(self) -> None:
        deadline = time.monotonic() + EXIT_WAIT_S
        while self.processes():
            assert time.monotonic() < deadline, f"processes of the run still alive: {self.processes()}"
            time.sleep(0.1)


def assert_clean_stop(status: int, err: str, signum: int) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    name = signal.Signals(signum).name
    assert status == 128 + signum, err
    assert lines[-1] == f"torus-lab: stopped by {name}; earlier outputs were left as they were", err
    assert not any("Traceback" in line or "Task exception" in line or "Kernel died" in line for line in lines), err


def assert_untouched(out: Path, before: dict[str, bytes]) -> None:
    assert snapshot(out) == before
    assert not list(out.glob(".staging-*"))
    assert lock_holder(out) is None


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_during_a_sweep_stops_kernel_and_workers_and_keeps_earlier_outputs(project, tmp_path, signum):
    out = tmp_path / "out"
    before = earlier_outputs(out)
    run = Run(project, tmp_path / "markers", ["run", "first", "--out", str(out)])
    run.wait_for("worker-", 2)
    assert_clean_stop(*run.stop(signum), signum)
    run.assert_no_process_left()
    assert_untouched(out, before)


def test_a_signal_while_the_kernel_starts(project, tmp_path):
    """Before any marker: the kernel may be starting, or not yet asked for."""
    out = tmp_path / "out"
    before = earlier_outputs(out)
    run = Run(project, tmp_path / "markers", ["run", "first", "--out", str(out)])
    deadline = time.monotonic() + READY_WAIT_S
    while not run.processes()[1:] and time.monotonic() < deadline:  # the command and a child: the kernel
        time.sleep(0.02)
    assert_clean_stop(*run.stop(signal.SIGTERM), signal.SIGTERM)
    run.assert_no_process_left()
    assert_untouched(out, before)


def test_reproducing_side_by_side_stops_every_experiment(project, tmp_path):
    out = tmp_path / "out"
    before = earlier_outputs(out)
    run = Run(project, tmp_path / "markers", ["reproduce", "--preset", "quick", "--jobs", "2", "--out", str(out)])
    run.wait_for("worker-", 4)  # both experiments hold their workers
    assert_clean_stop(*run.stop(signal.SIGTERM), signal.SIGTERM)
    run.assert_no_process_left()
    assert_untouched(out, before)


def test_a_stopped_verify_leaves_no_temporary_folder(project, tmp_path):
    reference = tmp_path / "reference"
    earlier_outputs(reference, names=("first",))
    manifest = {"preset": "quick", "parameters": {"seed": 1, "hold": True}}  # what verify checks of a reference
    (reference / "reports" / "first" / "manifest.json").write_text(json.dumps(manifest))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = Run(project, tmp_path / "markers", ["verify", "--preset", "quick", "--only", "first", "--against",
                                             str(reference)], env={"TMPDIR": str(temporary)})  # fmt: skip
    run.wait_for("worker-", 2)
    assert_clean_stop(*run.stop(signal.SIGTERM), signal.SIGTERM)
    run.assert_no_process_left()
    assert not [p for p in temporary.iterdir() if p.name.startswith("torus-lab-verify")]


SLOW_SWAP = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from torus_lab import cli
    real_rename = Path.rename
    def rename(self, target):
        if ".staging-" in str(self) and not os.path.exists(os.environ["TEST_MARKERS"] + "/swap"):
            Path(os.environ["TEST_MARKERS"], "swap").write_text("")
            time.sleep(2)  # the signal arrives here, between the swap's moves
        return real_rename(self, target)
    Path.rename = rename
    sys.exit(cli.main(sys.argv[1:]))
""")


def test_a_signal_during_the_final_swap_lets_it_finish(project, tmp_path):
    """The swap is never left half done: a signal in its middle lets it finish (the new outputs, complete)."""
    out = tmp_path / "out"
    earlier_outputs(out)
    run = Run(project, tmp_path / "markers", ["run", "first", "--preset", "brief", "--out", str(out)],
              driver=SLOW_SWAP)  # fmt: skip
    run.wait_for("swap")
    assert_clean_stop(*run.stop(signal.SIGTERM), signal.SIGTERM)
    run.assert_no_process_left()
    after = snapshot(out)
    assert after["data/first/table.csv"] == b"new\n" and "data/first/earlier.txt" not in after
    assert {"figures/first/figure.svg", "reports/first/first.ipynb", "reports/first/manifest.json"} <= set(after)
    assert not list(out.glob(".staging-*"))


def test_after_kill_9_earlier_outputs_are_intact_and_the_next_run_cleans_up(project, tmp_path):
    out = tmp_path / "out"
    before = earlier_outputs(out)
    run = Run(project, tmp_path / "markers", ["run", "first", "--out", str(out)])
    run.wait_for("worker-", 2)
    run.process.kill()
    run.process.communicate(timeout=EXIT_WAIT_S)
    run.assert_no_process_left()  # the kernel notices its parent is gone, the workers theirs
    assert {p.relative_to(out).as_posix(): p.read_bytes() for p in out.glob("[dfr]*/**/*") if p.is_file()} == before
    assert list(out.glob(".staging-*"))  # what the killed run left
    done = subprocess.run([sys.executable, "-m", "torus_lab.cli", "run", "first", "--preset", "brief", "--out",
                           str(out)], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "TEST_MARKERS": str(tmp_path / "markers")})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not list(out.glob(".staging-*"))
    assert (out / "data" / "first" / "table.csv").read_text() == "new\n"


def test_a_second_run_into_the_same_root_is_refused_naming_the_first(project, tmp_path):
    out = tmp_path / "out"
    run = Run(project, tmp_path / "markers", ["run", "first", "--out", str(out)])
    run.wait_for("worker-", 2)
    second = subprocess.run([sys.executable, "-m", "torus_lab.cli", "run", "second", "--out", str(out)],
                            cwd=project, capture_output=True, text=True)  # fmt: skip
    assert second.returncode == 1
    assert f"is in use by pid {run.process.pid} (" in second.stderr and second.stderr.count("\n") == 1
    assert_clean_stop(*run.stop(signal.SIGTERM), signal.SIGTERM)
    run.assert_no_process_left()


SWEEP_SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from torus_lab.sweep import sweep

    # as from a terminal: a process started in the background of a non-interactive shell (a CI script, `make &`)
    # inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler of its own
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def nap(i, rng):
        Path(os.environ["TEST_MARKERS"], f"worker-{i}-{os.getpid()}").write_text("")
        time.sleep(600)

    if __name__ == "__main__":
        try:
            sweep(nap, [{"i": 0}, {"i": 1}], seed=1, backend="processes", workers=2, cache=False)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
""")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_a_script_s_sweep_workers_end_with_it(tmp_path, signum):
    """A user's script running a sweep: Ctrl-C stops its workers at once; a SIGTERM, which ends the script
    without cleanup, leaves workers that notice their parent is gone and exit."""
    script = tmp_path / "script.py"
    script.write_text(SWEEP_SCRIPT)
    markers = tmp_path / "markers"
    markers.mkdir()
    tag = uuid.uuid4().hex
    run = Run.__new__(Run)  # the same bookkeeping, another command
    run.tag, run.markers = tag, markers
    run.process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env={**os.environ, "TEST_MARKERS": str(markers), "TORUS_LAB_TEST_TAG": tag})
    run.wait_for("worker-", 2)
    status, err = run.stop(signum)
    assert status == (130 if signum == signal.SIGINT else -signal.SIGTERM), err
    run.assert_no_process_left()


SIM_SCRIPT = textwrap.dedent("""
    import contextlib, os, signal, sys, time
    from pathlib import Path
    from torus_lab.interrupt import catching_signals
    from torus_lab.routing.ecube import ecube_routing
    from torus_lab.sim import SimConfig, simulate
    from torus_lab.topology import Torus

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal (see SWEEP_SCRIPT)
    router, handler = sys.argv[1], sys.argv[2]
    routing = ecube_routing(Torus(3, 16), datelines=True, vcs=2)
    base = SimConfig.preset(router)
    simulate(routing, base.replace(warmup=2, measure=2, drain=4), seed=1)  # compiles the loop (or loads its cache)
    endless = base.replace(offered_load=0.3, warmup=10**8, measure=10, drain=0)  # hours of work on 4096 routers
    try:
        with catching_signals() if handler == "handler" else contextlib.nullcontext():
            Path(os.environ["TEST_MARKERS"], "simulating").write_text("")
            simulate(routing, endless, seed=2)
    except KeyboardInterrupt as stop:
        print(f"stopped {type(stop).__name__} {time.monotonic()!r}", file=sys.stderr)
        sys.exit(130)
""")


@pytest.mark.parametrize("router", ["simple", "booksim"])
@pytest.mark.parametrize("signum, handler", [(signal.SIGINT, "default"), (signal.SIGTERM, "handler"),
                                             (signal.SIGTERM, "default")], ids=["SIGINT", "SIGTERM-handled",
                                                                                "SIGTERM-default"])  # fmt: skip
def test_a_long_simulation_answers_a_signal_between_chunks(tmp_path, router, signum, handler):
    """A simulation of hours on a 4096-router torus, stopped in its compiled loop: Ctrl-C (Python's default
    handler) and a SIGTERM under a handler that raises (``catching_signals``) become a KeyboardInterrupt at the
    end of the running chunk (``torus_lab.sim.engine.chunk_cycles``); a SIGTERM with no handler ends the process.
    The latency from the signal to the interrupt is printed; the bound asserted is generous (a busy machine),
    what must hold is that the run does not go on to its end."""
    script = tmp_path / "script.py"
    script.write_text(SIM_SCRIPT)
    markers = tmp_path / "markers"
    markers.mkdir()
    tag = uuid.uuid4().hex
    run = Run.__new__(Run)
    run.tag, run.markers = tag, markers
    run.process = subprocess.Popen([sys.executable, str(script), router, handler], cwd=tmp_path,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env={**os.environ, "TEST_MARKERS": str(markers), "TORUS_LAB_TEST_TAG": tag})
    run.wait_for("simulating")
    time.sleep(1.0)  # well inside the compiled loop
    sent = time.monotonic()
    status, err = run.stop(signum)
    if handler == "default" and signum == signal.SIGTERM:
        assert status == -signal.SIGTERM, err
        return
    assert status == 130, err
    stopped = [line.split() for line in err.splitlines() if line.startswith("stopped ")]
    assert stopped and stopped[-1][1] == ("Interrupted" if handler == "handler" else "KeyboardInterrupt"), err
    latency = float(stopped[-1][2]) - sent
    print(f"{router}: {signal.Signals(signum).name} answered after {latency:.3f} s")
    assert 0 <= latency < 30, err  # unchunked, the loop would run for hours before Python saw the signal
    run.assert_no_process_left()


EXPLORER_SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from torus_lab.explore.latency import LatencyQuery, LatencyRun

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as from a terminal (see SWEEP_SCRIPT)

    def on_update(run):
        Path(os.environ["TEST_MARKERS"], f"points-{run.done}").write_text("")

    if __name__ == "__main__":
        loads = tuple(round(0.01 * i, 2) for i in range(1, 61))
        query = LatencyQuery(routings=("duato",), n=2, k=4, loads=loads, seeds=4, warmup=200, measure=3000)
        run = LatencyRun(query, backend="processes", batch=2, on_update=on_update).start()
        try:
            while True:  # the main thread stays free, as a kernel's does
                time.sleep(0.1)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            sys.exit(130)
""")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_an_explorer_s_background_run_ends_with_its_process(tmp_path, signum):
    """The latency explorer's background run (a thread waiting on sweep workers): Ctrl-C ends the process, which
    cancels the run on its way out; SIGTERM ends it without cleanup and the workers follow their parent.  No
    traceback either way, and no process left."""
    script = tmp_path / "explore.py"
    script.write_text(EXPLORER_SCRIPT)
    markers = tmp_path / "markers"
    markers.mkdir()
    run = Run.__new__(Run)  # the same bookkeeping, another command
    run.tag, run.markers = uuid.uuid4().hex, markers
    run.process = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True,
                                   env={**os.environ, "TEST_MARKERS": str(markers), "TORUS_LAB_TEST_TAG": run.tag,
                                        "TORUS_LAB_CACHE": "off"})  # fmt: skip
    run.wait_for("points-")
    status, err = run.stop(signum)
    assert status == (130 if signum == signal.SIGINT else -signal.SIGTERM), err
    assert "Traceback" not in err, err
    run.assert_no_process_left()
    assert len(list(markers.glob("points-*"))) < 120  # it stopped well before the 240 points asked for


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def start_explore_app(tmp_path, port: int, notebook: Path | None = None) -> Run:
    """``torus-lab explore --port PORT [--notebook NOTEBOOK]`` in its own session, once it listens."""
    args = ["explore", "--port", str(port)] + (["--notebook", str(notebook)] if notebook else [])
    run = Run(ROOT, tmp_path / "markers", args)
    deadline = time.monotonic() + READY_WAIT_S
    while not _listening(port):
        assert run.process.poll() is None, f"the app ended early: {run.process.communicate()}"
        assert time.monotonic() < deadline, f"the app did not listen on port {port} within {READY_WAIT_S} s"
        time.sleep(0.2)
    return run


def one_widget_notebook(folder: Path) -> Path:
    """A notebook of the project's kernel that shows one widget: what the command, Voilà and a visitor's kernel do
    with a signal does not depend on what the notebook computes (the explorers themselves are served and driven
    in Chromium by ``test_explore_app.py``)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "torus-lab", "display_name": "Python (torus_lab)", "language": "python"}
    nb.cells = [new_code_cell("import ipywidgets\nipywidgets.IntSlider(value=3, description='ready')")]
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / "widget.ipynb")
    return folder / "widget.ipynb"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_stops_the_app_and_its_kernel(tmp_path, signum):
    """A visitor's page has started a kernel; the signal ends the command, Voilà and the kernel."""
    port = free_port()
    run = start_explore_app(tmp_path, port, one_widget_notebook(tmp_path / "notebook"))
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=READY_WAIT_S) as response:  # runs the notebook
        page = response.read().decode()
    assert "widget-view" in page
    assert len(run.processes()) >= 3, "the command, Voila and the notebook's kernel"
    assert_clean_stop(*run.stop(signum), signum)
    run.assert_no_process_left()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_stopped_site_build_leaves_the_earlier_site_and_no_temporary_folder(tmp_path, signum):
    """``torus-lab site`` stopped while Sphinx reads the pages: Sphinx ends with it, the temporary folder it was
    building into goes, and the earlier site is byte-identical."""
    out, html = tmp_path / "out", tmp_path / "html"
    out.mkdir()
    (html / "_static").mkdir(parents=True)
    (html / "index.html").write_text("<p>the earlier site</p>")
    (html / "_static" / "style.css").write_text("p {}")
    before = snapshot(html)
    run = Run(ROOT, tmp_path / "markers", ["site", "--out", str(out), "--html", str(html)])
    deadline = time.monotonic() + READY_WAIT_S
    while not list(tmp_path.glob(".site-*/doctrees")):  # Sphinx has started reading
        assert run.process.poll() is None, f"the build ended early: {run.process.communicate()}"
        assert time.monotonic() < deadline, f"Sphinx did not start within {READY_WAIT_S} s"
        time.sleep(0.05)
    assert len(run.processes()) >= 2, "the command and Sphinx"
    assert_clean_stop(*run.stop(signum), signum)
    run.assert_no_process_left()
    assert snapshot(html) == before
    assert not list(tmp_path.glob(".site-*"))
    assert lock_holder(out) is None
