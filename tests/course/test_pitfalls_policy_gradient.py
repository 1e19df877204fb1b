"""The policy-gradient pitfall experiments (chapters 21 and 22) measure what their chapters say they do."""

from __future__ import annotations

import numpy as np
import pytest

from course.pitfalls.gae_lambda import lambda_bias_variance


def test_gae_lambda_trades_bias_for_variance_and_the_best_lambda_follows_the_critic():
    result = lambda_bias_variance()
    assert np.all(np.diff(np.abs(result["bias"])) < 0) and np.all(np.diff(result["variance"]) > 0)
    assert abs(result["bias"][-1]) < 0.5  # lambda = 1: the Monte-Carlo return, unbiased whatever the critic
    np.testing.assert_allclose(result["mse"], result["bias"] ** 2 + result["variance"])
    best = {}
    for error in (-0.3, -0.05):
        critic = lambda_bias_variance(value_error=error)
        best[error] = critic["lambdas"][np.argmin(critic["mse"])]
    assert best[-0.3] > best[-0.05]  # a worse critic wants a higher lambda


def test_clip_gradients_are_one_inside_the_range_and_agree_across_frameworks():
    from course.pitfalls.ppo_clip import surrogate_gradients

    grads = surrogate_gradients(clip=0.2)
    inside = (np.abs(grads["ratios"] - 1) <= 0.2 + 1e-6).astype(np.float32)
    for way in ("torch.clamp", "tf.clip_by_value", "nested tf.where"):
        np.testing.assert_array_equal(grads[f"clip only: {way}"], inside)
        np.testing.assert_array_equal(grads[way], grads["torch.clamp"])


def test_attached_advantages_leak_with_the_chain_rules_sign():
    from course.pitfalls.advantage_detach import critic_gradient_from_policy_loss

    leak = critic_gradient_from_policy_loss(size=32)
    for key, m in leak["torch"].items():
        np.testing.assert_allclose(m["dl_dv"], leak["tf"][key]["dl_dv"], atol=1e-7)
        if key.endswith("detached"):
            assert m["critic_grad_norm"] == 0 == leak["tf"][key]["critic_grad_norm"]
        elif m["predicted_dl_dv"] is not None:
            np.testing.assert_allclose(m["dl_dv"], m["predicted_dl_dv"], atol=1e-7)
    a2c, ppo = leak["torch"]["A2C  -log pi * A, attached"], leak["torch"]["PPO  r != 1, attached"]
    assert (a2c["dl_dv"] < 0).all() and a2c["mean_value_change"] > 0  # raises V
    assert (ppo["dl_dv"] > 0).all() and ppo["mean_value_change"] < 0  # lowers V
    assert ((ppo["ratio"] < 0.8) | (ppo["ratio"] > 1.2)).any()  # some samples exercise the clip
    assert leak["torch"]["PPO  r = 1, standardised A, attached"]["critic_grad_norm"] < 1e-6
    assert leak["torch"]["PPO  r != 1, standardised A, attached"]["critic_grad_norm"] > 1e-2


def _learner_pair(reduction: str, optimizer: str, learning_rate: float, clip: bool = False):
    from course.pitfalls.loss_reduction import a2c_agent_class
    from rlkit.algos.a2c import A2CConfig

    config = A2CConfig(learning_rate=learning_rate, max_grad_norm=0.5 if clip else float("inf"))
    return a2c_agent_class(reduction, optimizer).learner_class("torch")(4, 2, True, config, seed=3)


def _batch(rng, size=128):
    return {
        "obs": rng.normal(size=(size, 4)).astype(np.float32),
        "actions": rng.integers(0, 2, size=size).astype(np.int64),
        "old_log_probs": np.full(size, np.log(0.5), dtype=np.float32),
        "advantages": rng.normal(size=size).astype(np.float32),
        "returns": rng.normal(size=size).astype(np.float32),
        "old_values": np.zeros(size, dtype=np.float32),
    }


def _train(learner, batches):
    for batch in batches:
        learner.update(batch, np.arange(len(batch["obs"]))[None, None], 0.2, np.inf)
    return learner.get_weights()


def _relative_change_gap(weights_a, weights_b, initial) -> float:
    """The largest, over arrays, of |a - b| / |b - initial|: how far two updates part, per unit of change."""
    return max(
        float(np.linalg.norm(a - b) / np.linalg.norm(b - w))
        for a, b, w in zip(weights_a, weights_b, initial, strict=True)
    )


@pytest.mark.parametrize("steps", [1, 5])
def test_summed_loss_is_a_larger_sgd_step_and_the_same_adam_step(rng, steps):
    batches = [_batch(rng) for _ in range(steps)]
    initial = _learner_pair("mean", "sgd", 0.01).get_weights()
    num_envs = 16  # A2CConfig's default: the factor between the sum and the mean
    # SGD: summing = a learning rate num_envs times larger, exactly
    summed = _train(_learner_pair("sum", "sgd", 0.01), batches)
    scaled = _train(_learner_pair("mean", "sgd", 0.01 * num_envs), batches)
    plain = _train(_learner_pair("mean", "sgd", 0.01), batches)
    for s, m in zip(summed, scaled, strict=True):
        np.testing.assert_allclose(s, m, rtol=1e-4, atol=1e-6)
    assert _relative_change_gap(summed, plain, initial) > 1
    # Adam: the same steps but for eps (weights whose gradients are near eps step a little differently)
    summed = _train(_learner_pair("sum", "adam", 1e-3), batches)
    averaged = _train(_learner_pair("mean", "adam", 1e-3), batches)
    assert _relative_change_gap(summed, averaged, initial) < 0.05


def test_clipping_is_not_scale_invariant_unless_both_reductions_are_clipped(rng):
    small = [_batch(rng) for _ in range(3)]  # returns ~ N(0, 1): the averaged gradient's norm is below 0.5
    large = [{**b, "returns": 100 * b["returns"]} for b in small]  # CartPole-sized returns: both are clipped
    initial = _learner_pair("mean", "adam", 1e-3, clip=True).get_weights()
    gaps = {}
    for name, batches in (("small", small), ("large", large)):
        summed = _train(_learner_pair("sum", "adam", 1e-3, clip=True), batches)
        averaged = _train(_learner_pair("mean", "adam", 1e-3, clip=True), batches)
        gaps[name] = _relative_change_gap(summed, averaged, initial)
    assert gaps["large"] < 1e-4 < 1e-2 < gaps["small"], gaps


def test_summed_loss_explodes_under_sgd_and_not_under_adam():
    from course.pitfalls.loss_reduction import identical_episodes, train_reduction

    sgd_sum = train_reduction("sum", "sgd", clip=False, seed=0, total_steps=5_000)
    sgd_mean = train_reduction("mean", "sgd", clip=False, seed=0, total_steps=5_000)
    assert sgd_sum["median_grad_norm"] > 1e3 * sgd_mean["median_grad_norm"]
    assert sgd_mean["finite"] and identical_episodes(sgd_sum, sgd_mean) < 20
    adam_sum = train_reduction("sum", "adam", clip=True, seed=0, total_steps=5_000)
    adam_mean = train_reduction("mean", "adam", clip=True, seed=0, total_steps=5_000)
    assert identical_episodes(adam_sum, adam_mean) == len(adam_mean["returns"])
    assert adam_sum["clipped_fraction"] > 0.99 and adam_mean["clipped_fraction"] > 0.99
    with pytest.raises(ValueError, match="reduction"):
        train_reduction("total", "sgd", clip=False, seed=0)


def test_rmsprop_starts_ten_times_the_step_size_and_keras_own_never_does():
    """Chapter 21's figure: torch's RMSprop and rlkit's Keras twin follow the uncorrected formula, Adam takes
    the step size, and Keras' own RMSprop (epsilon under the root) a third of it throughout."""
    pytest.importorskip("tensorflow")
    pytest.importorskip("torch")
    from course.pitfalls.rmsprop_start import OPTIMIZERS, rmsprop_formula, step_sizes

    steps = step_sizes(updates=200)
    assert list(steps) == list(OPTIMIZERS)
    formula = rmsprop_formula(200)
    assert formula[0] == pytest.approx(1e-3 / (0.1 * 1e-3 + 1e-5)) and formula[-1] < 1.2
    np.testing.assert_allclose(steps["torch RMSprop (SB3's)"], formula, rtol=1e-9)
    np.testing.assert_allclose(steps["rlkit's TorchRMSprop (Keras)"], formula, rtol=1e-6)
    np.testing.assert_allclose(steps["torch Adam"], 1e-3 / (1e-3 + 1e-5), rtol=1e-6)
    assert 0.29 < steps["Keras RMSprop"].min() <= steps["Keras RMSprop"].max() < 0.33
