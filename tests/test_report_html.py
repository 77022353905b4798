"""The self-contained HTML report of one notebook and the report zip, on tiny synthetic notebooks."""

from __future__ import annotations

import base64
import json
import re
import zipfile
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st

from torus_lab import plotting, report_html
from torus_lab.report_html import ReportInfo

ROOT = Path(__file__).resolve().parents[1]
# A 1x1 PNG (the exporter checks the file type by name, the browser test checks real figures).
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5Erk"
                       "Jggg==")
INFO = ReportInfo(experiment="demo", title="Demo paper", preset="quick", parameters={"seed": 3, "ks": [4, 5]},
                  notebook="notebooks/demo.ipynb", descriptions={"seed": "root seed"})  # fmt: skip


def _layout(tmp_path: Path, *, figure_exists: bool = True) -> Path:
    """``reports/demo/demo.ipynb`` and ``figures/demo/a.png`` under ``tmp_path`` (the runner's layout)."""
    (tmp_path / "figures" / "demo").mkdir(parents=True)
    if figure_exists:
        (tmp_path / "figures" / "demo" / "a.png").write_bytes(PNG)
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("seed = 1  # SECRET-DEFAULT")
    params.metadata["tags"] = ["parameters"]
    figure = nbformat.v4.new_code_cell("run.show(fig, 'a', caption='A caption')")
    figure.outputs = [nbformat.v4.new_output(
        "display_data", data={"text/html": plotting.figure_html("demo", "a", "What a shows"), "text/plain": "<HTML>"},
        metadata={plotting.FIGURE_METADATA_KEY: {"name": "a", "file": "figures/demo/a.png", "caption": "What a shows"}},
    )]  # fmt: skip
    inline = nbformat.v4.new_code_cell("plt.show()")
    inline.outputs = [nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(PNG).decode()})]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Loads in $d$-dimensional $k$-tori\n\nInline $\\mathcal{E}_{max} \\le k^2$, "
                                      "price \\$5, code `$x$`.\n\n$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$"),
        params, figure, inline, nbformat.v4.new_code_cell("x = 1  # VISIBLE-CODE"),
    ]  # fmt: skip
    path = tmp_path / "reports" / "demo" / "demo.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


def test_export_is_self_contained_with_math_figures_and_parameters(tmp_path):
    notebook = _layout(tmp_path)
    html_path = report_html.export_report_html(notebook, notebook.with_suffix(".html"), INFO)
    page = html_path.read_text(encoding="utf-8")
    assert report_html.check_self_contained(page) == page
    assert "cdn" not in page.lower() and "mathjax" not in page.lower() and "require.js" not in page
    # math: three formulas as MathML, no TeX left outside code; the escaped dollar and the code span stay text
    assert page.count("<math ") == 4  # $d$, $k$, the inline inequality, the display sum
    assert page.count('MathML" display="block"') == 1
    assert "\\mathcal" not in page and "\\frac" not in page and "TORUSLABMATH" not in page
    assert "$5" in page and "<code>$x$</code>" in page
    # figures: the linked PNG and the inline one embedded, the caption under the figure
    encoded = base64.b64encode(PNG).decode()
    assert page.count(f"data:image/png;base64,{encoded}") == 2
    assert "../../figures" not in page
    assert re.search(r'<figure class="torus-lab-figure" id="figure-a">.*<figcaption>What a shows</figcaption>',
                     page, re.S)  # fmt: skip
    # code collapsed, parameters cell replaced by the table
    assert "VISIBLE-CODE" in page and page.count("<details class=\"tl-code\">") == 3
    assert "SECRET-DEFAULT" not in page
    table = page[page.index("tl-params") :]
    for key, value in (("seed", "3"), ("ks", "[4, 5]"), ("root seed", "")):
        assert key in table and value in table


def test_export_is_deterministic(tmp_path):
    notebook = _layout(tmp_path)
    first = report_html.export_report_html(notebook, notebook.parent / "one.html", INFO).read_bytes()
    second = report_html.export_report_html(notebook, notebook.parent / "two.html", INFO).read_bytes()
    assert first == second


def test_a_reused_exporter_writes_what_a_new_one_writes_also_from_two_threads_at_once(tmp_path, monkeypatch):
    """Exporters are reused: another notebook exported in between, or two exports side by side (as
    ``torus-lab reproduce`` runs them), give the bytes of a fresh exporter."""
    from concurrent.futures import ThreadPoolExecutor

    notebook = _layout(tmp_path / "a")
    other = _layout(tmp_path / "b")
    nb = nbformat.read(other, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("## Another section with $x^2$"))
    nbformat.write(nb, other)
    monkeypatch.setattr(report_html, "_IDLE_EXPORTERS", [])
    fresh = report_html.export_report_html(notebook, notebook.parent / "fresh.html", INFO).read_bytes()
    fresh_other = report_html.export_report_html(other, other.parent / "fresh.html", INFO).read_bytes()
    assert len(report_html._IDLE_EXPORTERS) == 1  # the one exporter was lent twice
    with ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(report_html.export_report_html, path, path.parent / f"side-{i}.html", INFO)
                for i in range(3) for path in (notebook, other)]  # fmt: skip
        pages = [job.result().read_bytes() for job in jobs]
    assert pages == [fresh, fresh_other] * 3
    assert 1 <= len(report_html._IDLE_EXPORTERS) <= 2


def test_missing_figure_is_an_error_before_writing(tmp_path):
    notebook = _layout(tmp_path, figure_exists=False)
    target = notebook.with_suffix(".html")
    with pytest.raises(ValueError, match="figures/demo/a.png"):
        report_html.export_report_html(notebook, target, INFO)
    assert not target.exists()


@pytest.mark.parametrize("page", ['<script src="https://x/y.js"></script>', '<link rel="stylesheet" href="a.css">',
                                  '<img src="../a.png">', "<style>@import 'x.css';</style>",
                                  "<div style=\"background: url('a.png')\"></div>",
                                  "<script type=module>import m from 'https://x/m.mjs'</script>"])  # fmt: skip
def test_check_self_contained_refuses_external_resources(page):
    with pytest.raises(ValueError, match="not self-contained"):
        report_html.check_self_contained(page)


def _join(segments):
    wrap = {"text": "{}", "inline": "${}$", "display": "$${}$$"}
    return "".join(wrap[kind].format(text) for kind, text in segments)


@given(st.text(alphabet="ab $`\\\n{}", max_size=40))
def test_split_math_round_trips(text):
    segments = report_html.split_math(text)
    assert _join(segments) == text
    assert all(kind in report_html.MATH_KINDS and (kind == "text" or text.strip()) for kind, text in segments)
    assert all(segments[i][0] != "text" or segments[i + 1][0] != "text" for i in range(len(segments) - 1))


def test_every_formula_of_the_notebooks_converts():
    """Every $...$ / $$...$$ of the project's notebooks (Markdown cells) becomes MathML without leftovers."""
    count = 0
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                source, math = report_html.markdown_math_to_mathml("".join(cell["source"]))
                assert not re.search(r"\$[^$\s][^$]*\$", re.sub(r"`[^`]*`", "", source)), (path.name, source)
                count += len(math)
    assert count > 100


def test_figure_html_and_caption_checks():
    assert "<figcaption>a &lt; b</figcaption>" in plotting.figure_html("demo", "a", "a < b")
    assert "figcaption" not in plotting.figure_html("demo", "a", None)
    with pytest.raises(ValueError, match="name"):
        plotting.figure_html("demo", "../a", "x")
    with pytest.raises(ValueError, match="caption"):
        plotting.show_figure(object(), "figs", "a", caption="  ")


def test_report_zip_is_deterministic_and_complete(tmp_path):
    notebook = _layout(tmp_path)
    report_html.export_report_html(notebook, notebook.with_suffix(".html"), INFO)
    (tmp_path / "figures" / "demo" / "a.svg").write_text("<svg/>")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "x.txt").write_text("not part of the report")
    (tmp_path / "data" / "demo" / "timing").mkdir(parents=True)
    (tmp_path / "data" / "demo" / "x.csv").write_text("a\n1\n")
    (tmp_path / "data" / "demo" / "timing" / "t.csv").write_text("s\n1\n")
    (tmp_path / "reports" / "index.html").write_text("<p>index</p>")
    first = report_html.write_report_zip(tmp_path, ["demo"], tmp_path / "one.zip")
    second = report_html.write_report_zip(tmp_path, ["demo"], tmp_path / "two.zip")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        assert archive.testzip() is None
    assert names == sorted(names) and all(n.startswith("torus-lab-report/") for n in names)
    inside = {n.removeprefix("torus-lab-report/") for n in names}
    assert inside == {"reports/index.html", "reports/demo/demo.ipynb", "reports/demo/demo.html",
                      "figures/demo/a.svg", "figures/demo/a.png", "data/demo/x.csv",
                      "data/demo/timing/t.csv"}  # fmt: skip
    with pytest.raises(ValueError, match="names"):
        report_html.write_report_zip(tmp_path, ["../x"])


def test_reading_the_figures_of_a_notebook_needs_no_plotting_stack(tmp_path):
    """``torus-lab report`` (and the end of ``reproduce``) lists each notebook's figures without importing
    matplotlib, seaborn or scipy.stats (about 1.9 s); the key is the one ``show_figure`` writes."""
    import ast
    import subprocess
    import sys

    notebook = _layout(tmp_path)
    code = ("import sys\nfrom torus_lab import report\nfrom torus_lab.report_html import notebook_figures\n"
            f"print(notebook_figures({str(notebook)!r}))\n"
            "print(sorted({'matplotlib', 'seaborn', 'scipy.stats'} & set(sys.modules)))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    figures, stack = done.stdout.strip().splitlines()
    assert stack == "[]"
    assert ast.literal_eval(figures) == [{"name": "a", "file": "figures/demo/a.png", "caption": "What a shows"}]
    assert plotting.FIGURE_METADATA_KEY == report_html.FIGURE_METADATA_KEY
