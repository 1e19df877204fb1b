"""The command line: the happy path end to end, and one clear line (no traceback) for every bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest


def rlkit_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlkit", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["train", "dqnn"],
            "unknown algorithm 'dqnn'; available: a2c, ddpg, dqn, ppo, rainbow, sac, td3. Did you mean 'dqn'?",
        ),
        (["train", "sac", "--env", "CartPole-v1"], "SAC needs a continuous (Box) action space"),
        (["train", "td3", "--set", "exploration=pink"], "TD3 hyperparameter exploration must be 'gaussian' or 'ou'"),
        (["train", "dqn", "--env", "CartPol-v1"], "unknown environment 'CartPol-v1'"),
        (["train", "dqn", "--framework", "jax"], "unknown framework 'jax'; choose 'torch' or 'tf'"),
        (["train", "dqn", "--env", "Pendulum-v1"], "DQN needs a discrete action space"),
        (["train", "dqn", "--set", "gamma=1.5"], "DQN hyperparameter gamma must be in [0, 1], got 1.5"),
        (
            ["train", "dqn", "--set", "learning_rat=0.1"],
            "no hyperparameter 'learning_rat'. Did you mean 'learning_rate'?",
        ),
        (["train", "dqn", "--set", "gamma"], "--set takes KEY=VALUE pairs"),
        (["train", "dqn", "--set", "learning_rate=fast"], "DQN hyperparameter learning_rate must be float, got 'fast'"),
        (["train", "ppo", "--set", "num_envs=2.5"], "PPO hyperparameter num_envs must be int, got 2.5 (float)"),
        (["train", "dqn", "--config", "missing.yaml"], "hyperparameter file 'missing.yaml' does not exist"),
        (["train", "dqn", "--steps", "-5"], "total_steps must be a positive int"),
        (["train", "dqn", "--save", "agent.keras"], "a torch agent saves to .pt"),
        (["eval", "missing.pt"], "checkpoint 'missing.pt' does not exist"),
        (["eval", "agent.txt"], "cannot tell the checkpoint format"),
    ],
)
def test_bad_input_gets_one_line_and_a_nonzero_exit(args, message, tmp_path):
    result = rlkit_cli(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rlkit: error: ")
    assert message in lines[0]


@pytest.mark.parametrize("suffix", [".pt", ".keras"])
def test_corrupt_checkpoint_gets_one_clear_line(suffix, tmp_path):
    path = tmp_path / f"agent{suffix}"
    path.write_bytes(b"not a checkpoint")
    result = rlkit_cli("eval", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "is not a readable rlkit" in result.stderr


def test_train_save_eval_report_end_to_end(tmp_path):
    trained = rlkit_cli(
        "train",
        "dqn",
        "--steps",
        "1500",
        "--quiet",
        "--save",
        "agent.pt",
        "--logdir",
        "runs",
        "--set",
        "eval_every=1000",
        "learning_starts=500",
        cwd=tmp_path,
    )
    assert trained.returncode == 0, trained.stderr
    assert "dqn torch on CartPole-v1, seed 0: 1,500 steps" in trained.stdout
    assert (tmp_path / "agent.pt").is_file() and (tmp_path / "runs" / "history.json").is_file()
    assert (tmp_path / "runs" / "agent.pt").is_file()
    assert list((tmp_path / "runs").glob("events.out.tfevents.*"))
    evaluated = rlkit_cli("eval", "agent.pt", "--episodes", "3", cwd=tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "CartPole-v1: mean return" in evaluated.stdout and "over 3 episodes" in evaluated.stdout
    report = rlkit_cli("report")
    assert report.returncode == 0 and "gymnasium" in report.stdout


@pytest.mark.parametrize("algo", ["dqn", "rainbow", "a2c", "ppo", "ddpg", "td3", "sac"])
def test_train_help_lists_every_hyperparameter_with_type_default_and_doc(algo, capsys):
    from dataclasses import fields

    from rlkit.cli import main
    from rlkit.hyperparams import field_docs, field_types, type_name
    from rlkit.registry import config_class

    with pytest.raises(SystemExit) as exit_info:
        main(["train", algo, "--help"])
    assert exit_info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines: compare with spaces collapsed
    docs, types, defaults = field_docs(config_class(algo)), field_types(config_class(algo)), config_class(algo)()
    for field in fields(config_class(algo)):
        flag = "--" + field.name.replace("_", "-")
        assert flag in text, f"rlkit train {algo} --help does not list {flag}"
        default = defaults.to_dict()[field.name]
        assert f"{flag} " in text and f"[{type_name(types[field.name])}, default {default!r}]" in text
        assert docs[field.name], f"{algo}: hyperparameter {field.name} has no #: documentation"
        assert " ".join(docs[field.name].split())[:40] in text


def test_typed_flags_yaml_files_and_the_written_config_agree(tmp_path):
    """Flags override a YAML file, the run writes its resolved settings to config.yaml and TensorBoard, and
    that config.yaml trains the same run again."""
    import yaml

    (tmp_path / "zoo.yaml").write_text(
        "CartPole-v1:\n  n_timesteps: !!float 1e3\n  policy: MlpPolicy\n  batch_size: 32\n  gamma: 0.95\n"
        "Acrobot-v1:\n  gamma: 0.5\n"
    )
    common = ["--quiet", "--learning-starts", "500", "--eval-every", "1000", "--eval-episodes", "2"]
    first = rlkit_cli("train", "dqn", "--config", "zoo.yaml", "--gamma", "0.9", "--no-double", "--logdir", "a",
                      *common, cwd=tmp_path)  # fmt: skip
    assert first.returncode == 0, first.stderr
    written = yaml.safe_load((tmp_path / "a" / "config.yaml").read_text())
    assert written["total_steps"] == 1000 and written["batch_size"] == 32  # from the file
    assert written["gamma"] == 0.9 and written["double"] is False  # flags win over the file
    assert written["algo"] == "dqn" and written["env"] == "CartPole-v1" and written["seed"] == 0

    again = rlkit_cli("train", "dqn", "--config", "a/config.yaml", "--quiet", "--logdir", "b", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert yaml.safe_load((tmp_path / "b" / "config.yaml").read_text()) == written
    wrong = rlkit_cli("train", "ppo", "--config", "a/config.yaml", cwd=tmp_path)
    assert wrong.returncode == 2 and "was written for algo 'dqn', not 'ppo'" in wrong.stderr

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "a"))
    events.Reload()
    (note,) = events.Tensors("config")
    assert b"| gamma | `0.9` |" in note.tensor_proto.string_val[0]


def test_options_before_the_algorithm_a_tf_config_and_flags_named_twice(tmp_path, capsys):
    from rlkit.cli import main, train_target

    assert train_target(["train", "--env", "Acrobot-v1", "--framework", "tf", "dqn", "--gamma", "0.9"]) == (
        "dqn",
        "Acrobot-v1",
    )
    # every option that takes a value, before the algorithm (--workers and --ray-address were once read as it)
    before = ["--workers", "2", "--ray-address", "auto", "--device", "cpu", "--resume", "a.pt", "--seed", "1"]
    assert train_target(["train", *before, "ppo", "--env", "Pendulum-v1"]) == ("ppo", "Pendulum-v1")
    with pytest.raises(SystemExit):
        main(["train", "--env", "Acrobot-v1", "dqn", "--help"])
    assert "--gamma FLOAT" in capsys.readouterr().out
    assert main(["train", "dqn", "--gamma", "0.9", "--set", "gamma=0.8"]) == 2
    assert "gamma is set twice, to 0.9 by its flag and 0.8 by --set" in capsys.readouterr().err
    (tmp_path / "config.yaml").write_text(
        "algo: dqn\nenv: Acrobot-v1\nframework: tf\nseed: 2\ntotal_steps: 300\nlearning_starts: 200\n"
        "eval_every: 300\neval_episodes: 1\nhidden_sizes: [8]\n"
    )
    trained = rlkit_cli("train", "dqn", "--config", "config.yaml", "--quiet", cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr
    assert "dqn tf on Acrobot-v1, seed 2: 300 steps" in trained.stdout  # the file's run settings, not defaults


def test_set_reads_booleans_and_none_as_python_and_yaml_write_them():
    from rlkit.cli import parse_settings

    assert parse_settings(["double=false", "anneal_lr=True", "target_kl=null", "max_grad_norm=None"]) == {
        "double": False, "anneal_lr": True, "target_kl": None, "max_grad_norm": None,
    }  # fmt: skip
    assert parse_settings(["exploration=ou", "learning_rate=3e-4"]) == {"exploration": "ou", "learning_rate": 3e-4}
