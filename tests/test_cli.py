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
