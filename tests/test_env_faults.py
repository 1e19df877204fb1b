"""Environment faults are named at the vector env's boundary: the env id, the step and expected against
received, instead of gymnasium's or numpy's message from deep inside (or a NaN found bursts later)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import rlkit
from rlkit.env_checks import StepCheck
from rlkit.envs import EnvRunner, make_vec_env
from rlkit.errors import EnvironmentFault, RlkitError


class Faulty(gym.Wrapper):
    """CartPole that goes wrong at its ``after``-th step in the way ``fault`` names."""

    def __init__(self, fault: str, after: int = 30) -> None:
        super().__init__(gym.make("CartPole-v1"))
        self.fault, self.after, self.count = fault, after, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.count += 1
        if self.count >= self.after:
            if self.fault == "obs_shape":
                obs = np.zeros(5, dtype=np.float32)
            elif self.fault == "reward_shape":
                reward = np.zeros(2)
            elif self.fault == "reward_nan":
                reward = float("nan")
        return obs, reward, terminated, truncated, info


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (
            "obs_shape",
            r"CartPole-v1 at step \d{3} .*\(Output array is the wrong shape\).* shape \(4,\) and dtype float32",
        ),
        ("reward_shape", r"the environment CartPole-v1 at step \d{3} .*a sequence.*a scalar finite reward"),
        ("reward_nan", r"the environment CartPole-v1 at step \d{3}: finite rewards were expected, got \[nan"),
    ],
)
def test_a_fault_mid_run_is_named_with_the_env_and_step(fault, message):
    runner = EnvRunner(make_vec_env(lambda: Faulty(fault), num_envs=8, seed=0), seed=0)
    with pytest.raises(EnvironmentFault, match=message):
        for _ in range(40):
            runner.step(np.zeros(8, dtype=np.int64))  # every copy fails at its 30th step (over its episodes)
    assert issubclass(EnvironmentFault, RlkitError)


def test_the_training_loop_names_it_too():
    pytest.importorskip("torch")
    with pytest.raises(EnvironmentFault, match=r"finite rewards were expected"):
        rlkit.train("dqn", env=lambda: Faulty("reward_nan", after=100), total_steps=2_000, progress=False)


class Declared:
    """What StepCheck reads of a vector env: its size and observation space."""

    num_envs, single_observation_space = 4, gym.spaces.Box(-1, 1, (3,), np.float32)
    spec = None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("obs", np.zeros((4, 3), np.float64), r"\(4, 3\) and dtype float32 were expected .*, \(4, 3\) float64"),
        ("obs", np.zeros((4, 2), np.float32), r"shape \(4, 3\) and dtype float32 .*, \(4, 2\) float32 arrived"),
        ("rewards", np.zeros((4, 1)), r"one scalar reward per environment, shape \(4,\), was expected, got \(4, 1\)"),
        ("rewards", np.array(["a"] * 4), r"shape \(4,\), was expected, got \(4,\) <U1"),
        ("rewards", np.array([0, np.inf, 0, 0]), r"finite rewards were expected, got \[inf\]"),
        ("terminated", np.zeros(4, np.int64), r"terminated as booleans of shape \(4,\) was expected, got \(4,\) int64"),
        ("truncated", np.zeros(4, np.float32), r"truncated as booleans of shape \(4,\) was expected, got \(4,\) float"),
    ],
)
def test_each_field_is_checked_on_the_batch(field, value, message):
    good = {
        "obs": np.zeros((4, 3), np.float32),
        "rewards": np.zeros(4),
        "terminated": np.zeros(4, bool),
        "truncated": np.zeros(4, bool),
    }
    check = StepCheck(Declared())
    check.check(12, **good)
    with pytest.raises(EnvironmentFault, match=r"the environment Declared at step 12: .*" + message):
        check.check(12, **{**good, field: value})
