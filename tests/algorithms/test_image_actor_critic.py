"""PPO and A2C on image observations: each network's convolutional encoder (``rlkit/encoders.py``) in numpy,
torch and TensorFlow is one network (same weights -> same policy and values, same gradients, same updates),
for categorical and Gaussian policies, channels-first uint8 stacks and channels-last bool grids; the rollout
stores observations as they come, and a short run learns an image task in both frameworks."""

from __future__ import annotations

import importlib

import gymnasium as gym
import numpy as np
import pytest

from rlkit.algos.a2c import A2CConfig
from rlkit.algos.a2c.agent import A2CAgent
from rlkit.algos.actor_critic.agent import minibatch_indices
from rlkit.algos.ppo import PPOConfig
from rlkit.algos.ppo.agent import PPOAgent
from rlkit.encoders import image_spec
from rlkit.errors import ContractError, RlkitError
from tests.algorithms.test_image_dqn import GridWorld, SteeredGridWorld, observations

torch = pytest.importorskip("torch")
tf = pytest.importorskip("tensorflow")

LEARNING_RATE = 1e-2
#: Each update below starts from the same weights (the TF learner is given the torch learner's first) and takes
#: one Adam step; the Adam moments accumulate in each framework on its own. Measured over these cases and rng
#: seeds 0-3: the new weights agree to within 3e-5 of a step beyond rtol 1e-4, inside the MLP tests' 1e-4 of a
#: step. Several steps in a row are not compared elementwise: the trajectory itself amplifies rounding (a ReLU
#: of an encoder just above or below zero passes its whole gradient or none). After one Adam step the twins
#: are 3e-5 of a step apart; eleven steps later (Nature encoder) 0.17 of a step (A2C, Gaussian) and 0.24 (PPO,
#: categorical), and a torch learner given TF's weights after that first step ends 0.17 and 0.61 of a step
#: from the torch run it copied: the divergence is the trajectory's, not the frameworks'.
WEIGHT_ATOL = 1e-4 * LEARNING_RATE
#: The gradients agree to within 5e-6 of each array's largest gradient (measured as above): the actor's
#: encoder, behind a policy head of gain 0.01, has gradients up to 10^4 times smaller than the critic's, so the
#: tolerance is per array. A wrong layout, scale or loss changes gradients by their own size.
GRADIENT_ATOL = 2e-5
AGENTS = {"ppo": (PPOAgent, PPOConfig), "a2c": (A2CAgent, A2CConfig)}
#: Small spaces of both layouts, both dtypes and both encoders, cheap enough to update in a test.
SPACES = {
    # features 2x3x64: a 1x1 map would flatten alike in NHWC and NCHW order
    "pixels-channels-first-nature": gym.spaces.Box(0, 255, (2, 44, 52), np.uint8),
    "grid-bool-channels-last-minatar": gym.spaces.Box(0, 1, (10, 10, 4), bool),
}
ACTIONS = 3


def twins(algo: str, space: gym.spaces.Box, discrete: bool, **overrides):
    """torch and TF learners from one seed (the same initial weights, drawn in numpy), and an agent acting
    through numpy on the torch learner's weights."""
    agent_class, config_class = AGENTS[algo]
    config = config_class(hidden_sizes=(16,), learning_rate=LEARNING_RATE, **overrides)
    spec, size = image_spec(space), int(np.prod(space.shape))
    learners = [
        importlib.import_module(f"rlkit.algos.{algo}.{framework}").Learner(
            size, ACTIONS, discrete, config, seed=4, image=spec
        )
        for framework in ("torch", "tf")
    ]
    if discrete:
        action = {"discrete": True, "n": ACTIONS}
    else:
        action = {"discrete": False, "shape": (ACTIONS,), "low": -np.ones(ACTIONS), "high": np.ones(ACTIONS)}
    return (*learners, agent_class(learners[0], "test", size, action, config, spec))


def rollout_batch(space, rng: np.random.Generator, discrete: bool, size: int = 48) -> dict:
    actions = rng.integers(0, ACTIONS, size) if discrete else rng.normal(size=(size, ACTIONS)).astype(np.float32)
    return {
        "obs": observations(space, rng, size),
        "actions": actions,
        "old_log_probs": (rng.normal(size=size) * 0.1 - 1.1).astype(np.float32),
        "advantages": rng.normal(size=size).astype(np.float32),
        "returns": rng.normal(size=size).astype(np.float32),
        "old_values": rng.normal(size=size).astype(np.float32),
    }


def network_outputs(learner, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The actor's output (logits or Gaussian means) and the critic's values, from the framework's network."""
    if learner.framework == "torch":
        with torch.no_grad():
            logits, values = learner.model(torch.as_tensor(obs))
        return logits.numpy(), values.numpy()[:, 0]
    logits, values = learner.model(obs)
    return logits.numpy(), values.numpy()[:, 0]


def loss_gradients(learner, batch: dict, clip_range: float = 0.2) -> tuple[float, list[np.ndarray]]:
    """The learner's loss on the whole batch and its gradients, in get_weights order and layout."""
    if learner.framework == "torch":
        from rlkit.algos.actor_critic.torch import Batch, parameters
        from rlkit.algos.torch_parts import to_keras_layout

        tensors = Batch(*(torch.as_tensor(batch[name]) for name in Batch._fields))
        loss, _ = learner.loss(tensors, torch.tensor(clip_range))
        grads = torch.autograd.grad(loss, parameters(learner.model))
        return float(loss.detach()), [to_keras_layout(grad.numpy()) for grad in grads]
    from rlkit.algos.actor_critic.tf import Batch, parameters

    tensors = Batch(*(tf.constant(batch[name]) for name in Batch._fields))
    with tf.GradientTape() as tape:
        loss, _ = learner.loss(tensors, tf.constant(clip_range))
    return float(loss), [grad.numpy() for grad in tape.gradient(loss, parameters(learner.model))]


CASES = [(algo, name, discrete) for algo in AGENTS for name in SPACES for discrete in (True, False)]
IDS = [f"{algo}-{name}-{'categorical' if discrete else 'gaussian'}" for algo, name, discrete in CASES]


@pytest.mark.parametrize(("algo", "name", "discrete"), CASES, ids=IDS)
def test_forward_passes_agree_in_torch_tf_and_numpy(algo, name, discrete, rng):
    space = SPACES[name]
    torch_learner, tf_learner, agent = twins(algo, space, discrete)
    weights = torch_learner.get_weights()
    for w_torch, w_tf in zip(weights, tf_learner.get_weights(), strict=True):
        np.testing.assert_array_equal(w_tf, w_torch)  # one seed, one network: drawn in numpy
    spec = agent.image
    # each network's encoder leads its arrays: the actor's at 0, the critic's after the actor's dense layers
    critic_first = 2 * len(spec.convs) + 2 * (len(agent.config.hidden_sizes) + 1)
    assert weights[0].shape == weights[critic_first].shape == spec.kernel_shapes()[0]
    obs = observations(space, rng, 6)
    logits, values = network_outputs(torch_learner, obs)
    tf_logits, tf_values = network_outputs(tf_learner, obs)
    np.testing.assert_allclose(tf_logits, logits, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tf_values, values, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(agent.policy_output(obs), logits, rtol=1e-5, atol=1e-6)
    # the rollout's batched evaluation: values of every observation, old log-probs of the first five
    actions = rollout_batch(space, rng, discrete, 5)["actions"]
    torch_values, torch_log_probs = torch_learner.values_and_log_probs(obs, actions)
    tf_values, tf_log_probs = tf_learner.values_and_log_probs(obs, actions)
    np.testing.assert_allclose(torch_values, values, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf_values, torch_values, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf_log_probs, torch_log_probs, rtol=1e-5, atol=1e-5)
    # one observation in its stored shape and dtype is one action
    single = agent.act(obs[0])
    if discrete:
        assert single == int(logits[0].argmax())
    else:
        np.testing.assert_allclose(single, np.clip(logits[0], -1, 1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("algo", "name", "discrete"), CASES, ids=IDS)
def test_losses_gradients_and_updates_agree(algo, name, discrete, rng):
    space = SPACES[name]
    # Adam's epsilon at 1e-4, below most gradients: a near-zero gradient, whose sign the two summation orders
    # may flip, then moves its weight by a sliver instead of a whole step in either direction
    torch_learner, tf_learner, agent = twins(algo, space, discrete, adam_eps=1e-4, ent_coef=0.01)
    batch = rollout_batch(space, rng, discrete)
    torch_loss, torch_grads = loss_gradients(torch_learner, batch)
    tf_loss, tf_grads = loss_gradients(tf_learner, batch)
    assert tf_loss == pytest.approx(torch_loss, rel=1e-4, abs=1e-6)
    for g_torch, g_tf in zip(torch_grads, tf_grads, strict=True):
        atol = GRADIENT_ATOL * np.abs(g_torch).max()
        np.testing.assert_allclose(g_tf, g_torch, rtol=1e-4, atol=atol)
    critic_first = 2 * len(agent.image.convs) + 2 * (len(agent.config.hidden_sizes) + 1)
    for first in (0, critic_first):  # both encoders learn from the summed loss
        assert torch_grads[first].shape == agent.image.kernel_shapes()[0] and np.abs(torch_grads[first]).max() > 0
    for _ in range(3):
        batch = rollout_batch(space, rng, discrete)
        minibatch = minibatch_indices(48, 2, rng)[None, :1]  # one epoch of one minibatch: half the rollout
        tf_learner.set_weights(torch_learner.get_weights())
        torch_metrics = torch_learner.update(batch, minibatch, clip_range=0.2, max_kl=np.inf)
        tf_metrics = tf_learner.update(batch, minibatch, clip_range=0.2, max_kl=np.inf)
        for metric, value in torch_metrics.items():
            assert tf_metrics[metric] == pytest.approx(value, rel=1e-4, abs=1e-6), metric
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=WEIGHT_ATOL)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_the_contract_wants_images_as_stored(framework, rng):
    space = SPACES["pixels-channels-first-nature"]
    learner = twins("ppo", space, True)[0 if framework == "torch" else 1]
    batch = rollout_batch(space, rng, True)
    minibatches = np.stack([minibatch_indices(48, 1, rng)])
    scaled = {**batch, "obs": batch["obs"].astype(np.float32) / 255}
    with pytest.raises(ContractError, match=r"batch\['obs'\] has dtype float32; PPO expects \(B, 2, 44, 52\) uint8"):
        learner.update(scaled, minibatches, clip_range=0.2, max_kl=np.inf)


#: (algorithm, environment, steps, settings): each learns its grid in every seed of ten tried (0-9, torch; 0-3,
#: TF), in 2-5 s. gamma 0.9 makes a move into a wall cost 10% of the return, so the greedy policy must leave
#: each wall (at 0.99 A2C settled on right-or-down at 51/49 everywhere, whose greedy policy walks into the
#: right wall for ever); PPO's entropy bonus keeps an early rollout without a reward from collapsing its
#: policy onto one useless move (seed 1 without it); A2C's single step per rollout needs the larger rate.
RUNS = {
    "ppo-discrete": ("ppo", GridWorld, 8_192, {"ent_coef": 0.01}),
    "ppo-continuous": ("ppo", SteeredGridWorld, 8_192, {}),
    "a2c-discrete": ("a2c", GridWorld, 30_000, {"learning_rate": 3e-3}),
}


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("run", RUNS)
def test_a_short_run_learns_the_grid_from_its_images(run, framework, tmp_path):
    import rlkit

    algo, env, steps, settings = RUNS[run]
    result = rlkit.train(
        algo, env=env, framework=framework, total_steps=steps, seed=0, progress=False, hidden_sizes=(32,),
        gamma=0.9, eval_every=100_000, **settings,
    )  # fmt: skip
    agent = result.agent
    assert agent.loop.buffer.obs.dtype == bool and agent.loop.buffer.obs.shape[2:] == (5, 5, 2)
    assert agent.image is not None and agent.image.encoder == "minatar"
    returns = rlkit.evaluate(agent, env=rlkit.envs.env_source(env), episodes=5)
    assert returns.mean() == 1.0  # the greedy policy reaches the goal (untrained: it walks into a wall)
    path = agent.save(tmp_path / f"grid.{'pt' if framework == 'torch' else 'keras'}")
    loaded = rlkit.load(path)
    assert loaded.image == agent.image
    grids = []
    for position in [(0, 0), (2, 3), (4, 1), (3, 4)]:
        grid = env()
        grid.reset()
        grid.position = position
        grids.append(grid.grid())
    obs = np.stack(grids)
    assert agent.obs_normalizer(obs).dtype == bool  # acting reads the grids as stored, as the buffer does
    np.testing.assert_allclose(loaded.policy_output(obs), agent.policy_output(obs), rtol=1e-6)
    actions = agent.act(obs)
    np.testing.assert_array_equal(loaded.act(obs), actions)
    for loaded_out, out in zip(
        loaded.learner.values_and_log_probs(obs, actions), agent.learner.values_and_log_probs(obs, actions), strict=True
    ):
        np.testing.assert_allclose(loaded_out, out, rtol=1e-6)  # the critic and its encoder came back too


@pytest.mark.parametrize("algo", AGENTS)
def test_what_the_encoders_cannot_read_is_refused_by_name(algo):
    import rlkit

    with pytest.raises(RlkitError, match=f"{algo.upper()} reads GridWorld's images through convolutional encoders.*"
                                         "normalize_obs=True"):  # fmt: skip
        rlkit.train(algo, env=GridWorld, total_steps=100, progress=False, normalize_obs=True)
    with pytest.raises(RlkitError, match="too small for the nature encoder"):
        rlkit.train(algo, env=GridWorld, total_steps=100, progress=False, encoder="nature")
    with pytest.raises(RlkitError, match="hyperparameter encoder must be 'auto', 'nature' or 'minatar'"):
        AGENTS[algo][1](encoder="resnet")


def test_export_refuses_image_policies_by_name():
    from rlkit import export

    agent = twins("ppo", SPACES["grid-bool-channels-last-minatar"], True)[2]
    with pytest.raises(RlkitError, match="rlkit export does not take convolutional policies yet"):
        export.policy_plan(agent)
