"""Topology core: vectorised Lee distances and channel-table construction."""

from __future__ import annotations

import time

import numpy as np

from torus_lab.topology import Torus


def run() -> None:
    start = time.perf_counter()
    torus = Torus(4, 16)
    channels = torus.num_channels  # the channel table is built on first use
    build = time.perf_counter() - start
    print(f"Torus(4, 16): {torus.num_nodes} nodes, {channels} channels built in {build:.2f} s")
    coords = torus.all_coords()
    rng = np.random.default_rng(np.random.SeedSequence(0))
    a = coords[rng.integers(0, torus.num_nodes, 1_000_000)]
    b = coords[rng.integers(0, torus.num_nodes, 1_000_000)]
    start = time.perf_counter()
    torus.lee_distance(a, b)
    elapsed = time.perf_counter() - start
    print(f"lee_distance: {1_000_000 / elapsed / 1e6:.1f} million pairs/s")
