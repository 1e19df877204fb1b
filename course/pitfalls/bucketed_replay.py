"""Claim C11: does prioritized replay learn faster than uniform, and does a cheap "bucketed" version do as well?

The bucketed scheme of the source notes: sort transitions into buckets by their last |TD error| (edges 0.1,
0.5, 1 and 2: five buckets), and draw a fixed fraction of every batch (30%) uniformly from the highest
non-empty bucket, the rest uniformly from the whole buffer. No tree and no importance weights: finding the top
bucket is one vectorised comparison over the stored errors per burst. New transitions enter with the largest
error seen so far, as in prioritized replay, so each lands in the top bucket until it has been replayed.

``rlkit.train("dqn", buffer_class=BucketedReplayBuffer)`` makes DQN's unchanged loop replay from it: the
loop treats any buffer with ``update_priorities`` as prioritized and feeds it the TD errors of every burst.
:func:`steps_to_solve` runs the chapter's experiment for one replay scheme and seed,
:func:`permutation_p_value` says whether a handful of seeds can tell two schemes apart, and
:func:`replay_burst_ms` / :func:`gradient_burst_ms` measure the cost half of the claim.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.errors import RlkitError

EDGES = (0.1, 0.5, 1.0, 2.0)
#: The most splits :func:`permutation_p_value` enumerates (10 against 10 values: 184,756; 12 and 12: 2.7 million).
MAX_SPLITS = 5_000_000


class BucketedReplayBuffer(ReplayBuffer):
    """Uniform replay plus a fixed share of each batch from the transitions with the largest |TD errors|."""

    #: A resumed run needs the TD errors too: the buckets are drawn from them.
    STATE = (*ReplayBuffer.STATE, "td_errors", "max_td_error")

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


REPLAYS = ("uniform", "prioritized", "bucketed")


def steps_to_solve(replay: str, seed: int, total_steps: int = 40_000, framework: str = "tf") -> int | None:
    """The environment step at which plain DQN (``PLAIN_DQN``) first reached 475 on CartPole-v1 (its greedy
    evaluation every 2,500 steps), replaying from ``replay`` ("uniform", "prioritized" or "bucketed");
    None if it did not within ``total_steps``. Only the buffer changes between the three: the loop, the
    network and every other hyperparameter are plain DQN's defaults."""
    import rlkit
    from rlkit.algos.dqn import PLAIN_DQN

    if replay not in REPLAYS:
        raise ValueError(f"replay must be one of {REPLAYS}, got {replay!r}")
    result = rlkit.train(
        "dqn",
        env="CartPole-v1",
        framework=framework,
        seed=seed,
        total_steps=total_steps,
        stop_when_solved=True,
        progress=False,
        **{**PLAIN_DQN, "prioritized": replay == "prioritized"},
        buffer_class=BucketedReplayBuffer if replay == "bucketed" else None,  # fed TD errors after each burst
    )
    return result.solved_at_step


def permutation_p_value(a: list[float], b: list[float]) -> float:
    """Two-sided exact permutation test of the difference between the means of two small samples.

    Pool the values and split them in every possible way into groups of ``len(a)`` and ``len(b)`` (70 ways
    for 4 and 4); the p-value is the fraction of splits whose difference of means is at least as large, in
    absolute value, as the observed one. No distribution is assumed, and ties (steps to solve come in
    multiples of the evaluation period) are handled exactly. With 4 seeds against 4 the smallest possible
    value is 2/70 = 0.029, reached only when every run of one group beats every run of the other.
    """
    pooled = np.asarray([*a, *b], dtype=np.float64)
    if len(a) == 0 or len(b) == 0:
        raise ValueError("both samples need at least one value")
    if math.comb(len(pooled), len(a)) > MAX_SPLITS:
        raise ValueError(
            f"{len(a)} against {len(b)} values have {math.comb(len(pooled), len(a)):,} splits, more than "
            f"{MAX_SPLITS:,} to enumerate exactly"
        )
    observed = abs(np.mean(a) - np.mean(b))
    # every split at once, as rows of the first group's indices (184,756 rows for 10 against 10)
    groups = np.fromiter(itertools.combinations(range(len(pooled)), len(a)), dtype=np.dtype((np.intp, len(a))))
    first = pooled[groups].sum(axis=1)
    differences = np.abs(first / len(a) - (pooled.sum() - first) / len(b))
    return float(np.mean(differences >= observed - 1e-9 * max(1.0, observed)))


def replay_burst_ms(size: int = 100_000, batches: int = 128, batch_size: int = 128, repeats: int = 20) -> dict:
    """Milliseconds per burst of each replay scheme: ``batches`` batches of ``batch_size`` sampled from
    ``size`` CartPole-sized transitions and, for the two prioritized schemes, given new priorities, as
    DQN's loop does after every burst."""
    rng = np.random.default_rng(3)
    stored = rng.normal(size=(size, 4)).astype(np.float32)
    buffers = {
        "uniform": ReplayBuffer(size, (4,), seed=0),
        "prioritized": PrioritizedReplayBuffer(size, (4,), seed=0),
        "bucketed": BucketedReplayBuffer(size, (4,), seed=0),
    }
    milliseconds = {}
    for name, buffer in buffers.items():
        zeros = np.zeros(size, np.float32)
        buffer.add(stored, np.zeros(size, np.int64), zeros + 1, stored, zeros)
        start = time.perf_counter()
        for _ in range(repeats):
            if name == "uniform":
                buffer.sample_many(batches, batch_size)
            else:
                indices = buffer.sample_many(batches, batch_size, 0.5)["indices"]
                buffer.update_priorities(indices, rng.lognormal(0.0, 1.5, indices.shape))
        milliseconds[name] = (time.perf_counter() - start) / repeats * 1000
    return milliseconds


def gradient_burst_ms(framework: str = "tf", batches: int = 128, repeats: int = 3) -> float:
    """Milliseconds per burst of ``batches`` DQN gradient steps (DQN's defaults, CartPole's shapes): the
    work each replay burst feeds, to put the cost of sampling in proportion."""
    from rlkit.algos.dqn import DQNConfig
    from rlkit.algos.dqn.agent import learner_class

    config = DQNConfig()
    rng = np.random.default_rng(4)
    shape = (batches, config.batch_size)
    burst = {
        "obs": rng.normal(size=(*shape, 4)).astype(np.float32),
        "actions": rng.integers(0, 2, size=shape),
        "rewards": np.ones(shape, np.float32),
        "next_obs": rng.normal(size=(*shape, 4)).astype(np.float32),
        "terminated": np.zeros(shape, np.float32),
        "weights": rng.uniform(0.3, 1.0, size=shape).astype(np.float32),
    }
    learner = learner_class(framework)(4, 2, config, seed=0)
    learner.update_many(burst)  # warm-up (TensorFlow traces the burst here)
    start = time.perf_counter()
    for _ in range(repeats):
        learner.update_many(burst)
    return (time.perf_counter() - start) / repeats * 1000
