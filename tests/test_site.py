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

import pandas as pd
import pytest
from chromium import ARTIFACTS, launch, require_chromium
from hypothesis import given
from hypothesis import strategies as st

from torus_lab import report, runner, site, tables
from torus_lab.claims import conditions_in_words, referee_summary

ROOT = runner.project_root()
#: The web font (its file, its family) MathJax's STIX-Web output draws \mathcal with (the loads notebook's
#: \mathcal{E}).
CALIGRAPHIC_FONT, CALIGRAPHIC_FAMILY = "STIXMathJax_Variants-Italic", "STIXMathJax_Variants-italic"
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


def test_a_long_table_not_cut_by_its_notebook_shows_its_head_and_a_link_to_the_run_s_data():
    rows = "".join(f"<tr><th>{i}</th><td>v{i}</td></tr>" for i in range(45))
    page = f"<div><table class='dataframe'><thead><tr><th>i</th></tr></thead><tbody>{rows}</tbody></table></div>"
    short = site.shorten_long_tables(page, "../../results/provenance.html#run-demo")
    assert short.count("<td>") == tables.TABLE_HEAD_ROWS and "v9<" in short and "v10<" not in short
    assert "The first 10 of 45 rows" in short and "href='../../results/provenance.html#run-demo'" in short
    small = page.replace(rows, rows[: rows.index(f"<tr><th>{tables.TABLE_MAX_ROWS}</th>")])
    assert site.shorten_long_tables(small, "x.html") == small


def _executed_notebook(data: Path) -> dict:
    """A small executed notebook as the runner leaves it: a title, a table shown through ``run.table`` (the
    helper's output for a saved 45-row CSV) and a long table shown whole (an older notebook)."""
    frame = pd.DataFrame({"k": range(45), "value": [i / 7 for i in range(45)]})
    data.mkdir(parents=True)
    frame.to_csv(data / "big.csv", index=False)
    href, label = tables.csv_link(data / "big.csv", under_runner=True)

    def output(html: str, text: str) -> dict:
        return {"output_type": "display_data", "metadata": {}, "data": {"text/html": html, "text/plain": text}}

    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Demo"},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "run.table(big, 'big')",
              "outputs": [output(tables.table_html(frame, href, label), tables.table_text(frame, label))]},
             {"cell_type": "code", "metadata": {}, "execution_count": 2, "source": "big",
              "outputs": [output(frame._repr_html_(), frame.to_string())]}]  # fmt: skip
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                        "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def test_a_long_table_renders_on_the_site_as_its_head_and_a_link_to_its_csv(tmp_path):
    """A page built by Sphinx with the site's configuration from a small executed notebook: each table shows
    ten rows; the one shown through ``run.table`` links its full CSV, which is on the site."""
    source, html_dir = tmp_path / "source", tmp_path / "html"
    notebook = _executed_notebook(source / "_extra" / "data" / "demo")
    page = source / "reports" / "demo" / "demo.ipynb"
    page.parent.mkdir(parents=True)
    page.write_text(json.dumps(site.site_notebook(notebook, "demo", None)))
    (source / "index.md").write_text("# Site\n\n```{toctree}\nreports/demo/demo\n```\n")
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "-c", str(ROOT / "docs"),
                    str(source), str(html_dir)], check=True, cwd=ROOT, capture_output=True)  # fmt: skip
    built = (html_dir / "reports" / "demo" / "demo.html").read_text(encoding="utf-8")
    shown = re.findall(r"<table.*?</table>", built, re.S)
    assert len(shown) == 2 and all(len(re.findall(r"<tr\b", t.split("<tbody>")[1])) == 10 for t in shown)
    links = re.findall(r'<a href="([^"]+\.csv)">', built)
    assert links == ["../../data/demo/big.csv"] and (html_dir / "data" / "demo" / "big.csv").is_file()
    assert "The first 10 of 45 rows" in built and "results/provenance.html#run-demo" in built


def test_the_claims_page_says_when_there_is_no_previous_run_or_no_record(tmp_path):
    """Each paper's claims open with its referee summary, then what changed since the previous run: a sentence
    when the run was the first in its output folder, or when its manifest predates the record."""
    claims = report.collect(ROOT)[[e.name for e in report.collect(ROOT)].index("loads")].claims
    manifests = {"first": {"claims_changes": {"previous_run": None, "changes": []}},
                 "same": {"claims_changes": {"previous_run": {"commit": "a" * 40, "started_utc": "2026"},
                                             "changes": []}},
                 "old": {}}  # fmt: skip
    entries = [site.SiteEntry(name, "a paper", tmp_path / "none.ipynb", manifest, claims)
               for name, manifest in manifests.items()]  # fmt: skip
    source = site.prepare_site_source(tmp_path / "source", entries, tmp_path, ROOT)
    page = (source / "results" / "claims.md").read_text()
    sections = dict(zip(manifests, page.split("\n## ")[1:], strict=True))
    assert all("Referee's summary" in text and "reproduced" in text for text in sections.values())
    assert "No previous run in this output folder" in sections["first"]
    assert "No verdict or evidence changed since the previous run (commit aaaaaaaaaaaa" in sections["same"]
    assert "Not recorded" in sections["old"]
    summary = referee_summary(claims)
    for finding in summary.findings:
        assert html.escape(finding) in sections["first"]


def test_site_notebook_drops_the_defaults_collapses_code_and_adds_the_provenance():
    manifest = json.loads((ROOT / "reports" / "loads" / "manifest.json").read_text())
    nb = json.loads((ROOT / "reports" / "loads" / "loads.ipynb").read_text())
    prepared = site.site_notebook(nb, "loads", manifest)
    tags = [cell["metadata"].get("tags", []) for cell in prepared["cells"]]
    assert not any("parameters" in t for t in tags) and any("injected-parameters" in t for t in tags)
    assert all({"hide-input", "remove-input"} & set(t) for t, c in zip(tags, prepared["cells"], strict=True)
               if c["cell_type"] == "code")   # a figure's own cell (figure_cells) has no input to show
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
        for table in re.findall(r"<table.*?</table>", page, re.S):  # no long table shown whole
            assert len(re.findall(r"<tr\b", table.split("<tbody>")[-1])) <= tables.TABLE_MAX_ROWS, (name, table[:300])
        for figure in re.findall(r'src="\.\./\.\./(figures/[^"]+\.png)"', page):
            assert (html_dir / figure).is_file(), figure
        assert "docs/conventions.md" not in re.sub(r"<code[^>]*>.*?</code>", "", page, flags=re.S)
    claims = (html_dir / "results" / "claims.html").read_text(encoding="utf-8")
    assert "{'" not in claims and (html_dir / "data" / "claims.csv").is_file()
    assert (html_dir / "_static" / "mathjax" / "MathJax.js").is_file()
    assert (html_dir / "_static" / "mathjax" / "fonts" / "HTML-CSS" / "STIX-Web" / "woff"
            / f"{CALIGRAPHIC_FONT}.woff").is_file()  # \mathcal, offline  # fmt: skip
    assert (html_dir / "_modules" / "torus_lab" / "topology.html").is_file()  # viewcode source pages


def test_every_figure_of_a_notebook_is_numbered_and_captioned_on_its_page(built):
    """Each figure a notebook shows (``show_figure``'s record) is a Sphinx figure of its page: numbered in order
    ("Figure 3.1", "Figure 3.2", ... on the third results page) with the caption the notebook gave it, and its anchor
    kept for the thumbnails."""
    html_dir, _ = built
    for name in EXPERIMENTS:
        figures = site.notebook_figures(ROOT / "reports" / name / f"{name}.ipynb")
        page = (html_dir / "reports" / name / f"{name}.html").read_text(encoding="utf-8")
        numbers = re.findall(r'<span class="caption-number">Figure (\d+)\.(\d+) ', page)   # page.figure
        assert [int(n) for _, n in numbers] == list(range(1, len(figures) + 1)), name
        assert len({page_number for page_number, _ in numbers}) <= 1, name
        plain = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})  # Sphinx's smart quotes
        captions = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip().translate(plain)
                    for c in re.findall(r'<span class="caption-text">(.*?)</span>', page, flags=re.S)]
        assert captions == [f["caption"].translate(plain) for f in figures], name
        assert all(f'id="figure-{f["name"]}"' in page for f in figures), name
        assert "<figcaption>" + figures[0]["caption"] not in page if figures else True   # one caption, Sphinx's


def test_a_cell_with_figures_is_split_one_figure_per_cell_in_order():
    from torus_lab.settings import FIGURE_METADATA_KEY

    def figure(name):
        record = {"name": name, "file": f"figures/x/{name}.png", "caption": f"{name} [shown] with *stars*"}
        return {"output_type": "display_data", "metadata": {FIGURE_METADATA_KEY: record},
                "data": {"text/html": f"<figure><img src='{name}.png'><figcaption>c</figcaption></figure>"}}

    table = {"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "a table"}}
    cell = {"cell_type": "code", "id": "abc", "metadata": {}, "source": "show(a); show(b); table",
            "outputs": [figure("a"), figure("b"), table]}
    cells = site.figure_cells(cell, "x")
    assert cells[0]["source"] == "show(a); show(b); table" and all(c["source"].strip() for c in cells)
    assert [[o["output_type"] for o in c["outputs"]] for c in cells] == [[], ["display_data"], ["display_data"],
                                                                         ["execute_result"]]
    assert [c["metadata"].get("mystnb", {}).get("figure", {}).get("name") for c in cells] == [None, "x-a", "x-b",
                                                                                               None]
    assert len({c["id"] for c in cells}) == 4 and all("remove-input" in c["metadata"]["tags"] for c in cells[1:])
    assert all("figcaption" not in c["outputs"][0]["data"]["text/html"] for c in cells[1:3])
    plain = {**cell, "outputs": [table]}
    assert site.figure_cells(plain, "x") == [plain]
    with pytest.raises(TypeError, match="cell"):
        site.figure_cells("not a cell", "x")


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
            page.wait_for_function("Array.from(document.fonts).some(f => f.family.replaceAll('\"', '') === "
                                   f"'{CALIGRAPHIC_FAMILY}' && f.status === 'loaded')")  # \mathcal drawn  # fmt: skip
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
    assert any(url.startswith(top.as_uri()) and f"/{CALIGRAPHIC_FONT}.woff" in url for url in requests)
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
