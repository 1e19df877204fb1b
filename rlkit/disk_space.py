"""Free disk for a run's checkpoints, checked before its first step.

A resumable checkpoint holds the replay buffer, so a run that fills its disk fails at a save, hours in, and
(writes being atomic) keeps only its previous checkpoint. The estimate is deliberately simple:

- one checkpoint = the replay buffer's arrays as allocated (a buffer is allocated whole at the start, so this
  is its full size) + the networks' weights four times (weights, target or second copy, Adam's two moments);
- a logdir keeps one agent; a :class:`~rlkit.callbacks.SaveCheckpoints` folder keeps ``keep`` of them (without
  ``keep``: one per ``every`` steps of the run), plus ``best`` (weights only);
- one more checkpoint per file system: an atomic write holds the new file beside the old one until the rename.

Folders on one file system share its free space; what is already there (an older checkpoint that will be
replaced) is not counted as free, which errs on the safe side.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

import numpy as np

from rlkit.errors import RlkitError

#: Copies of the weights in a checkpoint: the weights, a target or second network, Adam's two moments.
WEIGHT_COPIES = 4


def array_bytes(obj) -> int:
    """The bytes of the numpy arrays among ``obj``'s attributes (one level: a sum tree's arrays included)."""
    total = 0
    for value in vars(obj).values() if hasattr(obj, "__dict__") else ():
        if isinstance(value, np.ndarray):
            total += value.nbytes
        elif hasattr(value, "__dict__") and not callable(value):
            total += sum(v.nbytes for v in vars(value).values() if isinstance(v, np.ndarray))
    return total


def checkpoint_bytes(loop) -> tuple[int, int]:
    """An estimate of one resumable checkpoint of ``loop``'s run: (replay buffer bytes, network bytes)."""
    buffer = getattr(loop, "buffer", None)
    weights = sum(w.nbytes for w in loop.agent.learner.get_weights()) * WEIGHT_COPIES
    return (array_bytes(buffer) if buffer is not None else 0), weights


def planned_checkpoints(logdir, callbacks, until: int, start: int) -> dict[Path, tuple[int, int]]:
    """Where the run writes checkpoints: folder -> (resumable checkpoints kept, weights-only files)."""
    from rlkit.callbacks import SaveCheckpoints

    folders: dict[Path, tuple[int, int]] = {}
    if logdir is not None:
        folders[Path(logdir)] = (1, 0)
    for callback in callbacks:
        if isinstance(callback, SaveCheckpoints):
            every = callback.every or (max(1, until // callback.spread) if callback.spread else None)
            saves = 1 if every is None else max(1, math.ceil((until - start) / every))  # 1: an interrupted run
            kept = saves if callback.keep is None else min(saves, callback.keep)
            full, light = folders.get(callback.directory, (0, 0))
            # weights-only saves hold no replay buffer; an interrupted run still writes one resumable checkpoint
            if callback.resumable:
                folders[callback.directory] = (full + kept, light + int(callback.best))
            else:
                folders[callback.directory] = (full + 1, light + kept + int(callback.best))
    return folders


def _device(folder: Path) -> tuple[int, Path]:
    """The file system of ``folder`` (its nearest existing ancestor: a checkpoint folder is made at its first
    save), and that ancestor."""
    folder = folder.absolute()
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return os.stat(folder).st_dev, folder


def check_free_space(loop, logdir, callbacks, until: int) -> None:
    """Refuse the run before its first step when a file system it checkpoints to has less free space than its
    checkpoints need (see the module's docstring); an :class:`RlkitError` naming the folder and the sizes."""
    folders = planned_checkpoints(logdir, callbacks, until, loop.step)
    if not folders:
        return
    buffer, weights = checkpoint_bytes(loop)
    one = buffer + weights
    needs: dict[int, tuple[int, Path, list[Path]]] = {}
    for folder, (full, light) in folders.items():
        device, existing = _device(folder)
        total, _, named = needs.get(device, (one, existing, []))  # one more: the atomic write's new copy
        needs[device] = (total + full * one + light * weights // WEIGHT_COPIES, existing, [*named, folder])
    for need, existing, named in needs.values():
        free = shutil.disk_usage(existing).free
        if free < need:
            where = ", ".join(f"'{folder}'" for folder in named)
            raise RlkitError(
                f"the checkpoints of this run need about {mib(need)} in {where} (each {mib(one)}: replay buffer "
                f"{mib(buffer)}, networks {mib(weights)}) and only {mib(free)} are free there, checked before "
                "training: free some space, write elsewhere, keep fewer checkpoints (SaveCheckpoints(keep=K), "
                "--checkpoint-every 0) or lower buffer_size"
            )


def mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"
