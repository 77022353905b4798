"""Run-length control: which rule ends a simulation, for both router models (``SimConfig.run_control``).

``run_control="fixed"`` (default) runs the fixed windows of :class:`torus_lab.sim.SimConfig` (``warmup``,
``measure``, ``drain``) in one call of the compiled loop.  ``run_control="adaptive"`` follows BookSim2's
``sim_type = latency`` method (Dally & Towles, *Principles and Practices of Interconnection Networks*, 2004,
sec. 24.3: warm-up, measurement, drain; BookSim2's ``TrafficManager::_SingleSim``), restated here:

1. **Sample periods.** The compiled loop runs ``sample_period`` cycles at a time (it resumes from its state:
   the cycle counter lives in the state's counters); the decisions below are taken in Python between
   periods, by one controller (``run_adaptive``) for both router models.  A period's *latency* is the mean
   latency of the packets delivered in it (whenever they were created), its *accepted rate* the flits ejected
   in it per active node per cycle.
2. **Warm-up** ends after ``warmup_periods`` periods, or (``warmup_periods=0``) at the end of the first period
   whose latency and accepted rate both differ from the previous period's by less than ``warmup_threshold``
   (relative, :func:`relative_change`).  Packets created from then on are *measured*.
3. **Measurement** ends by ``stop_rule``: ``"converged"`` after ``converged_periods`` consecutive periods in
   which the cumulative mean latency and accepted rate since the start of measurement both changed by less
   than ``stop_threshold`` (BookSim2's ``stopping_thres`` / ``acc_stopping_thres`` with its 3 periods; the
   first measurement period is compared with the last warm-up period, as in BookSim2), or
   ``"ci-width"`` (batch means, one batch per measurement period: once at least :data:`MIN_BATCHES` batches
   give a 95% Student-t confidence interval of the mean latency whose half-width is below ``ci_target``
   times the mean, :func:`ci_width_met`).  Neither within ``max_periods`` periods (warm-up included):
   ``"max-periods"``.
4. **Unstable loads** are aborted at the end of any period (warm-up, measurement, or drain unless the drain
   ended in that period): when the mean age
   of the period's delivered packets and of every packet still waiting in a source queue or in flight
   exceeds ``latency_cap`` (BookSim2's ``latency_thres``, which counts in-flight packets at their current age;
   None: never),
   or when a source queue overflowed (``queue_capacity``: the load is above what the network accepts).
5. **Drain**: generation goes on (unless ``inject_during_drain`` is False) and the run continues until every
   measured packet is delivered, for at most ``drain`` cycles.

A deadlock (flits in the network, none moved for ``deadlock_cycles``) ends the run in any phase; the result
then carries the cycle of waiting channels, the counts of packets generated, delivered and in flight, and
:func:`torus_lab.sim.simulate` issues a :class:`SimulationDeadlock` warning.

The result's ``end_rule`` is one of :data:`END_RULES`.  Defaults and the differences from BookSim2:
``docs/conventions.md#sim-run-length``.

The engine (:mod:`torus_lab.sim.engine`) drives a run through ``RunWindow``, ``fixed_end_rule``, ``run_adaptive``
and ``AdaptiveOutcome``: public names, but not in ``__all__`` (they take the engine's callbacks and counters, not
a user's values).

Examples
--------
>>> relative_change(10.0, 12.5), relative_change(0.0, 0.0), relative_change(float("nan"), 3.0)
(0.2, 0.0, inf)
>>> ci_width_met([20.0, 20.5, 19.8, 20.2, 20.1], target=0.05)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from torus_lab._validate import check_instance, check_int, check_real, check_real_array
from torus_lab.sim.config import SimConfig
from torus_lab.sim.packets import CNT, WORD_LIMIT, packet_pool_size
from torus_lab.stats import confidence_interval
from torus_lab.topology import Torus

__all__ = ["END_RULES", "MIN_BATCHES", "SimulationDeadlock", "relative_change", "ci_width_met", "run_horizon",
           "check_run_bounds"]

#: What ended a run (``SimResult.end_rule``):
#:
#: * ``"fixed-window"``: fixed mode, the windows ran out and every measured packet was delivered;
#: * ``"converged"``: adaptive, latency and accepted rate converged (``stop_rule="converged"``), then drained;
#: * ``"ci-width"``: adaptive, the batch-means confidence interval was narrow enough, then drained;
#: * ``"max-periods"``: adaptive, ``max_periods`` periods without meeting the stopping rule (or without ending
#:   warm-up: then nothing was measured), then drained;
#: * ``"unstable"``: adaptive, aborted: mean packet age above ``latency_cap`` or a source queue overflowed;
#: * ``"deadlocked"``: either mode, any phase: a deadlock (see ``deadlock_cycle``);
#: * ``"drain-timeout"``: either mode, ``drain`` cycles passed with measured packets undelivered.
END_RULES = ("fixed-window", "converged", "ci-width", "max-periods", "unstable", "deadlocked", "drain-timeout")

#: Fewest batches (measurement periods) the ``"ci-width"`` rule accepts (batch-means intervals from 2-3 batches
#: are too wide to be trusted, and too noisy to stop on).
MIN_BATCHES = 5

#: "Never" for the window boundaries of a phase that has not started (far beyond any run, no int64 overflow).
NEVER = 2**60


class SimulationDeadlock(RuntimeWarning):
    """Warning issued by :func:`torus_lab.sim.simulate` when a run deadlocks (in any phase)."""


@dataclass(frozen=True)
class RunWindow:
    """Window boundaries the compiled loop reads: packets created in ``[warmup, measure_end)`` are measured,
    generation stops at ``gen_end``, the run ends once measured packets are delivered after ``measure_end``
    (or ``drain`` cycles after it)."""

    warmup: int
    measure_end: int
    gen_end: int


@dataclass(frozen=True)
class _PeriodSample:
    """What one sample period showed (counter differences over the period plus the packets alive at its end)."""

    delivered: int
    latency_sum: int
    flits_ejected: int
    queue_overflow: int
    alive: int
    alive_age_sum: int
    cycles: int
    nodes: int

    @property
    def latency(self) -> float:
        """Mean latency of the packets delivered in the period (NaN if none)."""
        return self.latency_sum / self.delivered if self.delivered else math.nan

    @property
    def accepted(self) -> float:
        """Flits ejected per node per cycle in the period."""
        return self.flits_ejected / (self.nodes * self.cycles) if self.cycles else math.nan

    @property
    def mean_age(self) -> float:
        """Mean age of the period's delivered packets (their latency) and of the packets still alive (0 if none)."""
        count = self.delivered + self.alive
        return (self.latency_sum + self.alive_age_sum) / count if count else 0.0


def run_horizon(config: SimConfig) -> tuple[int, str]:
    """The most cycles a run under ``config`` can last, and the fields that set it: ``warmup + measure + drain +
    1`` with fixed windows, ``max_periods * sample_period + drain + 1`` with adaptive control (the compiled loop
    stops itself ``drain`` cycles after measurement ends, and checks it once more in the cycle after).

    Examples
    --------
    >>> run_horizon(SimConfig(warmup=10, measure=20, drain=5))
    (36, 'warmup + measure + drain')
    >>> run_horizon(SimConfig(run_control="adaptive", sample_period=100, max_periods=4, drain=50))
    (451, 'max_periods * sample_period + drain')
    """
    check_instance("config", config, SimConfig)
    if config.run_control == "fixed":
        return config.warmup + config.measure + config.drain + 1, "warmup + measure + drain"
    return config.max_periods * config.sample_period + config.drain + 1, "max_periods * sample_period + drain"


def _cycle_reach(config: SimConfig) -> int:
    """Cycles past the current one that a model writes into its cycle words (a flit's or credit's arrival, a
    timer): the simple router's ``router_delay``; the BookSim model's delays, channel and margin."""
    if config.router == "simple":
        return config.router_delay
    return (config.routing_delay + config.vc_alloc_delay + config.sw_alloc_delay + config.st_final_delay
            + config.credit_delay + config.channel_latency + 8)  # fmt: skip


def check_run_bounds(config: SimConfig, topology: Torus, vcs: int) -> None:
    """Refuse a run its state cannot count, before any work, naming the fields and the limit.

    Both router models keep cycle numbers and packet ids in 32-bit words
    (:data:`torus_lab.sim.packets.WORD_LIMIT`): the run's length (:func:`run_horizon`) plus the cycles a model
    writes ahead of the current one must stay within it, and so must the packet pool of ``topology`` with
    ``vcs`` VCs and ``config.queue_capacity`` packets per source queue
    (:func:`torus_lab.sim.packets.packet_pool_size`).  The 64-bit counters then cannot overflow.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> check_run_bounds(SimConfig(), Torus(2, 4), 2)
    >>> try:
    ...     check_run_bounds(SimConfig(warmup=10**15), Torus(2, 4), 2)
    ... except ValueError as error:
    ...     print(str(error)[:64])
    warmup + measure + drain = 1000000000022000 cycles (warmup=10000
    """
    check_instance("config", config, SimConfig)
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    vcs = check_int("vcs", vcs, minimum=1, maximum=WORD_LIMIT)
    horizon, fields = run_horizon(config)
    longest = WORD_LIMIT - _cycle_reach(config)
    if horizon > longest:
        names = [name for name in ("warmup", "measure", "max_periods", "sample_period", "drain") if name in fields]
        values = ", ".join(f"{name}={getattr(config, name)}" for name in names)
        raise ValueError(f"{fields} = {horizon - 1} cycles ({values}) is more than the simulator can count: cycle "
                         f"numbers are 32-bit words (WORD_LIMIT = {WORD_LIMIT}), so a run of router="
                         f"{config.router!r} lasts at most {longest - 1} cycles")  # fmt: skip
    nn, nch = topology.num_nodes, topology.num_channels
    input_vcs = nch * vcs + nn if config.router == "simple" else (nch + 2 * nn) * vcs + nn
    pool = packet_pool_size(nn, input_vcs, config.queue_capacity)
    if pool > WORD_LIMIT:
        raise ValueError(f"queue_capacity={config.queue_capacity} on {topology!r} with vcs={vcs} needs a pool of "
                         f"{pool} packet ids, more than the simulator can count: packet ids are 32-bit words "
                         f"(WORD_LIMIT = {WORD_LIMIT})")  # fmt: skip


def relative_change(previous: float, current: float) -> float:
    """``|current - previous| / |current|``, BookSim2's convergence measure; 0 when both are equal (also both
    zero or both NaN: a period without traffic), infinite when only one is NaN or ``current`` is 0.

    Examples
    --------
    >>> relative_change(8.0, 10.0), relative_change(1.0, 0.0)
    (0.2, inf)
    """
    previous = check_real("previous", previous, finite=False)
    current = check_real("current", current, finite=False)
    both_nan = math.isnan(previous) and math.isnan(current)
    if both_nan or previous == current:
        return 0.0
    if math.isnan(previous) or math.isnan(current) or current == 0:
        return math.inf
    return abs(current - previous) / abs(current)


def ci_width_met(batch_means: Sequence[float], target: float, level: float = 0.95) -> bool:
    """Whether at least :data:`MIN_BATCHES` batch means give a ``level`` confidence interval of their mean whose
    half-width is below ``target`` times the mean (batch means: Law & Kelton, *Simulation Modeling and
    Analysis*, sec. 9.5.3).

    Examples
    --------
    >>> ci_width_met([10.0, 30.0, 12.0, 28.0, 20.0], target=0.05), ci_width_met([10.0, 10.1], target=0.05)
    (False, False)
    """
    values = check_real_array("batch_means", batch_means, ndim=1)
    target = check_real("target", target, minimum=0)
    level = check_real("level", level, minimum=0, maximum=1, open_maximum=True)
    values = values[np.isfinite(values)]
    if values.size < MIN_BATCHES:
        return False
    mean, half = confidence_interval(values, level)
    return bool(half < target * abs(mean))


def _sample_period(counters_before: np.ndarray, counters_after: np.ndarray, alive_gen: np.ndarray,
                  nodes: int) -> _PeriodSample:  # fmt: skip
    """The ``_PeriodSample`` between two snapshots of the kernel counters (:data:`CNT`), with the creation
    cycles of the packets alive at the end (``alive_gen``) and the number of active nodes.

    Examples
    --------
    >>> before = np.zeros(len(CNT), dtype=np.int64)
    >>> after = before.copy()
    >>> after[[CNT["now"], CNT["packets_delivered"], CNT["latency_sum"], CNT["flits_ejected"]]] = 100, 4, 40, 16
    >>> s = _sample_period(before, after, np.array([90, 96]), nodes=2)
    >>> s.latency, s.accepted, s.mean_age
    (10.0, 0.08, 9.0)
    """

    def diff(name: str) -> int:
        return int(counters_after[CNT[name]] - counters_before[CNT[name]])

    now = int(counters_after[CNT["now"]])
    return _PeriodSample(
        delivered=diff("packets_delivered"),
        latency_sum=diff("latency_sum"),
        flits_ejected=diff("flits_ejected"),
        queue_overflow=diff("queue_overflow"),
        alive=int(alive_gen.size),
        alive_age_sum=int((now - alive_gen).sum()),
        cycles=diff("now"),
        nodes=int(nodes),
    )


def fixed_end_rule(counters: np.ndarray) -> str:
    """``end_rule`` of a fixed-window run from its final counters.

    Examples
    --------
    >>> c = np.zeros(len(CNT), dtype=np.int64)
    >>> c[CNT["measured_generated"]] = 3
    >>> fixed_end_rule(c)
    'drain-timeout'
    """
    if counters[CNT["deadlock"]]:
        return "deadlocked"
    if counters[CNT["measured_done"]] < counters[CNT["measured_generated"]]:
        return "drain-timeout"
    return "fixed-window"


@dataclass
class AdaptiveOutcome:
    """What ``run_adaptive`` decided: the rule, the measurement window and one row per period."""

    end_rule: str
    warmup_end: int
    measure_end: int
    periods: list[dict]
    batch_means: list[float]


def run_adaptive(advance: Callable[[int], bool], set_window: Callable[[RunWindow], None], counters: np.ndarray,
                 alive_gen: Callable[[], np.ndarray], config, nodes: int) -> AdaptiveOutcome:  # fmt: skip
    """Drive one run by the adaptive rules of the module docstring.

    Parameters
    ----------
    advance : callable
        ``advance(cycles)`` runs the compiled loop for up to ``cycles`` cycles; True when the loop says the run
        is over (drained, drain cap reached, or deadlocked).
    set_window : callable
        Writes a ``RunWindow`` into the loop's settings (read at the next ``advance``).
    counters : numpy.ndarray
        The loop's counters (:data:`CNT`), updated in place by ``advance``.
    alive_gen : callable
        Creation cycles of the packets alive now (in source queues or in the network).
    config : SimConfig
        ``run_control="adaptive"`` settings, ``drain`` and ``inject_during_drain``.
    nodes : int
        Active (non-faulty) nodes.
    """
    run = _AdaptiveRun(advance, set_window, counters, alive_gen, config, nodes)
    set_window(RunWindow(NEVER, NEVER, NEVER))
    end_rule, over = _warm_up_and_measure(run)
    if over or run.warmup_end < 0:  # deadlocked or unstable; or warm-up never ended: nothing measured, stop at once
        return run.outcome(end_rule)
    return run.outcome(_drain(run, end_rule))


@dataclass
class _AdaptiveRun:
    """One adaptive run in progress: the loop's handles (as :func:`run_adaptive` takes them), one row per
    period so far, the measurement periods' mean latencies and the window's ends (-1: not yet)."""

    advance: Callable[[int], bool]
    set_window: Callable[[RunWindow], None]
    counters: np.ndarray
    alive_gen: Callable[[], np.ndarray]
    config: object
    nodes: int
    rows: list[dict] = field(default_factory=list)
    batch_means: list[float] = field(default_factory=list)
    warmup_end: int = -1
    measure_end: int = -1

    @property
    def now(self) -> int:
        return int(self.counters[CNT["now"]])

    @property
    def deadlocked(self) -> bool:
        return bool(self.counters[CNT["deadlock"]])

    def next_period(self, phase: str) -> tuple[bool, _PeriodSample]:
        """Run one sample period, record its row (``phase``); whether the loop says the run is over, the sample."""
        before = self.counters.copy()
        finished = self.advance(self.config.sample_period)
        sample = _sample_period(before, self.counters, self.alive_gen(), self.nodes)
        self.rows.append(dict(period=len(self.rows) + 1, phase=phase, end_cycle=self.now,
                              delivered=sample.delivered, latency=sample.latency, accepted=sample.accepted,
                              mean_age=sample.mean_age, queue_overflow=sample.queue_overflow))  # fmt: skip
        return finished, sample

    def unstable(self, sample: _PeriodSample) -> bool:
        """A source queue overflowed, or the packets alive are older on average than the latency cap."""
        over_cap = self.config.latency_cap is not None and sample.mean_age > self.config.latency_cap
        return sample.queue_overflow > 0 or over_cap

    def outcome(self, end_rule: str) -> AdaptiveOutcome:
        return AdaptiveOutcome(end_rule, self.warmup_end, self.measure_end, self.rows, self.batch_means)


class _Convergence:
    """The ``"converged"`` stop test: the cumulative mean latency and accepted rate since warm-up ended, and how
    many periods in a row both changed by less than the stop threshold."""

    def __init__(self, nodes: int, last_warmup: _PeriodSample) -> None:
        self.nodes, self.streak = nodes, 0
        self.measured = np.zeros(3, dtype=np.int64)  # delivered, latency sum, flits ejected since warm-up ended
        # as BookSim2: the first measurement period is compared with the last warm-up period
        self.previous: tuple[float, float] = (last_warmup.latency, last_warmup.accepted)

    def update(self, sample: _PeriodSample, cycles: int, threshold: float) -> int:
        """Add a measurement period (``cycles`` measured so far); the streak of periods below ``threshold``."""
        measured = self.measured
        measured += (sample.delivered, sample.latency_sum, sample.flits_ejected)
        cumulative = (measured[1] / measured[0] if measured[0] else math.nan,
                      measured[2] / (self.nodes * cycles))  # fmt: skip
        changes = [relative_change(a, b) for a, b in zip(self.previous, cumulative, strict=True)]
        self.streak = self.streak + 1 if max(changes) < threshold else 0
        self.previous = cumulative
        return self.streak


def _warmed_up(config, period: int, previous: _PeriodSample | None, sample: _PeriodSample) -> bool:
    """Whether warm-up ends after ``period``: a fixed number of periods, else latency and accepted rate both
    changed by less than the warm-up threshold since the ``previous`` period."""
    if config.warmup_periods > 0:
        return period >= config.warmup_periods
    return previous is not None and max(relative_change(previous.latency, sample.latency),
                                        relative_change(previous.accepted, sample.accepted)
                                        ) < config.warmup_threshold  # fmt: skip


def _warm_up_and_measure(run: _AdaptiveRun) -> tuple[str, bool]:
    """Warm-up, then measurement periods until the stop rule holds or ``max_periods``; the end rule and whether
    the run is over (deadlocked or unstable: no drain)."""
    config = run.config
    previous: _PeriodSample | None = None
    convergence: _Convergence | None = None
    for period in range(1, config.max_periods + 1):
        _, sample = run.next_period("warm-up" if run.warmup_end < 0 else "measurement")
        if run.deadlocked:
            return "deadlocked", True
        if run.unstable(sample):
            return "unstable", True
        now = run.now
        if run.warmup_end < 0:
            done = _warmed_up(config, period, previous, sample)
            previous = sample
            if done and period < config.max_periods:  # at least one measurement period must follow
                run.warmup_end = now
                run.set_window(RunWindow(now, NEVER, NEVER))
                convergence = _Convergence(run.nodes, sample)
            continue
        run.batch_means.append(sample.latency)
        streak = convergence.update(sample, now - run.warmup_end, config.stop_threshold)
        if config.stop_rule == "converged" and streak >= config.converged_periods:
            return "converged", False
        if config.stop_rule == "ci-width" and ci_width_met(run.batch_means, config.ci_target):
            return "ci-width", False
    return "max-periods", False


def _drain(run: _AdaptiveRun, end_rule: str) -> str:
    """End the measurement window now and drain; the end rule (``end_rule`` unless the drain deadlocks, turns
    unstable or times out)."""
    config, now = run.config, run.now
    run.measure_end = now
    run.set_window(RunWindow(run.warmup_end, now, now + config.drain if config.inject_during_drain else now))
    while True:
        finished, sample = run.next_period("drain")
        if run.deadlocked:
            return "deadlocked"
        if finished:  # drained (or drain cap) within this period: the run is over, as in BookSim2
            break
        if run.unstable(sample):
            return "unstable"
    if run.counters[CNT["measured_done"]] < run.counters[CNT["measured_generated"]]:
        return "drain-timeout"
    return end_rule
