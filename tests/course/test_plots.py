from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from course.plots import plot_learning_curves, plot_schedule, smooth  # noqa: E402
from rlkit.logger import History  # noqa: E402
from rlkit.schedules import LinearSchedule  # noqa: E402


def test_smooth_is_a_trailing_mean_that_starts_with_the_data():
    np.testing.assert_allclose(smooth(np.array([1.0, 3.0, 5.0, 7.0]), 2), [1.0, 2.0, 4.0, 6.0])
    np.testing.assert_array_equal(smooth(np.array([1.0, 2.0]), 1), [1.0, 2.0])


def test_learning_curves_are_labelled():
    history = History()
    for step in range(10):
        history.add(step * 100, episode_return=float(step))
    ax = plot_learning_curves({"torch, seed 0": history}, threshold=5.0, title="t")
    assert ax.get_title() == "t" and ax.get_xlabel() == "environment steps"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["torch, seed 0", "solved (5)"]


def test_schedule_plot_has_its_label():
    ax = plot_schedule(LinearSchedule(1.0, 0.1, 100), 200, label="epsilon")
    assert ax.get_ylabel() == "epsilon"
    assert ax.lines[0].get_ydata()[-1] == pytest.approx(0.1)
