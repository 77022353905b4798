"""Interactive explorers of torus_lab, for JupyterLab and for the web app of ``torus-lab explore``.

Each explorer is a function returning a displayable widget (ipywidgets, with an ipympl canvas for figures), built
on a model that is plain Python (a query in, an outcome out) so that it is tested without a browser:

* :func:`routing_explorer` (:mod:`torus_lab.explore.routing`, model :mod:`torus_lab.explore.routing_model`): a
  routing of the registry on a network: preferred and allowed routes, the CDG verdict and its witness cycle,
  Duato's check;
* :func:`latency_explorer` (:mod:`torus_lab.explore.latency`): latency-load curves of several routings,
  measured in the background as points arrive, with a Cancel button (a kernel interrupt cancels too);
* :func:`disjoint_paths_explorer` (:mod:`torus_lab.explore.disjoint`, model
  :mod:`torus_lab.explore.disjoint_model`): Bossard & Kaneko's pairwise vertex-disjoint paths in an
  ``(n, k)``-torus beside the greedy and optimum baselines, against Theorem 1's length bound;
* :func:`loads_explorer` (:mod:`torus_lab.explore.loads`, model :mod:`torus_lab.explore.loads_model`): Azizoglu &
  Eğecioğlu's link loads of complete exchange for a placement and ODR/UDR, a heat map, ``E_max`` against the
  lower bounds;
* :func:`square_explorer` (:mod:`torus_lab.explore.square`, model :mod:`torus_lab.explore.square_model`): Li,
  Peng & Chu's fault-tolerant routings in a 2-D torus stepped square by square, against the oracle's shortest
  fault-free path.

``notebooks/explore.ipynb`` calls each explorer once; ``torus-lab explore`` serves that notebook as a web app
(:mod:`torus_lab.explore.app`).
"""

from torus_lab.explore.disjoint import disjoint_paths_explorer
from torus_lab.explore.latency import latency_explorer
from torus_lab.explore.loads import loads_explorer
from torus_lab.explore.routing import routing_explorer
from torus_lab.explore.square import square_explorer

__all__ = ["routing_explorer", "latency_explorer", "disjoint_paths_explorer", "loads_explorer", "square_explorer"]
