"""The latency explorer's model (query -> sweep items, points -> figure data, cancel) and its widgets."""

from __future__ import annotations

import html
import threading

import numpy as np
import pandas as pd
import pytest

from torus_lab.explore import latency_explorer
from torus_lab.explore.latency import FigureData, LatencyQuery, LatencyRun, figure_data, latency_figure
from torus_lab.sim import SimConfig
from torus_lab.studies.routing_bench import latency_runs

#: A query that runs in seconds: a 4x4 torus, short simulations.
TINY = dict(routings=("ecube", "duato"), n=2, k=4, loads=(0.1, 0.2, 0.3), seeds=2, warmup=20, measure=60)


def test_setting_widget_values_changes_the_sweep_items():
    explorer = latency_explorer(["ecube"], k=4, loads=[0.1, 0.2], seeds=1)
    before = explorer.query().items()
    assert {(i["radix"], i["dims"]) for i in before} == {(4, 2)} and len(before) == 2
    c = explorer.controls
    c["k"].value, c["n"].value, c["seeds"].value, c["points"].value = 6, 3, 2, 5
    c["loads"].value = (0.05, 0.45)
    c["routings"].value = ("ecube", "duato")
    c["traffic"].value, c["injection"].value = "tornado", "on-off"
    items = explorer.query().items()
    assert {(i["radix"], i["dims"]) for i in items} == {(6, 3)}
    assert len(items) == 2 * 5 * 2  # routings x loads x seeds
    assert sorted({i["load"] for i in items}) == [0.05, 0.15, 0.25, 0.35, 0.45]
    assert {i["routing"]["name"] for i in items} == {"ecube", "duato"}
    assert {(i["config"]["traffic"], i["config"]["injection"]) for i in items} == {("tornado", "on-off")}
    c["preset"].value, c["router"].value = "booksim", "booksim"
    config = explorer.query().items()[0]["config"]
    assert config["router"] == "booksim" and config["channel_latency"] == 2


def test_items_run_through_the_one_pipeline_and_match_a_full_sweep():
    """A point measured by the explorer, batch by batch, is the point a full sweep of the items gives."""
    query = LatencyQuery(**TINY)
    run = LatencyRun(query, backend="serial").start()
    assert run.wait(600) and run.state == "done" and run.done == run.total == len(query.items())
    full = latency_runs(query.items(), seed=query.seed, backend="serial", progress=False)
    columns = ["label", "offered_load", "replica", "mean_latency", "accepted_throughput", "sim_seed"]
    pd.testing.assert_frame_equal(run.runs()[columns], full[columns])


def test_points_arriving_update_the_figure_data():
    seen: list[FigureData] = []
    query = LatencyQuery(**TINY)
    run = LatencyRun(query, backend="serial", batch=2, on_update=lambda r: seen.append(r.figure_data())).start()
    assert run.wait(600) and run.state == "done"
    measured = [int(data.curves.runs.sum()) if len(data.curves) else 0 for data in seen]
    assert measured == sorted(measured) and measured[0] == 2 and measured[-1] == run.total
    last = seen[-1]
    assert set(last.curves.label) == {"ecube", "duato"} and set(last.curves.runs) == {2}
    assert np.isfinite(last.curves.mean_latency_low).all()  # two replicas: an interval at every point
    assert set(last.saturation.label) == {"ecube", "duato"}
    fig = latency_figure(last)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("offered load")
    assert len(ax.collections) >= 2  # one band per curve
    assert latency_figure(figure_data(pd.DataFrame(), query.labels)) is None  # nothing to draw yet


def test_figure_data_marks_saturation_where_throughput_falls_short():
    runs = pd.DataFrame({"label": "a", "offered_load": [0.1, 0.2, 0.3], "mean_latency": [10.0, 20.0, 90.0],
                         "accepted_throughput": [0.1, 0.2, 0.22], "generated_throughput": [0.1, 0.2, 0.3],
                         "deadlock": False, "seed": 1})  # fmt: skip
    data = figure_data(runs, ["a"])
    assert data.saturation.saturation_load.tolist() == [0.2]
    fig = latency_figure(data)
    assert [line.get_xdata().tolist() for line in fig.axes[0].get_lines()] == [[0.1, 0.2]]   # stops at saturation
    rings = [c.get_offsets().tolist() for c in fig.axes[0].collections if len(c.get_offsets()) and
             len(c.get_facecolors()) == 0]
    assert rings == [[[0.2, 20.0]]]                                                          # and rings it


def test_cancel_stops_within_a_batch_and_keeps_the_points():
    query = LatencyQuery(**{**TINY, "loads": tuple(round(0.05 * i, 2) for i in range(1, 9))})
    first = threading.Event()

    def on_update(run: LatencyRun) -> None:
        if not first.is_set():
            first.set()
            run.cancel()

    run = LatencyRun(query, backend="serial", batch=1, on_update=on_update).start()
    assert run.wait(600)
    assert run.state == "cancelled" and 1 <= run.done <= 2 < run.total  # the batch under way, at most one more
    assert len(run.figure_data().curves) >= 1  # what was measured stays drawn
    assert not run._thread.is_alive()
    again = LatencyRun(LatencyQuery(**{**TINY, "loads": (0.1,), "seeds": 1}), backend="serial").start()
    assert again.wait(600) and again.state == "done"  # the process is usable after a cancel


@pytest.mark.parametrize(("change", "message"), [
    ({"preset": "booksim"}, "simple"),
    ({"traffic": "bit-reverse", "k": 6}, "bit-reverse"),
    ({"traffic": "asymmetric", "n": 1, "k": 3}, "even number of nodes"),
    ({"routings": ()}, "routings"),
])  # fmt: skip
def test_bad_input_shows_the_api_s_message_before_any_work(change, message):
    explorer = latency_explorer(["ecube"], k=4)
    c = explorer.controls
    for key, value in change.items():
        c[key].value = value
    with pytest.raises((ValueError, TypeError), match=message):
        explorer.query()
    assert explorer.run() is None and explorer.current is None  # nothing started
    assert "color:#b00020" in explorer.status.value and "Traceback" not in explorer.status.value


def test_a_query_names_the_bad_routing_with_the_registry_s_message():
    with pytest.raises(ValueError, match="routings\\[1\\]: .*unknown routing 'nope'"):
        LatencyQuery(routings=("ecube", "nope"))
    with pytest.raises(ValueError, match="same routing twice"):
        LatencyQuery(routings=("ecube", {"name": "ecube"}))


def test_the_widget_message_is_the_api_s_own():
    """The simple router with the booksim preset: the status line shows SimConfig's own message, escaped."""
    from torus_lab.sim.config import PRESETS
    from torus_lab.studies.routing_bench import CURVE_CONFIG

    fields = {**CURVE_CONFIG, **PRESETS["booksim"], "router": "simple", "traffic": "uniform",
              "injection": "bernoulli", "warmup": 500, "measure": 1500, "offered_load": 0.4}  # fmt: skip
    with pytest.raises(ValueError) as api:
        SimConfig.from_mapping(fields)
    explorer = latency_explorer(["ecube"], k=4)
    explorer.controls["preset"].value = "booksim"
    assert explorer.run() is None
    assert html.escape(str(api.value)) in explorer.status.value


def test_the_explorer_runs_in_the_background_and_draws_as_points_arrive():
    explorer = latency_explorer(**{**TINY, "routings": ["ecube"]}, backend="serial")
    run = explorer.run()
    assert run is not None and explorer.cancel_button.disabled is False
    assert explorer.run() is None and "cancel it first" in explorer.status.value  # one run at a time
    assert run.wait(600) and run.state == "done"
    assert explorer.progress.value == explorer.progress.max == run.total
    assert explorer.image.value[:4] == b"\x89PNG" and explorer.run_button.disabled is False
    assert f"{run.total} of {run.total}" in explorer.status.value


def test_a_failing_run_is_reported_in_the_status_line(monkeypatch):
    import torus_lab.explore.latency as latency

    def broken(*args, **kwargs):
        raise RuntimeError("simulator exploded")

    monkeypatch.setattr(latency, "latency_runs", broken)
    explorer = latency_explorer(["ecube"], k=4, backend="serial")
    run = explorer.run()
    assert run.wait(60) and run.state == "failed" and "simulator exploded" in run.error
    assert "simulator exploded" in explorer.status.value and explorer.run_button.disabled is False


@pytest.mark.notebook
def test_in_a_kernel_cells_run_while_the_explorer_sweeps_and_its_figure_arrives():
    """A real kernel: a cell started while the explorer runs is answered before the run ends, and the run's
    widgets (progress, figure) are filled from its thread."""
    import os

    from jupyter_client.manager import start_new_kernel

    from torus_lab.runner import ensure_kernel

    km, kc = start_new_kernel(kernel_name=ensure_kernel(), env={**os.environ, "TORUS_LAB_CACHE": "off"})
    printed: list[str] = []

    def execute(code: str) -> str:
        printed.clear()
        reply = kc.execute_interactive(code, timeout=600, output_hook=lambda msg: printed.append(
            msg["content"].get("text", "")))  # fmt: skip
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(printed).strip()

    try:
        execute("from torus_lab.explore import latency_explorer\n"
                "ex = latency_explorer(['duato'], n=2, k=4, loads=[0.1, 0.2, 0.3, 0.4], seeds=3, warmup=100,"
                " measure=3000, backend='serial')\n"
                "ex.controls['seeds'].value = 1\n"  # warm: compile once before timing anything
                "ex.controls['points'].value = 1\n"
                "ex.run().wait()")
        execute("ex.controls['seeds'].value = 3\nex.controls['points'].value = 4\nrun = ex.run()")
        assert execute("print(run.state, 6 * 7)") in ("running 42", "done 42")
        assert execute("print(run.wait(600), run.state, ex.progress.value, len(ex.image.value) > 0)") == (
            "True done 12 True")  # fmt: skip
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_kernel_interrupt_cancels_the_run_and_keeps_its_points():
    """SIGINT to the process while the kernel is idle (ipykernel ignores SIGINT then: SIG_IGN) cancels the run as
    Cancel does: it ends cancelled after the batch under way, says the interrupt cancelled it, the points measured
    stay drawn, and the process is not interrupted otherwise (an idle kernel ignores the signal still)."""
    import os
    import signal
    import time

    query = LatencyQuery(**{**TINY, "routings": ("ecube",), "loads": tuple(round(0.05 * i, 2) for i in range(1, 13))})
    original = signal.signal(signal.SIGINT, signal.SIG_IGN)  # an idle kernel's handler
    try:
        explorer = latency_explorer(["ecube"], backend="serial")
        explorer.controls["k"].value, explorer.controls["loads"].value = 4, (0.05, 0.6)
        explorer.controls["points"].value, explorer.controls["seeds"].value = 12, 2
        explorer.controls["warmup"].value, explorer.controls["measure"].value = 20, 60
        run = explorer.run()
        assert run is not None and run.query == query
        deadline = time.monotonic() + 600
        while explorer.progress.value < 1 and time.monotonic() < deadline:  # the first point is drawn
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)  # what the kernel manager sends on Interrupt
        assert run.wait(600)
        assert run.state == "cancelled" and run.interrupted and 1 <= run.done < run.total
        assert "cancelled by the kernel's interrupt" in html.unescape(explorer.status.value)
        assert explorer.image.value[:4] == b"\x89PNG"  # the partial points stay drawn
        assert len(run.figure_data().curves) >= 1
        again = LatencyRun(LatencyQuery(**{**TINY, "loads": (0.1,), "seeds": 1}), backend="serial").start()
        assert again.wait(600) and again.state == "done" and not again.interrupted  # no interrupt left behind
    finally:
        signal.signal(signal.SIGINT, original)


def test_a_cell_ending_in_keyboard_interrupt_cancels_the_run():
    """A cell interrupted while it runs (ipykernel raises KeyboardInterrupt in it) cancels the run too: the IPython
    ``post_run_cell`` callback of torus_lab.kernel_interrupt hears it."""
    from types import SimpleNamespace

    from torus_lab.kernel_interrupt import _post_run_cell

    query = LatencyQuery(**{**TINY, "loads": tuple(round(0.05 * i, 2) for i in range(1, 9))})
    first = threading.Event()
    run = LatencyRun(query, backend="serial", batch=1, on_update=lambda r: first.set()).start()
    assert first.wait(600)
    _post_run_cell(SimpleNamespace(error_in_exec=ValueError("not an interrupt")))
    _post_run_cell(SimpleNamespace(error_in_exec=KeyboardInterrupt()))
    assert run.wait(600) and run.state == "cancelled" and run.interrupted and run.done < run.total


@pytest.mark.notebook
def test_in_a_kernel_the_interrupt_button_cancels_the_run():
    """A real kernel, interrupted as JupyterLab's Interrupt button does (the kernel manager's ``interrupt_kernel``):
    while idle, and while a cell runs.  Each time the run going ends cancelled with its points kept."""
    import os
    import time

    from jupyter_client.manager import start_new_kernel

    from torus_lab.runner import ensure_kernel

    km, kc = start_new_kernel(kernel_name=ensure_kernel(), env={**os.environ, "TORUS_LAB_CACHE": "off"})

    def execute(code: str) -> str:
        printed: list[str] = []
        reply = kc.execute_interactive(code, timeout=600, output_hook=lambda msg: printed.append(
            msg["content"].get("text", "")))  # fmt: skip
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(printed).strip()

    start = ("from torus_lab.explore.latency import LatencyQuery, LatencyRun\n"
             "q = LatencyQuery(routings=['ecube'], n=2, k=8, loads=[round(0.02 * i, 2) for i in range(1, 41)],"
             " seeds=10, warmup=50, measure=50000)\n"  # minutes of items: still running when interrupted
             "run = LatencyRun(q, backend='serial', batch=1).start()\n")  # fmt: skip
    wait_first = "import time\nwhile run.done < 1 and run.state == 'running': time.sleep(0.02)\n"
    report = "print(run.wait(600), run.state, run.interrupted, 1 <= run.done < run.total, len(run.runs()) == run.done)"
    try:
        execute(start + wait_first)
        km.interrupt_kernel()  # the kernel is idle: SIGINT
        assert execute(report) == "True cancelled True True True"
        execute(start + wait_first)
        # a cell running when the button is pressed; its KeyboardInterrupt must not make the kernel abort the requests
        # that follow (ipykernel aborts requests arriving right after a failed cell unless told not to)
        msg_id = kc.execute("time.sleep(120)", stop_on_error=False)
        time.sleep(0.5)
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=60)
        assert reply["parent_header"]["msg_id"] == msg_id and reply["content"]["ename"] == "KeyboardInterrupt"
        assert execute(report) == "True cancelled True True True"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
