"""A run whose checkpoints would not fit on the disk is refused before its first step, naming the folder and
the sizes; the estimate follows the replay buffer, the networks and how many checkpoints are kept."""

from __future__ import annotations

import shutil
from collections import namedtuple

import pytest

import rlkit
from rlkit import disk_space
from rlkit.callbacks import Callback, SaveCheckpoints
from rlkit.errors import RlkitError

SMALL = {"learning_starts": 100, "train_every": 50, "gradient_steps": 5, "eval_episodes": 1}
Usage = namedtuple("Usage", "total used free")


class Steps(Callback):
    """Records whether the run took a step."""

    def __init__(self) -> None:
        self.stepped = False

    def on_step(self, run) -> None:
        self.stepped = True


def free_space(monkeypatch, free: int) -> None:
    monkeypatch.setattr(disk_space.shutil, "disk_usage", lambda path: Usage(10 * free, 9 * free, free))


def test_a_run_whose_checkpoints_do_not_fit_is_refused_before_its_first_step(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    # a 50,000-transition CartPole buffer is 3.5 MiB (2.5 of transitions, 1 of prioritized replay's sum tree),
    # needed twice (the agent in the logdir, and its new copy beside it while it is written)
    free_space(monkeypatch, 4 * 2**20)
    steps = Steps()
    with pytest.raises(RlkitError, match=r"need about .* MiB in '.*run'.*replay buffer 3\.5 MiB.* only 4\.0 MiB"):
        rlkit.train("dqn", total_steps=200, logdir=tmp_path / "run", progress=False, callbacks=[steps], **SMALL)
    assert not steps.stepped
    steps = Steps()  # the same run fits with a buffer a tenth the size
    rlkit.train("dqn", total_steps=200, logdir=tmp_path / "small", progress=False, callbacks=[steps],
                buffer_size=5_000, **SMALL)  # fmt: skip
    assert steps.stepped


def test_the_estimate_counts_the_checkpoints_kept(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    seen = []
    monkeypatch.setattr(disk_space.shutil, "disk_usage", lambda path: seen.append(path) or shutil.disk_usage(path))
    result = rlkit.train("dqn", total_steps=200, progress=False, buffer_size=1_000, **SMALL)
    assert not seen  # a run without an output writes no checkpoint
    buffer, weights = disk_space.checkpoint_bytes(result.agent.loop)
    # observations and next observations (float32), the other fields, and prioritized replay's sum tree (two
    # float64 per leaf, 1,024 leaves)
    assert 1_000 * 4 * 2 * 4 < buffer < 1_000 * 4 * 2 * 4 * 2 + 2 * 1_024 * 8
    assert weights == 4 * sum(w.nbytes for w in result.agent.get_weights())
    every = SaveCheckpoints(tmp_path / "c", every=10, best=False)
    kept = SaveCheckpoints(tmp_path / "k", every=10, best=True, keep=3, resumable=True)
    planned = disk_space.planned_checkpoints(tmp_path / "run", [every, kept], until=200, start=100)
    # weights-only saves (every's) count as light files, beside the one resumable save an interruption writes
    assert planned == {tmp_path / "run": (1, 0), tmp_path / "c": (1, 10), tmp_path / "k": (3, 1)}
