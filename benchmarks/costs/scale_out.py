"""Benchmark: PPO's environment steps per second in one process and on 1, 2, ... Ray rollout workers.

The environment is CartPole made slow on purpose (``--step-ms`` of busy CPU per step, a stand-in for an
expensive simulator), or plain CartPole with ``--step-ms 0``, where Ray's per-iteration overhead shows. The
update is made cheap (one epoch, one minibatch) so that the figure is collection throughput; each
configuration is timed after its start-up (Ray's start, the workers' first call), best of ``--repeats``.
Run it on an otherwise idle machine: every worker holds one CPU, and the learner shares them.

    python -m benchmarks.costs.scale_out                       # 1 ms per step, workers 0 (one process), 1, 2
    python -m benchmarks.costs.scale_out --step-ms 0 --num-envs 64 --num-steps 256
"""

from __future__ import annotations

import argparse
import time
import warnings

import gymnasium as gym

import rlkit

CHEAP_UPDATE = {"epochs": 1, "num_minibatches": 1, "eval_every": 10**9, "eval_episodes": 1, "progress": False}


class SlowStep(gym.Wrapper):
    """CartPole whose every step also burns ``seconds`` of CPU (busy wait, so it is CPU time, not sleep)."""

    def __init__(self, env: gym.Env, seconds: float) -> None:
        super().__init__(env)
        self.seconds = seconds

    def step(self, action):
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            pass
        return self.env.step(action)


def throughput(make_env, workers: int, num_envs: int, num_steps: int, iterations: int, repeats: int) -> float:
    """Best steps/s of ``iterations`` PPO iterations (collection + cheap update), after one warm-up iteration."""
    options = {"workers": workers} if workers else {}
    agent = rlkit.train(
        "ppo", env=make_env, total_steps=num_envs * num_steps, num_envs=num_envs, num_steps=num_steps,
        **options, **CHEAP_UPDATE,
    ).agent  # fmt: skip
    steps = num_envs * num_steps * iterations
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        agent.learn(steps, progress=False)
        best = max(best, steps / (time.perf_counter() - start))
    agent.close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step-ms", type=float, default=1.0, help="busy CPU per environment step (0: CartPole)")
    parser.add_argument("--workers", nargs="+", type=int, default=[0, 1, 2], help="0 means one process")
    parser.add_argument("--num-envs", type=int, default=8)
    parser.add_argument("--num-steps", type=int, default=64)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    seconds = args.step_ms / 1000

    def make_env() -> gym.Env:
        env = gym.make("CartPole-v1")
        return SlowStep(env, seconds) if seconds > 0 else env

    print(f"PPO, CartPole + {args.step_ms} ms/step, {args.num_envs} envs x {args.num_steps} steps per iteration")
    with warnings.catch_warnings():  # gymnasium's checker warns that the custom env is slow
        warnings.simplefilter("ignore")
        rates = {
            w: throughput(make_env, w, args.num_envs, args.num_steps, args.iterations, args.repeats)
            for w in args.workers
        }
    base = rates.get(0)
    for w, rate in rates.items():
        label = "one process" if w == 0 else f"{w} worker(s)"
        ratio = f"  x{rate / base:.2f}" if base else ""
        print(f"{label:<12} {rate:9,.0f} steps/s{ratio}")


if __name__ == "__main__":
    main()
