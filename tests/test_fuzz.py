"""Hostile-input fuzz suite: every public function and class refuses bad arguments cleanly.

For every module of the package and every function or class in its ``__all__``, and for every parameter of
its signature, hypothesis draws a hostile value for that parameter (0, negative, huge, NaN, inf, bools, bytes,
strings, None, nested and ragged sequences, numpy scalars and arrays, ...) while the other parameters keep a
valid value from ``VALID_ARGS``, so the check reaches the parameter under test. The call must return, or raise
``ValueError`` / ``TypeError`` (or ``MemoryLimitError`` for huge sizes) whose message names the parameter;
any other exception, or a call that hangs, fails.

A hang is told from slow work by CPU time, not wall time (``cpu_guard``): a call may use ``CALL_CPU_LIMIT``
seconds of this process's CPU time, numba compilation not counted (``SIGPROF`` from ``ITIMER_PROF``, stopped
while numba compiles), so a loaded machine, which stretches wall time but not CPU time, cannot fail the suite.
``SIGPROF``'s handler runs between Python bytecodes: compiled code past the limit is stopped when it returns to
Python, but a compiled loop that never returns cannot be stopped from Python.  For that one case a wall-clock
backstop of ``HANG_BACKSTOP`` seconds (minutes beyond any slow work) ends the test process with every thread's
traceback (``faulthandler``; pytest-xdist reports the worker as crashed in that test): a true hang fails loudly
instead of blocking the run, and slow work never reaches it.  Each callable's first, valid call
(``_baseline``) runs unguarded, so its compilation and first-use work happen there.

Callables without a ``VALID_ARGS`` entry get the hostile value for every required parameter; any parameter
name in the message then counts. ``FUZZ_EXAMPLES`` (environment) sets the examples per parameter (``make fuzz``
raises it and draws fresh random examples; the default run uses a fixed seed).
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import math
import os
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from cpu_guard import CALL_CPU_LIMIT, cpu_limit
from hypothesis import HealthCheck, given, reject, seed, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torus_lab
from torus_lab._jit import is_dispatcher
from torus_lab._memory import MemoryLimitError

pytestmark = pytest.mark.fuzz

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0")) or None
MAX_EXAMPLES = EXAMPLES or 5

# They run notebooks, build the site (Sphinx in a child process; the site's text helpers are property-tested in
# tests/test_site.py) or serve notebooks (torus_lab.explore.app: its checks are tested in tests/test_explore_app.py).
SKIP_MODULES = {"torus_lab.cli", "torus_lab.runner", "torus_lab.report", "torus_lab.verify", "torus_lab.site",
                "torus_lab.explore.app"}

# Compiled numba functions (routing kernels, the simulator kernel, ``minimal_sign``, ``splitmix_next``) take the
# typed arrays and ints their Python entry points build (``make_routing``, ``simulate``); they have no Python
# frame to validate in, so they are exercised through those entry points and left out here.


class Lazy:
    """A valid argument built on first use (and shared: the callables under test do not mutate it)."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = functools.cache(build)


def _torus(n: int = 2, k: int = 4) -> Lazy:
    return Lazy(lambda: __import__("torus_lab.topology", fromlist=["Torus"]).Torus(n, k))


def _routing(spec: str = "ecube", n: int = 2, k: int = 4) -> Lazy:
    def build() -> Any:
        from torus_lab.routing import make_routing
        from torus_lab.topology import Torus

        return make_routing(spec, Torus(n, k))

    return Lazy(build)


def _rng() -> Lazy:
    return Lazy(lambda: np.random.default_rng(0))


_BV_CONFIG = {"name": "torus88_dor_vc2_p1", "network": "torus", "dims": 2, "radix": 8, "vcs": 2, "packet_length": 1,
              "channel_latency": 2, "router": {}}  # fmt: skip
_BV_PARAMS = {"seed": 1, "reference": "reference/booksim2", "configs": [_BV_CONFIG], "seeds": 1, "loads_per_config": 2,
              "run_length": {"warmup": 20, "measure": 100, "drain": 300},
              "zero_load_run_length": {"warmup": 20, "measure": 100, "drain": 300},
              "overload_run_length": {"warmup": 20, "measure": 100}, "latency_cap": 500,
              "accept_ratio": 0.97, "tolerances": {"zero_load_rel": 0.02, "latency_rel": 0.05, "saturation_abs": 0.02,
                                                   "below_fraction": 0.8}}  # fmt: skip


@functools.cache
def _bv_tables() -> dict[str, Any]:
    """A tiny BookSim2 validation (one configuration, one replica, short runs) and the reference it read."""
    from torus_lab.experiment import project_root
    from torus_lab.studies import booksim_validation as bv

    runs, summary = bv.read_reference(project_root() / "reference" / "booksim2")
    return {**bv.run(_BV_PARAMS, project_root()), "reference_runs": runs, "summary": summary}


def _bv(key: str) -> Lazy:
    return Lazy(lambda: _bv_tables()[key])


def _saved_table_dir() -> str:
    """A folder holding the saved table ``a.csv`` (what a notebook's ``run.save`` leaves for ``show_table``)."""
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp(prefix="fuzz-tables-")) / "demo"
    folder.mkdir()
    (folder / "a.csv").write_text("a\n1\n2\n")
    return str(folder)


def _placement() -> Lazy:
    def build() -> Any:
        from torus_lab.loads import linear_placement
        from torus_lab.topology import Torus

        return linear_placement(Torus(2, 4))

    return Lazy(build)


def _loads() -> Lazy:
    def build() -> Any:
        from torus_lab.loads import linear_placement, link_loads
        from torus_lab.topology import Torus

        torus = Torus(2, 4)
        return link_loads(torus, linear_placement(torus))

    return Lazy(build)


def _cdg() -> Lazy:
    def build() -> Any:
        from torus_lab.deadlock import channel_dependency_graph
        from torus_lab.routing.ecube import ecube_routing
        from torus_lab.topology import Torus

        return channel_dependency_graph(ecube_routing(Torus(1, 4)))

    return Lazy(build)


def _figure_ax() -> Lazy:
    def build() -> Any:
        import matplotlib.pyplot as plt

        return plt.subplots()[1]

    return Lazy(build)


def _booksim_state(**options: Any) -> Any:
    from torus_lab.sim import SimConfig, booksim

    return booksim.state_for(_routing().build(), SimConfig.preset("booksim"), **options)


def _sim_config() -> Lazy:
    def build() -> Any:
        from torus_lab.sim import SimConfig

        return SimConfig(warmup=10, measure=20, drain=100)

    return Lazy(build)


def _frame(**columns: list) -> Lazy:
    return Lazy(lambda: pd.DataFrame(columns))


def _square_result():
    """An Adaptive-Square routing result (the argument of the square family's step helpers)."""
    from torus_lab.routing.square import adaptive_square_routing
    from torus_lab.topology import Torus

    return adaptive_square_routing(Torus(2, 8), set(), (0, 0), (4, 1), 3)


def _fuzz_item(x: int, rng: np.random.Generator) -> dict[str, int]:
    """A sweep function for the sweep baselines."""
    return {"x": x}


def _dateline_build(datelines: Any) -> Any:
    """A routing builder for the dateline search: north-last on the unidirectional 4 x 4 torus."""
    from torus_lab.routing.turn_model import turn_model_routing
    from torus_lab.topology import make_network

    return turn_model_routing(make_network("unidirectional", 4), "north-last", scheme="paper", datelines=datelines)


T24 = _torus(2, 4)
ROUTING = _routing()
RNG = _rng()
FAULTS = Lazy(lambda: __import__("torus_lab.topology", fromlist=["Faults"]).Faults())

# Valid baseline arguments (from the docstring examples); each parameter under test replaces its own entry.
VALID_ARGS: dict[str, dict[str, Any]] = {
    # topology
    "torus_lab.topology.Torus": dict(dims=2, radix=4),
    "torus_lab.timing.split_timing": dict(frame=pd.DataFrame({"n": [1], "seconds": [0.5]}), columns=["seconds"],
                                          keys=["n"]),
    "torus_lab.topology.Mesh": dict(dims=2, radix=4),
    "torus_lab.topology.random_node_faults": dict(topology=T24, rate=0.25, seed=1),
    "torus_lab.topology.random_link_faults": dict(topology=T24, count=2, seed=7),
    "torus_lab.topology.connected_link_faults": dict(topology=T24, count=2, rng=RNG),
    "torus_lab.topology.is_walk": dict(topology=T24, path=[(0, 0), (3, 0), (3, 1)]),
    "torus_lab.topology.avoids_faults": dict(topology=T24, path=[(0, 0), (1, 0)], faults=FAULTS),
    "torus_lab.topology.bfs_distances": dict(topology=T24, source=(0, 0)),
    "torus_lab.topology.minimal_path_count": dict(topology=T24, a=(0, 0), b=(2, 1)),
    "torus_lab.topology.minimal_path_counts": dict(topology=T24, b=(2, 1)),
    "torus_lab.topology.lee_ball": dict(centre=(0, 0), k=5),
    "torus_lab.topology.definition_torus_properties": dict(n=2, k=5),
    # loads
    "torus_lab.loads.linear_placement": dict(torus=T24),
    "torus_lab.loads.multiple_linear_placement": dict(torus=_torus(2, 6), t=3),
    "torus_lab.loads.residue_placement": dict(torus=_torus(2, 5), residues=[0, 2]),
    "torus_lab.loads.node_placement": dict(torus=_torus(2, 3), nodes=[(0, 0), (2, 1)]),
    "torus_lab.loads.link_loads": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.link_loads_reference": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.enumerate_paths": dict(torus=_torus(2, 5), source=(0, 0), target=(1, 4), routing="udr"),
    "torus_lab.loads.load_frame": dict(torus=T24, loads=_loads()),
    "torus_lab.loads.loads_by_dimension": dict(torus=T24, loads=_loads()),
    "torus_lab.loads.single_node_bound": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.lemma1_bound": dict(torus=T24, placement=_placement(), node_set=[(0, 0)]),
    "torus_lab.loads.natural_cut_bound": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.balanced_cut_search": dict(torus=T24, placement=_placement(), max_steps=20, restarts=2),
    "torus_lab.loads.cut_lower_bound": dict(torus=T24, placement=_placement(), max_steps=20),
    "torus_lab.loads.natural_bisection_width": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.placement_bisection_width_bruteforce": dict(torus=_torus(2, 3), placement=Lazy(
        lambda: __import__("torus_lab.loads", fromlist=["x"]).linear_placement(
            __import__("torus_lab.topology", fromlist=["x"]).Torus(2, 3)))),
    # deadlock
    "torus_lab.loads.random_placements": dict(torus=T24, count=2),
    "torus_lab.loads.certified_bisection_width": dict(torus=T24, placement=_placement()),
    "torus_lab.loads.all_placement_bisection_widths": dict(torus=_torus(2, 3)),
    "torus_lab.loads.bisection_slack_search": dict(torus=_torus(2, 3), restarts=1, steps=3),
    "torus_lab.loads.optimal_routing_load": dict(torus=_torus(2, 3), placement=[(0, 0), (1, 1)]),
    "torus_lab.deadlock.state_graph": dict(routing=ROUTING, dst=0),
    "torus_lab.deadlock.cdg_acyclic": dict(rf=ROUTING),
    "torus_lab.deadlock.dateline_space": dict(k=4, vns=1, bidirectional=True),
    "torus_lab.deadlock.dateline_configuration": dict(k=4, index=0, vns=1, bidirectional=True),
    "torus_lab.deadlock.dateline_search": dict(build=Lazy(lambda: _dateline_build), k=4, vns=1, bidirectional=False,
                                               max_configs=2),
    "torus_lab.deadlock.channel_dependency_graph": dict(routing=ROUTING),
    "torus_lab.deadlock.find_witness_cycle": dict(graph=_cdg()),
    "torus_lab.deadlock.cdg_verdict": dict(rf=ROUTING),
    "torus_lab.deadlock.vcs_per_channel": dict(rf=ROUTING),
    "torus_lab.deadlock.extended_cdg": dict(rf=_routing("ecube", 1, 4), escape=[0]),
    "torus_lab.deadlock.duato_check": dict(rf=_routing("ecube", 1, 4), escape=[0]),
    "torus_lab.deadlock.describe_vc": dict(topology=T24, vertex=(3, 1)),
    "torus_lab.deadlock.describe_cycle": dict(topology=_torus(1, 3), cycle=[(1, 0), (3, 0), (5, 0)]),
    "torus_lab.deadlock.default_dateline": dict(k=5, sign=1),
    "torus_lab.deadlock.ring_dateline_classes": dict(k=5, start=3, end=1, sign=1),
    "torus_lab.deadlock.ring_minimal_routes": dict(k=4),
    "torus_lab.deadlock.ring_vc_usage": dict(k=5, sign=1),
    "torus_lab.deadlock.ring_second_vc_channels": dict(k=5, sign=1),
    "torus_lab.deadlock.forced_cycle_messages": dict(rf=_routing("ecube", 1, 4),
                                                     cycle=[(1, 0), (3, 0), (5, 0), (7, 0)]),
    "torus_lab.deadlock.channel_vc_listing": dict(rf=ROUTING),
    # routing
    "torus_lab.routing.ecube.ecube_routing": dict(topology=T24),
    "torus_lab.routing.min_adapt.min_adapt_routing": dict(topology=T24),
    "torus_lab.routing.ecube.minimal_sign": dict(c=0, e=2, k=4, wraparound=1, bidirectional=1, tie=1),
    "torus_lab.routing.direction_first.direction_first_routing": dict(topology=T24),
    "torus_lab.routing.direction_first.west_first_routing": dict(topology=T24),
    "torus_lab.routing.direction_first.header_size_bits": dict(k=4, n=2),
    "torus_lab.routing.direction_first.double_ecube_route": dict(topology=T24, src=(0, 0), dst=(2, 1)),
    "torus_lab.routing.turn_model.turn_model_routing": dict(topology=T24),
    "torus_lab.routing.turn_model.pfnf_routing": dict(topology=T24),
    "torus_lab.routing.turn_model.duato_routing": dict(topology=T24),
    "torus_lab.routing.turn_model.direction_bit": dict(dim=1, sign=1),
    "torus_lab.routing.turn_model.dateline_node": dict(k=5, sign=1),
    "torus_lab.routing.turn_model.pack_datelines": dict(topology=T24, datelines=[(3, 0, 3, 0)], vns=1),
    "torus_lab.routing.explore.explore_states": dict(rf=ROUTING, dst=0),
    "torus_lab.routing.explore.validate_routing": dict(rf=ROUTING, sample=2),
    "torus_lab.routing.registry.make_routing": dict(spec="ecube", topology=T24),
    "torus_lab.routing.disjoint_paths.disjoint_paths_run": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.disjoint_paths.pairwise_disjoint_paths": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.disjoint_paths.verify_disjoint_paths": dict(
        torus=(2, 5), pairs=[((0, 0), (0, 2))], paths=[[(0, 0), (0, 1), (0, 2)]]),
    "torus_lab.routing.disjoint_paths.length_bound": dict(n=2, k=5, c=1),
    "torus_lab.routing.disjoint_paths.check_pairs": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.disjoint_paths.check_problem": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.baselines.greedy_disjoint_paths": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.baselines.optimal_disjoint_paths": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))],
                                                               time_limit=5.0),
    "torus_lab.routing.baselines.solve_min_max_milp": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))], node_limit=10),
    "torus_lab.routing.baselines.lee_lower_bound": dict(torus=(2, 5), pairs=[((0, 0), (2, 2))]),
    "torus_lab.routing.square.chain_routing": dict(torus=_torus(2, 8), faults=set(), source=(0, 0), target=(3, 0),
                                                   m=3),
    "torus_lab.routing.square.adaptive_square_routing": dict(torus=_torus(2, 8), faults=set(), source=(0, 0),
                                                             target=(4, 3), m=3),
    "torus_lab.routing.square.heuristic_square_routing": dict(torus=_torus(2, 8), faults=set(), source=(0, 0),
                                                              target=(3, 1), m=3),
    "torus_lab.routing.square.backtracking_square_routing": dict(torus=_torus(2, 8), faults=set(),
                                                                 source=(0, 0), target=(3, 1), m=3),
    "torus_lab.routing.square.route": dict(algorithm="chain", torus=_torus(2, 8), faults=set(), source=(0, 0),
                                           target=(3, 2), m=3),
    "torus_lab.routing.square.oracle": dict(torus=_torus(2, 5), faults=set(), source=(0, 0), target=(2, 2)),
    "torus_lab.routing.square.evaluate_batch": dict(k=8, m=3, fault_count=4, seeds=np.arange(2, dtype=np.uint64)),
    "torus_lab.routing.square.draw_trial": dict(k=16, fault_count=64, seed=12345),
    "torus_lab.routing.square.locally_safe": dict(grid=np.zeros((5, 5), dtype=bool), m=2),
    "torus_lab.routing.square.saturated_safe_faults": dict(radix=5, m=2, rng=RNG),
    "torus_lab.routing.square.torus_connected": dict(grid=np.zeros((4, 4), dtype=bool)),
    "torus_lab.routing.square.walk_is_fault_free": dict(walk=[(0, 0), (1, 0)], source=(0, 0),
                                                        grid=np.zeros((4, 4), dtype=bool)),
    "torus_lab.routing.square.local_routing_bound": dict(algorithm="chain", radix=8, m=3, source=(0, 0),
                                                         target=(2, 1)),
    "torus_lab.routing.square.chain_band": dict(radix=8, m=3, source=0, target=3),
    "torus_lab.routing.square.square_starts": dict(result=Lazy(lambda: _square_result()), radix=8),
    "torus_lab.routing.square.step_progress": dict(result=Lazy(lambda: _square_result()), radix=8,
                                                   target=(4, 1)),
    "torus_lab.routing.square.square_cover": dict(squares=Lazy(lambda: list(_square_result().squares)), radix=8),
    "torus_lab.routing.interface.build_tables": dict(topology=T24, faults=None, iparams=[0]),
    # sim
    "torus_lab.sim.engine.simulate": dict(routing=ROUTING, config=_sim_config()),
    "torus_lab.sim.engine.zero_load_latency": dict(hops=3, packet_length=4),
    "torus_lab.sim.engine.load_sweep": dict(routing=ROUTING, config=_sim_config(), loads=[0.1]),
    "torus_lab.sim.engine.find_saturation": dict(routing=ROUTING, config=_sim_config(), tolerance=1.0),
    "torus_lab.sim.traffic.destination_map": dict(topology=T24, traffic="uniform"),
    "torus_lab.sim.engine.chunk_cycles": dict(topology=T24),
    "torus_lab.sim.engine.pool_headroom": dict(topology=T24),
    "torus_lab.sim.runlength.run_horizon": dict(config=_sim_config()),
    "torus_lab.sim.runlength.check_run_bounds": dict(config=_sim_config(), topology=T24, vcs=2),
    "torus_lab.sim.packets.packet_pool_size": dict(num_nodes=16, input_vcs=144, queue_cap=8),
    "torus_lab.sim.packets.initial_pool_size": dict(num_nodes=16, input_vcs=144, queue_cap=8),
    "torus_lab.sim.packets.grow_pool": dict(st=Lazy(lambda: __import__("torus_lab.sim.simple").sim.simple.new_state(
        T24.build(), 2, 4, 8, 1, depth=4, length=4, atomic=True, pool=200)), size=300),  # fmt: skip
    "torus_lab.sim.packets.grow_queues": dict(st=Lazy(lambda: __import__("torus_lab.sim.simple").sim.simple.new_state(
        T24.build(), 2, 4, 8, 1, depth=4, length=4, atomic=True, pool=200)), width=6),  # fmt: skip
    "torus_lab.sim.engine.initial_queue_width": dict(topology=T24, queue_cap=8),
    "torus_lab.sim.booksim.request_capacity": dict(input_vcs=100, kmax=8, switch_pairs=200, ports=5, pool=50,
                                                   speculative=False),
    "torus_lab.sim.booksim.with_pool": dict(st=Lazy(lambda: _booksim_state(pool=20)), size=40),
    "torus_lab.sim.simple.state_layout": dict(topology=T24, vcs=2, cap=4, queue_cap=8, rec_cap=10),
    "torus_lab.sim.simple.state_memory_bytes": dict(topology=T24, vcs=2, cap=4, queue_cap=8, rec_cap=10),
    "torus_lab.sim.booksim.state_layout": dict(topology=T24, vcs=2, depth=8, queue_cap=8, rec_cap=10),
    "torus_lab.sim.booksim.state_memory_bytes": dict(topology=T24, vcs=2, depth=8, queue_cap=8, rec_cap=10),
    "torus_lab.stats.summarize": dict(frame=_frame(a=[1, 1], x=[1.0, 2.0]), by=["a"], columns=["x"]),
    # plotting
    "torus_lab.plotting.save_figure": dict(fig=Lazy(lambda: _figure_ax().build().figure), figures_dir="figs",
                                           name="f"),
    "torus_lab.plotting.show_figure": dict(fig=Lazy(lambda: _figure_ax().build().figure), figures_dir="figs",
                                           name="f"),
    "torus_lab.plotting.figure_html": dict(experiment="loads", name="a", caption="what a shows"),
    "torus_lab.tables.table_rows": dict(table=_frame(a=[1, 2])),
    "torus_lab.tables.table_html": dict(table=_frame(a=[1, 2]), href="a.csv", label="a.csv"),
    "torus_lab.tables.table_text": dict(table=_frame(a=[1, 2]), label="a.csv"),
    "torus_lab.tables.csv_link": dict(csv="data/demo/a.csv", under_runner=True),
    "torus_lab.tables.show_table": dict(table=_frame(a=[1, 2]), data_dir=Lazy(_saved_table_dir), name="a"),
    # self-contained reports
    "torus_lab.notebook_warnings.summary_text": dict(counts={("UserWarning", "x"): 2}, example="a.py:1: x"),
    "torus_lab.notebook_warnings.warning_subject": dict(message="x at 1"),
    "torus_lab.plotting.draw_torus_2d": dict(ax=_figure_ax(), topology=T24),
    "torus_lab.plotting.draw_torus_3d": dict(ax=Lazy(lambda: __import__("matplotlib.pyplot", fromlist=["x"]).figure()
                                                 .add_subplot(projection="3d")), topology=_torus(3, 3)),
    # sweep
    "torus_lab.sweep.sweep": dict(func=_fuzz_item, items=[{"x": 1}], seed=0, backend="serial", cache=False),
    "torus_lab.sweep.sweep_frame": dict(func=_fuzz_item, items=[{"x": 1}], seed=0, backend="serial", cache=False),
    "torus_lab.sweep.item_seed": dict(seed=0, item={"x": 1}),
    # study helpers: verdicts, fits and small builders
    "torus_lab.studies.direction_first.routing_applies": dict(spec="west-first", dims=2),
    "torus_lab.studies.disjoint_paths.random_instance": dict(n=2, k=5, c=2, rng=RNG),
    "torus_lab.studies.disjoint_paths.solve_random_instance": dict(n=2, k=5, c=2, rng=RNG),
    "torus_lab.studies.disjoint_paths.solve_fixed_instance": dict(instance="table2", lemma2="first"),
    "torus_lab.studies.disjoint_paths.table1_torus": dict(shapes=[(2, 5)]),
    "torus_lab.studies.disjoint_paths.optimum_items": dict(params={"optimum_ns": [2], "optimum_instances": [1],
                                                                   "optimum_kinds": ["ball"],
                                                                   "optimum_node_limit": 10}),
    "torus_lab.studies.fault_tolerant.fault_count": dict(radix=16, fault_rate=0.05),
    "torus_lab.studies.fault_tolerant.trial_seeds": dict(rng=RNG, trials=3),
    "torus_lab.studies.fault_tolerant.example_routes": dict(radix=8, m=3, fault_count=4, trial_seed=1),
    "torus_lab.studies.fault_tolerant.theorem_checks": dict(
        termination_points=[(8, 3)], fault_rates=[0.1], trials=1, safety_points=[(5, 2)], instances=1, pairs=1, seed=1,
        backend="serial"),
    "torus_lab.stats.leading_constant_fit": dict(radices=[5, 9, 17], ratios=[0.4, 0.44, 0.47]),
    "torus_lab.stats.corrected_power_law_exponent": dict(x=[4, 16, 36], y=[2.0, 9.0, 20.0], k=[2, 4, 6]),
    "torus_lab.studies.loads.fit_exponent": dict(processors=[16, 64, 256], e_max=[2, 8, 32]),
    "torus_lab.studies.loads_claims.constant_matches": dict(measured=0.1875, claimed=0.125, tolerance=0.5),
    "torus_lab.studies.loads.upper_bound_verdict": dict(measured=[1.0, 2.0], bound=[1.0, 4.0]),
    "torus_lab.studies.loads.lower_bound_verdict": dict(measured=[2.0, 3.0], bound=[2.0, 1.0]),
    "torus_lab.studies.loads.spread_verdict": dict(values=[1.0, 0.75], tolerance=0.25),
    "torus_lab.studies.loads.claimed_bound": dict(d=3, k=8, t=1, placement="linear", routing="odr"),
    # d is an exponent: with k = 3 a hostile d <= 9 stays at 3**9 nodes (about a second); with k = 4, d = 8 the
    # all-shortest-paths loads of 65,536 nodes take minutes: real work, which the timeout cannot tell from a hang.
    "torus_lab.studies.loads.evaluate_point": dict(d=2, k=3, t=1, placement="linear"),
    "torus_lab.studies.loads.bisection_exhaustive_row": dict(dims=2, radix=3),
    "torus_lab.studies.loads.bisection_any_row": dict(dims=2, radix=3, rng=RNG),
    "torus_lab.studies.loads.best_routing_row": dict(dims=2, radix=3),
    "torus_lab.studies.virtual_mesh.dateline_search_row": dict(kind="unidirectional", k=4, algorithm="north-last"),
    "torus_lab.studies.virtual_mesh.dateline_search_table": dict(ks=[4], kinds=["unidirectional"], max_configs=1,
                                                                 backend="serial"),
    "torus_lab.studies.virtual_mesh.make_topology": dict(kind="unidirectional", k=4),
    "torus_lab.studies.virtual_mesh.catalog_routing": dict(topology=T24, label="dor+dateline"),
    # the study's tables compile every routing kernel of the study on first use: the untimed baseline does it
    # (ks = (3, 3) timed out on a first call under load, then passed: JIT compilation, not a hang)
    "torus_lab.studies.virtual_mesh.cdg_table": dict(ks=[3], backend="serial"),
    "torus_lab.studies.virtual_mesh.vc_count_table": dict(ks=[3], backend="serial"),
    "torus_lab.studies.virtual_mesh.second_vc_table": dict(ks=[3], backend="serial"),
    "torus_lab.studies.virtual_mesh.adaptivity_summary": dict(ks=[3], backend="serial"),
    "torus_lab.studies.bring_your_own_routing.cdg_check": dict(routing="ecube", radix=4, escape_vcs=[0]),
    "torus_lab.studies.booksim_validation.read_reference": dict(folder=Lazy(
        lambda: str(__import__("torus_lab.experiment").experiment.project_root() / "reference" / "booksim2"))),
    "torus_lab.studies.booksim_validation.check_configs": dict(configs=[_BV_CONFIG], summary=_bv("summary")),
    "torus_lab.studies.booksim_validation.network_routing": dict(config=_BV_CONFIG),
    "torus_lab.studies.booksim_validation.unbounded_queue_capacity": dict(config=Lazy(
        lambda: __import__("torus_lab.sim").sim.SimConfig.preset("booksim", offered_load=0.3))),
    "torus_lab.studies.booksim_validation.simulate_point": dict(config=_BV_CONFIG, load=0.05, mode="latency",
                                                                replica=0, run_length=_BV_PARAMS["run_length"],
                                                                rng=_rng()),
    "torus_lab.studies.booksim_validation.validation_items": dict(configs=[_BV_CONFIG], reference_runs=_bv(
        "reference_runs"), seeds=1, run_length={}, zero_load_run_length={}, overload_run_length={}),  # fmt: skip
    "torus_lab.studies.booksim_validation.point_table": dict(runs=_bv("runs"), reference_runs=_bv("reference_runs")),
    "torus_lab.studies.booksim_validation.stability": dict(points=_bv("points"), latency_cap=500, accept_ratio=0.97),
    "torus_lab.studies.booksim_validation.zero_load_table": dict(points=_bv("points"), runs=_bv("runs"),
                                                                 summary=_bv("summary")),
    "torus_lab.studies.booksim_validation.saturation_comparison": dict(points=_bv("points"), summary=_bv("summary"),
                                                                       latency_cap=500, accept_ratio=0.97),
    "torus_lab.studies.booksim_validation_claims.run_conditions": dict(config=_BV_CONFIG, params=_BV_PARAMS),
    "torus_lab.studies.booksim_validation.check_params": dict(params=_BV_PARAMS),
    "torus_lab.studies.booksim_validation.run": dict(params=_BV_PARAMS, root=Lazy(
        lambda: __import__("torus_lab.experiment").experiment.project_root())),
    # sim and plotting helpers
    "torus_lab.stats.confidence_interval": dict(values=[10.0, 12.0, 11.0, 13.0]),
    "torus_lab.stats.wilson_interval": dict(successes=90, trials=100),
    "torus_lab.stats.paired_ratio_interval": dict(x=[1, 1, 0, 1], y=[1, 0, 0, 1]),
    "torus_lab.stats.power_law_fit": dict(x=[1, 2, 4], y=[3, 12, 48]),
    "torus_lab.stats.log_fit": dict(nodes=[16, 64, 256], values=[1.0, 2.0, 3.5]),
    "torus_lab.plotting.new_figure": dict(nrows=1, ncols=2),
    "torus_lab.routing.explore.check_routing_function": dict(rf=ROUTING),
    "torus_lab.topology.Faults": dict(nodes=frozenset({(1, 1)})),
    "torus_lab.experiment.load_experiment": dict(name="loads"),
    "torus_lab.experiment.check_output_root": dict(out="out"),
    # precision
    "torus_lab.precision.round_significant": dict(value=0.5),
    "torus_lab.precision.science_frame": dict(frame=pd.DataFrame({"x": [0.5], "n": [1]})),
    "torus_lab.precision.to_science_csv": dict(frame=pd.DataFrame({"x": [0.5], "n": [1]}), path="out.csv"),
    # explorers
    "torus_lab.explore.controls.OptionControl": dict(option=Lazy(lambda: _entry("pfnf").option("dateline_offset"))),
    "torus_lab.explore.controls.option_widget": dict(option=Lazy(lambda: _entry("ecube").option("vcs"))),
    "torus_lab.explore.controls.OptionsBox": dict(entry=Lazy(lambda: _entry("ecube"))),
    "torus_lab.explore.routing_model.network": dict(kind="torus", n=2, k=4),
    "torus_lab.explore.routing_model.explore_routing": dict(query=Lazy(lambda: _explore().RoutingQuery())),
    "torus_lab.explore.routing.RoutingExplorer": dict(query=Lazy(lambda: _explore().RoutingQuery())),
    "torus_lab.explore.routing.draw_outcome": dict(
        fig=Lazy(lambda: __import__("matplotlib.figure", fromlist=["Figure"]).Figure()),
        outcome=Lazy(lambda: _explore().explore_routing(_explore().RoutingQuery()))),
    "torus_lab.explore.disjoint.DisjointPathsExplorer": dict(
        query=Lazy(lambda: _papers().DisjointQuery(optimum=False))),
    "torus_lab.explore.disjoint.draw_disjoint_outcome": dict(
        fig=Lazy(lambda: __import__("matplotlib.figure", fromlist=["Figure"]).Figure()),
        outcome=Lazy(lambda: _papers().explore_disjoint_paths(_papers().DisjointQuery()))),
    "torus_lab.explore.loads.draw_loads_outcome": dict(
        fig=Lazy(lambda: __import__("matplotlib.figure", fromlist=["Figure"]).Figure()),
        outcome=Lazy(lambda: _papers().explore_loads(_papers().LoadsQuery()))),
    "torus_lab.plotting.draw_paths_2d": dict(ax=_figure_ax(), topology=T24),
    "torus_lab.explore.square_model.SquareQuery": dict(k=8),
    "torus_lab.explore.square_model.explore_square": dict(query=Lazy(lambda: _square_query())),
    "torus_lab.explore.square_model.oracle_path": dict(torus=_torus(2, 8), faulty=frozenset({(1, 0)}), source=(0, 0),
                                                       destination=(2, 0)),
    "torus_lab.explore.square.SquareExplorer": dict(query=Lazy(lambda: _square_query())),
    "torus_lab.explore.square.square_explorer": dict(k=8),
    "torus_lab.explore.square.draw_square_step": dict(
        fig=Lazy(lambda: __import__("matplotlib.figure", fromlist=["Figure"]).Figure()),
        outcome=Lazy(lambda: __import__("torus_lab.explore.square_model", fromlist=["x"]).explore_square(
            _square_query())), algorithm="chain", step=0),
    # claims
    "torus_lab.claims.Rule": dict(kind="at_most", params={"bound": 1.0}),
    "torus_lab.claims.Claim": dict(claim_id="C1", location="Theorem 1", statement="s", conditions="c",
                                   paper_text="1", measured_text="1", rule=Lazy(lambda: _claims().Rule("exact")),
                                   evidence=("data/p/a.csv",), paper_value=1.0, measured_value=1.0),
    "torus_lab.claims.evaluate": dict(rule=Lazy(lambda: _claims().Rule("inside_ci")), paper_value=1.0,
                                      measured_value=1.1, ci=(0.9, 1.2)),
    "torus_lab.claims.data_file": dict(experiment="p", name="a.csv"),
    "torus_lab.claims.figure_file": dict(experiment="p", name="a.png"),
    "torus_lab.claims.evidence_items": dict(evidence="data/p/a.csv, data/p/b.csv"),
    "torus_lab.claims.claims_table": dict(paper="p", claims=[]),
    "torus_lab.claims.check_claims_table": dict(table=Lazy(lambda: _claims().claims_table("p", []))),
    "torus_lab.claims.write_claims": dict(table=Lazy(lambda: _claims().claims_table("p", [])), data_dir="data"),
    "torus_lab.claims.rate_upper_bound": dict(events=0, n=120),
    "torus_lab.claims.enough_judged": dict(judged=5, n=20),
    "torus_lab.claims.minimal_detectable_effect": dict(half_width=1.0),
    "torus_lab.claims.derive_evidence_kind": dict(rule=Lazy(lambda: _claims().Rule("all_of", {"n": 3})),
                                                  measured_value=3, ci_method="", conditions="k = 4"),
    "torus_lab.claims.evidence_sentence": dict(evidence_kind="statistical",
                                               rule=Lazy(lambda: _claims().Rule("all_of", {"n": 3})),
                                               measured_value=3),
    "torus_lab.claims.conditions_text": dict(conditions={"k": 8}),
    "torus_lab.claims.upgrade_claims_table": dict(table=Lazy(lambda: _claims().claims_table("p", []))),
    "torus_lab.claims.PaperSummary": dict(papers=("p",), claims=1, reproduced=1, verdicts={"holds": 1},
                                          evidence_kinds={"exhaustive": 1}, findings=()),
    "torus_lab.claims.verdict_counts": dict(verdicts=["holds"]),
    "torus_lab.claims.referee_summary": dict(table=Lazy(lambda: _claims().claims_table("p", []))),
    "torus_lab.claims.claims_changes": dict(old=Lazy(lambda: _claims().claims_table("p", [])),
                                            new=Lazy(lambda: _claims().claims_table("p", []))),
    "torus_lab.claims.paper_value_claim": dict(
        claim_id="C1", location="Section 5", statement="s", conditions="c", paper_value=1.3, paper_text="about 1.3",
        measured=(1.29, 1.25, 1.33), measured_text="1.29", ci_method="bootstrap 95%",
        rule=Lazy(lambda: _claims().Rule("inside_ci")), evidence=("data/p/a.csv",)),
}


def _entry(name: str):
    from torus_lab.routing import routing_entry

    return routing_entry(name)


def _explore():
    import torus_lab.explore.routing_model

    return torus_lab.explore.routing_model


def _papers():
    """The paper explorers' models: their queries and outcomes."""
    from types import SimpleNamespace

    from torus_lab.explore import disjoint_model, loads_model

    return SimpleNamespace(DisjointQuery=disjoint_model.DisjointQuery,
                           explore_disjoint_paths=disjoint_model.explore_disjoint_paths,
                           LoadsQuery=loads_model.LoadsQuery, explore_loads=loads_model.explore_loads)
def _square_query():
    from torus_lab.explore.square_model import SquareQuery

    return SquareQuery(k=8, m=3, fault_rate=0.1, fault_seed=2)


def _claims():
    import torus_lab.claims

    return torus_lab.claims


def _public_callables() -> Iterator[tuple[str, Callable]]:
    """(qualified name, object) for every function or class in a public module's ``__all__``."""
    for info in pkgutil.walk_packages(torus_lab.__path__, "torus_lab."):
        if info.name in SKIP_MODULES or any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if name.startswith("_") or not callable(obj):
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue
            if getattr(obj, "__module__", info.name) != info.name:
                continue  # re-exported: tested where it is defined
            yield f"{info.name}.{name}", obj


def _parameters(obj: Callable) -> list[inspect.Parameter]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    return [p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


CALLABLES = dict(_public_callables())
CASES = [
    pytest.param(qualname, param.name, id=f"{qualname}:{param.name}")
    for qualname, obj in CALLABLES.items()
    if not is_dispatcher(obj)
    for param in _parameters(obj)
]

EDGE_VALUES = [
    0, -1, 1, 2, 2**31, 2**63, 2**70, -(2**70), math.nan, math.inf, -math.inf, 0.5, -0.0, True, False,
    b"", b"x", "", "x", "-1", None, [], [[]], [[1, 2], [3]], [1, [2, [3]]], (1, 2), {"a": 1}, {1, 2}, frozenset(),
    np.int64(3), np.int64(-5), np.uint64(2**64 - 1), np.float64(math.nan), np.bool_(True), np.array([1, 2]),
    np.array([[1.5, math.nan]]), np.zeros((0,)), np.zeros((2, 0, 3)), np.array(["a"]), np.array([[1, 2], [3, 4]]),
    pd.DataFrame(), pd.DataFrame({"a": [1]}), pd.Series([1.0]), object(),
]

#: Integers of the hostile classes: small (0 and around it), negative, huge.  Mid-sized valid sizes (k = 559)
#: are not hostile input but real work, which a timeout cannot tell from a hang.
_integers = st.integers(-3, 9) | st.integers(max_value=-1) | st.integers(min_value=2**31)
_scalars = st.one_of(
    _integers, st.floats(), st.booleans(), st.text(max_size=4), st.binary(max_size=4), st.none(),
)


def _without_mid_sizes(array: np.ndarray) -> np.ndarray:
    """``array`` with integer elements of the same classes as ``_integers``: a mid-size element
    (``10 <= |v| < 2**31``) becomes ``v % 10`` (``vc_count_table(ks=array([451]))`` is hours of real work)."""
    if array.dtype.kind not in "iu" or not array.size:
        return array
    magnitude = np.abs(array.astype(np.float64))
    mid = (magnitude >= 10) & (magnitude < 2**31)
    out = array.copy()
    out[mid] = array[mid] % 10
    return out


HOSTILE = st.one_of(
    st.sampled_from(EDGE_VALUES),
    _scalars,
    st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner), max_leaves=6),
    hnp.arrays(hnp.scalar_dtypes(), hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)).map(_without_mid_sizes),
    hnp.from_dtype(np.dtype("int64"), max_value=9) | hnp.from_dtype(np.dtype("int64"), min_value=2**31)
    | hnp.from_dtype(np.dtype("float32")),
)


#: (callable, parameter) -> the largest size whose real work stays well inside CALL_CPU_LIMIT: the study tables below
#: enumerate every pair of a k x k network (work ~ k^4; k = 9 takes 12 to 18 s), so a valid radix above the bound
#: (up to the study's MAX_K) is real work the timeout cannot tell from a hang, and such examples are rejected.
WORK_BOUNDS = {
    ("torus_lab.studies.virtual_mesh.adaptivity_summary", "ks"): 6,
    ("torus_lab.studies.virtual_mesh.cdg_table", "ks"): 6,
}


def _ints_in(value: Any) -> Iterator[int]:
    """Every int (Python or numpy) held by ``value``, through nested lists, tuples and arrays."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _ints_in(item)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        yield int(value)


def _beyond_work_bound(qualname: str, target: str, value: Any) -> bool:
    bound = WORK_BOUNDS.get((qualname, target))
    return bound is not None and any(bound < v <= 4096 for v in _ints_in(value))


def _names_parameter(message: str, names: list[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) for name in names)


def _resolve(value: Any) -> Any:
    return value.build() if isinstance(value, Lazy) else copy.deepcopy(value)


def _arguments(qualname: str, params: list[inspect.Parameter], target: str, value: Any) -> tuple[list, dict, list]:
    """Positional and keyword arguments with ``value`` for ``target``, and the names a message may use."""
    valid = VALID_ARGS.get(qualname)
    args: list = []
    kwargs: dict = {}
    for p in params:
        if p.name == target:
            chosen = value
        elif valid is not None and p.name in valid:
            chosen = _resolve(valid[p.name])
        elif p.default is not p.empty:
            continue
        elif valid is None:
            chosen = value
        else:
            raise AssertionError(f"VALID_ARGS[{qualname!r}] misses the required parameter {p.name!r}")
        if p.kind in (p.POSITIONAL_ONLY,):
            args.append(chosen)
        else:
            kwargs[p.name] = chosen
    if valid is not None:  # baseline keywords that reach a ``**kwargs``
        known = {p.name for p in params}
        kwargs.update({key: _resolve(v) for key, v in valid.items() if key not in known})
    names = [target] if valid is not None else [p.name for p in params]
    return args, kwargs, names


@pytest.fixture(autouse=True)
def _fuzz_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[None]:
    """Small memory limit, serial backend, no cache, a scratch working directory, the registry restored."""
    from torus_lab.routing import registry

    monkeypatch.setenv("TORUS_LAB_MEMORY_LIMIT", "1G")
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    monkeypatch.setenv("TORUS_LAB_CACHE", "off")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    try:
        with registry.REGISTRY.scoped():
            yield
    finally:
        import matplotlib.pyplot as plt

        plt.close("all")


# The default run draws the same examples every time (a fixed seed); ``make fuzz`` draws fresh ones.
_fixed_seed = seed(16) if EXAMPLES is None else (lambda test: test)


@functools.cache
def _baseline(qualname: str) -> None:
    """Call ``qualname`` once with its valid arguments, unguarded (its compilation and first-use work happen here,
    not under the CPU guard); a baseline that fails is a broken ``VALID_ARGS`` entry."""
    obj = CALLABLES[qualname]
    params = _parameters(obj)
    valid = VALID_ARGS[qualname]
    kwargs = {p.name: _resolve(valid[p.name]) for p in params if p.name in valid}
    kwargs.update({key: _resolve(v) for key, v in valid.items() if key not in kwargs})
    obj(**kwargs)


def _check_hostile_argument(qualname: str, target: str, value: Any) -> None:
    """A hostile value for ``target`` returns or is refused with ValueError/TypeError naming ``target``."""
    obj = CALLABLES[qualname]
    if qualname in VALID_ARGS:
        _baseline(qualname)
    args, kwargs, names = _arguments(qualname, _parameters(obj), target, value)
    try:
        with cpu_limit(CALL_CPU_LIMIT):
            obj(*args, **kwargs)
    except MemoryLimitError:
        pass
    except (ValueError, TypeError) as err:
        message = " ".join(str(err).split())
        assert _names_parameter(message, names), (
            f"{qualname}({target}={value!r:.60}) raised {type(err).__name__} not naming {' or '.join(names)}: "
            f"{message[:200]}"
        )
    except Exception as err:
        message = " ".join(str(err).split())
        failure = f"{qualname}({target}={value!r:.60}) raised {type(err).__name__}: {message[:200]}"
        raise AssertionError(failure) from err
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


# One test function per part of the package, at most CASES_PER_TEST parameters each: hypothesis's pytest plugin wraps
# a parametrized test's settings once per parameter (the wrappers chain), so one test with all ~1,000 cases
# overflowed the recursion limit when the settings were read (under the ``ci`` profile, which CI loads).
CASES_PER_TEST = 300


def _hostile_test(cases: list[Any]) -> Callable[..., None]:
    """A fresh hypothesis test over ``cases`` (its own function object, so its own settings chain)."""

    @pytest.mark.parametrize(("qualname", "target"), cases)
    @settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @_fixed_seed
    @given(value=HOSTILE)
    def test(qualname: str, target: str, value: Any) -> None:
        """A hostile value for ``target`` returns or is refused with ValueError/TypeError naming ``target``."""
        if _beyond_work_bound(qualname, target, value):
            reject()
        _check_hostile_argument(qualname, target, value)

    return test


def _case_groups() -> dict[str, list[Any]]:
    """CASES by part of the package (``routing``, ``studies``, ...), large parts split in numbered chunks."""
    by_part: dict[str, list[Any]] = {}
    for case in CASES:
        part = case.values[0].split(".")[1]
        by_part.setdefault(part, []).append(case)
    groups = {}
    for part, cases in by_part.items():
        chunks = [cases[i : i + CASES_PER_TEST] for i in range(0, len(cases), CASES_PER_TEST)]
        for number, chunk in enumerate(chunks, start=1):
            groups[part if len(chunks) == 1 else f"{part}_{number}"] = chunk
    return groups


for _group, _cases in _case_groups().items():
    globals()[f"test_hostile_argument_{_group}"] = _hostile_test(_cases)
