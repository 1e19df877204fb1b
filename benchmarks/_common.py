"""Shared helper of the benchmark scripts: run (framework, seed) pairs and print one table."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import rlkit
from rlkit.result import TrainResult


def until_solved(algo: str, env: str, total_steps: int | None = None, **overrides) -> Callable[[str, int], TrainResult]:
    """A run for :func:`run_table`: train ``algo`` on ``env`` with ``overrides``, stopping at the first
    evaluation that reaches the solve threshold (so wall time is time to solve)."""

    def run(framework: str, seed: int) -> TrainResult:
        return rlkit.train(
            algo,
            env=env,
            framework=framework,
            seed=seed,
            total_steps=total_steps,
            progress=False,
            stop_when_solved=True,
            **overrides,
        )

    return run


def run_table(run: Callable[[str, int], TrainResult], frameworks: list[str], seeds: list[int]) -> None:
    """Run every (framework, seed), printing a row as each finishes and a summary per framework."""
    print(f"{'framework':<9} {'seed':>4} {'solved at step':>15} {'time to solve s':>16} {'wall s':>7} {'steps/s':>8}")
    for framework in frameworks:
        solved_steps, solved_times, rates = [], [], []
        for seed in seeds:
            result = run(framework, seed)
            rate = result.steps / result.wall_time
            rates.append(rate)
            step = "-" if result.solved_at_step is None else f"{result.solved_at_step:,}"
            when = "-" if result.solved_at_time is None else f"{result.solved_at_time:.1f}"
            print(
                f"{framework:<9} {seed:>4} {step:>15} {when:>16} {result.wall_time:>7.1f} {rate:>8.0f}",
                flush=True,
            )
            if result.solved_at_step is not None:
                solved_steps.append(result.solved_at_step)
                solved_times.append(result.solved_at_time)
        summary = f"{framework}: solved {len(solved_steps)}/{len(seeds)}"
        if solved_steps:
            summary += (
                f", median {np.median(solved_steps):,.0f} steps / {np.median(solved_times):.1f} s"
                f" (max {max(solved_steps):,} steps / {max(solved_times):.1f} s)"
            )
        print(summary + f", {np.mean(rates):.0f} steps/s\n", flush=True)
