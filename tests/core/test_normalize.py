from __future__ import annotations

import numpy as np
import pytest

from rlkit.normalize import ObservationNormalizer, RewardScaler, RunningMeanStd


def test_running_statistics_match_numpy_over_many_batches(rng):
    data = rng.normal(3.0, 2.0, size=(1000, 4))
    stats = RunningMeanStd((4,))
    for chunk in np.array_split(data, 17):
        stats.update(chunk)
    np.testing.assert_allclose(stats.mean, data.mean(axis=0), rtol=1e-4)
    np.testing.assert_allclose(stats.var, data.var(axis=0), rtol=1e-3)


def test_observation_normalizer_standardises_clips_and_round_trips(rng):
    normalizer = ObservationNormalizer((2,), clip=3.0)
    out = normalizer(rng.normal(5.0, 10.0, size=(5000, 2)), update=True)
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1) < 0.05 and out.dtype == np.float32
    assert normalizer(np.array([[1e6, -1e6]])).tolist() == [[3.0, -3.0]]
    copy = ObservationNormalizer((2,))
    copy.stats.load_state(normalizer.stats.state())
    np.testing.assert_array_equal(copy(np.ones((1, 2))), normalizer(np.ones((1, 2))))


def test_disabled_normalizers_pass_values_through():
    obs = np.array([[100.0, -3.0]])
    np.testing.assert_array_equal(ObservationNormalizer((2,), enabled=False)(obs, update=True), obs)
    rewards = np.array([5.0])
    np.testing.assert_array_equal(RewardScaler(1, 0.99, enabled=False)(rewards, np.array([False])), rewards)


def test_reward_scaler_divides_by_the_discounted_return_std():
    scaler = RewardScaler(num_envs=1, gamma=0.9)
    for _ in range(2000):
        scaled = scaler(np.array([10.0]), np.array([False]))
    # the discounted returns it has seen: 10, 19, 27.1, ... -> 100; their spread is the scale
    seen = 10.0 * (1 - 0.9 ** np.arange(1, 2001)) / (1 - 0.9)
    assert scaled[0] == pytest.approx(10.0 / seen.std(), rel=1e-3)
    scaled_done = scaler(np.array([10.0]), np.array([True]))  # a done resets the running return
    assert scaler.returns[0] == 0.0 and scaled_done[0] == pytest.approx(scaled[0], rel=1e-2)
