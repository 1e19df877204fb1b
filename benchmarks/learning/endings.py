"""Benchmark: does the agent a default ``rlkit.train`` call returns solve its task, on seeds no test uses?

A run that crosses the threshold once and falls back is no use to a reader: what they get is the *final*
agent. For every (algorithm, task, framework) of the course and every seed, this trains the default call to
the end of its default budget (no early stop, no ``keep_best``) and plays the returned agent for 20 greedy
episodes on fresh episode seeds. It records the first evaluation that reached the threshold, every evaluation
of the run, the final agent's 20 returns and the CPU seconds.

    python -m benchmarks.learning.endings                                  # every configuration, seeds 100-109
    python -m benchmarks.learning.endings --configs dqn:CartPole-v1:tf a2c:CartPole-v1 --seeds 100 101 102
    python -m benchmarks.learning.endings --append                         # add what the file lacks, keep the rest
    python -m benchmarks.learning.endings --set learning_rate=3e-4 --out try.json --configs a2c:CartPole-v1
    python -m benchmarks.learning.endings --table                          # the summary of --out
    python -m benchmarks.learning.endings --readme                         # the README's sentence of it

A configuration is ``algo:env[:framework]`` (both frameworks when the framework is left out). "Solved" is the
mean of the final agent's 20 episodes at or above the task's threshold (CartPole 475, Acrobot -100, Pendulum
-200). ``--set`` overrides hyperparameters (as ``rlkit train --set`` does) and is recorded in the file, so a
tuning pass goes to its own ``--out`` and the committed file holds the defaults only.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import check_sweep, provenance, run_into_file, seed_sweep_parser
from course.measured import late_evaluations_solved
from course.pitfalls.statistics import fresh_miss_chance
from rlkit.cli import parse_settings
from rlkit.envs import solve_threshold

RESULTS = Path(__file__).parents[1] / "results" / "endings.json"
FINAL_EPISODES = 20
#: Seeds of the final evaluation: far from the run's own (its evaluations use 1_000_000 + 1_000 * seed + step).
FINAL_EVAL_SEED = 7_000_000

#: Every (algorithm, task) the course trains by default.
PAIRS = [
    ("dqn", "CartPole-v1"), ("dqn", "Acrobot-v1"),
    ("rainbow", "CartPole-v1"), ("rainbow", "Acrobot-v1"),
    ("a2c", "CartPole-v1"), ("a2c", "Acrobot-v1"),
    ("ppo", "CartPole-v1"), ("ppo", "Acrobot-v1"), ("ppo", "Pendulum-v1"),
    ("ddpg", "Pendulum-v1"), ("td3", "Pendulum-v1"), ("sac", "Pendulum-v1"),
]  # fmt: skip
FRAMEWORKS = ("torch", "tf")
#: How the prose names an algorithm, where it is not its id in capitals.
NAMES = {"rainbow": "Rainbow"}


def parse_configs(specs: list[str] | None) -> list[tuple[str, str, str]]:
    """``["dqn:CartPole-v1:tf", "a2c:Acrobot-v1"]`` -> (algo, env, framework) triples; none: every one."""
    if not specs:
        return [(algo, env, framework) for algo, env in PAIRS for framework in FRAMEWORKS]
    configs = []
    for spec in specs:
        parts = spec.split(":")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in FRAMEWORKS):
            raise SystemExit(f"--configs takes algo:env[:torch|tf], got {spec!r}")
        frameworks = parts[2:] or list(FRAMEWORKS)
        configs += [(parts[0], parts[1], framework) for framework in frameworks]
    return configs


def run_one(task: tuple[str, str, str, int, dict]) -> dict:
    """Train one default run to the end of its budget; play its final agent."""
    algo, env, framework, seed, overrides = task
    import rlkit  # one CPU thread per framework: rlkit's default

    cpu, wall = time.process_time(), time.perf_counter()
    result = rlkit.train(algo, env=env, framework=framework, seed=seed, progress=False, **overrides)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    run = {"algo": algo, "env": env, "framework": framework, "seed": seed, "overrides": overrides}
    return {**run, **final_record(result, env, seed), "cpu_s": round(cpu, 2), "wall_s": round(wall, 2)}


def final_record(result, env: str, seed: int) -> dict:
    """What a finished run is judged by: its budget, first solving evaluation and evaluations, its final agent's
    returns over :data:`FINAL_EPISODES` fresh episodes (their mean and whether it reached the threshold), the
    diagnostics of why it ended so, and its resolved settings."""
    from rlkit.evaluate import play_episodes

    steps, returns = result.history.series("eval_return")
    final = play_episodes(result.agent, env, FINAL_EPISODES, FINAL_EVAL_SEED + 1_000 * seed)
    threshold = solve_threshold(env)  # None: a task with no solving mark (most MinAtar games)
    return {
        "budget": int(result.steps), "first_solved_at": result.solved_at_step,
        "eval_steps": [int(s) for s in steps], "eval_returns": [float(r) for r in returns],
        "final_returns": [float(r) for r in final], "final_mean": float(final.mean()),
        "final_solved": None if threshold is None else bool(final.mean() >= threshold),
        "diagnostics": diagnostics(result.history),
        "settings": json.loads(json.dumps(dataclasses.asdict(result.config))),
    }  # fmt: skip


#: Metrics whose course says why a run fell: DQN's value estimates (a divergence shows as Q far above the
#: largest possible return), the actor-critics' policy entropy (a policy that collapsed to one action).
DIAGNOSTICS = ("q_mean", "entropy", "loss")


def diagnostics(history) -> dict[str, dict[str, float]]:
    """The largest, smallest and last value of each of :data:`DIAGNOSTICS` the run recorded."""
    found = {}
    for name in DIAGNOSTICS:
        if name in history:
            _, values = history.series(name)
            found[name] = {"max": float(values.max()), "min": float(values.min()), "last": float(values[-1])}
    return found


def key(run: dict) -> tuple:
    return run["algo"], run["env"], run["framework"], run["seed"]


def order(run: dict) -> tuple:
    pairs = [f"{algo}:{env}" for algo, env in PAIRS]
    pair = f"{run['algo']}:{run['env']}"
    return (pairs.index(pair) if pair in pairs else len(pairs), pair, run["framework"], run["seed"])


def report(run: dict) -> str:
    first = "-" if run["first_solved_at"] is None else f"{run['first_solved_at']:,}"
    verdict = "solved" if run["final_solved"] else "NOT solved"
    return (
        f"{run['algo']:<8} {run['env']:<12} {run['framework']:<5} seed {run['seed']:>4}: first solved at "
        f"{first:>7}, final agent {run['final_mean']:8.1f} ({verdict}), {run['cpu_s']:.0f} CPU s"
    )


def by_configuration(runs: list[dict], order) -> dict[tuple, list[dict]]:
    """Runs grouped by (algorithm, task, framework), in ``order``."""
    groups: dict[tuple, list[dict]] = {}
    for run in sorted(runs, key=order):
        groups.setdefault((run["algo"], run["env"], run["framework"]), []).append(run)
    return groups


def median_first_solve(runs: list[dict]) -> str:
    """The median step of the runs' first solving evaluations (over those that solved), or "-"."""
    firsts = [run["first_solved_at"] for run in runs if run["first_solved_at"] is not None]
    return f"{int(np.median(firsts)):,}" if firsts else "-"


def table(document: dict) -> str:
    """Per configuration: final agents solved, the misses a second evaluation of the same agents would be
    expected to find (:func:`~course.pitfalls.statistics.fresh_miss_chance` summed over seeds), late evaluations
    solved, the worst and median final mean, median first solve, CPU s."""
    groups = by_configuration(document["runs"], order)
    lines = [
        "| algorithm | task | framework | final agent solved | misses on fresh episodes (expected) "
        "| evaluations solved, second half | worst final mean | median final mean | median first solved at "
        "| median CPU s, whole run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (algo, env, framework), runs in groups.items():
        finals = np.array([run["final_mean"] for run in runs])
        first = median_first_solve(runs)
        solved = sum(run["final_solved"] for run in runs)
        late, evaluations = late_evaluations_solved(runs)
        misses = sum(fresh_miss_chance(run["final_returns"], solve_threshold(env)) for run in runs)
        lines.append(
            f"| {algo} | {env} | {framework} | {solved}/{len(runs)} | {misses:.1f} | {late}/{evaluations} "
            f"| {finals.min():.1f} | {np.median(finals):.1f} | {first} "
            f"| {np.median([run['cpu_s'] for run in runs]):.1f} |"
        )
    return "\n".join(lines)


def readme_sentence(document: dict) -> str:
    """The README's account of the file, one clause per (algorithm, task): "the final agents ended solved on 7
    (torch) and 6 (TF) of 10 with DQN on CartPole; ...: 10 of the 24 configurations on every seed." A test
    holds the README to it, so the sentence cannot drift from the file."""
    groups = by_configuration(document["runs"], order)
    clauses = []
    for algo, env in PAIRS:
        torch, tf = (groups.get((algo, env, framework), []) for framework in FRAMEWORKS)
        if not torch or not tf:
            continue
        solved = [sum(run["final_solved"] for run in runs) for runs in (torch, tf)]
        where = f"with {NAMES.get(algo, algo.upper())} on {env.split('-')[0]}"
        if clauses:
            clauses.append(f"{solved[0]} and {solved[1]} {where}")
        else:
            seeds = len(torch) if len(torch) == len(tf) else f"{len(torch)} and {len(tf)}"
            clauses.append(f"{solved[0]} (torch) and {solved[1]} (TF) of {seeds} {where}")
    every = sum(all(run["final_solved"] for run in runs) for runs in groups.values())
    return (
        f"the final agents ended solved on {'; '.join(clauses)}: {every} of the {len(groups)} configurations on "
        "every seed."
    )


def open_document(out: Path, module: str, overrides: dict, append: bool) -> dict:
    """The results document a pass writes: ``out``'s, its runs kept and this pass recorded, when ``append`` (and
    it exists), else a new one. A file of runs with other ``--set`` overrides is refused: one file, one setting."""
    if not (append and out.exists()):
        return {"provenance": provenance(module), "runs": []}
    document = json.loads(out.read_text())
    if any(run["overrides"] != overrides for run in document["runs"]):
        sys.exit(f"{out} holds runs with other --set overrides; use another --out")
    document.setdefault("passes", []).append(provenance(module))
    return document


def missing_runs(document: dict, configs: list[str] | None, seeds: list[int]) -> list[tuple[str, str, str, int]]:
    """(algo, env, framework, seed) of every configuration and seed asked for that ``document`` lacks."""
    done = {key(run) for run in document["runs"]}
    wanted = [(algo, env, framework, seed) for algo, env, framework in parse_configs(configs) for seed in seeds]
    return [run for run in wanted if run not in done]


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.set_defaults(seeds=list(range(100, 110)))
    parser.add_argument("--configs", nargs="*", metavar="ALGO:ENV[:FRAMEWORK]", help="default: every one")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="hyperparameter overrides")
    parser.add_argument("--append", action="store_true", help="keep the file's runs and add the missing ones")
    parser.add_argument("--readme", action="store_true", help="print the README's sentence of --out and stop")
    args = parser.parse_args()
    check_sweep(parser, args)
    if args.table:
        print(table(json.loads(args.out.read_text())))
        return
    if args.readme:
        print(readme_sentence(json.loads(args.out.read_text())))
        return
    overrides = parse_settings(args.set)
    document = open_document(args.out, "benchmarks.learning.endings", overrides, args.append)
    tasks = [(*run, overrides) for run in missing_runs(document, args.configs, args.seeds)]
    run_into_file(document, args.out, run_one, tasks, args.workers, order, report)
    print(table(document))


if __name__ == "__main__":
    main()
