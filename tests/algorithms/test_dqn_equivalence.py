"""torch and TensorFlow DQN compute the same update: same weights + same batch => same loss, same gradients,
same new weights.

Weights move between frameworks through ``get_weights``/``set_weights`` in one documented order
(``[W0, b0, W1, b1, ...]``, each ``W`` as (in, out)). Everything agrees to float32 precision: the frameworks
only sum in different orders. (That needs ``TorchAdam`` on the TensorFlow side: Keras' own Adam places
epsilon differently and moves weights with near-zero gradients by a different fraction of a step.)
"""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.algos.dqn.config import Batch, DQNConfig, dqn_contract
from rlkit.errors import ContractError
from rlkit.nets import q_network_forward
from tests.conftest import dqn_batch

torch = pytest.importorskip("torch")
pytest.importorskip("tensorflow")

from rlkit.algos.dqn.tf import DQNLearner as TFLearner  # noqa: E402
from rlkit.algos.dqn.torch import DQNLearner as TorchLearner  # noqa: E402

LEARNING_RATE = 1e-2  # large, so that a few steps move the weights far from where they started
VARIANTS = {
    "double-hard": {"double": True, "target_update": "hard", "target_update_every": 2},
    "vanilla-hard": {"double": False, "target_update": "hard", "target_update_every": 2},
    "polyak": {"double": True, "target_update": "polyak", "tau": 0.1},
    "clipped": {"double": True, "max_grad_norm": 0.05},  # clipping active on every step
    "unclipped-huber0.5": {"double": False, "max_grad_norm": None, "huber_delta": 0.5},
    "dueling": {"double": True, "dueling": True, "target_update": "hard", "target_update_every": 2},
    "dueling-vanilla-polyak": {"double": False, "dueling": True, "target_update": "polyak", "tau": 0.1},
    "adam-eps": {"adam_eps": 1e-2},  # as large as the gradients: it shapes every step
}


def twins(**overrides) -> tuple[TorchLearner, TFLearner]:
    config = DQNConfig(hidden_sizes=(16, 16), learning_rate=LEARNING_RATE, **overrides)
    torch_learner = TorchLearner(4, 3, config, seed=0)
    tf_learner = TFLearner(4, 3, config, seed=1)  # a different init, overwritten next
    tf_learner.set_weights(torch_learner.get_weights())
    return torch_learner, tf_learner


def batch_for(rng: np.random.Generator) -> dict:
    batch = dqn_batch(rng, batch_size=64, n_actions=3)
    batch["rewards"] *= 5.0  # large TD errors reach the linear part of the Huber loss
    return batch


def target_q(learner, obs: np.ndarray) -> np.ndarray:
    if learner.framework == "torch":
        with torch.no_grad():
            return learner.target_q(torch.from_numpy(obs)).numpy()
    return learner.target_q(obs).numpy()


def test_same_seed_gives_the_same_initial_network_in_both_frameworks():
    config = DQNConfig(hidden_sizes=(16, 16))
    for a, b in zip(TorchLearner(4, 3, config, 5).get_weights(), TFLearner(4, 3, config, 5).get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_forward_passes_agree_in_torch_tf_and_numpy(rng):
    torch_learner, tf_learner = twins()
    obs = rng.normal(size=(10, 4)).astype(np.float32)
    expected = torch_learner.q_values(obs)
    np.testing.assert_allclose(tf_learner.q_values(obs), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(q_network_forward(torch_learner.get_weights(), obs), expected, rtol=1e-5, atol=1e-6)


def test_dueling_forward_passes_agree_and_advantages_are_centred(rng):
    torch_learner, tf_learner = twins(dueling=True)
    obs = rng.normal(size=(10, 4)).astype(np.float32)
    expected = torch_learner.q_values(obs)
    np.testing.assert_allclose(tf_learner.q_values(obs), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        q_network_forward(torch_learner.get_weights(), obs, dueling=True), expected, rtol=1e-5, atol=1e-6
    )
    weights = torch_learner.get_weights()
    hidden = np.maximum(np.maximum(obs @ weights[0] + weights[1], 0) @ weights[2] + weights[3], 0)
    value = (hidden @ weights[4] + weights[5])[:, 0]
    np.testing.assert_allclose(expected.mean(axis=1), value, rtol=1e-5, atol=1e-6)  # mean_a Q(s, a) = V(s)


@pytest.mark.parametrize("variant", VARIANTS)
def test_losses_and_gradients_agree(variant, rng):
    torch_learner, tf_learner = twins(**VARIANTS[variant])
    batch = batch_for(rng)
    torch_loss = torch_learner.compute_gradients(*torch_learner.tensors(batch))[0]
    tf_loss = tf_learner.compute_gradients(*tf_learner.tensors(batch))[0]
    assert float(tf_loss) == pytest.approx(float(torch_loss), rel=1e-6)
    for g_torch, g_tf in zip(torch_learner.gradients(batch), tf_learner.gradients(batch), strict=True):
        np.testing.assert_allclose(g_tf, g_torch, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("variant", VARIANTS)
def test_updates_agree_step_by_step(variant, rng):
    torch_learner, tf_learner = twins(**VARIANTS[variant])
    probe = rng.normal(size=(8, 4)).astype(np.float32)
    for _ in range(4):  # several steps: Adam's moments, target copies and Polyak blends all come into play
        batch = batch_for(rng)
        torch_metrics, tf_metrics = torch_learner.update(batch), tf_learner.update(batch)
        assert tf_metrics["loss"] == pytest.approx(torch_metrics["loss"], rel=1e-4, abs=1e-6)
        assert tf_metrics["q_mean"] == pytest.approx(torch_metrics["q_mean"], rel=1e-4, abs=1e-6)
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-4 * LEARNING_RATE)
        np.testing.assert_allclose(target_q(tf_learner, probe), target_q(torch_learner, probe), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("framework", [0, 1], ids=["torch", "tf"])
def test_a_burst_equals_the_same_steps_one_by_one_and_reports_their_mean_metrics(framework, rng):
    one_by_one, burst = twins()[framework], twins()[framework]
    batches = [dqn_batch(rng, n_actions=3) for _ in range(3)]
    steps = [one_by_one.update(batch) for batch in batches]
    metrics = burst.update_many({name: np.stack([b[name] for b in batches]) for name in batches[0]})
    assert burst.gradient_steps == one_by_one.gradient_steps == 3
    for a, b in zip(one_by_one.get_weights(), burst.get_weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    for name in ("loss", "q_mean"):
        assert metrics[name] == pytest.approx(np.mean([step[name] for step in steps]), rel=1e-5), name


def test_hard_target_copies_happen_on_schedule_inside_the_tf_graph(rng):
    # the step counter is a tf.Variable: a Python int would be frozen into the traced graph (claim C22)
    _, learner = twins(target_update="hard", target_update_every=3)
    probe = rng.normal(size=(8, 4)).astype(np.float32)
    before = target_q(learner, probe)
    learner.update_many({name: np.stack([v, v]) for name, v in dqn_batch(rng, n_actions=3).items()})
    np.testing.assert_array_equal(target_q(learner, probe), before)  # 2 steps: no copy yet
    learner.update(dqn_batch(rng, n_actions=3))  # step 3: copy
    np.testing.assert_allclose(target_q(learner, probe), learner.q_values(probe), rtol=1e-6)


def test_reset_optimizer_makes_the_next_step_that_of_a_fresh_optimizer(rng):
    # after reset, each twin steps as a new learner holding the same weights would (Adam's step 1: a move of
    # about lr per weight), and the twins still agree with each other
    trained = twins()
    for learner in trained:
        for _ in range(3):
            learner.update(batch_for(np.random.default_rng(1)))
        learner.reset_optimizer()
        learner.sync_target()  # as set_weights does for the fresh learners below
    fresh = twins()
    for learner, new in zip(trained, fresh, strict=True):
        new.set_weights(learner.get_weights())
    batch = batch_for(rng)
    for learner in (*trained, *fresh):
        learner.update(batch)
    for reset, new in zip(trained, fresh, strict=True):
        for a, b in zip(reset.get_weights(), new.get_weights(), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for w_torch, w_tf in zip(trained[0].get_weights(), trained[1].get_weights(), strict=True):
        np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-4 * LEARNING_RATE)


def test_an_update_really_changes_the_weights(rng):
    for learner in twins():
        before = learner.get_weights()
        learner.update(dqn_batch(rng, n_actions=3))
        assert all(not np.allclose(a, b) for a, b in zip(before, learner.get_weights(), strict=True))


def test_the_update_reads_the_fields_of_the_contract_in_its_order():
    """``Batch``, the one named tuple every step reads, is the contract's fields in the contract's order."""
    assert Batch._fields == tuple(dqn_contract(4, 3).fields)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_update_rejects_a_broadcasting_batch(framework, rng):
    learner = twins()[0 if framework == "torch" else 1]
    batch = dqn_batch(rng, n_actions=3)
    batch["rewards"] = batch["rewards"][:, None]
    with pytest.raises(ContractError, match="squeeze"):
        learner.update(batch)


def weighted_nstep_batch(rng: np.random.Generator) -> dict:
    """A batch of k-step transitions (discounts gamma^k, k in 1..5) with prioritized-replay weights."""
    batch = batch_for(rng)
    batch["discounts"] = (0.99 ** rng.integers(1, 6, size=64)).astype(np.float32)
    batch["weights"] = rng.uniform(0.1, 1.0, size=64).astype(np.float32)
    return batch


def test_discounts_weights_and_td_errors_agree(rng):
    torch_learner, tf_learner = twins()
    batch = weighted_nstep_batch(rng)
    torch_out = torch_learner.compute_gradients(*torch_learner.tensors(batch))
    tf_out = tf_learner.compute_gradients(*tf_learner.tensors(batch))
    assert float(tf_out[0]) == pytest.approx(float(torch_out[0]), rel=1e-6)
    np.testing.assert_allclose(np.array(tf_out[2]), torch_out[2].numpy(), rtol=1e-5, atol=1e-6)
    bursts = {name: np.stack([values, values[::-1]]) for name, values in batch.items()}
    torch_metrics, tf_metrics = torch_learner.update_many(bursts), tf_learner.update_many(bursts)
    # a burst's metrics are the means over its steps, in both frameworks
    for name in ("loss", "q_mean"):
        assert tf_metrics[name] == pytest.approx(torch_metrics[name], rel=1e-5)
    assert torch_learner.last_priorities.shape == (2, 64)
    np.testing.assert_allclose(tf_learner.last_priorities, torch_learner.last_priorities, rtol=1e-4, atol=1e-5)
    for a, b in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("learner_class", [TorchLearner, TFLearner])
def test_weights_scale_each_sample_and_defaults_mean_one_step_uniform(learner_class, rng):
    config = DQNConfig(hidden_sizes=(16,), gamma=0.9)
    learner = learner_class(4, 3, config, seed=0)
    batch = batch_for(rng)
    plain = float(learner.compute_gradients(*learner.tensors(batch))[0])
    explicit = {**batch, "discounts": np.full(64, 0.9, np.float32), "weights": np.ones(64, np.float32)}
    assert float(learner.compute_gradients(*learner.tensors(explicit))[0]) == plain
    doubled = {**explicit, "weights": np.full(64, 2.0, np.float32)}
    assert float(learner.compute_gradients(*learner.tensors(doubled))[0]) == pytest.approx(2 * plain, rel=1e-6)
    zero_bootstrap = {**explicit, "discounts": np.zeros(64, np.float32)}
    td = np.asarray(learner.compute_gradients(*learner.tensors(zero_bootstrap))[2])
    q = learner.q_values(batch["obs"])[np.arange(64), batch["actions"]]
    np.testing.assert_allclose(td, np.abs(batch["rewards"] - q), rtol=1e-5, atol=1e-5)  # target = r alone


RAINBOW_PARTS = {
    "noisy": {"noisy": True},
    "noisy-dueling": {"noisy": True, "dueling": True},
    "c51": {"distributional": True, "n_atoms": 11, "v_min": -10.0, "v_max": 10.0},
    "c51-vanilla-hard": {
        "distributional": True,
        "n_atoms": 11,
        "v_min": -10.0,
        "v_max": 10.0,
        "double": False,
        "target_update": "hard",
        "target_update_every": 2,
    },
    "all": {"noisy": True, "dueling": True, "distributional": True, "n_atoms": 11, "v_min": -10.0, "v_max": 10.0},
}


@pytest.mark.parametrize("variant", RAINBOW_PARTS)
def test_noisy_and_distributional_forward_passes_agree_in_torch_tf_and_numpy(variant, rng):
    torch_learner, tf_learner = twins(**RAINBOW_PARTS[variant])
    config = torch_learner.config
    obs = rng.normal(size=(10, 4)).astype(np.float32)
    noise = torch_learner.draw_noise()[0]
    torch_out = torch_learner.q(torch.from_numpy(obs), torch.from_numpy(noise)).detach().numpy()
    tf_out = tf_learner.q(obs, noise).numpy()
    numpy_out = q_network_forward(
        torch_learner.get_weights(), obs, dueling=config.dueling, noisy=config.noisy, n_atoms=config.atoms, noise=noise
    )
    assert torch_out.shape == ((10, 3, 11) if config.distributional else (10, 3))
    np.testing.assert_allclose(tf_out, torch_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(numpy_out, torch_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf_learner.q_values(obs), torch_learner.q_values(obs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", RAINBOW_PARTS)
def test_rainbow_parts_update_the_same_with_the_same_noise(variant, rng):
    torch_learner, tf_learner = twins(**RAINBOW_PARTS[variant])
    for _ in range(3):
        batch = weighted_nstep_batch(rng)
        noise = torch_learner.draw_noise()  # one draw for the online and one for the target network
        torch_loss = float(torch_learner.compute_gradients(*torch_learner.tensors(batch, noise))[0])
        assert float(tf_learner.compute_gradients(*tf_learner.tensors(batch, noise))[0]) == pytest.approx(
            torch_loss, rel=1e-5
        )
        for g_torch, g_tf in zip(
            torch_learner.gradients(batch, noise), tf_learner.gradients(batch, noise), strict=True
        ):
            np.testing.assert_allclose(g_tf, g_torch, rtol=1e-4, atol=1e-6)
        torch_metrics, tf_metrics = torch_learner.update(batch, noise), tf_learner.update(batch, noise)
        assert tf_metrics["q_mean"] == pytest.approx(torch_metrics["q_mean"], rel=1e-4, abs=1e-6)
        np.testing.assert_allclose(tf_learner.last_priorities, torch_learner.last_priorities, rtol=1e-4, atol=1e-5)
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=1e-4 * LEARNING_RATE)


def test_noise_changes_the_output_and_the_sigmas_learn(rng):
    torch_learner, _ = twins(noisy=True)
    obs = torch.from_numpy(rng.normal(size=(5, 4)).astype(np.float32))
    first, second = torch_learner.draw_noise()
    assert not torch.allclose(
        torch_learner.q(obs, torch.from_numpy(first)), torch_learner.q(obs, torch.from_numpy(second))
    )
    sigmas_before = torch_learner.get_weights()[2::4]
    torch_learner.update(batch_for(rng))
    assert all(not np.allclose(a, b) for a, b in zip(sigmas_before, torch_learner.get_weights()[2::4], strict=True))


def test_c51_priorities_are_the_cross_entropy_against_the_projected_target(rng):
    torch_learner, _ = twins(distributional=True, n_atoms=11, v_min=-10.0, v_max=10.0)  # atoms 2 apart
    batch = {**weighted_nstep_batch(rng), "discounts": np.zeros(64, np.float32)}  # target: all mass at r
    batch["rewards"] = (2 * np.round(batch["rewards"] / 2)).clip(-10, 10).astype(np.float32)  # r on an atom
    loss, _, priorities, _ = torch_learner.compute_gradients(*torch_learner.tensors(batch))
    logits = torch_learner.q(torch.from_numpy(batch["obs"])).detach().numpy()[np.arange(64), batch["actions"]]
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    atom_of_reward = ((batch["rewards"] + 10) / 2).astype(int)
    np.testing.assert_allclose(priorities.numpy(), -log_probs[np.arange(64), atom_of_reward], rtol=1e-5)
    assert float(loss) == pytest.approx(float(np.mean(batch["weights"] * priorities.numpy())), rel=1e-5)


@pytest.mark.parametrize("learner_class", [TorchLearner, TFLearner], ids=["torch", "tf"])
def test_adam_eps_reaches_the_optimizer(learner_class, rng):
    """Twins that both ignored ``adam_eps`` would still agree with each other: each must take another step."""
    batch = batch_for(rng)
    weights = []
    for adam_eps in (1e-8, 1e-2):
        learner = learner_class(
            4, 3, DQNConfig(hidden_sizes=(16, 16), learning_rate=LEARNING_RATE, adam_eps=adam_eps), 0
        )
        learner.update(batch)
        weights.append(learner.get_weights()[0])
    assert np.abs(weights[0] - weights[1]).max() > 1e-3 * LEARNING_RATE
