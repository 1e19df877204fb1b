"""The report after `make book`: every failed cell listed with the command that re-runs its chapter."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def book_report():
    spec = importlib.util.spec_from_file_location("book_report", ROOT / "_ext" / "book_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def executed(folder: Path, name: str, outputs: list[list[dict]]) -> None:
    cells = [{"cell_type": "code", "source": "", "metadata": {}, "outputs": out} for out in outputs]
    path = folder / "jupyter_execute" / "notebooks" / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "# A", "metadata": {}}, *cells]}))


def test_the_report_lists_each_failed_cell_and_how_to_rerun_its_chapter(tmp_path, capsys):
    report = book_report()
    error = {"output_type": "error", "ename": "AssertionError", "evalue": "(440.2, 475)\nmore", "traceback": []}
    executed(tmp_path, "10_dqn", [[{"output_type": "stream", "name": "stdout", "text": "ok"}], [error]])
    executed(tmp_path, "20_policy_gradients", [[]])
    assert report.main([str(tmp_path)]) == 0  # the reader still gets the book
    out = capsys.readouterr().out
    assert "Executed 2 chapters" in out and "1 cell(s) failed" in out
    assert "10_dqn, cell 2: AssertionError: (440.2, 475)" in out and "make chapter NB=10_dqn" in out
    assert "20_policy_gradients" not in out
    assert report.main([str(tmp_path), "--strict"]) == 1


def test_a_clean_build_says_so(tmp_path, capsys):
    report = book_report()
    executed(tmp_path, "01_environments_and_contracts", [[{"output_type": "stream", "name": "stdout", "text": "x"}]])
    assert report.main([str(tmp_path), "--strict"]) == 0
    assert "Every cell ran without an error." in capsys.readouterr().out


def test_the_book_is_built_with_errors_shown_not_fatal():
    config = (ROOT / "_config.yml").read_text()
    assert "allow_errors: true" in config
    assert "_ext/book_report.py" in (ROOT / "Makefile").read_text()
