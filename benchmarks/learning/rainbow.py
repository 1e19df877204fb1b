"""Benchmark: the Rainbow parts on CartPole-v1: DQN, each part added alone, Rainbow, Rainbow minus each part.

Per variant and framework, the environment steps and wall seconds until a greedy evaluation first reached
the solve threshold (training stops there), over several seeds. Rainbow's own settings (one gradient step
per environment step, noise scale 0.1) apply to every "rainbow" row; the "dqn" rows are plain DQN
(``PLAIN_DQN``: one-step targets, uniform replay, a Q-value per action, whatever DQN's defaults add per task).

    python -m benchmarks.learning.rainbow                                   # dqn and rainbow, torch and tf, seeds 0-2
    python -m benchmarks.learning.rainbow --variants rainbow-noisy rainbow-c51 --frameworks tf --seeds 0 1 2 3
    python -m benchmarks.learning.rainbow --variants rainbow --env Acrobot-v1 --set batch_size=64 tau=0.04  # tuning
"""

from __future__ import annotations

import argparse

from benchmarks._common import run_table, until_solved
from rlkit.algos.dqn.config import PLAIN_DQN
from rlkit.cli import parse_settings

PARTS = {
    "double": {"double": False},
    "dueling": {"dueling": False},
    "nstep": {"n_step": 1},
    "per": {"prioritized": False},
    "noisy": {"noisy": False},
    "c51": {"distributional": False},
}
ALONE = {"dueling": {"dueling": True}, "nstep": {"n_step": 3}, "per": {"prioritized": True}}
ALONE |= {"noisy": {"noisy": True}, "c51": {"distributional": True}}
#: Variant name -> (algorithm, overrides). Plain DQN includes the double target; "dqn+X" adds part X
#: alone; "rainbow-X" is Rainbow without part X.
VARIANTS = {"dqn": ("dqn", PLAIN_DQN), "rainbow": ("rainbow", {})}
VARIANTS |= {f"dqn+{name}": ("dqn", {**PLAIN_DQN, **on}) for name, on in ALONE.items()}
VARIANTS |= {f"rainbow-{name}": ("rainbow", off) for name, off in PARTS.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="CartPole-v1")
    parser.add_argument("--variants", nargs="+", default=["dqn", "rainbow"], choices=sorted(VARIANTS))
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=None, help="budget per run (default: the default budget)")
    parser.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help="hyperparameters changed in every variant, VALUE a Python literal (tuning runs: hidden_sizes=(64,64))",
    )
    args = parser.parse_args()
    changed = parse_settings(args.set)
    for variant in args.variants:
        algo, overrides = VARIANTS[variant]
        overrides = {**overrides, **changed}
        print(f"== {variant} on {args.env}: {algo} {overrides or 'defaults'}")
        run_table(
            until_solved(algo, args.env, args.steps, **overrides),
            args.frameworks,
            args.seeds,
        )


if __name__ == "__main__":
    main()
