from __future__ import annotations

import numpy as np
import pytest

from rlkit.estimators import LinearSoftmaxPolicy, collect_episodes, gradient_estimates, rewards_to_go


def test_rewards_to_go():
    np.testing.assert_allclose(rewards_to_go(np.array([1.0, 2.0, 3.0]), 0.5), [1 + 1 + 0.75, 2 + 1.5, 3])


def test_score_function_matches_finite_differences(rng):
    policy = LinearSoftmaxPolicy(3, 4, rng.normal(size=(3, 4)))
    obs, action = rng.normal(size=(1, 3)), np.array([2])
    analytic = policy.score(obs, action)[0]
    numeric = np.zeros_like(policy.weights)
    for index in np.ndindex(policy.weights.shape):
        for sign in (1, -1):
            shifted = LinearSoftmaxPolicy(3, 4, policy.weights.copy())
            shifted.weights[index] += sign * 1e-5
            numeric[index] += sign * np.log(shifted.probs(obs)[0, 2]) / 2e-5
    np.testing.assert_allclose(analytic, numeric, atol=1e-6)


def test_episodes_are_complete_and_estimators_share_their_mean(rng):
    policy = LinearSoftmaxPolicy(4, 2, rng.normal(size=(4, 2)) * 0.3)
    episodes = collect_episodes(policy, "CartPole-v1", episodes=400, seed=1)
    assert all(len(e.obs) == len(e.actions) == len(e.rewards) == e.rewards.sum() for e in episodes)
    means = {name: gradient_estimates(policy, episodes, name, 0.99).mean(axis=0) for name in ("return", "reward_to_go")}
    # both are unbiased estimates of the same gradient: their means agree up to sampling noise
    cosine = (
        means["return"]
        @ means["reward_to_go"]
        / np.linalg.norm(means["return"])
        / np.linalg.norm(means["reward_to_go"])
    )
    assert cosine > 0.8
    with pytest.raises(ValueError, match="estimator"):
        gradient_estimates(policy, episodes, "nope", 0.99)
