"""Exploration noise for deterministic policies (DDPG, TD3), drawn in numpy on the acting side.

Both processes act on actions scaled to [-1, 1], one row per environment of a vector environment. Gaussian
noise is independent from step to step; Ornstein-Uhlenbeck noise is a mean-reverting random walk whose
steps are correlated, which the DDPG paper used for physical control with inertia. :class:`OrnsteinUhlenbeck`
resets each environment's state when its episode ends, so one episode's drift does not leak into the next.
"""

from __future__ import annotations

import numpy as np

from rlkit.errors import RlkitError


class GaussianNoise:
    """Independent N(0, sigma^2) noise per step and action dimension."""

    def __init__(self, sigma: float, shape: tuple[int, ...], rng: np.random.Generator) -> None:
        self.sigma, self.shape, self.rng = sigma, shape, rng

    def __call__(self) -> np.ndarray:
        return (self.sigma * self.rng.standard_normal(self.shape)).astype(np.float32)

    def reset(self, done: np.ndarray | None = None) -> None:
        """Nothing to reset: Gaussian noise has no state."""


class OrnsteinUhlenbeck:
    """x <- x - theta * x * dt + sigma * sqrt(dt) * N(0, 1): noise that drifts, and decays towards 0."""

    def __init__(
        self, sigma: float, shape: tuple[int, ...], rng: np.random.Generator, theta: float = 0.15, dt: float = 1e-2
    ) -> None:
        self.sigma, self.shape, self.rng, self.theta, self.dt = sigma, shape, rng, theta, dt
        self.state = np.zeros(shape, dtype=np.float32)

    def __call__(self) -> np.ndarray:
        drift = -self.theta * self.state * self.dt
        self.state = self.state + drift + self.sigma * np.sqrt(self.dt) * self.rng.standard_normal(self.shape)
        self.state = self.state.astype(np.float32)
        return self.state.copy()

    def reset(self, done: np.ndarray | None = None) -> None:
        """Zero the state of the environments whose episode ended (all of them when ``done`` is None)."""
        if done is None:
            self.state[:] = 0.0
        else:
            self.state[np.asarray(done, dtype=bool)] = 0.0


def make_noise(kind: str, sigma: float, shape: tuple[int, ...], rng: np.random.Generator):
    """``"gaussian"`` or ``"ou"`` noise of scale ``sigma`` and shape (num_envs, action_dim)."""
    if kind == "gaussian":
        return GaussianNoise(sigma, shape, rng)
    if kind == "ou":
        return OrnsteinUhlenbeck(sigma, shape, rng)
    raise RlkitError(f"exploration must be 'gaussian' or 'ou', got {kind!r}")
