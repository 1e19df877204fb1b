"""Showing rlkit's own source in a notebook: the torch and TensorFlow twins side by side.

The book shows the twins in tabs (``literalinclude`` of the same functions); in JupyterLab, where those
directives are not rendered, :func:`side_by_side` displays the two sources in two columns. A tab often holds
several functions, so both arguments may be lists: the columns then show every function in the order given,
as the tabs do.
"""

from __future__ import annotations

import html
import inspect
from collections.abc import Sequence
from typing import Any


def _sources(objects: Any | Sequence[Any]) -> str:
    """The source of one object, or of several joined by a blank line (a list or tuple of objects)."""
    if not isinstance(objects, list | tuple):
        objects = [objects]
    if not objects:
        raise ValueError("side_by_side needs at least one object per framework")
    return "\n\n".join(inspect.getsource(obj) for obj in objects)


def side_by_side(torch_objects: Any, tf_objects: Any, titles: tuple[str, str] = ("PyTorch", "TensorFlow")):
    """An HTML table with the source of the torch objects next to that of their TensorFlow twins.

    Each argument is a function, method or class, or a list of them (shown one after the other).
    """
    from IPython.display import HTML

    columns = []
    for title, objects in zip(titles, (torch_objects, tf_objects), strict=True):
        source = html.escape(_sources(objects))
        columns.append(
            f"<td style='vertical-align:top;width:50%'><b>{title}</b>"
            f"<pre style='font-size:11px;white-space:pre-wrap'>{source}</pre></td>"
        )
    return HTML(f"<table style='width:100%'><tr>{''.join(columns)}</tr></table>")
