"""Claim C29: does clamping Q-values to [-100, 100] prevent critic explosions?

A Q-value is a discounted sum of rewards, so its true range follows from the reward's: on Pendulum-v1
(rewards in [-16.3, 0], gamma 0.99) from about -1,630 to 0. The experiment trains TD3 with its bootstrap
value V(s') clamped to a range, and compares the critic's mean Q and the returns with an unclamped run.
"""

from __future__ import annotations

import numpy as np

from rlkit.algos.off_policy.agent import train_agent
from rlkit.algos.td3 import TD3Agent, TD3Config
from rlkit.envs import make_env
from rlkit.result import TrainResult


def random_policy_values(episodes: int = 10, gamma: float = 0.99, seed: int = 0) -> np.ndarray:
    """Discounted returns-to-go of every step of uniformly random Pendulum-v1 episodes: the true Q-values of the
    policy a critic first evaluates (random actions fill the buffer before learning starts)."""
    env, rng, values = make_env("Pendulum-v1", seed=seed), np.random.default_rng(seed), []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        rewards, done = [], False
        while not done:
            _, reward, terminated, truncated, _ = env.step(rng.uniform(-2.0, 2.0, size=1).astype(np.float32))
            rewards.append(reward)
            done = terminated or truncated
        to_go = 0.0
        for reward in reversed(rewards):  # a truncated episode: the tail beyond 200 steps is missing (<= 13%)
            to_go = reward + gamma * to_go
            values.append(to_go)
    env.close()
    return np.asarray(values)


def clamped_td3_learner(low: float, high: float):
    """TD3's torch learner with the bootstrap value of every TD target clamped to [low, high] (and counted)."""
    from rlkit.algos.td3 import torch as td3

    class ClampedLearner(td3.Learner):
        targets_seen = targets_clamped = 0

        def next_value(self, next_obs, noise, alpha):
            value = super().next_value(next_obs, noise, alpha)
            self.targets_seen += value.numel()
            self.targets_clamped += int(((value < low) | (value > high)).sum())
            return value.clamp(low, high)

    return ClampedLearner


def train_clamped_td3(low: float, high: float, seed: int = 0, total_steps: int = 8_000, **overrides) -> TrainResult:
    """Train TD3 (torch) on Pendulum-v1 with clamped targets; same loop, defaults and seed as ``rlkit.train``."""
    learner = clamped_td3_learner(low, high)

    class ClampedTD3Agent(TD3Agent):
        @classmethod
        def learner_class(cls, framework: str):
            return learner

    config = TD3Config.for_env("Pendulum-v1", **overrides)
    return train_agent(ClampedTD3Agent, "Pendulum-v1", "torch", seed, total_steps, config, progress=False)
