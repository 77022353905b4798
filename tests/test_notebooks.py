"""Committed notebooks and experiments: clean and parameterised (runs: ``test_reproduce_quick.py``)."""

from __future__ import annotations

import ast
import json

import pytest

from torus_lab import runner

ROOT = runner.project_root()
EXPERIMENTS = runner.load_experiments(ROOT)
#: Notebooks that are no experiment: interactive explorers (no YAML, never run by the runner; their parameters cell
#: holds where the explorers start).
EXPLORER_NOTEBOOKS = {"explore"}
ALL_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NOTEBOOKS = [nb for nb in ALL_NOTEBOOKS if nb.stem not in EXPLORER_NOTEBOOKS]
PAPERS = {"disjoint_paths", "virtual_mesh", "fault_tolerant", "loads", "direction_first"}


def test_one_experiment_per_paper():
    assert PAPERS <= set(EXPERIMENTS)
    assert {nb.stem for nb in NOTEBOOKS} == {e.notebook.stem for e in EXPERIMENTS.values()}
    assert EXPLORER_NOTEBOOKS <= {nb.stem for nb in ALL_NOTEBOOKS}
    assert not EXPLORER_NOTEBOOKS & set(EXPERIMENTS), "an explorer notebook is no experiment"


@pytest.mark.parametrize("name", sorted(EXPLORER_NOTEBOOKS))
def test_explorer_notebook_is_clean_and_thin(name):
    """Committed without outputs: imports, a parameters cell of plain literals (where the explorers start) and one
    call per explorer of torus_lab.explore."""
    from torus_lab import explore

    path = ROOT / "notebooks" / f"{name}.ipynb"
    nb = json.loads(path.read_text())
    assert nb["metadata"]["kernelspec"]["name"] == runner.KERNEL_NAME
    calls, parameters = [], 0
    for index, cell in enumerate(nb["cells"]):
        assert cell.get("id"), f"{path.name}: cell {index} has no id"
        if cell["cell_type"] != "code":
            continue
        assert not cell.get("outputs") and cell.get("execution_count") is None, f"{path.name}: cell {index} ran"
        if "parameters" in cell["metadata"].get("tags", []):
            for statement in ast.parse("".join(cell["source"])).body:
                assert isinstance(statement, ast.Assign), ast.unparse(statement)
                ast.literal_eval(statement.value)  # a plain literal, as in every parameters cell
            parameters += 1
            continue
        for statement in ast.parse("".join(cell["source"])).body:
            if isinstance(statement, ast.ImportFrom):
                assert statement.module == "torus_lab.explore", ast.unparse(statement)
            else:
                assert isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call), ast.unparse(statement)
                calls.append(statement.value.func.id)
    assert parameters == 1, f"{path.name}: one parameters cell"
    assert sorted(calls) == sorted(explore.__all__), "one call per explorer"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs_and_with_parameters_cell(notebook):
    nb = json.loads(notebook.read_text())
    for index, cell in enumerate(nb["cells"]):
        assert cell.get("id"), f"{notebook.name}: cell {index} has no id (nbformat.validator.normalize)"
        if cell["cell_type"] == "code":
            assert not cell.get("outputs"), f"{notebook.name}: cell {index} carries outputs"
            assert cell.get("execution_count") is None, f"{notebook.name}: cell {index} has an execution count"
    defaults = runner.notebook_parameters(notebook)  # exactly one tagged cell of plain literals
    assert {"seed", "data_dir", "figures_dir"} <= set(defaults)
    assert defaults["data_dir"].startswith("scratch/") and defaults["figures_dir"].startswith("scratch/")
    assert nb["metadata"]["kernelspec"]["name"] == runner.KERNEL_NAME


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_presets_match_parameters_cell(name):
    experiment = EXPERIMENTS[name]
    assert {"quick", "paper"} <= set(experiment.presets)
    assert experiment.description
    for preset in experiment.presets:
        params = runner.resolve_parameters(experiment, preset)
        assert "seed" in params, f"{name}:{preset} must fix the seed"


# ---------------------------------------------------------------------- the YAML is the experiment
#: The one documented exception to "no def in a notebook": the notebook whose subject is a user-written kernel.
KERNEL_NOTEBOOKS = {"bring_your_own_routing"}
MAX_CODE_LINES = 70  # 60 lines of calls, plus the figure captions (string arguments of run.show)


def _code_cells(notebook):
    nb = json.loads(notebook.read_text())
    return [("".join(c["source"]), c["metadata"].get("tags", [])) for c in nb["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_preset_is_complete_and_valid(name):
    """Both presets define every parameter of the schema (the schema requires them all) and pass it."""
    experiment = EXPERIMENTS[name]
    assert experiment.schema is not None, f"experiments/{name}.yaml needs a schema"
    assert set(experiment.schema["required"]) == set(experiment.parameter_names)
    assert experiment.schema.get("additionalProperties") is False
    for preset, values in experiment.presets.items():
        assert set(values) == set(experiment.parameter_names), f"{name}:{preset} is incomplete"
        runner.check_against_schema(values, experiment.schema, experiment=name)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_parameters_cell_equals_the_quick_preset(name):
    experiment = EXPERIMENTS[name]
    defaults = runner.notebook_parameters(experiment.notebook_path)
    cell = {key: value for key, value in defaults.items() if key not in runner.RESERVED_PARAMETERS}
    assert cell == experiment.presets["quick"]
    assert defaults["data_dir"] == f"scratch/quick/data/{name}"  # the layout of `torus-lab run NAME`
    assert defaults["figures_dir"] == f"scratch/quick/figures/{name}"


def _positional_pairs(value, where):
    """Lists of short lists of numbers/strings: the positional records the issue forbids."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert not (isinstance(key, str) and key.isdigit()), f"{where}: string-keyed dimension {key!r}"
            yield from _positional_pairs(item, f"{where}.{key}")
    elif isinstance(value, list):
        if value and all(isinstance(v, list) and 1 < len(v) <= 4 for v in value):
            yield where
        for i, item in enumerate(value):
            yield from _positional_pairs(item, f"{where}[{i}]")


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_structured_parameters_are_named_records(name):
    for preset, values in EXPERIMENTS[name].presets.items():
        found = list(_positional_pairs(values, f"{name}:{preset}"))
        assert not found, f"positional tuples (use named records): {found}"


def _node_kinds(tree: ast.AST, *, allow_defs: bool) -> set[str]:
    """Node types of ``tree``; with ``allow_defs`` a top-level function (a user's routing kernel) and its body
    are not counted."""
    kinds, stack = set(), [tree]
    while stack:
        node = stack.pop()
        if allow_defs and isinstance(node, ast.FunctionDef) and node in getattr(tree, "body", []):
            continue
        kinds.add(type(node).__name__)
        stack.extend(ast.iter_child_nodes(node))
    return kinds


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_notebook_is_thin(name):
    """Parameters, one call into the study, figures, the claims table and prose: no logic in the notebook."""
    cells = _code_cells(EXPERIMENTS[name].notebook_path)
    lines = [line for source, _ in cells for line in source.splitlines() if line.strip()]
    assert len(lines) <= MAX_CODE_LINES, f"{name}: {len(lines)} code lines (at most {MAX_CODE_LINES})"
    body = "\n".join(source for source, tags in cells if "parameters" not in tags)
    kinds = _node_kinds(ast.parse(body), allow_defs=name in KERNEL_NOTEBOOKS)
    forbidden = {"FunctionDef", "For", "While", "ListComp", "DictComp", "SetComp", "GeneratorExp", "Lambda",
                 "ClassDef", "AsyncFunctionDef"} & kinds  # fmt: skip
    assert not forbidden, f"{name}: the notebook holds {sorted(forbidden)}; move the logic into the package"
    assert "SeedSequence" not in body and "seed +" not in body, f"{name}: seed arithmetic in the notebook"
    assert "start(" in body and ".run(" in body, f"{name}: one call into the study through experiment.start"
