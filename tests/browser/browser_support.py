"""What the browser tests share: Debian's chromium driven by Playwright, a local static server, a cut network.

The tests use the system's ``chromium`` (``apt-get install chromium``), never a browser that Playwright
downloads. Where chromium or the ``browser`` extra is missing they are skipped with what to install, except on
CI (``CI`` set), where a missing part is a failure: there ``.ci/run`` installs both.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import http.server
import json
import os
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
# what works for Debian's chromium in a container: no sandbox (root), no GPU, nothing fetched in the background
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LAPTOP_VIEWPORT = {"width": 1366, "height": 768}  # the most common laptop screen
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _missing(message: str) -> None:
    """Skip on a developer's machine, fail on CI, where the project's set-up installs everything."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium_path() -> str:
    """Debian's chromium (or ``RLKIT_CHROMIUM``), or a skip that says what to install."""
    path = os.environ.get("RLKIT_CHROMIUM") or shutil.which("chromium")
    if path is None:
        _missing(
            "the browser tests need Debian's chromium: sudo apt-get install chromium "
            "(or set RLKIT_CHROMIUM to a Chromium binary)"
        )
    return path


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def is_loopback(url: str) -> bool:
    """Whether a request stays on this machine (data: and blob: URLs never leave the page)."""
    parsed = urlparse(url)
    return parsed.scheme in ("data", "blob", "about") or parsed.hostname in LOOPBACK


@contextlib.contextmanager
def static_server(directory: Path) -> Iterator[str]:
    """Serve a folder on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's signature
        pass


@contextlib.contextmanager
def offline_browser(user_data_dir: Path) -> Iterator[tuple[Any, list[str]]]:
    """A fresh headless chromium whose every non-loopback request is blocked.

    Yields the browser context and the list of URLs it tried to reach off this machine: a book that works
    offline leaves it empty.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the browser tests need Playwright, from the browser extra: pip install -e '.[browser]'")
    executable = chromium_path()
    blocked: list[str] = []

    def route(request_route: Any) -> None:
        if is_loopback(request_route.request.url):
            request_route.continue_()
        else:
            blocked.append(request_route.request.url)
            request_route.abort("internetdisconnected")

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(user_data_dir),
            executable_path=executable,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=LAPTOP_VIEWPORT,
        )
        try:
            context.set_default_timeout(90_000)  # a machine busy with the rest of the suite is slow, not broken
            context.route("**/*", route)
            yield context, blocked
        finally:
            context.close()


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell binds and the names it reads without binding them itself (an over-estimate of both)."""
    from IPython.core.inputtransformer2 import TransformerManager

    tree = ast.parse(TransformerManager().transform_cell(source))
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            bound.update(arg.arg for arg in ast.walk(node.args) if isinstance(arg, ast.arg))
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound, read - bound


def _source(cell: dict) -> str:
    """A cell's source: a notebook file stores it as a list of lines, nbformat as one string."""
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def slider_cells(notebook: dict) -> list[int]:
    """Indices of the code cells that call ``interact(...)`` (course.show.interact) at top level."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code" or "interact(" not in _source(cell):
            continue
        tree = ast.parse(_source(cell))
        calls = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
        ]
        if any(call.func.id == "interact" for call in calls):
            found.append(index)
    return found


def slider_chapters() -> list[str]:
    """The chapters (notebook names) with at least one slider cell."""
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    return [path.stem for path in paths if slider_cells(json.loads(path.read_text()))]


def cells_needed(notebook: dict, target: int) -> list[int]:
    """The code cells, in order, that a cell needs run before it: the latest earlier binder of each name it reads."""
    needed = {target}
    wanted = _names(_source(notebook["cells"][target]))[1]
    for index in range(target - 1, -1, -1):
        cell = notebook["cells"][index]
        if cell["cell_type"] != "code":
            continue
        bound, read = _names(_source(cell))
        if bound & wanted:
            needed.add(index)
            wanted = (wanted - bound) | read
    return sorted(needed)
