"""GAE against a slow reference, on rollouts with terminations, truncations and autoreset steps."""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.advantages import compute_gae, gae_reference
from rlkit.buffers import RolloutBuffer
from rlkit.envs import EnvRunner, make_vec_env


def random_rollout(rng, steps=40, envs=3):
    terminated = rng.random((steps, envs)) < 0.08
    truncated = (rng.random((steps, envs)) < 0.08) & ~terminated
    dones = terminated | truncated
    valid = np.ones((steps, envs), dtype=bool)
    valid[1:] = ~dones[:-1]  # the step after each done is an autoreset step
    rewards = np.where(valid, rng.normal(size=(steps, envs)), 0.0)
    values = rng.normal(size=(steps + 1, envs))
    return rewards, values, terminated.astype(float), dones.astype(float), valid


@pytest.mark.parametrize(("gamma", "lam"), [(0.99, 0.95), (0.9, 1.0), (0.99, 0.0)])
def test_gae_matches_the_slow_reference(gamma, lam, rng):
    rollout = random_rollout(rng)
    advantages, returns = compute_gae(*rollout, gamma, lam)
    np.testing.assert_allclose(advantages, gae_reference(*rollout, gamma, lam), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(returns, advantages + rollout[1][:-1], rtol=1e-5, atol=1e-5)


def test_lambda_zero_is_one_step_td_and_lambda_one_is_the_discounted_return():
    rewards = np.array([[1.0], [1.0], [1.0]])
    values = np.array([[0.5], [0.5], [0.5], [2.0]])
    no = np.zeros((3, 1))
    valid = np.ones((3, 1), dtype=bool)
    td, _ = compute_gae(rewards, values, no, no, valid, 0.9, 0.0)
    np.testing.assert_allclose(td[:, 0], [1 + 0.9 * 0.5 - 0.5, 1 + 0.9 * 0.5 - 0.5, 1 + 0.9 * 2.0 - 0.5])
    _, mc = compute_gae(rewards, values, no, no, valid, 0.9, 1.0)
    np.testing.assert_allclose(mc[0, 0], 1 + 0.9 + 0.81 + 0.729 * 2.0, rtol=1e-6)


def test_truncation_bootstraps_and_termination_does_not():
    rewards = np.array([[1.0, 1.0]])
    values = np.array([[0.0, 0.0], [10.0, 10.0]])
    terminated = np.array([[1.0, 0.0]])  # env 0 terminated; env 1 truncated
    dones = np.array([[1.0, 1.0]])
    advantages, _ = compute_gae(rewards, values, terminated, dones, np.ones((1, 2), bool), 0.5, 0.9)
    np.testing.assert_allclose(advantages[0], [1.0, 1.0 + 0.5 * 10.0])


def test_autoreset_steps_get_no_advantage_and_are_dropped(rng):
    rollout = random_rollout(rng)
    advantages, _ = compute_gae(*rollout, 0.99, 0.95)
    assert (advantages[~rollout[4]] == 0).all()


def test_rollout_buffer_keeps_only_valid_transitions():
    envs = make_vec_env("CartPole-v1", num_envs=2, seed=0, max_episode_steps=3)
    runner = EnvRunner(envs, seed=0)
    buffer = RolloutBuffer(8, 2, (4,))
    for _ in range(8):
        obs = runner.obs
        batch = runner.step(np.zeros(2, dtype=np.int64))
        buffer.add(obs, batch.actions, batch.rewards, batch.terminated, batch.truncated, batch.valid)
    buffer.finish(runner.obs)
    data = buffer.flatten(advantages=np.arange(16, dtype=np.float32).reshape(8, 2))
    assert len(data["obs"]) == buffer.valid.sum() == 12  # 8 steps = 3 valid, 1 reset, 3 valid, 1 reset (x2)
    assert set(data) == {"obs", "actions", "advantages"}
    assert np.array_equal(buffer.obs[-1], runner.obs)
    runner.close()
