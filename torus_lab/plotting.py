"""One figure style for the whole project: colour-blind-safe palette, labelled axes, PNG + SVG output.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import tempfile
>>> with figure_style():
...     fig, ax = new_figure()
...     _ = ax.plot([1, 2], [3, 4], label="e-cube")
...     paths = save_figure(fig, tempfile.mkdtemp(), "example")
>>> sorted(p.suffix for p in paths)
['.png', '.svg']
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import matplotlib.pyplot as plt

__all__ = ["PALETTE", "MARKERS", "figure_style", "new_figure", "save_figure", "color_cycle"]

#: Okabe & Ito colour-blind-safe palette (black last).
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]

_RC = {
    "figure.figsize": (6.4, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "svg.hashsalt": "torus_lab",  # deterministic SVG ids
    "svg.fonttype": "none",
}


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """Context manager applying the project style (palette cycle, grid, sizes)."""
    from cycler import cycler

    rc = dict(_RC)
    rc["axes.prop_cycle"] = cycler(color=PALETTE)
    with plt.rc_context(rc):
        yield


def apply_style() -> None:
    """Apply the project style globally (for notebooks)."""
    from cycler import cycler

    plt.rcParams.update(_RC)
    plt.rcParams["axes.prop_cycle"] = cycler(color=PALETTE)


def color_cycle(n: int) -> list[str]:
    """``n`` colours from the palette, repeating if needed."""
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


def new_figure(nrows: int = 1, ncols: int = 1, **kwargs):
    """``plt.subplots`` with the project's size scaled to the grid."""
    width, height = _RC["figure.figsize"]
    kwargs.setdefault("figsize", (width * ncols, height * nrows))
    return plt.subplots(nrows, ncols, **kwargs)


def save_figure(fig, figures_dir: str | Path, name: str, *, formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Save ``fig`` as ``figures_dir/name.<fmt>`` for each format (PNG for reports, SVG for papers).

    SVG metadata dates are dropped so re-running gives identical files.
    """
    out_dir = Path(figures_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = out_dir / f"{name}.{fmt}"
        metadata = {"Date": None} if fmt == "svg" else {"Software": None} if fmt == "png" else None
        fig.savefig(path, format=fmt, metadata=metadata)
        paths.append(path)
    return paths
