"""Claims C09, C10 and C04: what the replay buffer and the environment hand DQN, changed on purpose.

Each change is made where a real bug would make it, so the unchanged training loop runs on top:

* :func:`register_variant` registers a wrapped copy of an environment under a new gymnasium id, e.g. one
  whose time limit reports ``terminated`` (the ``done = terminated or truncated`` habit, C10), or with scaled
  rewards, normalised or not (C04). ``rlkit.train`` then accepts the new id.
* :class:`DoneFilteringReplayBuffer`, passed as ``rlkit.train("dqn", buffer_class=...)``, skips every
  transition whose next state is terminal, the ``if not done: buffer.push(...)`` of claim C09.
* :func:`time_limit_run` trains DQN with a time limit recorded either way and returns the values it learns,
  to set against :func:`time_limit_fixed_point` (C10); :func:`values_under_time_limit` asks the same
  question on a task small enough to solve exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np

from rlkit.buffers import ReplayBuffer
from rlkit.normalize import RewardScaler

NAMESPACE = "pitfalls"


class TruncationAsTermination(gym.Wrapper):
    """Reports the end of every episode as ``terminated``, as ``done = terminated or truncated`` does."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated or truncated, False, info


def scale_rewards(scale: float) -> Callable[[gym.Env], gym.Env]:
    """A wrapper factory multiplying every reward by ``scale``."""
    return lambda env: gym.wrappers.TransformReward(env, lambda reward: scale * reward)


class NormalizedRewards(gym.Wrapper):
    """Divides every reward by the running standard deviation of the discounted return, as claim C04 advises
    (:class:`rlkit.normalize.RewardScaler`, the normalisation most PPO implementations use).

    The statistics start afresh in every environment it wraps, evaluation ones included, so a return
    measured under it is in normalised units: judge a policy on the unwrapped task instead.
    """

    def __init__(self, env: gym.Env, gamma: float = 0.99) -> None:  # gamma: DQN's default discount
        super().__init__(env)
        self.scaler = RewardScaler(num_envs=1, gamma=gamma)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        scaled = self.scaler(np.array([reward], np.float64), np.array([terminated or truncated]))
        return obs, float(scaled[0]), terminated, truncated, info


def register_variant(
    env_id: str,
    name: str,
    wrapper: Callable[[gym.Env], gym.Env] | None = None,
    reward_scale: float = 1.0,
    max_episode_steps: int | None = None,
    normalize_rewards: bool = False,
) -> str:
    """Register ``wrapper(gymnasium.make(env_id, max_episode_steps=...))`` as
    ``pitfalls/<env name>-<name>-v<version>`` and return that id; with ``normalize_rewards``, the rewards
    that come out of ``wrapper`` are then divided by their running scale (:class:`NormalizedRewards`).

    Its solve threshold is the original one times ``reward_scale`` and, for a shorter time limit, times the
    fraction of the original limit that is left, so "solved" keeps its meaning. Normalised rewards have no
    fixed scale, so such a variant has no threshold.
    """
    spec = gym.spec(env_id)
    variant_id = f"{NAMESPACE}/{spec.name}-{name}-v{spec.version or 0}"
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    threshold = None if normalize_rewards else spec.reward_threshold
    if threshold is not None:
        threshold *= reward_scale * (max_episode_steps or spec.max_episode_steps) / spec.max_episode_steps

    def make(**kwargs) -> gym.Env:
        env = gym.make(env_id, **limit, **kwargs)
        env = env if wrapper is None else wrapper(env)
        return NormalizedRewards(env) if normalize_rewards else env

    gym.registry.pop(variant_id, None)  # registering again replaces the variant instead of warning
    gym.register(variant_id, entry_point=make, reward_threshold=threshold)
    return variant_id


class DoneFilteringReplayBuffer(ReplayBuffer):
    """A replay buffer that silently drops transitions into a terminal state (claim C09's advice)."""

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        keep = np.asarray(terminated) == 0
        super().add(
            obs[keep], actions[keep], rewards[keep], next_obs[keep], terminated[keep],
            None if discounts is None else discounts[keep],
        )  # fmt: skip


def values_under_time_limit(gamma: float = 0.99, limit: int = 20, sweeps: int = 1_000) -> dict[str, np.ndarray]:
    """The value Q-learning converges to on a task that never ends but is cut every ``limit`` steps, when the
    observation does not show the clock (one observation, reward 1 per step), after each of ``sweeps``
    Bellman backups over one episode's transitions.

    "bootstrap": the cut is a truncation (target r + gamma V everywhere), so V tends to 1 / (1 - gamma).
    "terminate": the cut is recorded as termination, so one transition in ``limit`` has target r alone and
    V tends to 1 / (1 - gamma (1 - 1 / limit)), however good the policy is.
    """
    ends = np.zeros(limit)
    ends[-1] = 1.0
    histories = {}
    for name, terminated in (("bootstrap", np.zeros(limit)), ("terminate", ends)):
        value, history = 0.0, np.empty(sweeps)
        for sweep in range(sweeps):
            value = float(np.mean(1.0 + gamma * (1.0 - terminated) * value))
            history[sweep] = value
        histories[name] = history
    return histories


def time_limit_fixed_point(gamma: float, limit: int) -> float:
    """The value every state converges to when reward 1 comes each step, a cut every ``limit`` steps is
    recorded as termination, and no state can be told from another: each is one step from the end with
    probability 1 / limit, so V = 1 + gamma (1 - 1 / limit) V (the "terminate" fixed point of
    :func:`values_under_time_limit`). Bootstrapping through the cut gives 1 / (1 - gamma) instead."""
    return 1 / (1 - gamma * (1 - 1 / limit))


def time_limit_run(
    limit: int = 50,
    total_steps: int = 7_500,
    seed: int = 0,
    framework: str = "tf",
    losses: dict[str, float] | None = None,
    **config,
) -> dict[tuple[str, str], dict]:
    """Train DQN on CartPole cut at ``limit`` steps, with the cut recorded as a truncation ("bootstrap") and
    as a termination ("terminate", :class:`TruncationAsTermination`), once for each loss in ``losses`` (a
    name and its ``huber_delta``; default: DQN's Huber loss, and a squared loss, delta 10^6, never linear).
    ``config`` overrides other DQNConfig fields, the same in every run.

    CartPole's pole stays up for 50 steps long before it stays up for 500, so at a short limit most episodes
    soon end at the cut, and which way it is recorded decides what the values mean. Returns, per
    ``(loss, recording)``: ``q_mean``, the (steps, values) of the mean Q of each replayed batch, and
    ``best eval``, the best greedy evaluation return (at most ``limit``).
    """
    from rlkit.api import train

    losses = {"Huber": 1.0, "squared": 1e6} if losses is None else losses
    variants = {
        "bootstrap": register_variant("CartPole-v1", f"limit{limit}", max_episode_steps=limit),
        "terminate": register_variant(
            "CartPole-v1", f"limit{limit}-terminated", TruncationAsTermination, max_episode_steps=limit
        ),
    }
    runs = {}
    for loss, huber_delta in losses.items():
        for recording, env_id in variants.items():
            result = train(
                "dqn", env=env_id, framework=framework, seed=seed, total_steps=total_steps, progress=False,
                **{**config, "huber_delta": huber_delta},
            )  # fmt: skip
            runs[loss, recording] = {
                "q_mean": result.history.series("q_mean"),
                "best eval": float(result.history.series("eval_return")[1].max()),
            }
    return runs
