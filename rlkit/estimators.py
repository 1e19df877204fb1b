"""Policy-gradient estimators, in numpy, for the REINFORCE chapter.

A linear softmax policy ``pi(a|s) = softmax(s @ W)`` has a closed-form score function,
``grad_W log pi(a|s) = outer(s, onehot(a) - pi(.|s))``, so the whole REINFORCE family fits in a few lines of
numpy and its gradient estimates can be sampled thousands of times to measure their variance.

Estimators of the gradient from one episode, ``sum_t grad log pi(a_t|s_t) * weight_t``:

* ``"return"``: every step weighted by the episode's whole discounted return (Williams' REINFORCE);
* ``"reward_to_go"``: step t weighted by the return from t on (past rewards do not depend on a_t);
* ``"baseline"``: the reward-to-go minus a baseline b_t, here the mean reward-to-go at step t.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlkit.envs import make_vec_env

ESTIMATORS = ("return", "reward_to_go", "baseline")


@dataclass
class Episode:
    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray


class LinearSoftmaxPolicy:
    """``pi(a|s) = softmax(s @ W)`` with a closed-form score function."""

    def __init__(self, obs_dim: int, n_actions: int, weights: np.ndarray | None = None) -> None:
        self.weights = np.zeros((obs_dim, n_actions)) if weights is None else np.asarray(weights, dtype=np.float64)

    def probs(self, obs: np.ndarray) -> np.ndarray:
        logits = obs @ self.weights
        logits -= logits.max(axis=-1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=-1, keepdims=True)

    def sample(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        cumulative = self.probs(obs).cumsum(axis=-1)
        return (rng.random((len(obs), 1)) > cumulative).sum(axis=-1).clip(max=self.weights.shape[1] - 1)

    def score(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """grad_W log pi(a|s) for each row: shape (T, obs_dim, n_actions)."""
        onehot = np.eye(self.weights.shape[1])[actions]
        return obs[:, :, None] * (onehot - self.probs(obs))[:, None, :]


def collect_episodes(policy: LinearSoftmaxPolicy, env_id: str, episodes: int, seed: int) -> list[Episode]:
    """Run ``episodes`` complete episodes side by side in a vector env (one per sub-environment)."""
    envs = make_vec_env(env_id, episodes, seed=seed)
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    running = np.ones(episodes, dtype=bool)
    trace_obs, trace_actions, trace_rewards, trace_running = [], [], [], []
    while running.any():
        actions = policy.sample(obs, rng)
        next_obs, rewards, terminated, truncated, _ = envs.step(actions)
        trace_obs.append(obs), trace_actions.append(actions), trace_rewards.append(rewards)
        trace_running.append(running.copy())
        running &= ~(terminated | truncated)
        obs = next_obs
    envs.close()
    alive = np.array(trace_running)
    return [
        Episode(np.array(trace_obs)[alive[:, i], i], np.array(trace_actions)[alive[:, i], i],
                np.array(trace_rewards)[alive[:, i], i])
        for i in range(episodes)
    ]  # fmt: skip


def rewards_to_go(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """G_t = sum_{k >= t} gamma^(k - t) r_k for one episode."""
    returns = np.zeros(len(rewards))
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        returns[t] = running
    return returns


def gradient_estimates(
    policy: LinearSoftmaxPolicy, episodes: list[Episode], estimator: str, gamma: float
) -> np.ndarray:
    """One flattened gradient estimate per episode, shape (episodes, obs_dim * n_actions)."""
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    to_go = [rewards_to_go(e.rewards, gamma) for e in episodes]
    baseline = np.zeros(max(len(g) for g in to_go))
    if estimator == "baseline":
        padded = np.full((len(to_go), len(baseline)), np.nan)
        for i, g in enumerate(to_go):
            padded[i, : len(g)] = g
        baseline = np.nanmean(padded, axis=0)
    estimates = []
    for episode, g in zip(episodes, to_go, strict=True):
        if estimator == "return":
            weights = np.full(len(g), g[0])
        else:
            weights = g - baseline[: len(g)]
        estimates.append((policy.score(episode.obs, episode.actions) * weights[:, None, None]).sum(axis=0).ravel())
    return np.array(estimates)


def relative_variance(estimates: np.ndarray) -> float:
    """Total variance of the estimates divided by the squared norm of their mean (scale-free)."""
    mean = estimates.mean(axis=0)
    return float(estimates.var(axis=0).sum() / (mean @ mean))


def reinforce(
    env_id: str = "CartPole-v1",
    estimator: str = "baseline",
    iterations: int = 60,
    episodes_per_iteration: int = 16,
    learning_rate: float = 0.01,
    gamma: float = 0.99,
    seed: int = 0,
) -> np.ndarray:
    """Train a linear softmax policy with REINFORCE; returns the mean episode return of every iteration."""
    probe = make_vec_env(env_id, 1)
    policy = LinearSoftmaxPolicy(probe.single_observation_space.shape[0], int(probe.single_action_space.n))
    probe.close()
    history = []
    for iteration in range(iterations):
        episodes = collect_episodes(policy, env_id, episodes_per_iteration, seed=seed * 100_000 + iteration * 100)
        history.append(np.mean([e.rewards.sum() for e in episodes]))
        gradient = gradient_estimates(policy, episodes, estimator, gamma).mean(axis=0)
        policy.weights += learning_rate * gradient.reshape(policy.weights.shape)
    return np.array(history)
