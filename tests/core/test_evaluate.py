from __future__ import annotations

import numpy as np
import pytest

from rlkit.errors import RlkitError
from rlkit.evaluate import evaluate


def test_evaluate_runs_each_episode_to_its_end():
    # Always pushing left ends a CartPole episode in about 10 steps; every return is one episode's length.
    returns = evaluate(lambda obs: np.zeros(len(obs), dtype=np.int64), "CartPole-v1", episodes=7, seed=3)
    assert returns.shape == (7,)
    assert returns.min() >= 5 and returns.max() <= 20


def test_evaluation_is_reproducible_with_a_seed():
    def policy(obs):
        return (obs[:, 2] > 0).astype(np.int64)

    np.testing.assert_array_equal(
        evaluate(policy, "CartPole-v1", 5, seed=1), evaluate(policy, "CartPole-v1", 5, seed=1)
    )


def test_bad_policy_and_episode_count_fail_clearly():
    with pytest.raises(RlkitError, match="callable"):
        evaluate(42, "CartPole-v1")
    with pytest.raises(RlkitError, match="episodes"):
        evaluate(lambda obs: obs, "CartPole-v1", episodes=0)


class SB3StylePolicy:
    """What Stable-Baselines3 code hands around: ``predict(obs, deterministic) -> (actions, state)``."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        return (observation[:, 2] > 0).astype(np.int64), state


def test_an_object_with_predict_is_evaluated_like_an_agent():
    def policy(obs):
        return (obs[:, 2] > 0).astype(np.int64)

    np.testing.assert_array_equal(
        evaluate(SB3StylePolicy(), "CartPole-v1", 4, seed=2), evaluate(policy, "CartPole-v1", 4, seed=2)
    )


def test_agents_answer_sb3s_predict_and_mismatched_spaces_are_named():
    pytest.importorskip("torch")
    import rlkit

    small = {"total_steps": 300, "progress": False, "learning_starts": 200, "hidden_sizes": (8,)}
    agent = rlkit.train("dqn", env="MountainCar-v0", **small).agent  # observations of size 2, 3 actions
    obs = np.zeros((3, 2), dtype=np.float32)
    actions, state = agent.predict(obs, deterministic=True)
    np.testing.assert_array_equal(actions, agent.act(obs))
    assert state is None
    with pytest.raises(RlkitError, match=r"trained on MountainCar-v0 with observations of size 2; CartPole-v1 has"):
        evaluate(agent, "CartPole-v1", episodes=2)
    with pytest.raises(RlkitError, match=r"with 3 discrete actions; MountainCarContinuous-v0 has Box"):
        evaluate(agent, "MountainCarContinuous-v0", episodes=2)
    sac = rlkit.train("sac", env="MountainCarContinuous-v0", **small).agent
    with pytest.raises(RlkitError, match=r"with 1-dimensional actions; MountainCar-v0 has Discrete\(3\)"):
        evaluate(sac, "MountainCar-v0", episodes=2)
