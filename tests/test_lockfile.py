"""The lock file of exact versions (``make lock``), recorded in every manifest."""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement

from torus_lab import runner
from torus_lab.lockfile import LOCK_FILE, lock_state, locked_versions, normalize_name

ROOT = runner.project_root()


def test_lock_pins_every_dependency_within_its_range():
    """requirements.lock (written by `make lock`) pins each dependency of pyproject.toml at a version its
    range allows: a dependency added or narrowed without `make lock` fails here."""
    pins = locked_versions((ROOT / LOCK_FILE).read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        name = normalize_name(requirement.name)
        assert name in pins, f"{name} is not in {LOCK_FILE}: run `make lock`"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} outside {line!r}: make lock"
        for extra in requirement.extras:  # e.g. dask[distributed]
            assert extra in pins, f"{extra} (extra of {name}) is not in {LOCK_FILE}"
    header = (ROOT / LOCK_FILE).read_text().splitlines()[:4]
    assert any("make lock" in line and "uv" in line for line in header)
    assert all(len(re.findall(r"--hash=sha256:", block)) >= 1
               for block in (ROOT / LOCK_FILE).read_text().split("==")[1:])  # fmt: skip


def test_lock_state_names_differing_packages(tmp_path):
    (tmp_path / LOCK_FILE).write_text("numpy==2.1.0 \\\n    --hash=sha256:00\nJupyter_Client==8.10.0\n")
    same = lock_state(tmp_path, installed={"numpy": "2.1.0", "jupyter-client": "8.10.0"})
    assert same["matches_environment"] and same["differing"] == [] and same["packages"] == 2
    other = lock_state(tmp_path, installed={"numpy": "2.0.0"})
    assert other["differing"] == ["jupyter-client: locked 8.10.0, installed none",
                                  "numpy: locked 2.1.0, installed 2.0.0"]
    assert other["sha256"] == same["sha256"] == runner.sha256(tmp_path / LOCK_FILE)
    assert lock_state(tmp_path / "no-project") is None

