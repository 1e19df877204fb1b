from __future__ import annotations

import numpy as np
import pytest

from course.estimators import (
    ESTIMATORS,
    VARIANTS,
    LinearSoftmaxPolicy,
    RandomMDP,
    collect_episodes,
    gradient_estimates,
    measure_bias,
    rewards_to_go,
    step_weights,
)


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


def test_exact_gradient_of_the_random_mdp_matches_finite_differences(rng):
    mdp = RandomMDP(n_states=4, n_actions=3, horizon=30, seed=2)
    policy = LinearSoftmaxPolicy(4, 3, rng.normal(size=(4, 3)))
    exact = mdp.exact(policy, gamma=0.9)
    numeric = np.zeros(policy.weights.size)
    for k in range(policy.weights.size):
        for sign in (1, -1):
            shifted = LinearSoftmaxPolicy(4, 3, policy.weights.copy())
            shifted.weights.flat[k] += sign * 1e-5
            numeric[k] += sign * mdp.exact(shifted, 0.9)["objective"] / 2e-5
    np.testing.assert_allclose(exact["gradient"], numeric, atol=1e-7)
    # at gamma = 1 the two targets coincide; at gamma < 1 they do not
    at_one = mdp.exact(policy, gamma=1.0)
    np.testing.assert_allclose(at_one["gradient"], at_one["no_gamma_t"])
    assert np.linalg.norm(exact["gradient"] - exact["no_gamma_t"]) > 0.1 * np.linalg.norm(exact["gradient"])


def test_monte_carlo_return_matches_the_exact_objective(rng):
    mdp = RandomMDP(horizon=20, seed=3)
    policy = LinearSoftmaxPolicy(5, 2, rng.normal(size=(5, 2)))
    episodes = mdp.sample_episodes(policy, 20_000, seed=0)
    returns = np.array([rewards_to_go(e.rewards, 0.9)[0] for e in episodes])
    assert abs(returns.mean() - mdp.exact(policy, 0.9)["objective"]) < 4 * returns.std() / np.sqrt(len(returns))


def test_leave_one_out_baseline_ignores_the_episode_itself(rng):
    to_go = rng.normal(size=(8, 5))
    alive = np.ones((8, 5), dtype=bool)
    alive[3, 3:] = False
    to_go[~alive] = 0.0
    discount = 0.9 ** np.arange(5)

    def baseline_of_episode_2(g: np.ndarray) -> np.ndarray:
        return g[2] - step_weights(g, alive, "baseline", 0.9, 4)[2] / discount

    changed = to_go.copy()
    changed[2] += 10.0  # episode 2's own returns: its baseline must not move
    np.testing.assert_allclose(baseline_of_episode_2(to_go), baseline_of_episode_2(changed))
    # ... it is the mean of the other running episodes of its batch (episode 3 has ended after step 2)
    np.testing.assert_allclose(baseline_of_episode_2(to_go)[:3], to_go[[0, 1, 3], :3].mean(axis=0))
    np.testing.assert_allclose(baseline_of_episode_2(to_go)[3:], to_go[[0, 1], 3:].mean(axis=0))
    # the batch mean does include it: then G - b is exactly (1 - 1/n) times the leave-one-out G - b
    loo = step_weights(to_go, alive, "baseline", 0.9, 4)
    batch_mean = step_weights(to_go, alive, "baseline_batch_mean", 0.9, 4)
    np.testing.assert_allclose(batch_mean[4:], (1 - 1 / 4) * loo[4:])  # second batch: all 4 running


def test_textbook_estimators_are_unbiased_and_the_shortcuts_are_not():
    mdp = RandomMDP(horizon=50, seed=1)
    policy = LinearSoftmaxPolicy(5, 2, np.random.default_rng(1).normal(size=(5, 2)))
    results = measure_bias(mdp, policy, gamma=0.95, episodes=8_000, batch_size=4, seed=0)["estimators"]
    for name in ESTIMATORS:
        assert results[name]["z_truth"] < 4, (name, results[name]["z_truth"])
    for name in VARIANTS:
        assert results[name]["z_truth"] > 6, (name, results[name]["z_truth"])  # biased for grad J ...
        assert results[name]["z_target"] < 4, (name, results[name]["z_target"])  # ... unbiased for its target


def test_episodes_are_complete_and_estimators_share_their_mean(rng):
    policy = LinearSoftmaxPolicy(4, 2, rng.normal(size=(4, 2)) * 0.3)
    episodes = collect_episodes(policy, "CartPole-v1", episodes=400, seed=1)
    assert all(len(e.obs) == len(e.actions) == len(e.rewards) == e.rewards.sum() for e in episodes)
    means = {name: gradient_estimates(policy, episodes, name, 0.99).mean(axis=0) for name in ESTIMATORS}
    # all three are unbiased estimates of the same gradient: their means agree up to sampling noise
    for name in ("reward_to_go", "baseline"):
        cosine = means["return"] @ means[name] / np.linalg.norm(means["return"]) / np.linalg.norm(means[name])
        assert cosine > 0.8, (name, cosine)
    with pytest.raises(ValueError, match="estimator"):
        gradient_estimates(policy, episodes, "nope", 0.99)
    with pytest.raises(ValueError, match="batches"):
        gradient_estimates(policy, episodes, "baseline", 0.99, batch_size=7)
