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
from rlkit.errors import RlkitError, is_count


def evaluate(
    policy: Any,
    env: str,
    episodes: int = 20,
    seed: int = 10_000,
    max_steps: int = 100_000,
) -> np.ndarray:
    """Returns of ``episodes`` complete episodes of ``policy`` on ``env``, as a float64 array.

    ``policy`` is an rlkit agent, any object with ``act(obs, deterministic=True)`` or with
    Stable-Baselines3's ``predict(obs, deterministic=True) -> (actions, state)``, or a callable
    ``obs_batch -> actions``. The default ``seed`` differs from training seeds so evaluation episodes are not
    the training ones; it is shifted by ``RLKIT_SEED_OFFSET`` (:func:`rlkit.seeding.shifted`). An agent whose
    observation or action space does not fit ``env`` is refused with the two spaces named, before any step.
    """
    from rlkit.seeding import shifted

    return play_episodes(policy, env, episodes, shifted(seed), max_steps)


def play_episodes(policy: Any, env: str, episodes: int, seed: int, max_steps: int = 100_000) -> np.ndarray:
    """:func:`evaluate` with ``seed`` as it is: what a run calls with the seeds it derives from its own."""
    act = _as_policy(policy)
    if not is_count(episodes):  # True is an int to Python, but not a number of episodes
        raise RlkitError(f"episodes must be a positive int (how many episodes to play; not a bool), got {episodes!r}")
    envs = make_vec_env(env, episodes, seed=seed)
    try:
        _check_spaces(policy, envs, env)
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
    if hasattr(policy, "predict"):
        return lambda obs: policy.predict(obs, deterministic=True)[0]
    if callable(policy):
        return policy
    raise RlkitError(f"policy must have .act(obs) or .predict(obs) or be callable, got {type(policy).__name__}")


def _check_spaces(policy: Any, envs, env_name: str) -> None:
    """An rlkit agent knows the sizes it was trained on: say plainly when ``envs`` has others."""
    obs_dim = getattr(policy, "obs_dim", None)
    if obs_dim is None:
        return
    trained_on = f"{type(policy).__name__} was trained on {getattr(policy, 'env_id', 'another environment')}"
    env_obs = int(np.prod(envs.single_observation_space.shape))
    if env_obs != obs_dim:
        raise RlkitError(
            f"{trained_on} with observations of size {obs_dim}; {env_name} has {envs.single_observation_space}"
        )
    space = envs.single_action_space
    wanted = _action_kind(policy)
    found = ("discrete", int(space.n)) if hasattr(space, "n") else ("continuous", int(np.prod(space.shape)))
    if wanted is not None and wanted != found:
        kind = f"{wanted[1]} discrete actions" if wanted[0] == "discrete" else f"{wanted[1]}-dimensional actions"
        raise RlkitError(f"{trained_on} with {kind}; {env_name} has {space}")


def _action_kind(policy: Any) -> tuple[str, int] | None:
    """("discrete", n) or ("continuous", dimensions) of an rlkit agent's actions; None for other policies."""
    if getattr(policy, "n_actions", None) is not None:
        return "discrete", int(policy.n_actions)
    action = getattr(policy, "action", None)
    if isinstance(action, dict) and "discrete" in action:
        if action["discrete"]:
            return "discrete", int(action["n"])
        return "continuous", int(np.prod(action["shape"]))
    return None
