"""The machinery behind the experiments of chapters 00, 01 and 12 (the experiments themselves run there)."""

import gymnasium as gym
import numpy as np
import pytest

from course.pitfalls import acting_speed, broadcasting, dtypes, overestimation, statistics
from rlkit.algos.dqn.config import DQNConfig, initial_q_weights
from rlkit.errors import RlkitError
from rlkit.nets import q_network_forward


def test_broadcast_experiment_tells_the_bug_from_the_right_shapes():
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    buggy = broadcasting.broadcast_td_experiment(batch_size=16, buggy=True)
    right = broadcasting.broadcast_td_experiment(batch_size=16, buggy=False)
    assert set(buggy["target_shapes"].values()) == {(16, 16)}
    assert set(right["target_shapes"].values()) == {(16,)}
    assert buggy["correct_loss"] == pytest.approx(right["correct_loss"])  # the same numbers underneath
    for name in broadcasting.LOSSES:
        wrong, fine = buggy["losses"][name], right["losses"][name]
        # right shapes: the correct loss, and the gradient pulls every Q-value to its own target
        assert fine["loss"] == pytest.approx(right["correct_loss"], rel=1e-5) and not fine["warnings"]
        assert fine["max_target_error"] < 1e-5
        assert fine["bootstrap_spread"] == pytest.approx(right["correct_bootstrap_spread"], rel=1e-4)
        # the bug: another loss, and a bootstrap term that no longer varies with the next state
        assert abs(wrong["loss"] - buggy["correct_loss"]) > 1e-3
        assert wrong["bootstrap_spread"] < 1e-5 < wrong["max_target_error"]
    assert any("target size" in m for m in buggy["losses"]["torch F.mse_loss"]["warnings"])
    assert not buggy["losses"]["hand-written mean"]["warnings"]


def test_dtype_measurements():
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    assert "dtype" in dtypes.torch_float64_error()
    assert dtypes.keras_float64_output_dtype() == "float32"
    sizes = dtypes.update_size_float32_vs_float64(steps=2)
    assert sizes["update_size_float32"] > 0 and sizes["update_size_keras_float64"] > 0
    assert sizes["ratio"] == pytest.approx(1, abs=1e-4) and sizes["ratio_keras_float64"] == pytest.approx(1, abs=1e-4)
    assert sizes["max_relative_difference"] < 1e-3 and sizes["max_relative_difference_keras"] < 1e-3


class _ConstantAgent:
    """Acts by a fixed rule and predicts the same Q-value everywhere."""

    def __init__(self, act, q=7.0):
        self._act, self.q = act, q

    def act(self, obs):
        return self._act(obs)

    def q_values(self, obs):
        return np.full((len(obs), 2), self.q)


def test_greedy_episodes_count_discounted_returns_and_cut_long_episodes():
    gamma = 0.9
    falling = _ConstantAgent(lambda obs: 0)  # always push left: the pole falls within a few dozen steps
    states, returns, lengths = overestimation.greedy_episodes(falling, episodes=2, gamma=gamma, seed=3)
    env = gym.make("CartPole-v1")
    expected_lengths = []
    for episode in range(2):
        env.reset(seed=3 + episode)
        steps, terminated = 0, False
        while not terminated:
            terminated = env.step(0)[2]
            steps += 1
        expected_lengths.append(steps)
    assert lengths.tolist() == expected_lengths and len(states) == sum(expected_lengths)
    first = expected_lengths[0]
    assert returns[0] == pytest.approx((1 - gamma**first) / (1 - gamma))  # every step's reward is 1
    assert returns[first - 1] == pytest.approx(1.0)  # the last step: its own reward only
    predicted, actual = overestimation.q_against_returns(falling, episodes=2, gamma=gamma, seed=3)
    assert predicted == pytest.approx(7.0) and actual == pytest.approx(returns.mean())

    balancing = _ConstantAgent(lambda obs: int(obs[2] + obs[3] > 0))  # survives the 40-step horizon
    states, returns, lengths = overestimation.greedy_episodes(balancing, 2, gamma, horizon=40, keep=10)
    assert lengths.tolist() == [40, 40] and states.shape == (20, 4)
    assert returns[0] == pytest.approx((1 - gamma**40) / (1 - gamma))  # counted to the horizon, not to keep


def test_dueling_streams_add_up_to_the_q_values():
    weights = initial_q_weights(4, 3, DQNConfig(dueling=True, hidden_sizes=(8, 8)), seed=1)
    obs = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
    value, advantages = overestimation.dueling_streams(weights, obs)
    q = q_network_forward(weights, obs, dueling=True)
    assert value.shape == (6,) and advantages.shape == (6, 3)
    np.testing.assert_allclose(value[:, None] + advantages, q, atol=1e-6)
    np.testing.assert_allclose(advantages.mean(axis=1), 0, atol=1e-6)


def test_timings_report_every_way_and_restore_the_thread_setting():
    torch = pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    from rlkit.hardware import default_threads

    timings = acting_speed.time_forward_passes(repeats=3)
    assert list(timings) == ["numpy", "torch", "tf.function", "keras eager", "keras predict"]
    assert all(t > 0 for t in timings.values())
    step = acting_speed.time_update_steps("torch", steps=2, repeats=1, threads=2)
    assert step["wall_ms"] > 0 and step["cpu_ms"] > 0
    assert torch.get_num_threads() == default_threads()
    with pytest.raises(ValueError, match="torch only"):
        acting_speed.time_update_steps("tf", threads=2)


def test_iqm_drops_a_quarter_at_each_end_and_its_interval_brackets_it():
    assert statistics.iqm(np.array([100.0, 1.0, 3.0, 2.0, 4.0])) == 3.0  # mean of 2, 3, 4
    assert statistics.iqm(np.arange(8.0)) == 3.5  # mean of 2..5
    values = np.r_[np.arange(19.0), 1_000.0]  # one outlier among 20 seeds moves the mean's interval, not the IQM's
    point, low, high = statistics.iqm_ci(values)
    assert point == statistics.iqm(values) == 9.5
    assert 0.0 < low < point < high < 18.0


def test_fresh_miss_chance_is_how_often_a_resample_of_the_episodes_misses():
    assert statistics.fresh_miss_chance([500.0] * 20, 475) == 0.0  # every episode solved: never misses
    assert statistics.fresh_miss_chance([-300.0] * 20, -200) == 1.0  # every episode below: always misses
    near = np.r_[np.full(18, -150.0), -500.0, -500.0]  # mean -185, two episodes of a swing-up that failed
    chance = statistics.fresh_miss_chance(near, -200)
    assert 0.2 < chance < 0.5, chance  # solved on these 20, yet a fresh 20 would miss often
    assert statistics.fresh_miss_chance(near, -200, seed=1) == pytest.approx(chance, abs=0.05)
    with pytest.raises(RlkitError, match="one episode return per entry"):
        statistics.fresh_miss_chance([], -200)


def test_sign_test_p_value_is_the_exact_two_sided_binomial_tail():
    assert statistics.sign_test_p_value(10, 20) == 1.0  # an even split is the likeliest outcome
    assert statistics.sign_test_p_value(20, 20) == pytest.approx(2 / 2**20)
    assert statistics.sign_test_p_value(0, 20) == statistics.sign_test_p_value(20, 20)  # two-sided
    assert statistics.sign_test_p_value(15, 20) == pytest.approx(0.0414, abs=1e-4)  # 2 * P(X >= 15)
    assert statistics.sign_test_p_value(14, 20) > 0.05
    with pytest.raises(RlkitError, match="wins must lie in"):
        statistics.sign_test_p_value(21, 20)
