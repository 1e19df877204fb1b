"""Exploration noise: scale, temporal correlation, and per-environment resets of the OU process."""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.errors import RlkitError
from rlkit.noise import GaussianNoise, OrnsteinUhlenbeck, make_noise


def test_gaussian_noise_has_the_requested_scale_and_no_memory():
    noise = GaussianNoise(0.3, (4, 2), np.random.default_rng(0))
    draws = np.stack([noise() for _ in range(5_000)])
    assert draws.shape == (5_000, 4, 2) and draws.dtype == np.float32
    assert abs(draws.std() - 0.3) < 0.01
    lag_one = np.corrcoef(draws[:-1, 0, 0], draws[1:, 0, 0])[0, 1]
    assert abs(lag_one) < 0.05


def test_ou_noise_is_correlated_in_time_and_mean_reverting():
    sigma, theta, dt = 0.3, 0.15, 1e-2
    noise = OrnsteinUhlenbeck(sigma, (1, 1), np.random.default_rng(0), theta=theta, dt=dt)
    draws = np.array([noise()[0, 0] for _ in range(100_000)])
    lag_one = np.corrcoef(draws[:-1], draws[1:])[0, 1]
    assert lag_one > 0.99  # one step barely moves it: this is what "correlated exploration" means
    stationary_std = sigma * np.sqrt(dt / (1 - (1 - theta * dt) ** 2))
    assert abs(draws[20_000:].std() / stationary_std - 1) < 0.25


def test_ou_reset_zeroes_only_the_finished_environments():
    noise = OrnsteinUhlenbeck(0.5, (3, 2), np.random.default_rng(1))
    for _ in range(50):
        noise()
    before = noise.state.copy()
    noise.reset(np.array([False, True, False]))
    np.testing.assert_array_equal(noise.state[1], 0.0)
    np.testing.assert_array_equal(noise.state[[0, 2]], before[[0, 2]])
    noise.reset()
    assert not noise.state.any()


def test_unknown_noise_kind_is_refused():
    with pytest.raises(RlkitError, match="'gaussian' or 'ou'"):
        make_noise("pink", 0.1, (1, 1), np.random.default_rng(0))
