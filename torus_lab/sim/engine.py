"""Cycle-driven, flit-level wormhole simulator: run set-up, results, deadlock reports, load sweeps.

Two router models, chosen by ``SimConfig.router``: ``"simple"`` (default, :mod:`torus_lab.sim.simple`) and
``"booksim"`` (BookSim2's input-queued VC router, :mod:`torus_lab.sim.booksim`); both take the same routing
functions and give the same :class:`SimResult`.  A run owns all its state
(:class:`SimState`); the routing function is passed in (:class:`torus_lab.routing.interface.RoutingFunction`)
and its numba kernel is called from the compiled loop, so any number of runs can execute side by side.

Examples
--------
>>> from torus_lab.topology import Torus
>>> from torus_lab.routing.ecube import ecube_routing
>>> from torus_lab.sim.config import SimConfig
>>> rf = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
>>> res = simulate(rf, SimConfig(offered_load=0.1, packet_length=4, warmup=100, measure=300), seed=1)
>>> res.deadlock, res.delivered > 0, 0.05 < res.accepted_throughput < 0.15
(False, True, True)
>>> bs = simulate(rf, SimConfig.preset("booksim", offered_load=0.1, warmup=100, measure=300), seed=1)
>>> bs.deadlock, 0.05 < bs.accepted_throughput < 0.15
(False, True)
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from torus_lab._jit import njit
from torus_lab._validate import (
    check_instance,
    check_int,
    check_int_array,
    check_real,
    check_sequence,
    is_int,
)
from torus_lab.routing.interface import STATE_SIZE, RoutingFunction, compile_for_kernel, kernel_handle
from torus_lab.sim import simple
from torus_lab.sim.buffers import candidate_capacity
from torus_lab.sim.config import SimConfig
from torus_lab.sim.packets import (
    CNT,
    LOOP_OVER,
    POOL_HEADROOM,
    grow_pool,
    grow_queues,
    initial_pool_size,
    packet_pool_size,
)
from torus_lab.sim.runlength import (
    AdaptiveOutcome,
    RunWindow,
    SimulationDeadlock,
    check_run_bounds,
    fixed_end_rule,
    run_adaptive,
)
from torus_lab.sim.saturation import Saturation
from torus_lab.sim.simple import CFG
from torus_lab.sim.traffic import INJECTIONS, destination_map, pattern_code
from torus_lab.topology import Torus

if TYPE_CHECKING:  # pandas is imported when a frame is first made: a simulation whose tables nobody reads needs none
    import pandas as pd

__all__ = ["SimState", "SimResult", "simulate", "zero_load_latency", "load_sweep", "find_saturation", "chunk_cycles",
           "pool_headroom", "initial_queue_width", "CHUNK_WORK"]

#: The configuration :func:`simulate` uses when none is given.
DEFAULT_CONFIG = SimConfig()


def zero_load_latency(hops: int | np.ndarray, packet_length: int, router_delay: int = 1):
    """Analytic zero-load latency ``(hops + 1) * router_delay + packet_length - 1`` (generation to tail).

    Examples
    --------
    >>> zero_load_latency(3, 4), zero_load_latency(3, 4, router_delay=2)
    (7, 11)
    """
    if not is_int(hops):
        hops = check_int_array("hops", hops, minimum=0)
    else:
        hops = check_int("hops", hops, minimum=0)
    packet_length = check_int("packet_length", packet_length, minimum=1)
    router_delay = check_int("router_delay", router_delay, minimum=0)
    return (hops + 1) * router_delay + packet_length - 1


class SimState:
    """Every array of one run of the simple router model (input VCs, packets, source queues, records, counters).

    A Python-side view of a :class:`torus_lab.sim.simple.SimpleState` (``arrays``, what the compiled stages
    take): each of its fields is readable here under its own name (``state.count``, ``state.out_ivc``, ...).
    Input VCs are numbered ``channel * vcs + vc`` for network channels and ``num_channels * vcs + node`` for the
    injection port of each node.  ``active`` lists the nodes that generate traffic (default: every node).
    """

    def __init__(
        self,
        topology: Torus,
        vcs: int,
        queue_cap: int,
        rec_cap: int,
        seed_words: np.ndarray,
        *,
        depth: int = 4,
        length: int = 4,
        atomic: bool = True,
        active: np.ndarray | None = None,
        pool: int | None = None,
    ) -> None:
        seed_words = check_int_array("seed_words", seed_words, ndim=1)
        if len(seed_words) == 0:
            raise ValueError("seed_words must hold at least one seed word, got an empty array")
        seed_word = int(np.asarray(seed_words[:1], dtype=np.uint64)[0])
        # new_state checks the other arguments and the memory before it allocates anything
        self.arrays = simple.new_state(topology, vcs, queue_cap, rec_cap, seed_word, depth=depth, length=length,
                                        atomic=atomic, active=active, pool=pool)  # fmt: skip
        self.vcs = int(vcs)
        self.depth = int(depth)
        self.atomic = bool(atomic)
        self.num_ivcs = topology.num_channels * self.vcs + topology.num_nodes

    def __getattr__(self, name: str):
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in arrays._fields:
            return getattr(arrays, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def counter(self, name: str) -> int:
        """Value of one of the run's counters (see :data:`torus_lab.sim.packets.CNT`)."""
        return int(self.counters[CNT[name]])

    @property
    def owner(self) -> np.ndarray:
        """Packet at the front of each input VC (-1 for an empty one)."""
        front = self.fpk[np.arange(self.num_ivcs), self.fhead]
        return np.where(self.count > 0, front, -1)

    def buffered_flits(self) -> int:
        """Flits sitting in network input buffers (injection ports excluded)."""
        cv = self.num_ivcs - len(self.inj_free)
        return int(self.count[:cv].sum())

    def waiting_graph(self):
        """Wait-for graph between input VCs (``networkx.DiGraph``): an edge ``a -> b`` when the packet at the
        front of ``a`` needs ``b`` (its allocated, full output VC, or every candidate VC, all busy)."""
        import networkx as nx

        graph = nx.DiGraph()
        for iv in np.flatnonzero(self.count > 0):
            iv = int(iv)
            out = int(self.out_ivc[iv])
            if out >= 0:
                graph.add_edge(iv, out)
            elif out == -1 and self.routed[iv]:
                for c in range(int(self.ncand[iv])):
                    tgt = int(self.cand_ivc[iv, c])
                    if self.writer[tgt] >= 0 or (self.atomic and self.count[tgt] > 0):
                        graph.add_edge(iv, tgt)
        return graph


class _MakeFrame(NamedTuple):
    """A DataFrame not made yet: ``make(*args)`` makes it (``_FrameField``)."""

    make: Callable
    args: tuple


class _FrameField:
    """A :class:`SimResult` field holding a pandas DataFrame, made on its first read when given as a ``_MakeFrame``.

    The simulator gives its packet and period tables so: a caller that never reads them (a warm start, a sweep
    that keeps the scalar results) never imports pandas, about 0.15 CPU s.  The value lives in the instance's
    ``__dict__`` under the field's name, as a plain field's would.  ``default`` makes the field optional (its
    value then an empty frame).
    """

    def __init__(self, name: str, *, default: bool = False) -> None:
        self.name, self.default = name, default

    def __get__(self, obj, owner=None):
        if obj is None:
            if self.default:
                return self  # the dataclass's default: read back as an empty frame
            raise AttributeError(f"{self.name} has no default")  # so the dataclass field is a required one
        value = obj.__dict__[self.name]
        if value is self:
            value = obj.__dict__[self.name] = _frame()
        elif isinstance(value, _MakeFrame):
            value = obj.__dict__[self.name] = value.make(*value.args)
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.name] = value

    def __repr__(self) -> str:
        return "<an empty DataFrame>"


def _frame(rows=None, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """``pandas.DataFrame(rows)``, or with ``columns`` a frame over the 2-D array ``rows`` without copying it;
    pandas imported here (``_FrameField``)."""
    import pandas as pd

    return pd.DataFrame(rows) if columns is None else pd.DataFrame(rows, columns=list(columns), copy=False)


@dataclass
class SimResult:
    """Outcome of one :func:`simulate` run (latencies in cycles, throughput in flits/node/cycle).

    ``packets`` and ``period_table`` are pandas DataFrames made on their first read (pandas imported then), so a
    run whose caller reads only the scalar results does not import pandas."""

    params: dict
    seed: int
    cycles: int
    deadlock: bool
    deadlock_cycle: list[tuple[int, int]]
    packets: pd.DataFrame = _FrameField("packets")
    mean_latency: float
    mean_network_latency: float
    mean_hops: float
    mean_extra_hops: float
    accepted_throughput: float
    generated_throughput: float
    delivered: int
    dropped: int
    undelivered: int
    channel_utilisation: np.ndarray
    counters: dict
    wall_seconds: float
    #: what ended the run, one of :data:`torus_lab.sim.runlength.END_RULES`
    end_rule: str = "fixed-window"
    #: phase the run ended in: ``"warm-up"``, ``"measurement"`` or ``"drain"`` (a deadlock or an abort can end
    #: the run in any of them; a complete run ends in ``"drain"``)
    end_phase: str = "drain"
    #: cycles at which measurement began and ended (-1: not reached)
    warmup_end: int = -1
    measure_end: int = -1
    #: sample periods of warm-up and measurement (adaptive; 0 with fixed windows) and one row per period (drain
    #: included, one row per ``sample_period`` cycles of it): phase, end cycle, packets
    #: delivered, their mean latency, accepted rate, mean age with the packets alive, queue overflows
    periods: int = 0
    period_table: pd.DataFrame = field(default=_FrameField("period_table", default=True), repr=False)
    #: half-width of the 95% batch-means confidence interval of the mean latency (adaptive, >= 2 batches; else NaN)
    latency_ci: float = float("nan")
    #: packets generated, delivered and still alive (source queue or network) over the whole run, every phase
    packets_generated: int = 0
    packets_delivered: int = 0
    in_flight: int = 0
    #: the run's state when ``keep_state``: a :class:`SimState` (simple router) or a
    #: :class:`torus_lab.sim.booksim.BookSimRun` (booksim router)
    state: object | None = field(default=None, repr=False)

    def summary(self) -> dict:
        """Scalar fields as a flat dict (one row of a results table)."""
        row = dict(self.params)
        row.update(
            seed=self.seed,
            cycles=self.cycles,
            deadlock=self.deadlock,
            mean_latency=self.mean_latency,
            mean_network_latency=self.mean_network_latency,
            mean_hops=self.mean_hops,
            mean_extra_hops=self.mean_extra_hops,
            accepted_throughput=self.accepted_throughput,
            generated_throughput=self.generated_throughput,
            delivered=self.delivered,
            dropped=self.dropped,
            undelivered=self.undelivered,
            max_channel_utilisation=float(self.channel_utilisation.max()) if self.channel_utilisation.size else 0.0,
            queue_overflow=self.counters["queue_overflow"],
            hop_limit_drops=self.counters["hop_limit_drops"],
            wall_seconds=self.wall_seconds,
            end_rule=self.end_rule,
            end_phase=self.end_phase,
            warmup_end=self.warmup_end,
            measure_end=self.measure_end,
            periods=self.periods,
            latency_ci=self.latency_ci,
            packets_generated=self.packets_generated,
            packets_delivered=self.packets_delivered,
            in_flight=self.in_flight,
        )
        return row


def simulate(
    routing: RoutingFunction, config: SimConfig = DEFAULT_CONFIG, *, seed: int = 0, keep_state: bool = False
) -> SimResult:
    """Simulate wormhole routing with ``routing`` (its topology, faults and VCs) under ``config``.

    Parameters
    ----------
    routing : RoutingFunction
        Fixes the network: ``routing.topology``, ``routing.faults`` and ``routing.num_vcs`` VCs per channel.
    config : SimConfig
        Router, traffic and run length (see :class:`torus_lab.sim.SimConfig`).
    seed : int
        Seeds a SeedSequence; the kernel's SplitMix64 stream comes from it (the run is seed-deterministic).
    keep_state : bool
        Keep the run's state in the result (:class:`SimState`, or :class:`torus_lab.sim.booksim.BookSimRun` with
        ``config.router == "booksim"``; for tests and deadlock forensics).

    Returns
    -------
    SimResult
        ``packets`` holds one row per measured packet: src, dst, gen, inject, done, hops, dropped, latency,
        network_latency, min_hops (Lee distance), extra_hops.  ``accepted_throughput`` counts flits ejected
        during the measurement window per non-faulty node per cycle.
    """
    seed = _check_simulate_args(routing, config, seed, keep_state)
    active, hot = _traffic_nodes(routing, config)
    runner = _new_runner(routing, config, seed, active, hot)
    outcome = _run_to_end(runner, config, len(active))
    return _result(routing, config, seed, runner, outcome, len(active), keep_state)


def _check_simulate_args(routing: RoutingFunction, config: SimConfig, seed: int, keep_state: bool) -> int:
    """Refuse bad arguments of :func:`simulate` before any work (house rule), naming the parameter; returns the
    seed as an int."""
    if not isinstance(routing, RoutingFunction):
        raise TypeError(f"routing must be a RoutingFunction, got {routing!r}")
    if not isinstance(config, SimConfig):
        raise TypeError(f"config must be a SimConfig, got {config!r}")
    seed = check_int("seed", seed, 0)
    if not isinstance(keep_state, bool):
        raise TypeError(f"keep_state must be a bool, got {keep_state!r}")
    faults = routing.faults
    if config.router == "booksim" and faults is not None and (faults.links or faults.nodes):
        raise ValueError(f"router='booksim' does not model faults yet; routing {routing.name!r} has {faults!r}")
    check_run_bounds(config, routing.topology, routing.num_vcs)
    return seed


def _traffic_nodes(routing: RoutingFunction, config: SimConfig) -> tuple[np.ndarray, int]:
    """The nodes that generate traffic (non-faulty ones) and the hotspot's node id; refuses a traffic pattern
    the network cannot carry."""
    topology, faults = routing.topology, routing.faults
    code = pattern_code(config.traffic)
    bad = faults.node_mask(topology) if faults is not None else np.zeros(topology.num_nodes, dtype=bool)
    active = np.flatnonzero(~bad).astype(np.int64)
    if code != 1 and len(active) < 2:
        raise ValueError("random traffic needs at least two non-faulty nodes")
    hotspot_node = config.hotspot_node
    hot = int(topology.node_id(hotspot_node)) if isinstance(hotspot_node, tuple) else int(hotspot_node)
    if code == 2 and (not 0 <= hot < topology.num_nodes or bad[hot]):
        raise ValueError(f"hotspot_node {hotspot_node!r} is not a non-faulty node")
    return active, hot


def _new_runner(routing: RoutingFunction, config: SimConfig, seed: int, active: np.ndarray, hot: int) -> _Runner:
    """The run's state and loop for ``config.router``, with everything drawn from ``seed``: the compiled loop's
    SplitMix64 word, the "random-permutation" map and the on-off start states."""
    topology = routing.topology
    seeds = np.random.SeedSequence(seed)
    # the permutation map and the on-off start states come from children of the run's seed (the kernel's own
    # stream, seeds.generate_state below, is unaffected by spawning)
    perm_seeds, burst_seeds = seeds.spawn(2)
    dest_map = destination_map(topology, config.traffic, routing.faults, rng=np.random.default_rng(perm_seeds))
    words = seeds.generate_state(2, dtype=np.uint64)
    stationary_on = config.burst_alpha / (config.burst_alpha + config.burst_beta)
    burst_on = (np.random.default_rng(burst_seeds).random(topology.num_nodes) < stationary_on).astype(np.uint8)
    set_up = _booksim_runner if config.router == "booksim" else _simple_runner
    return set_up(routing, config, config.injection_rates(), burst_on, active, dest_map, hot, words,
                  _record_capacity(config, len(active)))  # fmt: skip


def _run_to_end(runner: _Runner, config: SimConfig, nodes: int) -> AdaptiveOutcome:
    """Run the loop to its end: the fixed windows in one call, or period by period under the adaptive rules
    (:mod:`torus_lab.sim.runlength`); returns what ended the run and where measurement began and ended."""
    if config.run_control == "fixed":
        runner.advance(config.warmup + config.measure + config.drain + 1)
        return AdaptiveOutcome(fixed_end_rule(runner.counters), config.warmup, config.warmup + config.measure,
                                [], [])  # fmt: skip
    return run_adaptive(runner.advance, runner.set_window, runner.counters, runner.alive_gen, config, nodes)


def _result(routing: RoutingFunction, config: SimConfig, seed: int, runner: _Runner, outcome: AdaptiveOutcome,
            nodes: int, keep_state: bool) -> SimResult:
    """The :class:`SimResult` of a finished run (warns :class:`SimulationDeadlock` with the waiting cycle)."""
    topology, faults, state = routing.topology, routing.faults, runner.state
    warmup_end, measure_end = outcome.warmup_end, outcome.measure_end
    counters = {name: int(state.counters[i]) for name, i in CNT.items()}
    if counters["routing_error"]:
        raise RuntimeError(f"routing kernel {routing.name} returned invalid candidates ({counters['routing_error']}x)")
    table = _packet_rows(topology, runner.records())
    columns = {name: table[:, i] for i, name in enumerate(_PACKET_COLUMNS)}
    deadlock = bool(counters["deadlock"])
    cycle = deadlock_cycle(topology, state) if deadlock else []
    end_phase = _phase_at(counters["now"], warmup_end, measure_end)
    in_flight = int(runner.alive_gen().size)
    if deadlock:
        warnings.warn(SimulationDeadlock(
            f"{routing.name} on {topology!r} deadlocked in {end_phase} at cycle {counters['now']} (seed {seed}): "
            f"{counters['packets_generated']} packets generated, {counters['packets_delivered']} delivered, "
            f"{in_flight} queued or in the network; waiting cycle of (channel, vc): {cycle}"
        ), stacklevel=3)  # fmt: skip
    delivered, means = _delivered_means(columns, ("latency", "network_latency", "hops", "extra_hops"))
    window = measure_end - warmup_end if warmup_end >= 0 and measure_end > warmup_end else 0
    nan = float("nan")
    util = state.ch_flits / float(window) if window else np.full(state.ch_flits.shape, nan)
    params = dict(
        topology=repr(topology),
        routing=routing.name,
        vcs=routing.num_vcs,
        faults=0 if faults is None else len(faults.links) // (2 if topology.bidirectional else 1) + len(faults.nodes),
        **config.as_dict(),
    )
    return SimResult(
        params=params,
        seed=seed,
        cycles=counters["now"],
        deadlock=deadlock,
        deadlock_cycle=cycle,
        packets=_MakeFrame(_frame, (table, _PACKET_COLUMNS)),
        mean_latency=means["latency"],
        mean_network_latency=means["network_latency"],
        mean_hops=means["hops"],
        mean_extra_hops=means["extra_hops"],
        accepted_throughput=counters["window_flits_ejected"] / (nodes * window) if window else nan,
        generated_throughput=counters["measured_generated"] * config.packet_length / (nodes * window) if window
        else nan,
        delivered=delivered,
        dropped=int((columns["dropped"] == 1).sum()),
        undelivered=counters["measured_generated"] - counters["measured_done"],
        channel_utilisation=util,
        counters=counters,
        wall_seconds=runner.wall,
        end_rule=outcome.end_rule,
        end_phase=end_phase,
        warmup_end=warmup_end if warmup_end >= 0 and counters["now"] >= warmup_end else -1,
        measure_end=measure_end if measure_end >= 0 and counters["now"] >= measure_end else -1,
        periods=sum(row["phase"] != "drain" for row in outcome.periods),
        period_table=_MakeFrame(_frame, (outcome.periods,)),
        latency_ci=_batch_half_width(outcome.batch_means),
        packets_generated=counters["packets_generated"],
        packets_delivered=counters["packets_delivered"],
        in_flight=in_flight,
        state=state if keep_state else None,
    )


def _delivered_means(packets, columns: Sequence[str]) -> tuple[int, dict[str, float]]:
    """The number of delivered packets (``dropped == 0``) and the mean of each of ``columns`` over them (NaN when
    none was delivered), from a packet table (a DataFrame or a mapping of column arrays), without copying it whole.

    A mean is computed as pandas computes ``Series.mean`` (the sum in float64, numpy's pairwise summation, divided
    by the count), so it is the same to the last bit, without importing pandas.

    >>> _delivered_means({"dropped": np.array([0, 1, 0]), "hops": np.array([2, 9, 3])}, ["hops"])
    (2, {'hops': 2.5})
    """
    kept = np.asarray(packets["dropped"]) == 0
    count = int(kept.sum())
    return count, {name: float(np.sum(np.asarray(packets[name])[kept], dtype=np.float64) / np.float64(count))
                   if count else float("nan") for name in columns}  # fmt: skip


def _record_capacity(config: SimConfig, nodes: int) -> int:
    """Rows of the measured-packet record: the packets one call of the loop can finish (the measurement window,
    or one sample period with adaptive control, whose records are collected after every period)."""
    prob = config.offered_load / config.packet_length
    if config.run_control == "fixed":
        expected = nodes * config.measure * prob
        return int(expected + 8 * np.sqrt(expected) + 64)
    expected = 2 * nodes * config.sample_period * prob  # a period can finish packets of the previous one
    return int(expected + 8 * np.sqrt(expected) + 64)


def _phase_at(now: int, warmup_end: int, measure_end: int) -> str:
    """Phase of cycle ``now`` given where measurement began and ended (-1: not yet)."""
    if warmup_end < 0 or now < warmup_end:
        return "warm-up"
    if measure_end < 0 or now < measure_end:
        return "measurement"
    return "drain"


def _batch_half_width(batch_means: list[float]) -> float:
    from torus_lab.stats import confidence_interval

    finite = [m for m in batch_means if np.isfinite(m)]
    return confidence_interval(finite)[1] if len(finite) >= 2 else float("nan")


#: Work one call of the compiled loop does at most, in router-cycles (routers x cycles): 0.02-0.4 s in either
#: model (0.1-1.5 microseconds per router-cycle from light load to saturation), so a signal is answered well within
#: a second while the calls' overhead (0.1-0.2 ms each) stays below 1% of a run.
CHUNK_WORK = 2**18


def chunk_cycles(topology: Torus) -> int:
    """Cycles per call of the compiled loop on ``topology``: :data:`CHUNK_WORK` router-cycles, at least one cycle.

    Examples
    --------
    >>> chunk_cycles(Torus(2, 4)), chunk_cycles(Torus(3, 16)), chunk_cycles(Torus(4, 32))
    (16384, 64, 1)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    return max(1, CHUNK_WORK // topology.num_nodes)


def pool_headroom(topology: Torus) -> int:
    """Cycles of generation a run's packet pool keeps free ids for: the cycles of one call of the compiled loop
    (:func:`chunk_cycles`), at most :data:`torus_lab.sim.packets.POOL_HEADROOM`.  A large network runs one cycle
    per call, so its pool starts at one packet per node (a node creates at most one per cycle) instead of
    eight, and grows only as packets stay alive.

    Examples
    --------
    >>> pool_headroom(Torus(2, 4)), pool_headroom(Torus(4, 32))
    (8, 1)
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    return min(POOL_HEADROOM, chunk_cycles(topology))


def initial_queue_width(topology: Torus, queue_cap: int) -> int:
    """Slots of each source queue's ring at the start of a BookSim-model run: the cycles of one call of the compiled
    loop (:func:`chunk_cycles`; a queue gains at most one packet per cycle), at most ``queue_cap``.  The engine
    widens the rings as queues grow (``_Runner.reserve_queues``), so a large network's queues take a few
    slots per node instead of ``queue_cap`` (2 KB per router at the default 512).

    Examples
    --------
    >>> [initial_queue_width(Torus(n, k), 512) for n, k in ((2, 4), (3, 16), (4, 32))]
    [512, 64, 1]
    """
    check_instance("topology", topology, Torus, "a Torus or Mesh")
    queue_cap = check_int("queue_cap", queue_cap, minimum=1)
    return min(queue_cap, chunk_cycles(topology))


@dataclass
class _Runner:
    """One run's compiled loop seen by :func:`simulate` and the run-length controller, whatever the router.

    ``state`` is a :class:`SimState` or a :class:`torus_lab.sim.booksim.BookSimRun`; ``arrays`` holds the packet
    and record arrays (the same names in both models); ``loop(max_cycles, reserve)`` runs the compiled loop and
    returns its code (:data:`torus_lab.sim.packets.LOOP_OVER`, ...; ``reserve``: the free packet ids it stops
    below);
    ``window`` writes a ``RunWindow`` into its settings; ``chunk`` is the most cycles one call of the loop runs.
    """

    state: object
    arrays: object
    loop: Callable[[int, int], int]
    window: Callable[[RunWindow], None]
    #: cycles per call of the compiled loop (:func:`chunk_cycles`)
    chunk: int = 1
    #: nodes that generate packets (each at most one per cycle), the largest packet pool the run may need
    #: (:func:`torus_lab.sim.packets.packet_pool_size`) and ``grow(size)``, which gives the state a pool of
    #: ``size`` ids (:func:`torus_lab.sim.packets.grow_pool`; None: the pool is already the largest)
    nodes: int = 1
    max_pool: int = 0
    grow: Callable[[int], None] | None = None
    #: cycles of generation the pool keeps free ids for (:func:`pool_headroom`)
    headroom: int = POOL_HEADROOM
    #: source queues' capacity and ``widen(width)``, which gives the state rings of ``width`` slots
    #: (:func:`torus_lab.sim.packets.grow_queues`; None: the rings are ``queue_cap`` wide from the start)
    queue_cap: int = 0
    widen: Callable[[int], None] | None = None
    wall: float = 0.0
    chunks: list = field(default_factory=list)

    @property
    def counters(self) -> np.ndarray:
        return self.state.counters

    def advance(self, cycles: int) -> bool:
        """Run up to ``cycles`` cycles and collect the records; True when the loop stopped early (run over).

        The compiled loop runs in chunks of ``chunk`` cycles (:func:`chunk_cycles`): it resumes from its state, so
        the run is the same whatever the chunks, and between two chunks Python runs its signal handlers, so Ctrl-C
        (or a SIGTERM handler that raises) stops a run of any size within one chunk (numba code sees no signal).
        A chunk also ends early when the packet pool may run dry in its next cycle (:meth:`reserve_pool`).
        """
        before = int(self.counters[CNT["now"]])
        start = time.perf_counter()
        left = int(cycles)
        while left > 0:
            step, reserve = self.reserve(min(left, self.chunk))
            at = int(self.counters[CNT["now"]])
            code = self.loop(step, reserve)
            if code == LOOP_OVER:
                break
            left -= int(self.counters[CNT["now"]]) - at
        self.wall += time.perf_counter() - start
        count = int(self.arrays.rec_count[0])
        self.chunks.append(self.arrays.rec[:count].copy())
        self.arrays.rec_count[0] = 0
        return int(self.counters[CNT["now"]]) - before < cycles

    def reserve(self, cycles: int) -> tuple[int, int]:
        """Cycles the next call of the loop may run so that no source queue outgrows its ring
        (:meth:`reserve_queues`), and the free packet ids below which it stops so that its pool cannot run dry
        (:meth:`reserve_pool`)."""
        return self.reserve_queues(cycles), self.reserve_pool()

    def reserve_queues(self, cycles: int) -> int:
        """Cycles (at most ``cycles``, at least one) the next call of the loop may run so that no source queue
        outgrows its ring: a queue gains at most one packet per cycle, so as many cycles as the fullest ring has
        free slots.  When it has fewer than ``min(cycles, headroom)``, the rings first widen by half (and at least
        to the longest queue plus ``cycles``), up to ``queue_cap``; rings of ``queue_cap`` slots hold any queue (a
        fuller queue overflows), so they run ``cycles``.  The run is the run with full rings from the start."""
        a = self.arrays
        width = int(a.q_buf.shape[1])
        if self.widen is None or width >= self.queue_cap:
            return cycles
        longest = int(a.q_len.max(initial=0))
        if width - longest < min(cycles, self.headroom):
            self.widen(min(self.queue_cap, max(width + width // 2, longest + cycles)))
            width = int(a.q_buf.shape[1])
            if width >= self.queue_cap:
                return cycles
        return max(1, min(cycles, width - longest))

    def reserve_pool(self) -> int:
        """The free packet ids below which the next call of the loop stops at the start of a cycle, so that its
        packet pool cannot run dry: a node creates at most one packet per cycle, so ``nodes`` ids; 0 (never
        stops) once the pool holds ``max_pool`` ids, which cannot run dry before a source queue overflows.  When
        fewer than ``headroom`` cycles' worth of ids are free (:func:`pool_headroom`), the pool first grows by
        half (and at least to that headroom), up to ``max_pool``.  The ids and so the run are those of a full
        pool from the start (:func:`torus_lab.sim.packets.grow_pool`), whenever the pool grows."""
        a = self.arrays
        pool, free = int(a.free_stack.shape[0]), int(a.free_top[0])
        if pool >= self.max_pool or self.grow is None:
            return 0
        if free < self.nodes * self.headroom:
            wanted = max(pool + pool // 2, pool + self.nodes * self.headroom - free)
            self.grow(min(self.max_pool, wanted))
            if int(a.free_stack.shape[0]) >= self.max_pool:
                return 0
        return self.nodes

    def set_window(self, window: RunWindow) -> None:
        self.window(window)

    def records(self) -> np.ndarray:
        """Every measured packet's record row collected so far."""
        return np.concatenate(self.chunks) if self.chunks else self.arrays.rec[:0]

    def alive_gen(self) -> np.ndarray:
        """Creation cycles of the packets alive now (not on the free stack: queued or in the network), by packet id.

        The pool's stack of free ids starts as ``pool - 1, ..., 1, 0`` (id 0 on top) and is only popped and pushed
        at the top.  Its ``untouched`` bottom positions that hold those first ids hold every id from ``pool -
        untouched`` up, all free (whatever the history: they lie below the top), so only the ids below are marked:
        the pool part a run has used, not the whole pool each sample period.
        """
        a = self.arrays
        pool, top = a.pk_gen.shape[0], int(a.free_top[0])
        free = a.free_stack[:top]
        unchanged = free == _first_free_stack(pool)[:top]
        untouched = top if unchanged.all() else int(np.argmin(unchanged))
        used = pool - untouched
        alive = np.ones(used, dtype=bool)
        alive[free[untouched:]] = False
        return a.pk_gen[:used][alive]


@functools.lru_cache(maxsize=8)
def _first_free_stack(pool: int) -> np.ndarray:
    """The free stack of a fresh packet pool of ``pool`` ids, ``pool - 1, ..., 1, 0`` (read-only, cached per size;
    :func:`torus_lab.sim.simple.new_state` starts every run with it).

    >>> _first_free_stack(4).tolist()
    [3, 2, 1, 0]
    """
    stack = np.arange(pool - 1, -1, -1, dtype=np.int64)
    stack.setflags(write=False)
    return stack


def _simple_runner(routing, config, rates, burst_on, active, dest_map, hot, words, rec_cap) -> _Runner:
    """The simple router model (:mod:`torus_lab.sim.simple`): its state and loop, ready to run."""
    topology = routing.topology
    input_vcs = topology.num_channels * routing.num_vcs + topology.num_nodes
    state = SimState(topology, routing.num_vcs, config.queue_capacity, rec_cap, words,
                     depth=config.buffer_depth, length=config.packet_length,
                     atomic=config.vc_allocation == "atomic", active=active,
                     pool=initial_pool_size(topology.num_nodes, input_vcs, config.queue_capacity,
                                            pool_headroom(topology)))  # fmt: skip
    cfg = state.cfg
    for name, value in dict(
        router_delay=config.router_delay,
        warmup=config.warmup,
        measure_end=config.warmup + config.measure,
        drain=config.drain,
        gen_end=_generation_end(config),
        deadlock_cycles=config.deadlock_cycles,
        drop_after=config.drop_after,
        pattern=pattern_code(config.traffic),
        hotspot_node=hot,
        hop_limit=config.hop_limit,
        injection=INJECTIONS[config.injection],
        include_self=int(config.uniform_includes_source),
    ).items():
        cfg[CFG[name]] = value
    state.fcfg[:] = np.append(rates, config.hotspot_fraction)
    state.burst_on[:] = burst_on
    state.dest_map[:] = dest_map

    def window(w: RunWindow) -> None:
        cfg[CFG["warmup"]], cfg[CFG["measure_end"]], cfg[CFG["gen_end"]] = w.warmup, w.measure_end, w.gen_end

    def loop(cycles: int, reserve: int) -> int:
        args = (kernel_handle(routing.kernel), routing.tables, state.arrays, int(cycles), int(reserve))
        return int(compile_for_kernel(simple.run_kernel, args)(*args))

    def grow(size: int) -> None:
        state.arrays = grow_pool(state.arrays, size)

    return _Runner(state, state, loop, window, chunk_cycles(topology), len(active),
                   packet_pool_size(topology.num_nodes, input_vcs, config.queue_capacity), grow,
                   pool_headroom(topology))  # fmt: skip


def _generation_end(config: SimConfig) -> int:
    end = config.warmup + config.measure
    return end + config.drain if config.inject_during_drain else end


def _booksim_runner(routing, config, rates, burst_on, active, dest_map, hot, words, rec_cap) -> _Runner:
    """The BookSim-compatible model (:mod:`torus_lab.sim.booksim`): its state and loop, ready to run."""
    from torus_lab.sim import booksim

    topology = routing.topology
    input_vcs = (topology.num_channels + 2 * topology.num_nodes) * routing.num_vcs + topology.num_nodes
    state = booksim.state_for(routing, config, active=active, dest_map=dest_map, hotspot=hot, seed_word=int(words[0]),
                              rec_cap=rec_cap, burst_on=burst_on,
                              pool=initial_pool_size(topology.num_nodes, input_vcs, config.queue_capacity,
                                                     pool_headroom(topology)),
                              queue_width=initial_queue_width(topology, config.queue_capacity),
                              stored_states=_stores_states(topology, routing.num_vcs))  # fmt: skip
    run = booksim.BookSimRun(state)
    cfg = state.cfg

    def window(w: RunWindow) -> None:
        cfg[booksim.BCFG["warmup"]], cfg[booksim.BCFG["measure_end"]] = w.warmup, w.measure_end
        cfg[booksim.BCFG["gen_end"]] = w.gen_end

    booksim.run(routing, run.state, 0)  # the checks of its arguments, once; then the compiled loop alone
    handle = kernel_handle(routing.kernel)

    def loop(cycles: int, reserve: int) -> int:
        return int(booksim.run_booksim(handle, routing.tables, run.state, int(cycles), int(reserve)))

    def grow(size: int) -> None:
        run.state = booksim.with_pool(run.state, size)

    def widen(width: int) -> None:
        run.state = grow_queues(run.state, width)

    return _Runner(run, run, loop, window, chunk_cycles(topology), len(active),
                   packet_pool_size(topology.num_nodes, input_vcs, config.queue_capacity), grow,
                   pool_headroom(topology), config.queue_capacity, widen)  # fmt: skip


#: Bytes of candidates' header states up to which a BookSim-model run keeps them (:func:`_stores_states`).
STORED_STATES_BYTES = 8 << 20


def _stores_states(topology: Torus, vcs: int) -> bool:
    """Whether a BookSim-model run on ``topology`` keeps every routed head's candidates' header states
    (``stored_states`` of :func:`torus_lab.sim.booksim.state_for`: the same run): when they take at most
    :data:`STORED_STATES_BYTES`.  A VC grant then copies the granted candidate's state instead of calling the
    routing kernel again (5-8% of a run on 64 and 512 nodes); a larger network saves the memory.

    >>> _stores_states(Torus(3, 8), 2), _stores_states(Torus(3, 16), 2)
    (True, False)
    """
    vc_ids = (topology.num_channels + 2 * topology.num_nodes) * vcs
    return vc_ids * candidate_capacity(topology, vcs) * STATE_SIZE * 8 <= STORED_STATES_BYTES


def _min_hops(topology: Torus, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """``topology.lee_distance`` between the nodes of ids ``src`` and ``dst``, compiled (:func:`_lee_distances`):
    a shortest path's length is a sum over dimensions of a distance that depends only on the coordinate
    difference, read from a table of the ``2 radix - 1`` differences (:func:`_lee_tables`) at the coordinates of
    the node table (no ``(packets, n)`` arrays, no division).

    >>> t = Torus(2, 4)
    >>> _min_hops(t, np.array([0, 5]), np.array([15, 5])).tolist() == [t.lee_distance((0, 0), (3, 3)), 0]
    True
    """
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    return _lee_distances(src.reshape(-1), dst.reshape(-1), *_lee_lookup(topology)).reshape(np.shape(src))


@functools.lru_cache(maxsize=32)
def _lee_tables(topology: Torus) -> tuple[np.ndarray, ...]:
    """Per dimension, ``topology.lee_distance`` of a coordinate difference ``d`` along that dimension alone, at
    index ``d + radix - 1`` (read-only; cached per topology, which compares and hashes by value).

    >>> [t.tolist() for t in _lee_tables(Torus(2, 3))]
    [[1, 1, 0, 1, 1], [1, 1, 0, 1, 1]]
    """
    tables = []
    for dim, radix in enumerate(topology.radices):
        diffs = np.arange(1 - radix, radix)
        a = np.zeros((diffs.size, topology.n), dtype=np.int64)
        b = np.zeros_like(a)
        a[:, dim] = np.maximum(0, -diffs)
        b[:, dim] = a[:, dim] + diffs
        table = np.asarray(topology.lee_distance(a, b), dtype=np.int64)
        table.setflags(write=False)
        tables.append(table)
    return tuple(tables)


@functools.lru_cache(maxsize=32)
def _lee_lookup(topology: Torus) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`_lee_distances` reads for ``topology``: the coordinates of every node (by id), the
    :func:`_lee_tables` as rows of one array (padded; row ``j`` at ``d + radices[j] - 1``) and the radices
    (read-only; cached per topology).

    >>> coords, lee, radices = _lee_lookup(Torus(1, 3))
    >>> coords.ravel().tolist(), lee.tolist(), radices.tolist()
    ([0, 1, 2], [[1, 1, 0, 1, 1]], [3])
    """
    tables = _lee_tables(topology)
    lee = np.zeros((len(tables), max(t.size for t in tables)), dtype=np.int64)
    for dim, table in enumerate(tables):
        lee[dim, : table.size] = table
    coords = np.ascontiguousarray(topology.all_coords(), dtype=np.int64)
    radices = np.asarray(topology.radices, dtype=np.int64)
    for array in (coords, lee, radices):
        array.setflags(write=False)
    return coords, lee, radices


@njit
def _lee_distances(src: np.ndarray, dst: np.ndarray, coords: np.ndarray, lee: np.ndarray,
                   radices: np.ndarray) -> np.ndarray:  # fmt: skip
    """Lee distance of every pair ``(src[i], dst[i])`` of node ids, from the tables of :func:`_lee_lookup`."""
    out = np.empty(src.shape[0], dtype=np.int64)
    for i in range(src.shape[0]):
        total = 0
        for j in range(coords.shape[1]):
            total += lee[j, coords[dst[i], j] - coords[src[i], j] + radices[j] - 1]
        out[i] = total
    return out


#: Columns of :attr:`SimResult.packets`: the kernel's record row (``rec``), then the derived ones.
_RECORD_COLUMNS = ("src", "dst", "gen", "inject", "done", "hops", "dropped")
_PACKET_COLUMNS = (*_RECORD_COLUMNS, "latency", "network_latency", "min_hops", "extra_hops")
_SRC, _DST, _GEN, _INJECT, _DONE, _HOPS = (_RECORD_COLUMNS.index(name) for name in _RECORD_COLUMNS[:6])
_LATENCY, _NETWORK_LATENCY, _MIN_HOPS, _EXTRA_HOPS = (_PACKET_COLUMNS.index(name) for name in _PACKET_COLUMNS[7:])


@njit
def _packet_table(rec: np.ndarray, coords: np.ndarray, lee: np.ndarray, radices: np.ndarray) -> np.ndarray:
    """The rows of :attr:`SimResult.packets` (:data:`_PACKET_COLUMNS`) from the kernel's record rows: the record,
    then latency ``done - gen``, network latency ``done - inject``, min hops (Lee distance) and extra hops."""
    rows, width = rec.shape
    table = np.empty((rows, width + 4), dtype=np.int64)
    min_hops = _lee_distances(rec[:, _SRC], rec[:, _DST], coords, lee, radices)
    for i in range(rows):
        for c in range(width):
            table[i, c] = rec[i, c]
        table[i, _LATENCY] = rec[i, _DONE] - rec[i, _GEN]
        table[i, _NETWORK_LATENCY] = rec[i, _DONE] - rec[i, _INJECT]
        table[i, _MIN_HOPS] = min_hops[i]
        table[i, _EXTRA_HOPS] = rec[i, _HOPS] - min_hops[i]
    return table


def _packet_rows(topology: Torus, rec: np.ndarray) -> np.ndarray:
    """The rows of the packet table of a run (:data:`_PACKET_COLUMNS`) from its record rows: one compiled pass,
    :func:`_packet_table`."""
    return _packet_table(np.ascontiguousarray(rec, dtype=np.int64), *_lee_lookup(topology))


def _packet_frame(topology: Torus, rec: np.ndarray) -> pd.DataFrame:
    """The packet table of a run from its record rows (:func:`_packet_rows`, then one frame: no column inserts)."""
    return _frame(_packet_rows(topology, rec), _PACKET_COLUMNS)


def deadlock_cycle(topology: Torus, state: SimState) -> list[tuple[int, int]]:
    """A cycle of waiting virtual channels ``[(channel id, vc), ...]`` in a stopped run (empty if none).

    Injection ports never lie on a cycle (nothing waits for them), so every entry is a network VC.
    """
    import networkx as nx

    graph = state.waiting_graph()
    try:
        edges = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return []
    return [(int(a) // state.vcs, int(a) % state.vcs) for a, _ in edges]


def load_sweep(routing: RoutingFunction, config: SimConfig, loads, *, seeds=(0,)) -> pd.DataFrame:
    """One :meth:`SimResult.summary` row per (offered load, seed), in that order.

    Each row says which rule ended its run (``end_rule``, :data:`torus_lab.sim.runlength.END_RULES`); with
    ``config.run_control="adaptive"`` a load beyond saturation ends ``"unstable"`` (aborted, usually in warm-up,
    with NaN latency and throughput), which :func:`torus_lab.sim.saturation.saturation_table` and
    :func:`find_saturation` count as not sustained.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> rf = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
    >>> df = load_sweep(rf, SimConfig(warmup=50, measure=100), [0.05, 0.1])
    >>> df.offered_load.tolist()
    [0.05, 0.1]
    """
    check_instance("routing", routing, RoutingFunction)
    check_instance("config", config, SimConfig)
    loads = [check_real(f"loads[{i}]", load, minimum=0, maximum=config.packet_length)  # SimConfig's offered_load
             for i, load in enumerate(check_sequence("loads", loads))]  # fmt: skip
    seeds = [check_int("seeds", seed, minimum=0) for seed in check_sequence("seeds", seeds)]
    rows = []
    for load in loads:
        for seed in seeds:
            rows.append(simulate(routing, config.replace(offered_load=float(load)), seed=int(seed)).summary())
    return _frame(rows)


#: Finest bisection step :func:`find_saturation` accepts (flits/node/cycle): about 20 simulations per unit of load.
MIN_TOLERANCE = 1e-6


def find_saturation(
    routing: RoutingFunction,
    config: SimConfig = DEFAULT_CONFIG,
    *,
    criterion: Saturation | None = None,
    low: float = 0.0,
    high: float | None = None,
    tolerance: float = 0.01,
    seed: int = 0,
) -> tuple[float, pd.DataFrame]:
    """Saturation load by bisection: the largest offered load sustained by the criterion of
    :mod:`torus_lab.sim.saturation` (default ``Saturation()``; the latency test compares with a run at
    0.02 flits/node/cycle or ``low``).

    Returns the estimate and the table of probed loads (column ``sustained``).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> rf = ecube_routing(Torus(2, 4), datelines=True, vcs=2)
    >>> sat, probes = find_saturation(rf, SimConfig(warmup=100, measure=300), tolerance=0.1)
    >>> 0.2 < sat < 1.0
    True
    """
    check_instance("routing", routing, RoutingFunction)
    check_instance("config", config, SimConfig)
    criterion = Saturation() if criterion is None else criterion
    if not isinstance(criterion, Saturation):
        raise TypeError(f"criterion must be a Saturation, got {criterion!r}")
    low = check_real("low", low, 0, config.packet_length)
    high = float(config.packet_length) if high is None else check_real("high", high, 0, config.packet_length)
    tolerance = check_real("tolerance", tolerance, minimum=MIN_TOLERANCE)
    if not 0 <= low < high:
        raise ValueError(f"need 0 <= low < high, got low={low!r}, high={high!r}")
    rows = []
    light = simulate(routing, config.replace(offered_load=max(low, 0.02)), seed=seed)
    base = light.mean_latency
    rows.append(light.summary())

    def sustained(load: float) -> bool:
        res = simulate(routing, config.replace(offered_load=load), seed=seed)
        row = res.summary()
        row["sustained"] = criterion.sustained(deadlock=res.deadlock, accepted=res.accepted_throughput,
                                               generated=res.generated_throughput, latency=res.mean_latency,
                                               base_latency=base, unstable=res.end_rule == "unstable")  # fmt: skip
        rows.append(row)
        return row["sustained"]

    lo, hi = low, high
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        if sustained(mid):
            lo = mid
        else:
            hi = mid
    return lo, _frame(rows)
