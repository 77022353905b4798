"""A latency-load sweep on a real Dask cluster: a ``dask scheduler`` and two ``dask worker`` processes started from
the command line (as on a multi-machine cluster, here on 127.0.0.1 with ports the system picks), reached through
``torus_lab.sweep`` by address and by ``TORUS_LAB_SCHEDULER``: the rows equal the serial sweep's.

Every process the test starts runs in its own session and is ended by its process group, also when the test
fails; the waits are generous, they only end a test that hangs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from torus_lab.studies.routing_bench import latency_point
from torus_lab.sweep import grid, sweep

pytestmark = pytest.mark.slow

#: Seconds the cluster gets to come up (imports of the scheduler and two workers on a busy machine).
START_WAIT_S = 180
#: Seconds a process gets to end after SIGTERM before it is killed.
STOP_WAIT_S = 20

#: A small latency-load sweep on the 4096-node 16-ary 3-cube: three loads, short runs.
ITEMS = grid(routing=[{"name": "ecube", "datelines": True, "vcs": 2}], dims=[3], radix=[16], load=[0.05, 0.1, 0.2],
             config=[{"warmup": 100, "measure": 200, "drain": 2000}])  # fmt: skip


def _dask_command() -> str:
    """The ``dask`` command of the running interpreter's environment."""
    command = Path(sys.executable).with_name("dask")
    if not command.exists():
        pytest.skip("the dask command line is not installed")
    return str(command)


def _start(args: list[str], log: Path) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, "TORUS_LAB_SCHEDULER": ""})  # fmt: skip


def _stop(process: subprocess.Popen) -> None:
    """End ``process`` and its process group (a worker's nanny and its worker): SIGTERM, then SIGKILL."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_WAIT_S)
            return
        except subprocess.TimeoutExpired:
            continue


def _scheduler_address(file: Path, scheduler: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + START_WAIT_S
    while True:
        assert scheduler.poll() is None, f"the scheduler ended: {log.read_text()}"
        try:
            return json.loads(file.read_text())["address"]
        except (OSError, ValueError, KeyError):
            assert time.monotonic() < deadline, f"no scheduler address after {START_WAIT_S} s: {log.read_text()}"
            time.sleep(0.2)


@pytest.fixture
def cluster(tmp_path) -> Iterator[str]:
    """The address of a scheduler with two single-threaded workers, each its own ``dask`` process."""
    from dask.distributed import Client

    dask = _dask_command()
    file = tmp_path / "scheduler.json"
    processes = []
    try:
        processes.append(_start([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(file)], tmp_path / "scheduler.log"))  # fmt: skip
        address = _scheduler_address(file, processes[0], tmp_path / "scheduler.log")
        for i in range(2):
            processes.append(_start([dask, "worker", address, "--host", "127.0.0.1", "--nworkers", "1",
                                     "--nthreads", "1", "--no-dashboard", "--name", f"worker-{i}"],
                                    tmp_path / f"worker-{i}.log"))  # fmt: skip
        with Client(address, timeout=START_WAIT_S) as client:
            client.wait_for_workers(2, timeout=START_WAIT_S)
        yield address
    finally:
        for process in reversed(processes):
            _stop(process)
        for process in processes:
            assert process.poll() is not None


def _frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def test_a_latency_sweep_on_a_dask_cluster_equals_the_serial_one(cluster, monkeypatch):
    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)
    serial = _frame(sweep(latency_point, ITEMS, seed=7, backend="serial", cache=False))
    by_address = _frame(sweep(latency_point, ITEMS, seed=7, scheduler=cluster, cache=False))
    monkeypatch.setenv("TORUS_LAB_SCHEDULER", cluster)  # the one line a user changes to use a cluster
    # the same route to the cluster (what the address leads to is compared above): its lightest item suffices
    by_environment = _frame(sweep(latency_point, ITEMS[:1], seed=7, cache=False))
    assert len(serial) == len(ITEMS) and (serial["delivered"] > 0).all() and not serial["deadlock"].any()
    assert (serial["topology"] == "Torus(3, 16)").all()  # 4096 nodes
    pd.testing.assert_frame_equal(by_address, serial)
    pd.testing.assert_frame_equal(by_environment, serial.iloc[:1])
