"""Test-session settings shared by the unit tests and the doctests of the package."""

import os

# Tests measure what the code computes now: no sweep result is read from or written to the on-disk cache
# unless a test asks for one explicitly (``cache=...`` or monkeypatching ``TORUS_LAB_CACHE``).
os.environ["TORUS_LAB_CACHE"] = "off"
# Notebooks run by the tests sweep serially unless a test chooses a backend: a pool of worker processes costs more
# CPU to start (each worker imports the package and loads its compiled kernels) than a test's few sweep items take.
# The backends themselves are compared explicitly (tests/test_sweep.py, tests/test_verify.py, tests/test_signals.py).
os.environ.setdefault("TORUS_LAB_BACKEND", "serial")


def _compile_shared_kernels() -> None:
    """Compile (or load from numba's on-disk cache) every compiled kernel family the test files share.

    Each call is the smallest that reaches its kernels: a routing of every built-in kind, both router models of
    the simulator, the square-routing batch (all algorithms and the oracle), the channel dependency graph, the
    routing validator and the link-load accumulator.
    """
    import numpy as np

    from torus_lab import deadlock
    from torus_lab.routing import make_routing, routing_entries, square
    from torus_lab.routing.explore import validate_routing
    from torus_lab.sim import SimConfig, simulate
    from torus_lab.topology import Torus

    torus = Torus(2, 4)
    for entry in routing_entries():
        if entry.builtin:
            make_routing(entry.name, torus)
    ecube = make_routing("ecube", torus)
    for config in (SimConfig(warmup=4, measure=8, drain=64),
                   SimConfig.preset("booksim", warmup=4, measure=8, drain=64)):
        simulate(ecube, config, seed=1)
    square.evaluate_batch(8, 3, 4, np.arange(2, dtype=np.uint64), n_blocks=1, parallel=False)
    deadlock.cdg_verdict(ecube)
    validate_routing(ecube)


def pytest_configure(config):
    """Under pytest-xdist, compile the shared numba kernels once in the controller, before the workers start.

    A kernel is compiled (or loaded from numba's on-disk cache) on its first call.  On a fresh clone both workers
    used to compile the same kernels at the same moment (the BookSim-compatible router alone takes about 35 CPU
    seconds, the simple router about 9, the routings about 8): built here first, the workers load them from the
    cache.
    """
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", default=None):
        _compile_shared_kernels()
