"""Benchmark for claim C07: DQN's over-estimation with and without the double target, over many seeds.

Chapter 12 reads the file this writes (``benchmarks/results/overestimation.json``, committed with the code).
Each run is plain DQN (``PLAIN_DQN``) on CartPole-v1 in TensorFlow for 15,000 steps, final weights
(``keep_best=False``), as vanilla DQN, with the double target, and with the double target and a dueling
network. Its over-estimation is measured as the chapter measures it
(:func:`course.pitfalls.overestimation.q_against_returns`): the mean predicted max_a Q(s, a) over the states of
5 greedy episodes, against the discounted return that followed, as a share of that return. The file also keeps
the mean of each run's greedy evaluations (10 episodes every 2,500 steps), the area under its learning curve.
Twenty seeds per variant are 60 runs, about ten minutes of CPU: longer than a chapter may take.

    python -m benchmarks.learning.overestimation                    # seeds 0-19, two workers
    python -m benchmarks.learning.overestimation --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.overestimation --table            # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import by_setting, sweep_main

#: The variants compared, as rlkit.train options.
VARIANTS = {
    "vanilla": {"double": False},
    "double": {"double": True},
    "dueling": {"double": True, "dueling": True},
}
RESULTS = Path(__file__).resolve().parents[1] / "results" / "overestimation.json"
STEPS = 15_000


def run_one(task: tuple[str, int, int]) -> dict:
    """One (variant, seed) run, as the results file keeps it."""
    import rlkit
    from course.pitfalls.overestimation import q_against_returns
    from rlkit.algos.dqn import PLAIN_DQN

    variant, seed, steps = task
    start = time.process_time()
    result = rlkit.train(
        "dqn", env="CartPole-v1", framework="tf", seed=seed, total_steps=steps, progress=False, keep_best=False,
        **PLAIN_DQN, **VARIANTS[variant],
    )  # fmt: skip
    predicted, actual = q_against_returns(result.agent)
    evaluations = result.history.series("eval_return")[1]
    return {"variant": variant, "seed": seed, "steps": steps, "predicted_q": predicted, "actual_return": actual,
            "overestimation": (predicted - actual) / actual, "mean_eval": float(evaluations.mean()),
            "cpu_s": time.process_time() - start}  # fmt: skip


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per variant, as ``benchmarks/RESULTS.md`` shows it."""
    table = by_setting(document, "variant", list(VARIANTS), "overestimation")
    vanilla = table["vanilla"]
    lines = [
        "| variant | seeds | median over-estimation (range) | mean | seeds below vanilla's | median mean evaluation"
        " | median CPU s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, values in table.items():
        shares = np.array(list(values.values()))
        below = "-" if name == "vanilla" else f"{sum(values[s] < vanilla[s] for s in values if s in vanilla)}"
        runs = [run for run in document["runs"] if run["variant"] == name]
        cells = [
            name, f"{len(shares)}", f"{np.median(shares):+.0%} ({shares.min():+.0%} to {shares.max():+.0%})",
            f"{shares.mean():+.0%}", below, f"{np.median([run['mean_eval'] for run in runs]):.0f}",
            f"{np.median([run['cpu_s'] for run in runs]):.1f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    header = {"claim": "C07", "algo": "dqn", "framework": "tf", "env": "CartPole-v1"}
    sweep_main(__doc__, RESULTS, "variant", list(VARIANTS), run_one, markdown_table, report, header, STEPS, seeds=20)


def report(run: dict) -> str:
    return (
        f"{run['variant']:>8} seed {run['seed']}: predicted {run['predicted_q']:.1f}, actual "
        f"{run['actual_return']:.1f}, over-estimation {run['overestimation']:+.0%}, {run['cpu_s']:.0f} CPU s"
    )


if __name__ == "__main__":
    main()
