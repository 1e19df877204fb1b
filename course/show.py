"""What a chapter shows: rlkit's own source (the torch and TensorFlow twins side by side) and sliders.

The book shows the twins in tabs (``literalinclude`` of the same functions); in JupyterLab, where those
directives are not rendered, :func:`side_by_side` displays the two sources in two columns. A tab often holds
several functions, so both arguments may be lists: the columns then show every function in the order given,
as the tabs do.

:func:`interact` is ``ipywidgets.interact`` for a course that is read both live and as an HTML book.
"""

from __future__ import annotations

import html
import inspect
import re
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


SLIDER_NOTE = (
    "Shown at the sliders' starting values. The sliders move in a live notebook: "
    "JupyterLab (`make lab`) or Colab (the rocket button at the top of the page)."
)


def _static_html(captured: Any) -> str:
    """The figures and text that one call of an interact function displayed, as HTML with the images inline."""
    parts = []
    for output in captured.outputs:
        if "image/png" in output.data:
            parts.append(f"<img src='data:image/png;base64,{output.data['image/png']}' alt='figure' />")
        elif "text/html" in output.data:
            parts.append(output.data["text/html"])
        else:
            parts.append(f"<pre>{html.escape(output.data.get('text/plain', ''))}</pre>")
    if captured.stdout:
        parts.append(f"<pre>{html.escape(captured.stdout)}</pre>")
    note = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(SLIDER_NOTE))
    parts.append(f"<p class='rlkit-slider-note'><em>{note}</em></p>")
    return "\n".join(parts)


def interact(function: Any, /, **controls: Any) -> None:
    """``ipywidgets.interact`` that also leaves a static figure for readers of the built book.

    A slider needs a running kernel: in the HTML book it cannot move, and ``ipywidgets.interact`` leaves
    nothing there but a dead control. This shows one output with two renderings: the live widget, which
    JupyterLab and Colab pick, and the function's output at the sliders' starting values with a line
    saying where the slider works, which the book picks (``_config.yml`` ranks the widget view below
    HTML). The function runs once more for the static rendering; interact functions here are cheap.
    """
    try:
        import ipywidgets
        from IPython.display import display
        from IPython.utils.capture import capture_output
    except ImportError as error:
        raise ImportError(
            "course.show.interact needs ipywidgets and IPython, which the book extra installs: "
            "pip install 'rlkit-course[book]'"
        ) from error

    widget = ipywidgets.interactive(function, **controls)
    with capture_output(stdout=True, stderr=False, display=True) as captured:
        function(**widget.kwargs)
    bundle = {
        "application/vnd.jupyter.widget-view+json": {
            "version_major": 2,
            "version_minor": 0,
            "model_id": widget.model_id,
        },
        "text/html": _static_html(captured),
        "text/plain": f"{captured.stdout}{SLIDER_NOTE}",
    }
    display(bundle, raw=True)
