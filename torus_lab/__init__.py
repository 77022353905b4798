"""torus_lab: a reproducible research workbench for routing in torus (k-ary n-cube) networks.

Modules: :mod:`torus_lab.topology` (coordinates, channels, distances, faults, path checks),
:mod:`torus_lab.routing` (one module per algorithm family), :mod:`torus_lab.loads`,
:mod:`torus_lab.deadlock`, :mod:`torus_lab.sim`, :mod:`torus_lab.sweep`, :mod:`torus_lab.runner`,
:mod:`torus_lab.plotting`.
"""

from torus_lab.topology import Faults, Mesh, Torus

__all__ = ["Torus", "Mesh", "Faults", "__version__"]
__version__ = "0.1.0"
