"""One live run per logdir: a second run there is refused before training naming the first one's pid (a real
second process), a stale lock is taken over, and a logdir holding a finished run is refused unless the run
resumes it or overwrites it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import rlkit
from rlkit.errors import RlkitError
from rlkit.run_lock import LOCK

ROOT = str(Path(__file__).resolve().parents[1])  # the subprocess must run this checkout's rlkit
SMALL = {"learning_starts": 100, "train_every": 50, "gradient_steps": 5, "eval_episodes": 1, "eval_every": 500}

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import rlkit
    from rlkit.callbacks import Callback

    class Hold(Callback):
        def on_start(self, run):
            Path(sys.argv[2]).write_text("started")
            time.sleep(600)  # holds the logdir until the test, done with its second run, kills this process
            return True

    rlkit.train("dqn", total_steps=200, logdir=sys.argv[1], progress=False, callbacks=[Hold()])
    """
)


def test_a_second_run_on_a_live_runs_logdir_is_refused_naming_its_pid(tmp_path):
    pytest.importorskip("torch")
    env = {**os.environ, "PYTHONPATH": ROOT}
    started = tmp_path / "started"
    command = [sys.executable, "-c", HOLDER, str(tmp_path / "run"), str(started)]
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert started.exists(), first.communicate()[1][-3000:]
        with pytest.raises(RlkitError, match=rf"in use by a live run \(pid {first.pid} on "):
            rlkit.train("dqn", total_steps=200, logdir=tmp_path / "run", progress=False, overwrite=True)
        second = [sys.executable, "-m", "rlkit", "train", "dqn", "--steps", "200", "--logdir", "run", "--quiet"]
        done = subprocess.run(second, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and f"in use by a live run (pid {first.pid} on " in done.stderr, done.stderr
        assert json.loads((tmp_path / "run" / LOCK).read_text())["pid"] == first.pid  # still the first one's
    finally:
        first.kill()
        first.communicate()


def test_a_stale_lock_is_taken_over_and_released_at_the_end(tmp_path):
    pytest.importorskip("torch")
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid that no process has now
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / LOCK).write_text(json.dumps({"pid": gone.pid, "host": socket.gethostname(), "started": 0}))
    result = rlkit.train("dqn", total_steps=200, logdir=tmp_path / "run", progress=False, **SMALL)
    assert result.steps == 200
    assert not (tmp_path / "run" / LOCK).exists()


def test_a_logdir_holding_a_run_is_refused_unless_resumed_or_overwritten(tmp_path):
    pytest.importorskip("torch")
    logdir = tmp_path / "run"
    rlkit.train("dqn", total_steps=200, logdir=logdir, progress=False, seed=1, **SMALL)
    with pytest.raises(RlkitError, match=r"already holds a run .* pass overwrite=True \(--overwrite\)"):
        rlkit.train("dqn", total_steps=200, logdir=logdir, progress=False, seed=2, **SMALL)
    resumed = rlkit.train("dqn", resume=logdir / "agent.pt", total_steps=400, logdir=logdir, progress=False)
    assert resumed.steps == 400
    (logdir / "checkpoints").mkdir()
    (logdir / "checkpoints" / "step_300.pt").write_text("the old run's")
    rlkit.train("dqn", total_steps=200, logdir=logdir, progress=False, seed=2, overwrite=True, **SMALL)
    assert "seed: 2" in (logdir / "config.yaml").read_text()
    assert len(list(logdir.glob("events.out.tfevents.*"))) == 1  # the old run's series are gone
    assert not (logdir / "checkpoints").exists()


def test_a_resumed_run_into_another_runs_logdir_is_refused(tmp_path):
    pytest.importorskip("torch")
    rlkit.train("dqn", total_steps=200, logdir=tmp_path / "a", progress=False, **SMALL)
    rlkit.train("dqn", total_steps=200, logdir=tmp_path / "b", progress=False, **SMALL)
    with pytest.raises(RlkitError, match=r"the logdir '.*b' already holds a run"):
        rlkit.train("dqn", resume=tmp_path / "a" / "agent.pt", total_steps=400, logdir=tmp_path / "b", progress=False)
