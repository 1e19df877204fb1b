"""Benchmark for chapter 23's ablation: which of PPO's details matter on Pendulum-v1, over more seeds than a
chapter can run.

Chapter 23 reads the file this writes (``benchmarks/results/ppo_ablation.json``, committed with the code). Each
run is PPO with rlkit's Pendulum defaults but for exploration and minibatches, a plain Gaussian policy with
observations normalised (:data:`PLAIN_GAUSSIAN`: the defaults until gSDE became one, and the policy the
chapter's ablation studies), in TensorFlow, evaluated every 10,000 steps and stopped at its first evaluation at
-200 or at the end of the default budget (120,000 steps), with one thing changed: nothing, ``log_std_init =
-0.5``, or no observation and reward normalisation. The chapter's fourth variant, one epoch per rollout, is not
here: its runs never come near -200 (best evaluations below -800 on every seed the chapter ran), an effect one
seed shows. Ten seeds per variant are 30 runs, about ten minutes of CPU: longer than a chapter may take.

    python -m benchmarks.learning.ppo_ablation                      # seeds 0-9, two workers
    python -m benchmarks.learning.ppo_ablation --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.ppo_ablation --table              # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import sweep_main

#: What every run overrides in PPO's Pendulum defaults: the plain Gaussian policy with observations normalised, in
#: 32 minibatches per epoch, the defaults the committed file measured (gSDE and minibatches of 64, Pendulum's
#: defaults since, are chapter 23's next section).
PLAIN_GAUSSIAN = {"use_sde": False, "normalize_obs": True, "num_minibatches": 32}
#: The variants compared, as rlkit.train overrides of :data:`PLAIN_GAUSSIAN`.
VARIANTS = {
    "plain Gaussian": {},
    "log_std_init -0.5": {"log_std_init": -0.5},
    "no normalisation": {"normalize_obs": False, "normalize_rewards": False},
}
RESULTS = Path(__file__).resolve().parents[1] / "results" / "ppo_ablation.json"
EVAL_EVERY = 10_000


def run_one(task: tuple[str, int, int | None]) -> dict:
    """One (variant, seed) run, as the results file keeps it."""
    import rlkit

    variant, seed, steps = task
    start = time.process_time()
    result = rlkit.train(
        "ppo", env="Pendulum-v1", framework="tf", seed=seed, total_steps=steps, progress=False,
        eval_every=EVAL_EVERY, stop_when_solved=True, **{**PLAIN_GAUSSIAN, **VARIANTS[variant]},
    )  # fmt: skip
    evaluations = result.history.series("eval_return")[1]
    return {"variant": variant, "seed": seed, "steps": steps, "solved_at": result.solved_at_step,
            "best_eval": float(evaluations.max()), "cpu_s": time.process_time() - start}  # fmt: skip


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per variant, as ``benchmarks/RESULTS.md`` shows it: steps to the
    first evaluation at -200 (an unsolved run counted as never) and the best evaluation."""
    lines = [
        "| variant | seeds solved | median steps to solve (range, solved runs) | median best evaluation"
        " | median CPU s |",
        "|---|---|---|---|---|",
    ]
    for name in VARIANTS:
        runs = [run for run in document["runs"] if run["variant"] == name]
        solved = [run["solved_at"] for run in runs if run["solved_at"] is not None]
        steps = f"{np.median(solved):,.0f} ({min(solved):,}-{max(solved):,})" if solved else "-"
        cells = [
            name, f"{len(solved)}/{len(runs)}", steps, f"{np.median([run['best_eval'] for run in runs]):.0f}",
            f"{np.median([run['cpu_s'] for run in runs]):.1f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    header = {"algo": "ppo", "framework": "tf", "env": "Pendulum-v1", "threshold": -200, "eval_every": EVAL_EVERY}
    sweep_main(__doc__, RESULTS, "variant", list(VARIANTS), run_one, markdown_table, report, header, None, seeds=10)


def report(run: dict) -> str:
    solved = "never" if run["solved_at"] is None else f"{run['solved_at']:,}"
    best = f"best {run['best_eval']:.0f}, {run['cpu_s']:.0f} CPU s"
    return f"{run['variant']:>18} seed {run['seed']}: solved at {solved}, {best}"


if __name__ == "__main__":
    main()
