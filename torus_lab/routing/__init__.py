"""Routing algorithms, one module per family, and the registry that names them.

Importing this package registers the built-in routing functions (:mod:`~torus_lab.routing.ecube`,
:mod:`~torus_lab.routing.min_adapt`,
:mod:`~torus_lab.routing.direction_first`, :mod:`~torus_lab.routing.turn_model`); build any routing with
:func:`make_routing` and add your own with :func:`register_routing` (see :mod:`torus_lab.routing.registry`).
The routing layer imports nothing from the simulator, the CDG tool or the studies: they receive routing
functions, never the reverse.
"""

from torus_lab.routing import direction_first, ecube, min_adapt, turn_model  # noqa: F401  (register the built-ins)
from torus_lab.routing.explore import RoutingValidationError, validate_routing
from torus_lab.routing.interface import Candidate, RoutingFunction
from torus_lab.routing.registry import (
    REGISTRY,
    Option,
    RoutingEntry,
    RoutingRegistry,
    make_routing,
    normalize_spec,
    register_routing,
    routing_entries,
    routing_entry,
    routing_table,
    unregister_routing,
)

__all__ = [
    "REGISTRY",
    "Candidate",
    "Option",
    "RoutingEntry",
    "RoutingRegistry",
    "RoutingFunction",
    "RoutingValidationError",
    "make_routing",
    "normalize_spec",
    "register_routing",
    "routing_entries",
    "routing_entry",
    "routing_table",
    "unregister_routing",
    "validate_routing",
]
