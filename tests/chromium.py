"""The system Chromium for the browser tests: Debian's package driven by Playwright, never a downloaded browser.

``make test`` installs the package when it runs as root (the ``browser`` target); elsewhere a test that needs it
is skipped, except in CI, where a missing browser fails it. Screenshots go to ``ARTIFACTS`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Screenshots and other things a browser test keeps for a reader (git-ignored).
ARTIFACTS = ROOT / "test-artifacts"
#: Headless flags: no sandbox (containers), no GPU, nothing fetched in the background.
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync")  # fmt: skip


def require_chromium() -> str:
    """The path of the system Chromium; skips the test (fails it in CI) when there is none."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI: `make test` should have installed it")
        pytest.skip("chromium not installed (make test installs it when run as root)")
    return executable


def launch(playwright):
    """A headless system Chromium started through ``playwright`` (a ``sync_playwright()`` context)."""
    return playwright.chromium.launch(executable_path=require_chromium(), args=list(CHROMIUM_ARGS))
