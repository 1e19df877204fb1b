"""Benchmark: PPO and A2C in both frameworks over several seeds (CartPole-v1, Acrobot-v1; PPO also on Pendulum-v1).

Reports per run the environment steps and wall seconds until a greedy evaluation (10 new episodes, every 5,000
steps) first reached the solve threshold (CartPole 475, Acrobot -100, Pendulum -200); training stops there, or
at the end of the default budget. ``--whole-budget`` trains to the end of the budget instead and reports what the
default call returns: the final evaluation and how many evaluations, from the first solving one on, were solved.

    python -m benchmarks.learning.policy_gradient                              # everything, seeds 0-4
    python -m benchmarks.learning.policy_gradient --algos ppo --envs Pendulum-v1 --seeds 0 1 --set learning_rate=3e-4
    python -m benchmarks.learning.policy_gradient --algos a2c --envs Acrobot-v1 --whole-budget
"""

from __future__ import annotations

import argparse

from benchmarks._common import run_table, until_solved
from benchmarks._whole_budget import whole_budget_table
from rlkit.cli import parse_settings

RUNS = [("ppo", "CartPole-v1"), ("a2c", "CartPole-v1"), ("ppo", "Acrobot-v1"), ("a2c", "Acrobot-v1")]
RUNS += [("ppo", "Pendulum-v1")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=["ppo", "a2c"], choices=["ppo", "a2c"])
    parser.add_argument("--envs", nargs="+", default=["CartPole-v1", "Acrobot-v1", "Pendulum-v1"])
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="hyperparameters")
    parser.add_argument("--whole-budget", action="store_true", help="no early stop: what the default call returns")
    args = parser.parse_args()
    overrides = parse_settings(args.set)
    for algo, env in RUNS:
        if algo in args.algos and env in args.envs:
            print(f"== {algo} on {env}")
            if args.whole_budget:
                whole_budget_table(algo, env, args.frameworks, args.seeds, eval_every=5_000, **overrides)
                continue
            run_table(
                until_solved(algo, env, eval_every=5_000, **overrides),
                args.frameworks,
                args.seeds,
            )


if __name__ == "__main__":
    main()
