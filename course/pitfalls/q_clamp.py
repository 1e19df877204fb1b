"""Claim C29: does clamping Q-values to [-100, 100] prevent critic explosions?

A Q-value is a discounted sum of rewards, so its true range follows from the reward's: on Pendulum-v1
(rewards in [-16.3, 0], gamma 0.99) from about -1,630 to 0. The experiment trains TD3 with its bootstrap
value V(s') clamped to a range, and compares the critic's mean Q and the returns with an unclamped run.
A second experiment (:func:`exploding_critic_runs`) makes the critic explode on purpose, on rewards scaled so
that every true value lies inside the clamp, and compares the clamped and unclamped critics there.
"""

from __future__ import annotations

import numpy as np

from rlkit.algos.td3 import TD3Agent, TD3Config
from rlkit.algos.training import train_agent
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

        def next_value(self, next_obs, noise):
            value = super().next_value(next_obs, noise)
            self.targets_seen += value.numel()
            self.targets_clamped += int(((value < low) | (value > high)).sum())
            return value.clamp(low, high)

    return ClampedLearner


def train_clamped_td3(
    low: float,
    high: float,
    seed: int = 0,
    total_steps: int = 8_000,
    env_id: str = "Pendulum-v1",
    **overrides,
) -> TrainResult:
    """Train TD3 (torch) on ``env_id`` with clamped targets; same loop, defaults and seed as ``rlkit.train``.

    ``low=-inf, high=inf`` gives the unclamped run with the same counters."""
    learner = clamped_td3_learner(low, high)

    class ClampedTD3Agent(TD3Agent):
        @classmethod
        def learner_class(cls, framework: str):
            return learner

    config = TD3Config.for_env(env_id, **overrides)
    return train_agent(ClampedTD3Agent, env_id, "torch", seed, total_steps, config, progress=False)


#: Pendulum-v1's lowest reward, -(pi^2 + 0.1 * 8^2 + 0.001 * 2^2): hanging down, at full speed and torque.
LOWEST_REWARD = -16.2736044

#: A critic made to explode: a learning rate 30 times the default, targets copied after every step (tau = 1,
#: no Polyak averaging) and the actor updated on every step (no delay). Each alone is a common mistake.
EXPLODING = {"critic_lr": 3e-2, "tau": 1.0, "policy_delay": 1}


def exploding_critic_runs(
    seeds: tuple[int, ...] = (0, 1, 2),
    total_steps: int = 3_000,
    bound: float = 100.0,
    reward_scale: float = 0.05,
    overrides: dict | None = None,
) -> dict[tuple[str, int], dict[str, float]]:
    """TD3 with an exploding critic (:data:`EXPLODING`), with and without the bootstrap value clamped to
    [-``bound``, ``bound``], at the same seeds and budget.

    Pendulum's rewards are multiplied by ``reward_scale`` so that every true value lies inside the clamp:
    rewards in [-16.3 s, 0] with gamma 0.99 give values in [-1,630 s, 0] (s = ``reward_scale``; -81.5 at the
    default 0.05). A clamp that engages there only ever cuts an error, never a true value: the fair test of a
    clamp as a guard rail. Returned per ``("unclamped" | "clamped", seed)``: ``lowest_true_value``, the lowest
    and highest burst-mean Q (``q_min``, ``q_max``), the largest burst-mean critic loss, the share of
    bootstrap values clamped, and the best greedy evaluation in Pendulum's own reward units.
    """
    from course.pitfalls.done_handling import register_variant, scale_rewards

    env_id = register_variant("Pendulum-v1", "scaled-rewards", scale_rewards(reward_scale), reward_scale)
    settings = {**EXPLODING, **(overrides or {})}
    gamma = settings.get("gamma", TD3Config().gamma)
    lowest_true_value = LOWEST_REWARD * reward_scale / (1.0 - gamma)
    results = {}
    for seed in seeds:
        for label, (low, high) in (("unclamped", (-np.inf, np.inf)), ("clamped", (-bound, bound))):
            run = train_clamped_td3(low, high, seed=seed, total_steps=total_steps, env_id=env_id, **settings)
            q = run.history.series("q_mean")[1]
            learner = run.agent.learner
            results[label, seed] = {
                "lowest_true_value": lowest_true_value,
                "q_min": float(q.min()),
                "q_max": float(q.max()),
                "critic_loss_max": float(run.history.series("critic_loss")[1].max()),
                "share_clamped": learner.targets_clamped / max(learner.targets_seen, 1),
                "best_eval_return": float(run.history.series("eval_return")[1].max()) / reward_scale,
            }
    return results
