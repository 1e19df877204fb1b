"""Benchmark: DDPG, TD3 and SAC in both frameworks over several seeds on Pendulum-v1.

Reports per run the environment steps and wall seconds until a greedy evaluation (10 new episodes, every 1,000
steps) first reached -200; training stops there, or at the end of the default budget.

    python -m benchmarks.learning.off_policy                                   # all three, seeds 0-4
    python -m benchmarks.learning.off_policy --algos sac --seeds 0 1 --set hidden_sizes=256,256
"""

from __future__ import annotations

import argparse

from benchmarks._common import run_table, until_solved
from rlkit.cli import parse_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=["ddpg", "td3", "sac"], choices=["ddpg", "td3", "sac"])
    parser.add_argument("--env", default="Pendulum-v1")
    parser.add_argument("--steps", type=int, default=None, help="budget per run (default: the default budget)")
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="hyperparameters")
    args = parser.parse_args()
    overrides = parse_settings(args.set)
    for algo in args.algos:
        print(f"== {algo} on {args.env}")
        run_table(
            until_solved(algo, args.env, args.steps, **overrides),
            args.frameworks,
            args.seeds,
        )


if __name__ == "__main__":
    main()
