"""The machinery behind the experiments of chapters 30-32 (DDPG, TD3, SAC); the experiments run in the notebooks.

Each test checks that a measurement can tell the two outcomes apart: the sparse reward from the dense one, the
fake delay from the real one, a clamped value from an unclamped one.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from course.pitfalls import action_smoothness, alpha_tape, pendulum_reward, q_clamp, target_no_grad, tf_function_state
from course.pitfalls.done_handling import register_variant
from rlkit.envs import solve_threshold


class SparsePendulum(gym.Wrapper):
    """Pendulum with the reward a sparse task would give: 1 near upright, 0 elsewhere."""

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, float(obs[0] > 0.99), terminated, truncated, info


def test_reward_check_separates_the_documented_reward_from_cosine_and_from_a_sparse_one():
    dense = pendulum_reward.reward_formula_check(steps=400)
    assert dense["max_gap_documented"] < 1e-6 and dense["max_gap_cosine"] > 1.0
    assert dense["nonzero_fraction"] == 1.0 and dense["distinct_rewards"] > 300
    sparse = pendulum_reward.reward_formula_check(
        steps=400, env_id=register_variant("Pendulum-v1", "test-sparse", SparsePendulum)
    )
    assert sparse["nonzero_fraction"] < 0.5 and sparse["distinct_rewards"] <= 2
    assert sparse["max_gap_documented"] > 1.0  # the formula check notices the reward is not Pendulum's


def test_threshold_copy_of_pendulum_moves_only_the_stopping_line():
    env_id = pendulum_reward.register_pendulum_threshold(-150.0)
    assert solve_threshold(env_id) == -150.0 and solve_threshold("Pendulum-v1") == -200.0
    copy, original = gym.make(env_id), gym.make("Pendulum-v1")
    copy.reset(seed=3)
    original.reset(seed=3)
    for _ in range(5):
        a, b = copy.step(np.array([1.0], np.float32)), original.step(np.array([1.0], np.float32))
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]
    copy.reset(seed=0)
    steps, done = 0, False
    while not done:
        *_, terminated, truncated, _ = copy.step(np.array([0.0], np.float32))
        steps, done = steps + 1, terminated or truncated
    assert steps == 200  # the time limit of the original, once


def test_episodes_to_reach_reports_none_when_the_budget_is_too_short():
    reached = pendulum_reward.episodes_to_reach(-150.0, seeds=(0,), max_episodes=5)  # only random actions
    assert reached[0]["episodes"] is None and len(reached[0]["eval_returns"]) == 1


def test_delayed_update_forms_tell_the_fake_delay_from_the_real_ones():
    forms = tf_function_state.delayed_update_counts(calls=6, delay=2)
    assert [key for key, _ in tf_function_state.COUNTER_FORMS] == list(forms)
    attribute = forms["attribute"]
    assert attribute["traces"] == 1 and attribute["counter"] == 1 and attribute["due_steps"] == []
    argument = forms["int argument"]
    assert argument["traces"] == 6 and argument["due_steps"] == [2, 4, 6]
    for key in ("variable", "tensor argument"):
        assert forms[key]["traces"] == 1 and forms[key]["due_steps"] == [2, 4, 6]
        assert forms[key]["actor_updates"] == forms[key]["expected_updates"] == 3
    assert forms["variable"]["counter"] == 6 and forms["variable"]["retracing_warnings"] == 0


def test_numpy_noise_is_frozen_by_tracing_and_graph_noise_is_not():
    draws = tf_function_state.noise_inside_tf_function(calls=4)
    assert len(set(draws["np.random inside"])) == 1
    assert len(set(draws["tf.random inside"])) == len(set(draws["noise passed in"])) == 4


def test_clamped_learner_clamps_the_bootstrap_value_and_counts_what_it_clamped(rng):
    import torch

    from rlkit.algos.td3 import TD3Config

    learner = q_clamp.clamped_td3_learner(-0.01, 0.01)(obs_dim=3, action_dim=1, config=TD3Config(), seed=0)
    next_obs = torch.from_numpy(rng.normal(size=(64, 3)).astype(np.float32))
    noise = torch.from_numpy(rng.standard_normal((1, 64, 1)).astype(np.float32))
    value = learner.next_value(next_obs, noise)
    assert value.abs().max() <= 0.01 and learner.targets_seen == 64
    assert 0 < learner.targets_clamped <= 64
    free = q_clamp.clamped_td3_learner(-np.inf, np.inf)(obs_dim=3, action_dim=1, config=TD3Config(), seed=0)
    free.next_value(next_obs, noise)
    assert free.targets_clamped == 0


def test_random_policy_values_are_discounted_returns_to_go():
    values = q_clamp.random_policy_values(episodes=1)
    assert len(values) == 200 and values.max() <= 0
    assert values.min() > q_clamp.LOWEST_REWARD / (1 - 0.99)  # within the range the reward allows


def test_action_jerk_measures_the_change_of_the_action_per_step():
    class Constant:
        def policy(self, obs):
            return np.full((len(obs), 1), 0.3, np.float32)

        def to_env(self, actions):
            return 2.0 * actions

    class Alternating(Constant):
        sign = 1.0

        def policy(self, obs):
            self.sign = -self.sign
            return np.full((len(obs), 1), self.sign, np.float32)

    assert action_smoothness.action_jerk(Constant(), episodes=2) == 0.0
    assert action_smoothness.action_jerk(Alternating(), episodes=2) == pytest.approx(2.0)


def test_no_grad_ways_differ_in_graph_kept_and_gradients_on_the_targets():
    def way(name):
        return target_no_grad.run_updates(*target_no_grad.WAYS[name], updates=3, batch=32, width=16)

    with_no_grad, attached = way("no_grad, log tensor"), way("no no_grad, log tensor")
    assert with_no_grad["graph_nodes_kept"] == 0 < attached["graph_nodes_kept"]
    assert attached["gradients_on_targets"] and not with_no_grad["gradients_on_targets"]
    leaked = way("no no_grad, detach, log tensor")
    assert not leaked["gradients_on_targets"]
    # only the graph no backward pass ran through still holds tensors; the attached one's were freed
    assert leaked["graph_mb_per_update"] > 0 == attached["graph_mb_per_update"] == with_no_grad["graph_mb_per_update"]
    # a missing no_grad alone: the last target's graph was freed by its backward pass; detached, it was not
    alone = way("no no_grad, log .item()")
    assert alone["target_graph_mb_after_update"] == 0 < leaked["target_graph_mb_after_update"]


def test_graph_size_counts_the_nodes_a_tensor_keeps_alive():
    import torch

    leaf = torch.zeros(3, requires_grad=True)
    assert target_no_grad.graph_size(leaf) == 0
    assert target_no_grad.graph_size((leaf * 2).sum()) == 3  # SumBackward, MulBackward, AccumulateGrad


def test_graph_bytes_counts_the_tensors_a_graph_holds_until_backward():
    import torch

    weights = torch.zeros(256, requires_grad=True)
    inputs = torch.ones(1000, 256)
    loss = (inputs * weights).sum()  # weights' gradient needs the inputs: MulBackward saves them
    assert target_no_grad.graph_bytes(weights) == 0
    assert target_no_grad.graph_bytes(loss) == 4 * 1000 * 256
    loss.backward()
    assert target_no_grad.graph_bytes(loss) == 0  # freed by the backward pass


def test_alpha_tape_experiment_names_the_real_traps():
    tape = alpha_tape.alpha_step_experiment()
    assert not tape["sources=[log_alpha]"]["actor_moved"] and tape["sources=[log_alpha]"]["alpha_moved"]
    assert tape["sources=all, log pi attached"]["actor_moved"]
    assert not tape["sources=all, log pi detached"]["actor_moved"]
    assert "originally built with" in tape["reused optimizer"]


def test_temperature_run_keeps_nothing_after_solving_when_it_never_solved():
    run = alpha_tape.temperature_run(alpha_tape.TEMPERATURES["fixed alpha 0.2"], seed=0, total_steps=1_200)
    assert run["solved_at"] is None and len(alpha_tape.after_solving(run)) == 0
    assert run["alpha_end"] == pytest.approx(0.2, rel=1e-5)  # float32 exp(log 0.2)


def test_temperature_summary_keeps_the_evaluations_from_the_first_at_minus_200_on():
    curve = {"setting": "fixed alpha 0.2", "eval_steps": [500, 1_000, 1_500, 2_000], "alpha_end": 0.2}
    runs = [
        {"seed": 3, "solved_at": 1_000, "eval_returns": [-1500, -150, -350, -140], **curve},
        {"seed": 4, "solved_at": None, "eval_returns": [-1500, -900, -700, -600], **curve},
    ]
    summary = alpha_tape.temperature_summary(runs)
    assert list(summary) == ["fixed alpha 0.2"]  # settings without runs are left out
    fixed = summary["fixed alpha 0.2"]
    assert (fixed["seeds"], fixed["solved"], fixed["solve_steps"]) == (2, 1, [1_000])
    assert (fixed["evaluations_after"], fixed["median_after"], fixed["worst_after"]) == (3, -150, -350)
    assert fixed["dip_share"] == pytest.approx(1 / 3) and fixed["seeds_with_dip"] == [3]
