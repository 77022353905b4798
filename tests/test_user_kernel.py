"""A routing algorithm defined outside the package, end to end: register, route, CDG, simulate, sweep.

The kernel here is *minimal adaptive with dateline escape channels* (Duato's method on a torus): VC 0/1 are
the escape network (e-cube with dateline classes), VC 2 is fully adaptive over every minimal direction.  It
is written in this file, as a researcher would in a notebook; nothing in torus_lab knows it.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from torus_lab import sweep as sweep_mod
from torus_lab._cpu_bounded import fork_available
from torus_lab.deadlock import cdg_verdict, duato_check
from torus_lab.routing import (
    Option,
    RoutingValidationError,
    make_routing,
    register_routing,
    routing_entries,
    unregister_routing,
    validate_routing,
)
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Faults, Torus


def _make_escape_kernel():
    """Defined inside a function, so that cloudpickle ships it by value (as it does a notebook cell's)."""

    @numba.njit
    def escape_kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        # header state slot 0: bit d set once the packet has crossed the wraparound of dimension d
        n = tables.radices.shape[0]
        adaptive = tables.iparams[0]
        m = 0
        escape_ch = -1
        escape_vc = 0
        for d in range(n):
            k = tables.radices[d]
            c = (cur // tables.strides[d]) % k
            e = (dst // tables.strides[d]) % k
            if c == e:
                continue
            f = (e - c) % k
            ch = tables.slot[(cur * n + d) * 2 + (1 if f <= k - f else 0)]
            if ch < 0 or tables.ch_ok[ch] == 0:
                continue
            if escape_ch < 0:  # escape: e-cube, dateline class 1 once this dimension's wraparound is crossed
                escape_ch = ch
                escape_vc = 1 if (state[0] >> d) & 1 or tables.ch_wrap[ch] != 0 else 0
            if adaptive != 0:
                out_ch[m] = ch
                out_vc[m] = 2
                m += 1
        if escape_ch >= 0:
            out_ch[m] = escape_ch
            out_vc[m] = escape_vc
            m += 1
        for j in range(m):
            out_state[j, :] = state
            if tables.ch_wrap[out_ch[j]] != 0:
                out_state[j, 0] = state[0] | (1 << tables.ch_dim[out_ch[j]])
        return m

    return escape_kernel


@pytest.fixture
def escape_entry():
    entry = register_routing(
        "test-escape",
        _make_escape_kernel(),
        options=(Option("adaptive", "offer the adaptive VC", default=True),),
        vcs=3,
        summary="minimal adaptive VC 2 over a dateline e-cube escape network (VCs 0-1)",
        source="Duato 1993; test of the bring-your-own path",
        replace=True,
    )
    yield entry
    unregister_routing("test-escape")


def test_user_kernel_routes_like_a_builtin(escape_entry):
    t = Torus(2, 4)
    rf = make_routing({"name": "test-escape"}, t)
    assert rf.spec == {"name": "test-escape", "adaptive": True}
    assert "test-escape" in [e.name for e in routing_entries()]
    cands = rf.candidates((0, 0), (1, 1))
    assert [c.vc for c in cands] == [2, 2, 0]
    path = rf.route((0, 0), (2, 3))
    assert path[0] == (0, 0) and path[-1] == (2, 3) and len(path) - 1 == t.lee_distance((0, 0), (2, 3))
    routes = list(rf.enumerate_routes((0, 0), (1, 1)))
    assert routes and all(h[-1][0] >= 0 for h in routes)
    assert len({tuple(c for c, _ in h) for h in routes}) == 2  # both minimal paths


def test_user_kernel_cdg_verdicts(escape_entry):
    t = Torus(2, 4)
    full = make_routing("test-escape", t)
    verdict = cdg_verdict(full)
    assert not verdict.acyclic and len(verdict.cycle) >= 2  # adaptive VC 2 alone has ring cycles
    assert duato_check(full, [0, 1]).deadlock_free  # ... but the escape network makes it deadlock-free
    escape_only = make_routing({"name": "test-escape", "adaptive": False}, t)
    assert escape_only.name == "test-escape(adaptive=False)"
    assert cdg_verdict(escape_only).acyclic


def test_user_kernel_simulates_and_matches_builtin_dor(escape_entry):
    t = Torus(2, 4)
    user = simulate(
        make_routing({"name": "test-escape", "adaptive": False}, t),
        SimConfig(offered_load=0.2, warmup=100, measure=300),
        seed=5,
    )
    assert not user.deadlock and user.delivered > 0
    assert user.mean_extra_hops == 0.0
    # the escape network alone is e-cube with datelines: same hop counts as the built-in, packet by packet
    builtin = simulate(
        make_routing({"name": "ecube", "datelines": True, "vcs": 2}, t),
        SimConfig(offered_load=0.2, warmup=100, measure=300),
        seed=5,
    )
    assert (builtin.packets.hops == builtin.packets.min_hops).all()
    assert user.packets.hops.sum() == user.packets.min_hops.sum()


def _latency_point(load, routing, rng):
    t = Torus(2, 4)
    res = simulate(
        make_routing(routing, t),
        SimConfig(offered_load=load, warmup=50, measure=150),
        seed=int(rng.integers(2 ** 31)),
    )
    return {"latency": res.mean_latency, "delivered": res.delivered}


@pytest.mark.slow
def test_user_kernel_in_sweeps_on_every_backend(escape_entry):
    items = sweep_mod.grid(load=[0.1, 0.3], routing=[{"name": "test-escape"}])
    serial = sweep_mod.sweep(_latency_point, items, seed=3, backend="serial")
    procs = sweep_mod.sweep(_latency_point, items, seed=3, backend="processes", workers=2)
    dask = sweep_mod.sweep(_latency_point, items, seed=3, backend="dask", workers=1)
    assert serial == procs == dask
    assert all(r["delivered"] > 0 for r in serial)


# ---------------------------------------------------------------------------------- malformed kernels
def _bad_kernel(mode):
    @numba.njit
    def bad(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]
        ch = tables.slot[(cur * n + 0) * 2 + 1]
        if (cur // tables.strides[0]) % tables.radices[0] == (dst // tables.strides[0]) % tables.radices[0]:
            ch = tables.slot[(cur * n + 1) * 2 + 1]
        out_ch[0] = ch
        out_vc[0] = 0
        out_state[0, :] = state
        if mode == 1:
            out_ch[0] = tables.ch_src.shape[0] + 5  # not a channel
        elif mode == 2 and cur == 5:
            out_ch[0] = tables.slot[0 * n * 2 + 1]  # a channel of node 0, not of the current node
        elif mode == 3 and dst % 2 == 1:
            out_vc[0] = 1  # VC 1 with vcs = 1, for odd destinations only
        elif mode == 4:
            for j in range(out_ch.shape[0]):  # fills every slot it is given and claims them all
                out_ch[j] = ch
                out_vc[j] = 0
            return out_ch.shape[0]
        elif mode == 5 and cur == 6 and in_ch >= 0:
            # a ping-pong: back to where it came from, forever
            out_ch[0] = tables.slot[(cur * n + tables.ch_dim[in_ch]) * 2 + (1 if tables.ch_sign[in_ch] < 0 else 0)]
        elif mode == 6:
            out_ch[0] = tables.slot[(cur * n + 0) * 2 + 1]  # ignores faults
        elif mode == 7:
            state[0] += 1  # a hop counter in the header: unbounded state space if routes never end
            out_state[0, :] = state
            out_ch[0] = tables.slot[(cur * n + 0) * 2 + 1]
        return 1

    return bad


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (1, r"'bad-1' returned channel \d+, not a channel id .* at node"),
        (2, r"'bad-2' returned channel 1, which does not leave the current node at node \(1, 1\) \(id 5\)"),
        (3, r"'bad-3' returned VC 1 \(allowed 0..0\) at node .*destination \(1, 0\) \(id 1\)"),
        (4, r"'bad-4' returned 64 candidates \(allowed 0..32\)"),
        (5, r"'bad-5' has a route that never ends"),
        (6, r"'bad-6' returned channel \d+, which is faulty"),
        (7, r"'bad-7' (reaches more than \d+ routing states|has a route that never ends)"),
    ],
)
def test_malformed_kernels_are_refused_when_built(mode, message):
    register_routing(f"bad-{mode}", _bad_kernel(mode), adaptive=False, replace=True)
    try:
        faults = Faults(links=frozenset({int(Torus(2, 4).channel_id((2, 2), 0, 1))})) if mode == 6 else None
        with pytest.raises(RoutingValidationError, match=message):
            make_routing(f"bad-{mode}", Torus(2, 4), faults=faults)
        problem = message.split(" at node")[0]
        with pytest.raises(RoutingValidationError, match=problem):  # large networks: sampled destinations
            make_routing(f"bad-{mode}", Torus(2, 20), faults=None if mode != 6 else _all_plus_faults(Torus(2, 20)))
    finally:
        unregister_routing(f"bad-{mode}")


def _all_plus_faults(t: Torus) -> Faults:
    """Every + channel of dimension 0 at x = 3 faulty (so any sample of destinations meets one)."""
    links = [t.channel_id((3, y), 0, 1) for y in range(t.radices[1])]
    return Faults(links=frozenset(int(c) for c in links))


def test_registration_errors_name_the_problem():
    with pytest.raises(TypeError, match="'oops'.*numba @njit"):
        register_routing("oops", lambda *a: 0)
    with pytest.raises(ValueError, match="built-in routing"):
        register_routing("ecube", _bad_kernel(0))
    with pytest.raises(ValueError, match="exactly one of kernel= and build="):
        register_routing("oops")
    with pytest.raises(ValueError, match="9 options do not fit 8 iparams"):
        register_routing("oops", _bad_kernel(0), options={f"o{i}": 1 for i in range(9)})
    with pytest.raises(TypeError, match="has no integer code"):
        register_routing("oops", _bad_kernel(0), options={"ratio": 0.5})
    assert "oops" not in [e.name for e in routing_entries()]


def test_options_reach_the_kernel_as_iparams():
    @numba.njit
    def echo(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]
        out_ch[0] = tables.slot[(cur * n + 0) * 2 + 1]
        out_vc[0] = 0
        out_state[0, :] = tables.iparams[:8]
        return 1

    register_routing("echo", echo, options={"flag": False, "count": 3, "mode": Option("mode", "", "b", ("a", "b"))},
                     validate=False, replace=True)  # fmt: skip
    try:
        rf = make_routing({"name": "echo", "flag": True, "mode": "b"}, Torus(1, 4))
        assert rf.candidates(0, 2)[0].state[:3] == (1, 3, 1)
        with pytest.raises(ValueError, match="option 'mode' must be one of"):
            make_routing({"name": "echo", "mode": "c"}, Torus(1, 4))
        with pytest.raises(TypeError, match="option 'count' must be int"):
            make_routing({"name": "echo", "count": True}, Torus(1, 4))
    finally:
        unregister_routing("echo")


def test_validation_samples_large_networks_quickly(escape_entry):
    rep = make_routing("test-escape", Torus(2, 32)).spec  # 1024 nodes: sampled
    assert rep["name"] == "test-escape"
    from torus_lab.routing import validate_routing

    report = validate_routing(make_routing("test-escape", Torus(2, 32), validate=False))
    assert report.mode == "sample" and report.destinations_checked == 16
    assert report.states_checked > 16 * 1023
    assert np.isfinite(report.stuck_states)


def test_user_entries_digest_keys_the_sweep_cache_by_kernel_code(escape_entry):
    """The sweep cache keys user routings by a digest that is the same for the same kernel (re-registered,
    or in another process) and differs when the kernel or an option changes."""
    from torus_lab.routing.registry import user_entries_digest

    first = user_entries_digest()
    register_routing("test-escape", _make_escape_kernel(), options=escape_entry.options, vcs=3,
                     summary=escape_entry.summary, source=escape_entry.source, replace=True)  # fmt: skip
    assert user_entries_digest() == first
    register_routing("test-escape", _bad_kernel(0), options=escape_entry.options, vcs=3, replace=True,
                     summary=escape_entry.summary, source=escape_entry.source, validate=False)  # fmt: skip
    assert user_entries_digest() != first
    register_routing("test-escape", _make_escape_kernel(), options=(Option("adaptive", "x", default=False),),
                     vcs=3, summary=escape_entry.summary, source=escape_entry.source, replace=True)  # fmt: skip
    assert user_entries_digest() != first


def test_kernel_handle_carries_the_compiled_kernel_and_gives_the_same_results():
    # runners receive kernel_handle(kernel) (its address found once) instead of the dispatcher: same machine
    # code, so the same states; a kernel not compiled for KERNEL_SIG is passed through for numba to convert
    from torus_lab.routing import make_routing
    from torus_lab.routing.explore import _explore_dest, node_ok
    from torus_lab.routing.interface import KERNEL_SIG, compile_for_kernel, kernel_handle

    rf = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, Torus(2, 5))
    handle = kernel_handle(rf.kernel)
    assert handle is not rf.kernel and handle.signature() == KERNEL_SIG and kernel_handle(rf.kernel) is handle
    outputs = []
    for kernel in (rf.kernel, handle):
        problem = np.zeros(12, dtype=np.int64)
        args = (kernel, rf.tables, 7, node_ok(rf), int(rf.random_choices), 10**6, int(rf.num_vcs), problem)
        outputs.append(compile_for_kernel(_explore_dest, args)(*args))
    assert all(np.array_equal(a, b) for a, b in zip(*outputs, strict=True))

    @numba.njit
    def uncompiled(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        return 0

    assert kernel_handle(uncompiled) is uncompiled
    assert kernel_handle([]) == [] and kernel_handle(None) is None  # not a dispatcher: numba's to refuse


# ---------------------------------------------------------------------------------- kernels that do not return
def _hanging_kernel(hang_at: int):
    """Routes + along the lowest unfinished dimension, but loops for ever when called at node ``hang_at``."""

    @numba.njit
    def hanging(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]
        i = 0
        while cur == hang_at and i >= 0:  # never ends at that node (i wraps round to 0 before it could overflow)
            i = (i + 1) % 1000
        for d in range(n):
            if tables.coords[cur * n + d] != tables.coords[dst * n + d]:
                out_ch[0] = tables.slot[(cur * n + d) * 2 + 1]
                out_vc[0] = 0
                out_state[0, :] = state
                return 1
        return 0

    return hanging


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.skipif(not fork_available(), reason="bounded validation forks (Linux)")
def test_a_kernel_that_never_returns_is_refused_naming_the_call():
    register_routing("hangs-at-5", _hanging_kernel(5), adaptive=False, replace=True)
    try:
        before = _children_cpu()
        state = (r"node \(1, 1\) \(id 5\), destination \(\d, \d\) \(id \d+\), (at injection|arrived on channel \d+ "
                 r"from \(\d, \d\), VC 0), header state \(0, 0, 0, 0, 0, 0, 0, 0\), rand 0")  # fmt: skip
        message = rf"'hangs-at-5': its kernel did not return within 1 s of CPU time when called at {state}"
        with pytest.raises(RoutingValidationError, match=message):
            make_routing("hangs-at-5", Torus(2, 4), validation_cpu_limit=1)
        # it ran a second of CPU time, whatever the machine's load (other children reaped meanwhile add theirs)
        assert _children_cpu() - before >= 0.5
    finally:
        unregister_routing("hangs-at-5")


@pytest.mark.skipif(not fork_available(), reason="bounded validation forks (Linux)")
def test_bounded_validation_reports_what_the_in_process_one_does(escape_entry):
    rf = make_routing("test-escape", Torus(2, 5), validate=False)
    assert validate_routing(rf, cpu_limit=20) == validate_routing(rf)
    sampled = make_routing("test-escape", Torus(2, 20), validate=False)
    assert validate_routing(sampled, cpu_limit=20, seed=3) == validate_routing(sampled, seed=3)
    register_routing("bad-3", _bad_kernel(3), adaptive=False, replace=True)  # a malformed output: the same error
    try:
        bad = make_routing("bad-3", Torus(2, 4), validate=False)
        with pytest.raises(RoutingValidationError) as in_process:
            validate_routing(bad)
        with pytest.raises(RoutingValidationError) as bounded:
            validate_routing(bad, cpu_limit=20)
        assert str(bounded.value) == str(in_process.value)
    finally:
        unregister_routing("bad-3")


@pytest.mark.skipif(not fork_available(), reason="bounded validation forks (Linux)")
def test_a_kernel_that_crashes_the_validation_process_is_refused_naming_the_call():
    @numba.njit
    def wild(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        if cur == 6:
            out_ch[1 << 44] = 0  # far outside the array, outside the address space: SIGSEGV
        out_ch[0] = tables.slot[(cur * tables.radices.shape[0]) * 2 + 1]
        out_vc[0] = 0
        out_state[0, :] = state
        return 1

    register_routing("wild", wild, adaptive=False, replace=True)
    try:
        with pytest.raises(RoutingValidationError, match=r"'wild': the validation process died of SIGSEGV in its "
                                                          r"kernel call at node \(2, 1\) \(id 6\)"):  # fmt: skip
            make_routing("wild", Torus(2, 4))
    finally:
        unregister_routing("wild")


@pytest.mark.skipif(not fork_available(), reason="bounded validation forks (Linux)")
def test_bounded_validation_needs_no_lock_another_thread_holds(escape_entry):
    # the child runs only compiled code and plain Python: numba's compiler lock, held by another thread at the fork
    # (as a Jupyter kernel's or a Dask worker's thread may), is never needed there
    import threading

    from numba.core.compiler_lock import global_compiler_lock

    rf = make_routing("test-escape", Torus(2, 4))  # compiles everything validation runs
    held, release = threading.Event(), threading.Event()

    def hold():
        with global_compiler_lock:
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(60)
        assert validate_routing(rf, cpu_limit=20) == validate_routing(rf)
    finally:
        release.set()
        holder.join()


def test_without_fork_validation_runs_in_this_process(escape_entry, monkeypatch):
    from torus_lab.routing import explore

    monkeypatch.setattr(explore, "fork_available", lambda: False)
    monkeypatch.setattr(explore, "run_cpu_bounded", None)  # never reached
    rf = make_routing("test-escape", Torus(2, 4), validation_cpu_limit=1)
    assert validate_routing(rf, cpu_limit=1).destinations_checked == 16


def test_validation_cpu_limit_is_checked():
    with pytest.raises(ValueError, match=r"validation_cpu_limit must be > 0 seconds, got 0"):
        make_routing("ecube", Torus(2, 4), validation_cpu_limit=0)
    with pytest.raises(TypeError, match=r"cpu_limit must be a number"):
        validate_routing(make_routing("ecube", Torus(2, 4)), cpu_limit="10")


# ---------------------------------------------------------------------------------- options a registration names
def test_a_registration_naming_a_missing_option_is_refused():
    options = (Option("vcs", "virtual channels", default=2, minimum=1), Option("adaptive", "", default=True))
    with pytest.raises(ValueError, match=r"routing 'x': vcs='nvcs' names no option of it; its options are: vcs, "
                                         r"adaptive \(did you mean 'vcs'\?\)"):  # fmt: skip
        register_routing("x", _bad_kernel(0), options=options, vcs="nvcs")
    with pytest.raises(ValueError, match=r"routing 'x': vcs='adaptive' names an option that does not hold an int"):
        register_routing("x", _bad_kernel(0), options=options, vcs="adaptive")
    with pytest.raises(ValueError, match=r"routing 'x': option 'radix' is not a parameter of its build function"):
        register_routing("x", build=lambda topology, *, faults=None, vcs=1: None, options={"radix": 4})
    assert "x" not in [e.name for e in routing_entries()]


def test_option_readers_naming_a_missing_option_are_refused_when_built():
    register_routing("x", _bad_kernel(0), options={"vcs": 1}, iparams=lambda o, t: [o["nvcs"]], validate=False,
                     replace=True)  # fmt: skip
    try:
        with pytest.raises(ValueError, match=r"routing 'x': iparams= read option 'nvcs', which it does not have; "
                                             r"its options are: vcs \(did you mean 'vcs'\?\)"):  # fmt: skip
            make_routing("x", Torus(2, 4))
    finally:
        unregister_routing("x")
