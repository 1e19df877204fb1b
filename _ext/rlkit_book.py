"""Sphinx fixes for the rlkit book, loaded by ``_config.yml`` (``sphinx.local_extensions``).

Jupyter Book 1 registers sphinx-thebe's inline configuration script twice, so every page declared
``const THEBE_JS_URL`` twice and the browser reported a SyntaxError on every page. Each page now gets each
script once.
"""

from __future__ import annotations

from typing import Any


def _script_key(script: Any) -> tuple:
    """What makes two script entries the same: the file and the attributes (an inline script has its body there).

    The second copy of the thebe script names its missing file ``''`` where the first has ``None``.
    """
    return getattr(script, "filename", script) or "", tuple(sorted(getattr(script, "attributes", {}).items()))


def unique_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Drop repeated entries from the page's script list, keeping the first of each."""
    seen: set[tuple] = set()
    unique = []
    for script in context.get("script_files", []):
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app: Any) -> dict:
    app.connect("html-page-context", unique_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
