"""What naming environment faults costs per environment step (rlkit/env_checks.py), against a DQN and a PPO step.

    python -m benchmarks.costs.env_checks

Steps CartPole in 8 environments through ``EnvRunner`` with the checks on and off, in alternating rounds (so
a machine busy with something else slows both alike), and takes the median time per vector step of each; the
difference per environment step is set against the whole time per environment step of a short DQN and PPO run
(torch, their defaults). Target (issue 28): below 2%.
"""

from __future__ import annotations

import time

import numpy as np

import rlkit
from rlkit.envs import EnvRunner, make_vec_env

NUM_ENVS, STEPS, ROUNDS = 8, 500, 20


def per_step(runner: EnvRunner, actions: np.ndarray) -> float:
    """Seconds per vector step over ``actions``."""
    start = time.perf_counter()
    for action in actions:
        runner.step(action)
    return (time.perf_counter() - start) / len(actions)


def main() -> None:
    actions = np.random.default_rng(0).integers(0, 2, (STEPS, NUM_ENVS))
    runners = {
        check: EnvRunner(make_vec_env("CartPole-v1", NUM_ENVS, seed=0), seed=0, check=check) for check in (True, False)
    }
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(ROUNDS):
        for check in (True, False):
            times[check].append(per_step(runners[check], actions))
    on, off = (float(np.median(times[check])) * 1e6 / NUM_ENVS for check in (True, False))
    cost = on - off
    print(f"CartPole x{NUM_ENVS}, per environment step: {off:.2f} us unchecked, {on:.2f} us checked, +{cost:.3f} us")
    for algo, steps in (("dqn", 3_000), ("ppo", 3_072)):
        result = rlkit.train(algo, total_steps=steps, progress=False)
        total = result.wall_time / result.steps * 1e6
        print(f"{algo}: {total:.1f} us per environment step in all; the checks {cost / total:.2%} of it")


if __name__ == "__main__":
    main()
