"""Showing rlkit's own source in a notebook: the torch and TensorFlow twins side by side.

The book shows the twins in tabs (``literalinclude`` of the same functions); in JupyterLab, where those
directives are not rendered, :func:`side_by_side` displays the two sources in two columns.
"""

from __future__ import annotations

import html
import inspect


def side_by_side(torch_object, tf_object, titles: tuple[str, str] = ("PyTorch", "TensorFlow")):
    """An HTML table with the source of two objects (functions, methods, classes) next to each other."""
    from IPython.display import HTML

    columns = []
    for title, obj in zip(titles, (torch_object, tf_object), strict=True):
        source = html.escape(inspect.getsource(obj))
        columns.append(
            f"<td style='vertical-align:top;width:50%'><b>{title}</b>"
            f"<pre style='font-size:11px;white-space:pre-wrap'>{source}</pre></td>"
        )
    return HTML(f"<table style='width:100%'><tr>{''.join(columns)}</tr></table>")
