from __future__ import annotations

import numpy as np
import pytest

from rlkit.algos.dqn.config import dqn_contract
from rlkit.buffers import ReplayBuffer
from rlkit.errors import RlkitError


def _add(buffer: ReplayBuffer, start: int, n: int) -> None:
    ids = np.arange(start, start + n, dtype=np.float32)
    buffer.add(
        np.repeat(ids[:, None], 4, 1),
        ids.astype(np.int64) % 2,
        ids,
        np.repeat(ids[:, None], 4, 1) + 1,
        np.zeros(n),
    )


def test_ring_buffer_wraps_and_keeps_the_newest():
    buffer = ReplayBuffer(10, (4,), seed=0)
    _add(buffer, 0, 7)
    _add(buffer, 7, 7)  # 14 transitions into 10 slots: 0-3 overwritten
    assert len(buffer) == 10 and buffer.position == 4
    assert sorted(buffer.rewards.tolist()) == list(range(4, 14))


def test_sampled_fields_stay_aligned_and_satisfy_the_contract():
    buffer = ReplayBuffer(100, (4,), seed=0)
    _add(buffer, 0, 50)
    batch = buffer.sample(32)
    dqn_contract(4, 2).check(batch)
    np.testing.assert_array_equal(batch["obs"][:, 0], batch["rewards"])
    np.testing.assert_array_equal(batch["next_obs"][:, 0], batch["rewards"] + 1)
    assert batch["rewards"].max() < 50


def test_sampling_is_uniform_over_stored_transitions():
    buffer = ReplayBuffer(1000, (4,), seed=1)
    _add(buffer, 0, 10)
    counts = np.bincount(buffer.sample(20_000)["rewards"].astype(int), minlength=10)
    assert counts.min() > 1_800 and counts.max() < 2_200


def test_same_seed_same_samples():
    a, b = ReplayBuffer(100, (4,), seed=3), ReplayBuffer(100, (4,), seed=3)
    _add(a, 0, 50)
    _add(b, 0, 50)
    np.testing.assert_array_equal(a.sample(16)["rewards"], b.sample(16)["rewards"])


def test_empty_buffer_and_bad_capacity_fail_clearly():
    with pytest.raises(RlkitError, match="empty"):
        ReplayBuffer(10, (4,)).sample(1)
    with pytest.raises(RlkitError, match="capacity"):
        ReplayBuffer(0, (4,))


def test_memory_is_preallocated_float32():
    buffer = ReplayBuffer(1000, (4,))
    assert buffer.nbytes == 1000 * (4 * 4 * 2 + 8 + 4 + 4)
