"""The sweep helper: per-item seeds, identical results whatever the backend (serial, processes, Dask)."""

from __future__ import annotations

import numpy as np
import pytest

from torus_lab.sweep import grid, item_seeds, sweep, sweep_frame
from torus_lab.topology import Torus, random_node_faults


def faulty_fraction(radix: int, rate: float, rng: np.random.Generator) -> dict[str, float]:
    """A small seeded computation: draw faults, report which nodes failed and a random number."""
    torus = Torus(2, radix)
    faults = random_node_faults(torus, rate=rate, seed=rng)
    return {"faulty": sorted(faults.nodes), "draw": float(rng.random())}


ITEMS = grid(radix=[4, 5, 6], rate=[0.1, 0.3])


def test_grid_order_and_validation():
    assert len(ITEMS) == 6 and ITEMS[0] == {"radix": 4, "rate": 0.1} and ITEMS[1] == {"radix": 4, "rate": 0.3}
    with pytest.raises(TypeError, match="axis 'radix'"):
        grid(radix=4)


def test_item_seeds_are_independent_and_reproducible():
    first = [np.random.default_rng(s).random() for s in item_seeds(3, 4)]
    again = [np.random.default_rng(s).random() for s in item_seeds(3, 4)]
    assert first == again and len(set(first)) == 4
    with pytest.raises(TypeError, match="seed"):
        item_seeds(-1, 2)


def test_serial_results_depend_on_seed():
    a = sweep(faulty_fraction, ITEMS, seed=1, backend="serial")
    assert a == sweep(faulty_fraction, ITEMS, seed=1, backend="serial")
    assert a != sweep(faulty_fraction, ITEMS, seed=2, backend="serial")


def test_processes_match_serial():
    serial = sweep(faulty_fraction, ITEMS, seed=11, backend="serial")
    assert sweep(faulty_fraction, ITEMS, seed=11, backend="processes", workers=2) == serial


@pytest.mark.slow
def test_dask_local_cluster_matches_serial():
    from dask.distributed import Client, LocalCluster

    serial = sweep(faulty_fraction, ITEMS, seed=11, backend="serial")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert sweep(faulty_fraction, ITEMS, seed=11, scheduler=client) == serial
            assert sweep(faulty_fraction, ITEMS, seed=11, scheduler=cluster.scheduler_address) == serial


def test_environment_selects_backend(monkeypatch):
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    assert sweep(faulty_fraction, ITEMS[:2], seed=4) == sweep(faulty_fraction, ITEMS[:2], seed=4, backend="processes")
    monkeypatch.setenv("TORUS_LAB_BACKEND", "gpu")
    with pytest.raises(ValueError, match="TORUS_LAB_BACKEND must be one of"):
        sweep(faulty_fraction, ITEMS, seed=4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="backend must be one of"):
        sweep(faulty_fraction, ITEMS, seed=1, backend="threads")
    with pytest.raises(TypeError, match="callable"):
        sweep(3, ITEMS, seed=1)
    with pytest.raises(ValueError, match="workers"):
        sweep(faulty_fraction, ITEMS, seed=1, backend="processes", workers=0)


def test_sweep_frame_has_parameters_and_results():
    frame = sweep_frame(faulty_fraction, ITEMS, seed=3, backend="serial")
    assert list(frame.columns) == ["radix", "rate", "faulty", "draw"]
    assert (frame["faulty"].map(len) == [round(r * k * k) for k, r in zip(frame.radix, frame.rate, strict=True)]).all()
