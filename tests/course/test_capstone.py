"""The capstone's check (course.exercises.capstone): it grades the agent a student's function returns, trains
it once per session for the check and the hidden test, and says what came back when it is not an agent.
gymnasium's hand-written lander stands in for a trained one (seconds instead of minutes)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("Box2D", reason="LunarLander needs the box2d extra (part of .[all])")

from course.exercises import ExerciseError, check_land_the_lander  # noqa: E402
from course.exercises.capstone import grade_on_unseen_episodes  # noqa: E402


class HandWrittenLander:
    """gymnasium's heuristic controller, as an agent with ``act``: it lands (mean 264 on episodes 0-19)."""

    def act(self, obs, deterministic=True):
        from gymnasium.envs.box2d.lunar_lander import heuristic

        class Discrete:
            continuous = False
            unwrapped = None

        Discrete.unwrapped = Discrete
        return np.array([heuristic(Discrete, row) for row in obs])


class Random:
    def act(self, obs, deterministic=True):
        return np.random.default_rng(0).integers(0, 4, size=len(obs))


def test_a_lander_passes_the_check_and_the_unseen_episodes_and_is_trained_once(capsys):
    calls = []

    def land_the_lander(seed):
        calls.append(seed)
        return HandWrittenLander()

    check_land_the_lander(land_the_lander, strict=True)
    grade_on_unseen_episodes(land_the_lander)
    assert calls == [0]  # one training for the check and the hidden test
    printed = capsys.readouterr().out
    assert "episodes 0-19: mean 26" in printed and "unseen episodes: mean" in printed, printed


def test_a_random_agent_fails_with_advice_and_a_non_agent_is_named():
    with pytest.raises(ExerciseError, match="it needs 200"):
        check_land_the_lander(lambda seed: Random(), strict=True)
    with pytest.raises(ExerciseError, match="returned None"):
        check_land_the_lander(lambda seed: None, strict=True)
    with pytest.raises(ExerciseError, match="returned a float"):
        check_land_the_lander(lambda seed: 0.5, strict=True)
