"""Claim C07: how much does DQN over-estimate, and how much of that does the double target remove?

Over-estimation is measured against the truth for the policy the agent acts by: along episodes of its own
greedy policy, the Q-value it predicts for each state, max_a Q(s, a), against the discounted return that
actually followed (Monte Carlo). CartPole-v1's 500-step limit would cut those returns short, so episodes run
with a longer limit and, in episodes that reach it, only the first ``keep`` states count (the return beyond
is then worth gamma^(horizon - keep) < 1% of a step's reward).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np


def q_against_returns(
    agent, episodes: int = 5, gamma: float = 0.99, seed: int = 500, horizon: int = 1_000, keep: int = 500
) -> tuple[float, float]:
    """(mean predicted Q, mean Monte-Carlo discounted return) over the states of greedy CartPole episodes."""
    env = gym.make("CartPole-v1", max_episode_steps=horizon)
    predicted, actual = [], []
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
        predicted.append(agent.q_values(np.asarray(states, dtype=np.float32)).max(axis=1)[:counted])
        actual.append(returns[:counted])
    env.close()
    return float(np.concatenate(predicted).mean()), float(np.concatenate(actual).mean())
