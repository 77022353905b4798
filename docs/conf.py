"""Sphinx configuration of the torus_lab documentation (``make docs`` builds it into ``docs/_build/html``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import matplotlib
from sphinx.util import logging

matplotlib.use("Agg")  # importing torus_lab.plotting must not need a display
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torus_lab  # noqa: E402

logger = logging.getLogger(__name__)

project = "torus_lab"
author = "The torus_lab developers"
copyright = "2026, The torus_lab developers"
release = version = torus_lab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# The API pages document what each module lists in ``__all__`` (autodoc's default with ``:members:``).
autodoc_default_options = {"members": True, "member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters/Returns sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"torus_lab {release}"
html_static_path: list[str] = []

# Nitpicky: every cross-reference must resolve. Third-party libraries have no inventory in an offline build
# (no intersphinx), so references into them are the only ones allowed to stay unresolved.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(networkx|matplotlib|joblib|fractions|numpy|pandas|numba|dask|ipywidgets)\..*")]


def _resolve_reexport(app, env, node, contnode):
    """Resolve a reference to a name the package re-exports (``torus_lab.sim.SimConfig``) or imports into the
    current module (``SimConfig`` in ``torus_lab.sim.saturation``) to the page of the module defining it."""
    import importlib

    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    candidates = [target]
    if node.get("py:module"):
        candidates.append(f"{node['py:module']}.{target}")
    for dotted in candidates:
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            owner = getattr(obj, "__module__", None)
            qualname = getattr(obj, "__qualname__", None)
            if not (owner and qualname and owner.startswith("torus_lab")):
                break
            canonical = f"{owner}.{qualname}"
            if canonical == dotted:
                break
            domain = env.get_domain("py")
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], canonical, node, contnode)
    return None


_CONVENTION_REF = re.compile(r"``docs/conventions\.md#([a-z0-9-]+)``")
_CONVENTIONS_PAGE = ROOT / "docs" / "conventions.md"
_CONVENTION_ANCHORS = frozenset(re.findall(r'<a id="([a-z0-9-]+)"></a>', _CONVENTIONS_PAGE.read_text(encoding="utf-8")))


def _link_conventions(app, what, name, obj, options, lines):
    """Turn ````docs/conventions.md#<anchor>```` in a docstring into a link to that entry of the conventions page;
    an anchor the page does not define is a build warning (an error under ``-W``)."""
    for index, line in enumerate(lines):
        for anchor in _CONVENTION_REF.findall(line):
            if anchor not in _CONVENTION_ANCHORS:
                logger.warning("%s: docs/conventions.md has no anchor %r", name, anchor)
        lines[index] = _CONVENTION_REF.sub(r"`conventions: \1 <../conventions.html#\1>`__", line)


def setup(app):
    app.connect("missing-reference", _resolve_reexport)
    app.connect("autodoc-process-docstring", _link_conventions)
