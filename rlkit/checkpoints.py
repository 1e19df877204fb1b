"""Checkpoint files: the weights in each framework's own format, plus rlkit's metadata to rebuild the agent.

The layout, in one place (version :data:`LAYOUT`, recorded in every checkpoint's metadata as ``layout``):

* torch: a ``.pt`` dict ``{"rlkit": json, "state_dict": ...}`` of plain tensors and strings, so it loads
  with ``torch.load(weights_only=True)`` (the default since torch 2.6, claim C37). No pickled classes.
* Keras: a ``.keras`` archive (``model.save``) with an extra ``rlkit.json`` member, or a ``.weights.h5``
  file (``model.save_weights``) with the metadata in an HDF5 attribute. Keras ignores both additions.
* The metadata (JSON) names the layout, the rlkit version, the algorithm, framework, environment,
  observation size, the whole config and what the algorithm adds (action space, observation statistics),
  so :func:`rlkit.load` can rebuild the right agent from the file alone.
* A resumable save adds ``<name>.state.npz`` beside the weights (:mod:`rlkit.state`: optimizers, targets,
  counters, environments, generators, the replay buffer), tied to them by a shared ``state_id``
  (:func:`training_state_path`); a run's logdir keeps ``agent.pt`` / ``agent.keras`` with its state, and
  ``SaveCheckpoints`` writes ``step_<N>`` and ``best`` files of the same layout.

Every failure to read one becomes a :class:`CheckpointError` with the path and the reason; a checkpoint of a
newer layout than this rlkit reads is refused by name (:func:`check_layout`), one of an older layout is read
as that layout was written (``tests/fixtures/checkpoints`` holds files of layout 0, loaded by a test). The
training state is resumed from layout :data:`OLDEST_RESUMABLE_LAYOUT` on; an older one is refused by name
(:func:`check_state_layout`) while its weights still load.

Layouts: 0 and 1 differ only by the ``layout`` key. 2 changed the replay loop's training state: its
exploration (:mod:`rlkit.exploration`) and DQN's burst health are saved as parts of their own
(``exploration``: its class and ``state_dict()``; ``health``), no longer in the agent's entry.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

from rlkit.errors import CheckpointError

#: The checkpoint layout this rlkit writes. Layout 0 (no ``layout`` key; rlkit before December 2026) is
#: layout 1 without that key, and reads the same way; layout 2 changed the replay loop's training state.
LAYOUT = 2

#: The oldest layout whose training state (``<name>.state.npz``) this rlkit resumes.
OLDEST_RESUMABLE_LAYOUT = 2

TORCH_SUFFIXES = (".pt", ".pth")
KERAS_SUFFIXES = (".keras", ".weights.h5")


def checkpoint_framework(path: str | Path) -> str:
    """``"torch"`` or ``"tf"`` from the file name; raises for other suffixes."""
    name = str(path)
    if name.endswith(TORCH_SUFFIXES):
        return "torch"
    if name.endswith(KERAS_SUFFIXES):
        return "tf"
    raise CheckpointError(
        f"cannot tell the checkpoint format of '{name}': torch agents save to .pt, TensorFlow agents "
        "to .keras or .weights.h5"
    )


def write_torch_checkpoint(path: str | Path, meta: dict, state_dict: dict) -> None:
    import torch

    _check_suffix(path, "torch")
    torch.save({"rlkit": json.dumps(meta), "state_dict": state_dict}, str(path))


def read_torch_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """``(meta, state_dict)`` of a ``.pt`` checkpoint, loaded with ``weights_only=True``."""
    import torch

    _check_exists(path)
    try:
        payload = torch.load(str(path), map_location="cpu", weights_only=True)
        return json.loads(payload["rlkit"]), payload["state_dict"]
    except Exception as exc:  # a corrupt file can fail in pickle, zipfile or json
        raise CheckpointError(f"'{path}' is not a readable rlkit torch checkpoint: {exc}") from None


def write_keras_checkpoint(path: str | Path, meta: dict, model) -> None:
    _check_suffix(path, "tf")
    name = str(path)
    if name.endswith(".keras"):
        model.save(name)
        with zipfile.ZipFile(name, "a") as archive:
            archive.writestr("rlkit.json", json.dumps(meta))
    else:
        import h5py

        model.save_weights(name)
        with h5py.File(name, "a") as file:
            file.attrs["rlkit"] = json.dumps(meta)


def read_meta(path: str | Path) -> dict:
    """The metadata rlkit wrote into a checkpoint of any supported format."""
    framework = checkpoint_framework(path)
    _check_exists(path)
    if framework == "torch":
        return read_torch_checkpoint(path)[0]
    try:
        if str(path).endswith(".keras"):
            with zipfile.ZipFile(path) as archive:
                return json.loads(archive.read("rlkit.json"))
        import h5py

        with h5py.File(path, "r") as file:
            return json.loads(file.attrs["rlkit"])
    except Exception as exc:
        raise CheckpointError(f"'{path}' is not a readable rlkit Keras checkpoint: {exc}") from None


def check_layout(meta: dict, path: str | Path) -> None:
    """Refuse a checkpoint whose layout this rlkit cannot read, naming its layout and the writer's version."""
    layout = meta.get("layout", 0)
    if not isinstance(layout, int) or layout < 0:
        raise CheckpointError(f"'{path}' names an unknown checkpoint layout {layout!r}")
    if layout > LAYOUT:
        raise CheckpointError(
            f"'{path}' has checkpoint layout {layout} (written by rlkit {meta.get('rlkit_version', '?')}); this "
            f"rlkit reads layouts 0-{LAYOUT}: upgrade rlkit to load it"
        )


def check_state_layout(meta: dict, path: str | Path) -> None:
    """Refuse to resume the training state of a checkpoint of a layout older than
    :data:`OLDEST_RESUMABLE_LAYOUT`, naming its layout and writer (its weights load all the same)."""
    layout = meta.get("layout", 0)
    if layout < OLDEST_RESUMABLE_LAYOUT:
        raise CheckpointError(
            f"'{path}' has checkpoint layout {layout} (written by rlkit {meta.get('rlkit_version', '?')}), and this "
            f"rlkit resumes training states of layout {OLDEST_RESUMABLE_LAYOUT} on (it writes layout {LAYOUT}): "
            "finish the run with the rlkit that wrote it, or go on from its weights in a new run "
            "(rlkit.load(path).learn(steps), which starts with an empty replay buffer)"
        )


def _check_exists(path: str | Path) -> None:
    if not Path(path).is_file():
        raise CheckpointError(f"checkpoint '{path}' does not exist")


def _check_suffix(path: str | Path, framework: str) -> None:
    if checkpoint_framework(path) != framework:
        wanted = ".pt" if framework == "torch" else ".keras or .weights.h5"
        raise CheckpointError(f"a {framework} agent saves to {wanted}, not '{path}'")


# --- the files of one save: where a checkpoint's training state lives, and the previous one while replaced


def run_path(agent, logdir: str | Path) -> Path:
    """Where a run keeps its agent in its logdir: ``agent.pt`` (torch) or ``agent.keras`` (TensorFlow)."""
    return Path(logdir) / ("agent.pt" if agent.framework == "torch" else "agent.keras")


def training_state_path(path: str | Path) -> Path:
    """Where the training state of the checkpoint ``path`` lives: ``<path>.state.npz``."""
    path = Path(path)
    return path.with_name(path.name + ".state.npz")


def previous_state_path(path: str | Path) -> Path:
    """Where the state of the previous save of ``path`` stays while a new one replaces it: a hidden
    ``.<path>.previous.state.npz`` (see :meth:`rlkit.algos.agent_base.Agent.save`)."""
    path = Path(path)
    return path.with_name(f".{path.name}.previous.state.npz")


def keep_previous_state(state_path: Path, previous: Path) -> bool:
    """Hard-link the current state to ``previous`` before a new one replaces it (a copy where the file system has
    no hard links), replacing a leftover of an earlier save there; False where there is no state to keep."""
    import shutil

    previous.unlink(missing_ok=True)
    try:
        os.link(state_path, previous)
    except FileNotFoundError:
        return False
    except OSError:
        shutil.copy2(state_path, previous)
    return True


def put_back_state(previous: Path, state_path: Path) -> None:
    """Move the kept state back to ``state_path``. Where the new state never replaced it, the two names are one
    file, and a rename between two names of one file does nothing (POSIX): the hidden name is removed instead."""
    if state_path.exists() and os.path.samefile(previous, state_path):
        previous.unlink()
    else:
        os.replace(previous, state_path)
