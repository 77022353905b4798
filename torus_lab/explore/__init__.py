"""Interactive explorers: ipywidgets front ends over the studies' pipelines, running in the background.

Examples
--------
>>> callable(latency_explorer)
True
"""

from torus_lab.explore.latency import latency_explorer

__all__ = ["latency_explorer"]
