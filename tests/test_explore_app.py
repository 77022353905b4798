"""``torus-lab explore`` for real: the served web app driven in the system Chromium, then stopped by a signal.

The command runs in its own session, its processes (the command, Voilà, the notebook's kernel) tagged through the
environment as in ``test_signals.py``. The page is loaded (the disjoint-paths explorer's verdict is there too), the
routing and one of its options are changed, a value the registry refuses is typed, and a node is clicked on the
figure's canvas; after each step the verdict text and the figure (a screenshot of the canvas) must change.
Screenshots are kept in ``test-artifacts/`` (git-ignored). SIGTERM then stops the command with status 143 and leaves
no process (SIGINT and SIGHUP: ``test_signals.py``).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid

import pytest
from chromium import ARTIFACTS, launch, require_chromium
from test_signals import EXIT_WAIT_S, READY_WAIT_S, assert_clean_stop, free_port, start_explore_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Milliseconds the page may take for its kernel to run the notebook (start, imports, compiled kernels).
PAGE_WAIT_MS = READY_WAIT_S * 1000


def _canvas_png(page) -> str:
    """The figure as the page shows it: the image on ipympl's canvas (a data URL; no focus ring, no cursor)."""
    return page.evaluate("document.querySelector('.torus-lab-figure canvas').toDataURL()")


def _changed(page, before_text: str, before_png: str, expect: str) -> tuple[str, str]:
    """Wait until the verdict text holds ``expect`` and differs from ``before_text``, and the figure differs from
    ``before_png`` (then until it stays the same for half a second: drawn); returns both."""
    page.wait_for_function("([old, want]) => { const t = (document.querySelector('.torus-lab-verdict') || {})"
                           ".innerText || ''; return t !== old && t.includes(want); }", arg=[before_text, expect],
                           timeout=PAGE_WAIT_MS)  # fmt: skip
    text = page.inner_text(".torus-lab-verdict")
    deadline = time.monotonic() + 60
    png = _canvas_png(page)
    while png == before_png and time.monotonic() < deadline:
        time.sleep(0.25)
        png = _canvas_png(page)
    assert png != before_png, f"the figure did not change (expected: {expect})"
    time.sleep(0.5)
    while (latest := _canvas_png(page)) != png and time.monotonic() < deadline:
        png = latest
        time.sleep(0.5)
    return text, png


def _node_pixel(node: tuple[int, int], routing: str, options: dict) -> tuple[float, float]:
    """Where ``node`` is on the explorer's canvas, in CSS pixels from its top left (the same figure, drawn here)."""
    from torus_lab.explore.routing import routing_explorer

    explorer = routing_explorer(routing=routing, options=options)
    fig = explorer.figure
    fig.canvas.draw()
    x, y = fig.axes[0].transData.transform(node)
    height = fig.get_figheight() * fig.dpi
    explorer.close()
    return float(x), float(height - y)


def test_the_served_explorer_works_in_chromium_and_stops_on_sigterm(tmp_path):
    require_chromium()
    from playwright.sync_api import sync_playwright

    port = free_port()
    run = start_explore_app(tmp_path, port)
    errors: list[str] = []
    shots = ARTIFACTS / "explore"
    shots.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1100})
                page.set_default_timeout(PAGE_WAIT_MS)
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.goto(f"http://127.0.0.1:{port}/", wait_until="load", timeout=PAGE_WAIT_MS)
                page.wait_for_selector(".torus-lab-verdict", state="visible")
                page.wait_for_function("(document.querySelector('.torus-lab-verdict') || {}).innerText"
                                       "?.includes('channel dependency graph')")  # fmt: skip
                blank = page.evaluate("(() => { const shown = document.querySelector('.torus-lab-figure canvas');"
                                      " const c = document.createElement('canvas'); c.width = shown.width;"
                                      " c.height = shown.height; return c.toDataURL(); })()")  # fmt: skip
                text0 = page.inner_text(".torus-lab-verdict")
                _, png0 = _changed(page, "", blank, "channel dependency graph")  # the canvas's first image
                page.screenshot(path=str(shots / "1-loaded.png"))
                assert "ecube on Torus(2, 4)" in text0 and "cyclic, a deadlock" in text0
                assert "Theorem 1's bound" in page.inner_text(".torus-lab-disjoint-verdict")  # a paper explorer too

                page.select_option(".torus-lab-routing select", label="duato")  # another routing
                text1, png1 = _changed(page, text0, png0, "Duato's condition holds")
                page.screenshot(path=str(shots / "2-duato.png"))

                page.select_option(".torus-lab-option-tie select", label="-")  # one of its options: ties go -
                text2, png2 = _changed(page, text1, png1, "(tie=-)")
                page.screenshot(path=str(shots / "3-tie-minus.png"))

                page.select_option(".torus-lab-routing select", label="ecube")
                text3, png3 = _changed(page, text2, png2, "ecube on")
                page.check(".torus-lab-option-datelines input")  # refused with one VC: the registry's message
                page.wait_for_function("(document.querySelector('.torus-lab-message') || {}).innerText"
                                       "?.includes('datelines need vcs >= 2, got vcs=1')")  # fmt: skip
                page.screenshot(path=str(shots / "4-refused.png"))
                assert "Traceback" not in page.inner_text("body")
                page.fill(".torus-lab-option-vcs input", "2")
                page.press(".torus-lab-option-vcs input", "Enter")
                text4, png4 = _changed(page, "", png3, "acyclic (deadlock-free)")
                assert not page.inner_text(".torus-lab-message").strip()

                box = page.locator(".torus-lab-figure canvas").first.bounding_box()
                x, y = _node_pixel((3, 3), "ecube", {"datelines": True, "vcs": 2})
                scale = box["width"] / 600
                page.mouse.click(box["x"] + x * scale, box["y"] + y * scale)  # click sets the source
                _changed(page, text4, png4, "preferred route (3, 3) -> (2, 1)")
                page.screenshot(path=str(shots / "5-clicked.png"))
            finally:
                browser.close()
    finally:
        status, err = run.stop(signal.SIGTERM)
    assert not errors, f"page errors: {errors}"
    assert_clean_stop(status, err, signal.SIGTERM)
    run.assert_no_process_left()


def test_bad_port_and_notebook_are_refused_with_exit_2(tmp_path):
    from torus_lab import cli

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        command = [sys.executable, "-m", "torus_lab.cli", "explore", "--port", str(port)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=EXIT_WAIT_S,
                              env={**os.environ, "TORUS_LAB_TEST_TAG": uuid.uuid4().hex})  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"torus-lab: error: --port {port}: 127.0.0.1:{port} is in use; choose another port"
    with pytest.raises(SystemExit) as refused:
        cli.main(["explore", "--port", "70000"])
    assert refused.value.code == 2
    missing = tmp_path / "nope.ipynb"
    assert cli.main(["explore", "--notebook", str(missing), "--port", str(free_port())]) == 2
