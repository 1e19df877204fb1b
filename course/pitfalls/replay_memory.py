"""Claim C35: how much memory does a replay buffer's layout cost?

Two layouts of the same transitions: rlkit's preallocated numpy ring buffer (one array per field, written
in place), and the common tutorial one, a ``collections.deque`` holding a tuple of small torch tensors per
transition. The deque's cost is measured as the growth of a fresh process's resident memory (psutil), because
torch allocates tensor storage outside Python's allocator where ``tracemalloc`` cannot see it.
:func:`committed_bytes` measures the same way what preallocating actually takes from the machine.
"""

from __future__ import annotations

import collections
import gc
import json
import subprocess
import sys

import numpy as np

from rlkit.buffers import ReplayBuffer


def _resident_bytes() -> int:
    import psutil

    gc.collect()
    return psutil.Process().memory_info().rss


def _deque_growth(transitions: int, obs_dim: int, seed: int) -> float:
    """Resident-memory growth per transition while a deque of ``transitions`` tuples of tensors is built."""
    import torch

    rng = np.random.default_rng(seed)

    def make() -> tuple:
        return (
            torch.tensor(rng.normal(size=obs_dim), dtype=torch.float32),
            torch.tensor(int(rng.integers(2))),
            torch.tensor(1.0),
            torch.tensor(rng.normal(size=obs_dim), dtype=torch.float32),
            torch.tensor(0.0),
        )

    warm_up = [make() for _ in range(1_000)]  # torch's one-time allocations are not the buffer's
    del warm_up
    before = _resident_bytes()
    buffer = collections.deque(maxlen=transitions)
    for _ in range(transitions):
        buffer.append(make())
    grown = _resident_bytes() - before
    del buffer
    return grown / transitions


def _in_fresh_process(function: str, *args: object) -> object:
    """``function(*args)`` of this module, run in a new Python process; its result comes back as JSON.

    Resident memory is a fair measure only in a process that has not yet allocated and freed much: in a
    notebook after a few training runs, the allocator hands freed memory back to the new arrays and the
    resident size grows by less than they hold (in one process, a second deque measured a tenth of the first).
    """
    call = f"{function}({', '.join(repr(arg) for arg in args)})"
    code = f"import json; from course.pitfalls.replay_memory import {function}; print(json.dumps({call}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the measurement {call} failed in its process:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def deque_of_tensors_bytes(transitions: int = 50_000, obs_dim: int = 4, seed: int = 0) -> float:
    """Bytes per transition of a deque of ``(obs, action, reward, next_obs, done)`` torch tensors, measured
    in a fresh Python process (see :func:`_in_fresh_process`)."""
    return float(_in_fresh_process("_deque_growth", transitions, obs_dim, seed))


def ring_buffer_bytes(
    obs_shape: tuple[int, ...] = (4,), obs_dtype: type = np.float32, with_discounts: bool = False
) -> float:
    """Bytes per transition of rlkit's :class:`~rlkit.buffers.ReplayBuffer` (exact: its arrays' sizes)."""
    return ReplayBuffer(1_000, obs_shape, obs_dtype=obs_dtype, with_discounts=with_discounts).nbytes / 1_000


def ring_buffer_fields(
    obs_shape: tuple[int, ...] = (4,), obs_dtype: type = np.float32, with_discounts: bool = False
) -> dict[str, int]:
    """Bytes per transition of each array of a :class:`~rlkit.buffers.ReplayBuffer`, read off the arrays
    (their dtypes and shapes), so the breakdown is the buffer's own and sums to :func:`ring_buffer_bytes`.

    ``with_discounts`` adds the per-transition bootstrap discount that DQN's buffer stores for n-step returns.
    """
    buffer = ReplayBuffer(1, obs_shape, obs_dtype=obs_dtype, with_discounts=with_discounts)
    fields = {
        "obs": buffer.obs,
        "next_obs": buffer.next_obs,
        "actions": buffer.actions,
        "rewards": buffer.rewards,
        "terminated": buffer.terminated,
        "discounts": buffer.discounts,
    }
    return {name: array.nbytes for name, array in fields.items() if array is not None}


def committed_bytes(capacity: int = 2_000, obs_shape: tuple[int, ...] = (84, 84, 4), dtype: str = "uint8") -> dict:
    """What preallocation does and does not reserve: a buffer's ``nbytes``, and the growth of the resident
    memory of a fresh process (see :func:`_in_fresh_process`) once the buffer is built and once every slot has
    been written.

    ``np.zeros`` asks the operating system for zeroed pages, which Linux (and macOS) hand out only when they
    are first written: building the buffer takes address space, not memory, and an oversized buffer fails
    (or swaps) as it fills, not at start-up.
    """
    return _in_fresh_process("_commit_growth", capacity, list(obs_shape), dtype)


def _commit_growth(capacity: int, obs_shape: list[int], dtype: str) -> dict[str, int]:
    before = _resident_bytes()
    buffer = ReplayBuffer(capacity, tuple(obs_shape), obs_dtype=np.dtype(dtype))
    built = _resident_bytes()
    for start in range(0, capacity, 500):  # fill it as training would, a chunk at a time
        n = min(500, capacity - start)
        frames = np.ones((n, *obs_shape), dtype=dtype)
        zeros = np.zeros(n, np.float32)
        buffer.add(frames, np.zeros(n, np.int64), zeros, frames, zeros)
    filled = _resident_bytes()
    return {"nbytes": buffer.nbytes, "resident_when_built": built - before, "resident_when_full": filled - before}
