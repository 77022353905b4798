"""The routing bench (torus_lab.studies.routing_bench) and the bring-your-own-routing study."""

from __future__ import annotations

import math

import numba
import numpy as np
import pandas as pd
import pytest
import yaml

from torus_lab import runner
from torus_lab.plots import bring_your_own_routing as plots_byo
from torus_lab.routing import register_routing, unregister_routing
from torus_lab.sim.saturation import Saturation, saturation_table
from torus_lab.studies import bring_your_own_routing as byo
from torus_lab.studies import routing_bench as rb

ECUBE = {"name": "ecube", "datelines": True, "vcs": 2}


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)


def _runs(accepted, generated, deadlock=None, latency=None):
    n = len(accepted)
    return pd.DataFrame({"routing": ["a"] * n, "offered_load": [0.1 * (i + 1) for i in range(n)],
                         "replica": [0] * n, "accepted_throughput": accepted, "generated_throughput": generated,
                         "mean_latency": latency or [10.0] * n, "deadlock": deadlock or [False] * n, "seed": [1] * n})


def test_bench_saturation_is_accepted_over_generated_at_95_percent():
    assert rb.SATURATION == Saturation(accept_ratio=0.95, latency_factor=None)
    exactly = rb.saturation_by_routing(_runs([0.095, 0.19], [0.1, 0.2]))          # exactly at 95%
    assert exactly.saturation_load.tolist() == [pytest.approx(0.2)]
    below = rb.saturation_by_routing(_runs([0.1, 0.19 - 1e-6], [0.1, 0.2]))        # just below at 0.2
    assert below.saturation_load.tolist() == [pytest.approx(0.1)]
    slow = rb.saturation_by_routing(_runs([0.1, 0.2], [0.1, 0.2], latency=[10.0, 1e6]))  # no latency test
    assert slow.saturation_load.tolist() == [pytest.approx(0.2)]
    dead = rb.saturation_by_routing(_runs([0.1, 0.2], [0.1, 0.2], deadlock=[True, False]))
    assert math.isnan(dead.saturation_load.iloc[0])                                # lightest load not sustained
    assert list(exactly.columns) == ["routing", "saturation_load", "saturation_throughput", "loads", "seed"]


def test_latency_load_runs_are_seed_deterministic_and_keyed_by_seed(serial):
    kw = {"dims": 2, "radix": 3, "loads": [0.1, 0.3], "seeds": 2, "warmup": 30, "measure": 80}
    a = rb.latency_load_runs([ECUBE], seed=4, **kw)
    b = rb.latency_load_runs([ECUBE], seed=4, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 4 and (a.seed == 4).all() and a.replica.tolist() == [0, 1, 0, 1]
    assert a.mean_latency.nunique() > 1                        # replicas differ
    c = rb.latency_load_runs([ECUBE], seed=5, **kw)
    assert not a.mean_latency.equals(c.mean_latency)
    curves = rb.curves_from_runs(a)
    assert curves.runs.tolist() == [2, 2] and (curves.seed == 4).all()
    assert (curves.mean_latency_low <= curves.mean_latency_mean).all()
    with pytest.raises(ValueError, match="seeds"):
        rb.latency_load_runs([ECUBE], seed=4, **{**kw, "seeds": 0})
    with pytest.raises(ValueError, match="no_such_option"):
        rb.latency_load_runs([ECUBE], seed=4, no_such_option=1, **kw)


def _make_kernel():
    """A user kernel defined inside a function (shipped to workers by value, like a notebook cell's): DOR
    with dateline classes."""

    @numba.njit
    def mine(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]
        for d in range(n):
            k = tables.radices[d]
            c, e = (cur // tables.strides[d]) % k, (dst // tables.strides[d]) % k
            if c != e:
                f = (e - c) % k
                ch = tables.slot[(cur * n + d) * 2 + (1 if f <= k - f else 0)]
                crossed = in_ch >= 0 and tables.ch_dim[in_ch] == d and in_vc == 1
                out_ch[0], out_vc[0] = ch, 1 if crossed or tables.ch_wrap[ch] != 0 else 0
                out_state[0, :] = state
                return 1
        return 0

    return mine


@pytest.fixture
def user_dor():
    register_routing("test-bench-dor", _make_kernel(), vcs=2, adaptive=False, replace=True)
    yield {"name": "test-bench-dor"}
    unregister_routing("test-bench-dor")


def _params(root):
    params = yaml.safe_load((root / "experiments" / "bring_your_own_routing.yaml").read_text())["presets"]["quick"]
    return params


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["serial", "processes"])
def test_bring_your_own_routing_study_with_a_user_kernel(monkeypatch, user_dor, backend):
    monkeypatch.setenv("TORUS_LAB_BACKEND", backend)
    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)
    params = {**_params(runner.project_root()), "routing": user_dor, "radix": 3, "loads": [0.05, 0.2], "seeds": 2,
              "warmup": 30, "measure": 80, "cdg_radix": 3}
    results = byo.run(params)
    assert set(results) == {"cdg_check", "latency_load", "saturation"}
    check = results["cdg_check"].iloc[0]
    assert check.routing == "test-bench-dor" and check.cdg_acyclic and check.deadlock_free
    assert plots_byo.witness_channels(results["cdg_check"]) == []
    curves = results["latency_load"]
    assert sorted(set(curves.routing)) == ["ecube+dateline", "test-bench-dor"] and (curves.seed == 1).all()
    assert curves.groupby("routing").size().tolist() == [2, 2] and (curves.runs == 2).all()
    again = byo.run(params)
    for key in results:
        pd.testing.assert_frame_equal(results[key], again[key], obj=key)


def test_bring_your_own_routing_presets_validate_and_match_the_notebook():
    import jsonschema

    root = runner.project_root()
    spec = yaml.safe_load((root / "experiments" / "bring_your_own_routing.yaml").read_text())
    assert list(spec) == ["notebook", "description", "schema", "presets"]
    for preset in spec["presets"].values():
        jsonschema.Draft202012Validator(spec["schema"]).validate(preset)
        assert set(preset) == set(spec["schema"]["required"]) == set(spec["schema"]["properties"])
    defaults = runner.notebook_parameters(root / spec["notebook"])
    assert defaults.pop("data_dir") == "scratch/quick/data/bring_your_own_routing"
    assert defaults.pop("figures_dir") == "scratch/quick/figures/bring_your_own_routing"
    assert defaults == spec["presets"]["quick"]


def test_cdg_check_reports_the_witness_of_a_cyclic_routing():
    check = byo.cdg_check({"name": "ecube"}, 4, [0])
    assert not check.cdg_acyclic.iloc[0] and check.cycle_length.iloc[0] == 4
    assert len(plots_byo.witness_channels(check)) == 4 and not check.deadlock_free.iloc[0]


# ---------------------------------------------------------------------- the one latency-load pipeline
def _items(**keys):
    base = {"routing": "ecube", "dims": 1, "radix": 4, "load": 0.1, "config": {"warmup": 20, "measure": 60}}
    return [{**base, **keys, "replica": r} for r in range(2)]


def test_pipeline_seeds_follow_item_content_not_order():
    first = rb.latency_runs(_items(), seed=5, backend="serial")
    again = rb.latency_runs(list(reversed(_items())), seed=5, backend="serial").iloc[::-1].reset_index(drop=True)
    other = rb.latency_runs(_items(), seed=6, backend="serial")
    assert first.sim_seed.tolist() == again.sim_seed.tolist()
    assert first.sim_seed.nunique() == 2 and set(first.sim_seed).isdisjoint(other.sim_seed)
    assert (first.seed == 5).all() and "wall_seconds" not in first


def test_pipeline_items_of_every_study_shape():
    torus = rb.latency_point("ecube", 0.1, np.random.default_rng(0), dims=2, radix=4,
                             warmup=20, measure=40, replicate=1, algorithm="e")
    assert (torus["network"], torus["label"], torus["replicate"], torus["drain"]) == ("4-ary 2-cube", "e", 1,
                                                                                      rb.CURVE_CONFIG["drain"])
    mesh = rb.latency_point({"name": "pfnf"}, 0.1, np.random.default_rng(0), k=4, network="mesh",
                            traffic="transpose", config={"warmup": 20, "measure": 40}, replica=0)
    assert (mesh["network"], mesh["traffic"], mesh["k"]) == ("mesh", "transpose", 4)
    with pytest.raises(ValueError, match="network"):
        rb.latency_point("ecube", 0.1, np.random.default_rng(0), k=4, network="ring")
    with pytest.raises(ValueError, match="dims"):
        rb.latency_point("ecube", 0.1, np.random.default_rng(0))


def test_point_summary_intervals_and_deadlocked_runs():
    runs = pd.DataFrame({"routing": ["b", "b", "a", "a", "a"], "offered_load": [0.1, 0.1, 0.2, 0.1, 0.1],
                         "mean_latency": [5.0, 7.0, 30.0, 10.0, 14.0], "accepted_throughput": 0.1,
                         "deadlock": [False, False, False, False, True], "seed": 2})
    out = rb.point_summary(runs, ["routing"])
    assert out[["routing", "offered_load"]].values.tolist() == [["b", 0.1], ["a", 0.1], ["a", 0.2]]
    assert (out.mean_latency_low[:2] <= out.mean_latency_mean[:2]).all()
    assert math.isclose(out.mean_latency_high[0] - out.mean_latency_mean[0], out.mean_latency_ci[0])
    assert math.isnan(out.mean_latency_low[2])                       # one run: no interval
    alive = rb.point_summary(runs, ["routing"], exclude_deadlocked=True, sort=True)
    assert alive[["routing", "mean_latency_mean", "deadlocks", "runs"]].values.tolist()[0] == ["a", 10.0, 1, 2]


def test_curve_saturation_uses_the_one_definition():
    runs = _runs([0.1, 0.2, 0.2], [0.1, 0.2, 0.3], deadlock=[False, False, True])
    sat = rb.curve_saturation(runs, ["routing"], rb.SATURATION)
    assert sat.saturation_load.item() == pytest.approx(0.2) and sat.deadlocked_runs.item() == 1
    assert sat.first_deadlock_load.item() == pytest.approx(0.3)
    assert sat.saturation_load.item() == pytest.approx(
        saturation_table(runs, ["routing"], rb.SATURATION).saturation_load.item())
