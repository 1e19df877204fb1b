"""Running normalisation of observations and rewards, in numpy, saved and restored with the agent.

Observations are standardised by a running mean and variance and clipped; rewards are divided by the running
standard deviation of the discounted return (not of the reward: that is the scale the value function sees),
as in most PPO implementations. The statistics are part of the policy: an agent evaluated without them sees
inputs it was never trained on, so :meth:`state` and :meth:`load_state` travel with every checkpoint.
"""

from __future__ import annotations

import numpy as np


class RunningMeanStd:
    """Mean and variance of a stream of batches (Chan et al.'s parallel update), in float64."""

    def __init__(self, shape: tuple[int, ...] = ()) -> None:
        self.mean = np.zeros(shape, dtype=np.float64)
        self.var = np.ones(shape, dtype=np.float64)
        self.count = 1e-4  # a tiny prior so the first batch does not divide by zero

    def update(self, batch: np.ndarray) -> None:
        batch = np.asarray(batch, dtype=np.float64)
        batch_mean, batch_var, batch_count = batch.mean(axis=0), batch.var(axis=0), batch.shape[0]
        delta = batch_mean - self.mean
        total = self.count + batch_count
        self.mean = self.mean + delta * batch_count / total
        self.var = (
            self.var * self.count + batch_var * batch_count + delta**2 * self.count * batch_count / total
        ) / total
        self.count = total

    def state(self) -> dict:
        return {"mean": self.mean.tolist(), "var": self.var.tolist(), "count": float(self.count)}

    def load_state(self, state: dict) -> None:
        self.mean = np.asarray(state["mean"], dtype=np.float64)
        self.var = np.asarray(state["var"], dtype=np.float64)
        self.count = float(state["count"])


class ObservationNormalizer:
    """``clip((obs - mean) / sqrt(var + eps), -clip, clip)``; ``enabled=False`` passes observations through."""

    def __init__(self, shape: tuple[int, ...], enabled: bool = True, clip: float = 10.0) -> None:
        self.enabled, self.clip = enabled, clip
        self.stats = RunningMeanStd(shape)

    def __call__(self, obs: np.ndarray, update: bool = False) -> np.ndarray:
        if not self.enabled:
            return np.asarray(obs, dtype=np.float32)
        if update:
            self.stats.update(obs)
        scaled = (obs - self.stats.mean) / np.sqrt(self.stats.var + 1e-8)
        return np.clip(scaled, -self.clip, self.clip).astype(np.float32)

    def plan_fields(self) -> dict:
        """The same standardisation as :class:`~rlkit.policy_plan.PolicyPlan` fields, for an exported graph
        (none when disabled)."""
        if not self.enabled:
            return {}
        return {
            "obs_mean": self.stats.mean.astype(np.float32),
            "obs_std": np.sqrt(self.stats.var + 1e-8).astype(np.float32),
            "obs_clip": float(self.clip),
        }


class RewardScaler:
    """Divides rewards by the running std of the discounted return of each environment."""

    def __init__(self, num_envs: int, gamma: float, enabled: bool = True, clip: float = 10.0) -> None:
        self.enabled, self.gamma, self.clip = enabled, gamma, clip
        self.stats = RunningMeanStd(())
        self.returns = np.zeros(num_envs, dtype=np.float64)

    def __call__(self, rewards: np.ndarray, dones: np.ndarray) -> np.ndarray:
        if not self.enabled:
            return np.asarray(rewards, dtype=np.float32)
        self.returns = self.returns * self.gamma + rewards
        self.stats.update(self.returns)
        self.returns[dones] = 0.0
        return np.clip(rewards / np.sqrt(self.stats.var + 1e-8), -self.clip, self.clip).astype(np.float32)
