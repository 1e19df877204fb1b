"""The command line: ``rlkit train``, ``rlkit eval``, ``rlkit export``, ``rlkit report``.

Bad input (unknown algorithm, environment or framework, an out-of-range hyperparameter, a missing or
corrupt checkpoint) prints one line on stderr and exits with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from rlkit.errors import RlkitError, TrainingInterrupted

#: ``rlkit train --logdir``'s checkpoints: in this folder of the logdir, about SPREAD over the run, the last KEEP.
CHECKPOINTS, SPREAD, KEEP = "checkpoints", 5, 3


def build_parser(algo: str | None = None, env_id: str | None = None) -> argparse.ArgumentParser:
    """The parser; with a known ``algo``, ``train`` also gets one typed flag per hyperparameter of it."""
    from rlkit.registry import ALGORITHMS

    parser = argparse.ArgumentParser(prog="rlkit", description="Deep RL in PyTorch and TensorFlow.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{train,eval,export,report}")

    train = commands.add_parser(
        "train",
        help="train an agent",
        description="Train an agent. `rlkit train ALGO --help` lists every hyperparameter of ALGO.",
    )
    train.add_argument("algo", help=f"algorithm: {', '.join(sorted(ALGORITHMS))}")
    train.add_argument("--env", default=None, help="gymnasium environment id (default: --config's, or CartPole-v1)")
    train.add_argument("--framework", default=None, help="torch or tf (default: --config's, or torch)")
    train.add_argument("--seed", type=int, default=None, help="random seed (default 0)")
    train.add_argument("--steps", type=int, default=None, help="environment steps (default: enough to solve)")
    train.add_argument("--logdir", default=None, help="write TensorBoard events, config.yaml and history.json here")
    train.add_argument("--save", default=None, help="checkpoint path: .pt (torch), .keras or .weights.h5 (tf)")
    train.add_argument(
        "--overwrite", action="store_true", help="replace the run a --logdir already holds (its files are removed)"
    )
    train.add_argument("--stop-when-solved", action="store_true", help="stop at the first solving evaluation")
    train.add_argument(
        "--device",
        default="cpu",
        help="the learner's device, torch and TensorFlow alike: cpu (default), cuda, cuda:N, mps or auto",
    )
    train.add_argument(
        "--resume",
        default=None,
        metavar="PATH",
        help="continue the run saved resumable at PATH (--steps: the total to reach, default the run's own) in "
        "the logdir PATH belongs to (its agent or one of its checkpoints), else in --logdir or --save",
    )
    train.add_argument(
        "--checkpoint-every",
        type=int,
        default=None,
        metavar="N",
        help=f"with --logdir: save a resumable checkpoint every N steps in LOGDIR/{CHECKPOINTS} (the last "
        f"{KEEP} kept; default: about {SPREAD} over the run; 0: none)",
    )
    train.add_argument(
        "--workers",
        type=int,
        default=None,
        help="ppo/a2c: collect rollouts on this many Ray actors (rlkit-course[ray])",
    )
    train.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="join this Ray cluster (what `ray start --head` printed, or auto) instead of starting one here",
    )
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.add_argument(
        "--config",
        default=None,
        metavar="FILE.yaml",
        help="hyperparameters from YAML: rlkit's keys, or an RL-Zoo file (its keys translated, or refused by name), "
        "flat or keyed by env id; flags override it",
    )
    train.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="hyperparameters by name, e.g. --set learning_rate=5e-4 (the same as the typed flags below)",
    )
    if algo is not None and algo.lower() in ALGORITHMS:
        from rlkit.hyperparams import add_config_arguments
        from rlkit.registry import config_class

        add_config_arguments(train, config_class(algo), env_id)

    evaluate = commands.add_parser("eval", help="evaluate a saved agent", description="Evaluate a saved agent.")
    evaluate.add_argument("path", help="checkpoint written by rlkit train --save")
    evaluate.add_argument("--env", default=None, help="environment (default: the one it was trained on)")
    evaluate.add_argument("--episodes", type=int, default=20)
    evaluate.add_argument("--seed", type=int, default=10_000)
    evaluate.add_argument(
        "--video", default=None, metavar="PATH.mp4", help="also record an episode as MP4 (needs rlkit-course[video])"
    )

    export = commands.add_parser(
        "export",
        help="export a saved agent's policy",
        description="Export a saved agent's greedy policy (observation in, action out) and check it against the agent.",
    )
    export.add_argument("path", help="checkpoint written by rlkit train --save")
    export.add_argument(
        "--format",
        default="onnx",
        choices=["onnx", "savedmodel", "litert"],
        help="onnx (default), savedmodel or litert",
    )
    export.add_argument(
        "--quantize",
        default=None,
        choices=["dynamic", "int8"],
        help="litert only: dynamic (int8 weights, float activations) or int8 (weights and activations, "
        "calibrated on the agent's own observations)",
    )
    export.add_argument("--output", default=None, help="where to write it (default: next to the checkpoint)")
    export.add_argument("--force", action="store_true", help="overwrite an existing file at the output path")

    report = commands.add_parser("report", help="versions, devices and thread settings")
    report.add_argument("--probe", action="store_true", help="import torch and TensorFlow to list devices")
    return parser


#: Options of ``rlkit train`` that take a value (skipped when looking for the algorithm's name).
def train_options_with_values() -> set[str]:
    """The ``train`` options that take one value, read off the parser itself (a hand-kept list had lost
    ``--workers`` and ``--ray-address``, whose values were then taken for the algorithm's name)."""
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    train = subparsers.choices["train"]
    return {name for action in train._actions if action.nargs is None for name in action.option_strings}


def train_target(argv: list[str]) -> tuple[str | None, str | None]:
    """The algorithm and environment a ``train`` command line names, read before parsing it in full: the
    hyperparameter flags (and their defaults in ``--help``) depend on them."""
    if not argv or argv[0] != "train":
        return None, None
    with_values = train_options_with_values()
    algo, env_id, index = None, None, 1
    while index < len(argv):
        arg = argv[index]
        if arg in with_values:
            if arg == "--env" and index + 1 < len(argv):
                env_id = argv[index + 1]
            index += 2
            continue
        if arg.startswith("--env="):
            env_id = arg.partition("=")[2]
        elif not arg.startswith("-") and algo is None:
            algo = arg
        index += 1
    return algo, env_id


#: YAML's spellings of the constants, which people type on a command line as often as Python's.
YAML_CONSTANTS = {"true": True, "false": False, "null": None, "none": None}


def parse_settings(pairs: list[str]) -> dict:
    """``["learning_rate=5e-4", "double=false"]`` -> ``{"learning_rate": 0.0005, "double": False}``: values
    read as Python literals, ``true``/``false``/``null`` as YAML writes them, anything else as a string."""
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RlkitError(f"--set takes KEY=VALUE pairs, got '{pair}'")
        if value.lower() in YAML_CONSTANTS:
            settings[key] = YAML_CONSTANTS[value.lower()]
            continue
        try:
            settings[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            settings[key] = value
    return settings


def run(args: argparse.Namespace) -> int:
    import rlkit

    if args.command == "train":
        from rlkit.config_files import load_yaml
        from rlkit.hyperparams import field_types
        from rlkit.registry import config_class

        settings = load_yaml(args.config, args.env, args.algo) if args.config else {}
        # what the command line names wins over the file; what neither names takes rlkit's default
        from_file = {key: settings.pop(key, None) for key in ("env", "framework", "seed", "total_steps")}
        flags = {name: getattr(args, name) for name in field_types(config_class(args.algo)) if hasattr(args, name)}
        typed = parse_settings(args.set)
        for name in set(flags) & set(typed):
            if flags[name] != typed[name]:
                raise RlkitError(f"{name} is set twice, to {flags[name]!r} by its flag and {typed[name]!r} by --set")
        settings.update({**flags, **typed})
        if args.resume is not None and args.logdir is None:
            args.logdir = run_logdir(args.resume)
        if args.resume is not None and args.logdir is None and args.save is None:
            folder = Path(args.resume).parent
            raise RlkitError(
                f"--resume {args.resume} would train and then write the new steps nowhere: pass --logdir (the run's "
                f"own, e.g. --logdir {folder}) or --save FILE"
            )
        total_steps = from_file["total_steps"] if args.steps is None else args.steps
        seed = from_file["seed"] if args.seed is None else args.seed
        result = rlkit.train(  # what is not given stays None: a new run takes the default, a resumed one its own
            args.algo,
            env=args.env or from_file["env"],
            framework=args.framework or from_file["framework"],
            seed=seed,
            total_steps=total_steps,
            logdir=args.logdir,
            save=args.save,
            progress=not args.quiet,
            stop_when_solved=args.stop_when_solved,
            resume=args.resume,
            device=args.device,
            workers=args.workers,
            ray_address=args.ray_address,
            callbacks=checkpoints(args),
            overwrite=args.overwrite,
            **settings,
        )
        print(result)
        if args.save:
            print(f"saved to {Path(args.save)}")
    elif args.command == "eval":
        agent = rlkit.load(args.path)
        env = args.env or agent.env_id
        returns = rlkit.evaluate(agent, env, episodes=args.episodes, seed=args.seed)
        print(f"{env}: mean return {returns.mean():.1f} +- {returns.std():.1f} over {len(returns)} episodes")
        if args.video:
            from rlkit.video import record_video

            shown = record_video(agent, args.video, env=env, seed=args.seed)
            print(f"video of an episode with return {shown[0]:.1f}: {Path(args.video)}")
    elif args.command == "export":
        export_agent(args)
    else:
        from rlkit.hardware import format_report, report

        print(format_report(report(probe_frameworks=args.probe)))
    return 0


def checkpoints(args: argparse.Namespace) -> list:
    """The periodic checkpoints of ``rlkit train``: with a logdir, resumable ones in its ``checkpoints``
    folder, so that a run killed outright (no chance to save on the way out) loses at most one interval."""
    from rlkit.callbacks import SaveCheckpoints

    every = args.checkpoint_every
    if every is not None and every < 0:
        raise RlkitError(f"--checkpoint-every takes a number of steps >= 0 (0: no checkpoints), got {every}")
    if every and args.logdir is None:
        raise RlkitError(f"--checkpoint-every {every} writes into LOGDIR/{CHECKPOINTS}: pass --logdir DIR as well")
    if args.logdir is None or every == 0:
        return []
    folder = Path(args.logdir) / CHECKPOINTS
    if every is None:
        return [SaveCheckpoints(folder, best=False, resumable=True, keep=KEEP, spread=SPREAD)]
    return [SaveCheckpoints(folder, every=every, best=False, resumable=True, keep=KEEP)]


def run_logdir(checkpoint: str | Path) -> Path | None:
    """The logdir a checkpoint belongs to, where its resumed run goes on: the folder of ``LOGDIR/agent.pt``
    or the parent of ``LOGDIR/checkpoints/step_N.pt``, told by the ``config.yaml`` every run writes there at
    its start; None for a checkpoint outside any logdir."""
    folder = Path(checkpoint).parent
    for candidate in (folder, folder.parent) if folder.name == CHECKPOINTS else (folder,):
        if (candidate / "config.yaml").is_file():
            return candidate
    return None


def export_agent(args: argparse.Namespace) -> None:
    """``rlkit export``: write the file, then run it against the agent (onnxruntime, TensorFlow for a
    SavedModel, the LiteRT interpreter for a .tflite file) on observations of its environment and print the
    largest difference."""
    import rlkit
    from rlkit import export

    agent = rlkit.load(args.path)
    source = Path(args.path)
    # the checkpoint's name without its suffix: run.v2.pt -> run.v2.onnx
    suffixes = (".weights.h5", ".keras", ".pt")
    stem = next((source.name[: -len(s)] for s in suffixes if source.name.endswith(s)), source.stem)
    litert = f"_{args.quantize}.tflite" if args.quantize else ".tflite"  # agent_dynamic.tflite, agent_int8.tflite
    ending = {"onnx": ".onnx", "savedmodel": "_savedmodel", "litert": litert}
    default = source.with_name(stem + ending[args.format])
    output = Path(args.output or default)
    if output.exists() and not args.force:
        origin = _came_from(output)
        raise RlkitError(f"'{output}' already exists{origin}: pass --force to overwrite it, or choose --output PATH")
    path = export.export(agent, output, format=args.format, source=str(source), quantize=args.quantize)
    if args.format == "onnx":
        parity = export.onnx_parity(agent, path)
    elif args.format == "litert":
        parity = export.litert_parity(agent, path)
    else:
        parity = export.compare(agent, export.saved_model_policy(path), export.observations(agent, 256))
    print(f"exported {agent.algo} ({agent.framework}) to {path}")
    print(f"checked against the agent on {parity}")


def interrupted_message(args: argparse.Namespace, exc: TrainingInterrupted) -> str:
    """What an interrupted ``rlkit train`` prints: where the run is saved and the command that continues it,
    or that nothing was saved and the flags that make a run save."""
    import shlex
    import signal

    name, steps = signal.Signals(exc.signal).name, exc.result.steps
    where = f"rlkit: training interrupted by {name} at step {steps:,}"
    if getattr(exc, "finished", False):  # the signal came during the final save, which was completed first
        where = f"rlkit: {name} arrived during the final save, after the run's last step ({steps:,}); it is complete"
    if exc.checkpoint is None:
        return f"{where}; nothing was saved: pass --logdir DIR or --save FILE and an interrupted run keeps its work"
    command = ["rlkit", "train", args.algo, "--resume", str(exc.checkpoint)]
    for flag, value in (("--logdir", args.logdir), ("--save", args.save)):
        if value is not None:
            command += [flag, str(value)]
    more = f" --steps N (N > {steps})" if getattr(exc, "finished", False) else ""
    return f"{where}; the run is saved, resumable, in {exc.checkpoint}\nresume with: {shlex.join(command)}{more}"


def _came_from(path: Path) -> str:
    """What the existing export at ``path`` came from, as the refusal to overwrite it says it (e.g. " (exported
    from the dqn torch agent of CartPole-v1 in runs/agent.pt)"), or "" when the file does not tell."""
    from rlkit.export import exported_from

    origin = exported_from(path)
    if origin is None:
        return ""
    where = f" in {origin['checkpoint']}" if origin.get("checkpoint") else ""
    return f" (exported from the {origin['algo']} {origin['framework']} agent of {origin['env_id']}{where})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser(*train_target(argv)).parse_args(argv)
        return run(args)
    except RlkitError as exc:
        print(f"rlkit: error: {exc}", file=sys.stderr)
        return 2
    except TrainingInterrupted as exc:  # the shell's status for a process ended by the signal: 130, 143
        print(interrupted_message(args, exc), file=sys.stderr)
        return 128 + exc.signal
    except KeyboardInterrupt:
        print("rlkit: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
