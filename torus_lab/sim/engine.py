"""Cycle-driven, flit-level wormhole simulator: run set-up, results, deadlock reports, load sweeps.

The router model is described in :mod:`torus_lab.sim.kernels`.  A run owns all its state
(:class:`SimState`); the routing function is passed in (:class:`torus_lab.routing.interface.RoutingFunction`)
and its numba kernel is called from the compiled loop, so any number of runs can execute side by side.

Examples
--------
>>> from torus_lab.topology import Torus
>>> from torus_lab.routing.ecube import ecube_routing
>>> topo = Torus(2, 4)
>>> res = simulate(topo, ecube_routing(topo, datelines=True, vcs=2), offered_load=0.1, packet_length=4,
...                warmup=100, measure=300, seed=1)
>>> res.deadlock, res.delivered > 0, 0.05 < res.accepted_throughput < 0.15
(False, True, True)
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from torus_lab.routing.interface import MAX_CANDIDATES, STATE_SIZE, RoutingFunction, compile_for_kernel
from torus_lab.sim.kernels import CFG, CNT, run_kernel
from torus_lab.sim.traffic import destination_map, pattern_code
from torus_lab.topology import Torus

__all__ = ["SimState", "SimResult", "simulate", "zero_load_latency", "load_sweep", "find_saturation"]


def _int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return int(value)


def zero_load_latency(hops: int | np.ndarray, packet_length: int, router_delay: int = 1):
    """Analytic zero-load latency ``(hops + 1) * router_delay + packet_length - 1`` (generation to tail).

    Examples
    --------
    >>> zero_load_latency(3, 4), zero_load_latency(3, 4, router_delay=2)
    (7, 11)
    """
    return (hops + 1) * router_delay + packet_length - 1


class SimState:
    """Every array of one run (input VCs, packets, source queues, records, counters).

    Input VCs are numbered ``channel * vcs + vc`` for network channels and ``num_channels * vcs + node``
    for the injection port of each node.
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
    ) -> None:
        nch, nn = topology.num_channels, topology.num_nodes
        niv = nch * vcs + nn
        self.vcs = vcs
        self.depth = depth
        self.atomic = atomic
        self.num_ivcs = niv
        self.ivc_node = np.concatenate([np.repeat(np.asarray(topology.channel_dst), vcs), np.arange(nn)]).astype(
            np.int64
        )
        self.rng = np.asarray(seed_words[:1], dtype=np.uint64).copy()
        self.counters = np.zeros(len(CNT), dtype=np.int64)
        cap = max(depth, length)
        #: flits in each input-VC FIFO, index of its front slot, and per slot: packet, flit index, arrival cycle
        self.count = np.zeros(niv, dtype=np.int64)
        self.fhead = np.zeros(niv, dtype=np.int64)
        self.fpk = np.zeros((niv, cap), dtype=np.int64)
        self.fidx = np.zeros((niv, cap), dtype=np.int64)
        self.farr = np.zeros((niv, cap), dtype=np.int64)
        #: packet allowed to write into each input VC (allocated to it, tail not yet written), or -1
        self.writer = np.full(niv, -1, dtype=np.int64)
        self.routed = np.zeros(niv, dtype=np.int64)
        self.ncand = np.zeros(niv, dtype=np.int64)
        self.cand_ivc = np.zeros((niv, MAX_CANDIDATES), dtype=np.int64)
        self.cand_st = np.zeros((niv, MAX_CANDIDATES, STATE_SIZE), dtype=np.int64)
        self.out_ivc = np.full(niv, -1, dtype=np.int64)
        self.waitc = np.zeros(niv, dtype=np.int64)
        self.rr_in = np.zeros(nch + nn, dtype=np.int64)
        self.rr_out = np.zeros(nch + nn, dtype=np.int64)
        self.rr_va = np.zeros(niv, dtype=np.int64)
        npk = nn * queue_cap + niv + 16
        self.pk_src = np.zeros(npk, dtype=np.int64)
        self.pk_dst = np.zeros(npk, dtype=np.int64)
        self.pk_gen = np.zeros(npk, dtype=np.int64)
        self.pk_inj = np.zeros(npk, dtype=np.int64)
        self.pk_hops = np.zeros(npk, dtype=np.int64)
        self.pk_meas = np.zeros(npk, dtype=np.int64)
        self.pk_state = np.zeros((npk, STATE_SIZE), dtype=np.int64)
        self.free_stack = np.arange(npk, dtype=np.int64)[::-1].copy()
        self.free_top = np.array([npk], dtype=np.int64)
        self.q_buf = np.zeros((nn, queue_cap), dtype=np.int64)
        self.q_head = np.zeros(nn, dtype=np.int64)
        self.q_len = np.zeros(nn, dtype=np.int64)
        self.inj_free = np.full(nn, -(10**9), dtype=np.int64)
        self.rec = np.zeros((rec_cap, 7), dtype=np.int64)
        self.rec_count = np.zeros(1, dtype=np.int64)
        self.ch_flits = np.zeros(nch, dtype=np.int64)

    def counter(self, name: str) -> int:
        """Value of one of the kernel's counters (see :data:`torus_lab.sim.kernels.CNT`)."""
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


@dataclass
class SimResult:
    """Outcome of one :func:`simulate` run (latencies in cycles, throughput in flits/node/cycle)."""

    params: dict
    seed: int
    cycles: int
    deadlock: bool
    deadlock_cycle: list[tuple[int, int]]
    packets: pd.DataFrame
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
    state: SimState | None = field(default=None, repr=False)

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
        )
        return row


def simulate(
    topology: Torus,
    routing: RoutingFunction,
    *,
    traffic: str = "uniform",
    offered_load: float = 0.1,
    packet_length: int = 4,
    vcs: int | None = None,
    buffer_depth: int = 4,
    router_delay: int = 1,
    warmup: int = 1000,
    measure: int = 2000,
    drain: int = 20000,
    inject_during_drain: bool = True,
    seed: int = 0,
    hotspot_node=0,
    hotspot_fraction: float = 0.1,
    deadlock_cycles: int = 500,
    drop_after: int = 64,
    queue_capacity: int = 512,
    hop_limit: int = 0,
    vc_allocation: str = "atomic",
    keep_state: bool = False,
) -> SimResult:
    """Simulate wormhole routing on ``topology`` with ``routing`` and Bernoulli traffic.

    Parameters
    ----------
    topology : Torus or Mesh
        Must be the routing function's topology; faults come from the routing function.
    routing : RoutingFunction
    traffic : {"uniform", "transpose", "bit-complement", "hotspot"}
    offered_load : float
        Flits per node per cycle; a node starts a packet with probability ``offered_load / packet_length``.
    packet_length : int
        Flits per packet (>= 1).
    vcs : int or None
        VCs per channel; defaults to (and must equal) ``routing.num_vcs``.
    buffer_depth : int
        Flits per input VC buffer.
    router_delay : int
        Cycles a head spends in each router (>= 1); zero-load latency is :func:`zero_load_latency`.
    warmup, measure : int
        Packets generated in ``[warmup, warmup + measure)`` are measured.
    drain : int
        After the measurement window the run continues until every measured packet is delivered or dropped,
        for at most ``drain`` cycles (still injecting unless ``inject_during_drain=False``).
    seed : int
        Seeds a SeedSequence; the kernel's SplitMix64 stream comes from it (the run is seed-deterministic).
    hotspot_node, hotspot_fraction
        For ``traffic="hotspot"``.
    deadlock_cycles : int
        Declare deadlock when flits are in the network and none has moved for this many cycles.
    drop_after : int
        A head with no permitted output waits this many cycles and is then dropped (``-1``: never).
    vc_allocation : {"atomic", "nonatomic"}
        ``"atomic"`` (default): an input VC is allocated to a new packet only when it is empty and the previous
        packet's tail has left it, so a buffer holds one packet (depths beyond ``packet_length`` do not help).
        ``"nonatomic"``: it can be allocated as soon as the previous packet's tail has been *written* into it
        (flits of two packets may share the buffer, BookSim-style).
    hop_limit : int
        Drop a packet whose head has taken this many hops without arriving (0: no limit; livelock guard).
    queue_capacity : int
        Source-queue capacity per node; packets generated into a full queue are counted and discarded.
    keep_state : bool
        Keep the :class:`SimState` in the result (for tests and deadlock forensics).

    Returns
    -------
    SimResult
        ``packets`` holds one row per measured packet: src, dst, gen, inject, done, hops, dropped, latency,
        network_latency, min_hops (Lee distance), extra_hops.  ``accepted_throughput`` counts flits ejected
        during the measurement window per non-faulty node per cycle.
    """
    if not isinstance(topology, Torus):
        raise TypeError(f"topology must be a Torus or Mesh, got {topology!r}")
    if not isinstance(routing, RoutingFunction):
        raise TypeError(f"routing must be a RoutingFunction, got {routing!r}")
    if routing.topology != topology:
        raise ValueError(f"routing is bound to {routing.topology!r}, not {topology!r}")
    code = pattern_code(traffic)
    if isinstance(offered_load, bool) or not isinstance(offered_load, numbers.Real):
        raise TypeError(f"offered_load must be a number, got {offered_load!r}")
    length = _int("packet_length", packet_length, 1)
    if not 0 <= offered_load <= length:
        raise ValueError(f"offered_load must be in [0, packet_length={length}], got {offered_load!r}")
    vcs = routing.num_vcs if vcs is None else _int("vcs", vcs, 1)
    if vcs != routing.num_vcs:
        raise ValueError(f"vcs={vcs} differs from the routing function's num_vcs={routing.num_vcs}")
    depth = _int("buffer_depth", buffer_depth, 1)
    rdelay = _int("router_delay", router_delay, 1)
    warmup = _int("warmup", warmup, 0)
    measure = _int("measure", measure, 1)
    drain = _int("drain", drain, 0)
    seed = _int("seed", seed, 0)
    drop_after = _int("drop_after", drop_after, -1)
    deadlock_cycles = _int("deadlock_cycles", deadlock_cycles, 2)
    if deadlock_cycles <= max(drop_after, 0) + rdelay:
        raise ValueError(f"deadlock_cycles={deadlock_cycles} must exceed drop_after + router_delay")
    qcap = _int("queue_capacity", queue_capacity, 1)
    hop_limit = _int("hop_limit", hop_limit, 0)
    if vc_allocation not in ("atomic", "nonatomic"):
        raise ValueError(f"vc_allocation must be 'atomic' or 'nonatomic', got {vc_allocation!r}")
    atomic = vc_allocation == "atomic"
    if not 0 <= hotspot_fraction <= 1:
        raise ValueError(f"hotspot_fraction must be in [0, 1], got {hotspot_fraction!r}")
    if not isinstance(inject_during_drain, bool):
        raise TypeError(f"inject_during_drain must be a bool, got {inject_during_drain!r}")

    faults = routing.faults
    bad = faults.node_mask(topology) if faults is not None else np.zeros(topology.num_nodes, dtype=bool)
    active = np.flatnonzero(~bad).astype(np.int64)
    if code != 1 and len(active) < 2:
        raise ValueError("random traffic needs at least two non-faulty nodes")
    hot = int(topology.node_id(hotspot_node)) if not isinstance(hotspot_node, numbers.Integral) else int(hotspot_node)
    if code == 2 and (not 0 <= hot < topology.num_nodes or bad[hot]):
        raise ValueError(f"hotspot_node {hotspot_node!r} is not a non-faulty node")
    dest_map = destination_map(topology, traffic, faults)
    prob = offered_load / length
    expected = len(active) * measure * prob
    rec_cap = int(expected + 8 * np.sqrt(expected) + 64)
    words = np.random.SeedSequence(seed).generate_state(2, dtype=np.uint64)
    state = SimState(topology, vcs, qcap, rec_cap, words, depth=depth, length=length, atomic=atomic)

    cfg = np.zeros(len(CFG), dtype=np.int64)
    for name, value in dict(
        vcs=vcs,
        depth=depth,
        length=length,
        router_delay=rdelay,
        warmup=warmup,
        measure=measure,
        drain=drain,
        gen_end=(warmup + measure + drain) if inject_during_drain else (warmup + measure),
        deadlock_cycles=deadlock_cycles,
        drop_after=drop_after,
        pattern=code,
        hotspot_node=hot,
        queue_cap=qcap,
        hop_limit=hop_limit,
        atomic=int(atomic),
    ).items():
        cfg[CFG[name]] = value
    total = warmup + measure + drain + 1
    start = time.perf_counter()
    _run(routing, cfg, prob, float(hotspot_fraction), active, dest_map, state, total)
    wall = time.perf_counter() - start

    counters = {name: int(state.counters[i]) for name, i in CNT.items()}
    if counters["routing_error"]:
        raise RuntimeError(f"routing kernel {routing.name} returned invalid candidates ({counters['routing_error']}x)")
    packets = _packet_frame(topology, state)
    deadlock = bool(counters["deadlock"])
    cycle = deadlock_cycle(topology, state) if deadlock else []
    delivered = packets[packets.dropped == 0]
    util = state.ch_flits / float(measure)
    params = dict(
        topology=repr(topology),
        routing=routing.name,
        traffic=traffic,
        offered_load=float(offered_load),
        packet_length=length,
        vcs=vcs,
        buffer_depth=depth,
        router_delay=rdelay,
        warmup=warmup,
        measure=measure,
        drain=drain,
        vc_allocation=vc_allocation,
        faults=0 if faults is None else len(faults.links) // (2 if topology.bidirectional else 1) + len(faults.nodes),
    )
    return SimResult(
        params=params,
        seed=seed,
        cycles=counters["now"],
        deadlock=deadlock,
        deadlock_cycle=cycle,
        packets=packets,
        mean_latency=float(delivered.latency.mean()) if len(delivered) else float("nan"),
        mean_network_latency=float(delivered.network_latency.mean()) if len(delivered) else float("nan"),
        mean_hops=float(delivered.hops.mean()) if len(delivered) else float("nan"),
        mean_extra_hops=float(delivered.extra_hops.mean()) if len(delivered) else float("nan"),
        accepted_throughput=counters["window_flits_ejected"] / (len(active) * measure),
        generated_throughput=counters["measured_generated"] * length / (len(active) * measure),
        delivered=len(delivered),
        dropped=int((packets.dropped == 1).sum()),
        undelivered=counters["measured_generated"] - counters["measured_done"],
        channel_utilisation=util,
        counters=counters,
        wall_seconds=wall,
        state=state if keep_state else None,
    )


def _run(routing, cfg, prob, hot_frac, active, dest_map, s: SimState, max_cycles: int) -> None:
    args = (
        routing.kernel, routing.tables, cfg, prob, hot_frac, active, dest_map, s.ivc_node, s.rng, s.counters,
        s.count, s.fhead, s.fpk, s.fidx, s.farr, s.writer, s.routed, s.ncand, s.cand_ivc, s.cand_st, s.out_ivc,
        s.waitc,
        s.rr_in, s.rr_out, s.rr_va,
        s.pk_src, s.pk_dst, s.pk_gen, s.pk_inj, s.pk_hops, s.pk_meas, s.pk_state, s.free_stack, s.free_top,
        s.q_buf, s.q_head, s.q_len, s.inj_free, s.rec, s.rec_count, s.ch_flits, max_cycles,
    )  # fmt: skip
    compile_for_kernel(run_kernel, args)(*args)


def _packet_frame(topology: Torus, state: SimState) -> pd.DataFrame:
    rec = state.rec[: int(state.rec_count[0])]
    frame = pd.DataFrame(rec, columns=["src", "dst", "gen", "inject", "done", "hops", "dropped"])
    frame["latency"] = frame["done"] - frame["gen"]
    frame["network_latency"] = frame["done"] - frame["inject"]
    if len(frame):
        src = topology.coords(frame["src"].to_numpy())
        dst = topology.coords(frame["dst"].to_numpy())
        frame["min_hops"] = topology.lee_distance(src, dst)
    else:
        frame["min_hops"] = pd.Series(dtype=np.int64)
    frame["extra_hops"] = frame["hops"] - frame["min_hops"]
    return frame


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


def load_sweep(topology: Torus, routing: RoutingFunction, loads, *, seeds=(0,), **kwargs) -> pd.DataFrame:
    """One :meth:`SimResult.summary` row per (offered load, seed).

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> t = Torus(2, 4)
    >>> df = load_sweep(t, ecube_routing(t, datelines=True, vcs=2), [0.05, 0.1], warmup=50, measure=100)
    >>> df.offered_load.tolist()
    [0.05, 0.1]
    """
    rows = []
    for load in loads:
        for seed in seeds:
            rows.append(simulate(topology, routing, offered_load=float(load), seed=int(seed), **kwargs).summary())
    return pd.DataFrame(rows)


def find_saturation(
    topology: Torus,
    routing: RoutingFunction,
    *,
    low: float = 0.0,
    high: float | None = None,
    tolerance: float = 0.01,
    accept_ratio: float = 0.95,
    latency_factor: float = 3.0,
    seed: int = 0,
    **kwargs,
) -> tuple[float, pd.DataFrame]:
    """Saturation load by bisection: the largest offered load the network still accepts.

    A load counts as *sustained* when the run does not deadlock, accepted throughput is at least
    ``accept_ratio`` times the load actually generated in the measurement window (not the nominal offered
    load: Bernoulli injection makes the generated load fluctuate, and comparing with the nominal value
    called light loads unsustained by chance) and the mean latency is at most ``latency_factor`` times the
    latency at a light load (0.02 flits/node/cycle or ``low``).  Returns the estimate and the table of
    probed loads.

    Examples
    --------
    >>> from torus_lab.topology import Torus
    >>> from torus_lab.routing.ecube import ecube_routing
    >>> t = Torus(2, 4)
    >>> sat, probes = find_saturation(t, ecube_routing(t, datelines=True, vcs=2), tolerance=0.1,
    ...                               warmup=100, measure=300)
    >>> 0.2 < sat < 1.0
    True
    """
    length = kwargs.get("packet_length", 4)
    high = float(length if high is None else high)
    if not 0 <= low < high:
        raise ValueError(f"need 0 <= low < high, got low={low!r}, high={high!r}")
    rows = []
    light = simulate(topology, routing, offered_load=max(low, 0.02), seed=seed, **kwargs)
    base = light.mean_latency
    rows.append(light.summary())

    def sustained(load: float) -> bool:
        res = simulate(topology, routing, offered_load=load, seed=seed, **kwargs)
        row = res.summary()
        ok = (
            not res.deadlock
            and res.accepted_throughput >= accept_ratio * res.generated_throughput
            and res.mean_latency <= latency_factor * base
        )
        row["sustained"] = ok
        rows.append(row)
        return ok

    lo, hi = low, high
    while hi - lo > tolerance:
        mid = 0.5 * (lo + hi)
        if sustained(mid):
            lo = mid
        else:
            hi = mid
    return lo, pd.DataFrame(rows)

