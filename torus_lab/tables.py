"""Tables in notebooks: a long table shows its head and a link to its full CSV, never every row.

A notebook shows a result table with :meth:`torus_lab.experiment.ExperimentRun.table` (which calls
:func:`show_table`): a table of at most :data:`TABLE_MAX_ROWS` rows is shown whole, as pandas shows it; a longer
one shows its first :data:`TABLE_HEAD_ROWS` rows and a line linking to the full table, the CSV the run saved
(``data/<experiment>/<name>.csv``).  The same output holds in JupyterLab and on the site (:mod:`torus_lab.site`
renders the executed notebook's outputs as they are, and copies ``data/`` beside its pages, so the link
resolves), and the executed notebook stays small.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"k": range(30)})
>>> page = table_html(frame, "../../data/demo/k.csv", "data/demo/k.csv")
>>> page.count("<td>"), "first 10 of 30 rows" in page, 'href="../../data/demo/k.csv"' in page
(10, True, True)
>>> table_html(frame.head(5), "k.csv", "k.csv") == frame.head(5)._repr_html_()
True
"""

from __future__ import annotations

import copy
import os
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from torus_lab._validate import check_instance, check_int, check_str
from torus_lab.settings import current_settings

__all__ = ["TABLE_MAX_ROWS", "TABLE_HEAD_ROWS", "MORE_CLASS", "table_rows", "table_html", "table_text", "csv_link",
           "show_table"]  # fmt: skip

#: A table of at most this many rows is shown whole.
TABLE_MAX_ROWS = 20
#: Rows a longer table shows before the link to its full CSV.
TABLE_HEAD_ROWS = 10
#: The CSS class of the line under a cut table (the site's stylesheet styles it).
MORE_CLASS = "torus-lab-table-more"


def _checked_sizes(head: int, limit: int) -> tuple[int, int]:
    head, limit = check_int("head", head, minimum=1), check_int("limit", limit, minimum=1)
    if head > limit:
        raise ValueError(f"head ({head}) must not exceed limit ({limit})")
    return head, limit


def _frame(table: object) -> pd.DataFrame:
    """The data of ``table``: a DataFrame, or the DataFrame a pandas Styler styles."""
    check_instance("table", table, (pd.DataFrame, Styler), "a DataFrame or a pandas Styler")
    return table.data if isinstance(table, Styler) else table


def table_rows(table: pd.DataFrame | Styler) -> int:
    """The number of rows of ``table`` (a DataFrame or a pandas Styler).

    Examples
    --------
    >>> table_rows(pd.DataFrame({"a": [1, 2, 3]}).style)
    3
    """
    return len(_frame(table))


def _head(table: pd.DataFrame | Styler, head: int) -> pd.DataFrame | Styler:
    """The first ``head`` rows of ``table``; a Styler keeps its styles (the other rows hidden on a copy)."""
    if isinstance(table, Styler):
        shown = copy.copy(table)
        return shown.hide(table.data.index[head:], axis="index")
    return table.head(head)


def _more(rows: int, head: int, href: str, label: str) -> str:
    return (f'<p class="{MORE_CLASS}">The first {head} of {rows} rows; the full table: '
            f'<a href="{escape(href)}">{escape(label)}</a></p>')  # fmt: skip


def table_html(table: pd.DataFrame | Styler, href: str, label: str, *, head: int = TABLE_HEAD_ROWS,
               limit: int = TABLE_MAX_ROWS) -> str:  # fmt: skip
    """The HTML a notebook shows for ``table`` (a DataFrame or a pandas Styler): the whole table, as pandas shows
    it, when it has at most ``limit`` rows; else its first ``head`` rows and a line linking ``href`` (the full
    CSV, shown as ``label``).  A pure function of the table and the display options of pandas.

    Examples
    --------
    >>> page = table_html(pd.DataFrame({"a": range(25)}).style, "a.csv", "a.csv", head=3)
    >>> page.count("<tr"), "first 3 of 25 rows" in page
    (4, True)
    """
    rows = table_rows(table)
    check_str("href", href)
    check_str("label", label)
    head, limit = _checked_sizes(head, limit)
    if rows <= limit:
        return table.to_html() if isinstance(table, Styler) else table._repr_html_()
    shown = _head(table, head)
    html = shown.to_html() if isinstance(shown, Styler) else shown._repr_html_()
    return f"{html}\n{_more(rows, head, href, label)}"


def table_text(table: pd.DataFrame | Styler, label: str, *, head: int = TABLE_HEAD_ROWS,
               limit: int = TABLE_MAX_ROWS) -> str:  # fmt: skip
    """The plain-text form of :func:`table_html` (a terminal, a text-only renderer): the table, or its head
    and a line naming the full CSV ``label``.

    Examples
    --------
    >>> print(table_text(pd.DataFrame({"a": range(12)}), "data/demo/a.csv", head=2, limit=5))
       a
    0  0
    1  1
    The first 2 of 12 rows; the full table: data/demo/a.csv
    """
    rows = table_rows(table)
    check_str("label", label)
    head, limit = _checked_sizes(head, limit)
    frame = _frame(table)
    if rows <= limit:
        return frame.to_string()
    return f"{frame.head(head).to_string()}\nThe first {head} of {rows} rows; the full table: {label}"


def csv_link(csv: str | os.PathLike, *, under_runner: bool,
             start: str | os.PathLike | None = None) -> tuple[str, str]:  # fmt: skip
    """``(href, label)`` of the link to the saved CSV ``csv`` (``<data_dir>/<name>.csv``).

    Under the runner the executed notebook lies in ``reports/<experiment>/`` and its data in
    ``data/<experiment>/`` (also on the site), so the link is ``../../data/<experiment>/<name>.csv``, shown as
    ``data/<experiment>/<name>.csv``.  Run by hand, it is the file's path relative to ``start`` (default: the
    working folder, which JupyterLab sets to the notebook's folder), the link and its label alike.

    Examples
    --------
    >>> csv_link("staging/data/loads/odr_constant.csv", under_runner=True)
    ('../../data/loads/odr_constant.csv', 'data/loads/odr_constant.csv')
    >>> csv_link("/p/scratch/quick/data/loads/x.csv", under_runner=False, start="/p/notebooks")
    ('../scratch/quick/data/loads/x.csv', '../scratch/quick/data/loads/x.csv')
    """
    path = Path(check_instance("csv", csv, (str, os.PathLike), "a path"))
    check_instance("under_runner", under_runner, bool)
    if under_runner:
        label = f"data/{path.parent.name}/{path.name}"
        return f"../../{label}", label
    where = Path(check_instance("start", start, (str, os.PathLike), "a path")) if start is not None else Path.cwd()
    relative = Path(os.path.relpath(path.resolve(), where.resolve())).as_posix()
    return relative, relative


def show_table(table: pd.DataFrame | Styler, data_dir: str | os.PathLike, name: str, *,
               head: int = TABLE_HEAD_ROWS, limit: int = TABLE_MAX_ROWS) -> None:  # fmt: skip
    """Display ``table`` (a DataFrame or a pandas Styler, e.g. a saved result rounded or cut to some columns) in
    a notebook: whole up to ``limit`` rows, else its first ``head`` rows and a link to ``<data_dir>/<name>.csv``,
    the full table the run saved (:func:`table_html`, :func:`csv_link`).  Raises ValueError, before showing
    anything, when that CSV does not exist (save the results first: :meth:`torus_lab.experiment.ExperimentRun.save`).
    """
    _frame(table)
    name = check_str("name", name)
    if not name or Path(name).name != name or name.endswith(".csv"):
        raise ValueError(f"name must be the file stem of a saved table (no folder, no .csv), got {name!r}")
    csv = Path(check_instance("data_dir", data_dir, (str, os.PathLike), "a path")) / f"{name}.csv"
    head, limit = _checked_sizes(head, limit)
    if not csv.is_file():
        raise ValueError(f"name {name!r}: data_dir {str(data_dir)!r} holds no saved table {csv.name!r} to link to "
                         "(save the results first)")  # fmt: skip
    from IPython.display import display

    href, label = csv_link(csv, under_runner=current_settings().under_runner)
    bundle: dict[str, Any] = {"text/plain": table_text(table, label, head=head, limit=limit),
                              "text/html": table_html(table, href, label, head=head, limit=limit)}  # fmt: skip
    display(bundle, raw=True)
