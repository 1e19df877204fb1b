"""Generalized state-dependent exploration (gSDE, ``use_sde``) of A2C and PPO.

The numpy acting path against the method's formulas (std_k(s) = sqrt(sum_j z_j(s)^2 sigma_jk^2), noise held
for ``sde_sample_freq`` steps), each framework's log-probability and gradient against a Gaussian written
here, checkpoints and resumed runs, and the refusals. The twins' agreement with gSDE on is in
``test_actor_critic_equivalence.py``'s cases.
"""

from __future__ import annotations

import importlib
import math

import gymnasium
import numpy as np
import pytest

import rlkit
from rlkit.algos.a2c import A2CConfig
from rlkit.algos.ppo import PPOAgent, PPOConfig
from rlkit.callbacks import Callback, SaveCheckpoints
from rlkit.envs import space_info
from rlkit.errors import RlkitError
from rlkit.nets import mlp_forward

HIDDEN, OBS_DIM, ACTION_DIM = (16, 8), 5, 2
EPS = 1e-6  # added to the variance before its log, as SB3 does


def learner(framework: str, **overrides):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    config = PPOConfig(hidden_sizes=HIDDEN, use_sde=True, **overrides)
    module = importlib.import_module(f"rlkit.algos.ppo.{framework}")
    return module.Learner(OBS_DIM, ACTION_DIM, False, config, seed=1)


def uneven_log_std(learner, rng: np.random.Generator) -> np.ndarray:
    """A log std matrix whose rows (features) and columns (actions) all differ: a product over the wrong
    axis, or a std that ignores the features, gives other numbers."""
    weights = learner.get_weights()
    weights[-1] = rng.uniform(-1.5, 0.5, size=weights[-1].shape).astype(np.float32)
    learner.set_weights(weights)
    return weights[-1]


def agent_for(framework: str, **overrides) -> PPOAgent:
    space = gymnasium.spaces.Box(-2.0, 2.0, (ACTION_DIM,), np.float32)
    learner_ = learner(framework, **overrides)
    return PPOAgent(learner_, "Pendulum-v1", OBS_DIM, space_info(space), learner_.config)


def gaussian(agent: PPOAgent, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means, latent features and the std of every state, from the weights, written out here."""
    weights = agent.learner.get_weights()
    actor, sigma = weights[:6], np.exp(weights[-1].astype(np.float64))
    features = np.tanh(mlp_forward(actor[:4], obs, "tanh")).astype(np.float64)
    means = mlp_forward(actor, obs, "tanh")
    std = np.sqrt((features[:, :, None] ** 2 * sigma[None] ** 2).sum(axis=1))  # sum over j of z_j^2 sigma_jk^2
    return means, features, std


def test_the_log_std_is_a_matrix_and_the_means_are_the_plain_actors():
    agent = agent_for("torch", log_std_init=-0.7)
    assert agent.learner.get_weights()[-1].shape == (HIDDEN[-1], ACTION_DIM)
    np.testing.assert_array_equal(agent.learner.get_weights()[-1], np.float32(-0.7))
    obs = np.random.default_rng(1).normal(size=(7, OBS_DIM)).astype(np.float32)
    means, features = agent.policy_features(obs)
    assert features.shape == (7, HIDDEN[-1])
    np.testing.assert_allclose(means, agent.policy_output(obs), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(agent.act(obs), np.clip(agent.policy_output(obs), -2.0, 2.0))  # greedy: mean


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_samples_spread_as_the_state_dependent_std(framework, rng):
    agent = agent_for(framework)
    uneven_log_std(agent.learner, rng)
    agent.refresh()
    states = rng.normal(size=(3, OBS_DIM)).astype(np.float32) * 2.0
    means, _, std = gaussian(agent, states)
    draws = 40_000
    for state, mean, expected in zip(states, means, std, strict=True):
        agent.reset_noise(0, rng, draws)  # one matrix per row: independent samples of one state
        samples = agent.sample(np.repeat(state[None], draws, axis=0), rng)
        np.testing.assert_allclose(samples.mean(axis=0), mean, atol=4 * expected.max() / math.sqrt(draws))
        np.testing.assert_allclose(samples.std(axis=0), expected, rtol=0.03)
    assert np.ptp(std, axis=0).min() > 0.05 * std.max()  # the std does depend on the state


def test_noise_is_held_for_sde_sample_freq_steps_then_redrawn(rng):
    obs = rng.normal(size=(2, OBS_DIM)).astype(np.float32)  # two environments, the same states every step
    for freq, draws_at in [(4, {0, 4, 8}), (-1, {0}), (1, set(range(10)))]:
        agent = agent_for("torch", sde_sample_freq=freq)
        held, actions = [], []
        for t in range(10):
            before = rng.bit_generator.state
            agent.reset_noise(t, rng, 2)
            assert (rng.bit_generator.state != before) == (t in draws_at), (freq, t)  # draws only when due
            held.append(agent.noise.copy())
            actions.append(agent.sample(obs, rng))
        assert held[0].shape == (2, HIDDEN[-1], ACTION_DIM)
        assert not np.array_equal(held[0][0], held[0][1])  # each environment its own matrix
        for t in range(1, 10):
            same = t not in draws_at
            assert np.array_equal(held[t], held[t - 1]) == same, (freq, t)
            assert np.array_equal(actions[t], actions[t - 1]) == same, (freq, t)  # the held matrix acts


class RecordNoise(Callback):
    def __init__(self) -> None:
        self.noise = []

    def on_step(self, run) -> None:
        self.noise.append(run.agent.noise.copy())


@pytest.mark.parametrize(("freq", "redrawn"), [(4, [4, 6, 10]), (-1, [6])])
def test_the_rollout_loop_redraws_at_each_rollout_and_every_sde_sample_freq_steps(freq, redrawn):
    """2 rollouts of 6 steps: new matrices at steps 0 and 4 of each rollout (4), at each rollout's start (-1)."""
    pytest.importorskip("torch")
    record = RecordNoise()
    settings = {"num_envs": 2, "num_steps": 6, "epochs": 1, "num_minibatches": 1, "eval_every": 24}
    rlkit.train("a2c", env="Pendulum-v1", seed=0, total_steps=24, progress=False, eval_episodes=1,
                use_sde=True, sde_sample_freq=freq, callbacks=[record], **settings)  # fmt: skip
    held = record.noise
    assert len(held) == 12 and held[0].shape == (2, 64, 1)
    assert [t for t in range(1, 12) if not np.array_equal(held[t], held[t - 1])] == redrawn


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_log_probs_and_entropy_are_the_state_dependent_gaussians(framework, rng):
    agent = agent_for(framework)
    uneven_log_std(agent.learner, rng)
    obs = rng.normal(size=(33, OBS_DIM)).astype(np.float32)
    actions = rng.normal(size=(32, ACTION_DIM)).astype(np.float32)
    means, _, std = gaussian(agent, obs)
    std = np.sqrt(std**2 + EPS)
    expected = (-0.5 * ((actions - means[:32]) / std[:32]) ** 2 - np.log(std[:32]) - 0.5 * np.log(2 * np.pi)).sum(1)
    values, log_probs = agent.learner.values_and_log_probs(obs, actions)
    assert values.shape == (33,)
    np.testing.assert_allclose(log_probs, expected, rtol=1e-5, atol=1e-5)
    nets = importlib.import_module(f"rlkit.algos.actor_critic.{framework}")
    if framework == "torch":
        import torch

        entropy = nets.log_prob_entropy(agent.learner.model, torch.from_numpy(obs), torch.from_numpy(obs[:, :2]))[1]
        entropy = entropy.detach()
    else:
        entropy = nets.log_prob_entropy(agent.learner.model, obs, obs[:, :2])[1]
    np.testing.assert_allclose(np.asarray(entropy), (np.log(std) + 0.5 * (1 + np.log(2 * np.pi))).sum(1), rtol=1e-5)


def gradients(framework: str, agent: PPOAgent, obs: np.ndarray, actions: np.ndarray, std: np.ndarray):
    """Gradients of sum(log pi(a|s)) over the actor's arrays and the log std, through rlkit's
    ``log_prob_entropy`` and through a Gaussian whose std is a constant (the features detached): the same
    for the actor, which learns through the mean only."""
    nets = importlib.import_module(f"rlkit.algos.actor_critic.{framework}")
    model = agent.learner.model
    if framework == "torch":
        import torch

        params = [*model.actor.parameters(), model.log_std]
        obs_t, actions_t = torch.from_numpy(obs), torch.from_numpy(actions)
        rlkit_grads = torch.autograd.grad(nets.log_prob_entropy(model, obs_t, actions_t)[0].sum(), params)
        const = torch.as_tensor(std, dtype=torch.float32)
        reference = (-0.5 * ((actions_t - model.actor(obs_t)) / const) ** 2).sum()
        actor_grads = torch.autograd.grad(reference, params[:-1])
        entropy = nets.log_prob_entropy(model, obs_t, actions_t)[1].sum()
        entropy_grads = torch.autograd.grad(entropy, params[:-1], allow_unused=True, materialize_grads=True)
        return [g.numpy() for g in rlkit_grads], [g.numpy() for g in actor_grads], [g.numpy() for g in entropy_grads]
    import tensorflow as tf

    params = [*model.actor.trainable_variables, model.log_std]
    with tf.GradientTape(persistent=True) as tape:
        log_probs, entropy = nets.log_prob_entropy(model, obs, actions)
        reference = tf.reduce_sum(-0.5 * ((actions - model.actor(obs)) / std.astype(np.float32)) ** 2)
        total, entropy = tf.reduce_sum(log_probs), tf.reduce_sum(entropy)
    entropy_grads = tape.gradient(entropy, params[:-1])  # None: not connected
    return (
        [g.numpy() for g in tape.gradient(total, params)],
        [g.numpy() for g in tape.gradient(reference, params[:-1])],
        [np.zeros(1) if g is None else g.numpy() for g in entropy_grads],
    )


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_the_network_learns_through_the_mean_and_sigma_through_the_std(framework, rng):
    agent = agent_for(framework)
    uneven_log_std(agent.learner, rng)
    obs = rng.normal(size=(64, OBS_DIM)).astype(np.float32)
    actions = rng.normal(size=(64, ACTION_DIM)).astype(np.float32)
    std = np.sqrt(gaussian(agent, obs)[2] ** 2 + EPS)
    rlkit_grads, mean_only, entropy_grads = gradients(framework, agent, obs, actions, std)
    for got, expected in zip(rlkit_grads[:-1], mean_only, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    assert all(not np.any(g) for g in entropy_grads)  # the entropy moves sigma only
    assert np.abs(rlkit_grads[-1]).min() > 0  # every entry of the log std matrix learns


@pytest.mark.parametrize(("framework", "suffix"), [("torch", ".pt"), ("tf", ".keras"), ("tf", ".weights.h5")])
def test_a_gsde_checkpoint_keeps_the_log_std_matrix(framework, suffix, tmp_path, rng):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    config = PPOConfig.for_env("Pendulum-v1", hidden_sizes=(8, 6), use_sde=True, sde_sample_freq=4)
    agent, envs = PPOAgent.make("Pendulum-v1", framework, config, seed=2)
    envs.close()
    log_std = uneven_log_std(agent.learner, rng)
    agent.refresh()
    loaded = rlkit.load(agent.save(tmp_path / f"ppo{suffix}"))
    assert isinstance(loaded, PPOAgent) and loaded.config == config
    assert loaded.get_weights()[-1].shape == (6, 1)
    np.testing.assert_array_equal(loaded.get_weights()[-1], log_std)
    for saved, restored in zip(agent.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, restored)
    obs = rng.normal(size=(20, 3)).astype(np.float32)
    np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))
    stochastic = [a.act(obs, deterministic=False, rng=np.random.default_rng(5)) for a in (agent, loaded)]
    np.testing.assert_array_equal(*stochastic)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_a_gsde_run_saved_halfway_resumes_to_the_uninterrupted_run_bit_for_bit(framework, tmp_path):
    """The noise is drawn from the loop's generator at every rollout's start and a run is saved at a
    rollout's end, so the restored generator redraws what the uninterrupted run drew."""
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    settings = {
        "env": "Pendulum-v1", "framework": framework, "seed": 3, "total_steps": 1024, "progress": False,
        "num_envs": 4, "num_steps": 64, "epochs": 2, "num_minibatches": 4, "eval_every": 512, "eval_episodes": 2,
        "use_sde": True, "sde_sample_freq": 5,  # not a divisor of num_steps: the last draw of a rollout is short
    }  # fmt: skip
    whole = rlkit.train("ppo", **settings)
    rlkit.train("ppo", callbacks=[SaveCheckpoints(tmp_path, every=512, best=False, resumable=True)], **settings)
    halfway = tmp_path / f"step_512{'.pt' if framework == 'torch' else '.keras'}"
    resumed = rlkit.train("ppo", framework=framework, resume=halfway, progress=False)
    assert resumed.steps == whole.steps == 1024
    for a, b in zip(whole.agent.get_weights(), resumed.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(whole.history.series("eval_return")[1], resumed.history.series("eval_return")[1])


def test_gsde_is_refused_where_it_cannot_apply():
    pytest.importorskip("torch")
    with pytest.raises(RlkitError, match=r"PPO: use_sde=True \(gSDE\) explores continuous actions.*discrete"):
        rlkit.train("ppo", env="CartPole-v1", use_sde=True, total_steps=256, progress=False)
    with pytest.raises(RlkitError, match="A2C hyperparameter precision must be 'fp32' with use_sde=True"):
        A2CConfig(use_sde=True, precision="bf16")
    A2CConfig(use_sde=False, precision="bf16")  # the plain Gaussian computes in any precision
    # PPO's Pendulum default explores with gSDE: a bf16 run is told which setting to change
    fix = r"pass use_sde=False to train in bf16\), got 'bf16'"
    with pytest.raises(RlkitError, match=fix):
        PPOConfig.for_env("Pendulum-v1", precision="bf16")
    assert not PPOConfig.for_env("Pendulum-v1", precision="bf16", use_sde=False).use_sde
    from rlkit.algos.actor_critic.config import check_sde
    from rlkit.encoders import image_spec

    image = image_spec(gymnasium.spaces.Box(0, 255, (84, 84, 3), np.uint8), "auto")
    with pytest.raises(RlkitError, match=r"implemented for flat observations.*images \(84, 84, 3\)"):
        check_sde(PPOConfig(use_sde=True), False, image)
