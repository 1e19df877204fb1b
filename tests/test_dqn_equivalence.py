"""torch and TensorFlow DQN compute the same update: same weights + same batch => same loss and weights.

Weights move between frameworks through ``get_weights``/``set_weights`` in one documented order
(``[W0, b0, W1, b1, ...]``, each ``W`` as (in, out)). Tolerances are float32's: the two frameworks sum
in different orders, and torch's and Keras' Adam place epsilon slightly differently.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import dqn_batch

from rlkit.algos.dqn.config import DQNConfig
from rlkit.errors import ContractError
from rlkit.nets import mlp_forward

torch = pytest.importorskip("torch")
pytest.importorskip("tensorflow")

from rlkit.algos.dqn.tf import DQNLearner as TFLearner  # noqa: E402
from rlkit.algos.dqn.torch import DQNLearner as TorchLearner  # noqa: E402


def twins(**overrides) -> tuple[TorchLearner, TFLearner]:
    config = DQNConfig(hidden_sizes=(16, 16), **overrides)
    torch_learner = TorchLearner(4, 3, config, seed=0)
    tf_learner = TFLearner(4, 3, config, seed=1)  # a different init, overwritten next
    tf_learner.set_weights(torch_learner.get_weights())
    return torch_learner, tf_learner


def target_q(learner, obs: np.ndarray) -> np.ndarray:
    if learner.framework == "torch":
        with torch.no_grad():
            return learner.target_q(torch.from_numpy(obs)).numpy()
    return learner.target_q(obs).numpy()


def test_forward_passes_agree_in_torch_tf_and_numpy(rng):
    torch_learner, tf_learner = twins()
    obs = rng.normal(size=(10, 4)).astype(np.float32)
    expected = torch_learner.q_values(obs)
    np.testing.assert_allclose(tf_learner.q_values(obs), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mlp_forward(torch_learner.get_weights(), obs), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "overrides",
    [
        {"double": True, "target_update": "hard", "target_update_every": 2},
        {"double": False, "target_update": "hard", "target_update_every": 2},
        {"double": True, "target_update": "polyak", "tau": 0.1},
        {"double": True, "max_grad_norm": 0.05},  # clipping active on every step
        {"double": False, "max_grad_norm": None, "huber_delta": 0.5},
    ],
    ids=["double-hard", "vanilla-hard", "polyak", "clipped", "unclipped-huber0.5"],
)
def test_updates_agree_step_by_step(overrides, rng):
    torch_learner, tf_learner = twins(learning_rate=1e-2, **overrides)
    probe = rng.normal(size=(8, 4)).astype(np.float32)
    for _ in range(4):  # several steps: Adam's moments, target syncs and Polyak blends all come into play
        batch = dqn_batch(rng, batch_size=32, n_actions=3)
        batch["rewards"] *= 5.0  # large TD errors reach the linear part of the Huber loss
        torch_metrics = torch_learner.update(batch)
        tf_metrics = tf_learner.update(batch)
        assert tf_metrics["loss"] == pytest.approx(torch_metrics["loss"], rel=1e-5, abs=1e-6)
        assert tf_metrics["q_mean"] == pytest.approx(torch_metrics["q_mean"], rel=1e-5, abs=1e-6)
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            # Adam moves a weight by ~lr whatever its gradient size, so compare at 1e-3 of the step size
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-3 * 1e-2)
        np.testing.assert_allclose(target_q(tf_learner, probe), target_q(torch_learner, probe), rtol=1e-4, atol=1e-5)


def test_an_update_really_changes_the_weights(rng):
    torch_learner, tf_learner = twins()
    before = torch_learner.get_weights()
    torch_learner.update(dqn_batch(rng, n_actions=3))
    tf_learner.update(dqn_batch(rng, n_actions=3))
    for learner in (torch_learner, tf_learner):
        assert any(not np.allclose(a, b) for a, b in zip(before, learner.get_weights(), strict=True))


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_update_rejects_a_broadcasting_batch(framework, rng):
    learner = twins()[0 if framework == "torch" else 1]
    batch = dqn_batch(rng, n_actions=3)
    batch["rewards"] = batch["rewards"][:, None]
    with pytest.raises(ContractError, match="squeeze"):
        learner.update(batch)
