"""Benchmark for claim C25: SAC's temperature settings on Pendulum-v1, over more seeds than a chapter can run.

Chapter 32 reads the file this writes (``benchmarks/results/sac_temperature.json``, committed with the code).
Three seeds are too few to rank the settings by stability: on two CPUs (AMD, Intel) the same three seeds
rounded differently and the ranking changed. So every setting of ``course.pitfalls.alpha_tape.TEMPERATURES``
runs here for ten seeds, in TensorFlow, with the chapter's evaluations (every 500 steps, 20 new episodes):

* the three *stability* settings (automatic tuning, alpha fixed at 0.2 and at 0.05) train to 7,000 steps,
  well past solving, and keep their whole evaluation curve;
* the two alpha learning rates (1e-4, 1e-2) stop at their first evaluation at -200 (budget 10,000).

    python -m benchmarks.learning.sac_temperature                    # ten seeds, two workers: 5-6 minutes
    python -m benchmarks.learning.sac_temperature --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.sac_temperature --table            # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import check_sweep, provenance, run_into_file, seed_sweep_parser
from course.pitfalls.alpha_tape import DIP_BELOW, TEMPERATURES, after_solving, temperature_run, temperature_summary

RESULTS = Path(__file__).resolve().parents[1] / "results" / "sac_temperature.json"
#: The settings trained on past solving, to see whether the solved policy holds; the others stop at -200.
STABILITY = ("auto, alpha_lr 1e-3 (default)", "fixed alpha 0.2", "fixed alpha 0.05")
STABILITY_STEPS, RATE_STEPS, EVAL_EVERY, EVAL_EPISODES = 7_000, 10_000, 500, 20


def run_one(task: tuple[str, int, int | None]) -> dict:
    """One (setting, seed) run, as the results file keeps it."""
    setting, seed, steps = task
    trains_on = setting in STABILITY
    budget = steps or (STABILITY_STEPS if trains_on else RATE_STEPS)
    start = time.process_time()
    measured = temperature_run(
        TEMPERATURES[setting], seed, total_steps=budget, stop_when_solved=not trains_on,
        eval_every=EVAL_EVERY, eval_episodes=EVAL_EPISODES,
    )  # fmt: skip
    return {
        "setting": setting, "seed": seed, "trained_past_solving": trains_on, "budget": budget,
        "solved_at": measured["solved_at"], "alpha_end": measured["alpha_end"],
        "eval_steps": measured["eval_steps"].tolist(), "eval_returns": measured["eval_returns"].tolist(),
        "cpu_s": time.process_time() - start,
    }  # fmt: skip


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per setting, as ``benchmarks/RESULTS.md`` shows it."""
    lines = [
        f"| setting | reached -200 | median step (range) | evaluations after | median after | below {DIP_BELOW:.0f} "
        "| seeds with a dip | alpha at the end |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for setting, row in temperature_summary(document["runs"]).items():
        steps, alphas = np.array(row["solve_steps"]), np.array(row["alpha_end"])
        after = setting in document["stability_settings"]
        cells = [
            setting, f"{row['solved']}/{row['seeds']}", f"{np.median(steps):,.0f} ({steps.min():,}-{steps.max():,})",
            str(row["evaluations_after"]) if after else "-", f"{row['median_after']:.0f}" if after else "-",
            f"{row['dip_share']:.0%}" if after else "-",
            (", ".join(map(str, row["seeds_with_dip"])) or "none") if after else "-",
            f"{alphas.min():.3g}-{alphas.max():.3g}" if alphas.min() != alphas.max() else f"{alphas[0]:.3g}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = seed_sweep_parser(__doc__, RESULTS)
    parser.add_argument("--steps", type=int, default=None, help="budget per run (default: 7,000 / 10,000)")
    args = parser.parse_args()
    if args.table:
        print(markdown_table(json.loads(args.out.read_text())))
        return
    check_sweep(parser, args)
    document = {
        "claim": "C25", "algo": "sac", "framework": "tf", "env": "Pendulum-v1",
        **provenance("benchmarks.learning.sac_temperature"), "eval_every": EVAL_EVERY,
        "eval_episodes": EVAL_EPISODES, "settings": TEMPERATURES, "stability_settings": list(STABILITY), "runs": [],
    }  # fmt: skip
    tasks = [(setting, seed, args.steps) for seed in args.seeds for setting in TEMPERATURES]
    run_into_file(document, args.out, run_one, tasks, args.workers, order=order, report=report)


def order(run: dict) -> tuple:
    """The file's order of runs: by setting, then seed."""
    return list(TEMPERATURES).index(run["setting"]), run["seed"]


def report(run: dict) -> str:
    solved = "never" if run["solved_at"] is None else f"{run['solved_at']:,}"
    after = after_solving(run)
    lowest = f"{after.min():.0f}" if len(after) else "-"
    return (
        f"{run['setting']:<30} seed {run['seed']}: -200 at step {solved:>6}, alpha at the end "
        f"{run['alpha_end']:.3f}, lowest evaluation from there {lowest:>5}, {run['cpu_s']:.0f} CPU s"
    )


if __name__ == "__main__":
    main()
