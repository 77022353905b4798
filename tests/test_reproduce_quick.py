"""Every experiment at its quick preset through the real runner, as a new user types it (no ``--out``: into
``scratch/quick/`` of the project, the committed outputs untouched), then the report: claims, README, the site's
zip (the site itself is checked in a real browser by tests/test_site.py); and ``torus-lab verify`` re-runs one
experiment and compares it with that run (the comparison rules themselves: tests/test_verify.py)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from torus_lab import cli, report, runner, site
from torus_lab.claims import CLAIM_COLUMNS

ROOT = runner.project_root()
EXPERIMENTS = runner.load_experiments(ROOT)
pytestmark = pytest.mark.notebook


#: The cheapest notebook at its quick preset: the one ``torus-lab verify`` re-runs.
CHEAP = "bring_your_own_routing"


def tracked_outputs() -> dict[str, str]:
    """sha256 of every git-tracked file under the committed output folders (and the README's results table)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--", "data", "figures", "reports", "README.md"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    return {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in listed if path}


@pytest.fixture(scope="module")
def reproduced() -> tuple[Path, dict[str, str], dict[str, str]]:
    """``reproduce`` at the quick preset with no ``out`` (``torus-lab reproduce --preset quick``): its output root,
    and the committed outputs' hashes before and after it."""
    before = tracked_outputs()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        results = report.reproduce(preset="quick", root=ROOT, progress=False)
    assert [r.name for r in results] == list(EXPERIMENTS)
    return runner.reproduce_output_root("quick", root=ROOT), before, tracked_outputs()


@pytest.fixture(scope="module")
def quick_out(reproduced) -> Path:
    return reproduced[0]


def test_a_quick_run_leaves_every_committed_output_unchanged(reproduced):
    out, before, after = reproduced
    assert out == (ROOT / "scratch" / "quick").resolve()
    assert before, "no committed outputs found"
    assert after == before
    manifest = json.loads((out / "reports" / CHEAP / "manifest.json").read_text())
    assert manifest["preset"] == "quick" and manifest["outputs"]


def test_verify_a_second_quick_run_against_the_first(reproduced, capsys, monkeypatch):
    """``torus-lab verify --preset quick --only CHEAP`` re-runs the experiment in a temporary folder and compares
    its science files with the run above (the default reference of a non-paper preset: ``scratch/<preset>/``)."""
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    assert cli.main(["verify", "--preset", "quick", "--only", CHEAP]) == 0
    out = capsys.readouterr().out
    assert "identical" in out and "differs" not in out and "kept in" not in out
    assert reproduced[1] == tracked_outputs()


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_quick_preset_outputs(quick_out, name):
    for kind in runner.OUTPUT_KINDS:
        assert (quick_out / kind / name / "manifest.json").exists()
    assert any((quick_out / "data" / name).glob("*.csv"))
    pngs = list((quick_out / "figures" / name).glob("*.png"))
    assert pngs and all(p.with_suffix(".svg").exists() for p in pngs)
    executed_path = quick_out / "reports" / name / f"{name}.ipynb"
    assert executed_path.stat().st_size < 2_000_000, "the executed notebook should link figures, not inline them"
    executed = json.loads(executed_path.read_text())
    shown = site.notebook_figures(executed_path)
    assert sorted(f["name"] for f in shown) == sorted(p.stem for p in pngs), "every figure shown once, by run.show"
    assert all(f["caption"] and len(f["caption"]) > 40 for f in shown), f"{name}: a figure without a real caption"
    warnings = [text for cell in executed["cells"] for output in cell.get("outputs", [])
                if output.get("name") == "stderr" and "Warning" in (text := "".join(output.get("text", "")))]
    assert not warnings, f"{name}: warnings in the executed notebook: {warnings}"


def test_claims_aggregated(quick_out):
    claims = pd.read_csv(quick_out / "data" / "claims.csv", dtype=str, keep_default_na=False)
    assert list(claims.columns) == CLAIM_COLUMNS
    per_paper = {name: len(pd.read_csv(p)) for name in EXPERIMENTS
                 if (p := quick_out / "data" / name / "claims.csv").exists()}  # fmt: skip
    assert claims["paper"].value_counts().to_dict() == {k: v for k, v in per_paper.items() if v}


def test_report_zip_holds_the_whole_site(quick_out):
    archive = quick_out / site.ZIP_NAME
    with zipfile.ZipFile(archive) as packed:
        names = {n.split("/", 1)[1] for n in packed.namelist()}
    assert {"index.html", "search.html", "results/claims.html", "results/provenance.html", "data/claims.csv",
            "_static/mathjax/MathJax.js"} <= names  # fmt: skip
    for name in EXPERIMENTS:
        assert {f"reports/{name}/{name}.html", f"reports/{name}/manifest.json"} <= names
        if (quick_out / "data" / name / "claims.csv").is_file():
            assert f"data/{name}/claims.csv" in names
        for figure in site.notebook_figures(quick_out / "reports" / name / f"{name}.ipynb"):
            assert figure["file"] in names


def test_report_command_rewrites_the_zip_elsewhere(quick_out, tmp_path, capsys, monkeypatch):
    """`torus-lab report --zip FILE` on the quick outputs: the claims are aggregated again and the site packed into
    FILE, with the same members as the zip `reproduce` wrote.  The Sphinx build itself is the one `reproduce` has
    just run on the same outputs (tests/test_site.py builds the committed site strictly): here it hands back that
    site instead of building it a second time."""
    from torus_lab import cli

    built = []

    def the_site_reproduce_built(entries, out, repository, html_dir=None, *, strict):
        built.append([entry.name for entry in entries])
        return Path(out) / "site"

    monkeypatch.setattr(report, "build_site", the_site_reproduce_built)
    target = tmp_path / "sent" / "report.zip"
    assert cli.main(["report", "--out", str(quick_out), "--zip", str(target)]) == 0
    assert str(target) in capsys.readouterr().out
    assert len(built) == 1 and sorted(built[0]) == sorted(EXPERIMENTS), built
    with zipfile.ZipFile(target) as again, zipfile.ZipFile(quick_out / site.ZIP_NAME) as first:
        assert sorted(again.namelist()) == sorted(first.namelist())
    with pytest.raises(SystemExit) as refused:
        cli.main(["report", "--out", str(quick_out), "--zip", str(target), "--no-zip"])
    assert refused.value.code == 2


def test_readme_table_generated(tmp_path, quick_out):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{report.README_START}\nstale\n{report.README_END}\ntail\n")
    entries = report.collect(quick_out, ROOT)
    assert report.update_readme(readme, report.results_markdown(entries))
    text = readme.read_text()
    assert "stale" not in text and text.endswith("tail\n")
    for entry in entries:
        row = next(line for line in text.splitlines() if entry.experiment.description in line)
        # preset and seed, never a run time: the committed README must not change with machine speed
        assert row.endswith(f"| {entry.manifest['preset']} | {entry.manifest['seed']} |"), row
    assert "run time" not in text
    assert not report.update_readme(readme, report.results_markdown(entries))  # idempotent
