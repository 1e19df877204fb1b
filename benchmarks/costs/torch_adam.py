"""Benchmark: rlkit's FusedAdam against ``torch.optim.Adam(fused=True)``, the same kernel with and without torch.optim.

Two costs, CPU time on one thread:

* **the first optimizer of a process**: a fresh Python process imports torch, builds one small network's
  optimizer and takes one step; the seconds after ``import torch``. ``torch.optim`` imports ``torch._dynamo``
  there, which FusedAdam never does. The two kinds of process alternate.
* **one step**, on the parameters of each default learner of the course (its networks as rlkit builds them,
  with gradients filled in): microseconds per ``step()``, blocks of ``--steps`` steps, the two optimizers taking
  turns block by block, median over ``--repeats`` blocks. ``torch.optim.Adam`` on CPU without ``fused=True``
  (rlkit's PPO and A2C before FusedAdam) is timed too.

The weights both produce are the same bit for bit (``tests/algorithms/test_torch_adam.py``), so steps to solve are
unchanged and the time per step is the whole effect.

    python -m benchmarks.costs.torch_adam
    python -m benchmarks.costs.torch_adam --repeats 15 --steps 2000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

from benchmarks._common import cpu_us_per_call

FIRST = """
import sys, time, torch
torch.set_num_threads(1)
start = time.process_time()
params = [torch.nn.Parameter(torch.zeros(64, 64)), torch.nn.Parameter(torch.zeros(64))]
if sys.argv[1] == "torch.optim":
    optimizer = torch.optim.Adam(params, lr=1e-3, fused=True)
else:
    from rlkit.algos.torch_adam import FusedAdam
    optimizer = FusedAdam(params, lr=1e-3)
for param in params:
    param.grad = torch.ones_like(param)
optimizer.step()
print(time.process_time() - start)
"""

#: (label, algorithm, environment, which of the learner's optimizers)
CASES = [
    ("DQN (128x128)", "dqn", "CartPole-v1", "optimizer"),
    ("DDPG critic (64x64)", "ddpg", "Pendulum-v1", "critic_optimizer"),
    ("TD3 twin critics", "td3", "Pendulum-v1", "critic_optimizer"),
    ("SAC actor", "sac", "Pendulum-v1", "actor_optimizer"),
    ("PPO actor-critic", "ppo", "CartPole-v1", "optimizer"),
]


def first_optimizer_cost(kind: str) -> float:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    out = subprocess.run([sys.executable, "-c", FIRST, kind], capture_output=True, text=True, check=True, env=env)
    return float(out.stdout.strip().splitlines()[-1])


def learner_parameters(algo: str, env_id: str, attribute: str) -> list:
    """The parameters one optimizer of the default torch learner of ``algo`` on ``env_id`` updates (the learner
    as ``rlkit.train`` builds it; one step, or PPO's one rollout, before the timing's own steps)."""
    import rlkit

    agent = rlkit.train(algo, env=env_id, framework="torch", total_steps=1, progress=False).agent
    return list(getattr(agent.learner, attribute).params)


def step_costs(params: list, steps: int, repeats: int) -> dict[str, float]:
    """Median CPU microseconds per step of each optimizer, the three taking turns block by block."""
    import torch

    from rlkit.algos.torch_adam import FusedAdam

    for param in params:
        param.grad = torch.randn_like(param) * 1e-3
    optimizers = {
        "torch.optim fused": torch.optim.Adam(params, lr=1e-6, fused=True),
        "torch.optim default": torch.optim.Adam(params, lr=1e-6),
        "FusedAdam": FusedAdam(params, lr=1e-6),
    }
    return cpu_us_per_call({name: optimizer.step for name, optimizer in optimizers.items()}, steps, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=9, help="blocks per optimizer (median reported)")
    parser.add_argument("--steps", type=int, default=1000, help="steps per block")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    firsts: dict[str, list[float]] = {"torch.optim": [], "FusedAdam": []}
    for _ in range(max(3, args.repeats // 3)):
        for kind, values in firsts.items():
            values.append(first_optimizer_cost(kind))
    print("first optimizer of a process (CPU s after import torch, median):")
    for kind, values in firsts.items():
        print(f"  {kind:12} {np.median(values):6.2f}   (runs: {', '.join(f'{v:.2f}' for v in values)})")

    print(f"\nCPU us per step (median of {args.repeats} blocks of {args.steps}):")
    print(f"{'learner':22}{'tensors':>8}{'torch fused':>13}{'torch default':>15}{'FusedAdam':>11}{'fused/ours':>12}")
    for label, algo, env_id, attribute in CASES:
        params = learner_parameters(algo, env_id, attribute)
        costs = step_costs(params, args.steps, args.repeats)
        fused, default, ours = costs["torch.optim fused"], costs["torch.optim default"], costs["FusedAdam"]
        print(f"{label:22}{len(params):>8}{fused:>13.1f}{default:>15.1f}{ours:>11.1f}{fused / ours:>12.2f}")


if __name__ == "__main__":
    main()
