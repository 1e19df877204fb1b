"""Benchmark: DQN on CartPole-v1 (or ``--env Acrobot-v1``) in both frameworks over several seeds.

Reports, per run, the environment steps and wall seconds until a greedy evaluation first reached the solve
threshold (CartPole 475, Acrobot -100), and the training throughput. Training stops at that evaluation
(``stop_when_solved``), so a run's wall time is its time to solve. ``--whole-budget`` trains to the end of the
default budget instead and reports what the default call returns (final evaluation, evaluations still solved).

    python -m benchmarks.learning.dqn                       # torch and tf, seeds 0-4
    python -m benchmarks.learning.dqn --frameworks torch --seeds 0 1 2 --set learning_rate=5e-4
    python -m benchmarks.learning.dqn --env Acrobot-v1 --seeds 0 1 --whole-budget
"""

from __future__ import annotations

import argparse

from benchmarks._common import run_table, until_solved
from benchmarks._whole_budget import whole_budget_table
from rlkit.cli import parse_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--steps", type=int, default=None, help="budget per run (default: the default budget)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="DQN hyperparameters")
    parser.add_argument("--whole-budget", action="store_true", help="no early stop: what the default call returns")
    args = parser.parse_args()
    overrides = parse_settings(args.set)
    if args.whole_budget:
        whole_budget_table("dqn", args.env, args.frameworks, args.seeds, total_steps=args.steps, **overrides)
        return
    run_table(
        until_solved("dqn", args.env, args.steps, **overrides),
        args.frameworks,
        args.seeds,
    )


if __name__ == "__main__":
    main()
