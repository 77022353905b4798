"""Interactive explorers of torus_lab, for JupyterLab and for the web app of ``torus-lab explore``.

Each explorer is a function returning a displayable widget (ipywidgets, with an ipympl canvas for figures), built
on a model that is plain Python (a query in, an outcome out) so that it is tested without a browser:

* :func:`routing_explorer` (:mod:`torus_lab.explore.routing`, model :mod:`torus_lab.explore.routing_model`): a
  routing of the registry on a network: preferred and allowed routes, the CDG verdict and its witness cycle,
  Duato's check;
* the latency explorer (``latency_explorer``, ``torus_lab.explore.latency``) joins here.

``notebooks/explore.ipynb`` calls each explorer once; ``torus-lab explore`` serves that notebook as a web app
(:mod:`torus_lab.explore.app`).
"""

from torus_lab.explore.routing import routing_explorer

# The latency explorer: `from torus_lab.explore.latency import latency_explorer`, and its name in __all__.

__all__ = ["routing_explorer"]
