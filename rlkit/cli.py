"""The command line: ``rlkit train``, ``rlkit eval``, ``rlkit report``.

Bad input (unknown algorithm, environment or framework, an out-of-range hyperparameter, a missing or
corrupt checkpoint) prints one line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from rlkit.errors import RlkitError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlkit", description="Deep RL in PyTorch and TensorFlow.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{train,eval,report}")

    train = commands.add_parser("train", help="train an agent", description="Train an agent.")
    train.add_argument("algo", help="algorithm: dqn, a2c or ppo")
    train.add_argument("--env", default="CartPole-v1", help="gymnasium environment id (default CartPole-v1)")
    train.add_argument("--framework", default="torch", help="torch or tf (default torch)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--steps", type=int, default=None, help="environment steps (default: enough to solve)")
    train.add_argument("--logdir", default=None, help="write TensorBoard events and history.json here")
    train.add_argument("--save", default=None, help="checkpoint path: .pt (torch), .keras or .weights.h5 (tf)")
    train.add_argument("--stop-when-solved", action="store_true", help="stop at the first solving evaluation")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="hyperparameters, e.g. --set learning_rate=5e-4",
    )

    evaluate = commands.add_parser("eval", help="evaluate a saved agent", description="Evaluate a saved agent.")
    evaluate.add_argument("path", help="checkpoint written by rlkit train --save")
    evaluate.add_argument("--env", default=None, help="environment (default: the one it was trained on)")
    evaluate.add_argument("--episodes", type=int, default=20)
    evaluate.add_argument("--seed", type=int, default=10_000)

    report = commands.add_parser("report", help="versions, devices and thread settings")
    report.add_argument("--probe", action="store_true", help="import torch and TensorFlow to list devices")
    return parser


def parse_settings(pairs: list[str]) -> dict:
    """``["learning_rate=5e-4", "double=False"]`` -> ``{"learning_rate": 0.0005, "double": False}``."""
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RlkitError(f"--set takes KEY=VALUE pairs, got '{pair}'")
        try:
            settings[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            settings[key] = value
    return settings


def run(args: argparse.Namespace) -> int:
    import rlkit

    if args.command == "train":
        result = rlkit.train(
            args.algo,
            env=args.env,
            framework=args.framework,
            seed=args.seed,
            total_steps=args.steps,
            logdir=args.logdir,
            save=args.save,
            progress=not args.quiet,
            stop_when_solved=args.stop_when_solved,
            **parse_settings(args.set),
        )
        print(result)
        if args.save:
            print(f"saved to {Path(args.save)}")
    elif args.command == "eval":
        agent = rlkit.load(args.path)
        env = args.env or agent.env_id
        returns = rlkit.evaluate(agent, env, episodes=args.episodes, seed=args.seed)
        print(f"{env}: mean return {returns.mean():.1f} +- {returns.std():.1f} over {len(returns)} episodes")
    else:
        from rlkit.hardware import format_report, report

        print(format_report(report(probe_frameworks=args.probe)))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except RlkitError as exc:
        print(f"rlkit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rlkit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
