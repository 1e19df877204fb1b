"""The capstone's check: land the lander (``classroom/capstones/land_the_lander.ipynb``, after chapter 60).

The first open-ended exercise of the course: no formula to match, only a result. The student writes
``land_the_lander(seed)``, which trains whatever they like and returns an agent; the grade is that agent's
mean return over 20 seeded episodes of LunarLander-v3, against gymnasium's threshold of 200. The check a
student runs plays episodes seeded 0-19; the hidden test of the assignment plays the same agent on 20 other
episodes (:func:`grade_on_unseen_episodes`), so a policy that lands only the check's episodes still fails.

Training takes minutes, so each function is trained once per seed and Python session (a cache keyed by the
function and the seed): the check and the hidden test grade the same agent, as a grader would.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from course.exercises.base import ExerciseError, exercise_check

ENV = "LunarLander-v3"
THRESHOLD = 200.0
EPISODES = 20
CHECK_SEED = 0  # episodes 0-19: what the student sees
UNSEEN_SEED = 50_000  # episodes 50,000-50,019: the hidden test's
TRAIN_SEED = 0  # the seed land_the_lander is called with

_trained: dict[tuple, object] = {}


def trained_agent(function: Callable, seed: int = TRAIN_SEED):
    """``function(seed)``, called once per function and seed: the agent it returns, checked to be one."""
    key = (function.__module__, function.__qualname__, function.__code__, seed)
    if key not in _trained:
        agent = function(seed)
        if agent is None:
            raise ExerciseError("land_the_lander returned None: return the trained agent (e.g. `result.agent`).")
        if not (hasattr(agent, "act") or hasattr(agent, "predict") or callable(agent)):
            raise ExerciseError(
                f"land_the_lander returned a {type(agent).__name__}: return an agent (`rlkit.train(...).agent`, "
                "anything with .act or .predict, or a function from observations to actions)."
            )
        _trained[key] = agent
    return _trained[key]


def landing_returns(agent, seed: int) -> np.ndarray:
    """The returns of ``EPISODES`` greedy episodes of ``agent``, episode ``i`` reset with ``seed + i``."""
    from rlkit.evaluate import play_episodes

    return play_episodes(agent, ENV, EPISODES, seed)


def _grade(function: Callable, seed: int, which: str) -> None:
    returns = landing_returns(trained_agent(function), seed)
    mean, std = returns.mean(), returns.std()
    below_zero = int((returns < 0).sum())
    print(f"{which}: mean {mean:.1f} +- {std:.1f} over {EPISODES} episodes ({below_zero} below zero)")
    if mean < THRESHOLD:
        raise ExerciseError(
            f"the lander scores {mean:.1f} on average over {EPISODES} episodes; it needs {THRESHOLD:.0f}. "
            "Look at the evaluation curve: still rising at the end (train longer), swinging (a smaller or "
            "annealed learning rate, a slower target network), or flat below zero (it hovers: more exploration, "
            "or PPO's settings of chapter 60)."
        )


@exercise_check
def check_land_the_lander(land_the_lander: Callable) -> None:
    """Train ``land_the_lander(0)`` (once) and play its agent on episodes seeded 0-19: mean >= 200."""
    _grade(land_the_lander, CHECK_SEED, "episodes 0-19")


def grade_on_unseen_episodes(land_the_lander: Callable) -> None:
    """The hidden test: the same agent on 20 episodes the check never plays. A stub that is not filled in
    fails here with its ``NotImplementedError`` (no points)."""
    _grade(land_the_lander, UNSEEN_SEED, "unseen episodes")
