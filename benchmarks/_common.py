"""Shared helpers of the benchmark scripts: run (framework, seed) pairs and print one table; time small calls
in turns."""

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
    """Run every (seed, framework), the frameworks taking turns on each seed (so a neighbour's load falls on
    both), printing a row as each finishes, a summary per framework and, for two, their ratio.

    Beside wall seconds each row gives the run's CPU seconds (process time): on a machine shared with other
    jobs wall time inflates with the contention, CPU time much less. A run stops when solved, so its CPU
    seconds are its CPU time to solve (or its whole budget's, unsolved)."""
    header = f"{'framework':<9} {'seed':>4} {'solved at step':>15} {'time to solve s':>16} {'CPU s':>6} {'wall s':>7}"
    print(header + f" {'steps/s':>8}")
    solved: dict[str, list[tuple[int, float, float]]] = {framework: [] for framework in frameworks}
    rates: dict[str, list[float]] = {framework: [] for framework in frameworks}
    for seed in seeds:
        for framework in frameworks:
            cpu_start = time.process_time()
            result = run(framework, seed)
            cpu = time.process_time() - cpu_start
            rates[framework].append(result.steps / result.wall_time)
            step = "-" if result.solved_at_step is None else f"{result.solved_at_step:,}"
            when = "-" if result.solved_at_time is None else f"{result.solved_at_time:.1f}"
            print(
                f"{framework:<9} {seed:>4} {step:>15} {when:>16} {cpu:>6.1f} {result.wall_time:>7.1f}"
                f" {rates[framework][-1]:>8.0f}",
                flush=True,
            )
            if result.solved_at_step is not None:
                solved[framework].append((result.solved_at_step, result.solved_at_time, cpu))
    medians = {}
    for framework in frameworks:
        summary = f"{framework}: solved {len(solved[framework])}/{len(seeds)}"
        if solved[framework]:
            steps, times, cpus = (np.array(column) for column in zip(*solved[framework], strict=True))
            medians[framework] = np.median(times), np.median(cpus)
            summary += (
                f", median {np.median(steps):,.0f} steps / {medians[framework][0]:.1f} s"
                f" / {medians[framework][1]:.1f} CPU s"
                f" (max {steps.max():,} steps / {times.max():.1f} s / {cpus.max():.1f} CPU s)"
            )
        print(summary + f", {np.mean(rates[framework]):.0f} steps/s", flush=True)
    if len(medians) == 2:  # both frameworks solved some seeds: the ratio of their medians
        (first, (wall_a, cpu_a)), (second, (wall_b, cpu_b)) = medians.items()
        print(f"{first}/{second}: {wall_a / wall_b:.2f} time to solve, {cpu_a / cpu_b:.2f} CPU s", flush=True)
    print(flush=True)


def cpu_us_per_call(
    calls: dict[str, Callable[[], object]], steps: int, repeats: int, before_block: Callable[[], None] | None = None
) -> dict[str, float]:
    """Median CPU microseconds per call of each of ``calls``, the calls taking turns block by block (``steps``
    calls a block; one warm-up round, then ``repeats`` timed ones), so that a neighbour's load falls on all of
    them. ``before_block`` runs, untimed, before every block (e.g. to refill the gradients a call scales)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats + 1):
        for name, call in calls.items():
            if before_block is not None:
                before_block()
            start = time.process_time()
            for _ in range(steps):
                call()
            times[name].append((time.process_time() - start) / steps * 1e6)
    return {name: float(np.median(values[1:])) for name, values in times.items()}
