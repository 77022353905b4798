"""Test-session settings shared by the unit tests and the doctests of the package."""

import os

# Tests measure what the code computes now: no sweep result is read from or written to the on-disk cache
# unless a test asks for one explicitly (``cache=...`` or monkeypatching ``TORUS_LAB_CACHE``).
os.environ["TORUS_LAB_CACHE"] = "off"


def pytest_configure(config):
    """Under pytest-xdist, compile the built-in routing kernels once in the controller, before the workers start.

    A routing's kernel is compiled (or loaded from numba's on-disk cache) when the first routing of its kind is
    built.  Every worker builds some while collecting (module-level routings of the test files), at the same moment:
    on a fresh clone both compiled the same kernels (about 8 CPU seconds each).  Built here first, the workers load
    them from the cache.
    """
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", default=None):
        from torus_lab.routing import make_routing, routing_entries
        from torus_lab.topology import Torus

        for entry in routing_entries():
            if entry.builtin:
                make_routing(entry.name, Torus(2, 4))
