"""tools/prose_numbers.py finds the measured-looking numbers of chapter prose that no assert backs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import prose_numbers  # noqa: E402


def chapter(tmp_path: Path, markdown: str, code: str = "") -> Path:
    cells = [{"cell_type": "markdown", "source": [markdown]}, {"cell_type": "code", "source": [code]}]
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    return path


def test_a_measured_number_without_an_assert_is_listed(tmp_path):
    found = prose_numbers.unbacked(chapter(tmp_path, "The step took 3.2 ms here. It is fast."))
    assert [sentence for _, sentence in found] == ["The step took 3.2 ms here."]


def test_a_list_item_and_a_verdict_are_prose_too(tmp_path):
    text = "Intro.\n\n- The step took 3.2 ms here.\n\n```{admonition} Verdict (C01): true\n:class: tip\nIt is 4x.\n```"
    found = prose_numbers.unbacked(chapter(tmp_path, text))
    assert [sentence for _, sentence in found] == ["The step took 3.2 ms here.", "It is 4x."]


def test_an_asserted_number_a_version_and_inline_code_are_not(tmp_path):
    text = "The step took 3.2 ms with torch 2.13 and `x = 0.5` (a 4x speed-up)."
    assert prose_numbers.unbacked(chapter(tmp_path, text, "assert ratio > 4 and ms < 3.2")) == []


def test_no_chapter_states_a_number_that_neither_its_run_nor_an_assert_backs():
    """Issue 32's target, kept: a new unbacked number in a chapter's prose fails here, with its sentence."""
    found = {
        path.stem: [sentence for _, sentence in prose_numbers.unbacked(path)]
        for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
    }
    assert not {name: sentences for name, sentences in found.items() if sentences}, (
        "back each number with an assert of the chapter, or say what to read in the output instead"
    )
