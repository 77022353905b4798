"""The package's import structure: the routing layer imports nothing above it, and no import cycle exists.

Every ``import`` statement of every module is read with ``ast`` (also those inside functions), so a late
import cannot hide a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import torus_lab

PACKAGE = Path(torus_lab.__file__).parent
#: layers the routing layer must never import
ABOVE_ROUTING = ("torus_lab.sim", "torus_lab.deadlock", "torus_lab.studies")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """torus_lab modules ``path`` imports (a name imported from a package counts as its submodule if one
    exists by that name, else as the package)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("torus_lab")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("torus_lab"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in modules else target)
    return out


def import_graph() -> nx.DiGraph:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    graph = nx.DiGraph()
    for p in paths:
        graph.add_node(module_name(p))
        for target in imported_modules(p, modules):
            graph.add_edge(module_name(p), target)
    return graph


def test_routing_layer_imports_nothing_above_it():
    graph = import_graph()
    offenders = [
        (src, dst)
        for src, dst in graph.edges
        if (src == "torus_lab.routing" or src.startswith("torus_lab.routing.")) and dst.startswith(ABOVE_ROUTING)
    ]
    assert offenders == []


#: layer -> modules it must never import: computation never depends on presentation or on how it is run.
FORBIDDEN = {
    "torus_lab.sim": ("torus_lab.studies", "torus_lab.plots", "torus_lab.experiment", "torus_lab.runner",
                      "torus_lab.report", "torus_lab.cli"),
    "torus_lab.studies": ("torus_lab.plots", "torus_lab.experiment", "torus_lab.runner", "torus_lab.report",
                          "torus_lab.cli"),
    "torus_lab.plots": ("torus_lab.runner", "torus_lab.report", "torus_lab.cli", "torus_lab.sim",
                        "torus_lab.loads", "torus_lab.deadlock"),
    "torus_lab.experiment": ("torus_lab.runner", "torus_lab.report", "torus_lab.cli", "torus_lab.studies"),
}  # fmt: skip


def _in(module: str, layer: str) -> bool:
    return module == layer or module.startswith(layer + ".")


def test_studies_compute_and_plots_only_draw():
    """Studies (computation) never import plots, the experiment layer or the runner; plots draw results (and
    the structure of a topology or routing function) and run nothing: no simulator, load or CDG code."""
    offenders = [
        (src, dst)
        for src, dst in import_graph().edges
        for layer, banned in FORBIDDEN.items()
        if _in(src, layer) and any(_in(dst, b) for b in banned)
    ]
    assert offenders == []


def test_no_import_cycle_in_the_package():
    cycles = list(nx.simple_cycles(import_graph()))
    assert cycles == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    """The rule must catch the late import the old interface used (``from torus_lab.sim.kernels import ...``
    inside a method)."""
    src = tmp_path / "torus_lab" / "routing" / "late.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from torus_lab.sim.kernels import run_kernel\n    from ..deadlock import x\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "torus_lab"
    try:
        found = imported_modules(src, {"torus_lab.sim.kernels", "torus_lab.deadlock"})
    finally:
        PACKAGE = saved
    assert found == {"torus_lab.sim.kernels", "torus_lab.deadlock"}
