"""Benchmark: the tasks beyond classic control (LunarLander, MuJoCo), final agents, resumable runs.

A LunarLander run takes minutes and a MuJoCo run an hour on a laptop's CPU: they will be interrupted. Each
run therefore trains with a resumable checkpoint in its own folder under ``--runs`` (every ``--save-every``
steps, the last one kept); started again with the same command, a run goes on from its last checkpoint
exactly as if it had not stopped, and a run already in the results file is not repeated. The agent a run
returns is saved beside its checkpoint (``final.pt`` / ``final.keras``), for videos and for a closer look.

For every (algorithm, task, framework, seed) it records the evaluation curve, the returns at
:data:`MILESTONES` (the steps at which CleanRL's and RL Zoo's published curves are read), and the *final*
agent's 20 greedy episodes on fresh seeds: their mean and standard deviation, "solved" (mean >= the task's
threshold, 200 for LunarLander) and, on LunarLander, "graded" (mean - std >= 200, the Hugging Face course's
pass mark; None on other tasks).

    python -m benchmarks.learning.harder_tasks --configs dqn:LunarLander-v3 --seeds 0 1 2
    python -m benchmarks.learning.harder_tasks --configs sac:HalfCheetah-v5:torch --seeds 0 --steps 300000
    python -m benchmarks.learning.harder_tasks --table
    python -m benchmarks.learning.harder_tasks --set learning_rate=3e-4 --out try.json --configs ppo:LunarLander-v3
    python -m benchmarks.learning.harder_tasks --configs dqn:MinAtar/Breakout-v1 ppo:MinAtar/Breakout-v1 \
        --out benchmarks/results/pixels.json
    python -m benchmarks.learning.harder_tasks --configs dqn:MinAtar/Breakout-v1:torch --seeds 0 1 \
        --set dueling=true --out benchmarks/results/pixels_dueling.json   # one file per variant
    python -m benchmarks.learning.harder_tasks --configs dqn:ALE/Pong-v5:torch --device cuda --seeds 0 \
        --steps 5000000 --out benchmarks/results/pixels.json     # Atari: a GPU's work (chapter 16)

Configurations are ``algo:env[:framework]`` as in ``benchmarks.learning.endings``; ``--steps`` overrides the
default budget (``rlkit.train``'s for the task), ``--set`` the hyperparameters (recorded in the file).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import check_sweep, run_into_file, seed_sweep_parser
from benchmarks.learning.endings import (
    by_configuration,
    final_record,
    key,
    median_first_solve,
    missing_runs,
    open_document,
)
from course.lander import passes_mark
from course.published import evaluation_at
from rlkit.cli import parse_settings

RESULTS = Path(__file__).parents[1] / "results" / "harder_tasks.json"
#: Where each run keeps its resumable checkpoint (ignored by git: ``benchmarks/runs/`` holds agents, not results).
RUNS = Path(__file__).parents[1] / "runs" / "harder_tasks"
#: Steps at which a run's evaluation curve is read for the comparison with published curves.
MILESTONES = (100_000, 300_000)


def graded(env: str, returns: np.ndarray) -> bool | None:
    """The Hugging Face course's mark for a LunarLander agent (``course.lander.passes_mark``: mean - std >=
    200); None for other tasks."""
    if not env.startswith("LunarLander"):
        return None
    return bool(passes_mark(returns))


def run_folder(
    runs: Path, algo: str, env: str, framework: str, seed: int, overrides: dict | None = None, steps: int | None = None
) -> Path:
    """The run's own folder: a run with other ``--set`` overrides or another ``--steps`` budget (which sets the
    schedules) never continues this one's checkpoint."""
    task = env.replace("/", "-")  # MinAtar/Breakout-v1: one folder, not two
    name = f"{algo}-{task}-{framework}-seed{seed}" + ("" if steps is None else f"-steps{steps}")
    if overrides:
        digest = hashlib.sha256(json.dumps(overrides, sort_keys=True, default=str).encode()).hexdigest()[:8]
        name += f"-set{digest}"
    return runs / name


def latest_checkpoint(folder: Path) -> Path | None:
    """The resumable checkpoint with the most steps in ``folder`` (``step_<N>.pt`` / ``.keras``), or None."""
    found = [path for path in folder.glob("step_*") if path.suffix in (".pt", ".keras")]
    return max(found, key=lambda path: int(path.stem.split("_")[1]), default=None)


def run_one(task: tuple) -> dict:
    """Train one run to the end of its budget (resuming it if a checkpoint is there); play its final agent."""
    algo, env, framework, seed, steps, overrides, runs, save_every, progress, device = task
    import rlkit
    from rlkit.callbacks import SaveCheckpoints

    folder = run_folder(runs, algo, env, framework, seed, overrides, steps)
    saver = SaveCheckpoints(folder, every=save_every, best=False, resumable=True, keep=1)
    resume = latest_checkpoint(folder)
    cpu, wall = time.process_time(), time.perf_counter()
    # with resume=, rlkit refuses settings that differ from the checkpoint's, naming both
    options = {"env": env, "framework": framework, "seed": seed, "device": device, **overrides}
    final = folder / f"final{'.pt' if framework == 'torch' else '.keras'}"  # the agent the run returns
    result = rlkit.train(
        algo, total_steps=steps, callbacks=[saver], resume=resume, save=final, progress=progress, **options
    )
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    record = final_record(result, env, seed)
    final = np.asarray(record["final_returns"])
    return {
        "algo": algo, "env": env, "framework": framework, "seed": seed, "overrides": overrides, **record,
        "at_milestones": {str(m): evaluation_at(record, m) for m in MILESTONES},
        "final_std": float(final.std()), "final_graded": graded(env, final),
        "resumed_from": None if resume is None else resume.name,
        "cpu_s_this_session": round(cpu, 2), "wall_s_this_session": round(wall, 2),
    }  # fmt: skip


def report(run: dict) -> str:
    first = "-" if run["first_solved_at"] is None else f"{run['first_solved_at']:,}"
    return (
        f"{run['algo']:<5} {run['env']:<26} {run['framework']:<5} seed {run['seed']:>3}: first solved at {first:>8}, "
        f"final agent {run['final_mean']:7.1f} +- {run['final_std']:5.1f} "
        f"({'no mark' if run['final_solved'] is None else 'solved' if run['final_solved'] else 'NOT solved'}"
        f"{'' if run['final_graded'] is None else ', graded' if run['final_graded'] else ', not graded'})"
    )


def table(document: dict) -> str:
    """Per configuration: final agents solved and graded, worst and median final mean, median first solve."""
    groups = by_configuration(document["runs"], key)
    lines = [
        "| algorithm | task | framework | steps | final agent solved | mean - std >= 200 | worst final mean "
        "| median final mean | median first solved at |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (algo, env, framework), runs in groups.items():
        finals, first = np.array([run["final_mean"] for run in runs]), median_first_solve(runs)
        marked = [r["final_solved"] for r in runs if r["final_solved"] is not None]
        solved = f"{sum(marked)}/{len(runs)}" if marked else "-"
        marks = [r["final_graded"] for r in runs if r["final_graded"] is not None]
        passed = f"{sum(marks)}/{len(runs)}" if marks else "-"
        lines.append(
            f"| {algo} | {env} | {framework} | {runs[0]['budget']:,} | {solved} | {passed} "
            f"| {finals.min():.1f} | {np.median(finals):.1f} | {first} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.set_defaults(seeds=[0, 1, 2], workers=1)
    parser.add_argument("--configs", nargs="+", metavar="ALGO:ENV[:FRAMEWORK]")
    parser.add_argument("--steps", type=int, help="the budget (default: rlkit.train's for the task)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="hyperparameter overrides")
    parser.add_argument("--runs", type=Path, default=RUNS, help="where the runs keep their checkpoints")
    parser.add_argument("--save-every", type=int, default=10_000, help="steps between resumable checkpoints")
    parser.add_argument("--device", default="cpu", help="where the learners compute: cpu, auto, cuda:0 (Atari: a GPU)")
    args = parser.parse_args()
    check_sweep(parser, args)
    if args.table:
        print(table(json.loads(args.out.read_text())))
        return
    if not args.configs:
        parser.error("--configs: name the runs (each takes minutes to hours), e.g. dqn:LunarLander-v3")
    overrides = parse_settings(args.set)
    # runs already measured are kept, not repeated: a pass always appends
    document = open_document(args.out, "benchmarks.learning.harder_tasks", overrides, append=True)
    tasks = [
        # one worker: the run's own progress bar (several would write over each other)
        (*run, args.steps, overrides, args.runs, args.save_every, args.workers == 1, args.device)
        for run in missing_runs(document, args.configs, args.seeds)
    ]
    run_into_file(document, args.out, run_one, tasks, args.workers, key, report)
    print(table(document))


if __name__ == "__main__":
    main()
