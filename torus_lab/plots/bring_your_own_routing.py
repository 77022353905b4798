"""Figures of ``notebooks/bring_your_own_routing.ipynb`` (results of
:func:`torus_lab.studies.bring_your_own_routing.run`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from torus_lab._validate import check_frame, check_mapping, check_results
from torus_lab.plotting import apply_style, draw_torus_2d, latency_load_figure, new_figure
from torus_lab.topology import Torus

__all__ = ["fig_cdg_witness_cycle", "fig_latency_load", "witness_channels"]

Results = Mapping[str, pd.DataFrame]


def witness_channels(check: pd.DataFrame) -> list[int]:
    """The physical channels of the witness cycle of a ``cdg_check`` row (empty when acyclic), read from its
    ``cycle_channels`` column (``"channel:vc channel:vc ..."``).

    >>> witness_channels(pd.DataFrame({"cycle_channels": ["4:2 9:0"]})), witness_channels(
    ...     pd.DataFrame({"cycle_channels": [""]}))
    ([4, 9], [])
    """
    check_frame("check", check, ["cycle_channels"])
    return [int(cv.split(":")[0]) for cv in str(check.cycle_channels.iloc[0]).split()]


def fig_cdg_witness_cycle(results: Results, params: Mapping[str, Any]):
    """The witness cycle of the plain CDG drawn on ``Torus(2, cdg_radix)`` (a wraparound channel as a stub leaving
    the grid and one re-entering it, :func:`torus_lab.plotting.channel_segments`)."""
    check_results("results", results, {"cdg_check": ("routing", "cycle_length", "cycle_channels")})
    check_mapping("params", params, ["cdg_radix"])
    apply_style()
    check = results["cdg_check"]
    radix = params["cdg_radix"]
    fig, ax = new_figure()
    draw_torus_2d(ax, Torus(2, radix), cycle=witness_channels(check),
                  title=f"A cycle of {int(check.cycle_length.iloc[0])} channels in the plain channel dependency graph\n"
                        f"of {check.routing.iloc[0]} on the {radix} x {radix} torus (wraparound: leaves, re-enters)")
    return fig


#: Panels of :func:`fig_latency_load`: (metric column stem, panel title, y label).
LATENCY_LOAD_PANELS = (("mean_latency", "Latency", "mean latency (cycles)"),
                       ("accepted_throughput", "Throughput", "accepted (flits/node/cycle)"))


def fig_latency_load(results: Results, params: Mapping[str, Any]):
    """Mean latency and accepted throughput against offered load, per routing, with their 95% t-intervals as
    bands (the ``_low``/``_high`` columns of ``latency_load``; :func:`torus_lab.plotting.latency_load_figure`);
    the latency curves stop at their saturation load (``saturation`` table), ringed on both panels."""
    check_results("results", results, {"latency_load": (), "saturation": ("routing", "saturation_load")})
    check_mapping("params", params, [])
    return latency_load_figure(results["latency_load"], hue="routing", metrics=LATENCY_LOAD_PANELS,
                               saturation=results["saturation"])
