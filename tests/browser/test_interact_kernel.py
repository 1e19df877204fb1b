"""``course.show.interact`` in a real kernel, without a browser: what the book and JupyterLab each get.

The browser tests see the two renderings on screen; this checks the output itself, on machines without
chromium too: one output holding a live widget (its model is in the notebook's widget state) and, for the
book, the function's figure and printed text at the slider's starting value with the line saying where the
slider works.
"""

from __future__ import annotations

import base64
import re

import nbformat
from nbclient import NotebookClient

CELL = """\
import matplotlib.pyplot as plt
from ipywidgets import FloatSlider
from course.show import interact


def show(scale=1.0):
    plt.plot([0, 1], [0, scale])
    plt.show()
    print(f"scale {scale}")


interact(show, scale=FloatSlider(value=2.0, min=0.0, max=3.0));
"""


def test_one_output_holds_the_live_widget_and_the_books_static_figure():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    assert len(outputs) == 1, outputs  # nothing else: the widget's own run goes into the widget
    data = outputs[0]["data"]
    model_id = data["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert model_id in notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    html = data["text/html"]
    images = re.findall(r"<img src='data:image/png;base64,([^']+)'", html)
    assert len(images) == 1 and base64.b64decode(images[0]).startswith(b"\x89PNG")
    assert "scale 2.0" in html  # the starting value, not the function's default
    assert "JupyterLab" in html and "Colab" in html
    assert "scale 2.0" in data["text/plain"]
