"""torch and TensorFlow DDPG, TD3 and SAC compute the same update.

Same seed => same initial networks (drawn in numpy); same batches and the same noise => the same losses, the
same new actor, critics, targets and (SAC) log alpha, to float32 precision.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from rlkit.algos.ddpg import DDPGConfig
from rlkit.algos.off_policy.config import Batch, off_policy_contract
from rlkit.algos.sac import SACConfig
from rlkit.algos.td3 import TD3Config
from rlkit.errors import ContractError
from rlkit.nets import mlp_forward

pytest.importorskip("torch")
pytest.importorskip("tensorflow")

OBS_DIM, ACTION_DIM, BATCH = 5, 2, 32
CONFIGS = {"ddpg": DDPGConfig, "td3": TD3Config, "sac": SACConfig}
CASES = {
    "ddpg": ("ddpg", {}),
    "td3": ("td3", {}),
    "td3-no-delay-wide-noise": ("td3", {"policy_delay": 1, "target_noise": 0.5, "target_noise_clip": 0.3}),
    "sac-auto-alpha": ("sac", {}),
    "sac-fixed-alpha": ("sac", {"auto_alpha": False, "alpha": 0.2}),
    "sac-target-entropy": ("sac", {"target_entropy": 0.5, "alpha": 0.05}),
}


def twins(algo: str, **overrides):
    settings = {"hidden_sizes": (16, 16), "learning_rate": 1e-2, "tau": 0.1, **overrides}
    config = CONFIGS[algo](**settings)
    return [
        importlib.import_module(f"rlkit.algos.{algo}.{fw}").Learner(OBS_DIM, ACTION_DIM, config, seed=3)
        for fw in ("torch", "tf")
    ]


def burst(rng: np.random.Generator, steps: int, noise_draws: int) -> dict:
    """``steps`` random batches satisfying the off-policy contract, with some terminal transitions."""
    shape = (steps, BATCH)
    return {
        "obs": rng.normal(size=(*shape, OBS_DIM)).astype(np.float32),
        "actions": rng.uniform(-1, 1, size=(*shape, ACTION_DIM)).astype(np.float32),
        "rewards": rng.normal(size=shape).astype(np.float32),
        "next_obs": rng.normal(size=(*shape, OBS_DIM)).astype(np.float32),
        "terminated": (rng.random(shape) < 0.2).astype(np.float32),
        "noise": rng.standard_normal((steps, noise_draws, BATCH, ACTION_DIM), dtype=np.float32),
    }


@pytest.mark.parametrize("case", CASES)
def test_same_seed_same_networks_same_actions(case, rng):
    torch_learner, tf_learner = twins(CASES[case][0], **CASES[case][1])
    for a, b in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(torch_learner.target_weights(), tf_learner.target_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    obs = rng.normal(size=(7, OBS_DIM)).astype(np.float32)
    np.testing.assert_allclose(tf_learner.actions(obs), torch_learner.actions(obs), rtol=1e-5, atol=1e-6)
    actor = torch_learner.get_weights()[:6]
    numpy_actions = np.tanh(mlp_forward(actor, obs)[:, :ACTION_DIM])
    np.testing.assert_allclose(numpy_actions, torch_learner.actions(obs), rtol=1e-5, atol=1e-6)


def assert_same_change(before, torch_after, tf_after, label):
    """Each array moved the same way in both frameworks: the two changes differ by < 1% of the change.

    Not elementwise: Adam divides each gradient by its own running magnitude, so a weight whose gradient is
    ~1e-8 (a cancellation, or a ReLU pre-activation rounding to either side of its kink) takes a step decided
    by float32 rounding. One such weight among hundreds moves the norm of the difference by well under 1%; a
    wrong loss, target or update rule moves it by the size of the change itself.
    """
    for index, (start, a, b) in enumerate(zip(before, torch_after, tf_after, strict=True)):
        change = np.linalg.norm(a - start)
        assert np.linalg.norm(b - a) <= 1e-2 * change + 1e-6, f"{label}[{index}]: changes differ"


@pytest.mark.parametrize("case", CASES)
def test_updates_agree(case, rng):
    algo, overrides = CASES[case]
    torch_learner, tf_learner = twins(algo, **overrides)
    before, targets_before = torch_learner.get_weights(), torch_learner.target_weights()
    for _ in range(2):  # two calls: TF's traced burst must carry its step counter from one call to the next
        batches = burst(rng, 3, torch_learner.noise_draws)
        torch_metrics, tf_metrics = torch_learner.update_many(batches), tf_learner.update_many(batches)
        for name in torch_metrics:
            np.testing.assert_allclose(tf_metrics[name], torch_metrics[name], rtol=1e-3, atol=1e-6, err_msg=name)
    assert torch_learner.gradient_steps == tf_learner.gradient_steps == 6
    after = torch_learner.get_weights()
    assert all(not np.allclose(a, b) for a, b in zip(before[:2], after[:2], strict=True)), "the actor never moved"
    assert_same_change(before, after, tf_learner.get_weights(), "weights")
    assert_same_change(targets_before, torch_learner.target_weights(), tf_learner.target_weights(), "targets")
    if algo == "sac":
        log_alpha = torch_learner.log_alpha.detach().numpy()
        np.testing.assert_allclose(np.array(tf_learner.log_alpha), log_alpha, rtol=1e-5, atol=1e-7)
        moved = not np.isclose(log_alpha[0], math.log(torch_learner.config.alpha))
        assert moved == torch_learner.config.auto_alpha, "alpha must move exactly when it is tuned"


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", ["td3", "sac"])
def test_a_burst_reports_the_mean_metrics_of_the_same_steps_one_by_one(algo, framework, rng):
    """TD3's actor loss is averaged over its actor steps only (every second step), the rest over all steps."""
    one_by_one, burst_learner = twins(algo)[framework == "tf"], twins(algo)[framework == "tf"]
    batches = burst(rng, 4, one_by_one.noise_draws)
    steps = [one_by_one.update({name: values[i] for name, values in batches.items()}) for i in range(4)]
    metrics = burst_learner.update_many(batches)
    expected = {name: np.mean([step[name] for step in steps]) for name in metrics}
    if algo == "td3":  # the steps without an actor step report actor_loss 0 and must not dilute the mean
        expected["actor_loss"] = np.mean([step["actor_loss"] for step in steps[1::2]])
    for name, value in metrics.items():
        assert value == pytest.approx(expected[name], rel=1e-4, abs=1e-6), name


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_td3_delays_the_actor_across_calls(framework, rng):
    """With policy_delay 2 the actor moves on every second critic step, also when each step is its own call."""
    learner = twins("td3")[framework == "tf"]
    actor_moves = []
    for _ in range(4):
        before = learner.get_weights()[0]
        metrics = learner.update(dict((k, v[0]) for k, v in burst(rng, 1, 1).items()))
        actor_moves.append(not np.array_equal(before, learner.get_weights()[0]))
        assert (metrics["actor_loss"] != 0.0) == actor_moves[-1]
    assert actor_moves == [False, True, False, True]


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_sac_log_probability_is_the_squashed_gaussian_density(framework, rng):
    """log pi(a|s) equals the Gaussian log density of u minus log(1 - tanh(u)^2), computed here naively."""
    learner = twins("sac")[framework == "tf"]
    obs = rng.normal(size=(6, OBS_DIM)).astype(np.float32)
    noise = rng.standard_normal((6, ACTION_DIM), dtype=np.float32)
    if framework == "torch":
        import torch

        with torch.no_grad():
            actions, log_probs = (t.numpy() for t in learner.sample(torch.from_numpy(obs), torch.from_numpy(noise)))
    else:
        actions, log_probs = (t.numpy() for t in learner.sample(obs, noise))
    out = mlp_forward(learner.get_weights()[:6], obs)
    mean, log_std = out[:, :ACTION_DIM], np.clip(out[:, ACTION_DIM:], -20, 2)
    u = (mean + np.exp(log_std) * noise).astype(np.float64)
    gaussian = -0.5 * noise**2 - log_std - 0.5 * np.log(2 * np.pi)
    expected = (gaussian - np.log(1 - np.tanh(u) ** 2)).sum(axis=1)
    np.testing.assert_allclose(actions, np.tanh(u), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(log_probs, expected, rtol=1e-4, atol=1e-4)


def test_the_update_reads_the_fields_of_the_contract_in_its_order():
    """``Batch``, the one named tuple every step reads, is the contract's fields in the contract's order."""
    assert Batch._fields == tuple(off_policy_contract("SAC", OBS_DIM, ACTION_DIM, 2).fields)


def test_a_wrong_batch_names_the_field(rng):
    torch_learner = twins("sac")[0]
    batch = {k: v[0] for k, v in burst(rng, 1, 2).items()}
    batch["actions"] = batch["actions"] * 3.0  # environment units instead of [-1, 1]
    with pytest.raises(ContractError, match="actions"):
        torch_learner.update(batch)
    batch = {k: v[0] for k, v in burst(rng, 1, 1).items()}  # one noise draw where SAC needs two
    with pytest.raises(ContractError, match="noise"):
        torch_learner.update(batch)


@pytest.mark.parametrize("algo", ["ddpg", "td3", "sac"])
def test_n_step_discounts_importance_weights_and_priorities_agree(algo, rng):
    """With k-step discounts and PER weights in the batch, both twins take the same steps and report the same
    new priorities: the critics' mean |TD error| of every sample."""
    torch_learner, tf_learner = twins(algo, prioritized=True, n_step=3)
    before = torch_learner.get_weights()
    batches = burst(rng, 3, torch_learner.noise_draws)
    batches["discounts"] = (0.99 ** rng.integers(1, 4, size=batches["rewards"].shape)).astype(np.float32)
    batches["weights"] = rng.uniform(0.1, 1.0, size=batches["rewards"].shape).astype(np.float32)
    torch_metrics, tf_metrics = torch_learner.update_many(batches), tf_learner.update_many(batches)
    for name in torch_metrics:
        np.testing.assert_allclose(tf_metrics[name], torch_metrics[name], rtol=1e-3, atol=1e-6, err_msg=name)
    assert torch_learner.last_priorities.shape == tf_learner.last_priorities.shape == (3, BATCH)
    np.testing.assert_allclose(tf_learner.last_priorities, torch_learner.last_priorities, rtol=1e-3, atol=1e-5)
    assert_same_change(before, torch_learner.get_weights(), tf_learner.get_weights(), "weights")


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_discounts_and_weights_enter_the_critic_loss_as_documented(framework, rng):
    """Fresh twins on one batch: weights 2 double the critic loss; discounts 0 leave targets = rewards, so the
    first critic's priorities are |Q(s, a) - r|; omitted fields mean gamma and 1."""
    batch = {k: v[0] for k, v in burst(rng, 1, 1).items()}
    per = {"prioritized": True, "n_step": 3}  # the fields count only for the options that produce them

    def fresh():
        return twins("ddpg", **per)[framework == "tf"]

    plain = fresh().update(batch)["critic_loss"]
    assert twins("ddpg")[framework == "tf"].update(batch)["critic_loss"] == pytest.approx(plain, rel=1e-6)
    explicit = {**batch, "discounts": np.full(BATCH, 0.99, np.float32), "weights": np.ones(BATCH, np.float32)}
    assert fresh().update(explicit)["critic_loss"] == pytest.approx(plain, rel=1e-6)
    doubled = {**batch, "weights": np.full(BATCH, 2.0, np.float32)}
    assert fresh().update(doubled)["critic_loss"] == pytest.approx(2 * plain, rel=1e-5)
    learner = fresh()
    q = mlp_forward(learner.get_weights()[6:], np.concatenate([batch["obs"], batch["actions"]], axis=1))[:, 0]
    learner.update({**batch, "discounts": np.zeros(BATCH, np.float32)})
    np.testing.assert_allclose(learner.last_priorities[0], np.abs(q - batch["rewards"]), rtol=1e-4, atol=1e-5)
