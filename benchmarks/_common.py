"""Shared helper of the benchmark scripts: run (framework, seed) pairs and print one table."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import rlkit
from rlkit.result import TrainResult


def until_solved(algo: str, env: str, total_steps: int | None = None, **overrides) -> Callable[[str, int], TrainResult]:
    """A run for :func:`run_table`: train ``algo`` on ``env`` with ``overrides``, stopping at the first
    evaluation that reaches the solve threshold (so wall time is time to solve). ``total_steps=None`` is the
    algorithm's default budget for ``env``: the schedules (epsilon, learning rate, PER's beta) are spread over
    the budget, so only that budget measures what a default call does."""

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
    """Run every (framework, seed), printing a row as each finishes and a summary per framework.

    Beside wall seconds each row gives the run's CPU seconds (process time): on a machine shared with other
    jobs wall time inflates with the contention, CPU time much less. A run stops when solved, so its CPU
    seconds are its CPU time to solve (or its whole budget's, unsolved)."""
    header = f"{'framework':<9} {'seed':>4} {'solved at step':>15} {'time to solve s':>16} {'CPU s':>6} {'wall s':>7}"
    print(header + f" {'steps/s':>8}")
    for framework in frameworks:
        solved_steps, solved_times, solved_cpu, rates = [], [], [], []
        for seed in seeds:
            cpu_start = time.process_time()
            result = run(framework, seed)
            cpu = time.process_time() - cpu_start
            rate = result.steps / result.wall_time
            rates.append(rate)
            step = "-" if result.solved_at_step is None else f"{result.solved_at_step:,}"
            when = "-" if result.solved_at_time is None else f"{result.solved_at_time:.1f}"
            print(
                f"{framework:<9} {seed:>4} {step:>15} {when:>16} {cpu:>6.1f} {result.wall_time:>7.1f} {rate:>8.0f}",
                flush=True,
            )
            if result.solved_at_step is not None:
                solved_steps.append(result.solved_at_step)
                solved_times.append(result.solved_at_time)
                solved_cpu.append(cpu)
        summary = f"{framework}: solved {len(solved_steps)}/{len(seeds)}"
        if solved_steps:
            summary += (
                f", median {np.median(solved_steps):,.0f} steps / {np.median(solved_times):.1f} s"
                f" / {np.median(solved_cpu):.1f} CPU s"
                f" (max {max(solved_steps):,} steps / {max(solved_times):.1f} s / {max(solved_cpu):.1f} CPU s)"
            )
        print(summary + f", {np.mean(rates):.0f} steps/s\n", flush=True)
