"""The provenance manifest of a run: what ``torus-lab run`` and an interactive notebook run both write.

``manifest.json`` records the experiment, its preset and parameters, the git commit, the versions of the packages
that shape results, the sweep settings, the run's times and the sha256 and role of every output file.  The
runner (:mod:`torus_lab.runner`) writes it beside the outputs it swaps into place; a notebook run by hand
(:func:`torus_lab.experiment.start`) writes the same fields into its own output folders, so the two round-trip.

Examples
--------
>>> output_role("data", "loads.csv"), output_role("data", "timing/loads.csv"), output_role("figures", "a.png")
('science', 'timing', 'figure')
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib.metadata
import os
import platform
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torus_lab._validate import check_instance, check_mapping, check_real, check_str
from torus_lab.lockfile import lock_state
from torus_lab.settings import ENVIRONMENT, Settings, current_settings
from torus_lab.timing import is_timing_file

__all__ = ["GENERATED_PATHS", "MANIFEST_NAME", "OUTPUT_ROLES", "RECORDED_PACKAGES", "build_manifest", "git_state",
           "output_role", "package_versions", "sha256", "sweep_settings", "utc_now"]  # fmt: skip

#: File name of the manifest in every output folder of a run.
MANIFEST_NAME = "manifest.json"
#: Packages whose versions go into every manifest.
RECORDED_PACKAGES = (
    "torus-lab", "numpy", "pandas", "scipy", "networkx", "numba", "matplotlib", "seaborn",
    "papermill", "nbconvert", "ipykernel", "dask", "distributed",
)  # fmt: skip
#: Generated files: regenerating them does not make the code differ from the commit.
GENERATED_PATHS = ("data", "figures", "reports", "README.md")
#: Role of an output file in the manifest, by output kind: science data, figure, executed notebook/report.
OUTPUT_ROLES = {"data": "science", "figures": "figure", "reports": "report"}


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(root: Path) -> dict[str, Any]:
    """Commit hash and dirty flag of the project (None when not a git checkout).

    ``dirty`` is True when a tracked file other than the generated outputs (:data:`GENERATED_PATHS`, which a
    ``reproduce`` rewrites one experiment after another) differs from the commit; ``dirty_files`` lists them.
    """
    root = Path(check_instance("root", root, (str, os.PathLike), "a folder path"))
    commit = _git(root, "rev-parse", "HEAD")
    excludes = [f":(exclude){path}" for path in GENERATED_PATHS]
    status = _git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", *excludes)
    if status is None:
        return {"commit": commit, "dirty": None, "dirty_files": []}
    changed = [line.split(maxsplit=1)[1] for line in status.splitlines() if line.strip()]
    return {"commit": commit, "dirty": bool(changed), "dirty_files": changed[:20]}


def package_versions() -> dict[str, str | None]:
    """Versions of Python and the packages that shape results."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def sha256(path: Path) -> str:
    """The sha256 of the file ``path``, as hex digits."""
    path = Path(check_instance("path", path, (str, os.PathLike), "a file path"))
    if not path.is_file():
        raise ValueError(f"path {str(path)!r} is not a file")
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def utc_now() -> str:
    """Now, in UTC, to the second (ISO 8601)."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def output_role(kind: str, inside: str | Path) -> str:
    """Manifest role of the file ``inside`` (relative to ``<kind>/<name>``): ``"timing"`` for the timing files
    of :mod:`torus_lab.timing` (not compared by ``torus-lab verify``), else :data:`OUTPUT_ROLES` of ``kind``.

    Examples
    --------
    >>> output_role("reports", "loads.html")
    'report'
    """
    if not isinstance(kind, str) or kind not in OUTPUT_ROLES:
        raise ValueError(f"kind must be one of {', '.join(OUTPUT_ROLES)}, got {kind!r}")
    check_instance("inside", inside, (str, os.PathLike), "a relative path")
    return "timing" if kind == "data" and is_timing_file(Path(inside)) else OUTPUT_ROLES[kind]


def sweep_settings(settings: Settings | None = None) -> dict[str, str]:
    """The sweep settings chosen in ``settings`` (default: this process's), as the environment variables that
    carry them.

    Examples
    --------
    >>> sweep_settings(Settings.from_environment({"TORUS_LAB_BACKEND": "serial"}))
    {'TORUS_LAB_BACKEND': 'serial'}
    """
    settings = current_settings() if settings is None else settings
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a torus_lab.settings.Settings, got {settings!r}")
    chosen = {"backend_text": settings.backend_text, "scheduler": settings.scheduler,
              "workers_text": settings.workers_text}
    return {ENVIRONMENT[field]: str(value) for field, value in chosen.items() if value is not None}


def _outputs(name: str, folders: Mapping[str, Path]) -> list[dict[str, Any]]:
    """Every file under ``folders`` (output kind -> folder), the manifests themselves left out."""
    outputs = []
    for kind, folder in folders.items():
        for path in sorted(p for p in Path(folder).rglob("*") if p.is_file() and p.name != MANIFEST_NAME):
            inside = path.relative_to(folder)
            relative = Path(kind) / name / inside
            outputs.append({"path": relative.as_posix(), "role": output_role(kind, inside),
                            "bytes": path.stat().st_size, "sha256": sha256(path)})  # fmt: skip
    return outputs


def build_manifest(*, name: str, description: str, notebook: str, root: Path, preset: str | None,
                   params: Mapping[str, Any], folders: Mapping[str, Path], started: str, duration: float,
                   sweep_environment: Mapping[str, str] | None = None,
                   claims_changes: Mapping[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """The manifest of experiment ``name`` run at ``preset`` with ``params`` in project ``root``, whose outputs
    are the files under ``folders`` (output kind of :data:`OUTPUT_ROLES` -> its ``<kind>/<name>`` folder).

    ``sweep_environment``: the sweep settings the notebook's kernel ran with beyond this process's own.
    ``claims_changes``: how the run's claims table differs from the one it replaced (the runner's record,
    ``torus_lab.runner.claims_change_record``); None for a run by hand or an experiment without claims.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "table.csv").write_text("a\\n1\\n")
    >>> m = build_manifest(name="demo", description="a demo", notebook="notebooks/demo.ipynb", root=folder,
    ...                    preset="quick", params={"seed": 1}, folders={"data": folder}, started=utc_now(),
    ...                    duration=0.5)
    >>> m["seed"], [(o["path"], o["role"]) for o in m["outputs"]]
    (1, [('data/demo/table.csv', 'science')])
    """
    for key, value in (("name", name), ("description", description), ("notebook", notebook), ("started", started)):
        check_str(key, value)
    if preset is not None:
        check_str("preset", preset)
    root = Path(check_instance("root", root, (str, os.PathLike), "a folder path"))
    check_mapping("params", params)
    check_real("duration", duration, minimum=0)
    for kind, folder in check_mapping("folders", folders).items():
        if kind not in OUTPUT_ROLES:
            raise ValueError(f"folders must map output kinds ({', '.join(OUTPUT_ROLES)}) to folders, got {kind!r}")
        check_instance("folders", folder, (str, os.PathLike), "a folder path")
    if sweep_environment is not None:
        check_mapping("sweep_environment", sweep_environment)
    if claims_changes is not None:
        check_mapping("claims_changes", claims_changes)
    return {
        "experiment": name,
        "description": description,
        "notebook": notebook,
        "preset": preset,
        "seed": params.get("seed"),
        "parameters": dict(params),
        "git": git_state(root),
        "versions": package_versions(),
        "environment_lock": lock_state(root),  # sha256 of requirements.lock, and whether it was used
        "platform": {"machine": platform.machine(), "system": platform.system(), "cpus": os.cpu_count()},
        "sweep_backend": {**sweep_settings(), **(sweep_environment or {})},
        "started_utc": started,
        "finished_utc": utc_now(),
        "duration_s": round(duration, 3),
        "outputs": _outputs(name, folders),
        "claims_changes": None if claims_changes is None else dict(claims_changes),
    }
