"""Where a run writes is checked before its first step: a wrong suffix, a folder that cannot be created or
written, a resumed run with nowhere to go end in an rlkit error naming the path, not after the training."""

from __future__ import annotations

import os
import stat

import pytest

import rlkit
from rlkit.callbacks import Callback
from rlkit.cli import main
from rlkit.errors import RlkitError

SMALL = {"progress": False, "eval_episodes": 1, "learning_starts": 100, "train_every": 50, "gradient_steps": 5}


class Started(Callback):
    """Records whether the run got as far as its first step."""

    def __init__(self) -> None:
        self.started = False

    def on_start(self, run) -> None:
        self.started = True


@pytest.fixture
def read_only(tmp_path):
    """A folder nobody may write to; skipped where the protection cannot be tested (root ignores the bits)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        (folder / "probe").write_text("x")
    except OSError:
        yield folder
    else:
        pytest.skip("this user can write into a read-only folder (root): the permission check cannot be tested")
    finally:
        folder.chmod(stat.S_IRWXU)


@pytest.mark.parametrize("output", ["save", "logdir"])
def test_a_read_only_folder_is_refused_before_training(output, read_only):
    started = Started()
    target = {"save": read_only / "agent.pt", "logdir": read_only / "run"}[output]
    with pytest.raises(RlkitError, match=f"the {output} folder '{read_only}.*' cannot be created or written"):
        rlkit.train("dqn", total_steps=300, callbacks=[started], **{output: target}, **SMALL)
    assert not started.started


@pytest.mark.parametrize("output", ["save", "logdir"])
def test_a_folder_that_is_a_file_is_refused_before_training(output, tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "taken").write_text("a file, not a folder")
    started = Started()
    target = {"save": tmp_path / "taken" / "agent.pt", "logdir": tmp_path / "taken"}[output]
    with pytest.raises(RlkitError, match=f"the {output} folder '.*taken' cannot be created or written"):
        rlkit.train("dqn", total_steps=300, callbacks=[started], **{output: target}, **SMALL)
    assert not started.started


def test_a_resumed_run_checks_its_save_suffix_before_the_resumed_steps(tmp_path):
    pytest.importorskip("torch")
    path = rlkit.train("dqn", total_steps=300, seed=1, **SMALL).agent.save(tmp_path / "a.pt", resumable=True)
    started = Started()
    with pytest.raises(RlkitError, match=r"a torch agent saves to \.pt, not '.*x\.keras'"):
        rlkit.train("dqn", resume=path, total_steps=400, save=tmp_path / "x.keras", callbacks=[started])
    assert not started.started


def test_the_command_line_refuses_a_resume_that_writes_nowhere(tmp_path, capsys):
    pytest.importorskip("torch")
    path = rlkit.train("dqn", total_steps=300, seed=1, **SMALL).agent.save(tmp_path / "a.pt", resumable=True)
    before = os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path))
    assert main(["train", "dqn", "--resume", str(path), "--steps", "400", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert f"--resume {path} would train and then write the new steps nowhere" in error
    assert f"--logdir {tmp_path}" in error
    assert (os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path))) == before
