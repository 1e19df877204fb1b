"""The book builds with warnings treated as errors, and reads right in a real browser with the network cut.

One build serves every test here. The chapters are executed once by nbval (``make test``), so this build
runs only the cells that one slider chapter's sliders need, whose static figures are then checked; ``make
book`` builds the reader's book with every chapter executed, and ``make browser-test`` points these tests at
it (``RLKIT_BOOK_HTML``) to check the static figure of every slider chapter.

Each page is opened once in Debian's chromium at a laptop's viewport, every request off this machine
blocked; what the page did (console errors, failed requests, images, math, tabs, code widths, the Colab
button, slider figures) is recorded, and each test below asserts one part of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient

from tests.browser.browser_support import (
    ROOT,
    cells_needed,
    is_loopback,
    offline_browser,
    slider_cells,
    slider_chapters,
    static_server,
)

EXECUTED_CHAPTER = "30_ddpg"  # the slider chapter whose slider cells are executed for this build
COLUMNS = 85  # what the code shown in the framework tabs is wrapped to
CHAPTERS = sorted(path.stem for path in (ROOT / "notebooks").glob("*.ipynb"))
SLIDER_CHAPTERS = slider_chapters()


def colab_link_pattern() -> str:
    """Where a chapter's Colab button must lead, from the repository and launch settings in ``_config.yml``."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    repository = config["repository"]["url"].removeprefix("https://github.com/")
    colab = config["launch_buttons"]["colab_url"]
    return f"{colab}/github/{repository}/blob/{config['repository']['branch']}/notebooks/{{}}.ipynb"


COLAB = colab_link_pattern()

# Everything a test below needs from one page, gathered in the page by one script. Framework tab sets are
# switched to each of their tabs in turn: a tab's code is measured while it is the visible one.
PAGE_FACTS = """async () => {
  if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
  const images = [];
  for (const img of document.images) {
    let colours = 0;
    try {
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = Math.min(img.naturalWidth, 400); canvas.height = Math.min(img.naturalHeight, 300);
      const context = canvas.getContext('2d');
      context.drawImage(img, 0, 0, canvas.width, canvas.height);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const seen = new Set();
      for (let i = 0; i < pixels.length; i += 4) { seen.add(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]); }
      colours = seen.size;
    } catch (error) {}
    images.push({src: img.src.slice(0, 120), width: img.naturalWidth, colours: colours,
                 slider: img.closest('.cell_output') !== null
                         && img.closest('.cell_output').querySelector('.rlkit-slider-note') !== null});
  }
  const math = Array.from(document.querySelectorAll('span.math, div.math'));
  const tabSets = [];
  for (const set of document.querySelectorAll('.sd-tab-set')) {
    const labels = Array.from(set.querySelectorAll(':scope > label.sd-tab-label'));
    const tabs = [];
    for (const label of labels) {
      label.click();
      const content = document.getElementById(label.getAttribute('aria-controls'));
      const pres = Array.from(content.querySelectorAll('pre'));
      let columns = 0;
      if (pres.length) {
        const probe = document.createElement('span');
        probe.textContent = 'x'.repeat(100);
        pres[0].appendChild(probe);
        const style = getComputedStyle(pres[0]);
        const inner = pres[0].clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        columns = inner / (probe.getBoundingClientRect().width / 100);
        probe.remove();
      }
      const visible = Array.from(set.querySelectorAll(':scope > .sd-tab-content'))
        .filter(element => element.offsetParent !== null).map(element => element.id);
      tabs.push({label: label.textContent.trim(), visible: visible, id: content.id,
                 codes: pres.map(pre => pre.innerText),
                 columns: columns,
                 overflowing: pres.filter(pre => pre.scrollWidth > pre.clientWidth).map(pre =>
                   Math.max(...pre.innerText.split('\\n').map(line => line.length)))});
    }
    tabSets.push(tabs);
  }
  const sliderOutputs = Array.from(document.querySelectorAll('.rlkit-slider-note')).map(note => {
    const output = note.closest('.cell_output');
    return {images: output ? output.querySelectorAll('img').length : 0,
            text: output ? Array.from(output.querySelectorAll('pre')).map(pre => pre.innerText).join('') : '',
            note: note.innerText};
  });
  return {
    images: images,
    math: math.length,
    typeset: math.filter(element => element.querySelector('mjx-container') !== null).length,
    mathErrors: document.querySelectorAll('mjx-merror').length,
    tabSets: tabSets,
    colab: Array.from(document.querySelectorAll('a[href*="colab.research.google.com"]')).map(a => a.href),
    sliderOutputs: sliderOutputs,
    widgetViews: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
  };
}"""


@dataclass
class Book:
    """A built book: its HTML folder, the build's output (None for a book built elsewhere), and which slider
    chapters were executed in it."""

    html: Path
    log: str | None
    executed: list[str]


def _book_sources(folder: Path) -> None:
    """The book's sources in ``folder``: the chapters copied (one of them gets outputs there), the rest linked."""
    shutil.copytree(ROOT / "notebooks", folder / "notebooks")
    for name in ("_toc.yml", "book", "_static", "_ext", "rlkit", "course"):  # the chapters include their source
        (folder / name).symlink_to(ROOT / name)


def _execute_slider_cells(path: Path) -> None:
    """Run, in one kernel, only the cells the chapter's sliders need (``cells_needed``), storing their outputs.

    The chapter's training runs are not among them: nbval runs those, and the figures checked here are the
    sliders'.
    """
    notebook = nbformat.read(path, as_version=4)
    needed = sorted({index for target in slider_cells(notebook) for index in cells_needed(notebook, target)})
    client = NotebookClient(notebook, timeout=600, resources={"metadata": {"path": str(path.parent)}})
    with client.setup_kernel():
        for index in needed:
            client.execute_cell(notebook.cells[index], index)
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> Book:
    given = os.environ.get("RLKIT_BOOK_HTML")
    if given:
        return Book(Path(given), None, SLIDER_CHAPTERS)
    tmp_path = tmp_path_factory.mktemp("book")
    source = tmp_path / "source"
    _book_sources(source)
    _execute_slider_cells(source / "notebooks" / f"{EXECUTED_CHAPTER}.ipynb")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["execute"]["execute_notebooks"] = "off"  # the outputs shown are the ones stored just above
    # the configuration is read from tmp_path: its local extensions must be found from the repository
    extensions = config["sphinx"]["local_extensions"]
    config["sphinx"]["local_extensions"] = {name: str(ROOT / folder) for name, folder in extensions.items()}
    config_path = tmp_path / "_config.yml"
    config_path.write_text(yaml.safe_dump(config))
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    if not jupyter_book.is_file():
        pytest.skip("jupyter-book is not installed: pip install -e '.[book]'")
    command = [str(jupyter_book), "build", str(source), "--config", str(config_path), "--path-output", str(tmp_path)]
    result = subprocess.run([*command, "-W", "--keep-going"], capture_output=True, text=True, timeout=900)
    log = f"exit status {result.returncode}\n{result.stdout[-5000:]}{result.stderr[-5000:]}"
    return Book(tmp_path / "_build" / "html", log, [EXECUTED_CHAPTER])


@pytest.fixture(scope="module")
def pages(book: Book, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """What every page of the book did in the browser, by path relative to the HTML folder."""
    found = {}
    paths = sorted(path.relative_to(book.html).as_posix() for path in book.html.rglob("*.html"))
    paths = [path for path in paths if not path.startswith("_")]  # _static, _sources: not pages of the book
    # index.html only redirects (to the introduction, which is visited anyway)
    paths = [path for path in paths if 'http-equiv="Refresh"' not in (book.html / path).read_text()[:300]]
    with static_server(book.html) as base, offline_browser(tmp_path_factory.mktemp("chromium")) as (context, blocked):
        for path in paths:
            found[path] = {**_visit(context, f"{base}/{path}"), "blocked": list(blocked)}
            blocked.clear()
    return found


def _visit(context, url: str) -> dict:
    """Open one page in a new tab; its facts (PAGE_FACTS) and every error it caused on this machine."""
    problems: list[str] = []

    def failed(request) -> None:  # requests blocked off this machine are recorded apart, by offline_browser
        if is_loopback(request.url):
            problems.append(f"failed: {request.url} ({request.failure})")

    page = context.new_page()
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("requestfailed", failed)
    page.on(
        "response",
        lambda response: problems.append(f"{response.status}: {response.url}") if response.status >= 400 else None,
    )
    page.goto(url, wait_until="load")
    facts = page.evaluate(PAGE_FACTS)
    page.close()
    return {**facts, "problems": problems}


def test_book_builds_without_warnings(book: Book):
    if book.log is None:
        pytest.skip("a book built by `make book` (RLKIT_BOOK_HTML), which builds with -W itself")
    assert book.log.startswith("exit status 0"), book.log
    page = (book.html / "notebooks" / "10_dqn.html").read_text()
    assert "sd-tab-set" in page and page.count("td_targets") >= 2  # rlkit's own source, in tabs
    assert "colab.research.google.com" in page  # the launch button


def test_every_page_loads_without_errors(pages: dict[str, dict]):
    assert len(pages) > len(CHAPTERS)  # every chapter, the prose pages, the index and search
    problems = {path: facts["problems"] for path, facts in pages.items() if facts["problems"]}
    assert not problems, problems


def test_nothing_is_fetched_from_off_this_machine(pages: dict[str, dict]):
    """MathJax, fonts and scripts all come from the book: it reads the same offline."""
    blocked = {path: facts["blocked"] for path, facts in pages.items() if facts["blocked"]}
    assert not blocked, blocked


def test_every_image_decodes(pages: dict[str, dict]):
    images = [(path, image) for path, facts in pages.items() for image in facts["images"]]
    broken = [(path, image["src"]) for path, image in images if image["width"] == 0]
    assert not broken, broken


def test_math_is_typeset_with_the_network_cut(pages: dict[str, dict]):
    with_math = {path: facts for path, facts in pages.items() if facts["math"]}
    assert len(with_math) >= 10  # most chapters have equations
    untypeset = {path: (f["typeset"], f["math"]) for path, f in with_math.items() if f["typeset"] != f["math"]}
    assert not untypeset, untypeset
    assert not {path: f["mathErrors"] for path, f in with_math.items() if f["mathErrors"]}


def _shown_in(code: str, sources: list[str]) -> bool:
    """Whether a code block of the page is a verbatim excerpt of one of the source files."""
    lines = [line.rstrip() for line in code.strip("\n").splitlines()]
    return any("\n".join(lines) in source for source in sources)


def test_framework_tabs_switch_to_the_tensorflow_source(pages: dict[str, dict]):
    twins = {
        "PyTorch": [path.read_text() for path in (ROOT / "rlkit").rglob("torch*.py")],
        "TensorFlow": [
            path.read_text() for path in [*(ROOT / "rlkit").rglob("tf*.py"), *(ROOT / "rlkit").rglob("keras*.py")]
        ],
    }
    tab_sets = [(path, tabs) for path, facts in pages.items() for tabs in facts["tabSets"]]
    framework_sets = [(path, tabs) for path, tabs in tab_sets if tabs[0]["label"] == "PyTorch"]
    assert len(framework_sets) >= 10
    for path, tabs in framework_sets:
        assert [tab["label"] for tab in tabs][:2] == ["PyTorch", "TensorFlow"], path
        for tab in tabs[:2]:
            assert tab["visible"] == [tab["id"]], (path, f"after a click on {tab['label']}, only its tab shows")
            assert tab["codes"], (path, tab["label"])
            for code in tab["codes"]:
                assert _shown_in(code, twins[tab["label"]]), (path, tab["label"], code[:200])


def test_framework_tabs_give_code_the_full_column(pages: dict[str, dict]):
    """At a laptop's viewport, the tabs are wide enough for code wrapped to 85 columns."""
    widths = [tab["columns"] for facts in pages.values() for tabs in facts["tabSets"] for tab in tabs if tab["columns"]]
    assert widths and min(widths) >= COLUMNS, sorted(widths)[:5]


def test_code_in_framework_tabs_does_not_scroll_sideways(pages: dict[str, dict]):
    overflowing = {
        (path, tab["label"]): tab["overflowing"]
        for path, facts in pages.items()
        for tabs in facts["tabSets"]
        for tab in tabs
        if tab["overflowing"]
    }
    assert not overflowing, f"code blocks wider than the tab (longest line of each): {overflowing}"


def test_colab_button_opens_the_chapters_own_notebook(pages: dict[str, dict]):
    for name in CHAPTERS:
        assert COLAB.format(name) in pages[f"notebooks/{name}.html"]["colab"], name


def test_slider_cells_show_a_static_figure_and_where_the_slider_works(book: Book, pages: dict[str, dict]):
    for name in book.executed:
        facts = pages[f"notebooks/{name}.html"]
        notebook = json.loads((ROOT / f"notebooks/{name}.ipynb").read_text())
        outputs = facts["sliderOutputs"]
        assert len(outputs) == len(slider_cells(notebook)), name
        for output in outputs:
            assert "JupyterLab" in output["note"] and "Colab" in output["note"], output["note"]
            assert output["images"] or output["text"].strip(), (name, "a slider cell with nothing to show")
        figures = [image for image in facts["images"] if image["slider"]]
        assert all(image["width"] >= 300 and image["colours"] >= 50 for image in figures), (name, figures)
        assert facts["widgetViews"] == 0, name  # a widget that cannot run is not shown
    all_figures = [
        image for name in book.executed for image in pages[f"notebooks/{name}.html"]["images"] if image["slider"]
    ]
    assert all_figures  # the executed chapters' sliders drew figures
