"""The machinery behind chapter 11's experiments (the experiments themselves run in the notebook)."""

import gymnasium as gym
import numpy as np
import pytest

from course.pitfalls import done_handling, target_network
from rlkit.errors import RlkitError


def test_target_lag_follows_polyak_and_periodic_copies():
    signal = np.arange(10, dtype=float)
    np.testing.assert_array_equal(target_network.target_lag(signal, period=4), [0, 0, 0, 0, 4, 4, 4, 4, 8, 8])
    polyak = target_network.target_lag(signal, tau=0.5)
    assert polyak[1] == 0.5 and polyak[2] == 1.25
    step = np.r_[np.zeros(5), np.ones(200)]
    assert target_network.target_lag(step, tau=0.1)[5 + 10] == pytest.approx(1 - 0.9**11)  # ~1/tau to catch up
    with pytest.raises(ValueError, match="exactly one"):
        target_network.target_lag(signal, tau=0.1, period=3)


def test_truncation_as_termination_and_variants_keep_solved_meaning_the_same():
    env_id = done_handling.register_variant(
        "CartPole-v1", "test-limit", done_handling.TruncationAsTermination, reward_scale=2.0, max_episode_steps=50
    )
    assert env_id == "pitfalls/CartPole-test-limit-v1"
    assert gym.spec(env_id).reward_threshold == pytest.approx(475 * 2 * 50 / 500)
    env = gym.make(env_id)
    obs, _ = env.reset(seed=0)
    steps, terminated, truncated = 0, False, False
    while not (terminated or truncated):  # push towards where the pole falls: it stays up until the time limit
        obs, _, terminated, truncated, _ = env.step(int(obs[2] + obs[3] > 0))
        steps += 1
    assert steps == 50 and terminated and not truncated
    scaled = gym.make(done_handling.register_variant("CartPole-v1", "test-x3", done_handling.scale_rewards(3.0)))
    scaled.reset(seed=0)
    assert scaled.step(0)[1] == 3.0


def test_the_done_filtering_buffer_drops_terminal_transitions_when_handed_to_the_loop():
    buffer = done_handling.DoneFilteringReplayBuffer(10, (2,), with_discounts=True)
    ones = np.ones((3, 2), np.float32)
    buffer.add(ones, np.zeros(3, int), np.ones(3, np.float32), ones, np.array([0.0, 1.0, 0.0]), np.full(3, 0.9))
    assert len(buffer) == 2
    pytest.importorskip("torch")
    import rlkit

    small = {"total_steps": 600, "learning_starts": 300, "hidden_sizes": (8,), "progress": False}
    result = rlkit.train("dqn", buffer_class=done_handling.DoneFilteringReplayBuffer, **small)
    loop_buffer = result.agent.loop.buffer
    assert isinstance(loop_buffer, done_handling.DoneFilteringReplayBuffer) and loop_buffer.discounts is not None
    assert len(result.history.series("episode_return")[1]) > 5  # episodes ended, and none of their ends was kept
    assert loop_buffer.terminated[: len(loop_buffer)].sum() == 0


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_rebinding_soft_update_leaves_the_target_where_it_started(framework):
    pytest.importorskip({"torch": "torch", "tf": "tensorflow"}[framework])
    moved = target_network.rebinding_update_moves_target(framework, steps=5)
    assert moved["rebinding"] == 0.0 and moved["in place"] > 0 and moved["online"] > 0


def test_values_under_time_limit_reach_their_fixed_points():
    values = done_handling.values_under_time_limit(gamma=0.9, limit=5, sweeps=500)
    assert values["bootstrap"][-1] == pytest.approx(10.0)
    assert values["terminate"][-1] == pytest.approx(1 / (1 - 0.9 * 0.8))
    assert done_handling.time_limit_fixed_point(0.9, 5) == pytest.approx(values["terminate"][-1])


def test_normalized_rewards_divide_by_the_running_scale_of_the_return():
    env_id = done_handling.register_variant(
        "CartPole-v1", "test-x100-normalised", done_handling.scale_rewards(100.0), normalize_rewards=True
    )
    assert gym.spec(env_id).reward_threshold is None  # normalised rewards have no fixed unit
    env = gym.make(env_id)
    env.reset(seed=0)
    returns, rewards = [], []
    for _ in range(8):
        obs, reward, terminated, truncated, _ = env.step(0)
        returns.append(100.0 + 0.99 * (returns[-1] if returns else 0.0))
        rewards.append(reward)
        if terminated or truncated:
            break
    # each later reward is 100 over the std of the discounted returns so far (up to RewardScaler's prior)
    for step, reward in enumerate(rewards[1:], start=1):
        assert reward == pytest.approx(100.0 / np.std(returns[: step + 1]), rel=1e-3)
    assert rewards[0] == 10.0  # the first one, over a spread of ~0, is clipped at RewardScaler's clip


def test_bucketed_replay_draws_its_share_from_the_top_bucket():
    from course.pitfalls.bucketed_replay import BucketedReplayBuffer

    buffer = BucketedReplayBuffer(100, (1,), seed=0, high_fraction=0.25)
    with pytest.raises(RlkitError, match="empty"):
        buffer.sample_many(1, 8)
    obs = np.arange(100, dtype=np.float32)[:, None]
    buffer.add(obs, np.zeros(100, int), np.ones(100, np.float32), obs, np.zeros(100, np.float32))
    assert (buffer.buckets() == 3).all()  # new transitions enter with the largest error seen so far (1.0)
    errors = np.full(100, 0.05)
    errors[[7, 42]] = 3.0  # two transitions in the top bucket (|TD| >= 2), the rest in the lowest
    buffer.update_priorities(np.arange(100), errors)
    np.testing.assert_array_equal(np.bincount(buffer.buckets(), minlength=5), [98, 0, 0, 0, 2])
    batches = buffer.sample_many(50, 8)
    assert batches["indices"].shape == (50, 8) and (batches["weights"] == 1).all()
    assert np.isin(batches["indices"][:, :2], [7, 42]).all()  # 25% of 8: the first 2 of every batch
    assert batches["obs"][0, 0, 0] == batches["indices"][0, 0]  # the gathered fields match the indices
    assert len(np.unique(batches["indices"][:, 2:])) > 80  # the rest is uniform: 300 draws reach most of 100
    with pytest.raises(ValueError, match="high_fraction"):
        BucketedReplayBuffer(10, (1,), high_fraction=1.5)
