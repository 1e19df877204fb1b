"""The sliders work in a real JupyterLab: run a chapter's slider cell, drag the slider, and the output changes.

JupyterLab is started on a free loopback port with a token, on copies of the chapters (nothing is saved
into the repository), and driven in Debian's chromium. Only the cells a slider needs are run (found from the
names each cell binds and reads, ``cells_needed``), not the chapter's training runs. ``make test`` checks two
chapters; ``make browser-test`` (``RLKIT_ALL_SLIDERS=1``) checks every slider chapter.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.browser_support import ROOT, cells_needed, free_port, offline_browser, slider_cells, slider_chapters

SLIDER_CHAPTERS = slider_chapters()
assert len(SLIDER_CHAPTERS) >= 8, SLIDER_CHAPTERS
# a figure slider (30) and a chapter with two sliders, one of which prints text (11)
CHECKED = SLIDER_CHAPTERS if os.environ.get("RLKIT_ALL_SLIDERS") else ["11_dqn_pitfalls", "30_ddpg"]
# JupyterLab's settings for a test: every cell in the page (no virtual scrolling), no autosave, no news prompt
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
}
CELL_TIMEOUT_MS = 120_000


@contextlib.contextmanager
def jupyterlab(root: Path, home: Path) -> Iterator[str]:
    """JupyterLab serving ``root`` on a free loopback port; yields its URL with the token."""
    for name, values in SETTINGS.items():
        path = home / "settings" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
    }
    port, token = free_port(), secrets.token_hex(16)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1"]
    command += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}"]
    # CI runs as root; the extension manager would ask PyPI for extensions
    command += [f"--ServerApp.root_dir={root}", "--allow-root", "--LabApp.extension_manager=readonly"]
    log_path = home / "jupyterlab.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start:\n{log_path.read_text()[-3000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as response,
            ):
                if response.status == 200:
                    break
            time.sleep(0.5)
        # a workspace of its own per chapter: a tab opens only that notebook, not those opened before
        yield f"{url}/lab/workspaces/{{0}}/tree/{{0}}.ipynb?reset&token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object, Path]]:
    """JupyterLab on copies of the checked chapters, a chromium to drive it, and a folder for screenshots."""
    root = tmp_path_factory.mktemp("chapters")
    for name in CHECKED:
        shutil.copy(ROOT / "notebooks" / f"{name}.ipynb", root)
    home = tmp_path_factory.mktemp("jupyter")
    with jupyterlab(root, home) as url, offline_browser(tmp_path_factory.mktemp("chromium")) as (context, _):
        yield url, context, tmp_path_factory.mktemp("screenshots")


class _Keyboard:
    """Runs cells the way a reader does from the keyboard: arrow keys to the cell, Ctrl+Enter to run it.

    Only the first cell is clicked (to give the notebook focus): a click further down can land on whatever
    JupyterLab shows over the cell at that moment on a busy machine, where keys always reach the notebook.
    """

    def __init__(self, page, cells) -> None:
        self.page, self.cells, self.current = page, cells, 0
        cells.nth(0).locator(".jp-InputPrompt").click()

    def run(self, index: int) -> None:
        """Run one cell and wait until the kernel has finished it; a traceback fails the test."""
        # the notebook itself in command mode, where the arrows move between cells (a dragged slider keeps the
        # focus, and its arrows would move the slider)
        self.page.locator(".jp-Notebook").first.focus()
        self.page.keyboard.press("Escape")
        step = "ArrowDown" if index > self.current else "ArrowUp"
        for _ in range(abs(index - self.current)):
            self.page.keyboard.press(step)
        self.current = index
        cell = self.cells.nth(index)
        self.page.wait_for_function("el => el.classList.contains('jp-mod-active')", arg=cell.element_handle())
        prompt = cell.locator(".jp-InputPrompt")
        for _ in range(5):  # a key pressed while JupyterLab is still connecting the kernel is lost: ask again
            self.page.keyboard.press("Control+Enter")
            deadline = time.monotonic() + 10
            while prompt.inner_text().strip() == "[ ]:" and time.monotonic() < deadline:
                time.sleep(0.2)
            if prompt.inner_text().strip() != "[ ]:":
                break
        deadline = time.monotonic() + CELL_TIMEOUT_MS / 1000
        while not re.fullmatch(r"\[\d+\]:", prompt.inner_text().strip()):
            if time.monotonic() > deadline:
                pytest.fail(f"the cell did not finish: {cell.inner_text()[-2000:]}")
            time.sleep(0.2)
        errors = cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
        text = " ".join(errors.all_inner_texts())
        assert "Traceback" not in text and "Error" not in text, text[-2000:]


def _shown(output) -> str:
    """What an output area shows: its text and its images' data (not the markup, which JupyterLab rebuilds)."""
    return output.evaluate("el => el.innerText + Array.from(el.querySelectorAll('img')).map(img => img.src).join()")


def _drag(page, widget) -> None:
    """Drag the widget's first slider with the mouse, 60 pixels towards the middle of its track (a slider that
    starts at an end, such as epsilon at 1.0, can only move one way)."""
    handle, track = widget.locator(".noUi-handle").first, widget.locator(".noUi-target").first
    handle.scroll_into_view_if_needed()
    box, track_box = handle.bounding_box(), track.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    towards_middle = 60 if x < track_box["x"] + track_box["width"] / 2 else -60
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + towards_middle, y, steps=8)
    page.mouse.up()


@pytest.mark.parametrize("chapter", CHECKED)
def test_dragging_the_slider_changes_the_output(chapter: str, lab):
    url, context, screenshots = lab
    notebook = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())
    page = context.new_page()
    page.goto(url.format(chapter))
    cells = page.locator(".jp-Notebook .jp-Cell")
    page.wait_for_function(f"document.querySelectorAll('.jp-Notebook .jp-Cell').length === {len(notebook['cells'])}")
    page.locator('.jp-Notebook-ExecutionIndicator[data-status="idle"]').wait_for(timeout=CELL_TIMEOUT_MS)
    keyboard, done = _Keyboard(page, cells), set()
    targets = slider_cells(notebook)
    assert targets, f"{chapter} has no slider cell"
    for target in targets:
        for index in cells_needed(notebook, target):
            if index not in done:
                keyboard.run(index)
                done.add(index)
        cell = cells.nth(target)
        widget = cell.locator(".widget-interact")
        widget.wait_for(timeout=CELL_TIMEOUT_MS)
        assert cell.locator(".rlkit-slider-note").count() == 0  # the live widget, not the book's static figure
        output = widget.locator(".widget-output")
        readout = widget.locator(".widget-readout").first
        page.wait_for_function(
            "el => el.innerText.trim().length > 0 || el.querySelector('img')", arg=output.element_handle()
        )
        before, before_value = _shown(output), readout.inner_text()
        cell.screenshot(path=str(screenshots / f"{chapter}-{target}-before.png"))
        _drag(page, widget)
        assert readout.inner_text() != before_value, "the slider did not move"
        deadline = time.monotonic() + 60
        while _shown(output) in (before, "") and time.monotonic() < deadline:
            time.sleep(0.2)
        cell.screenshot(path=str(screenshots / f"{chapter}-{target}-after.png"))
        assert _shown(output) not in (before, ""), f"the output did not change when the slider moved ({chapter})"
    page.close()
