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


#: Claim C28's two settings of TD3's target-policy smoothing: TD3's defaults and the claim's lowered noise, each
#: with one-step targets (TD3's paper's, and Pendulum's default when the benchmark measured them; the default
#: there has used 3-step returns since: ``TD3Config.env_defaults``).
SMOOTHING: dict[str, dict[str, float]] = {
    "sigma 0.2, clip 0.5": {"n_step": 1},
    "sigma 0.05, clip 0.1": {"target_noise": 0.05, "target_noise_clip": 0.1, "n_step": 1},
}
#: TD3 (TensorFlow) trains this long on Pendulum-v1 in chapter 31 and its benchmark: long enough to swing up.
SMOOTHING_STEPS = 8_000


def smoothing_run(setting: str, seed: int, total_steps: int = SMOOTHING_STEPS) -> dict:
    """Train TD3 on Pendulum-v1 at one of :data:`SMOOTHING`'s settings; measure its greedy policy's mean return
    (50 new episodes) and its jerk (:func:`action_jerk` on 20 episodes). Chapter 31 runs two seeds of this,
    ``benchmarks/learning/td3_smoothing.py`` thirty, so that the chapter's verdict rests on more than its own two."""
    import rlkit

    run = rlkit.train(
        "td3", env="Pendulum-v1", framework="tf", seed=seed, total_steps=total_steps, progress=False,
        **SMOOTHING[setting],
    )  # fmt: skip
    config = run.agent.config
    returns = rlkit.evaluate(run.agent, "Pendulum-v1", episodes=50, seed=99)
    return {
        "setting": setting, "seed": seed, "noise": [config.target_noise, config.target_noise_clip],
        "mean_return": float(returns.mean()), "jerk": action_jerk(run.agent, episodes=20),
    }  # fmt: skip


def jerk_ratios(runs: list[dict]) -> dict[int, float]:
    """Per seed, the lowered noise's jerk over the default's (runs as :func:`smoothing_run` returns them):
    below 1, the lowered noise gave the smoother policy."""
    default, lowered = SMOOTHING
    jerk = {(run["setting"], run["seed"]): run["jerk"] for run in runs}
    seeds = sorted(seed for setting, seed in jerk if setting == default and (lowered, seed) in jerk)
    return {seed: jerk[lowered, seed] / jerk[default, seed] for seed in seeds}
