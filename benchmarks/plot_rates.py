"""The site's figure of simulation rate against network size, drawn from the committed benchmark CSVs.

``python -m benchmarks.plot_rates`` (also called by ``bench_rate_by_size`` and ``bench_booksim2`` after they write
their rows) reads ``benchmarks/results/sim_rate_by_size.csv`` (router-cycles per CPU second of each router model
by network size) and, when present, ``benchmarks/results/booksim2_speed.csv`` (BookSim2's runs, whose rate with
its set-up left out is shown per size at the load of the rates), and writes :data:`FIGURE` (``.svg`` and ``.png``) for
``docs/performance.md``.  It runs no simulation; the site build only shows the committed files.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from benchmarks._timing import ROOT
from torus_lab.plotting import apply_style, new_figure, save_figure

RATES = ROOT / "benchmarks" / "results" / "sim_rate_by_size.csv"
BOOKSIM2 = ROOT / "benchmarks" / "results" / "booksim2_speed.csv"
FIGURE_DIR = ROOT / "docs" / "_static" / "performance"
FIGURE = FIGURE_DIR / "rate_by_size.svg"
_LABELS = {"simple": "torus_lab, simple model", "booksim": "torus_lab, BookSim2-compatible model"}


def booksim2_rates(runs: pd.DataFrame, offered: float) -> pd.Series:
    """BookSim2's router-cycles per CPU second by nodes at offered load ``offered``, its set-up left out (repeats
    pooled)."""
    runs = runs[(runs.simulator == "booksim2") & (runs.offered_load == offered)]
    work = (runs.nodes * runs.cycles).groupby(runs.nodes).sum()
    return work / runs.sim_cpu_s.groupby(runs.nodes).sum()


def draw(rates_csv: Path = RATES, booksim2_csv: Path = BOOKSIM2, offered: float = 0.05) -> Path:
    """Draw the figure from the CSVs' rows at ``offered`` flits/node/cycle; return the SVG's path."""
    apply_style()
    rates = pd.read_csv(rates_csv)
    rates = rates[(rates.offered_load - offered).abs() < 1e-9]
    fig, ax = new_figure()
    for model, part in rates.sort_values("nodes").groupby("router_model", sort=False):
        load = ", ".join(f"{x:g}" for x in sorted(part.offered_load.unique()))
        ax.plot(part.nodes, part.router_cycles_per_cpu_s, marker="o", label=f"{_LABELS.get(model, model)} "
                f"(offered {load})")  # fmt: skip
    if booksim2_csv.is_file():
        offered = float(rates.offered_load.min())
        theirs = booksim2_rates(pd.read_csv(booksim2_csv), offered)
        ax.plot(theirs.index, theirs.to_numpy(), marker="s", linestyle=":", color="black",
                label=f"BookSim2 (offered {offered:g}, set-up left out)")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("network size (nodes = routers)")
    ax.set_ylabel("router-cycles per CPU second")
    ax.set_title("Simulation rate against network size (one core, CPU time)")
    ax.grid(True, which="major", alpha=0.4)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * 8)  # room for the legend above the lines
    ax.legend(fontsize="small", loc="upper right")
    paths = save_figure(fig, FIGURE_DIR, FIGURE.stem)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return next(p for p in paths if p.suffix == ".svg")


if __name__ == "__main__":
    print(draw())
    sys.exit(0)
