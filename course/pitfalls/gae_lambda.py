"""Claim C20: in GAE, a higher lambda means more bias and a lower lambda more variance.

The experiment uses a chain whose true values are known: ``horizon`` steps, a noisy reward of mean 1 at each
step, discount ``gamma``. The critic is deliberately wrong (every value off by ``value_error`` relative) and
the lambda-return ``A + V`` that GAE gives is compared with the true value of the first state, over many
sampled episodes: its bias (mean error), its variance and their sum of squares (the mean squared error), for
each lambda. Which lambda has the smallest error depends on how wrong the critic is.
"""

from __future__ import annotations

import numpy as np

from rlkit.advantages import compute_gae


def lambda_bias_variance(
    lambdas: tuple[float, ...] = (0.0, 0.5, 0.8, 0.9, 0.95, 1.0),
    gamma: float = 0.99,
    horizon: int = 50,
    reward_std: float = 1.0,
    value_error: float = -0.3,
    episodes: int = 2000,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Bias, variance and mean squared error (bias^2 + variance) of the lambda-return of the first state, for
    each lambda; with the first state's true value and the critic's relative error there (``critic_error``)."""
    rng = np.random.default_rng(seed)
    steps_left = horizon - np.arange(horizon + 1)
    true_values = (1 - gamma**steps_left) / (1 - gamma)  # sum of gamma^k for the remaining steps
    critic = (1 + value_error) * true_values
    critic[-1] = 0.0
    rewards = rng.normal(1.0, reward_std, size=(horizon, episodes))
    values = np.repeat(critic[:, None], episodes, axis=1)
    terminated = np.zeros((horizon, episodes))
    terminated[-1] = 1.0
    valid = np.ones((horizon, episodes), dtype=bool)
    bias, variance = [], []
    for lam in lambdas:
        _, returns = compute_gae(rewards, values, terminated, terminated, valid, gamma, lam)
        estimates = returns[0].astype(np.float64)
        bias.append(estimates.mean() - true_values[0])
        variance.append(estimates.var())
    bias, variance = np.asarray(bias), np.asarray(variance)
    return {"lambdas": np.asarray(lambdas), "bias": bias, "variance": variance, "mse": bias**2 + variance,
            "true_value": float(true_values[0]),
            "critic_error": float(critic[0] / true_values[0] - 1)}  # fmt: skip
