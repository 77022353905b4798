"""Test-session settings shared by the unit tests and the doctests of the package."""

import os

# Tests measure what the code computes now: no sweep result is read from or written to the on-disk cache
# unless a test asks for one explicitly (``cache=...`` or monkeypatching ``TORUS_LAB_CACHE``).
os.environ["TORUS_LAB_CACHE"] = "off"


def pytest_configure(config):
    """Under pytest-xdist, load the built-in routing kernels once in the controller, before the workers start.

    Importing ``torus_lab.routing`` compiles every built-in routing kernel (registration compiles it) or loads it from
    numba's on-disk cache.  Every worker imports it while collecting, at the same moment: on a fresh clone both
    compiled the same kernels (about 8 CPU seconds each).  Compiled here first, the workers load them from the cache.
    """
    if getattr(config, "workerinput", None) is None and config.getoption("numprocesses", default=None):
        import torus_lab.routing  # noqa: F401
