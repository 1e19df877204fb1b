"""One live run per logdir: a second run there is refused before training naming the first one's pid (a real
second process), a stale lock is taken over by exactly one of two processes racing for it, a lock from another
host is refused whatever its pid, and a logdir holding a finished run is refused unless the run resumes it or
overwrites it."""

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
from rlkit.atomic import KILL_HOOK, PAUSE_HOOK
from rlkit.errors import RlkitError
from rlkit.run_lock import LOCK

ROOT = str(Path(__file__).resolve().parents[2])  # the subprocess must run this checkout's rlkit
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


RACER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from rlkit.atomic import write_text
    from rlkit.errors import RlkitError
    from rlkit.run_lock import locked

    folder, rounds = Path(sys.argv[1]), int(sys.argv[2])

    def wait_for(path):
        deadline = time.monotonic() + 60
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.005)

    for i in range(rounds):
        (folder / f"ready_{i}_{os.getpid()}").touch()
        wait_for(folder / f"go_{i}")
        try:
            with locked(folder / f"run_{i}"):
                write_text(folder / f"result_{i}_{os.getpid()}", "won")  # whole when it appears
                wait_for(folder / f"done_{i}")  # held until both have answered
        except RlkitError as exc:
            write_text(folder / f"result_{i}_{os.getpid()}", f"refused: {exc}")
    """
)


def test_two_processes_that_find_one_stale_lock_never_both_take_it_over(tmp_path):
    """Two real processes race for a stale lock, round after round; the test hook pauses each of them between
    judging the lock stale and taking it over, so that both have judged it before either acts (the race at its
    worst). Exactly one takes it over each time; the other is refused, naming the winner's pid."""
    rounds = 6
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for i in range(rounds):
        (tmp_path / f"run_{i}").mkdir()
        stale = {"pid": gone.pid, "host": socket.gethostname(), "started": i}
        (tmp_path / f"run_{i}" / LOCK).write_text(json.dumps(stale))
    env = {**os.environ, "PYTHONPATH": ROOT, KILL_HOOK: "", PAUSE_HOOK: LOCK, "RLKIT_TEST_PAUSE_SECONDS": "0.5"}
    command = [sys.executable, "-c", RACER, str(tmp_path), str(rounds)]
    racers = [subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    pids = {racer.pid for racer in racers}
    try:
        for i in range(rounds):
            wait_for_files(tmp_path, f"ready_{i}_*", 2, racers)
            (tmp_path / f"go_{i}").touch()
            results = wait_for_files(tmp_path, f"result_{i}_*", 2, racers)
            (tmp_path / f"done_{i}").touch()
            winners = [pid for pid, text in results.items() if text == "won"]
            assert len(winners) == 1, f"round {i}: {results}"
            (loser,) = pids - set(winners)
            assert f"in use by a live run (pid {winners[0]} on " in results[loser], results[loser]
    finally:
        for racer in racers:
            racer.kill() if racer.poll() is None else None
            racer.communicate()
    assert not list(tmp_path.glob(f"run_*/.{LOCK}*")), "a claim or temporary file was left behind"


def wait_for_files(folder: Path, pattern: str, count: int, racers) -> dict[int, str]:
    """The ``count`` files matching ``pattern`` (named ``..._<pid>``) by pid, with their text, once all exist."""
    deadline = time.monotonic() + 120
    while len(found := list(folder.glob(pattern))) < count:
        failed = [racer for racer in racers if racer.poll() not in (None, 0)]
        assert not failed and time.monotonic() < deadline, failed and failed[0].communicate()[1][-3000:]
        time.sleep(0.01)
    return {int(path.name.rsplit("_", 1)[1]): path.read_text() for path in found}


@pytest.mark.parametrize("pid", ["live here", "dead here"])
def test_a_lock_from_another_host_is_refused_whatever_its_pid_unless_overwritten(pid, tmp_path):
    """The pid of another host's lock means nothing here: it is never judged stale by it."""
    pytest.importorskip("torch")
    number = os.getppid() if pid == "live here" else 2**22 + 12345  # beyond Linux's pid_max default: no process
    (tmp_path / "run").mkdir()
    lock = {"pid": number, "host": "node7.cluster.example", "started": 0}
    (tmp_path / "run" / LOCK).write_text(json.dumps(lock))
    with pytest.raises(
        RlkitError,
        match=rf"in use by a run on another host \(node7.cluster.example, pid {number}, since .*\), which cannot be "
        r"checked from here: .*if you know that run is over, pass overwrite=True \(--overwrite\) to replace it",
    ):
        rlkit.train("dqn", total_steps=200, logdir=tmp_path / "run", progress=False, **SMALL)
    assert json.loads((tmp_path / "run" / LOCK).read_text()) == lock  # left as it was
    result = rlkit.train("dqn", total_steps=200, logdir=tmp_path / "run", progress=False, overwrite=True, **SMALL)
    assert result.steps == 200 and not (tmp_path / "run" / LOCK).exists()
