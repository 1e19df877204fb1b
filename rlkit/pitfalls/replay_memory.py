"""Claim C35: how much memory does a replay buffer's layout cost?

Two layouts of the same transitions: rlkit's preallocated numpy ring buffer (one array per field, written
in place), and the common tutorial one, a ``collections.deque`` holding a tuple of small torch tensors per
transition. The deque's cost is measured as the growth of the process's resident memory (psutil), because
torch allocates tensor storage outside Python's allocator where ``tracemalloc`` cannot see it.
"""

from __future__ import annotations

import collections
import gc

import numpy as np

from rlkit.buffers import ReplayBuffer


def _resident_bytes() -> int:
    import psutil

    gc.collect()
    return psutil.Process().memory_info().rss


def deque_of_tensors_bytes(transitions: int = 50_000, obs_dim: int = 4, seed: int = 0) -> float:
    """Bytes per transition of a deque of ``(obs, action, reward, next_obs, done)`` torch tensors."""
    import torch

    rng = np.random.default_rng(seed)
    before = _resident_bytes()
    buffer = collections.deque(maxlen=transitions)
    for _ in range(transitions):
        obs, next_obs = rng.normal(size=(2, obs_dim))
        buffer.append(
            (
                torch.tensor(obs, dtype=torch.float32),
                torch.tensor(int(rng.integers(2))),
                torch.tensor(1.0),
                torch.tensor(next_obs, dtype=torch.float32),
                torch.tensor(0.0),
            )
        )
    grown = _resident_bytes() - before
    del buffer
    return grown / transitions


def ring_buffer_bytes(obs_shape: tuple[int, ...] = (4,), obs_dtype: type = np.float32) -> float:
    """Bytes per transition of rlkit's :class:`~rlkit.buffers.ReplayBuffer` (exact: its arrays' sizes)."""
    return ReplayBuffer(1_000, obs_shape, obs_dtype=obs_dtype).nbytes / 1_000
