"""Benchmark for claim C13: how fast to decay epsilon, over more seeds than a chapter can run.

Chapter 11 reads the file this writes (``benchmarks/results/epsilon_schedules.json``, committed with the code).
Each run is plain DQN (``PLAIN_DQN``) on CartPole-v1 in TensorFlow for 20,000 steps, only ``eps_fraction``
changed: 0.01 (10 times faster than the default), 0.1 (the default) and 0.5 (5 times slower). A run is kept
as its best greedy evaluation (10 episodes every 2,500 steps), what chapter 11 compares. Ten seeds per
schedule are 30 runs, several minutes of CPU: longer than a chapter may take.

    python -m benchmarks.learning.epsilon_schedules                 # seeds 0-9, two workers
    python -m benchmarks.learning.epsilon_schedules --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.epsilon_schedules --table         # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import by_setting, sweep_main

#: The schedules compared: eps_fraction, by name.
SCHEDULES = {"fast": 0.01, "default": 0.1, "slow": 0.5}
RESULTS = Path(__file__).resolve().parents[1] / "results" / "epsilon_schedules.json"
STEPS = 20_000


def run_one(task: tuple[str, int, int]) -> dict:
    """One (schedule, seed) run, as the results file keeps it."""
    import rlkit
    from rlkit.algos.dqn import PLAIN_DQN

    schedule, seed, steps = task
    start = time.process_time()
    result = rlkit.train(
        "dqn", env="CartPole-v1", framework="tf", seed=seed, total_steps=steps, progress=False,
        eps_fraction=SCHEDULES[schedule], **PLAIN_DQN,
    )  # fmt: skip
    evaluations = result.history.series("eval_return")[1]
    return {"schedule": schedule, "eps_fraction": SCHEDULES[schedule], "seed": seed, "steps": steps,
            "best_eval": float(evaluations.max()), "final_eval": float(evaluations[-1]),
            "cpu_s": time.process_time() - start}  # fmt: skip


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per schedule, as ``benchmarks/RESULTS.md`` shows it."""
    table = by_setting(document, "schedule", list(SCHEDULES), "best_eval")
    default = table["default"]
    lines = [
        "| eps_fraction | seeds | median best evaluation (range) | seeds 100+ below the default's | median CPU s |",
        "|---|---|---|---|---|",
    ]
    for name, values in table.items():
        best = np.array(list(values.values()))
        below = "-" if name == "default" else f"{sum(values[s] < default[s] - 100 for s in values if s in default)}"
        cpu = np.median([run["cpu_s"] for run in document["runs"] if run["schedule"] == name])
        cells = [
            f"{SCHEDULES[name]} ({name})", f"{len(best)}", f"{np.median(best):.0f} ({best.min():.0f}-{best.max():.0f})",
            below, f"{cpu:.1f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    header = {"claim": "C13", "algo": "dqn", "framework": "tf", "env": "CartPole-v1"}
    sweep_main(__doc__, RESULTS, "schedule", list(SCHEDULES), run_one, markdown_table, report, header, STEPS, seeds=10)


def report(run: dict) -> str:
    return f"{run['schedule']:>8} seed {run['seed']}: best evaluation {run['best_eval']:.0f}, {run['cpu_s']:.0f} CPU s"


if __name__ == "__main__":
    main()
