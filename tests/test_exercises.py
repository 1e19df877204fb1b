"""The exercise checks accept right answers and explain the usual wrong ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlkit.classroom import student_version
from rlkit.exercises import ExerciseError, check_bootstrap_mask, check_td_target


def test_td_target_check_accepts_the_answer_and_explains_mistakes(capsys):
    check_td_target(lambda r, q, d, g: r + g * (1 - d) * q.max(axis=1))
    assert "all 6 checks passed" in capsys.readouterr().out
    mistakes = {
        "broadcast to (B, B)": lambda r, q, d, g: r + g * (1 - d) * q.max(axis=1, keepdims=True),
        "terminal transition": lambda r, q, d, g: r + g * q.max(axis=1),
        "not discounted": lambda r, q, d, g: r + (1 - d) * q.max(axis=1),
        "mean of the next": lambda r, q, d, g: r + g * (1 - d) * q.mean(axis=1),
        "forget the `return`": lambda r, q, d, g: None,
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation.replace("(", r"\(").replace(")", r"\)")):
            check_td_target(wrong)


def test_bootstrap_mask_check_explains_truncation():
    check_bootstrap_mask(lambda term, trunc: 1.0 - term.astype(np.float32))
    with pytest.raises(ExerciseError, match="truncated, not terminated"):
        check_bootstrap_mask(lambda term, trunc: 1.0 - (term | trunc).astype(np.float32))


def test_student_version_drops_solutions_and_outputs():
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": "stub", "outputs": [1], "execution_count": 3},
            {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "answer", "outputs": []},
            {"cell_type": "markdown", "metadata": {}, "source": "text"},
        ],
        "metadata": {},
    }
    student = student_version(json.loads(json.dumps(notebook)))
    assert [c["source"] for c in student["cells"]] == ["stub", "text"]
    assert student["cells"][0]["outputs"] == [] and student["cells"][0]["execution_count"] is None
