"""Benchmark for claim C28: does lowering TD3's target-smoothing noise give smoother control? Over more seeds
than a chapter can run.

Chapter 31 trains two seeds live and reads the file this writes (``benchmarks/results/td3_smoothing.json``,
committed with the code). Two seeds cannot settle it: at shifted seeds the lowered noise was the smoother
policy on one of them and the jerkier on another. So each setting of
``course.pitfalls.action_smoothness.SMOOTHING`` trains here on thirty seeds (TD3, TensorFlow, Pendulum-v1, 8,000
steps), and each policy is measured as the chapter measures it: mean return over 50 new episodes, and the mean
absolute change of its action per step over 20 greedy episodes.

    python -m benchmarks.learning.td3_smoothing                    # seeds 0-29, two workers: 4-5 minutes
    python -m benchmarks.learning.td3_smoothing --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.td3_smoothing --table            # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import sweep_main
from course.pitfalls.action_smoothness import SMOOTHING, SMOOTHING_STEPS, jerk_ratios, smoothing_run

RESULTS = Path(__file__).resolve().parents[1] / "results" / "td3_smoothing.json"


def run_one(task: tuple[str, int, int]) -> dict:
    """One (setting, seed) run, as the results file keeps it."""
    setting, seed, steps = task
    start = time.process_time()
    return {**smoothing_run(setting, seed, steps), "steps": steps, "cpu_s": time.process_time() - start}


def markdown_table(document: dict) -> str:
    """The summary of a results file, one row per setting, as ``benchmarks/RESULTS.md`` shows it."""
    lines = [
        "| smoothing | seeds | median jerk (range) | median return (range) | median CPU s |",
        "|---|---|---|---|---|",
    ]
    for name in SMOOTHING:
        runs = [run for run in document["runs"] if run["setting"] == name]
        jerk, returns = np.array([r["jerk"] for r in runs]), np.array([r["mean_return"] for r in runs])
        cells = [
            name, f"{len(runs)}", f"{np.median(jerk):.3f} ({jerk.min():.3f}-{jerk.max():.3f})",
            f"{np.median(returns):.0f} ({returns.min():.0f} to {returns.max():.0f})",
            f"{np.median([r['cpu_s'] for r in runs]):.0f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    ratios = np.array(list(jerk_ratios(document["runs"]).values()))
    lines.append(
        f"\nLowered over default, per seed: jerk ratio median {np.median(ratios):.2f} ({ratios.min():.2f}-"
        f"{ratios.max():.2f}); smoother by 10% or more on {int((ratios < 0.9).sum())} of {len(ratios)} seeds, "
        f"jerkier by 10% or more on {int((ratios > 1.1).sum())}."
    )
    return "\n".join(lines)


def main() -> None:
    header = {"claim": "C28", "algo": "td3", "framework": "tf", "env": "Pendulum-v1", "settings": SMOOTHING}
    sweep_main(
        __doc__, RESULTS, "setting", list(SMOOTHING), run_one, markdown_table, report, header, SMOOTHING_STEPS, seeds=30
    )


def report(run: dict) -> str:
    return f"{run['setting']:>22} seed {run['seed']}: return {run['mean_return']:7.1f}, jerk {run['jerk']:.3f}"


if __name__ == "__main__":
    main()
