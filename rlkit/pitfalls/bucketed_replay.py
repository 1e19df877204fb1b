"""Claim C11's second half: a cheap "bucketed" prioritization instead of a sum tree.

The scheme of the source notes: sort transitions into buckets by their last |TD error| (edges 0.1, 0.5, 1
and 2: five buckets), and draw a fixed fraction of every batch (30%) uniformly from the highest non-empty
bucket, the rest uniformly from the whole buffer. No tree and no importance weights: finding the top bucket
is one vectorised comparison over the stored errors per burst. New transitions enter with the largest error
seen so far, as in prioritized replay, so each lands in the top bucket until it has been replayed.

:func:`using_bucketed_replay` makes DQN's loop use it for one ``with`` block; run DQN with
``prioritized=True`` inside it, so the loop feeds TD errors back to the buffer after every burst.
"""

from __future__ import annotations

import contextlib

import numpy as np

from rlkit.buffers import ReplayBuffer
from rlkit.errors import RlkitError
from rlkit.pitfalls.buffer_swap import swapped_dqn_buffer

EDGES = (0.1, 0.5, 1.0, 2.0)


class BucketedReplayBuffer(ReplayBuffer):
    """Uniform replay plus a fixed share of each batch from the transitions with the largest |TD errors|."""

    def __init__(self, *args, high_fraction: float = 0.3, edges: tuple[float, ...] = EDGES, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not 0 <= high_fraction <= 1:
            raise ValueError(f"high_fraction must be in [0, 1], got {high_fraction!r}")
        self.high_fraction, self.edges = float(high_fraction), np.asarray(edges, dtype=np.float32)
        self.td_errors = np.zeros(self.capacity, dtype=np.float32)
        self.max_td_error = 1.0

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        slots = (self.position + np.arange(len(rewards))) % self.capacity
        super().add(obs, actions, rewards, next_obs, terminated, discounts)
        self.td_errors[slots] = self.max_td_error

    def buckets(self) -> np.ndarray:
        """The bucket (0 = smallest errors) of every stored transition."""
        return np.digitize(self.td_errors[: self.size], self.edges)

    def sample_many(self, num_batches: int, batch_size: int, beta: float = 1.0) -> dict[str, np.ndarray]:
        """(K, B, ...) batches: the first ``high_fraction`` of each from the top non-empty bucket, the rest
        uniform. ``beta`` is accepted for the loop's sake and ignored: this scheme has no importance weights."""
        del beta
        if self.size == 0:
            raise RlkitError("cannot sample from an empty BucketedReplayBuffer: add transitions first")
        buckets = self.buckets()
        top = np.flatnonzero(buckets == buckets.max())
        high = int(round(self.high_fraction * batch_size))
        idx = np.concatenate(
            [
                top[self.rng.integers(0, len(top), size=(num_batches, high))],
                self.rng.integers(0, self.size, size=(num_batches, batch_size - high)),
            ],
            axis=1,
        )
        weights = np.ones(idx.shape, dtype=np.float32)
        return {**self.gather(idx), "weights": weights, "indices": idx}

    def update_priorities(self, indices: np.ndarray, td_errors: np.ndarray) -> None:
        """Store the new |TD errors| of the sampled ``indices``."""
        errors = np.abs(np.asarray(td_errors, dtype=np.float32)).reshape(-1)
        self.max_td_error = max(self.max_td_error, float(errors.max()))
        self.td_errors[np.asarray(indices).reshape(-1)] = errors


def using_bucketed_replay(high_fraction: float = 0.3) -> contextlib.AbstractContextManager:
    """Inside this block, DQN's loop (run with ``prioritized=True``) replays from a :class:`BucketedReplayBuffer`."""
    return swapped_dqn_buffer(
        lambda config, obs_dim, seed: BucketedReplayBuffer(
            config.buffer_size, (obs_dim,), seed=seed, with_discounts=True, high_fraction=high_fraction
        )
    )
