"""Start-up: a simulation imports no library it does not use; its tables are made when first read, the same."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd

from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, SimResult, simulate
from torus_lab.sim.engine import _PACKET_COLUMNS
from torus_lab.topology import Torus

_CHILD = """
import json, sys
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
routing = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 4))
run_length = dict(offered_load=0.1, warmup=50, measure=200)
loaded = {}
for router in ("simple", "booksim"):
    config = SimConfig.preset("booksim", **run_length) if router == "booksim" else SimConfig(**run_length)
    result = simulate(routing, config, seed=1)
    loaded[router] = sorted(m for m in ("pandas", "scipy.stats", "networkx", "matplotlib") if m in sys.modules)
shape = list(result.packets.shape)
print(json.dumps({"loaded": loaded, "after_read": "pandas" in sys.modules, "shape": shape}))
"""


def test_a_simulation_imports_no_pandas_scipy_stats_networkx_or_matplotlib():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True, text=True,
                          check=True, timeout=600)  # fmt: skip
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded"] == {"simple": [], "booksim": []}
    assert report["after_read"] and report["shape"][1] == len(_PACKET_COLUMNS)  # read: made, pandas imported


def _result(router: str = "simple") -> SimResult:
    run_length = dict(offered_load=0.15, warmup=50, measure=300)
    config = SimConfig.preset("booksim", **run_length) if router == "booksim" else SimConfig(**run_length)
    return simulate(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 4)), config, seed=2)


def test_the_packet_table_read_later_holds_what_the_means_were_computed_from():
    for router in ("simple", "booksim"):
        result = _result(router)
        packets = result.packets
        assert isinstance(packets, pd.DataFrame) and list(packets.columns) == list(_PACKET_COLUMNS)
        assert (packets.dtypes == np.int64).all() and result.packets is packets  # made once
        delivered = packets[packets.dropped == 0]
        assert result.delivered == len(delivered) > 0 and result.dropped == int((packets.dropped == 1).sum())
        for name in ("latency", "network_latency", "hops", "extra_hops"):  # pandas' means, to the last bit
            assert getattr(result, f"mean_{name}") == float(delivered[name].mean())
        assert isinstance(result.period_table, pd.DataFrame) and result.period_table.empty  # fixed windows


def test_a_result_pickled_before_its_tables_are_read_reads_the_same_tables():
    result, twin = _result(), _result()
    copy = pickle.loads(pickle.dumps(result))
    pd.testing.assert_frame_equal(copy.packets, twin.packets)
    pd.testing.assert_frame_equal(copy.period_table, twin.period_table)


def test_a_result_made_by_hand_keeps_the_frames_it_is_given():
    result = _result()
    fields = {name: getattr(result, name) for name in SimResult.__dataclass_fields__}
    frame = pd.DataFrame({"phase": ["drain"]})
    by_hand = SimResult(**{**fields, "period_table": frame})
    assert by_hand.packets is result.packets and by_hand.period_table is frame
    del fields["period_table"]
    default = SimResult(**fields).period_table  # not given: an empty frame, as before
    assert isinstance(default, pd.DataFrame) and default.empty
