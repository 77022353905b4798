"""Self-contained HTML report of one executed notebook, and the zip of a whole report.

:func:`export_report_html` turns ``reports/<name>/<name>.ipynb`` into ``reports/<name>/<name>.html`` that works
when copied alone to a machine without network:

* every image is embedded as a ``data:`` URI (the figures the notebook shows by their relative path
  ``../../figures/<name>/<file>.png``, see :func:`torus_lab.plotting.show_figure`, are read from disk);
* TeX in Markdown cells (``$...$`` and ``$$...$$``) is converted to MathML when the report is written
  (``latex2mathml``), which browsers render natively: no MathJax, no CDN;
* no external script or stylesheet: nbconvert's ``lab`` template without its require.js, MathJax, Mermaid and
  widget loaders, plus a few lines of inline CSS and JavaScript (:func:`check_self_contained` refuses anything
  else);
* code cells are collapsed (``<details>``), the parameters are a table at the top (the parameters cells of the
  notebook are left out), every figure is full width with its caption and opens enlarged on click.

The export is deterministic: the same notebook, figures and :class:`ReportInfo` give the same bytes.
:func:`write_report_zip` packs the index, every per-paper report and the files the index links to into one
zip with fixed timestamps (the same files give the same zip).

Examples
--------
>>> split_math(r"cost $O(n^2)$, not `$x$` or \\$5")
[('text', 'cost '), ('inline', 'O(n^2)'), ('text', ', not `$x$` or \\\\$5')]
>>> tex_to_mathml("k^2", display=False)[:44]
'<math xmlns="http://www.w3.org/1998/Math/Mat'
"""

from __future__ import annotations

import base64
import contextlib
import copy
import html
import json
import mimetypes
import os
import re
import threading
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from torus_lab._validate import check_instance, check_int, check_mapping, check_sequence, check_str
from torus_lab.settings import FIGURE_METADATA_KEY

__all__ = [
    "FIGURE_METADATA_KEY",
    "MATH_KINDS",
    "ReportInfo",
    "split_math",
    "tex_to_mathml",
    "markdown_math_to_mathml",
    "check_self_contained",
    "embed_images",
    "export_report_html",
    "report_exporter",
    "prepare_report_exporter",
    "notebook_figures",
    "report_zip_members",
    "write_report_zip",
    "ZIP_NAME",
]

#: Kinds of :func:`split_math` segments: plain Markdown, inline math (``$...$``), display math (``$$...$$``).
MATH_KINDS = ("text", "inline", "display")
#: Tags of the notebook cells left out of a report (their values are the parameters table).
PARAMETER_TAGS = ("parameters", "injected-parameters")
#: File name of :func:`write_report_zip`'s archive in the output root (git-ignored in the project folder).
ZIP_NAME = "torus-lab-report.zip"
#: Timestamp of every zip member (the earliest a zip can hold), so that the archive is deterministic.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class ReportInfo:
    """What the report says above the notebook: the experiment, its description, the preset and parameters.

    ``descriptions`` maps a parameter name to its meaning (the experiment's schema), shown in the table.
    """

    experiment: str
    title: str
    preset: str
    parameters: Mapping[str, Any]
    notebook: str = ""
    descriptions: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("experiment", "title", "preset", "notebook"):
            check_str(name, getattr(self, name))
        check_mapping("parameters", self.parameters)
        check_mapping("descriptions", self.descriptions)
        for key in self.parameters:
            check_str("parameters key", key)


# ---------------------------------------------------------------------- math
def _code_span_end(text: str, start: int) -> int:
    """Index just after the code span opened by the backtick run at ``start`` (or after the run if unclosed)."""
    run = len(text[start:]) - len(text[start:].lstrip("`"))
    close = text.find("`" * run, start + run)
    while close != -1 and text[close + run : close + run + 1] == "`":  # a longer run does not close
        close = text.find("`" * run, close + run + 1)
    return start + run if close == -1 else close + run


def split_math(text: str) -> list[tuple[str, str]]:
    """Split Markdown ``text`` into ``(kind, text)`` segments, kinds in :data:`MATH_KINDS`.

    Math is ``$$...$$`` (display, may span lines) or ``$...$`` (inline, within one paragraph, not empty); a
    ``$`` escaped as ``\\$``, inside a code span or inside a fenced code block is text.  An unclosed ``$``
    is text.  Joining the segments back (math wrapped in its dollars) gives ``text``.

    Examples
    --------
    >>> split_math("$$a+b$$ and $x_1$")
    [('display', 'a+b'), ('text', ' and '), ('inline', 'x_1')]
    >>> split_math("a $ b")
    [('text', 'a $ b')]
    """
    check_str("text", text)
    segments: list[tuple[str, str]] = []
    buffer: list[str] = []
    position, fenced = 0, False
    while position < len(text):
        line_start = position == 0 or text[position - 1] == "\n"
        if line_start and text[position:].lstrip(" ")[:3] in ("```", "~~~"):
            fenced = not fenced
        if fenced:
            end = text.find("\n", position)
            end = len(text) if end == -1 else end + 1
            buffer.append(text[position:end])
            position = end
            continue
        char = text[position]
        if char == "\\" and text[position + 1 : position + 2] == "$":
            buffer.append("\\$")
            position += 2
        elif char == "`":
            end = _code_span_end(text, position)
            buffer.append(text[position:end])
            position = end
        elif char == "$":
            display = text.startswith("$$", position)
            found = _math_end(text, position, display)
            if found is None:
                buffer.append(text[position : position + (2 if display else 1)])
                position += 2 if display else 1
                continue
            if buffer:
                segments.append(("text", "".join(buffer)))
                buffer = []
            width = 2 if display else 1
            segments.append(("display" if display else "inline", text[position + width : found]))
            position = found + width
        else:
            buffer.append(char)
            position += 1
    if buffer:
        segments.append(("text", "".join(buffer)))
    return segments


def _math_end(text: str, start: int, display: bool) -> int | None:
    """Index of the closing delimiter of the math opened at ``start`` (None when it has none)."""
    if display:
        close = text.find("$$", start + 2)
        return close if close != -1 and text[start + 2 : close].strip() else None
    close = start + 1
    while True:
        close = text.find("$", close)
        if close == -1 or "\n\n" in text[start:close]:
            return None
        if text[close - 1] != "\\":
            break
        close += 1
    return close if text[start + 1 : close].strip() else None


def tex_to_mathml(tex: str, *, display: bool) -> str:
    """MathML of the TeX ``tex`` (``latex2mathml``), as a block (``display=True``) or inline.

    Raises ValueError when the TeX cannot be converted or a command is left unconverted (it would show as
    raw text).

    Examples
    --------
    >>> "<mfrac>" in tex_to_mathml(r"\\frac{k}{2}", display=True)
    True
    >>> tex_to_mathml(r"\\nosuchcommand", display=False)
    Traceback (most recent call last):
    ...
    ValueError: cannot convert the TeX tex='\\\\nosuchcommand' to MathML: '\\\\nosuchcommand' is left unconverted
    """
    from latex2mathml.converter import convert

    check_str("tex", tex)
    check_instance("display", display, bool)
    try:
        mathml = convert(tex, display="block" if display else "inline")
    except Exception as err:  # latex2mathml raises its own exception types (and some built-in ones)
        raise ValueError(f"cannot convert the TeX tex={tex!r} to MathML: {err}") from None
    leftover = re.search(r"\\[A-Za-z]+", re.sub(r"<[^>]*>", "", mathml))
    if leftover:
        raise ValueError(f"cannot convert the TeX tex={tex!r} to MathML: {leftover.group()!r} is left unconverted")
    return mathml


def markdown_math_to_mathml(source: str, token_prefix: str = "TORUSLABMATH", first: int = 0
                            ) -> tuple[str, dict[str, str]]:  # fmt: skip
    """Replace every math segment of the Markdown ``source`` by a placeholder token (``token_prefix``, a
    number counted from ``first``, ``Z``); returns the new source and ``{token: MathML}``.  The tokens
    (letters and digits) survive the Markdown renderer untouched, so that the MathML is put in after rendering
    (``_put_math_back``).

    Examples
    --------
    >>> text, math = markdown_math_to_mathml("a $k$ b")
    >>> text, [m[:5] for m in math.values()]
    ('a TORUSLABMATH00000Z b', ['<math'])
    """
    check_str("source", source)
    if not check_str("token_prefix", token_prefix).isalpha():
        raise ValueError(f"token_prefix must be letters only, got {token_prefix!r}")
    first = check_int("first", first, minimum=0)
    parts, math = [], {}
    for kind, text in split_math(source):
        if kind == "text":
            parts.append(text)
            continue
        token = f"{token_prefix}{first + len(math):05d}Z"
        try:
            math[token] = tex_to_mathml(text, display=kind == "display")
        except ValueError as err:
            raise ValueError(f"source: {err}") from None
        parts.append(token)
    return "".join(parts), math


def _plain_text(mathml: str) -> str:
    """Letters and digits of the MathML's text (for an attribute, e.g. a heading id)."""
    return re.sub(r"[^0-9A-Za-z]+", "", html.unescape(re.sub(r"<[^>]*>", "", mathml)))


def _put_math_back(page: str, math: Mapping[str, str]) -> str:
    """Tokens inside attribute values become the math's plain text, every other token its MathML."""
    if not math:
        return page
    pattern = re.compile("|".join(re.escape(token) for token in math))

    def attribute(match: re.Match) -> str:
        return pattern.sub(lambda m: _plain_text(math[m.group()]), match.group())

    page = re.sub(r"""=\s*("[^"]*"|'[^']*')""", attribute, page)
    return pattern.sub(lambda m: math[m.group()], page)


# ---------------------------------------------------------------------- images and self-containedness
_IMG_SRC = re.compile(r"""(<img\b[^>]*?\ssrc\s*=\s*)("([^"]*)"|'([^']*)')""", re.IGNORECASE)


def embed_images(page: str, folder: str | Path) -> str:
    """Every ``<img src=...>`` of ``page`` that is not a ``data:`` URI, read from its path relative to
    ``folder`` and embedded as a base64 ``data:`` URI.

    Raises ValueError naming the source when the file is missing or the source is a remote URL.
    """
    check_str("page", page)
    base = _file("folder", folder)

    def embed(match: re.Match) -> str:
        source = match.group(3) if match.group(3) is not None else match.group(4)
        if source.startswith("data:"):
            return match.group()
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", source):
            raise ValueError(f"page: image {source!r} is not a local file: a shared report cannot load it")
        path = base / unquote(html.unescape(source))
        if not _is_file(path):
            raise ValueError(f"page: image {source!r} not found (looked for {path})")
        mime = mimetypes.guess_type(path.name)[0]
        if mime is None or not mime.startswith("image/"):
            raise ValueError(f"page: image {source!r} is not an image file")
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'{match.group(1)}"data:{mime};base64,{encoded}"'

    return _IMG_SRC.sub(embed, page)


#: What makes a page load something from outside itself (see :func:`check_self_contained`).
_EXTERNAL = (
    ("<script> with a src", re.compile(r"<script\b[^>]*\ssrc\s*=", re.IGNORECASE)),
    ("<link> to a stylesheet or resource", re.compile(r"<link\b[^>]*\shref\s*=", re.IGNORECASE)),
    ("<img>, <iframe>, <source> or <embed> with a non-data src",
     re.compile(r"<(?:img|iframe|source|embed|video|audio)\b[^>]*\ssrc\s*=\s*[\"'](?!data:)", re.IGNORECASE)),
    ("CSS url() or @import of a file", re.compile(r"url\(\s*[\"']?(?!data:|#)|@import", re.IGNORECASE)),
    ("a module import from a URL", re.compile(r"\bimport\b[^;\n]*[\"']https?://", re.IGNORECASE)),
)  # fmt: skip


def check_self_contained(page: str) -> str:
    """``page`` after checking that it loads nothing from outside itself: no ``<script src>``, no
    ``<link href>``, no non-``data:`` image, frame or media source, no CSS ``url()``/``@import`` of a file and
    no JavaScript import from a URL (plain ``<a href>`` links are allowed: they load nothing until clicked).

    Examples
    --------
    >>> check_self_contained("<p><a href='x.csv'>data</a><img src='data:image/png;base64,AA=='></p>")[:3]
    '<p>'
    >>> check_self_contained('<script src="https://cdn.example/m.js"></script>')
    Traceback (most recent call last):
    ...
    ValueError: page is not self-contained: <script> with a src at '<script src="https://cdn.example/m.js"><'
    """
    check_str("page", page)
    for what, pattern in _EXTERNAL:
        found = pattern.search(page)
        if found:
            raise ValueError(f"page is not self-contained: {what} at {page[found.start():found.start() + 40]!r}")
    return page


# ---------------------------------------------------------------------- the page
_CSS = """
:root { --tl-accent: #0072B2; }
.tl-header { max-width: 1100px; margin: 1.5em auto 0.5em; padding: 0 1em; font-family: system-ui, sans-serif; }
.tl-header h1 { margin: 0 0 0.2em; font-size: 1.6em; }
.tl-meta { color: #555; font-size: 0.9em; }
.tl-params { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.85em; }
.tl-params th, .tl-params td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
.tl-params th { background: #f0f4f8; } .tl-params td.tl-value { font-family: monospace; }
main { max-width: 1100px; margin: 0 auto; padding: 0 1em; }
details.tl-code > summary { cursor: pointer; color: #555; font-size: 0.85em; margin: 0.2em 0; }
details.tl-code[open] > summary { margin-bottom: 0.3em; }
figure.torus-lab-figure { margin: 1em 0; width: 100%; }
figure.torus-lab-figure img { display: block; width: 100%; height: auto; cursor: zoom-in; border: 1px solid #ddd;
  max-width: none; }
figure.torus-lab-figure figcaption { font-size: 0.9em; color: #333; margin-top: 0.4em; }
#tl-zoom { position: fixed; inset: 0; background: rgba(0, 0, 0, 0.85); display: none; overflow: auto;
  cursor: zoom-out; z-index: 1000; }
#tl-zoom.tl-open { display: block; }
#tl-zoom img { display: block; margin: 1em auto; max-width: none; background: white; }
math[display="block"] { margin: 0.6em 0; }
"""

#: Click on a figure: an overlay shows the PNG at its own resolution, at least the window's width (scroll to pan);
#: a click or Escape closes it.
_ZOOM_JS = """
(function () {
  var overlay = null;
  function close() { if (overlay) { overlay.remove(); overlay = null; } }
  function open(img) {
    close();
    overlay = document.createElement('div'); overlay.id = 'tl-zoom'; overlay.className = 'tl-open';
    var big = document.createElement('img'); big.src = img.src; big.alt = img.alt;
    big.style.width = Math.max(img.naturalWidth, window.innerWidth - 40) + 'px';
    overlay.appendChild(big); overlay.addEventListener('click', close);
    document.body.appendChild(overlay);
  }
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape') { close(); } });
  document.querySelectorAll('figure.torus-lab-figure img').forEach(function (img) {
    img.title = 'click to enlarge';
    img.addEventListener('click', function () { open(img); });
  });
})();
"""

_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}<style type="text/css">{{ resources.torus_lab.css }}</style>{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.torus_lab.header }}
{%- endblock body_header -%}
{%- block input_group -%}
<details class="tl-code"><summary>code</summary>
{{ super() }}
</details>
{%- endblock input_group -%}
{%- block footer_js -%}<script>{{ resources.torus_lab.script }}</script>{%- endblock footer_js -%}
"""
_TEMPLATE_NAME = "torus_lab_report.html.j2"


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _header_html(info: ReportInfo) -> str:
    """Title, provenance line and the parameters table (name, value, meaning)."""
    esc = html.escape
    rows = "".join(
        f"<tr><td><code>{esc(key)}</code></td><td class='tl-value'>{esc(_value_text(value))}</td>"
        f"<td>{esc(str(info.descriptions.get(key, '')))}</td></tr>"
        for key, value in info.parameters.items()
    )
    notebook = f" · notebook <code>{esc(info.notebook)}</code>" if info.notebook else ""
    return (
        f"<header class='tl-header'><h1>{esc(info.title)}</h1>"
        f"<p class='tl-meta'>experiment <code>{esc(info.experiment)}</code> · preset <b>{esc(info.preset)}</b>"
        f"{notebook}. Figures and math are embedded: this file works alone and offline. The executed notebook "
        f"and <code>manifest.json</code> (versions, commit, sha256 of every output) are in "
        f"<code>reports/{esc(info.experiment)}/</code> of the full report.</p>"
        f"<table class='tl-params'><tr><th>parameter</th><th>value</th><th>meaning</th></tr>{rows}</table>"
        "<p class='tl-meta'>Code cells are collapsed: click <i>code</i> to show one. Click a figure to enlarge "
        "it.</p></header>"
    )


def _report_notebook(nb: Any) -> tuple[Any, dict[str, str]]:
    """A copy of ``nb`` without its parameters cells, TeX of Markdown cells replaced by placeholders."""
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if not set(PARAMETER_TAGS) & set(c.get("metadata", {}).get("tags", []))]
    text = json.dumps(nb, sort_keys=True)
    prefix = "TORUSLABMATH"
    while prefix in text:
        prefix += "X"
    math: dict[str, str] = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, found = markdown_math_to_mathml(cell.source, prefix, first=len(math))
            math.update(found)
    return nb, math


#: Exporters made by :func:`report_exporter` and not in use (``torus-lab reproduce`` exports from two threads).
_IDLE_EXPORTERS: list[Any] = []
_EXPORTERS_LOCK = threading.Lock()


def _new_exporter() -> Any:
    import jinja2
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab", exclude_input_prompt=True, exclude_output_prompt=True,
                            extra_loaders=[jinja2.DictLoader({_TEMPLATE_NAME: _TEMPLATE})])  # fmt: skip
    exporter.template_file = _TEMPLATE_NAME
    return exporter


@contextlib.contextmanager
def report_exporter() -> Iterator[Any]:
    """The nbconvert ``HTMLExporter`` of the reports (``lab`` template, the project's template above it), for the
    duration of the ``with`` block.

    Exporters are reused: making one imports nbconvert (the first time in a process) and compiles its Jinja
    templates, about 0.8 s of the 1 s of a process's first export and a third of a later one.  An exporter keeps
    nothing of a notebook between exports (a reused exporter writes the same bytes as a new one); one is lent to
    one block at a time, so two experiments exported side by side never share one.  :func:`prepare_report_exporter`
    makes one in advance.

    Examples
    --------
    >>> with report_exporter() as first:
    ...     pass
    >>> with report_exporter() as again, report_exporter() as other:
    ...     again is first, other is first, again.template_file
    (True, False, 'torus_lab_report.html.j2')
    """
    with _EXPORTERS_LOCK:
        exporter = _IDLE_EXPORTERS.pop() if _IDLE_EXPORTERS else None
    if exporter is None:
        exporter = _new_exporter()
    try:
        yield exporter
    finally:
        with _EXPORTERS_LOCK:
            _IDLE_EXPORTERS.append(exporter)


def prepare_report_exporter() -> None:
    """Make an exporter ready for the next :func:`export_report_html` when none is idle (nbconvert imported, its
    templates compiled); the runner calls it in a background thread while the notebook's kernel works.

    Examples
    --------
    >>> prepare_report_exporter()
    >>> len(_IDLE_EXPORTERS) >= 1
    True
    """
    with _EXPORTERS_LOCK:
        if _IDLE_EXPORTERS:
            return
    with report_exporter():
        pass


def export_report_html(notebook: str | Path, html_path: str | Path, info: ReportInfo) -> Path:
    """Write the self-contained HTML report of the executed ``notebook`` to ``html_path`` (see the module
    docstring); images are read relative to ``html_path``'s folder.  Returns ``html_path``.

    Raises ValueError (before writing) when a figure file is missing, TeX cannot be converted, or the page
    would load anything from outside itself.
    """
    import nbformat

    notebook, html_path = _file("notebook", notebook), _file("html_path", html_path)
    check_instance("info", info, ReportInfo)
    if not _is_file(notebook):
        raise ValueError(f"notebook {str(notebook)!r} is not a file")
    nb, math = _report_notebook(nbformat.read(notebook, as_version=4))
    resources = {"torus_lab": {"css": _CSS, "script": _ZOOM_JS, "header": _header_html(info)},
                 "metadata": {"name": info.title}}  # fmt: skip
    with report_exporter() as exporter:
        page, _ = exporter.from_notebook_node(nb, resources=resources)
    page = _put_math_back(page, math)
    page = check_self_contained(embed_images(page, html_path.parent))
    html_path.write_text(page, encoding="utf-8")
    return html_path


def notebook_figures(notebook: str | Path) -> list[dict[str, Any]]:
    """The figures an executed notebook shows through :func:`torus_lab.plotting.show_figure`, in order: the
    records ``{"name", "file", "caption"}`` of its display metadata (``caption`` None when none was given)."""
    path = _file("notebook", notebook)
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:  # ValueError: bad JSON, or a path the OS refuses (NUL)
        raise ValueError(f"cannot read notebook {str(path)!r}: {err}") from None
    if not isinstance(nb, dict):
        raise ValueError(f"notebook {str(path)!r} is not a notebook (a JSON object)")
    return [output["metadata"][FIGURE_METADATA_KEY]
            for cell in nb.get("cells", []) for output in cell.get("outputs", [])
            if FIGURE_METADATA_KEY in output.get("metadata", {})]  # fmt: skip


# ---------------------------------------------------------------------- the zip
def _file(name: str, value: object) -> Path:
    """``value`` as a Path after checking it is a str or path-like without NUL characters."""
    path = Path(check_instance(name, value, (str, os.PathLike), "a path"))
    if "\0" in str(path) or not str(value):
        raise ValueError(f"{name} must be a path without NUL characters, got {str(value)!r}")
    return path


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False for a path the OS refuses (too long, NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _folder(name: str, value: object) -> Path:
    """:func:`_file`, and the folder must exist."""
    path = _file(name, value)
    try:
        found = path.is_dir()
    except (OSError, ValueError):
        found = False
    if not found:
        raise ValueError(f"{name} {str(path)!r} is not an existing folder")
    return path


def _experiment_name(name: object) -> str:
    if not check_str("names", name) or Path(name).name != name or name in (".", "..") or "\0" in name:
        raise ValueError(f"names must hold plain experiment names, got {name!r}")
    return name


def report_zip_members(out_root: str | Path, names: Iterable[str]) -> list[str]:
    """Files (relative to ``out_root``, sorted) that :func:`write_report_zip` packs: ``reports/index.html``,
    ``data/claims.csv``, and for every experiment in ``names`` its three output folders ``reports/<name>/``
    (the self-contained HTML, the executed notebook, the manifest), ``data/<name>/`` and ``figures/<name>/``
    (PNG and SVG: the claims tables link figures as evidence).  Missing files are skipped.
    """
    root = _folder("out_root", out_root)
    names = [_experiment_name(name) for name in check_sequence("names", names)]
    members = {p for p in (root / "reports" / "index.html", root / "data" / "claims.csv") if p.is_file()}
    for name in names:
        for kind in ("reports", "data", "figures"):
            members.update(p for p in (root / kind / name).glob("**/*") if p.is_file())
    return sorted(p.relative_to(root).as_posix() for p in members)


def write_report_zip(out_root: str | Path, names: Iterable[str], zip_path: str | Path | None = None) -> Path:
    """Pack :func:`report_zip_members` of ``out_root`` into ``zip_path`` (default ``out_root/`` :data:`ZIP_NAME`),
    under a top folder ``torus-lab-report/`` so that unpacking gives one folder whose links all resolve.

    Members are sorted, dated 1980-01-01 and stored with fixed permissions: the same files give the same zip.
    The archive is written to a temporary name and renamed into place.  Returns ``zip_path``.
    """
    root = _folder("out_root", out_root)
    target = _file("zip_path", zip_path) if zip_path is not None else root / ZIP_NAME
    members = report_zip_members(root, names)
    if not members:
        raise ValueError(f"nothing to pack under {str(root)!r}: no reports/index.html and no experiment outputs")
    if target.is_dir():
        raise ValueError(f"zip_path {str(target)!r} is a folder, not a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp")
    top = ZIP_NAME.removesuffix(".zip")
    with zipfile.ZipFile(temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for member in members:
            info = zipfile.ZipInfo(f"{top}/{member}", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (root / member).read_bytes())
    os.replace(temporary, target)
    return target
