"""Claim C29: does clamping Q-values to [-100, 100] prevent critic explosions?

A Q-value is a discounted sum of rewards, so its true range follows from the reward's: on Pendulum-v1
(rewards in [-16.3, 0], gamma 0.99) from about -1,630 to 0. The experiment trains TD3 with its bootstrap
value V(s') clamped to a range, and compares the critic's mean Q and the returns with an unclamped run.
"""

from __future__ import annotations

from rlkit.algos.off_policy.agent import train_agent
from rlkit.algos.td3 import TD3Agent, TD3Config
from rlkit.result import TrainResult


def clamped_td3_learner(low: float, high: float):
    """TD3's torch learner with the bootstrap value of every TD target clamped to [low, high]."""
    from rlkit.algos.td3 import torch as td3

    class ClampedLearner(td3.Learner):
        def next_value(self, next_obs, noise, alpha):
            return super().next_value(next_obs, noise, alpha).clamp(low, high)

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
