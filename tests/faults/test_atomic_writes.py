"""Files rlkit writes are whole or absent: a write that fails or is killed keeps the previous file, leaves no
temporary file in sight of a loader, and a checkpoint's weights and run state are one unit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import rlkit
from rlkit.api import _matching_state
from rlkit.atomic import KILL_HOOK, atomic_path, write_text
from rlkit.callbacks import SaveCheckpoints
from rlkit.checkpoints import read_meta
from rlkit.errors import CheckpointError, RlkitError
from rlkit.state import load_state

ROOT = str(Path(__file__).resolve().parents[2])  # the subprocess must run this checkout's rlkit
SMALL = {"progress": False, "eval_episodes": 1, "learning_starts": 100, "train_every": 50, "gradient_steps": 5}


def test_a_write_that_raises_midway_keeps_the_previous_file_and_no_temporary(tmp_path):
    path = write_text(tmp_path / "history.json", "old")
    with pytest.raises(RuntimeError, match="disk full"), atomic_path(path) as temporary:
        temporary.write_text("half of the n")
        raise RuntimeError("disk full")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["history.json"]


def test_an_agent_save_that_fails_keeps_the_previous_checkpoint_loadable(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    result = rlkit.train("dqn", total_steps=300, seed=1, **SMALL)
    agent, path = result.agent, tmp_path / "agent.pt"
    agent.save(path, resumable=True)
    before = [w.copy() for w in agent.get_weights()]

    def half_then_fail(target, meta):
        Path(target).write_bytes(b"PK\x03\x04 half a zip")
        raise OSError("No space left on device")

    monkeypatch.setattr(agent.learner, "save", half_then_fail)
    with pytest.raises(OSError, match="No space left"):
        agent.save(path, resumable=True)
    for saved, loaded in zip(before, rlkit.load(path).get_weights(), strict=True):
        np.testing.assert_array_equal(saved, loaded)
    assert sorted(os.listdir(tmp_path)) == ["agent.pt", "agent.pt.state.npz"]


@pytest.mark.parametrize("damage", ["truncated", "foreign"])
def test_a_truncated_or_foreign_run_state_is_a_checkpoint_error_naming_it(damage, tmp_path):
    pytest.importorskip("torch")
    result = rlkit.train("dqn", total_steps=300, seed=1, **SMALL)
    path = result.agent.save(tmp_path / "agent.pt", resumable=True)
    state = tmp_path / "agent.pt.state.npz"
    data = state.read_bytes()
    state.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"not an npz at all")
    with pytest.raises(CheckpointError, match=r"agent\.pt\.state\.npz' is not a readable rlkit training state"):
        rlkit.train("dqn", resume=path, total_steps=400, progress=False)


def test_a_state_from_another_save_is_refused_not_mixed(tmp_path):
    pytest.importorskip("torch")
    result = rlkit.train("dqn", total_steps=300, seed=1, **SMALL)
    first = result.agent.save(tmp_path / "first.pt", resumable=True)
    result.agent.learn(100, progress=False)
    result.agent.save(tmp_path / "second.pt", resumable=True)
    os.replace(tmp_path / "second.pt.state.npz", tmp_path / "first.pt.state.npz")
    with pytest.raises(CheckpointError, match=r"first\.pt\.state\.npz' is the run state of another save"):
        rlkit.train("dqn", resume=first, total_steps=500, progress=False)


def test_save_checkpoints_keeps_the_last_k_with_their_states(tmp_path):
    pytest.importorskip("torch")
    keeper = SaveCheckpoints(tmp_path, every=100, best=False, resumable=True, keep=2)
    rlkit.train("dqn", total_steps=500, seed=1, callbacks=[keeper], **SMALL)
    names = sorted(os.listdir(tmp_path))
    assert len(keeper.saved) == 2 and names == sorted(
        [p.name for p in keeper.saved] + [p.name + ".state.npz" for p in keeper.saved]
    )
    with pytest.raises(RlkitError, match="keep must be a positive int"):
        SaveCheckpoints(tmp_path, keep=0)


CHILD = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    import rlkit
    folder = sys.argv[1]
    settings = dict(progress=False, eval_episodes=1, learning_starts=100, train_every=50, gradient_steps=5)
    agent = rlkit.train("dqn", total_steps=300, seed=1, **settings).agent
    agent.save(os.path.join(folder, "first.pt"), resumable=True)
    agent.save(os.path.join(folder, "agent.pt"), resumable=True)
    np.savez(os.path.join(folder, "weights.npz"), *agent.get_weights())
    agent.learn(100, progress=False)
    os.environ["RLKIT_TEST_KILL_BEFORE_REPLACE"] = sys.argv[2]
    agent.save(os.path.join(folder, sys.argv[2]), resumable=True)
    print("not killed")
    """
)


@pytest.mark.parametrize("target", ["second.pt", "agent.pt"])
def test_a_process_killed_before_the_rename_leaves_the_old_checkpoint_loadable(target, tmp_path):
    """SIGKILL through the test hook, after the new weights are written and the new run state renamed into place,
    before the weights are renamed (between the unit's two renames): a new checkpoint (``second.pt``) is absent,
    an overwritten one (``agent.pt``) is still the old unit, its weights and (kept aside) its run state."""
    pytest.importorskip("torch")
    env = {**os.environ, "PYTHONPATH": ROOT}
    env.pop(KILL_HOOK, None)
    child = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), target], env=env, capture_output=True)
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]
    visible = sorted(name for name in os.listdir(tmp_path) if not name.startswith("."))
    assert "second.pt" not in visible
    with np.load(tmp_path / "weights.npz") as saved:
        old = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    for path in ("first.pt", "agent.pt"):
        for before, loaded in zip(old, rlkit.load(tmp_path / path).get_weights(), strict=True):
            np.testing.assert_array_equal(before, loaded)
    # both resume from step 300, the old unit's (the new state, at step 400, would refuse total_steps=350)
    for path in ("first.pt", "agent.pt"):
        assert rlkit.train("dqn", resume=tmp_path / path, total_steps=350, progress=False).steps == 350
    if target == "agent.pt":  # the new state is beside the old weights: read from the old one kept aside
        assert load_state(tmp_path / "agent.pt.state.npz")["loop"]["step"]["value"] == 400
        assert (
            _matching_state(tmp_path / "agent.pt", tmp_path / "agent.pt.state.npz", read_meta(tmp_path / "agent.pt"))[
                "loop"
            ]["step"]["value"]
            == 300
        )


@pytest.mark.parametrize("at", ["agent.pt", "agent.pt.state.npz"])
def test_an_exception_at_either_rename_puts_the_previous_state_back(at, tmp_path, monkeypatch):
    """Ctrl-C (a KeyboardInterrupt) at the weights' rename (the new run state already in place) or at the
    state's: the old weights keep their own state beside them, under its usual name, and nothing else is left."""
    pytest.importorskip("torch")
    import rlkit.atomic

    agent = rlkit.train("dqn", total_steps=300, seed=1, **SMALL).agent
    path = agent.save(tmp_path / "agent.pt", resumable=True)
    agent.learn(100, progress=False)
    replace = rlkit.atomic._replace

    def interrupted(temporary, destination):
        if destination.name == at:
            raise KeyboardInterrupt
        replace(temporary, destination)

    monkeypatch.setattr(rlkit.atomic, "_replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        agent.save(path, resumable=True)
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == ["agent.pt", "agent.pt.state.npz"]
    assert rlkit.train("dqn", resume=path, total_steps=350, progress=False).steps == 350
