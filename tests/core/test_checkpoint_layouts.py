"""Checkpoints of an earlier layout still load, and act as they did; a newer layout is refused by name.

``tests/fixtures/checkpoints`` holds one small checkpoint per algorithm family and format, written by rlkit's
layout 0 (before the checkpoint metadata carried a ``layout``), with the actions and network outputs the
saved agents gave for 16 fixed observations. A change to what a checkpoint holds (a renamed module, another
weight order) that would strand the files users have fails here, not in their hands.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rlkit
from rlkit.checkpoints import LAYOUT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "checkpoints"
EXPECTED = np.load(FIXTURES / "expected.npz")
NAMES = sorted({key.split("/")[0] for key in EXPECTED.files})


def test_every_family_and_format_has_a_fixture():
    assert {name.split("-")[0] for name in NAMES} == set(rlkit.ALGORITHMS)
    assert {name.split(".", 1)[1] for name in NAMES} == {"pt", "keras", "weights.h5"}


@pytest.mark.parametrize("name", NAMES)
def test_a_layout_0_checkpoint_loads_and_acts_as_it_did(name):
    agent = rlkit.load(FIXTURES / name)
    obs = EXPECTED[f"{name}/obs"]
    actions, output = np.asarray(agent.act(obs)), agent.export_reference(obs)
    if actions.dtype.kind in "iu":
        np.testing.assert_array_equal(actions, EXPECTED[f"{name}/actions"])
    else:  # float32 rounding of another CPU's kernels, far below any weight's change
        np.testing.assert_allclose(actions, EXPECTED[f"{name}/actions"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(output, EXPECTED[f"{name}/output"], rtol=1e-5, atol=1e-6)


def test_a_checkpoint_of_a_newer_layout_is_refused_by_name(tmp_path):
    import torch

    payload = torch.load(FIXTURES / "dqn-torch.pt", weights_only=True)
    meta = json.loads(payload["rlkit"])
    newer = tmp_path / "newer.pt"
    torch.save({**payload, "rlkit": json.dumps({**meta, "layout": LAYOUT + 1, "rlkit_version": "9.0"})}, newer)
    with pytest.raises(rlkit.CheckpointError, match=rf"checkpoint layout {LAYOUT + 1} \(written by rlkit 9.0\)"):
        rlkit.load(newer)


def test_a_new_save_records_its_layout(tmp_path):
    agent = rlkit.load(FIXTURES / "dqn-torch.pt")
    path = agent.save(tmp_path / "again.pt")
    from rlkit.checkpoints import read_meta

    assert read_meta(path)["layout"] == LAYOUT
    np.testing.assert_array_equal(rlkit.load(path).get_weights()[0], agent.get_weights()[0])


def test_the_training_state_of_an_older_layout_is_refused_by_name_and_its_weights_load(tmp_path):
    import torch

    path = tmp_path / "run.pt"
    result = rlkit.train("dqn", total_steps=300, learning_starts=100, train_every=50, progress=False, eval_every=500)
    result.agent.save(path, resumable=True)
    payload = torch.load(path, weights_only=True)
    meta = json.loads(payload["rlkit"])
    torch.save({**payload, "rlkit": json.dumps({**meta, "layout": 1, "rlkit_version": "0.9"})}, path)  # same state_id
    with pytest.raises(rlkit.CheckpointError, match=r"checkpoint layout 1 \(written by rlkit 0.9\), and this rlkit "):
        rlkit.train("dqn", resume=path, total_steps=400, progress=False)
    np.testing.assert_array_equal(rlkit.load(path).get_weights()[0], result.agent.get_weights()[0])
