"""Every experiment at its quick preset through the real runner, then the report, checked in a real browser."""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from torus_lab import report, report_html, runner
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
    report_html.check_self_contained(notebook_html.read_text(encoding="utf-8"))
    executed_path = quick_out / "reports" / name / f"{name}.ipynb"
    assert executed_path.stat().st_size < 2_000_000, "the executed notebook should link figures, not inline them"
    executed = json.loads(executed_path.read_text())
    shown = report_html.notebook_figures(executed_path)
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
        assert (index.parent / target.split("#")[0]).resolve().exists(), f"broken link {target}"
    for name in EXPERIMENTS:
        assert f"{name}/{name}.html" in parser.targets
        figures = report_html.notebook_figures(quick_out / "reports" / name / f"{name}.ipynb")
        for figure in figures:  # the index lists every figure by its caption, linking to it in the paper's report
            assert f"{name}/{name}.html#figure-{figure['name']}" in parser.targets


def test_report_zip_holds_the_whole_report(quick_out):
    archive = quick_out / report_html.ZIP_NAME
    with zipfile.ZipFile(archive) as packed:
        names = {n.split("/", 1)[1] for n in packed.namelist()}
    assert "reports/index.html" in names and "data/claims.csv" in names
    for name in EXPERIMENTS:
        assert {f"reports/{name}/{name}.html", f"reports/{name}/manifest.json"} <= names
    parser = _Links()
    parser.feed((quick_out / "reports" / "index.html").read_text())
    for target in parser.targets:  # unpacked, every link of the index resolves inside the zip
        assert Path(os.path.normpath(Path("reports") / target.split("#")[0])).as_posix() in names, target


def test_report_command_rewrites_the_same_zip_elsewhere(quick_out, tmp_path, capsys):
    """`torus-lab report --zip FILE` on the quick outputs: the index is rebuilt identically, so the zip has the
    same bytes as the one `reproduce` wrote (index, reports and zip are deterministic)."""
    from torus_lab import cli

    target = tmp_path / "sent" / "report.zip"
    assert cli.main(["report", "--out", str(quick_out), "--zip", str(target)]) == 0
    assert str(target) in capsys.readouterr().out
    assert target.read_bytes() == (quick_out / report_html.ZIP_NAME).read_bytes()
    with pytest.raises(SystemExit) as refused:
        cli.main(["report", "--out", str(quick_out), "--zip", str(target), "--no-zip"])
    assert refused.value.code == 2


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _require_chromium() -> str:
    executable = _chromium()
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: `make test` should have installed it")
        pytest.skip("chromium not installed (make test installs it when run as root)")
    return executable


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module's page tests: each test opens its page in a fresh browser context (its
    own cache, storage and cookies, as in a new browser), so sharing the process changes nothing a page sees and
    saves a browser start-up (about a CPU second) per test."""
    executable = _require_chromium()
    from playwright.sync_api import sync_playwright

    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]  # fmt: skip
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=args)
        try:
            yield launched
        finally:
            launched.close()


def _open(browser, path: Path) -> tuple[object, list[str], list[str]]:
    """A page showing ``path``, in a new browser context; every request it makes and every console error or page
    error is recorded."""
    page = browser.new_context(viewport={"width": 1280, "height": 1600}).new_page()
    page.set_default_timeout(60_000)
    requests, errors = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri(), wait_until="load")  # "load" waits for every (non-lazy) image
    page.wait_for_function("Array.from(document.images).every(i => i.complete)")
    return page, requests, errors


def test_index_renders_in_headless_chromium(quick_out, browser):
    index = quick_out / "reports" / "index.html"
    page, requests, errors = _open(browser, index)
    try:
        links = page.evaluate("Array.from(document.querySelectorAll('a[href*=\"#figure-\"]')).length")
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
        page.context.close()
    assert requests == [index.as_uri()], f"the index loaded something besides itself: {requests}"
    assert not errors, f"console errors: {errors}"
    assert links >= len(EXPERIMENTS), "the index should list the figures of every paper"
    assert holds_before > 0 and holds_hidden == 0 and holds_after == holds_before
    claims = pd.read_csv(quick_out / "data" / "claims.csv", dtype=str, keep_default_na=False)
    assert others == int((claims["verdict"] == "does not hold").sum())


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_paper_report_works_alone_in_headless_chromium(quick_out, browser, tmp_path, name):
    """The per-paper report copied alone into an empty folder: images, math, no console error, no request."""
    alone = tmp_path / f"{name}.html"
    shutil.copyfile(quick_out / "reports" / name / f"{name}.html", alone)
    assert [p.name for p in tmp_path.iterdir()] == [alone.name]
    page, requests, errors = _open(browser, alone)
    try:
        images = page.evaluate("Array.from(document.images).map(i => [i.alt, i.complete && i.naturalWidth > 0,"
                               " i.getBoundingClientRect().width])")  # fmt: skip
        text = page.evaluate("document.body.innerText")
        math = page.evaluate("document.querySelectorAll('math').length")
        captions = page.evaluate("Array.from(document.querySelectorAll('figure.torus-lab-figure'))"
                                 ".map(f => (f.querySelector('figcaption') || {}).innerText || '')")  # fmt: skip
        code_hidden = page.evaluate("Array.from(document.querySelectorAll('details.tl-code')).every(d => !d.open)")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"report-{name}.png"), full_page=False)
        page.click("figure.torus-lab-figure img")  # click to enlarge: an overlay with the same image, wider
        zoomed = page.evaluate("(document.querySelector('#tl-zoom img') || {}).clientWidth || 0")
    finally:
        page.context.close()
    assert requests == [alone.as_uri()], f"{name}: the report loaded something besides itself: {requests}"
    assert not errors, f"{name}: console errors: {errors}"
    assert images and all(ok for _, ok, _ in images), f"{name}: images that did not load: {images}"
    assert all(width >= 1000 for _, _, width in images), f"{name}: figures not full width: {images}"
    raw_tex = re.findall(r".{0,20}\$[^$\n]+\$.{0,20}", text)
    assert not raw_tex, f"{name}: raw TeX visible: {raw_tex}"
    assert len(captions) == len(images) and all(len(c) > 40 for c in captions), f"{name}: captions {captions}"
    assert code_hidden and zoomed > max(width for _, _, width in images)
    if name in ("loads", "disjoint_paths", "fault_tolerant"):  # their Markdown holds TeX
        assert math > 0


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
