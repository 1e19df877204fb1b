"""Chapter 13's experiment machinery: the permutation test, the cost and memory measurements, and the bias
that the batch-max normaliser of prioritized replay leaves at beta = 1 (the experiments run in the notebook)."""

import sys

import numpy as np
import pytest

from course.pitfalls import bucketed_replay, replay_memory
from rlkit.buffers import PrioritizedReplayBuffer


def test_permutation_p_value_is_exact_on_small_samples():
    p = bucketed_replay.permutation_p_value
    assert p([1, 2, 3, 4], [5, 6, 7, 8]) == pytest.approx(2 / 70)  # complete separation: the smallest value
    assert p([1, 2, 3, 5], [4, 6, 7, 8]) == pytest.approx(4 / 70)  # one swap is already above 0.05
    assert p([3, 3, 3, 3], [3, 3, 3, 3]) == 1.0
    assert p([20_000, 25_000, 15_000, 10_000], [7_500, 12_500, 12_500, 12_500]) == pytest.approx(14 / 70)
    assert p([1, 2], [3, 4, 5]) == p([3, 4, 5], [1, 2])  # symmetric, and unequal sizes work
    with pytest.raises(ValueError, match="at least one"):
        p([], [1.0])


def test_permutation_p_value_enumerates_ten_seeds_against_ten():
    p = bucketed_replay.permutation_p_value
    assert p(list(range(10)), list(range(10, 20))) == pytest.approx(2 / 184_756)  # complete separation
    with pytest.raises(ValueError, match="splits"):
        p(list(range(15)), list(range(15)))  # 155 million splits: refused, not left to run for minutes


def test_steps_to_solve_rejects_an_unknown_replay():
    with pytest.raises(ValueError, match="uniform"):
        bucketed_replay.steps_to_solve("rank-based", seed=0)


def test_replay_burst_ms_times_every_scheme():
    ms = bucketed_replay.replay_burst_ms(size=2_000, batches=4, batch_size=8, repeats=2)
    assert set(ms) == set(bucketed_replay.REPLAYS) and all(value > 0 for value in ms.values())


def test_gradient_burst_ms_runs_dqn_steps():
    pytest.importorskip("torch")
    assert bucketed_replay.gradient_burst_ms("torch", batches=2, repeats=1) > 0


def test_ring_buffer_fields_are_the_buffers_own_arrays():
    fields = replay_memory.ring_buffer_fields((4,))
    assert fields == {"obs": 16, "next_obs": 16, "actions": 8, "rewards": 4, "terminated": 4}
    assert sum(fields.values()) == replay_memory.ring_buffer_bytes((4,)) == 48
    with_discounts = replay_memory.ring_buffer_fields((4,), with_discounts=True)
    assert with_discounts["discounts"] == 4 and replay_memory.ring_buffer_bytes((4,), with_discounts=True) == 52
    assert replay_memory.ring_buffer_fields((84, 84, 4), np.uint8)["obs"] == 84 * 84 * 4


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="lazy page commit measured on Linux")
def test_preallocation_commits_memory_only_when_written():
    committed = replay_memory.committed_bytes(capacity=500)
    assert committed["nbytes"] == 500 * (2 * 84 * 84 * 4 + 8 + 4 + 4)
    assert committed["resident_when_built"] < 0.05 * committed["nbytes"]
    assert committed["resident_when_full"] > 0.9 * committed["nbytes"]


def test_deque_of_tensors_costs_far_more_than_the_ring_buffer():
    pytest.importorskip("torch")
    assert replay_memory.deque_of_tensors_bytes(transitions=5_000) > 10 * replay_memory.ring_buffer_bytes((4,))


def shares_by_tenth(weights: np.ndarray, indices: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Each tenth of the buffer's (by probability) share of the expected update, relative to uniform replay's."""
    tenth = np.argsort(np.argsort(probabilities)) * 10 // len(probabilities)
    share = np.bincount(tenth[indices], weights=weights, minlength=10)
    return share / share.mean()


def test_batch_max_normaliser_leaves_a_bias_at_beta_one_and_the_buffer_max_does_not():
    """What chapter 13 states about rlkit's PrioritizedReplayBuffer: dividing by each batch's largest weight
    under-weights the least likely transitions even at beta = 1; the whole buffer's largest would not."""
    n, zeros = 1_000, np.zeros(1_000, np.float32)
    buffer = PrioritizedReplayBuffer(n, (1,), seed=0, alpha=0.6)
    buffer.add(zeros[:, None], zeros.astype(np.int64), zeros, zeros[:, None], zeros)
    buffer.update_priorities(np.arange(n), np.random.default_rng(2).lognormal(0.0, 1.5, n))
    drawn = buffer.sample_many(5_000, 128, beta=1.0)
    indices = drawn["indices"].ravel()
    probabilities = buffer.tree.priorities() / buffer.tree.total
    raw = 1.0 / (n * probabilities)
    np.testing.assert_allclose(drawn["weights"].max(axis=1), 1.0)  # the batch's largest weight is exactly 1
    batch_max = shares_by_tenth(drawn["weights"].ravel(), indices, probabilities)
    buffer_max = shares_by_tenth(raw[indices] / raw.max(), indices, probabilities)
    assert batch_max[0] < 0.9, batch_max
    assert np.abs(buffer_max - 1).max() < 0.04, buffer_max
