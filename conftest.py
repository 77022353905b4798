"""Test-session settings shared by the unit tests and the doctests of the package."""

import os

# Tests measure what the code computes now: no sweep result is read from or written to the on-disk cache
# unless a test asks for one explicitly (``cache=...`` or monkeypatching ``TORUS_LAB_CACHE``).
os.environ["TORUS_LAB_CACHE"] = "off"
