"""Claims C26 and C27: what Pendulum-v1's reward is, how dense it is, and how many episodes DDPG needs.

Pendulum-v1 (gymnasium 1.x) documents its reward as ``-(theta^2 + 0.1 theta_dot^2 + 0.001 u^2)``, with
theta normalised to [-pi, pi] and u the clipped torque. The experiment steps the real environment with
random torques and compares every reward with that formula and with ``-cos(theta)``. A second experiment
(:func:`episodes_to_reach`) trains DDPG over several seeds and records the episode at which its greedy policy
first reaches a return, with a budget far above the episodes it is expected to need.
"""

from __future__ import annotations

import numpy as np

from rlkit.envs import make_env


def reward_formula_check(steps: int = 2_000, seed: int = 0, env_id: str = "Pendulum-v1") -> dict[str, float]:
    """Largest gap between the env's reward and each candidate formula, and the share of non-zero rewards.

    ``env_id`` may name a wrapped copy of Pendulum-v1 (e.g. one with a sparse reward, to check that the
    chapter's asserts would catch it)."""
    env = make_env(env_id, seed=seed)
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


def register_pendulum_threshold(threshold: float) -> str:
    """Register Pendulum-v1, unchanged, under a new id whose solve threshold is ``threshold``; return the id.

    ``rlkit.train(..., stop_when_solved=True)`` stops at the first evaluation that reaches the environment's
    solve threshold (-200 for Pendulum-v1). Claim C27 is about reaching about -150, so the experiment trains
    on this copy: the same dynamics, rewards and time limit, with only the stopping line moved.
    """
    import gymnasium as gym

    env_id = f"pitfalls/Pendulum-threshold{int(round(-threshold))}-v1"
    gym.registry.pop(env_id, None)  # registering again replaces the copy instead of warning
    gym.register(env_id, entry_point=lambda **kwargs: gym.make("Pendulum-v1", **kwargs), reward_threshold=threshold)
    return env_id


def episodes_to_reach(
    threshold: float = -150.0,
    seeds: tuple[int, ...] = (0, 1, 2),
    max_episodes: int = 200,
    framework: str = "tf",
    algo: str = "ddpg",
    **overrides,
) -> dict[int, dict]:
    """Per seed: ``episodes``, the training episodes (of 200 steps) after which the greedy evaluation first
    averaged at least ``threshold`` over 10 new episodes (``None`` when ``max_episodes`` were not enough),
    and the run's evaluations, ``eval_steps`` and ``eval_returns``.

    The run stops at that evaluation (evaluations come every ``eval_every`` = 1,000 steps, i.e. every 5
    episodes), so a fast learner costs little, while the budget, ``max_episodes``, stays what a slow learner
    would need to show its speed. ``overrides`` change the algorithm's hyperparameters (e.g. to check that a
    slowed-down learner fails the claim's test).
    """
    import rlkit

    env_id, episode_steps = register_pendulum_threshold(threshold), 200
    reached = {}
    for seed in seeds:
        run = rlkit.train(
            algo,
            env=env_id,
            framework=framework,
            seed=seed,
            total_steps=max_episodes * episode_steps,
            stop_when_solved=True,
            progress=False,
            **overrides,
        )
        steps, returns = run.history.series("eval_return")
        episodes = None if run.solved_at_step is None else run.solved_at_step // episode_steps
        reached[seed] = {"episodes": episodes, "eval_steps": steps, "eval_returns": returns}
    return reached
