"""The simulator's one configuration object: router, traffic and run length, validated and frozen.

A :class:`SimConfig` is built once (from keywords, or from a YAML mapping with :meth:`SimConfig.from_mapping`)
and passed to :func:`torus_lab.sim.simulate` together with the routing function, which fixes the topology, the
faults and the number of virtual channels.  Every field is checked when the object is made, so a bad value is
refused before any simulation starts, naming the field.

Examples
--------
>>> cfg = SimConfig.from_mapping({"packet_length": 8, "warmup": 500, "measure": 2000})
>>> cfg.replace(offered_load=0.3).offered_load, cfg.packet_length
(0.3, 8)
>>> SimConfig(vc_allocation="greedy")
Traceback (most recent call last):
...
ValueError: vc_allocation must be one of ('atomic', 'nonatomic'), got 'greedy'
>>> bs = SimConfig.preset("booksim", offered_load=0.2)
>>> bs.router, bs.channel_latency, bs.buffer_depth, bs.uniform_includes_source
('booksim', 2, 8, True)
>>> fast = bs.replace(input_speedup=2, output_speedup=2, internal_speedup=1.5)   # BookSim2's router speedups
>>> fast.input_speedup, fast.internal_speedup, fast.output_buffer_size
(2, 1.5, -1)
>>> SimConfig(input_speedup=2)
Traceback (most recent call last):
...
ValueError: input_speedup=2 needs router='booksim' (the simple router ... no speedup and no output queues)
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from torus_lab._validate import check_instance, check_int, check_str
from torus_lab.sim.traffic import INJECTIONS, PATTERNS

__all__ = ["SimConfig", "VC_ALLOCATIONS", "ROUTERS", "PRESETS", "RUN_CONTROLS", "STOP_RULES", "SPEEDUP_FIELDS",
           "check_speculative_delays"]

#: ``atomic``: a VC takes a new packet only once empty; ``nonatomic``: once the previous tail is written (BookSim).
VC_ALLOCATIONS = ("atomic", "nonatomic")

#: Router models: ``"simple"`` (:mod:`torus_lab.sim.simple`: one ``router_delay`` per router, 1-cycle channels)
#: and ``"booksim"`` (:mod:`torus_lab.sim.booksim`: BookSim2's input-queued VC router, per-stage delays).
ROUTERS = ("simple", "booksim")

#: Run-length control: ``"fixed"`` (the ``warmup`` / ``measure`` / ``drain`` windows, the default) or
#: ``"adaptive"`` (sample periods with warm-up detection, a stopping rule, an abort for unstable loads and a
#: drain; :mod:`torus_lab.sim.runlength`).
RUN_CONTROLS = ("fixed", "adaptive")

#: Adaptive stopping rules: ``"converged"`` (latency and accepted rate change by less than ``stop_threshold``
#: over ``converged_periods`` consecutive periods, BookSim2's rule) or ``"ci-width"`` (batch means: the 95%
#: confidence interval of the mean latency is narrower than ``ci_target`` times the mean).
STOP_RULES = ("converged", "ci-width")

#: Fields that only ``run_control="adaptive"`` reads (``"fixed"`` refuses non-default values).
_ADAPTIVE_ONLY = ("sample_period", "warmup_periods", "warmup_threshold", "stop_rule", "stop_threshold",
                  "converged_periods", "ci_target", "max_periods", "latency_cap")

#: Fields that only the ``booksim`` router reads (the ``simple`` router refuses non-default values).
_BOOKSIM_ONLY = ("routing_delay", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay", "channel_latency",
                 "credit_delay", "speculative", "input_speedup", "output_speedup", "internal_speedup",
                 "output_buffer_size")

#: The router speedups and the output-queue size (``router="booksim"``): :meth:`SimConfig.as_dict` leaves them out
#: while at their defaults (no speedup, unbounded queues), so results tables of runs without them keep their columns.
SPEEDUP_FIELDS = ("input_speedup", "output_speedup", "internal_speedup", "output_buffer_size")

#: Largest ``input_speedup``, ``output_speedup`` and ``internal_speedup`` accepted (the model numbers switch ports
#: and internal steps in 32-bit words; a speedup beyond the VCs of a port or the ports of a router adds nothing).
MAX_SPEEDUP = 64

#: Named starting points for :meth:`SimConfig.preset`.  ``booksim``: BookSim2's defaults at commit 28f4329
#: (``booksim_config.cpp``): routing, VC allocation, switch allocation and switch traversal 1 cycle each,
#: 2-cycle torus channels (``use_noc_latency``; set ``channel_latency=1`` for a mesh), 8-flit VC buffers,
#: ``credit_delay = 0``, non-atomic VC reuse (``wait_for_tail_credit = 0``), no speculative switch allocation
#: (``speculative = 0``), uniform traffic including the source; no input, output or internal speedup and unbounded
#: output queues (``output_buffer_size = -1``).
PRESETS = {
    "simple": {},
    "booksim": dict(router="booksim", routing_delay=1, vc_alloc_delay=1, sw_alloc_delay=1, st_final_delay=1,
                    channel_latency=2, credit_delay=0, speculative=False, buffer_depth=8, vc_allocation="nonatomic",
                    uniform_includes_source=True, drop_after=-1),
}


def check_speculative_delays(speculative: bool, vc_alloc_delay: int, sw_alloc_delay: int) -> None:
    """Refuse speculative switch allocation with ``vc_alloc_delay > sw_alloc_delay``: the speculative grant would
    be used before the VC allocation it depends on is complete (BookSim2 stops on an assertion there).

    Examples
    --------
    >>> check_speculative_delays(True, 1, 2)
    >>> check_speculative_delays(True, 2, 1)
    Traceback (most recent call last):
    ...
    ValueError: speculative=True needs vc_alloc_delay <= sw_alloc_delay, got vc_alloc_delay=2, sw_alloc_delay=1
    """
    check_instance("speculative", speculative, bool, "a bool")
    vc_alloc_delay = check_int("vc_alloc_delay", vc_alloc_delay, 1)
    sw_alloc_delay = check_int("sw_alloc_delay", sw_alloc_delay, 1)
    if speculative and vc_alloc_delay > sw_alloc_delay:
        raise ValueError(f"speculative=True needs vc_alloc_delay <= sw_alloc_delay, got vc_alloc_delay="
                         f"{vc_alloc_delay}, sw_alloc_delay={sw_alloc_delay}")


def _real(name: str, value: Any, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not low <= value <= high:  # also refuses NaN
        raise ValueError(f"{name} must be in [{low}, {high}], got {value!r}")
    return float(value)


def _queue_size(value: Any) -> int:
    """``output_buffer_size``: -1 (unbounded) or at least 1 flit (BookSim2 would never send with 0)."""
    size = check_int("output_buffer_size", value, -1)
    if size == 0:
        raise ValueError("output_buffer_size must be -1 (unbounded) or >= 1, got 0 (no flit could ever be queued)")
    return size


@dataclass(frozen=True)
class SimConfig:
    """Everything a simulation run needs besides the routing function and the seed.

    Router
        ``buffer_depth`` flits per input VC; ``router_delay`` cycles a head spends in each router (zero-load
        latency :func:`torus_lab.sim.zero_load_latency`); ``vc_allocation`` (:data:`VC_ALLOCATIONS`);
        ``deadlock_cycles``: declare deadlock when flits are in the network and none moved for this many cycles;
        ``drop_after``: a head with no permitted output waits this many cycles and is dropped (-1: never);
        ``hop_limit``: drop a packet after this many hops without arriving (0: no limit).
        ``router``: the router model (:data:`ROUTERS`; default ``"simple"``).
    BookSim router (``router="booksim"``, :mod:`torus_lab.sim.booksim`; the simple router refuses other values)
        ``routing_delay`` (>= 0; 0 = lookahead routing), ``vc_alloc_delay``, ``sw_alloc_delay`` and
        ``st_final_delay`` (>= 1): cycles of route computation, VC allocation, switch allocation and switch
        traversal; ``channel_latency`` (>= 1): cycles per inter-router channel, credits take the same;
        ``credit_delay`` (>= 0): cycles a router takes to process a received credit; ``speculative``: a head
        waiting for VC allocation also bids for the switch in the same cycle, at lower priority (BookSim2's
        ``speculative = 1``; needs ``vc_alloc_delay <= sw_alloc_delay``).  ``buffer_depth`` is
        BookSim's ``vc_buf_size``; ``vc_allocation`` must be ``"nonatomic"`` (BookSim's
        ``wait_for_tail_credit = 0``).  Speedups (BookSim2's fields of the same names;
        ``docs/conventions.md#sim-booksim-speedup``): ``input_speedup`` (>= 1) switch inputs per input port, VC
        ``v`` using input ``v mod input_speedup``, so that many VCs of one port can cross the switch in a cycle;
        ``output_speedup`` (>= 1) switch outputs per output port, input port ``p`` using output ``p mod
        output_speedup``; ``internal_speedup`` (a real >= 1) routing, both allocations and switch traversal run
        ``floor((t + 1) s) - floor(t s)`` times in cycle ``t``; ``output_buffer_size`` flits per output queue
        (-1: unbounded, BookSim2's default; a full queue takes no switch request), which the channel drains one
        flit per cycle.
    Traffic
        ``traffic`` (a pattern of :mod:`torus_lab.sim.traffic`); ``offered_load`` in flits per node per cycle
        (on average a node starts ``offered_load / packet_length`` packets per cycle); ``injection``
        (:data:`torus_lab.sim.traffic.INJECTIONS`: ``"bernoulli"``, or ``"on-off"`` bursts with
        ``burst_alpha`` = P(off -> on) and ``burst_beta`` = P(on -> off) per cycle);
        ``packet_length`` flits; ``hotspot_node`` / ``hotspot_fraction`` for the hotspot pattern;
        ``queue_capacity`` packets per source queue (more are counted and discarded);
        ``uniform_includes_source``: the uniform pattern draws the destination from all nodes, the source
        included (BookSim2's uniform; a self-addressed packet goes injection -> local router -> ejection);
        default False: from the other nodes.
    Run length
        ``run_control`` (:data:`RUN_CONTROLS`; the rules and the result's ``end_rule``:
        :mod:`torus_lab.sim.runlength`).  ``"fixed"`` (default): packets generated in
        ``[warmup, warmup + measure)`` are measured; afterwards the run continues until every measured packet is
        delivered or dropped, for at most ``drain`` cycles (still injecting unless ``inject_during_drain`` is
        False).
        ``"adaptive"`` (``warmup`` and ``measure`` are not read; ``drain`` and ``inject_during_drain`` are): the
        run advances ``sample_period`` cycles at a time.  Warm-up ends after ``warmup_periods`` periods, or with
        ``warmup_periods=0`` once the period's mean latency and accepted rate both change by less than
        ``warmup_threshold`` (relative) from the previous period.  Measurement stops by ``stop_rule``
        (:data:`STOP_RULES`): ``"converged"`` after ``converged_periods`` consecutive periods in which the mean
        latency and accepted rate since the start of measurement change by less than ``stop_threshold``;
        ``"ci-width"`` once the 95% batch-means confidence interval of the mean latency (one batch per period,
        at least :data:`torus_lab.sim.runlength.MIN_BATCHES`) is narrower than ``ci_target`` times the mean
        (half-width).  At most ``max_periods`` periods (warm-up included).  The run is aborted as unstable when
        the mean age of the period's delivered packets and of every packet still waiting or in flight exceeds
        ``latency_cap`` cycles (BookSim2's ``latency_thres``; None or ``math.inf``: never), or a source queue
        overflows.
    """

    traffic: str = "uniform"
    offered_load: float = 0.1
    packet_length: int = 4
    buffer_depth: int = 4
    router_delay: int = 1
    warmup: int = 1000
    measure: int = 2000
    drain: int = 20000
    inject_during_drain: bool = True
    hotspot_node: int | tuple[int, ...] = 0
    hotspot_fraction: float = 0.1
    deadlock_cycles: int = 500
    drop_after: int = 64
    queue_capacity: int = 512
    hop_limit: int = 0
    vc_allocation: str = "atomic"
    injection: str = "bernoulli"
    burst_alpha: float = 0.5
    burst_beta: float = 0.5
    router: str = "simple"
    routing_delay: int = 1
    vc_alloc_delay: int = 1
    sw_alloc_delay: int = 1
    st_final_delay: int = 1
    channel_latency: int = 1
    credit_delay: int = 0
    speculative: bool = False
    input_speedup: int = 1
    output_speedup: int = 1
    internal_speedup: float = 1.0
    output_buffer_size: int = -1
    uniform_includes_source: bool = False
    run_control: str = "fixed"
    sample_period: int = 1000
    warmup_periods: int = 0
    warmup_threshold: float = 0.05
    stop_rule: str = "converged"
    stop_threshold: float = 0.05
    converged_periods: int = 3
    ci_target: float = 0.05
    max_periods: int = 10
    latency_cap: float | None = 500.0

    def __post_init__(self) -> None:
        if not isinstance(self.traffic, str) or self.traffic not in PATTERNS:
            raise ValueError(f"traffic must be one of {tuple(PATTERNS)}, got {self.traffic!r}")
        length = check_int("packet_length", self.packet_length, 1)
        fixed = {
            "offered_load": _real("offered_load", self.offered_load, 0.0, float(length)),
            "packet_length": length,
            "buffer_depth": check_int("buffer_depth", self.buffer_depth, 1),
            "router_delay": check_int("router_delay", self.router_delay, 1),
            "warmup": check_int("warmup", self.warmup, 0),
            "measure": check_int("measure", self.measure, 1),
            "drain": check_int("drain", self.drain, 0),
            "hotspot_fraction": _real("hotspot_fraction", self.hotspot_fraction, 0.0, 1.0),
            "deadlock_cycles": check_int("deadlock_cycles", self.deadlock_cycles, 2),
            "drop_after": check_int("drop_after", self.drop_after, -1),
            "queue_capacity": check_int("queue_capacity", self.queue_capacity, 1),
            "hop_limit": check_int("hop_limit", self.hop_limit, 0),
            "injection": check_str("injection", self.injection, tuple(INJECTIONS)),
            "burst_alpha": _real("burst_alpha", self.burst_alpha, 0.0, 1.0),
            "burst_beta": _real("burst_beta", self.burst_beta, 0.0, 1.0),
            "routing_delay": check_int("routing_delay", self.routing_delay, 0),
            "vc_alloc_delay": check_int("vc_alloc_delay", self.vc_alloc_delay, 1),
            "sw_alloc_delay": check_int("sw_alloc_delay", self.sw_alloc_delay, 1),
            "st_final_delay": check_int("st_final_delay", self.st_final_delay, 1),
            "channel_latency": check_int("channel_latency", self.channel_latency, 1),
            "credit_delay": check_int("credit_delay", self.credit_delay, 0),
            "input_speedup": check_int("input_speedup", self.input_speedup, 1, MAX_SPEEDUP),
            "output_speedup": check_int("output_speedup", self.output_speedup, 1, MAX_SPEEDUP),
            "internal_speedup": _real("internal_speedup", self.internal_speedup, 1.0, float(MAX_SPEEDUP)),
            "output_buffer_size": _queue_size(self.output_buffer_size),
            "run_control": check_str("run_control", self.run_control, RUN_CONTROLS),
            "sample_period": check_int("sample_period", self.sample_period, 1),
            "warmup_periods": check_int("warmup_periods", self.warmup_periods, 0),
            "warmup_threshold": _real("warmup_threshold", self.warmup_threshold, 0.0, 1.0),
            "stop_rule": check_str("stop_rule", self.stop_rule, STOP_RULES),
            "stop_threshold": _real("stop_threshold", self.stop_threshold, 0.0, 1.0),
            "converged_periods": check_int("converged_periods", self.converged_periods, 1),
            "ci_target": _real("ci_target", self.ci_target, 0.0, 1.0),
            "max_periods": check_int("max_periods", self.max_periods, 2),
            "latency_cap": None if self.latency_cap is None else _real("latency_cap", self.latency_cap, 0.0, math.inf),
        }
        if not isinstance(self.router, str) or self.router not in ROUTERS:
            raise ValueError(f"router must be one of {ROUTERS}, got {self.router!r}")
        if not isinstance(self.speculative, bool):
            raise TypeError(f"speculative must be a bool, got {self.speculative!r}")
        fixed["speculative"] = self.speculative
        if not isinstance(self.uniform_includes_source, bool):
            raise TypeError(f"uniform_includes_source must be a bool, got {self.uniform_includes_source!r}")
        if fixed["burst_alpha"] == 0.0:
            raise ValueError("burst_alpha must be > 0 (a node that never turns on sends nothing), got 0.0")
        if fixed["injection"] == "on-off":
            alpha, beta = fixed["burst_alpha"], fixed["burst_beta"]
            on_rate = fixed["offered_load"] / length * (alpha + beta) / alpha
            if on_rate > 1.0:
                raise ValueError(
                    f"offered_load={self.offered_load} needs {on_rate:.3g} packets per cycle during a burst "
                    f"(packet_length={length}, burst_alpha={self.burst_alpha}, burst_beta={self.burst_beta}); "
                    "at most 1 is possible: lower offered_load or burst_beta, or raise burst_alpha"
                )
        if not isinstance(self.inject_during_drain, bool):
            raise TypeError(f"inject_during_drain must be a bool, got {self.inject_during_drain!r}")
        if not isinstance(self.vc_allocation, str) or self.vc_allocation not in VC_ALLOCATIONS:
            raise ValueError(f"vc_allocation must be one of {VC_ALLOCATIONS}, got {self.vc_allocation!r}")
        node = self.hotspot_node
        if isinstance(node, list):
            node = tuple(node)
        if isinstance(node, tuple):
            for part in node:
                check_int("hotspot_node coordinate", part, 0)
            fixed["hotspot_node"] = tuple(int(p) for p in node)
        else:
            fixed["hotspot_node"] = check_int("hotspot_node", node, 0)
        if fixed["deadlock_cycles"] <= max(fixed["drop_after"], 0) + fixed["router_delay"]:
            raise ValueError(f"deadlock_cycles={self.deadlock_cycles} must exceed drop_after + router_delay")
        self._check_router(fixed)
        self._check_run_control(fixed)
        for name, value in fixed.items():
            object.__setattr__(self, name, value)

    def _check_run_control(self, fixed: dict[str, Any]) -> None:
        """Refuse adaptive run-length settings with ``run_control="fixed"`` and impossible adaptive ones."""
        if fixed["run_control"] == "fixed":
            defaults = {f.name: f.default for f in dataclasses.fields(self)}
            for name in _ADAPTIVE_ONLY:
                if fixed[name] != defaults[name]:
                    raise ValueError(f"{name}={fixed[name]!r} needs run_control='adaptive' (run_control='fixed' "
                                     f"uses warmup, measure and drain)")
            return
        for name in ("warmup_threshold", "stop_threshold", "ci_target", "latency_cap"):
            if fixed[name] is not None and fixed[name] <= 0:
                raise ValueError(f"{name} must be > 0 with run_control='adaptive', got {fixed[name]!r}")
        if fixed["warmup_periods"] >= fixed["max_periods"]:
            raise ValueError(f"warmup_periods={fixed['warmup_periods']!r} must be below max_periods="
                             f"{fixed['max_periods']!r} (no period would be measured)")

    def _check_router(self, fixed: dict[str, Any]) -> None:
        """Refuse settings the chosen router model cannot run, naming the field."""
        if self.router == "simple":
            defaults = {f.name: f.default for f in dataclasses.fields(self)}
            for name in _BOOKSIM_ONLY:
                if fixed[name] != defaults[name]:
                    raise ValueError(f"{name}={fixed[name]!r} needs router='booksim' (the simple router has one "
                                     f"router_delay, 1-cycle channels, no speedup and no output queues)")
            return
        if self.vc_allocation != "nonatomic":
            raise ValueError(f"router='booksim' reuses VCs non-atomically: vc_allocation must be 'nonatomic', "
                             f"got {self.vc_allocation!r}")
        if fixed["drop_after"] != -1:
            raise ValueError(f"drop_after={self.drop_after!r}: router='booksim' never drops a waiting head "
                             f"(use -1)")
        if fixed["hop_limit"] != 0:
            raise ValueError(f"hop_limit={self.hop_limit!r}: router='booksim' does not drop packets (use 0)")
        if self.router_delay != 1:
            raise ValueError(f"router_delay={self.router_delay!r} is the simple router's; router='booksim' takes "
                             f"routing_delay, vc_alloc_delay, sw_alloc_delay and st_final_delay")
        check_speculative_delays(fixed["speculative"], fixed["vc_alloc_delay"], fixed["sw_alloc_delay"])

    def injection_rates(self):
        """``(packet probability per cycle while on, burst_alpha, burst_beta)`` for the generation stage
        (:func:`torus_lab.sim.traffic.starts_packet`): Bernoulli starts a packet with probability
        ``offered_load / packet_length``; on-off raises it by ``(alpha + beta) / alpha`` while on.

        Examples
        --------
        >>> SimConfig(offered_load=0.2, packet_length=4).injection_rates().tolist()
        [0.05, 0.5, 0.5]
        """
        import numpy as np

        prob = self.offered_load / self.packet_length
        if self.injection == "on-off":
            prob *= (self.burst_alpha + self.burst_beta) / self.burst_alpha
        return np.array([prob, self.burst_alpha, self.burst_beta])

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> SimConfig:
        """A config from a named preset (:data:`PRESETS`) with ``overrides`` applied, validated.

        Examples
        --------
        >>> cfg = SimConfig.preset("booksim", channel_latency=1, packet_length=1)
        >>> cfg.router, cfg.channel_latency, cfg.routing_delay, cfg.packet_length
        ('booksim', 1, 1, 1)
        """
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"preset name must be one of {tuple(PRESETS)}, got {name!r}")
        return cls.from_mapping({**PRESETS[name], **overrides})

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> SimConfig:
        """A config from a mapping (a YAML block); unknown keys are refused, listing the valid ones."""
        if not isinstance(mapping, Mapping):
            raise TypeError(f"a simulator configuration must be a mapping, got {mapping!r}")
        valid = [f.name for f in dataclasses.fields(cls)]
        unknown = [key for key in mapping if key not in valid]
        if unknown:
            raise ValueError(f"unknown simulator setting(s) {unknown}; valid settings: {', '.join(valid)}")
        return cls(**mapping)

    def replace(self, **changes: Any) -> SimConfig:
        """A new, validated config with ``changes`` applied."""
        return SimConfig.from_mapping({**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        """Every field by name (one row of a results table), except the router speedups and the output-queue size
        while at their defaults (:data:`SPEEDUP_FIELDS`): results tables of runs without them keep their columns.

        Examples
        --------
        >>> "input_speedup" in SimConfig.preset("booksim").as_dict()
        False
        >>> SimConfig.preset("booksim", input_speedup=2).as_dict()["input_speedup"]
        2
        """
        row = dataclasses.asdict(self)
        for name in SPEEDUP_FIELDS:
            if row[name] == _DEFAULTS[name]:
                del row[name]
        return row


#: Every field's default (the speedups :meth:`SimConfig.as_dict` leaves out at theirs).
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(SimConfig)}
