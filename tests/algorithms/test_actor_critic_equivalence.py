"""torch and TensorFlow A2C/PPO compute the same update, for categorical and Gaussian policies.

Same seed => same initial networks (drawn in numpy); same rollout batch and minibatch indices => same losses
and the same new weights, to float32 precision.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from rlkit.algos.a2c import A2CConfig
from rlkit.algos.actor_critic.agent import minibatch_indices
from rlkit.algos.actor_critic.config import Batch, actor_critic_contract
from rlkit.algos.ppo import PPOConfig
from rlkit.errors import ContractError
from rlkit.nets import mlp_forward

pytest.importorskip("torch")
pytest.importorskip("tensorflow")

LEARNING_RATE = 1e-2
CONFIGS = {"ppo": PPOConfig, "a2c": A2CConfig}
CASES = [
    ("ppo", True, {}),
    ("ppo", False, {}),
    ("ppo", True, {"clip_value": True, "ent_coef": 0.01}),
    ("ppo", False, {"normalize_advantages": False, "clip_range": 0.05}),
    ("a2c", True, {}),
    ("a2c", False, {"ent_coef": 0.01}),
    ("a2c", True, {"adam_eps": 1e-2}),  # as large as the gradients: it shapes every step
    # gSDE: a state-dependent std from the actor's last hidden layer and a log std matrix
    ("ppo", False, {"use_sde": True, "ent_coef": 0.01, "log_std_init": -0.5}),
    ("a2c", False, {"use_sde": True, "ent_coef": 0.01}),
    # RMSprop: its first steps are up to 10x the step size, and its epsilon sits outside the root in both twins
    ("a2c", True, {"optimizer": "rmsprop"}),
    ("a2c", False, {"optimizer": "rmsprop", "ent_coef": 0.01}),
]
IDS = ["ppo-categorical", "ppo-gaussian", "ppo-valueclip-entropy", "ppo-gaussian-tightclip", "a2c-categorical",
       "a2c-gaussian-entropy", "a2c-adam-eps", "ppo-gsde-entropy", "a2c-gsde-entropy", "a2c-rmsprop-categorical",
       "a2c-rmsprop-gaussian-entropy"]  # fmt: skip


def twins(algo: str, discrete: bool, **overrides):
    config = CONFIGS[algo](hidden_sizes=(16, 16), learning_rate=LEARNING_RATE, **overrides)
    learners = [importlib.import_module(f"rlkit.algos.{algo}.{fw}").Learner(5, 3, discrete, config, seed=4)
                for fw in ("torch", "tf")]  # fmt: skip
    return learners


def rollout_batch(rng: np.random.Generator, discrete: bool, size: int = 96) -> dict:
    actions = rng.integers(0, 3, size) if discrete else rng.normal(size=(size, 3)).astype(np.float32)
    return {
        "obs": rng.normal(size=(size, 5)).astype(np.float32),
        "actions": actions,
        "old_log_probs": (rng.normal(size=size) * 0.1 - 1.1).astype(np.float32),
        "advantages": rng.normal(size=size).astype(np.float32),
        "returns": rng.normal(size=size).astype(np.float32),
        "old_values": rng.normal(size=size).astype(np.float32),
    }


@pytest.mark.parametrize(("algo", "discrete", "overrides"), CASES, ids=IDS)
def test_same_seed_same_network_same_outputs(algo, discrete, overrides, rng):
    torch_learner, tf_learner = twins(algo, discrete, **overrides)
    for a, b in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    batch = rollout_batch(rng, discrete)
    # as after a rollout: one observation more per environment than actions taken
    obs, actions = batch["obs"], batch["actions"][:-8]
    tf_values, tf_log_probs = tf_learner.values_and_log_probs(obs, actions)
    torch_values, torch_log_probs = torch_learner.values_and_log_probs(obs, actions)
    assert tf_values.shape == (96,) and tf_log_probs.shape == (88,), (tf_values.shape, tf_log_probs.shape)
    np.testing.assert_allclose(tf_values, torch_values, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf_log_probs, torch_log_probs, rtol=1e-5, atol=1e-5)
    actor = torch_learner.get_weights()[:6]
    with __import__("torch").no_grad():
        expected = torch_learner.actor(__import__("torch").from_numpy(batch["obs"])).numpy()
    np.testing.assert_allclose(mlp_forward(actor, batch["obs"], "tanh"), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("algo", "discrete", "overrides"), CASES, ids=IDS)
def test_updates_agree(algo, discrete, overrides, rng):
    torch_learner, tf_learner = twins(algo, discrete, **overrides)
    batch = rollout_batch(rng, discrete)
    minibatches = np.stack([minibatch_indices(96, 3, rng) for _ in range(2)])  # 2 epochs x 3 minibatches
    clip = torch_learner.config.clip_range  # the case's own clip range (0.05 in "tightclip")
    torch_metrics = torch_learner.update(batch, minibatches, clip_range=clip, max_kl=np.inf)
    tf_metrics = tf_learner.update(batch, minibatches, clip_range=clip, max_kl=np.inf)
    for name, value in torch_metrics.items():
        assert tf_metrics[name] == pytest.approx(value, rel=1e-4, abs=1e-6), name
    for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
        np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-4 * LEARNING_RATE)


@pytest.mark.parametrize("algo", ["a2c", "ppo"])
def test_a_scheduled_learning_rate_reaches_the_next_update_in_both(algo, rng):
    """The loop sets the annealed rate before each update: torch in its optimizer at once, TensorFlow at the
    start of the next traced update; an update with no rate set keeps the last one."""
    torch_learner, tf_learner = twins(algo, True)
    minibatches = np.stack([minibatch_indices(96, 2, rng)])
    for rate in (None, LEARNING_RATE / 10, None, LEARNING_RATE * 3):
        batch = rollout_batch(rng, True)
        for learner in (torch_learner, tf_learner):
            if rate is not None:
                learner.set_learning_rate(rate)
            learner.update(batch, minibatches, clip_range=0.2, max_kl=np.inf)
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-4 * LEARNING_RATE)
    assert float(tf_learner.optimizer.learning_rate) == pytest.approx(LEARNING_RATE * 3)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_kl_early_stop_ends_the_update_after_one_epoch(framework, rng):
    learner = twins("ppo", True)[0 if framework == "torch" else 1]
    batch = rollout_batch(rng, True)
    minibatches = np.stack([minibatch_indices(96, 2, rng) for _ in range(5)])
    # the batch's old log-probs are far from the policy's: the KL of the first epoch is large
    assert learner.update(batch, minibatches, clip_range=0.2, max_kl=1e-6)["epochs"] == 1
    assert learner.update(batch, minibatches, clip_range=0.2, max_kl=np.inf)["epochs"] == 5


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_update_checks_the_contract(framework, rng):
    learner = twins("ppo", True)[0 if framework == "torch" else 1]
    batch = rollout_batch(rng, True)
    batch["advantages"] = batch["advantages"][:, None]
    with pytest.raises(ContractError, match="advantages.*squeeze"):
        learner.update(batch, np.stack([minibatch_indices(96, 1, rng)]), clip_range=0.2, max_kl=np.inf)


def test_the_batch_holds_the_contract_fields_in_order():
    """Each learner's update reads the rollout into a ``Batch`` by field name and checks it against the
    contract: the two must name the same fields, in the same order."""
    assert Batch._fields == tuple(actor_critic_contract("A2C", 4, True, 2).fields)
