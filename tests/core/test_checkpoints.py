"""Saving and loading agents in every format: the loaded agent acts exactly like the saved one."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.algos.dqn import DQNConfig
from rlkit.algos.dqn.agent import DQNAgent
from rlkit.errors import CheckpointError


@pytest.mark.parametrize("dueling", [False, True])
@pytest.mark.parametrize(("framework", "suffix"), [("torch", ".pt"), ("tf", ".keras"), ("tf", ".weights.h5")])
def test_round_trip_keeps_weights_config_and_actions(framework, suffix, dueling, tmp_path, rng):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    config = DQNConfig(hidden_sizes=(32, 16), gamma=0.95, dueling=dueling)
    agent, envs = DQNAgent.make("CartPole-v1", framework, config, seed=3)
    envs.close()
    path = agent.save(tmp_path / f"agent{suffix}")
    loaded = rlkit.load(path)
    assert type(loaded) is type(agent) and loaded.framework == framework
    assert loaded.config == config and loaded.env_id == "CartPole-v1"
    for saved, restored in zip(agent.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, restored)
    obs = rng.normal(size=(50, 4)).astype(np.float32)
    np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))


@pytest.mark.parametrize(("framework", "suffix"), [("torch", ".pt"), ("tf", ".keras"), ("tf", ".weights.h5")])
def test_rainbow_round_trip_keeps_noisy_distributional_networks(framework, suffix, tmp_path, rng):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    from rlkit.algos.rainbow import RainbowAgent, RainbowConfig

    config = RainbowConfig(hidden_sizes=(16,), n_atoms=11)
    agent, envs = RainbowAgent.make("CartPole-v1", framework, config, seed=3)
    envs.close()
    loaded = rlkit.load(agent.save(tmp_path / f"agent{suffix}"))
    assert type(loaded) is RainbowAgent and loaded.config == config
    for saved, restored in zip(agent.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, restored)
    obs, noise = rng.normal(size=(50, 4)).astype(np.float32), rng.normal(size=agent.noise_size).astype(np.float32)
    np.testing.assert_array_equal(loaded.q_values(obs, noise), agent.q_values(obs, noise))


def test_torch_checkpoints_load_with_weights_only(tmp_path):
    torch = pytest.importorskip("torch")
    agent, envs = DQNAgent.make("CartPole-v1", "torch", DQNConfig(hidden_sizes=(8,)), seed=0)
    envs.close()
    payload = torch.load(agent.save(tmp_path / "a.pt"), weights_only=True)
    assert set(payload) == {"rlkit", "state_dict"}


def test_missing_and_wrong_files_raise_checkpoint_errors(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        rlkit.load(tmp_path / "nope.pt")
    with pytest.raises(CheckpointError, match="cannot tell the checkpoint format"):
        rlkit.load(tmp_path / "agent.bin")
    (tmp_path / "bad.weights.h5").write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="not a readable rlkit Keras checkpoint"):
        rlkit.load(tmp_path / "bad.weights.h5")


def test_save_suffix_must_match_the_framework(tmp_path):
    agent, envs = DQNAgent.make("CartPole-v1", "torch", DQNConfig(hidden_sizes=(8,)), seed=0)
    envs.close()
    with pytest.raises(CheckpointError, match="a torch agent saves to .pt"):
        agent.save(tmp_path / "agent.keras")


@pytest.mark.parametrize(("framework", "suffix"), [("torch", ".pt"), ("tf", ".keras"), ("tf", ".weights.h5")])
def test_gaussian_ppo_round_trip_keeps_log_std_and_observation_statistics(framework, suffix, tmp_path, rng):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    from rlkit.algos.ppo import PPOAgent, PPOConfig

    # the plain Gaussian with observation statistics (Pendulum's default is gSDE, without: a case below)
    config = PPOConfig.for_env("Pendulum-v1", hidden_sizes=(8, 8), log_std_init=-0.3, use_sde=False, normalize_obs=True)
    agent, envs = PPOAgent.make("Pendulum-v1", framework, config, seed=2)
    envs.close()
    agent.obs_normalizer(rng.normal(3.0, 2.0, size=(500, 3)), update=True)  # non-trivial statistics
    loaded = rlkit.load(agent.save(tmp_path / f"ppo{suffix}"))
    assert isinstance(loaded, PPOAgent) and loaded.config == config
    for saved, restored in zip(agent.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, restored)
    np.testing.assert_allclose(loaded.get_weights()[-1], -0.3)  # the log std travelled too
    obs = rng.normal(3.0, 2.0, size=(20, 3)).astype(np.float32)
    np.testing.assert_allclose(loaded.act(obs), agent.act(obs), rtol=1e-6)


@pytest.mark.parametrize("algo", ["ddpg", "td3", "sac"])
@pytest.mark.parametrize(("framework", "suffix"), [("torch", ".pt"), ("tf", ".keras"), ("tf", ".weights.h5")])
def test_off_policy_round_trip_keeps_networks_action_bounds_and_alpha(algo, framework, suffix, tmp_path, rng):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")

    agent_class = rlkit.registry.algorithm(algo).agent_class
    config = agent_class.config_class(hidden_sizes=(16, 8), gamma=0.9)
    agent, envs = agent_class.make("Pendulum-v1", framework, config, seed=2)
    envs.close()
    if algo == "sac":  # a temperature other than the initial one, to see that it is saved
        if framework == "tf":
            agent.learner.log_alpha.assign([-1.5])
        else:
            agent.learner.log_alpha.data.fill_(-1.5)
    loaded = rlkit.load(agent.save(tmp_path / f"agent{suffix}"))
    assert type(loaded) is type(agent) and loaded.config == config
    for saved, restored in zip(agent.get_weights(), loaded.get_weights(), strict=True):
        np.testing.assert_array_equal(saved, restored)
    obs = rng.normal(size=(20, 3)).astype(np.float32)
    actions = loaded.act(obs)
    np.testing.assert_array_equal(actions, agent.act(obs))
    assert actions.shape == (20, 1) and np.all(np.abs(actions) <= 2.0)  # Pendulum's torque bounds
    if algo == "sac":
        log_alpha = loaded.learner.log_alpha
        assert float(np.asarray(log_alpha.detach() if framework == "torch" else log_alpha)[0]) == -1.5


@pytest.mark.parametrize(("algo", "env", "settings"), [
    ("rainbow", "CartPole-v1", {}),  # noisy, dueling, C51: every custom layer
    ("ppo", "Pendulum-v1", {"use_sde": False}),  # the actor-critic model with its log std
    ("ppo", "Pendulum-v1", {}),  # Pendulum's default, gSDE: its log std matrix, through get_config's sde_features
    ("sac", "Pendulum-v1", {}),  # actor, twin critics and log alpha
])  # fmt: skip
def test_a_keras_checkpoint_opens_in_plain_keras(algo, env, settings, tmp_path):
    """The .keras files are whole Keras models: keras.models.load_model rebuilds them (through the models'
    get_config / from_config) with the same weights and the same outputs, without rlkit's loader."""
    pytest.importorskip("tensorflow")
    import keras

    agent = rlkit.train(algo, env=env, framework="tf", total_steps=300, progress=False, **settings).agent
    path = agent.save(tmp_path / "agent.keras")
    model = keras.models.load_model(path)
    saved = agent.learner.q if algo == "rainbow" else agent.learner.model
    for a, b in zip(saved.get_weights(), model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    obs = np.random.default_rng(0).normal(size=(5, agent.obs_dim)).astype(np.float32)
    expected, loaded = saved(obs), model(obs)
    for a, b in zip(keras.tree.flatten(expected), keras.tree.flatten(loaded), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
