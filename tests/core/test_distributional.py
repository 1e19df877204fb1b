"""The C51 projection: numpy, torch and TensorFlow against the paper's loop, and against cases worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.distributional import (
    categorical_support,
    expected_q,
    project_distribution,
    project_distribution_loop,
    softmax,
)


def random_case(rng, batch=32, n_atoms=51, v_min=-10.0, v_max=10.0):
    support = categorical_support(v_min, v_max, n_atoms)
    probs = softmax(rng.normal(size=(batch, n_atoms)) * 2).astype(np.float32)
    rewards = rng.normal(scale=5.0, size=batch).astype(np.float32)  # some shift the support past its ends
    discounts = rng.choice([0.0, 0.5, 0.99, 1.0], size=batch).astype(np.float32)
    return probs, rewards, discounts, support


@pytest.mark.parametrize("seed", range(5))
def test_projection_matches_the_slow_reference_and_conserves_mass(seed):
    probs, rewards, discounts, support = random_case(np.random.default_rng(seed))
    projected = project_distribution(probs, rewards, discounts, support)
    np.testing.assert_allclose(projected, project_distribution_loop(probs, rewards, discounts, support), atol=1e-5)
    np.testing.assert_allclose(projected.sum(axis=1), 1.0, atol=1e-5)
    assert projected.min() >= 0.0


def test_atoms_landing_on_grid_points_keep_all_their_mass():
    # reward 2 with discount 1 shifts every atom by exactly one grid step (delta = 2): where the paper's
    # floor == ceil case would drop the mass in a naive implementation
    support = categorical_support(-10.0, 10.0, 11)
    probs = np.full((1, 11), 1 / 11, np.float32)
    projected = project_distribution(probs, np.array([2.0], np.float32), np.array([1.0], np.float32), support)
    np.testing.assert_allclose(projected[0, 1:-1], 1 / 11, atol=1e-6)
    np.testing.assert_allclose(projected[0, -1], 2 / 11, atol=1e-6)  # the top atom and the one pushed past it
    assert projected[0, 0] == pytest.approx(0.0, abs=1e-7)


def test_terminal_transitions_put_all_mass_at_the_reward():
    support = categorical_support(-10.0, 10.0, 21)  # delta 1
    probs = softmax(np.random.default_rng(0).normal(size=(2, 21))).astype(np.float32)
    projected = project_distribution(probs, np.array([3.0, 2.5], np.float32), np.zeros(2, np.float32), support)
    assert projected[0, 13] == pytest.approx(1.0)  # z = 3
    assert projected[1, 12] == pytest.approx(0.5) and projected[1, 13] == pytest.approx(0.5)  # between 2 and 3


def test_the_mean_moves_like_the_bellman_operator_inside_the_support():
    # inside the support the projection keeps the mean: E[r + d Z] = r + d E[Z]
    support = categorical_support(-100.0, 100.0, 51)
    probs = softmax(-((support - 10.0) ** 2)[None, :] / 200.0).astype(np.float32)
    rewards, discounts = np.array([1.0], np.float32), np.array([0.9], np.float32)
    projected = project_distribution(probs, rewards, discounts, support)
    assert projected @ support == pytest.approx(1.0 + 0.9 * (probs @ support), rel=1e-4)
    assert expected_q(np.log(probs), support) == pytest.approx(probs @ support, rel=1e-5)


def test_torch_and_tf_projections_equal_numpy():
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("tensorflow")
    from rlkit.algos.dqn import tf as tf_twin
    from rlkit.algos.dqn import torch as torch_twin

    probs, rewards, discounts, support = random_case(np.random.default_rng(7))
    expected = project_distribution(probs, rewards, discounts, support)
    as_torch = [torch.from_numpy(x) for x in (probs, rewards, discounts, support)]
    np.testing.assert_allclose(torch_twin.project_distribution(*as_torch).numpy(), expected, atol=1e-5)
    traced = tf.function(tf_twin.project_distribution)  # the graph the training step runs
    as_tf = [tf.constant(x) for x in (probs, rewards, discounts, support)]
    np.testing.assert_allclose(traced(*as_tf).numpy(), expected, atol=1e-5)  # float32 vs float64
