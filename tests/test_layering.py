"""The package's import structure follows docs/architecture.md: every module listed with its part, every import
allowed by the parts table (or one of its listed known departures), no import cycle.

Every ``import`` statement of every module is read with ``ast`` (also those inside functions), so a late
import cannot hide a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import torus_lab

PACKAGE = Path(torus_lab.__file__).parent


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


ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _table(text: str, heading: str) -> list[list[str]]:
    """The rows (cells stripped of backticks) of the first Markdown table after ``heading``."""
    section = text.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if not set("".join(cells)) <= set("- "):
            rows.append(cells)
    return rows[1:]  # without the header


def architecture() -> tuple[dict[str, str], dict[str, set[str]], set[tuple[str, str]]]:
    """docs/architecture.md read: module -> part, part -> parts it may import, known departures (src, dst)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    parts = {row[0]: {p.strip() for p in row[1].split(",") if p.strip()} for row in _table(text, "## Parts")}
    modules = {row[0]: row[1] for row in _table(text, "## Modules")}
    departures = {(row[0], row[1]) for row in _table(text, "### Known departures")}
    return modules, parts, departures


def test_the_architecture_page_lists_every_module_once_with_a_known_part():
    modules, parts, _ = architecture()
    text = ARCHITECTURE.read_text(encoding="utf-8")
    listed = [row[0] for row in _table(text, "## Modules")]
    assert len(listed) == len(set(listed)), "a module is listed twice"
    assert set(import_graph().nodes) == set(modules), (
        f"not on the page: {sorted(set(import_graph().nodes) - set(modules))}; "
        f"on the page but not in the package: {sorted(set(modules) - set(import_graph().nodes))}"
    )
    assert set(modules.values()) <= set(parts), f"unknown parts: {set(modules.values()) - set(parts)}"
    for part, allowed in parts.items():
        assert allowed <= set(parts), f"{part} may import unknown parts {allowed - set(parts)}"


def disallowed(edges: set[tuple[str, str]], modules: dict[str, str], parts: dict[str, set[str]],
               departures: set[tuple[str, str]]) -> list[tuple[str, str]]:  # fmt: skip
    """The imports ``(src, dst)`` between parts that the parts table does not allow and no departure lists."""
    return sorted((src, dst) for src, dst in edges
                  if modules[src] != modules[dst] and modules[dst] not in parts[modules[src]]
                  and (src, dst) not in departures)  # fmt: skip


def test_the_rule_finds_an_import_upwards():
    modules = {"a.topology": "topology", "a.routing": "routing", "a.sim": "simulation"}
    parts = {"topology": set(), "routing": {"topology"}, "simulation": {"topology", "routing"}}
    edges = {("a.routing", "a.topology"), ("a.routing", "a.sim"), ("a.sim", "a.routing")}
    assert disallowed(edges, modules, parts, set()) == [("a.routing", "a.sim")]
    assert disallowed(edges, modules, parts, {("a.routing", "a.sim")}) == []


def test_every_import_is_allowed_by_the_architecture():
    modules, parts, departures = architecture()
    edges = set(import_graph().edges)
    broken = disallowed(edges, modules, parts, departures)
    assert broken == [], "imports the parts table does not allow:\n" + "\n".join(f"{s} -> {d}" for s, d in broken)
    stale = sorted(departures - edges)
    assert stale == [], f"known departures that no longer exist (delete their rows): {stale}"
    allowed_anyway = sorted((s, d) for s, d in departures if modules[d] in parts[modules[s]])
    assert allowed_anyway == [], f"departures the parts table allows (delete their rows): {allowed_anyway}"


def test_the_parts_table_has_no_cycle():
    _, parts, _ = architecture()
    graph = nx.DiGraph([(part, other) for part, allowed in parts.items() for other in allowed])
    assert nx.is_directed_acyclic_graph(graph)


def test_no_import_cycle_in_the_package():
    cycles = list(nx.simple_cycles(import_graph()))
    assert cycles == []


def test_the_checker_sees_imports_inside_functions(tmp_path):
    """The rule must catch the late import the old interface used (``from torus_lab.sim.simple import ...``
    inside a method)."""
    src = tmp_path / "torus_lab" / "routing" / "late.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from torus_lab.sim.simple import run_kernel\n    from ..deadlock import x\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "torus_lab"
    try:
        found = imported_modules(src, {"torus_lab.sim.simple", "torus_lab.deadlock"})
    finally:
        PACKAGE = saved
    assert found == {"torus_lab.sim.simple", "torus_lab.deadlock"}


def private_imports(path: Path) -> list[str]:
    """``module.name`` of every underscore name ``path`` imports from another torus_lab module (``from m import
    _x``; private modules such as ``torus_lab._jit`` are not counted: their public names are theirs to give)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torus_lab") and not node.level:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_the_simulator_imports_no_private_name_of_another_module():
    """What one module of torus_lab.sim needs from another is a public name of the module that owns it."""
    broken = {module_name(p): private_imports(p) for p in sorted((PACKAGE / "sim").rglob("*.py"))}
    assert {name: found for name, found in broken.items() if found} == {}


def test_the_private_import_rule_finds_one(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from torus_lab.sim.packets import CNT, _CN_NOW\nfrom torus_lab._jit import njit\n")
    assert private_imports(src) == ["torus_lab.sim.packets._CN_NOW"]
