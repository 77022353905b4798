"""The sweep helper: content-keyed item seeds, identical results whatever the backend (serial, processes, Dask),
and the on-disk result cache (hits, misses after a code change, --no-cache)."""

from __future__ import annotations

import importlib
import os
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab import sweep as sweep_module
from torus_lab.sweep import clear_cache, grid, item_key, item_seed, sweep, sweep_frame
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


def test_item_seed_depends_on_seed_and_content_only():
    draws = {key: np.random.default_rng(item_seed(3, {"k": key})).random() for key in range(4)}
    assert len(set(draws.values())) == 4
    assert draws[2] == np.random.default_rng(item_seed(3, {"k": np.int64(2)})).random()
    assert item_seed(3, {"a": 1, "b": [1, 2]}).entropy == item_seed(3, {"b": (1, 2), "a": 1}).entropy
    assert item_seed(3, {"k": 1}).entropy != item_seed(4, {"k": 1}).entropy
    with pytest.raises(TypeError, match="seed"):
        item_seed(-1, {"k": 1})
    with pytest.raises(TypeError, match="item.k"):
        item_seed(1, {"k": object()})
    with pytest.raises(ValueError, match="not finite"):
        item_key({"load": float("nan")})


@settings(max_examples=25, deadline=None)
@given(st.permutations(list(range(6))), st.integers(0, 5))
def test_adding_removing_or_reordering_items_keeps_other_results(order, dropped):
    """The seed rule: an item's result depends on the seed and its own content, not on the rest of the grid."""
    items = [{"radix": 4 + i % 3, "rate": 0.1 * (1 + i // 3)} for i in range(6)]
    full = dict(zip(map(item_key, items), sweep(faulty_fraction, items, seed=5, backend="serial"), strict=True))
    changed = [items[i] for i in order if i != dropped] + [{"radix": 7, "rate": 0.2}]
    again = sweep(faulty_fraction, changed, seed=5, backend="serial")
    for item, result in zip(changed, again, strict=True):
        if item_key(item) in full:
            assert result == full[item_key(item)]


def test_serial_results_depend_on_seed():
    a = sweep(faulty_fraction, ITEMS, seed=1, backend="serial")
    assert a == sweep(faulty_fraction, ITEMS, seed=1, backend="serial")
    assert a != sweep(faulty_fraction, ITEMS, seed=2, backend="serial")


def test_processes_match_serial():
    serial = sweep(faulty_fraction, ITEMS, seed=11, backend="serial")
    assert sweep(faulty_fraction, ITEMS, seed=11, backend="processes", workers=2) == serial


def worker_pid(index: int, rng: np.random.Generator) -> int:  # noqa: ARG001 (a sweep function takes rng)
    """The process that ran the item."""
    import os

    return os.getpid()


def test_process_pool_workers_outlive_a_sweep_until_the_code_changes(monkeypatch):
    """The next sweep reuses the workers (numba kernels stay loaded); a changed package starts new ones."""
    import os

    items = grid(index=list(range(8)))
    first = set(sweep(worker_pid, items, seed=1, backend="processes", workers=2))
    pool = {process.pid for process in sweep_module._process_pool(2)._processes.values()}  # loky's worker table
    second = set(sweep(worker_pid, items, seed=2, backend="processes", workers=2))
    # a fresh pool per sweep would run the second sweep on new processes; on a busy machine one worker may take
    # every item of a sweep, so the two sweeps need not share a worker, but both run on the pool's workers
    assert os.getpid() not in first and first | second <= pool
    state = sweep_module._package_files_state()
    monkeypatch.setattr(sweep_module, "_package_files_state", lambda: (*state, ("edited.py", 1, 1)))
    third = set(sweep(worker_pid, items, seed=3, backend="processes", workers=2))
    assert not third & (first | second)


def warns_about(index: int, rng: np.random.Generator) -> int:  # noqa: ARG001 (a sweep function takes rng)
    """Warn once, naming the item."""
    import warnings

    warnings.warn(f"item {index} is odd", UserWarning, stacklevel=1)
    return index


@pytest.mark.parametrize("backend", ["serial", "processes"])
def test_warnings_of_the_items_reach_the_caller(backend):
    """A worker's warnings are shown by the calling process (a notebook's output), not lost on the workers' stderr."""
    items = grid(index=[1, 2, 3])
    with pytest.warns(UserWarning) as caught:
        assert sweep(warns_about, items, seed=1, backend=backend, workers=2, cache=False) == [1, 2, 3]
    assert sorted(str(w.message) for w in caught) == ["item 1 is odd", "item 2 is odd", "item 3 is odd"]


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


def test_environment_sets_the_default_workers(monkeypatch):
    seen = []
    monkeypatch.setattr(sweep_module, "_run_processes", lambda jobs, results, workers, advance: seen.append(workers))
    monkeypatch.setenv("TORUS_LAB_WORKERS", "3")
    sweep(faulty_fraction, ITEMS, seed=4, backend="processes")
    sweep(faulty_fraction, ITEMS, seed=4, backend="processes", workers=5)  # an argument wins
    monkeypatch.delenv("TORUS_LAB_WORKERS")
    sweep(faulty_fraction, ITEMS, seed=4, backend="processes")
    assert seen == [3, 5, os.cpu_count()]
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv("TORUS_LAB_WORKERS", bad)
        with pytest.raises(ValueError, match=f"TORUS_LAB_WORKERS must be a positive integer, got '{bad}'"):
            sweep(faulty_fraction, ITEMS, seed=4, backend="processes")
    assert sweep(faulty_fraction, ITEMS[:1], seed=4, backend="serial")  # the serial backend has no workers


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


# ---------------------------------------------------------------------- cache
MODULE_SOURCE = """
import numpy as np

CALLS = []
OFFSET = {offset}


def noisy(k, rng):
    CALLS.append(k)
    return {{"value": OFFSET + k + float(rng.random())}}
"""


def _write_module(folder, offset):
    path = folder / "cache_probe_module.py"
    path.write_text(textwrap.dedent(MODULE_SOURCE.format(offset=offset)))
    sys.modules.pop("cache_probe_module", None)
    importlib.invalidate_caches()
    return importlib.import_module("cache_probe_module")


@pytest.fixture
def probe_folder(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("cache_probe_module", None)


def test_cache_hits_skip_work_and_return_the_same_result(probe_folder):
    module = _write_module(probe_folder, 0)
    cache = probe_folder / "cache"
    items = grid(k=[1, 2, 3])
    first = sweep(module.noisy, items, seed=9, backend="serial", cache=cache)
    assert module.CALLS == [1, 2, 3]
    again = sweep(module.noisy, items + [{"k": 4}], seed=9, backend="serial", cache=cache)
    assert module.CALLS == [1, 2, 3, 4] and again[:3] == first
    assert sweep(module.noisy, items, seed=10, backend="serial", cache=cache) != first  # the seed is in the key
    assert module.CALLS[4:] == [1, 2, 3]
    assert clear_cache(cache) > 0
    sweep(module.noisy, items, seed=9, backend="serial", cache=cache)
    assert module.CALLS[7:] == [1, 2, 3]


def test_a_code_change_never_returns_an_old_result(probe_folder):
    cache = probe_folder / "cache"
    old = sweep(_write_module(probe_folder, 0).noisy, grid(k=[1]), seed=9, backend="serial", cache=cache)
    module = _write_module(probe_folder, 100)
    new = sweep(module.noisy, grid(k=[1]), seed=9, backend="serial", cache=cache)
    assert module.CALLS == [1] and new[0]["value"] == pytest.approx(old[0]["value"] + 100)


def test_package_code_is_part_of_the_key(probe_folder, monkeypatch):
    module = _write_module(probe_folder, 0)
    cache = probe_folder / "cache"
    sweep(module.noisy, grid(k=[1]), seed=9, backend="serial", cache=cache)
    monkeypatch.setattr(sweep_module, "_package_digest", lambda: "another version of torus_lab")
    sweep(module.noisy, grid(k=[1]), seed=9, backend="serial", cache=cache)
    assert module.CALLS == [1, 1]


def test_cache_off_and_untraceable_functions_are_not_cached(probe_folder, monkeypatch):
    module = _write_module(probe_folder, 0)
    monkeypatch.setenv("TORUS_LAB_CACHE", "off")
    sweep(module.noisy, grid(k=[1]), seed=9, backend="serial")
    sweep(module.noisy, grid(k=[1]), seed=9, backend="serial")
    assert module.CALLS == [1, 1]
    monkeypatch.setenv("TORUS_LAB_CACHE", str(probe_folder / "cache"))
    assert sweep_module.code_digest(lambda k, rng: k) is None
    assert sweep_module.code_digest(module.noisy) is not None


def test_cached_results_are_identical_across_backends(probe_folder):
    cache = probe_folder / "cache"
    serial = sweep(faulty_fraction, ITEMS, seed=11, backend="serial", cache=cache)
    assert sweep(faulty_fraction, ITEMS, seed=11, backend="processes", workers=2, cache=cache) == serial
    assert sweep(faulty_fraction, ITEMS, seed=11, backend="processes", workers=2) == serial


def records_and_arrays(n: int, rng: np.random.Generator) -> dict:
    """A result of the shapes studies return: records with mixed values, an array, a frame."""
    import pandas as pd

    draws = rng.random(n)
    return {"rows": [{"i": i, "name": f"r{i}", "x": float(draws[i]), "none": None} for i in range(n)],
            "array": draws, "frame": pd.DataFrame({"x": draws, "label": [f"l{i}" for i in range(n)]})}


def test_a_stored_result_loads_equal_to_the_computed_one(tmp_path):
    import pandas as pd

    cache = tmp_path / "cache"
    computed = sweep(records_and_arrays, grid(n=[3, 5]), seed=4, backend="serial", cache=cache)
    loaded = sweep(records_and_arrays, grid(n=[3, 5]), seed=4, backend="serial", cache=cache)
    uncached = sweep(records_and_arrays, grid(n=[3, 5]), seed=4, backend="serial", cache=False)
    for a, b, c in zip(computed, loaded, uncached, strict=True):
        assert a["rows"] == b["rows"] == c["rows"]
        assert np.array_equal(a["array"], b["array"]) and np.array_equal(b["array"], c["array"])
        pd.testing.assert_frame_equal(b["frame"], c["frame"])
    assert list((cache / "joblib").rglob("output.pkl"))  # the second sweep read what the first stored
