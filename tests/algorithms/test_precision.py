"""Mixed precision (``rlkit/precision.py``): the networks' layers compute in bf16 or fp16 and hand float32 on,
the torch and TensorFlow twins agree within what the precision allows, fp16's loss scaling keeps small
gradients and skips overflowing steps alike in both frameworks, every algorithm trains, and a device that
cannot compute in a precision is refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.algos.dqn.config import DQNConfig
from rlkit.errors import RlkitError
from tests.algorithms import test_actor_critic_equivalence as actor_critic
from tests.algorithms import test_dqn_equivalence as dqn
from tests.algorithms import test_image_dqn as image_dqn
from tests.algorithms import test_off_policy_equivalence as off_policy
from tests.algorithms.test_resume import train as resumable_run

pytest.importorskip("torch")
pytest.importorskip("tensorflow")

LOW = ["bf16", "fp16"]
#: How far the twins' metrics may differ in each precision: they round at different places (torch's autocast
#: adds the bias inside its bf16 product, Keras after it), a few units of the format's last place. Measured
#: here: at most 1.5e-3 relative in bf16 beside a metric near zero (PPO's policy loss), 9e-4 in fp16.
TOLERANCE = {"bf16": {"rtol": 2e-2, "atol": 3e-3}, "fp16": {"rtol": 3e-3, "atol": 3e-4}}


def metrics_of_one_update(family: str, precision: str, rng: np.random.Generator) -> tuple[dict, dict]:
    """The torch and the TF twin's metrics after one update on the same batch, from the same weights."""
    if family == "rainbow":  # noisy layers, dueling heads, C51's softmax and projection, one noise draw
        torch_learner, tf_learner = dqn.twins(precision=precision, **dqn.RAINBOW_PARTS["all"])
        batch, noise = dqn.weighted_nstep_batch(rng), torch_learner.draw_noise()
        return torch_learner.update(batch, noise), tf_learner.update(batch, noise)
    if family == "dqn-pixels":  # the convolutional encoder on MinAtar-sized boolean grids
        space = image_dqn.gym.spaces.Box(0, 1, (10, 10, 4), bool)
        torch_learner, tf_learner, _ = image_dqn.twins(space, precision=precision)
        batch = image_dqn.image_batch(space, rng)
        return torch_learner.update(batch), tf_learner.update(batch)
    if family.startswith("dqn"):
        # "dqn-clipped": the clip binds on every step, so a clip of scaled gradients would show
        clip = {"max_grad_norm": 0.05} if family == "dqn-clipped" else {}
        torch_learner, tf_learner = dqn.twins(precision=precision, **clip)
        batch = dqn.batch_for(rng)
        return torch_learner.update(batch), tf_learner.update(batch)
    if family in ("ppo", "a2c"):
        discrete = family == "ppo"
        torch_learner, tf_learner = actor_critic.twins(family, discrete, precision=precision)
        batch = actor_critic.rollout_batch(rng, discrete)
        minibatches = np.stack([actor_critic.minibatch_indices(96, 3, rng) for _ in range(2)])
        return tuple(
            learner.update(batch, minibatches, clip_range=0.2, max_kl=np.inf)
            for learner in (torch_learner, tf_learner)
        )  # fmt: skip
    torch_learner, tf_learner = off_policy.twins(family, precision=precision)
    batches = off_policy.burst(rng, 3, torch_learner.noise_draws)
    return torch_learner.update_many(batches), tf_learner.update_many(batches)


FAMILIES = ["dqn", "dqn-clipped", "rainbow", "dqn-pixels", "ppo", "a2c", "ddpg", "td3", "sac"]


@pytest.mark.parametrize("precision", LOW)
@pytest.mark.parametrize("family", FAMILIES)
def test_the_twins_agree_in_low_precision_and_the_precision_changes_the_numbers(family, precision):
    torch_metrics, tf_metrics = metrics_of_one_update(family, precision, np.random.default_rng(7))
    for name, value in torch_metrics.items():
        np.testing.assert_allclose(tf_metrics[name], value, **TOLERANCE[precision], err_msg=name)
    # the same update in float32 gives other numbers in each framework: its layers did compute in the low
    # precision
    float32 = metrics_of_one_update(family, "fp32", np.random.default_rng(7))
    for framework, exact, low in zip(["torch", "tf"], float32, (torch_metrics, tf_metrics), strict=True):
        assert any(not np.isclose(exact[name], low[name], rtol=1e-6, atol=0) for name in exact), (
            f"{framework} {family} at {precision} computed exactly what it computes at fp32"
        )


def test_fp16_gradients_are_clipped_after_unscaling_in_both_frameworks(rng):
    """torch unscales the gradients before it clips them; Keras unscales inside its optimizer, so rlkit clips
    the scaled gradients at a scaled bound. Either way the clipped gradient's norm is the bound itself."""
    torch_learner, tf_learner = dqn.twins(precision="fp16", max_grad_norm=0.05)
    batch = dqn.batch_for(rng)
    torch_grads, tf_grads = torch_learner.gradients(batch), tf_learner.gradients(batch)
    norm = np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in torch_grads))
    assert norm == pytest.approx(0.05, rel=1e-3)
    for a, b in zip(torch_grads, tf_grads, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-2, atol=1e-4)


@pytest.mark.parametrize("precision", LOW)
@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_the_layers_compute_in_the_precision_and_the_output_is_float32(framework, precision, rng):
    learner = dqn.twins(precision=precision)[framework == "tf"]
    exact = dqn.twins()[framework == "tf"]
    obs = rng.normal(size=(64, 4)).astype(np.float32)
    low, high = learner.q_values(obs), exact.q_values(obs)
    assert low.dtype == np.float32
    error = np.abs(low - high).max() / np.abs(high).max()
    # bf16 keeps 8 significant bits (relative spacing 2^-7), fp16 11 (2^-10): a few roundings of either
    largest = {"bf16": 2**-4, "fp16": 2**-7}[precision]
    assert 0 < error < largest, f"relative error {error:.2e} at {precision}"


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_fp16_loss_scaling_keeps_the_gradients_that_fp16_would_flush_to_zero(framework, rng):
    """Importance weights of 1e-5 (a rarely sampled transition's, late in prioritized replay) shrink every
    gradient by 1e-5 and leave the forward pass as it is: the gradients fall below fp16's smallest normal
    (6e-5), many below its smallest subnormal (6e-8), and unscaled they round away. With the loss scaled by
    2^15 first, fp16's gradients are float32's within a few percent."""
    learner = dqn.twins(precision="fp16", max_grad_norm=None)[framework == "tf"]
    exact = dqn.twins(max_grad_norm=None)[framework == "tf"]
    batch = dqn.batch_for(rng)
    batch["weights"] = np.full(len(batch["rewards"]), 1e-5, dtype=np.float32)
    expected = np.concatenate([g.ravel() for g in exact.gradients(batch)])
    scaled = np.concatenate([g.ravel() for g in learner.gradients(batch)])
    assert np.abs(expected).max() < 6e-5, "the batch must push the gradients below fp16's normal range"
    error = np.linalg.norm(scaled - expected) / np.linalg.norm(expected)
    assert error < 0.05, f"fp16 with loss scaling: gradients off by {error:.1%}"
    if framework == "torch":  # the same learner without its scaler loses them
        import torch

        learner.scaler = torch.amp.GradScaler("cpu", enabled=False)
        unscaled = np.concatenate([g.ravel() for g in learner.gradients(batch)])
        assert np.linalg.norm(unscaled - expected) / np.linalg.norm(expected) > 0.2


def loss_scale(learner) -> float:
    return learner.critic_scaler.get_scale() if learner.framework == "torch" else float(
        learner.critic_optimizer.dynamic_scale.numpy()
    )  # fmt: skip


def test_an_fp16_overflow_skips_the_step_and_halves_the_scale_in_both_frameworks(rng):
    """A critic error of 1e4 scaled by 2^15 overflows fp16 (largest 65,504) on its way back through the
    layers: both frameworks skip that critic step, keep the weights and halve the scale; the next, small
    batch steps as usual."""
    torch_learner, tf_learner = off_policy.twins("ddpg", precision="fp16")
    huge = {name: values[0] for name, values in off_policy.burst(rng, 1, 1).items()}
    huge["rewards"] = np.full_like(huge["rewards"], 1e4)
    critic = slice(6, None)  # the actor's 6 arrays come first
    for learner in (torch_learner, tf_learner):
        before = learner.get_weights()[critic]
        assert loss_scale(learner) == 2.0**15
        learner.update(huge)
        assert loss_scale(learner) == 2.0**14, learner.framework
        for a, b in zip(before, learner.get_weights()[critic], strict=True):
            np.testing.assert_array_equal(a, b)
        small = {name: values[0] for name, values in off_policy.burst(rng, 1, 1).items()}
        learner.update(small)
        assert not np.array_equal(before[0], learner.get_weights()[critic][0]), "the next step never happened"


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize(
    ("algo", "env"),
    [("dqn", "CartPole-v1"), ("rainbow", "CartPole-v1"), ("a2c", "CartPole-v1"), ("ppo", "Pendulum-v1"),
     ("ddpg", "Pendulum-v1"), ("td3", "Pendulum-v1"), ("sac", "Pendulum-v1")],
)  # fmt: skip
def test_every_algorithm_trains_in_bf16_saves_and_loads(algo, env, framework, tmp_path):
    settings = {"learning_starts": 100, "train_every": 50, "gradient_steps": 10} if algo not in ("a2c", "ppo") else {}
    if algo == "ppo":
        settings["use_sde"] = False  # gSDE, PPO's Pendulum default, runs in fp32 only (test_gsde.py)
    result = rlkit.train(
        algo, env, framework=framework, seed=1, total_steps=600, progress=False, eval_every=300, eval_episodes=1,
        precision="bf16", **settings,
    )  # fmt: skip
    weights = result.agent.get_weights()
    assert all(np.isfinite(w).all() for w in weights)
    path = tmp_path / f"agent{'.pt' if framework == 'torch' else '.keras'}"
    result.agent.save(path)
    loaded = rlkit.load(path)
    assert loaded.config.precision == "bf16"
    for a, b in zip(weights, loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_a_bf16_run_resumes_bit_for_bit(framework, tmp_path):
    from rlkit.callbacks import SaveCheckpoints

    whole = resumable_run("dqn", framework, precision="bf16")
    resumable_run("dqn", framework, precision="bf16", callbacks=[SaveCheckpoints(tmp_path, every=1_000, best=False,
                                                                                  resumable=True)])  # fmt: skip
    suffix = ".pt" if framework == "torch" else ".keras"
    halfway = min(tmp_path.glob(f"step_*{suffix}"), key=lambda p: int(p.name.split("_")[1].split(".")[0]))
    resumed = rlkit.train("dqn", framework=framework, resume=halfway, progress=False)
    for a, b in zip(whole.agent.get_weights(), resumed.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_precision_is_checked_by_name_and_a_device_that_cannot_is_refused():
    import torch

    from rlkit.algos import torch_parts

    with pytest.raises(RlkitError, match=r"precision must be one of 'fp32', 'bf16', 'fp16', got 'fp8'"):
        DQNConfig(precision="fp8")
    with pytest.raises(RlkitError, match=r"precision='bf16' is not available on meta with torch"):
        torch_parts.compute_dtype("bf16", torch.device("meta"))
    assert torch_parts.compute_dtype("fp32", torch.device("meta")) is None  # float32 needs no probe


def test_an_fp16_learners_loss_scale_is_saved_and_restored_in_both_frameworks(rng, tmp_path):
    """After an overflow halved it, the scale travels with the training state through a state file: torch's
    GradScaler state (``LOSS_SCALERS``), Keras' among its optimizer's variables. A fresh learner starts at
    2^15; the restored one goes on at 2^14."""
    from rlkit.state import load_state, save_state

    huge = {name: values[0] for name, values in off_policy.burst(rng, 1, 1).items()}
    huge["rewards"] = np.full_like(huge["rewards"], 1e4)
    for index, learner in enumerate(off_policy.twins("ddpg", precision="fp16")):
        learner.update(huge)
        path = tmp_path / f"state{index}.npz"
        save_state(path, learner.state_dict())
        fresh = off_policy.twins("ddpg", precision="fp16")[index]
        assert loss_scale(fresh) == 2.0**15
        fresh.load_state_dict(load_state(path))
        assert loss_scale(fresh) == 2.0**14, learner.framework
