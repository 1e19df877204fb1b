"""Hyperparameters: declared types enforced with clear errors, docs read from the ``#:`` comments, YAML."""

from __future__ import annotations

import re

import numpy as np
import pytest

from rlkit.algos.dqn.config import DQNConfig
from rlkit.algos.rainbow.config import RainbowConfig
from rlkit.algos.sac.config import SACConfig
from rlkit.config_files import load_yaml
from rlkit.errors import RlkitError
from rlkit.hyperparams import field_docs


def test_lossless_conversions_are_made():
    config = DQNConfig(hidden_sizes=[32, np.int64(16)], learning_rate=1, learning_starts=1e3, double=np.bool_(False))
    assert config.hidden_sizes == (32, 16) and type(config.hidden_sizes[1]) is int
    assert config.learning_rate == 1.0 and type(config.learning_rate) is float
    assert config.learning_starts == 1000 and type(config.learning_starts) is int
    assert config.double is False
    assert DQNConfig(max_grad_norm=None).max_grad_norm is None and DQNConfig(max_grad_norm=5).max_grad_norm == 5.0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"learning_rate": "fast"}, "learning_rate must be float, got 'fast' (str)"),
        ({"batch_size": 64.5}, "batch_size must be int, got 64.5 (float)"),
        ({"double": 1}, "double must be bool, got 1 (int)"),
        ({"hidden_sizes": 64}, "hidden_sizes must be tuple of int, got 64 (int)"),
        ({"hidden_sizes": (64.5,)}, "hidden_sizes must be tuple of int, got (64.5,) (tuple)"),
        ({"max_grad_norm": "10"}, "max_grad_norm must be float or None, got '10' (str)"),
        ({"target_update": 3}, "target_update must be str, got 3 (int)"),
    ],
)
def test_a_wrong_type_names_the_field_and_the_expected_type(overrides, message):
    with pytest.raises(RlkitError, match=f"^DQN hyperparameter {re.escape(message)}"):
        DQNConfig(**overrides)


def test_docs_come_from_the_comment_above_and_are_shared_by_a_group_and_overridden_by_a_subclass():
    dqn, rainbow = field_docs(DQNConfig), field_docs(RainbowConfig)
    assert dqn["learning_rate"].startswith("Adam step size") and dqn["final_lr_fraction"] == dqn["learning_rate"]
    assert dqn["gamma"] == "Discount factor."
    assert rainbow["noisy_sigma0"] != dqn["noisy_sigma0"] and rainbow["noisy_sigma0"].startswith("The paper's 0.5")
    assert rainbow["dueling"] == dqn["dueling"]  # redefined without a comment: keeps the base's text
    assert all(field_docs(SACConfig).values())


def test_yaml_flat_zoo_and_rlkit_layouts(tmp_path):
    flat = tmp_path / "flat.yaml"
    flat.write_text("learning_rate: 3.0e-4\nseed: 4\n")
    assert load_yaml(flat, "CartPole-v1") == {"learning_rate": 3e-4, "seed": 4}
    zoo = tmp_path / "zoo.yaml"
    zoo.write_text("CartPole-v1:\n  n_timesteps: !!float 5e4\n  policy: MlpPolicy\n  gamma: 0.98\nAcrobot-v1: {}\n")
    assert load_yaml(zoo, "CartPole-v1") == {"total_steps": 50_000, "gamma": 0.98}
    with pytest.raises(RlkitError, match="has settings for CartPole-v1, Acrobot-v1, not for Pendulum-v1"):
        load_yaml(zoo, "Pendulum-v1")
    written = tmp_path / "config.yaml"
    written.write_text("algo: dqn\nenv: Acrobot-v1\nframework: tf\ngamma: 0.9\nlearning_rate: 3e-4\n")
    # the run's own keys come back for the command line to use where it names none; 3e-4 is a number
    assert load_yaml(written, None, "dqn") == {
        "env": "Acrobot-v1",
        "framework": "tf",
        "gamma": 0.9,
        "learning_rate": 3e-4,
    }
    with pytest.raises(RlkitError, match="written for algo 'dqn', not 'ppo'"):
        load_yaml(written, None, "ppo")
    zoo_text = tmp_path / "bad_zoo.yaml"
    zoo_text.write_text("CartPole-v1:\n  n_timesteps: lots\n")
    with pytest.raises(RlkitError, match="n_timesteps: .lots. — must be a whole number of environment steps"):
        load_yaml(zoo_text)
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(RlkitError, match="must hold a mapping"):
        load_yaml(bad, "CartPole-v1")
