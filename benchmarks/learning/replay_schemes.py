"""Benchmark for claim C11: uniform, prioritized and bucketed replay, over more seeds than a chapter can run.

Chapter 13 reads the file this writes (``benchmarks/results/replay_schemes.json``, committed with the code).
Each run is plain DQN (``PLAIN_DQN``) on CartPole-v1 in TensorFlow, only the replay buffer changed
(``course.pitfalls.bucketed_replay.steps_to_solve``), stopped at its first greedy evaluation (every 2,500
steps) at 475; a run that does not get there within the budget is kept with ``solved_at`` None. Ten seeds
per scheme are 30 runs, about seven minutes of CPU on a 2-core Intel Xeon: longer than a chapter may take.

    python -m benchmarks.learning.replay_schemes                    # seeds 0-9, two workers
    python -m benchmarks.learning.replay_schemes --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.replay_schemes --table            # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import check_sweep, provenance, run_into_file, seed_sweep_parser
from course.pitfalls.bucketed_replay import REPLAYS, permutation_p_value, steps_to_solve
from rlkit.algos.dqn.config import DQNConfig

RESULTS = Path(__file__).resolve().parents[1] / "results" / "replay_schemes.json"
BUDGET = 40_000


def run_one(task: tuple[str, int, int]) -> dict:
    """One (replay, seed) run, as the results file keeps it."""
    replay, seed, budget = task
    start = time.process_time()
    solved_at = steps_to_solve(replay, seed, total_steps=budget)
    return {"replay": replay, "seed": seed, "budget": budget, "solved_at": solved_at,
            "cpu_s": time.process_time() - start}  # fmt: skip


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per scheme, as ``benchmarks/RESULTS.md`` shows it: steps to
    solve (an unsolved run counted at its budget) and the exact permutation test against uniform replay."""
    steps = {
        replay: [run["solved_at"] or run["budget"] for run in document["runs"] if run["replay"] == replay]
        for replay in REPLAYS
    }
    lines = [
        "| replay | seeds solved | median steps to solve (range) | mean | p against uniform | median CPU s |",
        "|---|---|---|---|---|---|",
    ]
    for replay, values in steps.items():
        runs = [run for run in document["runs"] if run["replay"] == replay]
        solved = sum(run["solved_at"] is not None for run in runs)
        p_value = "-" if replay == "uniform" else f"{permutation_p_value(values, steps['uniform']):.2f}"
        cells = [
            replay, f"{solved}/{len(runs)}", f"{np.median(values):,.0f} ({min(values):,}-{max(values):,})",
            f"{np.mean(values):,.0f}", p_value, f"{np.median([run['cpu_s'] for run in runs]):.1f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.add_argument("--budget", type=int, default=BUDGET, help="environment steps per run at most")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.out.read_text())))
        return
    check_sweep(parser, args)
    if args.budget < 1:
        parser.error("--budget must be >= 1")
    document = {
        "claim": "C11", "algo": "dqn", "framework": "tf", "env": "CartPole-v1", "threshold": 475,
        "eval_every": DQNConfig().eval_every, **provenance("benchmarks.learning.replay_schemes"), "runs": [],
    }  # fmt: skip
    tasks = [(replay, seed, args.budget) for seed in args.seeds for replay in REPLAYS]
    run_into_file(document, args.out, run_one, tasks, args.workers, order=order, report=report)


def order(run: dict) -> tuple:
    """The file's order of runs: by scheme, then seed."""
    return REPLAYS.index(run["replay"]), run["seed"]


def report(run: dict) -> str:
    solved = "never" if run["solved_at"] is None else f"{run['solved_at']:,}"
    return f"{run['replay']:>11} seed {run['seed']}: solved at {solved}, {run['cpu_s']:.0f} CPU s"


if __name__ == "__main__":
    main()
