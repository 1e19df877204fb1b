from __future__ import annotations

import numpy as np
import pytest

from rlkit.envs import EnvRunner, make_env, make_vec_env, solve_threshold
from rlkit.errors import RlkitError


def test_unknown_env_gets_one_clear_error_with_a_suggestion():
    with pytest.raises(RlkitError, match="unknown environment 'CartPole-v9'.*Did you mean 'CartPole-v1'"):
        make_env("CartPole-v9")


def test_solve_thresholds_come_from_the_spec():
    assert solve_threshold("CartPole-v1") == 475.0
    assert solve_threshold("Acrobot-v1") == -100.0
    assert solve_threshold("Pendulum-v1") == -200.0


def test_runner_flags_autoreset_steps_and_keeps_truncation_apart(rng):
    # A 12-step time limit makes truncations frequent; random CartPole play makes terminations frequent.
    envs = make_vec_env("CartPole-v1", num_envs=3, seed=0, max_episode_steps=12)
    runner = EnvRunner(envs, seed=0)
    saw_truncation = saw_termination = False
    previous = None
    for _ in range(200):
        batch = runner.step(rng.integers(0, 2, size=3))
        if previous is not None:
            done_before = previous.terminated | previous.truncated
            # the step after a done is the autoreset step, and only that one is invalid
            np.testing.assert_array_equal(batch.valid, ~done_before)
            # valid transitions chain: this step starts where the previous one ended
            chained = ~done_before
            np.testing.assert_array_equal(batch.obs[chained], previous.next_obs[chained])
        saw_truncation |= bool((batch.truncated & ~batch.terminated & batch.valid).any())
        saw_termination |= bool((batch.terminated & batch.valid).any())
        previous = batch
    assert saw_truncation and saw_termination
    returns, lengths = runner.pop_episodes()
    # CartPole pays 1 per step, so each recorded return equals its length, at most the time limit
    assert len(returns) > 20
    np.testing.assert_array_equal(returns, lengths)
    assert lengths.max() <= 12
    runner.close()


def test_the_final_observation_of_a_truncated_episode_is_real():
    envs = make_vec_env("CartPole-v1", num_envs=1, seed=0, max_episode_steps=3)
    runner = EnvRunner(envs, seed=0)
    batches = [runner.step(np.array([0])) for _ in range(4)]
    assert batches[2].truncated[0] and batches[2].valid[0]
    assert not batches[3].valid[0]  # the reset step
    # the reset step's "next observation" is a fresh start, not a continuation of the final one
    assert not np.allclose(batches[3].next_obs, batches[2].next_obs)
    runner.close()


def test_float64_observations_leave_the_runner_as_float32():
    """MuJoCo's observations are float64: the runner casts them once, so acting and storing see float32."""
    import gymnasium as gym

    def float64_cartpole():
        env = gym.make("CartPole-v1")
        space = gym.spaces.Box(env.observation_space.low, env.observation_space.high, dtype=np.float64)
        return gym.wrappers.TransformObservation(env, lambda obs: obs.astype(np.float64), space)

    runner = EnvRunner(gym.vector.SyncVectorEnv([float64_cartpole, float64_cartpole]), seed=0)
    assert runner.obs.dtype == np.float32
    batch = runner.step(np.array([0, 1]))
    assert batch.obs.dtype == batch.next_obs.dtype == runner.obs.dtype == np.float32
    runner.close()
