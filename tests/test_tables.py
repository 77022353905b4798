"""Tables in notebooks (torus_lab.tables): a long table shows its head and a link to its full CSV."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from torus_lab import tables


def _frame(rows: int) -> pd.DataFrame:
    return pd.DataFrame({"k": range(rows), "name": [f"row {i}" for i in range(rows)]})


def _body_rows(html: str) -> int:
    return len(re.findall(r"<tr\b", html.split("<tbody>", 1)[1])) if "<tbody>" in html else 0


@given(rows=st.integers(0, 80), head=st.integers(1, 15), extra=st.integers(0, 30), styled=st.booleans())
def test_a_table_is_whole_up_to_the_limit_else_its_head_and_a_link(rows, head, extra, styled):
    limit = head + extra
    frame = _frame(rows)
    table = frame.style.hide(axis="index") if styled else frame
    html = tables.table_html(table, "../../data/demo/t.csv", "data/demo/t.csv", head=head, limit=limit)
    text = tables.table_text(table, "data/demo/t.csv", head=head, limit=limit)
    long = rows > limit
    assert _body_rows(html) == (head if long else rows)
    assert ('href="../../data/demo/t.csv"' in html) == long == text.endswith("data/demo/t.csv")
    if long:
        assert f"The first {head} of {rows} rows" in html and f"row {head - 1}" in html and f"row {head}<" not in html
    else:
        assert html == (table.to_html() if styled else frame._repr_html_())  # as pandas shows it


def test_a_styled_table_keeps_its_styles_and_the_original_is_untouched():
    styler = _frame(30).style.hide(axis="index").set_properties(subset=["name"], **{"text-align": "left"})
    before = styler.to_html()
    html = tables.table_html(styler, "t.csv", "t.csv")
    assert "text-align: left" in html and _body_rows(html) == tables.TABLE_HEAD_ROWS
    assert "<th" not in html.split("<tbody>", 1)[1]  # the index stays hidden
    assert styler.to_html() == before


def test_the_link_under_the_runner_points_from_the_report_to_the_data(tmp_path):
    csv = tmp_path / ".staging-x" / "data" / "loads" / "odr_constant.csv"
    href, label = tables.csv_link(csv, under_runner=True)
    report = tmp_path / "reports" / "loads"
    assert (report / href).resolve() == (tmp_path / "data" / "loads" / "odr_constant.csv").resolve()
    assert label == "data/loads/odr_constant.csv"


def test_run_by_hand_the_link_is_the_file_relative_to_the_notebook_folder(tmp_path):
    csv = tmp_path / "scratch" / "quick" / "data" / "loads" / "t.csv"
    notebooks = tmp_path / "notebooks"
    href, label = tables.csv_link(csv, under_runner=False, start=notebooks)
    assert (notebooks / href).resolve() == csv.resolve() and href == label


def test_show_table_displays_the_head_and_a_link_to_the_saved_csv(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda bundle, raw: shown.append((bundle, raw)))
    monkeypatch.setenv("TORUS_LAB_RUNNER", "1")
    data = tmp_path / "data" / "demo"
    data.mkdir(parents=True)
    frame = _frame(45)
    with pytest.raises(ValueError, match="name 'big'.*no saved table"):
        tables.show_table(frame, data, "big")  # nothing saved yet: refused before anything is shown
    assert not shown
    frame.to_csv(data / "big.csv", index=False)
    tables.show_table(frame.round(1), data, "big")
    (bundle, raw), = shown
    assert raw and _body_rows(bundle["text/html"]) == tables.TABLE_HEAD_ROWS
    assert 'href="../../data/demo/big.csv"' in bundle["text/html"]
    assert bundle["text/plain"].endswith("The first 10 of 45 rows; the full table: data/demo/big.csv")


@pytest.mark.parametrize("name", ["big.csv", "sub/big", ""])
def test_show_table_wants_the_stem_of_a_saved_table(tmp_path, name):
    with pytest.raises(ValueError, match="name"):
        tables.show_table(_frame(3), tmp_path, name)


def test_head_beyond_the_limit_is_refused():
    with pytest.raises(ValueError, match="head"):
        tables.table_html(_frame(3), "t.csv", "t.csv", head=30, limit=20)


def test_every_long_table_of_the_executed_notebooks_is_shown_through_run_table():
    """A cell of a committed executed notebook that showed a table longer than the limit shows it through
    ``run.table`` in the notebook (so the next run cuts it at the source, whatever else it shows)."""
    import json

    root = Path(__file__).resolve().parents[1]
    for report in sorted((root / "reports").glob("*/*.ipynb")):
        cells = {c.get("id"): c for c in json.loads((root / "notebooks" / report.name).read_text())["cells"]}
        for cell in json.loads(report.read_text())["cells"]:
            for output in cell.get("outputs", []):
                html = output.get("data", {}).get("text/html", "")
                html = "".join(html) if isinstance(html, list) else html
                if html.count("<table") == 1 and _body_rows(html) > tables.TABLE_MAX_ROWS:
                    source = "".join(cells[cell["id"]]["source"])
                    assert "run.table(" in source, f"{report.name}: a long table shown whole by {source[-200:]!r}"
