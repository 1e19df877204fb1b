"""What the non-finite checks cost per burst, against the burst itself (rlkit/numerics.py).

    python -m benchmarks.costs.numerics

Times, in microseconds, the three checks of a DQN burst on CartPole (256 new transitions, the burst's
metrics, the refreshed weights) and one burst of 128 gradient steps, in both frameworks.
"""

from __future__ import annotations

import time

import numpy as np

from rlkit.algos.dqn import DQNAgent, DQNConfig
from rlkit.buffers import ReplayBuffer
from rlkit.numerics import check_finite_metrics, check_finite_weights, check_new_transitions


def microseconds(fn, repeats: int = 200) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e6 * float(np.median(times))


def main() -> None:
    rng = np.random.default_rng(0)
    buffer = ReplayBuffer(50_000, (4,), seed=0, with_discounts=True)
    for _ in range(20):
        n = 256
        obs = rng.normal(size=(n, 4)).astype(np.float32)
        buffer.add(obs, rng.integers(0, 2, n), np.ones(n, np.float32), obs, np.zeros(n, np.float32), np.full(n, 0.99))
    metrics = {"loss": 0.5, "q_mean": 3.0}
    print(f"{'framework':<9} {'transitions us':>15} {'metrics us':>11} {'weights us':>11} {'burst ms':>9} {'share':>7}")
    for framework in ("torch", "tf"):
        agent, envs = DQNAgent.make("CartPole-v1", framework, DQNConfig(), seed=0)
        envs.close()
        batches = buffer.sample_many(128, 128)
        noise = rng.standard_normal((2, 128, 0), dtype=np.float32)
        agent.learner.update_many({**batches, "noise": noise})  # trace / warm up
        burst = microseconds(lambda: agent.learner.update_many({**batches, "noise": noise}), repeats=5) / 1e3  # noqa: B023
        transitions = microseconds(lambda: check_new_transitions(buffer, 256, 0, 256))
        metric = microseconds(lambda: check_finite_metrics(metrics, 256))
        weights = microseconds(lambda: check_finite_weights(agent, 256))  # noqa: B023
        share = (transitions + metric + weights) / (1e3 * burst)
        print(f"{framework:<9} {transitions:>15.1f} {metric:>11.1f} {weights:>11.1f} {burst:>9.1f} {share:>7.2%}")


if __name__ == "__main__":
    main()
