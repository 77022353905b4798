"""Science files are bit-identical across runs and sweep backends, and ``torus-lab verify`` compares a re-run
with a reference: its comparison rules and refusals here; the real re-run of a notebook against a real quick run
(which leaves the committed outputs untouched) in tests/test_reproduce_quick.py, on the run that file makes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab import cli, runner, verify
from torus_lab.experiment import ExperimentRun
from torus_lab.timing import is_timing_file

ROOT = runner.project_root()
#: An experiment of the project, named on the command lines below.
CHEAP = "bring_your_own_routing"


# ---------------------------------------------------------------------- comparison rules (no kernel)
def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e300, max_value=1e300, allow_nan=False))
def test_cells_match_describes_round_off_but_not_a_changed_value(x):
    assert verify.cells_match(repr(x), repr(x))
    assert verify.cells_match(repr(x), repr(x * (1 + 4e-16)))  # last-bit round-off of a fit
    if abs(x) > 1e-3:
        assert not verify.cells_match(repr(x), repr(x * (1 + 1e-6)))  # a real change
    assert not verify.cells_match(repr(x), "nan") and not verify.cells_match(repr(x), "holds")


def test_compare_file_passes_equal_bytes_only(tmp_path):
    ref = write(tmp_path / "a.csv", "n,fit,verdict\n2,1.6099588993758120,holds\n")
    assert verify.compare_file(ref, write(tmp_path / "same.csv", ref.read_text())) == ("identical", "")
    ulp = write(tmp_path / "ulp.csv", "n,fit,verdict\n2,1.6099588993758122,holds\n")
    status, detail = verify.compare_file(ref, ulp)
    assert status == "differs"  # round-off in the last bits no longer passes: science files are written rounded
    assert detail == ("numbers agree within rel 1e-09 / abs 1e-12 but the bytes differ: first at row 1, column 'fit':"
                      " '1.6099588993758120' vs '1.6099588993758122'")  # fmt: skip
    status, detail = verify.compare_file(ref, write(tmp_path / "v.csv", "n,fit,verdict\n2,1.61,holds\n"))
    assert status == "differs" and detail == "row 1, column 'fit': '1.6099588993758120' vs '1.61'"
    status, detail = verify.compare_file(ref, write(tmp_path / "crlf.csv", ref.read_text().replace("\n", "\r\n")))
    assert status == "differs" and "the same cells, but the bytes differ" in detail
    status, detail = verify.compare_file(ref, write(tmp_path / "t.csv", "n,fit,verdict\n2,1.6099588993758120,fails\n"))
    assert status == "differs" and "'verdict'" in detail
    status, detail = verify.compare_file(ref, write(tmp_path / "h.csv", "n,fit,seconds\n2,1.6,0.1\n"))
    assert status == "differs" and "header" in detail and "seconds" in detail
    status, detail = verify.compare_file(ref, write(tmp_path / "r.csv", ref.read_text() + "3,2.0,holds\n"))
    assert status == "differs" and "1 rows in the reference, 2 now" in detail
    assert verify.compare_file(write(tmp_path / "x.json", "{}"), write(tmp_path / "y.json", "[]"))[0] == "differs"


def test_only_identical_science_files_pass():
    assert verify.STATUSES == ("identical", "differs", "missing", "extra", "not compared")
    passing = verify.VerifyResult("paper", Path("."), [verify.FileComparison("data/e/a.csv", "identical"),
                                                       verify.FileComparison("figures/e/f.png", "not compared")])
    assert passing.ok
    passing.comparisons.append(verify.FileComparison("data/e/b.csv", "differs", "numbers agree within rel 1e-09"))
    assert not passing.ok


def test_compare_outputs_skips_timing_and_manifests_and_lists_figures(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for root in (old, new):
        write(root / "data/e/table.csv", "a\n1\n")
        write(root / "data/e/manifest.json", json.dumps({"root": str(root)}))
    write(old / "data/e/timing/table.csv", "a,seconds\n1,0.5\n")
    write(new / "data/e/timing/table.csv", "a,seconds\n1,0.7\n")
    write(old / "data/e/gone.csv", "a\n")
    write(new / "data/e/new.csv", "a\n")
    write(new / "figures/e/fig.png", "png")
    result = {c.path: c.status for c in verify.compare_outputs(old, new, ["e"])}
    assert result == {"data/e/table.csv": "identical", "data/e/gone.csv": "missing", "data/e/new.csv": "extra",
                      "figures/e/fig.png": "not compared"}  # fmt: skip
    table = verify.format_table(verify.compare_outputs(old, new, ["e"]))
    assert "data/e/gone.csv" in table and table.splitlines()[-1] == "1 identical, 1 missing, 1 extra, 1 not compared"


# ---------------------------------------------------------------------- bit-identical science files
SMALL_DISJOINT = {"seed": 5, "ns": [2, 3], "instances": 6, "chunk_size": 3, "greedy_per_chunk": 1,
                  "optimum_ns": [2], "optimum_instances": [1], "optimum_kinds": ["surrounded"],
                  "optimum_node_limit": 100, "adversarial_count": 2,
                  "adversarial_kinds": ["uniform", "ball"], "difficulty_instances": 2}  # fmt: skip


def science_bytes(folder: Path) -> dict[str, bytes]:
    files = {p.relative_to(folder): p for p in folder.rglob("*") if p.is_file()}
    return {inside.as_posix(): path.read_bytes() for inside, path in files.items() if not is_timing_file(inside)}


def written(study_run, params: dict, folder: Path) -> dict[str, bytes]:
    """Run a study and write its frames as the notebooks do (``ExperimentRun.save``); the science bytes."""
    folder.mkdir(parents=True)
    run = ExperimentRun("x", params, folder, folder, folder)
    paths = run.save(study_run(params))
    assert any(is_timing_file(p.relative_to(folder)) for p in paths)  # the study does write timing apart
    return science_bytes(folder)


@pytest.mark.slow
def test_science_csv_bytes_identical_across_runs_and_backends(tmp_path, monkeypatch):
    """Two serial runs, local processes and a Dask cluster write byte-identical science CSVs (floats included);
    only the timing files may differ."""
    from dask.distributed import LocalCluster

    from torus_lab.studies import disjoint_paths

    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    first = written(disjoint_paths.run, SMALL_DISJOINT, tmp_path / "serial-1")
    assert written(disjoint_paths.run, SMALL_DISJOINT, tmp_path / "serial-2") == first
    monkeypatch.setenv("TORUS_LAB_BACKEND", "processes")
    assert written(disjoint_paths.run, SMALL_DISJOINT, tmp_path / "processes") == first
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        monkeypatch.setenv("TORUS_LAB_SCHEDULER", cluster.scheduler_address)
        assert written(disjoint_paths.run, SMALL_DISJOINT, tmp_path / "dask") == first
    assert {"disjoint_paths.csv", "work_fit.csv", "claims.csv"} <= set(first)
    claims = pd.read_csv(tmp_path / "serial-1" / "claims.csv").set_index("claim_id")
    assert "work" in claims.loc["average_time", "measured_text"]  # no time in the claims


# ---------------------------------------------------------------------- the CLI on the real project
def test_verify_reports_differences_and_keeps_the_run(tmp_path, monkeypatch, capsys):
    """The CLI path of a failing verification: the run itself is replaced by a copy of the reference with one
    changed cell (the real re-run: tests/test_reproduce_quick.py)."""
    reference = tmp_path / "reference"
    write(reference / f"reports/{CHEAP}/manifest.json", json.dumps({
        "preset": "quick", "parameters": runner.resolve_parameters(runner.load_experiment(CHEAP, ROOT), "quick")}))
    write(reference / f"data/{CHEAP}/saturation.csv", "routing,saturation\nx,0.25\n")
    write(reference / f"data/{CHEAP}/cdg_check.csv", "routing,acyclic\nx,True\n")

    def fake_run_all(*, out, names, **_):
        for name in names:
            write(out / f"data/{name}/saturation.csv", "routing,saturation\nx,0.2500000000000001\n")
            write(out / f"data/{name}/cdg_check.csv", "routing,acyclic\nx,False\n")
            write(out / f"data/{name}/timing/saturation.csv", "routing,seconds\nx,3.0\n")

    monkeypatch.setattr(verify, "run_all", fake_run_all)
    monkeypatch.chdir(ROOT)
    assert cli.main(["verify", "--preset", "quick", "--only", CHEAP, "--against", str(reference)]) == 1
    out = capsys.readouterr().out
    rows = {line.split("|")[0].strip(): line.split("|")[1].strip() for line in out.splitlines() if "|" in line}
    assert rows[f"data/{CHEAP}/saturation.csv"] == "differs"  # within the numeric tolerance, but not the same bytes
    assert "numbers agree within rel 1e-09" in out and "'0.25' vs '0.2500000000000001'" in out
    assert rows[f"data/{CHEAP}/cdg_check.csv"] == "differs"
    assert "row 1, column 'acyclic': 'True' vs 'False'" in out
    assert not any("timing" in path for path in rows)
    kept = Path(out.split("outputs of this run kept in ")[1].split()[0])
    assert (kept / f"data/{CHEAP}/cdg_check.csv").exists()
    shutil.rmtree(kept)


def test_verify_refuses_a_reference_of_another_preset_before_running(tmp_path, monkeypatch, capsys):
    write(tmp_path / f"reports/{CHEAP}/manifest.json", json.dumps({"preset": "paper", "parameters": {}}))
    monkeypatch.setattr(verify, "run_all", lambda **_: pytest.fail("nothing may run"))
    monkeypatch.chdir(ROOT)
    assert cli.main(["verify", "--preset", "quick", "--only", CHEAP, "--against", str(tmp_path)]) == 2
    assert "are of preset 'paper', not 'quick'" in capsys.readouterr().err
    assert cli.main(["verify", "--preset", "quick", "--only", CHEAP, "--against", str(tmp_path / "none")]) == 2
    assert "--against" in capsys.readouterr().err
    assert cli.main(["verify", "--preset", "quick", "--only", "nope"]) == 2
