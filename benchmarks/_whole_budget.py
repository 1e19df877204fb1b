"""Shared helper of the benchmark scripts: default calls run to the end of their budget, without early stop.

A run stopped at its first solving evaluation says how soon a default solves, not what a plain
``rlkit.train(algo)`` call returns: a policy can reach the threshold once and fall back. These rows say both.
"""

from __future__ import annotations

import time

import numpy as np

import rlkit
from rlkit.envs import solve_threshold


def whole_budget_table(algo: str, env: str, frameworks: list[str], seeds: list[int], **overrides) -> None:
    """Train every (framework, seed) for the whole default budget and print, per run, the first step whose
    evaluation reached the threshold, the final evaluation, and how many evaluations from that first one on
    were at the threshold or better (how steady the policy stays once it has solved), with the CPU seconds."""
    threshold = solve_threshold(env)
    header = f"{'framework':<9} {'seed':>4} {'first solved at':>15} {'final return':>12} {'solved evals':>12}"
    print(header + f" {'CPU s':>6}")
    for framework in frameworks:
        for seed in seeds:
            cpu_start = time.process_time()
            result = rlkit.train(algo, env=env, framework=framework, seed=seed, progress=False, **overrides)
            cpu = time.process_time() - cpu_start
            steps, returns = result.history.series("eval_return")
            solved = np.flatnonzero(returns >= threshold)
            after = returns[solved[0] :] if solved.size else returns[:0]
            first = f"{int(steps[solved[0]]):,}" if solved.size else "-"
            steady = f"{int(np.sum(after >= threshold))}/{after.size}"
            print(f"{framework:<9} {seed:>4} {first:>15} {returns[-1]:>12.1f} {steady:>12} {cpu:>6.1f}", flush=True)
