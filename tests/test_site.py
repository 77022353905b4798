"""The site of documentation and results: its pieces on small inputs, then the site built from the committed
outputs, its links checked by LinkChecker and its zip opened offline in headless Chromium."""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
import urllib.parse
import zipfile
from pathlib import Path

import pytest
from chromium import ARTIFACTS, launch, require_chromium
from hypothesis import given
from hypothesis import strategies as st

from torus_lab import report, runner, site
from torus_lab.claims import conditions_in_words

ROOT = runner.project_root()
EXPERIMENTS = runner.load_experiments(ROOT)

# ---------------------------------------------------------------------- pieces


def _warnings(configurations: dict[str, int]) -> str:
    lines = ["progress 10%"]
    for config, count in configurations.items():
        for cycle in range(count):
            lines += [f"torus_lab/studies/x.py:204: SimulationDeadlock: ecube on {config} deadlocked in drain at "
                      f"cycle {cycle} (seed {cycle * 7}): waiting cycle", "  res = simulate(routing, config)"]
    return "\n".join(lines + ["done"]) + "\n"


@given(st.dictionaries(st.sampled_from(["Torus(4, 2)", "Torus(8, 2)", "Mesh(5, 2)"]), st.integers(1, 50),
                       min_size=1))  # fmt: skip
def test_warnings_are_counted_per_configuration_with_one_example(configurations):
    summary = site.summarize_warnings(_warnings(configurations))
    total = sum(configurations.values())
    assert summary.startswith(f"{total} warning")
    for config, count in configurations.items():
        assert f"{count} ecube on {config} deadlocked" in summary
    assert summary.count(".py:204: SimulationDeadlock: ecube on") == 1  # one example in full
    assert "res = simulate" not in summary and "progress 10%" in summary and summary.endswith("done\n")


def test_long_tables_show_their_head_and_keep_every_row_collapsed():
    rows = "".join(f"<tr><th>{i}</th><td>v{i}</td></tr>" for i in range(45))
    page = f"<div><table class='dataframe'><thead><tr><th>i</th></tr></thead><tbody>{rows}</tbody></table></div>"
    short = site.collapse_long_tables(page)
    head, collapsed = short.split("<details", 1)
    assert head.count("<td>") == site.TABLE_HEAD_ROWS and collapsed.count("<td>") == 45
    assert "all 45 rows" in collapsed
    small = page.replace(rows, rows[: rows.index("<tr><th>5</th>")])
    assert site.collapse_long_tables(small) == small


def test_site_notebook_drops_the_defaults_collapses_code_and_adds_the_provenance():
    manifest = json.loads((ROOT / "reports" / "loads" / "manifest.json").read_text())
    nb = json.loads((ROOT / "reports" / "loads" / "loads.ipynb").read_text())
    prepared = site.site_notebook(nb, "loads", manifest)
    tags = [cell["metadata"].get("tags", []) for cell in prepared["cells"]]
    assert not any("parameters" in t for t in tags) and any("injected-parameters" in t for t in tags)
    assert all("hide-input" in t for t, c in zip(tags, prepared["cells"], strict=True) if c["cell_type"] == "code")
    provenance = next(c for c in prepared["cells"] if c.get("id") == "torus-lab-provenance")
    assert manifest["git"]["commit"][:12] in provenance["source"] and str(manifest["seed"]) in provenance["source"]
    assert prepared["cells"].index(provenance) == 1  # right under the title
    assert nb == json.loads((ROOT / "reports" / "loads" / "loads.ipynb").read_text())  # the input is not changed


def test_the_committed_direction_first_notebook_summarises_its_warnings():
    """Its runs deadlock on some configurations; the kernel's capture (``torus_lab.notebook_warnings``) wrote one
    summary per cell (a count, the count per configuration, one example), never a line per warning, and the site
    shows that summary as it is."""
    nb = json.loads((ROOT / "reports" / "direction_first" / "direction_first.ipynb").read_text())

    def stderr_texts(notebook) -> list[str]:
        return ["".join(o["text"]) if isinstance(o["text"], list) else o["text"] for c in notebook["cells"]
                for o in c.get("outputs", []) if o.get("name") == "stderr"]  # fmt: skip

    texts = stderr_texts(nb)
    assert texts, "no warning summary in the committed notebook"
    for text in texts:
        total = re.match(r"(\d+) warnings?:\n", text)
        assert total, text[:200]
        kinds = re.findall(r"^  SimulationDeadlock: (.*)$", text, re.M)
        assert len(kinds) == 1 and text.count("SimulationDeadlock") <= 2, text[:400]  # the counts and one example
        per_configuration = re.findall(r"(?:^|, )(\d+) ", kinds[0])  # "44 <configuration>, 34 <configuration>"
        assert sum(map(int, per_configuration)) == int(total.group(1)), kinds[0][:400]
    assert stderr_texts(site.site_notebook(nb, "direction_first", None)) == texts


def test_reading_the_figures_of_a_notebook_needs_no_plotting_stack(tmp_path):
    """``torus-lab report`` lists each notebook's figures without importing matplotlib, seaborn or scipy.stats
    (about 1.9 s); the key is the one ``show_figure`` writes."""
    from torus_lab import plotting

    record = {"name": "a", "file": "figures/demo/a.png", "caption": "What a shows"}
    notebook = tmp_path / "demo.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "", "metadata": {}, "outputs": [
        {"output_type": "display_data", "data": {"text/html": plotting.figure_html("demo", "a", "What a shows")},
         "metadata": {plotting.FIGURE_METADATA_KEY: record}}]}]}))  # fmt: skip
    code = ("import sys\nfrom torus_lab import report\nfrom torus_lab.site import notebook_figures\n"
            f"print(notebook_figures({str(notebook)!r}))\n"
            "print(sorted({'matplotlib', 'seaborn', 'scipy.stats'} & set(sys.modules)))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    figures, stack = done.stdout.strip().splitlines()
    assert stack == "[]" and figures == repr([record])


def test_the_site_refuses_bad_arguments_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="html_dir"):
        site.write_site_zip(tmp_path, tmp_path / "x.zip")
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "x").write_text("x")
    with pytest.raises(ValueError, match="source"):
        site.prepare_site_source(tmp_path / "source", [], ROOT, ROOT)
    with pytest.raises(TypeError, match="strict"):
        report.build_project_site(strict="yes")


# ---------------------------------------------------------------------- the built site
@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """The site of the committed outputs and its zip, built as ``make site`` builds it: ``torus-lab site --strict``
    (every Sphinx warning an error, every cross-reference resolved).  ``make test`` builds the site only here."""
    from torus_lab import cli

    folder = tmp_path_factory.mktemp("site")
    html_dir = folder / "html"
    assert cli.main(["site", "--strict", "--html", str(html_dir)]) == 0
    archive = site.write_site_zip(html_dir, folder / "site.zip")
    return html_dir, archive


def test_every_experiment_has_a_page_with_its_figures_and_the_conventions_links_resolve(built):
    html_dir, _ = built
    for name in EXPERIMENTS:
        page = (html_dir / "reports" / name / f"{name}.html").read_text(encoding="utf-8")
        assert "Provenance of this run" in page
        for figure in re.findall(r'src="\.\./\.\./(figures/[^"]+\.png)"', page):
            assert (html_dir / figure).is_file(), figure
        assert "docs/conventions.md" not in re.sub(r"<code[^>]*>.*?</code>", "", page, flags=re.S)
    claims = (html_dir / "results" / "claims.html").read_text(encoding="utf-8")
    assert "{'" not in claims and (html_dir / "data" / "claims.csv").is_file()
    assert (html_dir / "_static" / "mathjax" / "MathJax.js").is_file()
    assert (html_dir / "_modules" / "torus_lab" / "topology.html").is_file()  # viewcode source pages


class _Page(html.parser.HTMLParser):
    """The ids (anchors) a page defines and the links (href, src) it makes."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("id", "name") and value:
                self.ids.add(value)
            elif key in ("href", "src") and value and not (tag == "link" and ("rel", "canonical") in attrs):
                self.links.append(value)


def broken_links(html_dir: Path) -> tuple[int, list[str]]:
    """Every internal link of every page of ``html_dir`` checked: the file exists and, for ``page.html#anchor``,
    the page defines the anchor.  Returns the number of links checked and the broken ones."""
    pages: dict[Path, _Page] = {}
    for path in html_dir.glob("**/*.html"):
        if path.relative_to(html_dir).parts[0] == "_static":
            continue  # the theme's templates and MathJax's files, no pages
        page = _Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path.resolve()] = page
    checked, broken = 0, []
    for path, page in pages.items():
        for link in page.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme in ("http", "https", "mailto", "data", "javascript") or parts.netloc:
                continue  # external: the test of the zip checks that the browser never loads one
            checked += 1
            target = (path.parent / urllib.parse.unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{path.relative_to(html_dir.resolve())}: {link} (no such file)")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in pages[target].ids:
                broken.append(f"{path.relative_to(html_dir.resolve())}: {link} (no such anchor)")
    return checked, broken


def test_no_internal_link_or_anchor_is_broken(built):
    html_dir, _ = built
    checked, broken = broken_links(html_dir)
    assert checked > 5000 and not broken, broken[:30]


def test_the_zip_works_offline_in_headless_chromium(built, tmp_path):
    """The zip unpacked into an empty folder and opened by file://: math typeset from the local MathJax, figures
    loaded, the search answering, a link followed, and not one request outside the folder."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    _, archive = built
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    with zipfile.ZipFile(archive) as packed:
        packed.extractall(unpacked)
    top = unpacked / site.ZIP_NAME.removesuffix(".zip")
    assert [p.name for p in unpacked.iterdir()] == [top.name]
    requests: list[str] = []
    errors: list[str] = []

    def route(handle) -> None:
        requests.append(handle.request.url)
        url = handle.request.url
        if url.startswith(("data:", "blob:", "about:")) or url.startswith(top.as_uri()):
            handle.continue_()
        else:
            handle.abort()

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1200})
            page.set_default_timeout(60_000)
            page.route("**/*", route)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto((top / "index.html").as_uri(), wait_until="load")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)")
            thumbs = page.evaluate("Array.from(document.querySelectorAll('img.tl-thumb'))"
                                   ".map(i => i.naturalWidth)")  # fmt: skip
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "site-index.png"))
            page.click("text=Quickstart >> nth=0")  # a link followed
            page.wait_for_load_state("load")
            followed = page.url
            page.goto((top / "reports" / "loads" / "loads.html").as_uri(), wait_until="load")
            page.wait_for_function("document.querySelectorAll('.MathJax, .MathJax_Display').length > 10")
            math = page.evaluate("document.querySelectorAll('.MathJax, .MathJax_Display').length")
            raw_tex = page.evaluate("document.querySelectorAll('.MathJax_Error, .math:not(:has(.MathJax))').length")
            page.wait_for_function("Array.from(document.images).every(i => i.complete)")
            figures = page.evaluate("Array.from(document.querySelectorAll('figure.torus-lab-figure img'))"
                                    ".map(i => i.naturalWidth)")  # fmt: skip
            page.screenshot(path=str(ARTIFACTS / "site-loads.png"))
            page.goto((top / "search.html").as_uri() + "?q=dateline", wait_until="load")
            page.wait_for_function("document.querySelectorAll('#search-results li').length > 0")
            hits = page.evaluate("Array.from(document.querySelectorAll('#search-results li a')).map(a => a.href)")
        finally:
            browser.close()
    assert len(thumbs) >= len(EXPERIMENTS) - 1 and all(width > 0 for width in thumbs), thumbs
    assert followed.endswith("/quickstart.html"), followed
    assert math > 10 and raw_tex == 0
    assert figures and all(width > 0 for width in figures), figures
    assert any(hit.startswith(top.as_uri()) and "conventions.html" in hit for hit in hits), hits
    outside = [url for url in requests if not url.startswith((top.as_uri(), "data:", "blob:", "about:"))]
    assert not outside, f"requests left the unpacked folder: {outside}"
    assert not errors, f"page errors: {errors}"


def test_the_zip_is_deterministic_and_holds_the_whole_site(built, tmp_path):
    html_dir, archive = built
    again = site.write_site_zip(html_dir, tmp_path / "again.zip")
    assert again.read_bytes() == archive.read_bytes()
    top = site.ZIP_NAME.removesuffix(".zip")
    with zipfile.ZipFile(archive) as packed:
        names = set(packed.namelist())
    expected = {f"{top}/{p.relative_to(html_dir).as_posix()}" for p in html_dir.glob("**/*") if p.is_file()}
    assert names == expected and f"{top}/index.html" in names


def test_conditions_of_the_committed_claims_read_as_words():
    import pandas as pd

    claims = pd.read_csv(ROOT / "data" / "claims.csv", dtype=str, keep_default_na=False)
    for text in claims["conditions"]:  # written in words when the row is built (torus_lab.claims) ...
        assert "{'" not in text, text[:200]
        assert conditions_in_words(text) == text  # ... so the site has nothing left to rewrite
