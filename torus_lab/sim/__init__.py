"""Cycle-driven, flit-level wormhole network simulator (engine, traffic, statistics).

Entry points: :func:`simulate`, :func:`load_sweep`, :func:`find_saturation`; the router model is described in
:mod:`torus_lab.sim.kernels`.
"""

from torus_lab.sim.engine import SimResult, SimState, find_saturation, load_sweep, simulate, zero_load_latency
from torus_lab.sim.stats import confidence_interval, summarize

__all__ = [
    "simulate",
    "load_sweep",
    "find_saturation",
    "zero_load_latency",
    "SimResult",
    "SimState",
    "confidence_interval",
    "summarize",
]
