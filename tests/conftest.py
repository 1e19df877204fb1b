"""Shared fixtures. Frameworks are imported lazily inside tests that need them."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def dqn_batch(rng: np.random.Generator, batch_size: int = 32, obs_dim: int = 4, n_actions: int = 2) -> dict:
    """A random batch that satisfies the DQN contract, with some terminal transitions."""
    return {
        "obs": rng.normal(size=(batch_size, obs_dim)).astype(np.float32),
        "actions": rng.integers(0, n_actions, size=batch_size).astype(np.int64),
        "rewards": rng.normal(size=batch_size).astype(np.float32),
        "next_obs": rng.normal(size=(batch_size, obs_dim)).astype(np.float32),
        "terminated": (rng.random(batch_size) < 0.2).astype(np.float32),
    }
