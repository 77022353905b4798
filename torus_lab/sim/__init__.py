"""Cycle-driven, flit-level wormhole network simulator (configuration, engine, traffic, saturation).

Entry points: :class:`SimConfig` (router, traffic and run length, validated and frozen), :func:`simulate`,
:func:`load_sweep`, :func:`find_saturation` and the one saturation definition of :mod:`torus_lab.sim.saturation`
(:class:`Saturation`, :func:`saturation_table`).  Two router models, chosen by ``SimConfig.router``: the simple
one (default; :mod:`torus_lab.sim.simple`, zero-load latency :func:`zero_load_latency`) and a
BookSim2-compatible input-queued VC router (``SimConfig.preset("booksim")``; :mod:`torus_lab.sim.booksim`, zero-load
latency :func:`torus_lab.sim.booksim.booksim_zero_load_latency`).  Run length: fixed windows (default) or
adaptive control (warm-up detection, stopping rule, abort for unstable loads, drain;
:mod:`torus_lab.sim.runlength`); every result says which rule ended its run (``SimResult.end_rule``,
:data:`torus_lab.sim.runlength.END_RULES`), and a deadlock in any phase also issues a :class:`SimulationDeadlock`
warning.
"""

from torus_lab.sim.config import SimConfig
from torus_lab.sim.engine import SimResult, SimState, find_saturation, load_sweep, simulate, zero_load_latency
from torus_lab.sim.runlength import END_RULES, SimulationDeadlock
from torus_lab.sim.saturation import Saturation, saturation_table, sustained_loads

__all__ = [
    "SimConfig",
    "simulate",
    "load_sweep",
    "find_saturation",
    "Saturation",
    "saturation_table",
    "sustained_loads",
    "zero_load_latency",
    "SimResult",
    "SimState",
    "SimulationDeadlock",
    "END_RULES",
]
