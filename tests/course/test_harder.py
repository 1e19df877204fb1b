"""course.harder.random_play: a random agent's view of a task's scales, which chapter 60 reads."""

from __future__ import annotations

import numpy as np

from course.harder import HEADER, random_play


def test_random_play_counts_terminations_and_truncations_apart():
    cartpole = random_play("CartPole-v1", steps=500, seed=0)  # a random pole falls: terminated, never cut
    assert cartpole.terminated > 10 and cartpole.truncated == 0
    assert cartpole.reward_range == (1.0, 1.0) and cartpole.obs_std.shape == (4,)
    assert cartpole.mean_length == cartpole.mean_return < 50
    pendulum = random_play("Pendulum-v1", steps=400, seed=0)  # never terminates: cut at 200 steps
    assert (pendulum.terminated, pendulum.truncated, pendulum.mean_length) == (0, 2, 200.0)
    assert pendulum.obs_dtype == "float32" and pendulum.reward_range[1] <= 0
    assert pendulum.std_ratio == np.float64(pendulum.obs_std.max() / pendulum.obs_std.min())
    assert len(pendulum.row().split()) == len(HEADER.split()) - 4  # "std lo", "std hi", "r min", "r max"
