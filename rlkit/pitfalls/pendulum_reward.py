"""Claims C26 and C27: what Pendulum-v1's reward is, and how dense it is.

Pendulum-v1 (gymnasium 1.x) documents its reward as ``-(theta^2 + 0.1 theta_dot^2 + 0.001 u^2)``, with
theta normalised to [-pi, pi] and u the clipped torque. The experiment steps the real environment with
random torques and compares every reward with that formula and with ``-cos(theta)``.
"""

from __future__ import annotations

import numpy as np

from rlkit.envs import make_env


def reward_formula_check(steps: int = 2_000, seed: int = 0) -> dict[str, float]:
    """Largest gap between the env's reward and each candidate formula, and the share of non-zero rewards."""
    env = make_env("Pendulum-v1", seed=seed)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    gaps_documented, gaps_cosine, rewards = [], [], []
    for _ in range(steps):
        theta, theta_dot = env.unwrapped.state  # the state the reward of this step is computed from
        torque = float(rng.uniform(-2.0, 2.0))
        _, reward, terminated, truncated, _ = env.step(np.array([torque], dtype=np.float32))
        angle = (theta + np.pi) % (2 * np.pi) - np.pi
        documented = -(angle**2 + 0.1 * theta_dot**2 + 0.001 * torque**2)
        gaps_documented.append(abs(reward - documented))
        gaps_cosine.append(abs(reward - (-np.cos(theta))))
        rewards.append(reward)
        if terminated or truncated:
            env.reset()
    env.close()
    rewards = np.asarray(rewards)
    return {
        "max_gap_documented": float(max(gaps_documented)),
        "max_gap_cosine": float(max(gaps_cosine)),
        "nonzero_fraction": float(np.mean(rewards != 0.0)),
        "distinct_rewards": int(len(np.unique(np.round(rewards, 6)))),
        "min_reward": float(rewards.min()),
        "max_reward": float(rewards.max()),
    }
