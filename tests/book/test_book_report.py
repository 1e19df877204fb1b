"""`make book`'s two steps around the build: the chapters executed in parallel into the build's cache, and the
report of every failed cell with the command that re-runs its chapter."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupyter_cache")


def script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chapter(folder: Path, name: str, *sources: str) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "notebooks" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def cached(build: Path, path: Path, outputs: list[list[dict]], seconds: float) -> None:
    """Put ``path`` into the build's cache as if executed, with these outputs per cell."""
    from jupyter_cache import get_cache

    notebook = nbformat.read(path, as_version=4)
    for count, (cell, cell_outputs) in enumerate(zip(notebook.cells, outputs, strict=True), start=1):
        cell.outputs, cell.execution_count = [nbformat.from_dict(o) for o in cell_outputs], count
    executed = path.with_name(path.stem + ".executed.ipynb")
    nbformat.write(notebook, executed)
    get_cache(str(build / ".jupyter_cache")).cache_notebook_file(
        executed, uri=str(path), data={"execution_seconds": seconds}, check_validity=False
    )
    executed.unlink()


def test_the_report_lists_each_failed_cell_and_how_to_rerun_its_chapter(tmp_path, capsys):
    report, build = script("book_report"), tmp_path / "_build"
    error = {"output_type": "error", "ename": "AssertionError", "evalue": "(440.2, 475)\nmore", "traceback": []}
    stream = {"output_type": "stream", "name": "stdout", "text": "ok"}
    cached(build, chapter(tmp_path, "10_dqn", "print('ok')", "assert False"), [[stream], [error]], 150.0)
    cached(build, chapter(tmp_path, "20_policy_gradients", "x = 1"), [[]], 30.0)
    chapter(tmp_path, "30_ddpg", "while True: pass")  # never executed: no record in the cache
    chapters = str(tmp_path / "notebooks")
    assert report.main([str(build), "--chapters", chapters]) == 0  # the reader still gets the book
    out = capsys.readouterr().out
    assert "Executed 3 chapters (3.0 min" in out and "2 cell(s) failed" in out
    assert "10_dqn, cell 1: AssertionError: (440.2, 475)" in out and "make chapter NB=10_dqn" in out
    assert "30_ddpg: not executed" in out and "20_policy_gradients," not in out
    assert "Chapters over 120 s on this machine:\n  10_dqn: 150 s" in out
    assert report.main([str(build), "--chapters", chapters, "--strict"]) == 1


def test_a_clean_build_says_so(tmp_path, capsys):
    report, build = script("book_report"), tmp_path / "_build"
    cached(build, chapter(tmp_path, "01_environments", "x = 1"), [[]], 5.0)
    assert report.main([str(build), "--chapters", str(tmp_path / "notebooks"), "--strict"]) == 0
    assert "Every cell ran without an error." in capsys.readouterr().out


def test_the_chapters_run_in_the_toc_order_and_the_book_keeps_errors(tmp_path):
    chapters = script("execute_chapters").chapters_in_toc(ROOT)
    assert chapters[0].name == "00_setup.ipynb" and len(chapters) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    assert "allow_errors: true" in (ROOT / "_config.yml").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert makefile.index("_ext/execute_chapters.py") < makefile.index("jupyter-book build . -W")
    assert makefile.index("jupyter-book build . -W") < makefile.index("_ext/book_report.py")
