"""Committed notebooks and experiments: clean and parameterised (runs: ``test_reproduce_quick.py``)."""

from __future__ import annotations

import json

import pytest

from torus_lab import runner

ROOT = runner.project_root()
EXPERIMENTS = runner.load_experiments(ROOT)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAPERS = {"disjoint_paths", "virtual_mesh", "fault_tolerant", "loads", "direction_first"}


def test_one_experiment_per_paper():
    assert PAPERS <= set(EXPERIMENTS)
    assert {nb.stem for nb in NOTEBOOKS} == {e.notebook.stem for e in EXPERIMENTS.values()}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs_and_with_parameters_cell(notebook):
    nb = json.loads(notebook.read_text())
    for index, cell in enumerate(nb["cells"]):
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
