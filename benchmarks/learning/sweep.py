"""Benchmark: a sweep of seeds x settings as Ray tasks, on this machine or a cluster, into one results file.

Every combination of the ``--grid`` values is trained with every seed (one single-process run per Ray task);
the table gives, per setting, the final greedy evaluation's mean and spread over the seeds.

    python -m benchmarks.learning.sweep --algo ppo --grid learning_rate=1e-3,3e-4 --seeds 0 1 2 --steps 50000
    python -m benchmarks.learning.sweep --ray-address auto --out sweep.json ...   # on a cluster (`ray start --head`)
"""

from __future__ import annotations

import argparse

import numpy as np

from rlkit.cli import parse_settings
from rlkit.sweep import sweep


def parse_grid(pairs: list[str]) -> dict[str, list]:
    """``["learning_rate=1e-3,3e-4"]`` -> ``{"learning_rate": [0.001, 0.0003]}`` (values typed as in --set)."""
    values = {}
    for pair in pairs:
        name, _, options = pair.partition("=")
        values[name] = [parse_settings([f"{name}={option}"])[name] for option in options.split(",")]
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algo", default="ppo")
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--framework", default="torch", choices=["torch", "tf"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--grid", nargs="*", default=[], metavar="KEY=V1,V2", help="settings to sweep")
    parser.add_argument("--steps", type=int, default=None, help="environment steps per run (default: the algo's)")
    parser.add_argument("--ray-address", default=None, help="join this Ray cluster instead of starting one")
    parser.add_argument("--out", default="sweep.json", help="the results file (JSON)")
    args = parser.parse_args()
    results = sweep(args.algo, parse_grid(args.grid), args.seeds, args.env, args.framework, args.steps, args.out,
                    args.ray_address)  # fmt: skip
    print(f"{len(results['runs'])} runs on {results['cluster_cpus']:.0f} CPUs in {results['wall_time']:.1f} s")
    print(f"{'setting':<40} {'final eval (mean +- std)':>26} {'solved':>7} {'wall s':>7}")
    for setting in {str(run["setting"]): run["setting"] for run in results["runs"]}.values():
        runs = [run for run in results["runs"] if run["setting"] == setting]
        finals = np.array([run["final_eval_return"] for run in runs])
        solved = sum(run["solved_at_step"] is not None for run in runs)
        wall = np.mean([run["wall_time"] for run in runs])
        print(f"{str(setting):<40} {finals.mean():>17.1f} +- {finals.std():>5.1f} {solved:>4}/{len(runs)} {wall:>7.1f}")
    print(f"results: {args.out}")


if __name__ == "__main__":
    main()
