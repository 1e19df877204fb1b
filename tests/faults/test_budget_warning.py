"""A budget beyond 1e9 steps warns, after timing the first steps, with the time it would take and the replay
memory; an ordinary budget does not."""

from __future__ import annotations

import warnings

import pytest

import rlkit
from rlkit.budget import BudgetWarning
from rlkit.callbacks import Callback

SMALL = {"learning_starts": 100, "train_every": 50, "gradient_steps": 5, "eval_episodes": 1, "eval_every": 10**6}


class StopAt(Callback):
    def __init__(self, step: int) -> None:
        self.step = step

    def on_step(self, run) -> bool:
        return run.step >= self.step


def test_a_budget_beyond_a_billion_steps_warns_with_the_time_and_memory():
    pytest.importorskip("torch")
    expected = (
        r"total_steps=1,000,000,000,000 at [\d,]+ steps/s \(the first 2,\d{3} steps\) would take about [\d,]+ "
        r"(years|days|hours); its replay buffer holds 3.5 MiB: ask for fewer steps"
    )
    with pytest.warns(BudgetWarning, match=expected):
        rlkit.train("dqn", total_steps=10**12, progress=False, callbacks=[StopAt(2_500)], **SMALL)


def test_an_ordinary_budget_does_not_warn():
    pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("error", BudgetWarning)
        rlkit.train("dqn", total_steps=2_500, progress=False, **SMALL)
