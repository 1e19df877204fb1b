"""course/lander.py: the LunarLander mark (mean - std >= 200) and the chance an agent passes it on a draw of 20
of its episodes."""

from __future__ import annotations

import numpy as np

from course.lander import chance_of_mark, passes_mark


def test_the_mark_is_mean_minus_std_at_200_one_verdict_per_row():
    assert passes_mark([250.0, 150.0]) == np.False_  # 200 - 50
    assert passes_mark([260.0, 240.0]) == np.True_  # 250 - 10
    assert passes_mark([[260.0, 240.0], [250.0, 150.0]]).tolist() == [True, False]


def test_the_chance_of_the_mark_is_the_share_of_draws_of_twenty_that_pass_it():
    steady = list(np.linspace(260, 280, 100))
    assert chance_of_mark(steady) == 1.0
    one_in_twenty = steady[:19] + [-100.0]  # the mark fails when a draw holds the crash
    assert abs(chance_of_mark(one_in_twenty) - 0.95**20) < 0.01  # not 0: a draw may miss it
    one_crash = steady[:99] + [-100.0]  # no crash in 20 draws of 100: 0.99 ** 20
    assert abs(chance_of_mark(one_crash) - 0.99**20) < 0.01  # without replacement: 0.80
    assert chance_of_mark(one_crash, seed=1) != chance_of_mark(one_crash)  # the draws are seeded
