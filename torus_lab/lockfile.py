"""The lock file of exact dependency versions (``requirements.lock``) and how the running environment compares.

``make lock`` writes the lock with uv (``uv pip compile pyproject.toml``, exact versions and hashes, for Python
3.11 on Linux x86-64); ``make reproduce`` installs from it.  Every run's ``manifest.json`` records the lock's
sha256 and whether the installed packages are the locked ones (:func:`lock_state`), so a reader can tell a
result made in the locked environment from one made with other versions.

Examples
--------
>>> locked_versions("numpy==2.1.0 \\\\\\n    --hash=sha256:ab\\n    # via torus-lab\\nPyYAML==6.0.2\\n")
{'numpy': '2.1.0', 'pyyaml': '6.0.2'}
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torus_lab._validate import check_instance, check_mapping, check_str

__all__ = ["LOCK_FILE", "lock_state", "locked_versions", "normalize_name"]

#: The lock file, relative to the project root.
LOCK_FILE = "requirements.lock"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def normalize_name(name: str) -> str:
    """A distribution name as PEP 503 compares them.

    Examples
    --------
    >>> normalize_name("Jupyter_Client")
    'jupyter-client'
    """
    check_str("name", name)
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_versions(text: str) -> dict[str, str]:
    """``{name: version}`` of the ``name==version`` lines of a pip requirements lock (hash and comment lines
    are skipped)."""
    check_str("text", text)
    pins = {}
    for line in text.splitlines():
        match = _PIN.match(line)
        if match:
            pins[normalize_name(match.group(1))] = match.group(2)
    return pins


def installed_versions() -> dict[str, str]:
    """``{name: version}`` of every distribution installed in this Python environment."""
    return {normalize_name(dist.metadata["Name"]): dist.version for dist in importlib.metadata.distributions()
            if dist.metadata["Name"]}  # fmt: skip


def lock_state(root: str | os.PathLike, *, installed: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The project's lock file as a manifest records it: path, sha256, number of pins and the pinned packages
    whose installed version differs (at most 20 listed); None when the project has no lock file.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / LOCK_FILE).write_text("numpy==2.1.0\\nscipy==1.14.1\\n")
    >>> state = lock_state(root, installed={"numpy": "2.1.0", "scipy": "1.13.0"})
    >>> state["packages"], state["matches_environment"], state["differing"]
    (2, False, ['scipy: locked 1.14.1, installed 1.13.0'])
    """
    check_instance("root", root, (str, os.PathLike), "a folder path")
    if "\0" in str(root):
        raise ValueError(f"root must be a folder path without NUL characters, got {str(root)!r}")
    if installed is not None:
        check_mapping("installed", installed)
        for name, version in installed.items():
            check_str("installed", name)
            check_str(f"installed[{name!r}]", version)
    path = Path(root) / LOCK_FILE
    if not path.is_file():
        return None
    data = path.read_bytes()
    pins = locked_versions(data.decode("utf-8", errors="replace"))
    installed = installed_versions() if installed is None else installed
    differing = [f"{name}: locked {version}, installed {installed.get(name, 'none')}"
                 for name, version in sorted(pins.items()) if installed.get(name) != version]  # fmt: skip
    return {
        "file": LOCK_FILE,
        "sha256": hashlib.sha256(data).hexdigest(),
        "packages": len(pins),
        "matches_environment": not differing,
        "differing": differing[:20],
    }
