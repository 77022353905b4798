"""A throw-away torus_lab-shaped project for the runner's tests: notebooks, experiment YAML, a pyproject.toml."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook


def write_project(root: Path, notebook: str, cells: Sequence[str], experiments: Mapping[str, str]) -> Path:
    """Write ``notebooks/<notebook>.ipynb`` (the first of ``cells`` tagged ``parameters``, the kernel ``torus-lab``)
    and one ``experiments/<name>.yaml`` per entry of ``experiments`` (name -> description, schema and presets, as
    YAML text after the ``notebook:`` line) under ``root``; returns ``root``."""
    (root / "experiments").mkdir(parents=True)
    (root / "notebooks").mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "torus-lab", "display_name": "Python (torus_lab)", "language": "python"}
    nb.cells = [new_code_cell(cells[0], metadata={"tags": ["parameters"]}), *map(new_code_cell, cells[1:])]
    nbformat.write(nb, root / "notebooks" / f"{notebook}.ipynb")
    for name, text in experiments.items():
        (root / "experiments" / f"{name}.yaml").write_text(f"notebook: notebooks/{notebook}.ipynb\n{text}")
    return root
