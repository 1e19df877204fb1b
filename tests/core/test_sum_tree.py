"""The sum tree and prioritized replay: sums stay exact, sampling follows the priorities, weights undo it."""

from __future__ import annotations

import numpy as np
import pytest

from rlkit.buffers import PrioritizedReplayBuffer
from rlkit.errors import RlkitError
from rlkit.sum_tree import SumTree


def assert_consistent(tree: SumTree) -> None:
    inner = np.arange(1, tree.leaves)
    np.testing.assert_array_equal(tree.tree[inner], tree.tree[2 * inner] + tree.tree[2 * inner + 1])


@pytest.mark.parametrize("capacity", [1, 2, 7, 100, 1_000])
def test_updates_keep_every_sum_exact(capacity, rng):
    tree = SumTree(capacity)
    expected = np.zeros(capacity)
    for _ in range(30):
        indices = rng.integers(0, capacity, size=rng.integers(1, 50))  # with repeats
        priorities = rng.exponential(size=len(indices))
        tree.update(indices, priorities)
        for index, priority in zip(indices, priorities, strict=True):
            expected[index] = priority  # the last write of a repeated index wins
        assert_consistent(tree)
        np.testing.assert_array_equal(tree.priorities(), expected)
        assert tree.total == pytest.approx(expected.sum(), rel=1e-12)


def test_sampling_frequencies_match_priorities(rng):
    priorities = np.array([0.0, 1.0, 2.0, 0.0, 4.0, 0.5, 0.5, 8.0, 0.0, 3.0])
    tree = SumTree(len(priorities))
    tree.update(np.arange(len(priorities)), priorities)
    draws = tree.sample(250, rng, num_batches=800).reshape(-1)
    counts = np.bincount(draws, minlength=len(priorities))
    expected = len(draws) * priorities / priorities.sum()
    assert counts[priorities == 0].sum() == 0  # a zero priority is never drawn
    sigma = np.sqrt(expected * (1 - priorities / priorities.sum()))
    assert np.all(np.abs(counts - expected) <= 4 * sigma + 1e-9), (counts, expected)


def test_points_on_boundaries_and_at_the_end_never_reach_empty_slots():
    tree = SumTree(8)
    tree.update(np.array([1, 2, 5]), np.array([1.0, 2.0, 3.0]))
    slots = tree.find(np.array([0.0, 0.999999, 1.0, 2.999, 3.0, np.nextafter(6.0, 0.0)]))
    np.testing.assert_array_equal(slots, [1, 1, 2, 2, 5, 5])
    # a point at the total itself (what rounding can produce) would walk into empty slots 6-7: guarded
    np.testing.assert_array_equal(tree.find(np.array([6.0, 7.5])), [5, 5])


def test_bad_input_is_refused(rng):
    tree = SumTree(4)
    with pytest.raises(RlkitError, match="all 0"):
        tree.sample(3, rng)
    with pytest.raises(RlkitError, match=r"\[0, 4\)"):
        tree.update(np.array([4]), np.array([1.0]))
    with pytest.raises(RlkitError, match="NaN loss"):
        tree.update(np.array([0]), np.array([np.nan]))
    with pytest.raises(RlkitError, match=">= 0"):
        tree.update(np.array([0]), np.array([-1.0]))
    with pytest.raises(RlkitError, match="positive int"):
        SumTree(0)


def filled_buffer(rng, size: int = 64, **kwargs) -> PrioritizedReplayBuffer:
    buffer = PrioritizedReplayBuffer(size, (3,), seed=0, **kwargs)
    buffer.add(
        rng.normal(size=(size, 3)).astype(np.float32),
        rng.integers(0, 2, size),
        rng.normal(size=size),
        rng.normal(size=(size, 3)).astype(np.float32),
        np.zeros(size),
    )
    return buffer


def test_new_transitions_get_the_largest_priority_seen(rng):
    buffer = filled_buffer(rng, alpha=1.0)
    buffer.update_priorities(np.array([3, 4]), np.array([5.0, 0.1]))
    buffer.add(np.zeros((1, 3)), np.array([0]), np.array([0.0]), np.zeros((1, 3)), np.array([0.0]))
    assert buffer.tree.priorities([0])[0] == pytest.approx(5.0 + buffer.eps)  # slot 0: the ring wrapped


def test_priorities_steer_sampling_and_weights_undo_it(rng):
    buffer = filled_buffer(rng, alpha=1.0)
    td_errors = np.zeros(64)
    td_errors[7] = 10.0
    buffer.update_priorities(np.arange(64), td_errors)
    batch = buffer.sample_many(20, 32, beta=1.0)
    assert batch["obs"].shape == (20, 32, 3) and batch["indices"].shape == batch["weights"].shape == (20, 32)
    assert np.mean(batch["indices"] == 7) > 0.9
    np.testing.assert_array_equal(batch["obs"], buffer.obs[batch["indices"]])
    probabilities = buffer.tree.priorities(batch["indices"]) / buffer.tree.total
    expected = 1.0 / (64 * probabilities)
    np.testing.assert_allclose(batch["weights"], expected / expected.max(axis=1, keepdims=True), rtol=1e-6)
    assert np.all(buffer.sample(16, beta=0.0)["weights"] == 1.0)  # beta = 0: no correction


def test_alpha_zero_is_uniform_replay(rng):
    buffer = filled_buffer(rng, alpha=0.0)
    buffer.update_priorities(np.arange(64), rng.exponential(size=64) * 100)
    counts = np.bincount(buffer.sample_many(400, 64)["indices"].reshape(-1), minlength=64)
    assert counts.min() > 0.8 * counts.mean() and counts.max() < 1.2 * counts.mean()
