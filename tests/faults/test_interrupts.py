"""Ctrl-C and SIGTERM keep the work: real processes are signalled mid-run; they save a resumable checkpoint
where the run has an output, say where and how to continue, exit 130 / 143, and the run resumes from it; a
signal during the final save waits for its files."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import rlkit
from rlkit.atomic import KILL_HOOK, PAUSE_HOOK
from rlkit.callbacks import Callback
from rlkit.errors import TrainingInterrupted
from rlkit.interrupts import InterruptGuard

ROOT = str(Path(__file__).resolve().parents[2])  # the subprocess must run this checkout's rlkit
SETTINGS = ["--quiet", "--set", "learning_starts=100", "train_every=50", "gradient_steps=5", "eval_episodes=1"]


def signalled(command: list[str], cwd: Path, started: Path, number: int) -> subprocess.CompletedProcess:
    """Run ``command``, send it ``number`` once ``started`` exists (the run is training) and wait for it."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while not started.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # some steps past the start
    child.send_signal(number)
    stdout, stderr = child.communicate(timeout=180)
    return subprocess.CompletedProcess(command, child.returncode, stdout, stderr)


def interrupted_step(stderr: str) -> int:
    return int(re.search(r"at step ([\d,]+)", stderr).group(1).replace(",", ""))


@pytest.mark.parametrize(
    ("number", "status", "output"), [(signal.SIGINT, 130, "--logdir"), (signal.SIGTERM, 143, "--save")]
)
def test_the_command_line_saves_prints_the_resume_command_and_exits_with_the_signal_status(
    number, status, output, tmp_path
):
    pytest.importorskip("torch")
    target = "run" if output == "--logdir" else "run/last.pt"
    command = [sys.executable, "-m", "rlkit", "train", "dqn", "--steps", "200000", output, target, *SETTINGS]
    if output == "--save":
        command += ["--logdir", "logs"]  # where the run's start shows (config.yaml)
    done = signalled(command, tmp_path, tmp_path / ("run" if output == "--logdir" else "logs") / "config.yaml", number)
    assert done.returncode == status, done.stderr[-3000:]
    checkpoint = "run/agent.pt" if output == "--logdir" else "logs/agent.pt"
    assert f"the run is saved, resumable, in {checkpoint}" in done.stderr
    assert f"resume with: rlkit train dqn --resume {checkpoint} --logdir " in done.stderr
    step = interrupted_step(done.stderr)
    resumed = rlkit.train("dqn", resume=tmp_path / checkpoint, total_steps=step + 200, progress=False)
    assert resumed.steps == step + 200


def test_a_run_without_an_output_says_nothing_was_saved_and_how(tmp_path):
    pytest.importorskip("torch")
    command = [sys.executable, "-c", CHILD, "none", str(tmp_path)]
    done = signalled(command, tmp_path, tmp_path / "started", signal.SIGINT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "checkpoint None" in done.stdout
    assert "nothing was saved: the run had no output. Pass logdir= or save=" in done.stdout


CHILD = textwrap.dedent(
    """
    import signal, sys
    from pathlib import Path
    import rlkit
    from rlkit.callbacks import Callback, SaveCheckpoints
    from rlkit.errors import TrainingInterrupted
    from rlkit.result import TrainResult

    class Started(Callback):
        def on_start(self, run):
            Path(sys.argv[2], "started").touch()

    original = signal.getsignal(signal.SIGINT)  # SIG_IGN where the test runner started with SIGINT ignored
    callbacks = [Started()]
    options = {}
    if sys.argv[1] == "checkpoints":
        callbacks.append(SaveCheckpoints(Path(sys.argv[2], "ckpt"), every=None, best=False))
    elif sys.argv[1] == "save":
        options["save"] = str(Path(sys.argv[2], "agent.pt"))
    settings = dict(learning_starts=100, train_every=50, gradient_steps=5, eval_episodes=1)
    try:
        rlkit.train("dqn", total_steps=200_000, progress=False, callbacks=callbacks, **options, **settings)
    except TrainingInterrupted as exc:
        assert isinstance(exc, KeyboardInterrupt) and isinstance(exc.result, TrainResult)
        assert signal.getsignal(signal.SIGINT) is original, "handlers not restored"
        print("checkpoint", exc.checkpoint, "steps", exc.result.steps)
        print(exc)
    """
)


@pytest.mark.parametrize("output", ["save", "checkpoints"])
def test_rlkit_train_raises_training_interrupted_with_a_checkpoint_that_resumes(output, tmp_path):
    pytest.importorskip("torch")
    command = [sys.executable, "-c", CHILD, output, str(tmp_path)]
    done = signalled(command, tmp_path, tmp_path / "started", signal.SIGINT)
    assert done.returncode == 0, done.stderr[-3000:]
    checkpoint = re.search(r"checkpoint (\S+) steps (\d+)", done.stdout)
    path, step = Path(checkpoint.group(1)), int(checkpoint.group(2))
    assert path == (tmp_path / "agent.pt" if output == "save" else tmp_path / "ckpt" / f"step_{step}.pt")
    assert f"Continue it with rlkit.train('dqn', resume='{path}')" in done.stdout
    resumed = rlkit.train("dqn", resume=path, total_steps=step + 200, progress=False)
    assert resumed.steps == step + 200


def test_a_second_signal_aborts_at_once_and_the_handlers_come_back():
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt, match="second SIGINT") as raised, InterruptGuard() as guard:
        os.kill(os.getpid(), signal.SIGTERM)
        assert guard.signal == signal.SIGTERM  # noted, not raised: the step goes on
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    assert not isinstance(raised.value, TrainingInterrupted)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_outside_the_main_thread_no_handler_is_installed():
    seen, main_threads = [], signal.getsignal(signal.SIGINT)

    def guarded():
        with InterruptGuard():
            seen.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=guarded)
    thread.start()
    thread.join()
    assert seen == [main_threads]


class SignalAt(Callback):
    """Sends this process ``number`` once the run reaches ``step``: a signal at a known step, in-process."""

    def __init__(self, step: int, number: int) -> None:
        self.step, self.number, self.sent = step, number, False

    def on_step(self, run) -> None:
        if run.step >= self.step and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.number)


def test_agent_learn_finishes_the_step_saves_in_its_logdir_and_resumes(tmp_path):
    pytest.importorskip("torch")
    settings = {"learning_starts": 100, "train_every": 50, "gradient_steps": 5, "eval_episodes": 1}
    agent = rlkit.train("dqn", total_steps=300, seed=1, progress=False, **settings).agent
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(TrainingInterrupted, match="interrupted by SIGTERM at step 450") as raised:
        agent.learn(100_000, progress=False, logdir=tmp_path / "more", callbacks=[SignalAt(450, signal.SIGTERM)])
    assert raised.value.checkpoint == tmp_path / "more" / "agent.pt" and raised.value.result.steps == 450
    assert signal.getsignal(signal.SIGTERM) is before
    resumed = rlkit.train("dqn", resume=raised.value.checkpoint, total_steps=500, progress=False)
    assert resumed.steps == 500


def test_a_signal_during_the_final_save_waits_for_the_files_and_the_run_resumes_from_them(tmp_path):
    """SIGINT while the logdir's agent is being written at the run's end (the test hook of rlkit.atomic pauses
    the process between the run state's rename and the weights', and says so on stderr): the save is finished
    first, the command exits 130 saying the run is complete, and the logdir's agent resumes from its last step."""
    pytest.importorskip("torch")
    command = [sys.executable, "-m", "rlkit", "train", "dqn", "--steps", "600", "--logdir", "run", *SETTINGS]
    env = {**os.environ, "PYTHONPATH": ROOT, PAUSE_HOOK: "agent.pt", "RLKIT_TEST_PAUSE_SECONDS": "3"}
    env.pop(KILL_HOOK, None)
    child = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    seen = []
    for line in child.stderr:  # ends with the process when it never pauses
        seen.append(line)
        if "paused before replacing agent.pt" in line:
            child.send_signal(signal.SIGINT)
            break
    stderr = "".join(seen) + child.stderr.read()
    assert child.wait(timeout=180) == 130, stderr[-3000:]
    assert (tmp_path / "run" / "agent.pt").is_file(), f"the final save was lost: {stderr[-3000:]}"
    resumed = rlkit.train("dqn", resume=tmp_path / "run" / "agent.pt", total_steps=700, progress=False)
    assert resumed.steps == 700 and resumed.history.last("eval_return") is not None
    assert "rlkit: SIGINT arrived during the final save, after the run's last step (600); it is complete" in stderr
    assert "the run is saved, resumable, in run/agent.pt" in stderr
