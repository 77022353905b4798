"""The project's website: documentation and results in one Sphinx site, built from the committed outputs.

:func:`build_site` assembles a Sphinx source folder (:func:`prepare_site_source`) and builds it with the
configuration of ``docs/conf.py`` (pydata-sphinx-theme, myst-nb, MathJax from local files):

* the pages of ``docs/`` (landing page, quickstart, conventions, guides, architecture, API reference);
* one page per experiment: its executed notebook ``reports/<name>/<name>.ipynb`` of the output root, rendered
  by myst-nb and never re-executed, with its provenance (commit, lock, seed, run time from ``manifest.json``)
  above the first cell; warnings the notebook printed are summarised (:func:`summarize_warnings`), a long table
  shows its head and a link to its full CSV (:mod:`torus_lab.tables`, :func:`shorten_long_tables`);
* the claims of every paper (conditions in words: :func:`torus_lab.claims.conditions_in_words`), each paper's
  headed by its referee's summary (:func:`torus_lab.claims.referee_summary`) and what changed since the
  previous run (the runner's record, :func:`torus_lab.runner.claims_change_record`), the provenance of every
  run, results at a glance with figure thumbnails on the landing page;
* ``data/`` and ``figures/`` of every experiment copied beside the pages, so that every link resolves.

Nothing is committed twice: the notebooks, data and figures are copied into a temporary source folder at build
time.  :func:`write_site_zip` packs the built site into one deterministic zip that works offline when unpacked.

Examples
--------
>>> stderr = "a.py:3: UserWarning: x on T(4) at cycle 5\\n  line\\na.py:3: UserWarning: x on T(4) at cycle 9\\n"
>>> summarize_warnings(stderr)
'2 warnings:\\n  UserWarning: 2 x on T(4)\\nfor example: a.py:3: UserWarning: x on T(4) at cycle 5\\n'
"""

from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from torus_lab._validate import check_instance, check_str
from torus_lab.claims import VERDICTS, conditions_in_words, evidence_items, referee_summary, verdict_counts
from torus_lab.interrupt import STOP
from torus_lab.notebook_warnings import summary_text, warning_subject
from torus_lab.outputs import swap_into_place
from torus_lab.settings import FIGURE_METADATA_KEY
from torus_lab.tables import MORE_CLASS, TABLE_HEAD_ROWS, TABLE_MAX_ROWS

__all__ = ["REPOSITORY", "SITE_DIR", "ZIP_NAME", "SiteEntry",
           "summarize_warnings", "shorten_long_tables", "notebook_figures", "figure_cells", "site_notebook",
           "prepare_site_source", "build_site", "write_site_zip"]  # fmt: skip

#: The repository of the package: its ``docs/`` (pages and ``conf.py``), README, LICENSE and CITATION.cff are the
#: site's documentation, whatever output root the results come from.
REPOSITORY = Path(__file__).resolve().parents[1]
#: Folder of the built site under an output root (git-ignored in the project folder).
SITE_DIR = "site"
#: File name of :func:`write_site_zip`'s archive in the output root (git-ignored in the project folder).
ZIP_NAME = "torus-lab-report.zip"
#: Timestamp of every zip member (the earliest a zip can hold), so that the archive is deterministic.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
#: Tags of the notebook cell holding the notebook's defaults (replaced at run time by the injected parameters).
_DEFAULTS_TAG = "parameters"
#: The CSS class of each verdict of :data:`torus_lab.claims.VERDICTS` (a row's colour on the claims page).
_VERDICT_CLASS = {"holds": "ok", "holds approximately": "approx", "holds under conditions": "cond",
                  "inconclusive": "inconclusive", "does not hold": "no", "true by definition": "definition",
                  "not testable here": "untested"}  # fmt: skip


@dataclass(frozen=True)
class SiteEntry:
    """What the site shows of one experiment (:func:`torus_lab.report.collect` reads it from an output root):
    its name and description, its executed notebook, manifest and claims table, the verdict counts in words
    and the figures the notebook shows (records ``{"name", "file", "caption"}``)."""

    name: str
    description: str
    notebook: Path
    manifest: Mapping[str, Any] | None
    claims: pd.DataFrame = field(repr=False)
    verdicts: str = ""
    figures: Sequence[Mapping[str, Any]] = ()

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_str("description", self.description)
        check_instance("notebook", self.notebook, Path)
        check_instance("claims", self.claims, pd.DataFrame)


# ---------------------------------------------------------------------- text
_WARNING_LINE = re.compile(r"^(?P<file>\S[^:\n]*):(?P<line>\d+): (?P<category>[A-Za-z_][\w.]*): (?P<message>.*)$")


def summarize_warnings(text: str) -> str:
    """A short summary of the Python warnings in ``text`` (a notebook's stderr): their count, the count per
    category and subject (:func:`torus_lab.notebook_warnings.warning_subject`, e.g. the routing and the network a
    deadlock happened on), and the first warning in full; the words of
    :func:`torus_lab.notebook_warnings.summary_text`, which summarises the warnings of a running notebook.
    Lines that are no warning (nor the source line Python prints under one) are kept after the summary.  Text
    without warnings is returned unchanged.

    Examples
    --------
    >>> summarize_warnings("plain progress text\\n")
    'plain progress text\\n'
    """
    check_str("text", text)
    counts: Counter[tuple[str, str]] = Counter()
    first: str | None = None
    others: list[str] = []
    after_warning = False
    for line in text.splitlines():
        found = _WARNING_LINE.match(line)
        if found:
            counts[(found["category"], warning_subject(found["message"]))] += 1
            first = first or line
            after_warning = True
        elif after_warning and line.startswith("  "):
            continue  # the source line Python prints under a warning
        else:
            after_warning = False
            others.append(line)
    if first is None:
        return text
    summary = summary_text(counts, first)
    rest = "\n".join(others).strip("\n")
    return summary + (f"{rest}\n" if rest else "")


_TABLE_ROW = re.compile(r"<tr\b.*?</tr>", re.DOTALL | re.IGNORECASE)


def shorten_long_tables(page: str, more_href: str, head: int = TABLE_HEAD_ROWS, limit: int = TABLE_MAX_ROWS) -> str:
    """``page`` (an HTML output of a notebook) with a table of more than ``limit`` body rows cut to its first
    ``head`` rows and a line linking ``more_href`` (where the run's data files are listed).  Other HTML is
    returned unchanged.

    Notebooks cut their long tables themselves, linking the table's own CSV (:func:`torus_lab.tables.show_table`);
    this is the site's guard for a table shown otherwise (an older executed notebook), so that no page shows a
    long table whole.

    Examples
    --------
    >>> rows = "".join(f"<tr><td>{i}</td></tr>" for i in range(5))
    >>> short = shorten_long_tables(f"<table><tbody>{rows}</tbody></table>", "data.html", head=2, limit=4)
    >>> short.count("<td>"), "first 2 of 5 rows" in short
    (2, True)
    """
    check_str("page", page)
    check_str("more_href", more_href)
    for label, value in (("head", head), ("limit", limit)):
        check_instance(label, value, int)
        if isinstance(value, bool) or value < 1:
            raise ValueError(f"{label} must be a positive int, got {value!r}")
    body = re.search(r"<tbody>(.*?)</tbody>", page, re.DOTALL | re.IGNORECASE)
    if page.lower().count("<table") != 1 or body is None:
        return page
    rows = _TABLE_ROW.findall(body.group(1))
    if len(rows) <= limit:
        return page
    short = page[: body.start(1)] + "".join(rows[:head]) + page[body.end(1) :]
    return (f"{short}\n<p class='{MORE_CLASS}'>The first {head} of {len(rows)} rows; the full table is among the "
            f"<a href='{_esc(more_href)}'>data files of this run</a>.</p>")  # fmt: skip


# ---------------------------------------------------------------------- notebooks
def notebook_figures(notebook: str | Path) -> list[dict[str, Any]]:
    """The figures an executed notebook shows through :func:`torus_lab.plotting.show_figure`, in order: the
    records ``{"name", "file", "caption"}`` of its display metadata (``caption`` None when none was given)."""
    path = Path(check_instance("notebook", notebook, (str, os.PathLike), "a path"))
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:  # ValueError: bad JSON, or a path the OS refuses (NUL)
        raise ValueError(f"cannot read notebook {str(path)!r}: {err}") from None
    if not isinstance(nb, dict):
        raise ValueError(f"notebook {str(path)!r} is not a notebook (a JSON object)")
    return [output["metadata"][FIGURE_METADATA_KEY]
            for cell in nb.get("cells", []) for output in cell.get("outputs", [])
            if FIGURE_METADATA_KEY in output.get("metadata", {})]  # fmt: skip


def _lines(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _provenance_words(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, text) pairs of a run's provenance: preset, seed, commit, lock, run time, start."""
    git = manifest.get("git") or {}
    commit = str(git.get("commit") or "unknown")[:12] + (" (uncommitted changes)" if git.get("dirty") else "")
    lock = manifest.get("environment_lock") or {}
    if lock:
        matches = "matches the environment" if lock.get("matches_environment") else (
            f"{len(lock.get('differing') or [])} packages differ from the environment")
        lock_text = f"{lock.get('file', 'lock')} sha256 {str(lock.get('sha256', ''))[:12]} ({matches})"
    else:
        lock_text = "not recorded"
    duration = manifest.get("duration_s")
    return [("preset", str(manifest.get("preset", "?"))), ("seed", str(manifest.get("seed", "?"))),
            ("commit", commit), ("dependency lock", lock_text),
            ("run time", f"{duration:.1f} s" if isinstance(duration, (int, float)) else "?"),
            ("started", str(manifest.get("started_utc", "?")))]  # fmt: skip


def _provenance_cell(name: str, manifest: Mapping[str, Any] | None) -> dict[str, Any]:
    if manifest is None:
        text = "Not run yet in this output folder."
    else:
        words = " · ".join(f"{label} **{value}**" for label, value in _provenance_words(manifest))
        text = (f"```{{admonition}} Provenance of this run\n{words}. All of it, with the versions and the sha256 of "
                f"every output: [the provenance page](../../results/provenance.md#{_anchor('run', name)}); the "
                f"claims this notebook checks: [claims](../../results/claims.md#{_anchor('claims', name)}).\n```\n")
    return {"cell_type": "markdown", "metadata": {}, "source": text, "id": "torus-lab-provenance"}


def _one_stderr(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``outputs`` with every stderr stream of the cell joined into one, at the first one's place, its warnings
    summarised (:func:`summarize_warnings`): a sweep writes its stderr in many pieces."""
    stderr = [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    if not stderr:
        return outputs
    text = summarize_warnings("".join(_lines(o.get("text", "")) for o in stderr))
    joined = {**stderr[0], "text": text}
    return [joined if o is stderr[0] else o for o in outputs if o is stderr[0] or o not in stderr]


#: Characters of a caption that Markdown (MyST, ``$`` math) would read as markup (escaped by ``_plain_markdown``).
_MARKDOWN_MARKUP = re.compile(r"([\\`*_\[\]{}<>()#+!|$~^&])")
_FIGCAPTION = re.compile(r"<figcaption>.*?</figcaption>", re.S)
#: Source of a cell :func:`figure_cells` splits off (never shown: tagged ``remove-input``; myst-nb skips a cell
#: whose source is empty, outputs and all).
_CONTINUED = "# outputs of the cell above"


def _plain_markdown(text: str) -> str:
    """``text`` with every character Markdown would read as markup escaped, so it shows as written.

    >>> print(_plain_markdown("E_max <= k^(d-1)/8, $5"))
    E\\_max \\<= k\\^\\(d-1\\)/8, \\$5
    """
    return _MARKDOWN_MARKUP.sub(r"\\\1", text)


def figure_cells(cell: Mapping[str, Any], experiment: str) -> list[dict[str, Any]]:
    """``cell`` split so that each figure it shows (an output recorded by :func:`torus_lab.plotting.show_figure`)
    is a cell of its own carrying myst-nb's figure options (cell metadata ``mystnb.figure``: the caption, and
    the name ``<experiment>-<figure>``), so that the site numbers and captions it like any Sphinx figure.  The
    figure's own ``<figcaption>`` is dropped (the caption is Sphinx's); the cell's other outputs stay in order,
    after the first in the cell itself, then in cells whose input is removed.

    Examples
    --------
    >>> record = {"name": "a", "file": "figures/demo/a.png", "caption": "What *a* shows"}
    >>> cell = {"cell_type": "code", "metadata": {}, "source": "show()", "outputs": [
    ...     {"output_type": "display_data", "metadata": {FIGURE_METADATA_KEY: record},
    ...      "data": {"text/html": "<figure><img src='a.png'><figcaption>What *a* shows</figcaption></figure>"}},
    ...     {"output_type": "stream", "name": "stdout", "text": "done"}]}
    >>> cells = figure_cells(cell, "demo")
    >>> [len(c["outputs"]) for c in cells], cells[1]["metadata"]["mystnb"]["figure"]
    ([0, 1, 1], {'caption': 'What \\\\*a\\\\* shows', 'name': 'demo-a'})
    >>> cells[1]["outputs"][0]["data"]["text/html"]
    "<figure><img src='a.png'></figure>"
    """
    check_instance("cell", cell, Mapping)
    check_str("experiment", experiment)
    outputs = list(cell.get("outputs", []))
    if not any(FIGURE_METADATA_KEY in (o.get("metadata") or {}) for o in outputs):
        return [dict(cell)]
    groups: list[list[dict[str, Any]]] = [[]]  # the cell's outputs, then each figure, then outputs after it
    for output in outputs:
        if FIGURE_METADATA_KEY not in (output.get("metadata") or {}):
            groups[-1].append(output)
            continue
        data = dict(output.get("data") or {})
        if "text/html" in data:
            data["text/html"] = _FIGCAPTION.sub("", _lines(data["text/html"]))
        groups += [[{**output, "data": data}], []]
    cells = [{**cell, "outputs": groups[0]}]
    stem = re.sub(r"[^A-Za-z0-9_-]", "-", str(cell.get("id") or "cell"))[:50]
    for number, group in enumerate(filter(None, groups[1:]), start=1):
        metadata: dict[str, Any] = {"tags": ["remove-input"]}
        record = (group[0].get("metadata") or {}).get(FIGURE_METADATA_KEY)
        if record is not None:
            figure = {"name": f"{experiment}-{record['name']}"}
            if record.get("caption"):
                figure = {"caption": _plain_markdown(str(record["caption"])), **figure}
            metadata["mystnb"] = {"figure": figure}
        cells.append({"cell_type": "code", "execution_count": None, "id": f"{stem}-output-{number}",
                      "metadata": metadata, "source": _CONTINUED, "outputs": group})
    return cells


def site_notebook(notebook: Mapping[str, Any], name: str, manifest: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of the executed ``notebook`` (its JSON) prepared for the site: the provenance after the title
    cell, the defaults cell removed (the injected parameters stay), code inputs collapsed, a cell's stderr
    joined into one output with its warnings summarised (:func:`summarize_warnings`), a long table the
    notebook did not cut itself cut to its head (:func:`shorten_long_tables`) and each figure a numbered,
    captioned figure of its own (:func:`figure_cells`).

    Examples
    --------
    >>> nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x", "outputs": [
    ...     {"output_type": "stream", "name": "stderr", "text": "f.py:1: UserWarning: w\\n"}]}],
    ...     "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    >>> site_notebook(nb, "demo", None)["cells"][1]["outputs"][0]["text"]
    '1 warning:\\n  UserWarning: 1 w\\nfor example: f.py:1: UserWarning: w\\n'
    """
    check_instance("notebook", notebook, Mapping)
    check_str("name", name)
    if manifest is not None:
        check_instance("manifest", manifest, Mapping)
    nb = copy.deepcopy(dict(notebook))
    more = f"../../results/provenance.html#{_anchor('run', name)}"
    cells = []
    for cell in nb.get("cells", []):
        metadata = cell.setdefault("metadata", {})
        tags = list(metadata.get("tags", []))
        if _DEFAULTS_TAG in tags:
            continue
        if cell.get("cell_type") == "code":
            metadata["tags"] = [*tags, "hide-input"]
            cell["outputs"] = _one_stderr(cell.get("outputs", []))
            for output in cell["outputs"]:
                data = output.get("data") or {}
                if "text/html" in data:
                    data["text/html"] = shorten_long_tables(_lines(data["text/html"]), more)
            cells.extend(figure_cells(cell, name))
            continue
        cells.append(cell)
    title = next((i for i, c in enumerate(cells) if c.get("cell_type") == "markdown"
                  and _lines(c.get("source", "")).lstrip().startswith("# ")), -1)  # fmt: skip
    cells.insert(title + 1, _provenance_cell(name, manifest))
    nb["cells"] = cells
    return nb


# ---------------------------------------------------------------------- generated pages
def _esc(value: Any) -> str:
    return html.escape(str(value))


def _anchor(kind: str, name: str) -> str:
    """The id of a generated section (Sphinx writes a label's underscores as hyphens)."""
    return f"{kind}-{name}".replace("_", "-")


def _claims_rows(claims: pd.DataFrame, depth: str, available: frozenset[str]) -> list[str]:
    rows = []
    for row in claims.itertuples(index=False):
        evidence = ", ".join(f"<a href='{depth}{_esc(item)}'>{_esc(Path(item).name)}</a>" if item in available
                             else f"<code>{_esc(item)}</code>" for item in evidence_items(row.evidence))  # fmt: skip
        measured = _esc(row.measured_text)
        if row.ci_method:
            measured += f"<br><small>95% CI [{float(row.ci_low):.4g}, {float(row.ci_high):.4g}], " \
                        f"{_esc(row.ci_method)}</small>"
        quote = getattr(row, "quote", "")   # a table written before quotes has none
        said = f"<blockquote class='tl-quote'>{_esc(quote)}</blockquote>" if quote else ""
        kind = _esc(row.evidence_kind or "not recorded")
        if row.evidence_text:
            kind += f"<br><small>{_esc(row.evidence_text)}</small>"
        rows.append(
            f"<tr class='tl-{_VERDICT_CLASS[row.verdict]}'><td><b>{_esc(row.verdict)}</b></td>"
            f"<td>{_esc(row.statement)}<br><small>{_esc(row.claim_id)} · {_esc(row.location)}</small>{said}</td>"
            f"<td><small>{_esc(conditions_in_words(row.conditions))}</small></td><td>{_esc(row.paper_text)}</td>"
            f"<td>{measured}</td><td><small>{kind}</small></td><td><small>{_esc(row.rule_text)}</small></td>"
            f"<td><small>{evidence}</small></td></tr>"
        )
    return rows


def _claims_table(claims: pd.DataFrame, depth: str, available: frozenset[str]) -> str:
    head = ("<thead><tr><th>verdict</th><th>claim</th><th>conditions</th><th>paper</th><th>measured</th>"
            "<th>kind of evidence</th><th>rule</th><th>evidence</th></tr></thead>")  # fmt: skip
    rows = _claims_rows(claims, depth, available)
    table = f"<table class='table tl-claims'>{head}<tbody>{''.join(rows[:TABLE_MAX_ROWS])}</tbody></table>"
    if len(rows) > TABLE_MAX_ROWS:
        table += (f"<details class='tl-more'><summary>{len(rows) - TABLE_MAX_ROWS} more claims</summary>"
                  f"<table class='table tl-claims'>{head}<tbody>{''.join(rows[TABLE_MAX_ROWS:])}</tbody></table>"
                  "</details>")  # fmt: skip
    return table


def _summary_html(claims: pd.DataFrame) -> str:
    """The referee's summary of a paper's claims (:func:`torus_lab.claims.referee_summary`) as one HTML block:
    counts per verdict and per kind of evidence, then the findings that matter most."""
    summary = referee_summary(claims)
    verdicts = verdict_counts([v for v, k in summary.verdicts.items() for _ in range(k)])
    kinds = ", ".join(f"{k} {_esc(v)}" for v, k in summary.evidence_kinds.items()) or "none"
    findings = "".join(f"<li>{_esc(f)}</li>" for f in summary.findings) or \
        "<li>No claim fails or is left undecided.</li>"
    return (f"<div class='tl-summary'><p><b>Referee's summary.</b> {summary.claims} claims, {summary.reproduced} "
            f"reproduced; verdicts: {_esc(verdicts)}; kinds of evidence: {kinds}. What matters most:</p>"
            f"<ul>{findings}</ul></div>")  # fmt: skip


def _previous_run_words(previous: Mapping[str, Any]) -> str:
    if previous.get("committed_at"):
        return f"the table committed at {str(previous['committed_at'])[:12]}"
    commit = str(previous.get("commit") or "")[:12]
    started = str(previous.get("started_utc") or "")
    return ", ".join(part for part in (f"commit {commit}" if commit else "", f"started {started}" if started else "")
                     if part) or "its manifest is gone"  # fmt: skip


def _changes_html(manifest: Mapping[str, Any] | None) -> str:
    """What changed in a paper's claims since the previous run in the same output folder: the record the runner
    keeps in the run's manifest (:func:`torus_lab.runner.claims_change_record`, rows of
    :func:`torus_lab.claims.claims_changes`), as one HTML block; a sentence when there is none to show."""
    head = "<b>Changed since the previous run.</b> "
    if manifest is None:
        return ""
    if "claims_changes" not in manifest:
        return f"<p class='tl-changes'>{head}Not recorded: this run was made before runs recorded it.</p>"
    record = manifest["claims_changes"] or {}
    previous = record.get("previous_run")
    if previous is None:
        return f"<p class='tl-changes'>{head}No previous run in this output folder: nothing to compare with.</p>"
    since = _esc(_previous_run_words(previous))
    if record.get("changes") is None:
        return (f"<p class='tl-changes'>{head}Not compared with the previous run ({since}): "
                f"{_esc(record.get('error', 'unknown reason'))}</p>")  # fmt: skip
    if not record["changes"]:
        return f"<p class='tl-changes'>{head}No verdict or evidence changed since the previous run ({since}).</p>"
    changes = list(record["changes"])
    verdicts = [c for c in changes if c["old_verdict"] != c["new_verdict"]]
    evidence = [c for c in changes if c["old_verdict"] == c["new_verdict"]]
    if verdicts:
        words = f"{len(verdicts)} verdict(s) changed since the previous run ({since})" + (
            f", and the evidence of {len(evidence)} more claim(s)" if evidence else "")
    else:
        words = f"No verdict changed since the previous run ({since}); the evidence of {len(evidence)} claim(s) did"
    text = f"<div class='tl-changes'><p>{head}{words}:</p>"
    if verdicts:
        text += _changes_table(verdicts)
    if evidence:
        text += (f"<details class='tl-more'><summary>{len(evidence)} claim(s) whose verdict stayed, their evidence "
                 f"changed</summary>{_changes_table(evidence)}</details>")  # fmt: skip
    return text + "</div>"


def _changes_table(changes: Sequence[Mapping[str, Any]]) -> str:
    rows = "".join(
        f"<tr><td>{_esc(c['claim_id'])}</td><td>{_esc(c['change'])}</td>"
        f"<td>{_esc(c['old_verdict'] or '-')} &rarr; <b>{_esc(c['new_verdict'] or '-')}</b></td>"
        f"<td>{_esc(c['old_evidence_kind'] or 'not recorded')} &rarr; {_esc(c['new_evidence_kind'] or '-')}</td></tr>"
        for c in changes)  # fmt: skip
    return ("<table class='table'><thead><tr><th>claim</th><th>change</th><th>verdict</th>"
            f"<th>kind of evidence</th></tr></thead><tbody>{rows}</tbody></table>")


def _claims_page(entries: Sequence[SiteEntry], available: frozenset[str]) -> str:
    parts = ["# Claims\n\n", "Every claim of every paper against our measurement: where the paper states it and "
             "its words (quoted under the claim), the conditions of our measurement, the paper's value, ours, the "
             "kind of evidence the verdict rests on (exhaustive, counterexample, statistical, by definition, not "
             "testable), the verdict rule and the evidence files. "
             "All of them in one file: <a href='../data/claims.csv'>data/claims.csv</a>. Verdicts: "
             + ", ".join(f"<span class='tl-{_VERDICT_CLASS[v]}'>{_esc(v)}</span>" for v in VERDICTS) + ".\n\n"]
    for entry in entries:
        name, claims = entry.name, entry.claims
        parts.append(f"({_anchor('claims', name)})=\n## {name}\n\n{entry.description}.\n\n")
        parts.append(f"**{entry.verdicts}**. The executed notebook: [{name}](../reports/{name}/{name}.ipynb)")
        if claims.empty:
            parts.append(".\n\nNo claims table.\n\n")
            continue
        parts.append(f"; its claims file: <a href='../data/{name}/claims.csv'>data/{name}/claims.csv</a>.\n\n")
        parts.append(_summary_html(claims) + "\n\n")
        changes = _changes_html(entry.manifest)
        parts.append(f"{changes}\n\n" if changes else "")
        parts.append(_claims_table(claims, "../", available) + "\n\n")
    return "".join(parts)


def _output_link(path: str, available: frozenset[str]) -> str:
    """An output of a run: a link to its copy on the site when there is one (``available``), else its path."""
    code = f"<code>{_esc(path)}</code>"
    return f"<a href='../{_esc(path)}'>{code}</a>" if path in available else code


def _provenance_page(entries: Sequence[SiteEntry], available: frozenset[str]) -> str:
    parts = ["# Provenance\n\n", "How each result was obtained: the preset and seed, the commit, the dependency "
             "lock, the run time, the versions and every output with its sha256 (from "
             "`reports/<experiment>/manifest.json`).\n\n"]
    for entry in entries:
        name, manifest = entry.name, entry.manifest
        parts.append(f"({_anchor('run', name)})=\n## {name}\n\n{entry.description}. [The executed notebook]"
                     f"(../reports/{name}/{name}.ipynb).\n\n")  # fmt: skip
        if manifest is None:
            parts.append("Not run yet in this output folder.\n\n")
            continue
        rows = "".join(f"<tr><th>{_esc(label)}</th><td>{_esc(text)}</td></tr>"
                       for label, text in _provenance_words(manifest))  # fmt: skip
        versions = ", ".join(f"{k} {v}" for k, v in (manifest.get("versions") or {}).items() if v)
        rows += f"<tr><th>versions</th><td>{_esc(versions)}</td></tr>"
        differing = (manifest.get("environment_lock") or {}).get("differing") or []
        if differing:
            rows += f"<tr><th>differing from the lock</th><td>{_esc('; '.join(differing))}</td></tr>"
        outputs = "".join(f"<tr><td>{_output_link(str(o.get('path')), available)}</td><td>{_esc(o.get('role'))}</td>"
                          f"<td><code>{_esc(str(o.get('sha256', ''))[:16])}</code></td></tr>"
                          for o in manifest.get("outputs") or [])  # fmt: skip
        parts.append(f"<table class='table tl-provenance'><tbody>{rows}</tbody></table>\n\n"
                     f"<details class='tl-more'><summary>{len(manifest.get('outputs') or [])} outputs</summary>"
                     f"<table class='table'><thead><tr><th>file</th><th>role</th><th>sha256 (first 16)</th></tr>"
                     f"</thead><tbody>{outputs}</tbody></table></details>\n\n"
                     f"<a href='../reports/{name}/manifest.json'>manifest.json</a>\n\n")  # fmt: skip
    return "".join(parts)


def _glance_page(entries: Sequence[SiteEntry]) -> str:
    """Results at a glance: a card per experiment with its verdict counts and figure thumbnails."""
    cards = []
    for entry in entries:
        name = entry.name
        thumbs = "".join(
            f"<a href='reports/{name}/{name}.html#figure-{_esc(f['name'])}'><img class='tl-thumb' "
            f"src='figures/{name}/{_esc(f['name'])}.png' alt='{_esc(f.get('caption') or f['name'])}' "
            f"title='{_esc(f.get('caption') or f['name'])}'></a>"
            for f in entry.figures[:4]
        )
        cards.append(
            f"<div class='tl-card'><h3><a href='reports/{name}/{name}.html'>{_esc(entry.description)}</a></h3>"
            f"<p><a href='results/claims.html#{_anchor('claims', name)}'>{_esc(entry.verdicts)}"
            f"</a></p><div class='tl-thumbs'>{thumbs}</div></div>"
        )
    return "<div class='tl-cards'>" + "".join(cards) + "</div>\n"


def _copy_tree_files(source: Path, target: Path, pattern: str = "*") -> None:
    for path in sorted(source.glob(f"**/{pattern}")):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)


def prepare_site_source(source: str | Path, entries: Sequence[SiteEntry], out_root: str | Path,
                        project: str | Path) -> Path:  # fmt: skip
    """Write the Sphinx source folder of the site into the empty or missing folder ``source``: the pages of
    ``<project>/docs/``, the generated results pages of ``entries``, their prepared notebooks and, under
    ``_extra/`` (copied beside the pages), the manifests, data and figures of ``out_root`` the pages link to.
    Returns ``source``."""
    target = Path(check_instance("source", source, (str, os.PathLike), "a path"))
    check_instance("entries", entries, Sequence)
    for entry in entries:
        check_instance("entries item", entry, SiteEntry)
    out = Path(check_instance("out_root", out_root, (str, os.PathLike), "a path"))
    docs = Path(check_instance("project", project, (str, os.PathLike), "a path")) / "docs"
    if target.exists() and any(target.iterdir()):
        raise ValueError(f"source {str(target)!r} must be an empty or missing folder")
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(docs.glob("**/*")):
        relative = path.relative_to(docs)
        if path.is_file() and relative.parts[0] != "_build" and path.name != "conf.py" \
                and "__pycache__" not in relative.parts:
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / relative)
    (target / "_files").mkdir()
    for name in ("LICENSE", "CITATION.cff", "README.md"):
        shutil.copyfile(docs.parent / name, target / "_files" / name)
    (target / "results").mkdir()
    (target / "results" / "_glance.md").write_text(_glance_page(entries), encoding="utf-8")
    toc = "\n".join(f"../reports/{e.name}/{e.name}" for e in entries if e.notebook.is_file())
    (target / "results" / "index.md").write_text(
        "# Results\n\nOne page per experiment: the executed notebook of its run (never re-executed when the site "
        "is built), its provenance at the top; then every claim against our measurement, and the provenance of "
        f"every run.\n\n```{{toctree}}\n:maxdepth: 1\n:numbered: 1\n\n{toc}\nclaims\nprovenance\n```\n",
        encoding="utf-8")
    extra = target / "_extra"
    for entry in entries:
        name = entry.name
        if entry.notebook.is_file():
            notebook = json.loads(entry.notebook.read_text(encoding="utf-8"))
            page = target / "reports" / name / f"{name}.ipynb"
            page.parent.mkdir(parents=True)
            page.write_text(json.dumps(site_notebook(notebook, name, entry.manifest), indent=1), encoding="utf-8")
        if (out / "reports" / name / "manifest.json").is_file():
            (extra / "reports" / name).mkdir(parents=True)
            shutil.copyfile(out / "reports" / name / "manifest.json", extra / "reports" / name / "manifest.json")
        for kind in ("data", "figures"):
            _copy_tree_files(out / kind / name, extra / kind / name)
    if (out / "data" / "claims.csv").is_file():
        (extra / "data").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "data" / "claims.csv", extra / "data" / "claims.csv")
    available = frozenset(p.relative_to(extra).as_posix() for p in extra.glob("**/*") if p.is_file())
    (target / "results" / "claims.md").write_text(_claims_page(entries, available), encoding="utf-8")
    (target / "results" / "provenance.md").write_text(_provenance_page(entries, available), encoding="utf-8")
    return target


def build_site(entries: Sequence[SiteEntry], out_root: str | Path, project: str | Path,
               html_dir: str | Path | None = None, *, strict: bool = True) -> Path:  # fmt: skip
    """Build the site of ``entries`` (read from ``out_root`` by :func:`torus_lab.report.collect`) into
    ``html_dir`` (default ``<out_root>/site``), replacing what was there; returns ``html_dir``.

    Sphinx runs in a child process with ``<project>/docs/conf.py`` on a temporary source folder
    (:func:`prepare_site_source`); ``strict`` turns every warning into an error and checks every
    cross-reference (``-W -n``, what ``make test`` asks).  Raises RuntimeError with Sphinx's output when the
    build fails; the earlier site is then left as it was.  The site is built into a temporary folder beside
    ``html_dir`` and swapped in at the end (:func:`torus_lab.outputs.swap_into_place`): a stop request
    (:mod:`torus_lab.interrupt`: SIGINT, SIGTERM, SIGHUP under ``torus-lab site``) ends Sphinx, removes the
    temporary folder and raises :class:`torus_lab.interrupt.Interrupted`, leaving the earlier site as it was.
    """
    check_instance("strict", strict, bool)
    out = Path(check_instance("out_root", out_root, (str, os.PathLike), "a path"))
    project = Path(check_instance("project", project, (str, os.PathLike), "a path"))
    if not (project / "docs" / "conf.py").is_file():
        raise ValueError(f"project {str(project)!r} has no docs/conf.py: the site needs the repository's docs/")
    target = Path(check_instance("html_dir", html_dir, (str, os.PathLike), "a path")) if html_dir is not None \
        else out / SITE_DIR
    if target.exists() and not target.is_dir():
        raise ValueError(f"html_dir {str(target)!r} is a file, not a folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".site-", dir=target.parent) as work:
        source = prepare_site_source(Path(work) / "source", entries, out, project)
        built = Path(work) / "html"
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(project / "docs"),
                   "-d", str(Path(work) / "doctrees"), str(source), str(built)]  # fmt: skip
        if strict:
            command[5:5] = ["-W", "--keep-going", "-n"]
        returncode, output = _run_sphinx(command, project)
        STOP.check()  # stopped: the earlier site stays, the temporary folder goes
        if returncode != 0:
            raise RuntimeError(f"the site build failed (exit {returncode}):\n{output}")
        (built / ".buildinfo").unlink(missing_ok=True)
        swap_into_place(work, [(built, target)])
    return target


def _run_sphinx(command: list[str], cwd: Path) -> tuple[int, str]:
    """Run Sphinx in its own session, registered with :data:`torus_lab.interrupt.STOP` so that a stop request
    ends it (and whatever it started); returns its exit status and its output (stderr, then stdout)."""
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as sphinx:  # fmt: skip
        STOP.add_group(sphinx.pid)
        try:
            stdout, stderr = sphinx.communicate()
        finally:
            STOP.discard_group(sphinx.pid)
    return sphinx.returncode, stderr + stdout


def _site_members(html_dir: Path) -> list[str]:
    return sorted(p.relative_to(html_dir).as_posix() for p in html_dir.glob("**/*") if p.is_file())


def write_site_zip(html_dir: str | Path, zip_path: str | Path) -> Path:
    """Pack the built site ``html_dir`` into ``zip_path`` under a top folder ``torus-lab-report/``: unpacked
    anywhere, its ``index.html`` opens the site offline.  Members are sorted, dated 1980-01-01 and stored with
    fixed permissions (the same site gives the same zip); written to a temporary name, then renamed.

    Examples
    --------
    >>> write_site_zip("no-such-site", "x.zip")
    Traceback (most recent call last):
    ...
    ValueError: html_dir 'no-such-site' holds no built site (no index.html)
    """
    site = Path(check_instance("html_dir", html_dir, (str, os.PathLike), "a path"))
    target = Path(check_instance("zip_path", zip_path, (str, os.PathLike), "a path"))
    if not (site / "index.html").is_file():
        raise ValueError(f"html_dir {str(html_dir)!r} holds no built site (no index.html)")
    if target.is_dir():
        raise ValueError(f"zip_path {str(target)!r} is a folder, not a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    top = ZIP_NAME.removesuffix(".zip")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for member in _site_members(site):
            info = zipfile.ZipInfo(f"{top}/{member}", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (site / member).read_bytes())
    os.replace(temporary, target)
    return target
