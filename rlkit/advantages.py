"""Generalised advantage estimation (GAE, Schulman et al. 2016) over a vectorised rollout, in numpy.

A rollout is ``T`` steps of ``N`` environments. ``values`` has one more row than the rewards: ``values[t]``
is V(obs_t) and ``values[T]`` is the value of the observation after the rollout. Because the runner's
observation after a step is that step's next observation (the true final observation when an episode
ends), ``values[t + 1]`` is always V(next_obs_t) — exactly the bootstrap a truncated step needs.

* ``terminated[t]`` stops the bootstrap: no value beyond a terminal state.
* ``dones[t]`` (terminated or truncated) stops the recursion: the next step belongs to another episode.
* ``valid[t]`` is False for gymnasium's autoreset steps; their advantage is 0 and they are dropped.
"""

from __future__ import annotations

import numpy as np


def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    terminated: np.ndarray,
    dones: np.ndarray,
    valid: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns (advantages + values), both shaped like ``rewards`` (T, N), float32.

    ``A_t = delta_t + gamma * lam * (1 - done_t) * A_{t+1}`` with
    ``delta_t = r_t + gamma * (1 - terminated_t) * V(s_{t+1}) - V(s_t)``; one vectorised step per time step.
    The recursion starts from ``A_T = 0``: the rollout's last step bootstraps only through its delta, from
    ``values[T]``. A step with ``valid`` False gets ``A = 0`` (and, being after a done, passes nothing back).
    Unrolled: ``A_t = sum_{k=0}^{K} (gamma * lam)^k delta_{t+k}``, with ``t + K`` the first step from t on
    that is done or the rollout's last.
    """
    steps = len(rewards)
    if values.shape[0] != steps + 1:
        raise ValueError(f"values needs T + 1 = {steps + 1} rows (the last: after the rollout), got {values.shape[0]}")
    advantages = np.zeros(rewards.shape, dtype=np.float64)
    running = np.zeros(rewards.shape[1:], dtype=np.float64)
    for t in reversed(range(steps)):
        delta = rewards[t] + gamma * (1.0 - terminated[t]) * values[t + 1] - values[t]
        running = delta + gamma * lam * (1.0 - dones[t]) * running
        running = np.where(valid[t], running, 0.0)
        advantages[t] = running
    returns = advantages + values[:-1]
    return advantages.astype(np.float32), returns.astype(np.float32)


def gae_reference(rewards, values, terminated, dones, valid, gamma: float, lam: float) -> np.ndarray:
    """A slow, obviously-correct GAE for tests: ``A_t = sum_k (gamma * lam)^k delta_{t+k}`` within an episode."""
    steps, envs = rewards.shape
    advantages = np.zeros((steps, envs))
    for env in range(envs):
        for t in range(steps):
            if not valid[t, env]:
                continue
            total, discount = 0.0, 1.0
            for k in range(t, steps):
                delta = rewards[k, env] + gamma * (1 - terminated[k, env]) * values[k + 1, env] - values[k, env]
                total += discount * delta
                if dones[k, env]:
                    break
                discount *= gamma * lam
            advantages[t, env] = total
    return advantages
