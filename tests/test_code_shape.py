"""The package's code keeps its shape: short functions and no private names reached across modules.

Read from the package's syntax trees (``ast``), so nothing is imported or run:

* every function or method has at most ``MAX_BODY_LINES`` lines of body, its docstring not counted, except the
  numba kernels (decorated with ``njit``, ``jit`` or a helper whose name ends in ``jit``, e.g. ``_jit_njit``):
  a compiled loop is one unit for the compiler, and cutting it in pieces costs calls in the innermost loop;
* no module imports another module's private name (``from torus_lab.x import _name``, or ``x._name`` where ``x``
  is an imported package module): a name shared between modules is public and documented where it lives.
  Private *modules* (``torus_lab._jit``, ``torus_lab._validate``, ...) may be imported; their own private names
  may not.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import torus_lab

PACKAGE = Path(torus_lab.__file__).parent
#: Most lines a function's body may have (from its first statement after the docstring to its last line).
MAX_BODY_LINES = 80


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_jit(decorator: ast.expr) -> bool:
    """Whether ``decorator`` compiles the function with numba (``@njit``, ``@njit(...)``, ``@numba.njit``,
    ``@_jit_njit``)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name.endswith("jit")


def body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the function's last line (0 for a docstring only).

    >>> body_lines(ast.parse('def f():\\n    \"\"\"Doc.\"\"\"\\n    x = 1\\n\\n    return x\\n').body[0])
    3
    """
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):  # fmt: skip
        body = body[1:]
    return function.end_lineno - body[0].lineno + 1 if body else 0


def functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of a module with its qualified name (``Class.method``, ``outer.inner``), numba kernels and
    the functions nested in them left out."""
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_is_jit(d) for d in child.decorator_list):
                    continue
                out.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def long_functions() -> dict[tuple[str, str], int]:
    """(module, qualified name) -> body lines of every function over ``MAX_BODY_LINES``."""
    out = {}
    for module, path in MODULES.items():
        for name, function in functions(ast.parse(path.read_text(encoding="utf-8"))):
            lines = body_lines(function)
            if lines > MAX_BODY_LINES:
                out[(module, name)] = lines
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(module: str, tree: ast.Module) -> list[str]:
    """The private names ``module`` takes from other package modules, as ``line: what``."""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != "torus_lab" and not target.startswith("torus_lab."):
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:  # a module imported from its package (private modules allowed)
                    aliases[alias.asname or alias.name] = submodule
                elif _private(alias.name) and target != module:
                    found.append(f"{node.lineno}: from {target} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                and _private(node.attr) and aliases[node.value.id] != module:  # fmt: skip
            found.append(f"{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return found


def test_functions_are_at_most_max_body_lines_long():
    too_long = {key: lines for key, lines in long_functions().items()}
    assert not too_long, (
        f"functions with more than {MAX_BODY_LINES} lines of body (docstring excluded; numba kernels exempt); split "
        "them into small functions: " + "; ".join(f"{m}.{f} ({n} lines)" for (m, f), n in sorted(too_long.items())))


def test_no_private_names_imported_across_modules():
    offenders = {module: found for module, path in MODULES.items()
                 if (found := private_imports(module, ast.parse(path.read_text(encoding="utf-8"))))}  # fmt: skip
    assert not offenders, (
        "private names used across modules (make the name public and documented where it is shared, or move it to "
        "the module that owns the idea): " + "; ".join(f"{m} line {f}" for m, fs in offenders.items() for f in fs))


@pytest.mark.parametrize(
    ("source", "expected"),
    [("from torus_lab.topology import _minimal_path_count", ["1: from torus_lab.topology import _minimal_path_count"]),
     ("from torus_lab.routing.explore import check_routing_function as _c", []),
     ("from torus_lab import _jit\nfrom torus_lab._jit import njit", []),
     ("from torus_lab._jit import _cache_dir", ["1: from torus_lab._jit import _cache_dir"]),
     ("from . import disjoint_paths as dp\nx = dp._check_pairs", ["2: torus_lab.routing.disjoint_paths._check_pairs"]),
     ("import torus_lab.topology as t\nt.__name__", []),
     ("from torus_lab.routing.baselines import _Grid", [])],  # the module itself
)  # fmt: skip
def test_private_imports_finds_what_it_should(source, expected):
    assert private_imports("torus_lab.routing.baselines", ast.parse(source)) == expected


def test_long_functions_finds_a_long_body_but_exempts_numba_kernels():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_BODY_LINES + 1))
    method = textwrap.indent(f"def m(self):\n{body}", "    ")
    source = f'def slow():\n    """Doc."""\n{body}\n\n@njit\ndef kernel():\n{body}\n\nclass C:\n{method}\n'
    named = {name: body_lines(f) for name, f in functions(ast.parse(source))}
    assert named == {"slow": MAX_BODY_LINES + 1, "C.m": MAX_BODY_LINES + 1}
