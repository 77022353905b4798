"""The documentation stands on its own: the README's Python code runs, convention anchors resolve, no file points
outside the repository, LICENSE and CITATION.cff exist and are linked."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import matplotlib
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CONVENTIONS = ROOT / "docs" / "conventions.md"

#: Strings that point at files outside the repository (written split so that this file does not contain them).
OUTSIDE_REFERENCES = ("algorithms" + ".md", ".." + "/shared")
#: Folders that are not part of the repository's sources (environments, caches, scratch space, build output).
SKIPPED_DIRS = {".git", ".venv", "scratch", "test-artifacts", "__pycache__", ".hypothesis", ".pytest_cache",
                ".ruff_cache", ".ipynb_checkpoints", "_build", "torus_lab.egg-info", ".benchmarks"}
#: Outputs of ``make reproduce`` (executed notebooks and their HTML), checked separately: they are regenerated from
#: the notebooks, never edited by hand.
GENERATED_DIRS = ("data", "figures", "reports")

#: A ```python block, with the HTML comment ``<!-- sketch -->`` on the line before it when it is an outline that
#: is only compiled (for example a kernel whose body is left to the reader).
FENCE = re.compile(r"^(<!-- sketch -->\n)?```python\n(.*?)^```", re.S | re.M)
ANCHOR = re.compile(r'<a id="([a-z0-9-]+)"></a>')
CITATION = re.compile(r"conventions\.md#([a-z0-9-]+)")


def repository_files() -> list[Path]:
    """Files of the repository: tracked or new (not git-ignored) files, or a walk without the skipped folders."""
    if shutil.which("git") and (ROOT / ".git").exists():
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                                capture_output=True, check=True).stdout.decode().split("\0")
        files = [ROOT / name for name in listed if name]
    else:
        files = [p for p in ROOT.rglob("*") if not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts)]
    return sorted(p for p in files if p.is_file() and not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts))


def outside_references(files: list[Path]) -> list[str]:
    hits = []
    for path in files:
        data = path.read_bytes()
        hits += [f"{path.relative_to(ROOT)}: {needle}" for needle in OUTSIDE_REFERENCES if needle.encode() in data]
    return hits


def is_generated(path: Path) -> bool:
    return path.relative_to(ROOT).parts[0] in GENERATED_DIRS


def readme_blocks() -> list[tuple[str, bool]]:
    """(code, is_sketch) of every ```python block of the README, in order."""
    return [(code, bool(mark)) for mark, code in FENCE.findall(README.read_text(encoding="utf-8"))]


def test_readme_python_blocks_run(tmp_path, monkeypatch):
    """Every ```python block of the README runs, in order, in one namespace (the quick start builds on itself);
    the drawing step writes its figure.  Sketches are compiled only."""
    blocks = readme_blocks()
    assert sum(not sketch for _, sketch in blocks) >= 3, "the quick start: a routing, a drawing, a simulation block"
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # the quick start writes its figure into the working directory
    namespace: dict = {"__name__": "readme"}
    try:
        for number, (block, sketch) in enumerate(blocks, 1):
            code = compile(block, f"README.md python block {number}", "exec")
            if not sketch:
                exec(code, namespace)  # noqa: S102
    finally:
        plt.close("all")
    assert (tmp_path / "quickstart_routes.png").stat().st_size > 0
    route, torus = namespace["route"], namespace["torus"]
    assert all(torus.lee_distance(a, b) == 1 for a, b in zip(route, route[1:], strict=False))
    assert namespace["result"].delivered > 0 and not namespace["result"].deadlock


def test_readme_quick_start_routes_match_their_comments():
    """The printed route in the quick start's comment is what the code prints (the comment cannot rot)."""
    first = readme_blocks()[0][0]
    comment = re.search(r"print\(route\)\s*#\s*(\[.*\])", first)
    assert comment, "the first block prints the route and shows it in a comment"
    namespace: dict = {}
    exec(compile(first, "README.md python block 1", "exec"), namespace)  # noqa: S102
    assert str(namespace["route"]) == comment.group(1)


def test_no_source_file_points_outside_the_repository():
    """No file of the repository (outside environments, caches and scratch) mentions a file outside it."""
    hits = outside_references([p for p in repository_files() if not is_generated(p)])
    assert not hits, "files that reference something outside the repository:\n" + "\n".join(hits)


def test_no_generated_output_points_outside_the_repository():
    hits = outside_references([p for p in repository_files() if is_generated(p)])
    assert not hits, "generated outputs that reference something outside the repository:\n" + "\n".join(hits)


def test_convention_anchors_are_unique_and_every_citation_resolves():
    page = CONVENTIONS.read_text(encoding="utf-8")
    anchors = ANCHOR.findall(page)
    assert len(anchors) == len(set(anchors)), "duplicate anchors on the conventions page"
    defined = set(anchors)
    cited: dict[str, set[str]] = {}
    for path in repository_files():
        if is_generated(path) or path.suffix not in {".py", ".ipynb", ".md", ".yaml", ".rst", ".cff"}:
            continue
        for anchor in CITATION.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(anchor, set()).add(str(path.relative_to(ROOT)))
    in_page = set(re.findall(r'href="#([a-z0-9-]+)"', page))
    unknown = {a: sorted(files) for a, files in cited.items() if a not in defined}
    assert not unknown, f"citations of anchors the conventions page does not define: {unknown}"
    assert in_page <= defined, f"links inside the page to missing anchors: {sorted(in_page - defined)}"
    assert len(cited) >= 20, "docstrings, notebooks and tests cite the conventions page"


def test_license_and_citation_exist_and_are_linked():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project["license"] == "MIT" and license_text.startswith("MIT License")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"].startswith("1.2") and citation["license"] == project["license"]
    assert citation["version"] == project["version"] and citation["title"] and citation["authors"]
    readme = README.read_text(encoding="utf-8")
    docs_index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for name in ("LICENSE", "CITATION.cff"):
        assert f"]({name})" in readme, f"README links {name}"
        assert f"<_files/{name}>`" in docs_index, f"docs/index.md links {name} (the site copies it into _files/)"


def test_api_reference_covers_every_public_module():
    """Every public module of the package has an ``automodule`` directive in ``docs/api/`` (a new module cannot be
    left out of the API reference)."""
    import pkgutil

    import torus_lab

    public = {info.name for info in pkgutil.walk_packages(torus_lab.__path__, "torus_lab.")
              if not any(part.startswith("_") for part in info.name.split("."))}
    documented = set()
    for page in (ROOT / "docs" / "api").glob("*.rst"):
        documented |= set(re.findall(r"^\.\. automodule:: (\S+)$", page.read_text(encoding="utf-8"), re.M))
    assert public - documented == set(), f"public modules missing from docs/api: {sorted(public - documented)}"
    assert documented - public <= {"torus_lab"}, f"docs/api names unknown modules: {sorted(documented - public)}"
