"""Benchmark: sampling cost of uniform and prioritized replay, per batch, at a given buffer size.

Both buffers hold ``--size`` CartPole-sized transitions; prioritized replay has random priorities. A burst of
128 batches of 128 is drawn at once, as the DQN loop does, and then (prioritized) its priorities updated.

    python -m benchmarks.costs.replay                 # 100k transitions
    python -m benchmarks.costs.replay --size 1000000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer


def filled(buffer_class, size: int, rng: np.random.Generator):
    buffer = buffer_class(size, (4,), seed=0, with_discounts=True)
    obs = rng.normal(size=(size, 4)).astype(np.float32)
    buffer.add(obs, rng.integers(0, 2, size), rng.normal(size=size), obs, np.zeros(size), np.full(size, 0.99))
    return buffer


def per_batch_us(work, batches: int, repeats: int = 50) -> float:
    work()  # warm-up: first-touch page faults and caches are not what a training loop pays
    start = time.perf_counter()
    for _ in range(repeats):
        work()
    return 1e6 * (time.perf_counter() - start) / repeats / batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--batches", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    uniform, prioritized = filled(ReplayBuffer, args.size, rng), filled(PrioritizedReplayBuffer, args.size, rng)
    prioritized.update_priorities(np.arange(args.size), rng.exponential(size=args.size))
    k, b = args.batches, args.batch_size
    uniform_us = per_batch_us(lambda: uniform.sample_many(k, b), k)
    per_us = per_batch_us(lambda: prioritized.sample_many(k, b, beta=0.4), k)
    burst = prioritized.sample_many(k, b)
    update_us = per_batch_us(lambda: prioritized.update_priorities(burst["indices"], rng.exponential(size=(k, b))), k)
    print(f"buffer of {args.size:,}, bursts of {k} batches of {b}, microseconds per batch:")
    print(f"  uniform sample      {uniform_us:7.1f}")
    print(f"  prioritized sample  {per_us:7.1f}  ({per_us / uniform_us:.1f}x uniform)")
    print(f"  priority update     {update_us:7.1f}")


if __name__ == "__main__":
    main()
