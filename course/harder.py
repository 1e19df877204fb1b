"""What chapter 60 measures about a task before training on it: a random agent's view of its scales.

A new task's first surprises are in its numbers, not in the algorithm: observations whose dimensions differ
by a factor of a hundred, rewards of -100 in one step, episodes that end because the robot fell (terminated)
or because time ran out (truncated). A few thousand random steps show all of them, in seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np


@dataclass(frozen=True)
class TaskScales:
    """What ``steps`` uniformly random actions saw in one environment."""

    env_id: str
    obs_dtype: str
    obs_std: np.ndarray  # per observation dimension
    reward_range: tuple[float, float]  # the smallest and largest reward of one step
    terminated: int  # episodes that ended in a terminal state (no bootstrap past it)
    truncated: int  # episodes cut by the time limit (the value of the last state still counts)
    mean_length: float
    mean_return: float
    us_per_step: float  # the environment's own cost, random actions, this machine

    @property
    def std_ratio(self) -> float:
        """Largest over smallest per-dimension standard deviation: how unevenly scaled the inputs are."""
        return float(self.obs_std.max() / max(self.obs_std.min(), 1e-12))

    def row(self) -> str:
        return (
            f"{self.env_id:<16} {self.obs_dtype:<8} {self.obs_std.min():6.2f} {self.obs_std.max():6.2f} "
            f"{self.std_ratio:6.0f} {self.reward_range[0]:8.1f} {self.reward_range[1]:7.1f} "
            f"{self.terminated:5d} {self.truncated:5d} {self.mean_length:7.0f} {self.mean_return:7.0f} "
            f"{self.us_per_step:7.0f}"
        )


HEADER = (
    f"{'task':<16} {'obs':<8} {'std lo':>6} {'std hi':>6} {'ratio':>6} {'r min':>8} {'r max':>7} "
    f"{'term':>5} {'trunc':>5} {'length':>7} {'return':>7} {'us/step':>7}"
)


def random_play(env_id: str, steps: int = 3_000, seed: int = 0) -> TaskScales:
    """Play ``steps`` uniformly random actions in ``env_id`` (episodes reset as they end) and summarise."""
    env = gym.make(env_id)
    env.action_space.seed(seed)
    env.reset(seed=seed)
    observations, rewards, lengths, returns = [], [], [], []
    ends = {"terminated": 0, "truncated": 0}
    length, total = 0, 0.0
    start = time.perf_counter()
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        observations.append(obs)
        rewards.append(float(reward))
        length, total = length + 1, total + float(reward)
        if terminated or truncated:
            ends["terminated" if terminated else "truncated"] += 1
            lengths.append(length)
            returns.append(total)
            length, total = 0, 0.0
            env.reset()
    elapsed = time.perf_counter() - start
    env.close()
    observations = np.asarray(observations)
    return TaskScales(
        env_id=env_id,
        obs_dtype=str(env.observation_space.dtype),
        obs_std=observations.std(axis=0),
        reward_range=(min(rewards), max(rewards)),
        terminated=ends["terminated"],
        truncated=ends["truncated"],
        mean_length=float(np.mean(lengths)) if lengths else float(steps),
        mean_return=float(np.mean(returns)) if returns else float("nan"),
        us_per_step=1e6 * elapsed / steps,
    )
