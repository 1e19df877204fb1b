"""Claim C28: how jerky a trained policy's actions are (TD3's target-smoothing noise is said to decide it).

Smoothness is measured on greedy episodes as the mean absolute change of the action from one step to the
next, in units of the action range [-1, 1].
"""

from __future__ import annotations

import numpy as np

from rlkit.envs import make_vec_env


def action_jerk(agent, env_id: str = "Pendulum-v1", episodes: int = 10, seed: int = 5_000) -> float:
    """Mean |a_t - a_(t-1)| over greedy episodes, with actions scaled to [-1, 1]."""
    envs = make_vec_env(env_id, episodes, seed=seed)
    obs, _ = envs.reset(seed=seed)
    changes, previous = [], None
    running = np.ones(episodes, dtype=bool)
    try:
        while running.any():
            actions = agent.policy(np.asarray(obs, dtype=np.float32))
            if previous is not None:
                changes.append(np.abs(actions - previous).mean(axis=1)[running])
            previous = actions
            obs, _, terminated, truncated, _ = envs.step(agent.to_env(actions))
            running &= ~(terminated | truncated)
    finally:
        envs.close()
    return float(np.concatenate(changes).mean())
