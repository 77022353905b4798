"""Every experiment at its quick preset through the real runner, then the report, checked in a real browser."""

from __future__ import annotations

import html.parser
import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from torus_lab import report, runner
from torus_lab.claims import CLAIM_COLUMNS

ROOT = runner.project_root()
EXPERIMENTS = runner.load_experiments(ROOT)
ARTIFACTS = ROOT / "test-artifacts"
pytestmark = pytest.mark.notebook


@pytest.fixture(scope="module")
def quick_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("quick")
    results = report.reproduce(preset="quick", out=out, root=ROOT, progress=False)
    assert [r.name for r in results] == list(EXPERIMENTS)
    return out


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_quick_preset_outputs(quick_out, name):
    for kind in runner.OUTPUT_KINDS:
        assert (quick_out / kind / name / "manifest.json").exists()
    assert any((quick_out / "data" / name).glob("*.csv"))
    pngs = list((quick_out / "figures" / name).glob("*.png"))
    assert pngs and all(p.with_suffix(".svg").exists() for p in pngs)
    notebook_html = quick_out / "reports" / name / f"{name}.html"
    assert notebook_html.stat().st_size > 0
    assert notebook_html.stat().st_size < 5_000_000, "executed notebook HTML should link figures, not inline them"
    executed = json.loads((quick_out / "reports" / name / f"{name}.ipynb").read_text())
    warnings = [text for cell in executed["cells"] for output in cell.get("outputs", [])
                if output.get("name") == "stderr" and "Warning" in (text := "".join(output.get("text", "")))]
    assert not warnings, f"{name}: warnings in the executed notebook: {warnings}"


def test_claims_aggregated(quick_out):
    claims = pd.read_csv(quick_out / "data" / "claims.csv", dtype=str, keep_default_na=False)
    assert list(claims.columns) == CLAIM_COLUMNS
    per_paper = {name: len(pd.read_csv(p)) for name in EXPERIMENTS
                 if (p := quick_out / "data" / name / "claims.csv").exists()}  # fmt: skip
    assert claims["paper"].value_counts().to_dict() == {k: v for k, v in per_paper.items() if v}


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("src", "href") and value and not value.startswith("#"):
                self.targets.append(value)


def test_index_links_resolve(quick_out):
    index = quick_out / "reports" / "index.html"
    parser = _Links()
    parser.feed(index.read_text())
    assert parser.targets, "the report links nothing"
    for target in parser.targets:
        assert "://" not in target, f"absolute link {target}"
        assert (index.parent / target).resolve().exists(), f"broken link {target}"
    for name in EXPERIMENTS:
        assert f"{name}/{name}.html" in parser.targets


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_index_renders_in_headless_chromium(quick_out):
    executable = _chromium()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: `make test` should have installed it")
        pytest.skip("chromium not installed (make test installs it when run as root)")
    from playwright.sync_api import sync_playwright

    index = quick_out / "reports" / "index.html"
    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]  # fmt: skip
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=args)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1600})
            page.set_default_timeout(60_000)
            page.goto(index.as_uri(), wait_until="load")  # "load" waits for every (non-lazy) image
            page.wait_for_function("Array.from(document.images).every(i => i.complete)")
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])"
            )
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "report-index.png"), full_page=False)
            visible = ("v => Array.from(document.querySelectorAll(`tr[data-verdict='${v}']`))"
                       ".filter(r => r.offsetParent)")
            holds_before = page.evaluate(f"({visible})('holds').length")
            page.uncheck("#verdict-filter input[value='holds']")      # the verdict filter hides those rows ...
            holds_hidden = page.evaluate(f"({visible})('holds').length")
            others = page.evaluate(f"({visible})('does not hold').length")
            page.check("#verdict-filter input[value='holds']")        # ... and shows them again
            holds_after = page.evaluate(f"({visible})('holds').length")
        finally:
            browser.close()
    assert images, "no images on the report page"
    broken = [src for src, ok in images if not ok]
    assert not broken, f"images that did not load: {broken}"
    assert holds_before > 0 and holds_hidden == 0 and holds_after == holds_before
    claims = pd.read_csv(quick_out / "data" / "claims.csv", dtype=str, keep_default_na=False)
    assert others == int((claims["verdict"] == "does not hold").sum())


def test_readme_table_generated(tmp_path, quick_out):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n{report.README_START}\nstale\n{report.README_END}\ntail\n")
    entries = report.collect(quick_out, ROOT)
    assert report.update_readme(readme, report.results_markdown(entries))
    text = readme.read_text()
    assert "stale" not in text and text.endswith("tail\n")
    for entry in entries:
        assert entry.experiment.description in text
    assert not report.update_readme(readme, report.results_markdown(entries))  # idempotent
