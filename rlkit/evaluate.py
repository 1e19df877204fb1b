"""Evaluation: run a policy greedily for whole episodes and return each episode's return.

All episodes run side by side in one vector environment (sub-environment ``i`` reset with ``seed + i``), so
the policy is called once per time step for every episode at once: for a small network that makes a
20-episode CartPole evaluation take a fraction of a second.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rlkit.envs import make_vec_env
from rlkit.errors import RlkitError


def evaluate(
    policy: Any,
    env: str,
    episodes: int = 20,
    seed: int = 10_000,
    max_steps: int = 100_000,
) -> np.ndarray:
    """Returns of ``episodes`` complete episodes of ``policy`` on ``env``, as a float64 array.

    ``policy`` is an agent with ``act(obs, deterministic=True)`` or any callable ``obs_batch -> actions``.
    The default ``seed`` differs from training seeds so evaluation episodes are not the training ones.
    """
    act = _as_policy(policy)
    if not isinstance(episodes, int) or episodes < 1:
        raise RlkitError(f"episodes must be a positive int, got {episodes!r}")
    envs = make_vec_env(env, episodes, seed=seed)
    try:
        obs, _ = envs.reset(seed=seed)
        returns = np.zeros(episodes)
        running = np.ones(episodes, dtype=bool)
        for _ in range(max_steps):
            obs, rewards, terminated, truncated, _ = envs.step(act(obs))
            returns += np.where(running, rewards, 0.0)
            running &= ~(terminated | truncated)
            if not running.any():
                return returns
    finally:
        envs.close()
    raise RlkitError(f"evaluation did not finish {episodes} episodes within {max_steps} steps")


def _as_policy(policy: Any) -> Callable[[np.ndarray], np.ndarray]:
    if hasattr(policy, "act"):
        return lambda obs: policy.act(obs, deterministic=True)
    if callable(policy):
        return policy
    raise RlkitError(f"policy must have .act(obs) or be callable, got {type(policy).__name__}")
