"""``rlkit train --logdir`` checkpoints on its own (a handful over the run, the last few kept, resumable), and
``--resume`` continues in the run's logdir: its history and TensorBoard series go on. Through the real command
line, in a subprocess, with a tiny budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlkit.cli import main

ROOT = str(Path(__file__).resolve().parents[2])  # the subprocess must run this checkout's rlkit
SETTINGS = ["--quiet", "--set", "learning_starts=100", "train_every=50", "gradient_steps=5", "eval_episodes=1"]
SETTINGS += ["eval_every=500"]


def rlkit_train(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "rlkit", "train", "dqn", *args]
    env = {**os.environ, "PYTHONPATH": ROOT}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def steps_of(folder: Path) -> list[int]:
    return sorted(int(path.name[len("step_") : -len(".pt")]) for path in folder.glob("step_*.pt"))


def test_a_logdir_run_writes_a_handful_of_resumable_checkpoints_and_keeps_the_last_three(tmp_path):
    pytest.importorskip("torch")
    rlkit_train("--steps", "1000", "--logdir", "run", *SETTINGS, cwd=tmp_path)
    folder = tmp_path / "run" / "checkpoints"
    steps = steps_of(folder)
    assert len(steps) == 3 and steps[-1] >= 800, steps  # every 1000 // 5 = 200 steps: 4 written, 3 kept
    assert all(200 <= b - a < 300 for a, b in zip(steps, steps[1:], strict=False)), steps
    assert all((folder / f"step_{step}.pt.state.npz").is_file() for step in steps)


def test_checkpoint_every_sets_the_interval_and_zero_turns_them_off(tmp_path):
    pytest.importorskip("torch")
    rlkit_train("--steps", "600", "--logdir", "every", "--checkpoint-every", "250", *SETTINGS, cwd=tmp_path)
    assert [step // 250 for step in steps_of(tmp_path / "every" / "checkpoints")] == [1, 2]
    rlkit_train("--steps", "600", "--logdir", "none", "--checkpoint-every", "0", *SETTINGS, cwd=tmp_path)
    assert not (tmp_path / "none" / "checkpoints").exists()


def test_resume_continues_in_the_runs_own_logdir_history_and_tensorboard_series(tmp_path):
    pytest.importorskip("torch")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rlkit_train("--steps", "1000", "--logdir", "run", *SETTINGS, cwd=tmp_path)
    last = steps_of(tmp_path / "run" / "checkpoints")[-1]  # as after a kill: no agent.pt from this run's end
    done = rlkit_train("--resume", f"run/checkpoints/step_{last}.pt", "--steps", "1600", "--quiet", cwd=tmp_path)
    assert "1,600 steps" in done.stdout
    history = json.loads((tmp_path / "run" / "history.json").read_text())
    evaluations = [step for step, _ in history["eval_return"]]
    assert evaluations == [500, 1000, 1500, 1600]  # the checkpoint's (500) and the resumed run's
    assert "total_steps: 1600" in (tmp_path / "run" / "config.yaml").read_text()
    steps = steps_of(tmp_path / "run" / "checkpoints")  # its own go on (every 1600 // 5), the first run's count
    assert len(steps) == 3 and steps[-1] >= 1280, steps
    events = EventAccumulator(str(tmp_path / "run"))
    events.Reload()
    assert {event.step for event in events.Scalars("eval_return")} == {500, 1000, 1500, 1600}


def test_checkpoint_every_is_refused_when_negative_or_without_a_logdir(capsys):
    assert main(["train", "dqn", "--steps", "100", "--checkpoint-every", "-5"]) == 2
    assert "--checkpoint-every takes a number of steps >= 0 (0: no checkpoints), got -5" in capsys.readouterr().err
    assert main(["train", "dqn", "--steps", "100", "--checkpoint-every", "50"]) == 2
    assert "--checkpoint-every 50 writes into LOGDIR/checkpoints: pass --logdir DIR" in capsys.readouterr().err
