"""Sphinx configuration of the torus_lab documentation (``make docs`` builds it into ``docs/_build/html``)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import matplotlib
from docutils import nodes
from sphinx import addnodes
from sphinx.domains.math import MathDomain
from sphinx.transforms.post_transforms import SphinxPostTransform
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
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",  # Markdown pages (myst-parser) and the executed notebooks of reports/
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
# _extra: data and figures copied beside the pages; results/_*.md: generated pieces included by other pages.
exclude_patterns = ["_build", "_extra", "_files", "results/_*.md", "**.ipynb_checkpoints"]

# The API pages document what each module lists in ``__all__`` (autodoc's default with ``:members:``).
autodoc_default_options = {"members": True, "member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc's Parameters/Returns sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
myst_dmath_double_inline = True  # $$...$$ inside a paragraph of a notebook is display math too

# Figures are numbered per page ("Figure 3.2": the second figure of the third results page, whose toctree is
# numbered one level deep) with their caption; the notebooks' figures become Sphinx figures
# through myst-nb's cell metadata ``mystnb.figure``, which torus_lab.site.figure_cells sets from show_figure's record.
numfig = True
numfig_format = {"figure": "Figure %s", "table": "Table %s", "code-block": "Listing %s", "section": "Section %s"}
numfig_secnum_depth = 1

# The notebooks are rendered from their committed outputs, never executed while the site is built.
nb_execution_mode = "off"
nb_merge_streams = True

html_theme = "pydata_sphinx_theme"
html_title = f"torus_lab {release}"
html_static_path = ["_static"]
html_css_files = ["torus_lab.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False
html_copy_source = False
# No summaries under the search results: they are fetched from the pages, which a browser refuses under file://.
html_show_search_summary = False

# MathJax from local files (jupyter-server-mathjax ships MathJax 2 as package data: its combined configuration
# and the STIX web fonts): the site renders math offline. The files are copied into _static/mathjax/ after the build.
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    "jax": ["input/TeX", "output/HTML-CSS"],
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True,
                "processClass": "math|output_latex", "ignoreClass": "tex2jax_ignore|mathjax_ignore|document"},
    "HTML-CSS": {"availableFonts": [], "preferredFont": None, "webFont": "STIX-Web", "imageFont": None},
    "showMathMenu": False,
    "messageStyle": "none",
}

# Nitpicky: every cross-reference must resolve. Third-party libraries have no inventory in an offline build
# (no intersphinx), so references into them are the only ones allowed to stay unresolved.
# A name a module re-exports is documented on that module's page: its source link stays with that module (following
# it to the defining module would link back to an anchor of the wrong page).
viewcode_follow_imported_members = False

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
#: A link to an entry of the conventions page as notebooks and docstrings write it, from wherever they live.
_CONVENTION_LINK = re.compile(r"^(?:\.\./)*(?:docs/)?conventions\.md#([a-z0-9-]+)$")
_CONVENTIONS_PAGE = ROOT / "docs" / "conventions.md"
_CONVENTION_ANCHORS = frozenset(re.findall(r'<a id="([a-z0-9-]+)"></a>', _CONVENTIONS_PAGE.read_text(encoding="utf-8")))


def _link_conventions(app, what, name, obj, options, lines):
    """Turn ````docs/conventions.md#<anchor>```` in a docstring into a link to that entry of the conventions page
    (resolved by ``_ConventionLinks``, like the links of the notebooks and Markdown pages)."""
    for index, line in enumerate(lines):
        lines[index] = _CONVENTION_REF.sub(r"`conventions: \1 <docs/conventions.md#\1>`__", line)


class _ConventionLinks(SphinxPostTransform):
    """The one place where a link to ``docs/conventions.md#<anchor>`` (``../docs/conventions.md#...`` from a
    notebook, ``conventions.md#...`` from a page, ``docs/conventions.md#...`` from a docstring) becomes a link to
    that entry of the conventions page of the site.  An anchor the page does not define is a build warning (an
    error under ``-W``).  It runs before myst's own resolver, which would not find the file from a notebook."""

    default_priority = 5

    def run(self, **kwargs):
        for node in list(self.document.findall(lambda n: isinstance(n, (nodes.reference, addnodes.pending_xref)))):
            if isinstance(node, addnodes.pending_xref):
                target = node.get("reftarget", "")
                if node.get("reftargetid"):
                    target = f"{target}#{node['reftargetid']}"
            else:
                target = node.get("refuri", "")
            found = _CONVENTION_LINK.match(target)
            if not found:
                continue
            anchor = found.group(1)
            if anchor not in _CONVENTION_ANCHORS:
                logger.warning("docs/conventions.md has no anchor %r", anchor, location=node)
            uri = self.app.builder.get_relative_uri(self.env.docname, "conventions") + f"#{anchor}"
            link = nodes.reference("", "", *node.children, refuri=uri, internal=True)
            node.replace_self(link)


_MATHJAX_SKIP = shutil.ignore_patterns("localization", "SVG", "*.md")


# MathJax on every page, not only on those with math of their own: the navigation shows the notebooks' titles,
# which hold math, on every page.
MathDomain.has_equations = lambda self, docname=None: True


def _copy_mathjax(app, exception):
    """Copy MathJax (HTML-CSS output with the STIX web fonts) from jupyter-server-mathjax into
    ``_static/mathjax/``."""
    if exception is not None or app.builder.format != "html":
        return
    import jupyter_server_mathjax

    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(source, Path(app.outdir) / "_static" / "mathjax", ignore=_MATHJAX_SKIP, dirs_exist_ok=True)


def _extra_files(app, config):
    """The data and figures the site's pages link to, copied by ``torus_lab.site`` into ``<source>/_extra``."""
    extra = Path(app.srcdir) / "_extra"
    if extra.is_dir():
        config.html_extra_path = [*config.html_extra_path, str(extra)]


def _compile_numpydoc_template_once():
    """Hand numpydoc its docstring template compiled once per builder.

    numpydoc's ``get_doc_object`` makes a new Jinja environment, and so compiles the same template again, for
    every docstring (about 1,800 on this site, a fifth of the build's CPU time).  The replacement keeps the
    template numpydoc built on its first call for that builder and renders every later docstring with it,
    through numpydoc's own classes: the pages are byte-identical.
    """
    from numpydoc import docscrape, docscrape_sphinx
    from numpydoc import numpydoc as extension

    first_call = docscrape_sphinx.get_doc_object
    templates = {}

    def get_doc_object(obj, what=None, doc=None, config=None, builder=None):
        config = {} if config is None else config
        if builder not in templates:
            rendered = first_call(obj, what=what, doc=doc, config=config, builder=builder)
            templates[builder] = config["template"]
            return rendered
        config["template"] = templates[builder]
        return docscrape.get_doc_object(obj, what=what, doc=doc, config=config,
                                        class_doc=docscrape_sphinx.SphinxClassDoc,
                                        func_doc=docscrape_sphinx.SphinxFunctionDoc,
                                        obj_doc=docscrape_sphinx.SphinxObjDoc)

    extension.get_doc_object = get_doc_object


def setup(app):
    _compile_numpydoc_template_once()
    app.connect("config-inited", _extra_files)
    app.connect("missing-reference", _resolve_reexport)
    app.connect("autodoc-process-docstring", _link_conventions)
    app.connect("build-finished", _copy_mathjax)
    app.add_post_transform(_ConventionLinks)
