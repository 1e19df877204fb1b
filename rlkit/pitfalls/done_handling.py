"""Claims C09, C10 and C04: what the replay buffer and the environment hand DQN, changed on purpose.

Each change is made where a real bug would make it, so the unchanged training loop runs on top:

* :func:`register_variant` registers a wrapped copy of an environment under a new gymnasium id, e.g. one
  whose time limit reports ``terminated`` (the ``done = terminated or truncated`` habit, C10), or with scaled
  rewards (C04). ``rlkit.train`` then accepts the new id.
* :func:`dropping_done_transitions` makes DQN's replay buffer skip every transition whose next state is
  terminal, the ``if not done: buffer.push(...)`` of claim C09.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import gymnasium as gym
import numpy as np

from rlkit.buffers import ReplayBuffer
from rlkit.pitfalls.buffer_swap import swapped_dqn_buffer

NAMESPACE = "pitfalls"


class TruncationAsTermination(gym.Wrapper):
    """Reports the end of every episode as ``terminated``, as ``done = terminated or truncated`` does."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated or truncated, False, info


def scale_rewards(scale: float) -> Callable[[gym.Env], gym.Env]:
    """A wrapper factory multiplying every reward by ``scale``."""
    return lambda env: gym.wrappers.TransformReward(env, lambda reward: scale * reward)


def register_variant(
    env_id: str,
    name: str,
    wrapper: Callable[[gym.Env], gym.Env] | None = None,
    reward_scale: float = 1.0,
    max_episode_steps: int | None = None,
) -> str:
    """Register ``wrapper(gymnasium.make(env_id, max_episode_steps=...))`` as
    ``pitfalls/<env name>-<name>-v<version>`` and return that id.

    Its solve threshold is the original one times ``reward_scale`` and, for a shorter time limit, times the
    fraction of the original limit that is left, so "solved" keeps its meaning.
    """
    spec = gym.spec(env_id)
    variant_id = f"{NAMESPACE}/{spec.name}-{name}-v{spec.version or 0}"
    limit = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
    threshold = spec.reward_threshold
    if threshold is not None:
        threshold *= reward_scale * (max_episode_steps or spec.max_episode_steps) / spec.max_episode_steps

    def make(**kwargs) -> gym.Env:
        env = gym.make(env_id, **limit, **kwargs)
        return env if wrapper is None else wrapper(env)

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


def dropping_done_transitions() -> contextlib.AbstractContextManager:
    """Inside this block, DQN's training loop stores its transitions in a :class:`DoneFilteringReplayBuffer`."""
    return swapped_dqn_buffer(
        lambda config, obs_dim, seed: DoneFilteringReplayBuffer(
            config.buffer_size, (obs_dim,), seed=seed, with_discounts=True
        )
    )


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
