"""Any environment: a registered id, a gymnasium.Env instance or a callable, with env_kwargs and wrappers;
custom environments pass gymnasium's env checker, and unsupported spaces are named with what is supported."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.envs.classic_control import CartPoleEnv

import rlkit
from rlkit.envs import env_source

pytest.importorskip("torch")
QUICK = {"total_steps": 600, "progress": False, "hidden_sizes": (8,), "learning_starts": 300, "eval_every": 600,
         "eval_episodes": 2}  # fmt: skip


class Corridor(gym.Env):
    """A custom task, never registered: walk right along a 1-D corridor to reach the end (reward 1 there)."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, length: int = 5) -> None:
        self.length, self.position = length, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.position = 0
        return self._obs(), {}

    def step(self, action):
        self.position = max(0, self.position + (1 if action == 1 else -1))
        done = self.position >= self.length
        return self._obs(), float(done), done, False, {}

    def _obs(self):
        return np.array([self.position / self.length], dtype=np.float32)


@pytest.mark.parametrize(
    "env", [CartPoleEnv(), CartPoleEnv, lambda: gym.make("CartPole-v1")], ids=["instance", "class", "callable"]
)
def test_an_instance_a_class_or_a_callable_trains_like_the_id(env):
    result = rlkit.train("dqn", env=env, **QUICK)
    assert result.steps == 600 and result.agent.obs_dim == 4
    assert len(result.history.series("eval_return")[1]) == 1


def test_a_custom_environment_trains_evaluates_and_is_named_by_its_class():
    result = rlkit.train("dqn", env=Corridor, env_kwargs={"length": 3}, **QUICK)
    assert result.agent.env_id == "Corridor"
    returns = rlkit.evaluate(result.agent, env_source(Corridor, {"length": 3}), episodes=3)
    assert returns.shape == (3,)


def test_wrappers_wrap_every_copy_and_env_kwargs_reach_gymnasium_make():
    class Doubled(gym.RewardWrapper):
        def reward(self, reward):
            return 2.0 * reward

    result = rlkit.train("ppo", env="CartPole-v1", wrappers=[Doubled], total_steps=1_024, progress=False)
    assert result.history.series("episode_return")[1].min() >= 2 * 8  # CartPole episodes last >= 8 steps
    source = env_source("CartPole-v1", {"max_episode_steps": 20})
    assert rlkit.evaluate(lambda obs: (obs[:, 2] > 0).astype(np.int64), source, episodes=3).max() <= 20


def test_unsupported_spaces_are_named_with_what_is_supported():
    class DictObs(Corridor):
        observation_space = gym.spaces.Dict({"x": gym.spaces.Box(-1, 1, (1,), np.float32)})

    class GreyImage(Corridor):  # no channel axis: images are read as rank 3 (test_image_dqn.py)
        observation_space = gym.spaces.Box(0, 255, (8, 8), np.uint8)

    with pytest.raises(rlkit.RlkitError, match="Dict observations: rlkit supports flat Box .*FlattenObservation"):
        env_source(DictObs)
    with pytest.raises(rlkit.RlkitError, match=r"observations of shape \(8, 8\).*give a grey image a channel axis"):
        env_source(GreyImage)


def test_a_broken_custom_environment_fails_gymnasiums_checker_clearly():
    class NoInfo(Corridor):
        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return self._obs()  # gymnasium 1.x wants (obs, info)

    with pytest.raises(rlkit.RlkitError, match="NoInfo fails gymnasium's env checker"):
        rlkit.train("dqn", env=NoInfo, **QUICK)
    with pytest.raises(rlkit.RlkitError, match="not a gymnasium.Env"):
        env_source(lambda: 42)
