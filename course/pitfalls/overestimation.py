"""Claim C07 and chapter 12's dueling experiment: what a DQN's values say against what its policy earns.

Over-estimation is measured against the truth for the policy the agent acts by: along episodes of its own
greedy policy, the Q-value it predicts for each state, max_a Q(s, a), against the discounted return that
actually followed (Monte Carlo). CartPole-v1's 500-step limit would cut those returns short, so episodes run
with a longer limit and, in episodes that reach it, only the first ``keep`` states count (the return beyond
is then worth gamma^(horizon - keep) < 1% of a step's reward).

For a dueling network the same episodes show what each stream learned: :func:`dueling_streams` splits the
Q-values into the value head's V(s) and the centred advantages A(s, a) - mean_a A(s, a).
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np


def greedy_episodes(
    agent, episodes: int = 5, gamma: float = 0.99, seed: int = 500, horizon: int = 1_000, keep: int = 500
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """States, Monte-Carlo discounted returns and episode lengths of greedy CartPole episodes.

    The states are those counted for over-estimation (all of an episode that terminated, the first ``keep``
    of one cut at ``horizon``); the lengths are the full episodes' (undiscounted returns, at most ``horizon``).
    """
    env = gym.make("CartPole-v1", max_episode_steps=horizon)
    kept_states, kept_returns, lengths = [], [], []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        states, rewards, truncated, done = [], [], False, False
        while not done:
            states.append(obs)
            obs, reward, terminated, truncated, _ = env.step(agent.act(obs))
            rewards.append(reward)
            done = terminated or truncated
        returns, to_go = np.zeros(len(rewards)), 0.0
        for step in range(len(rewards) - 1, -1, -1):
            to_go = rewards[step] + gamma * to_go
            returns[step] = to_go
        counted = min(keep, len(rewards)) if truncated else len(rewards)
        kept_states.append(np.asarray(states[:counted], dtype=np.float32))
        kept_returns.append(returns[:counted])
        lengths.append(len(rewards))
    env.close()
    return np.concatenate(kept_states), np.concatenate(kept_returns), np.asarray(lengths)


def q_against_returns(
    agent, episodes: int = 5, gamma: float = 0.99, seed: int = 500, horizon: int = 1_000, keep: int = 500
) -> tuple[float, float]:
    """(mean predicted Q, mean Monte-Carlo discounted return) over the states of greedy CartPole episodes."""
    states, returns, _ = greedy_episodes(agent, episodes, gamma, seed, horizon, keep)
    return float(agent.q_values(states).max(axis=1).mean()), float(returns.mean())


def dueling_streams(weights: Sequence[np.ndarray], obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The value stream V(s) (B,) and the centred advantages A(s, a) - mean_a A(s, a) (B, A) of a dueling
    Q-network (weights in ``get_weights`` order: trunk, value head, advantage head), computed in numpy.

    Q(s, a) = V(s) + centred A(s, a) exactly, which is how the network combines them.
    """
    hidden = np.asarray(obs, dtype=np.float32)
    for kernel, bias in zip(weights[:-4:2], weights[1:-4:2], strict=True):
        hidden = np.maximum(hidden @ kernel + bias, 0.0)
    value = (hidden @ weights[-4] + weights[-3])[:, 0]
    advantages = hidden @ weights[-2] + weights[-1]
    return value, advantages - advantages.mean(axis=1, keepdims=True)
