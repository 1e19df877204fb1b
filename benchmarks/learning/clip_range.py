"""Benchmark for claim C19: is PPO 1.8x faster with a clip range of 0.2 than with 0.1? And how often would
chapter 22's asserts fail on a reader's machine?

Chapter 22 trains eight seeds per clip range live (PPO, CartPole-v1, the default call, stopped at the first
solving evaluation, an evaluation every 5,000 steps) and asserts three things about them: each range solves
at least six of eight; the ratio of the mean steps to solve (0.1 over 0.2, a run that never solved counted
with its whole budget) is below 1.8; and among the 64 pairings of a 0.1 run with a 0.2 run some show a 1.8x
gap in either direction. Another CPU rounds differently, so a reader's eight runs are eight other seeds'.
This script runs the chapter's call on many seeds (by default 48: 0-11, 1000-1011, 2000-2011 and
3000-3011, the seeds the chapter plays at ``RLKIT_SEED_OFFSET`` 0 to 3000) and, from them, how often the
chapter's asserts fail over random draws of eight seeds (the same eight for both ranges, as in the chapter).

    python -m benchmarks.learning.clip_range                  # 96 runs: 8 minutes with --workers 1
    python -m benchmarks.learning.clip_range --seeds 0 1 --workers 1 --out two_seeds.json
    python -m benchmarks.learning.clip_range --table          # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import sweep_main

RESULTS = Path(__file__).resolve().parents[1] / "results" / "clip_range.json"
CLIP_RANGES = ["0.1", "0.2"]
#: The seeds the chapter's eight runs per range take at each ``RLKIT_SEED_OFFSET`` the book was checked at.
DEFAULT_SEEDS = [offset + seed for offset in (0, 1000, 2000, 3000) for seed in range(12)]
#: The chapter's runs per range, and how many random draws of that many seeds estimate its failure rates.
CHAPTER_SEEDS, DRAWS = 8, 40_000
GAP = 1.8  # the source notes' claim: 0.2 is 1.8x faster


def run_one(task: tuple[str, int, int | None]) -> dict:
    """One run of the chapter's call: steps to the first solving evaluation (None: never solved)."""
    import rlkit

    clip_range, seed, steps = task
    start = time.process_time()
    run = rlkit.train(
        "ppo", env="CartPole-v1", seed=seed, clip_range=float(clip_range), stop_when_solved=True,
        progress=False, eval_every=5_000, **({} if steps is None else {"total_steps": steps}),
    )  # fmt: skip
    return {
        "clip_range": clip_range, "seed": seed, "solved_at_step": run.solved_at_step, "steps": run.steps,
        "cpu_s": time.process_time() - start,
    }  # fmt: skip


def counted_steps(run: dict) -> int:
    """Steps to the first solving evaluation, or the whole budget for a run that never solved (the chapter's)."""
    return run["solved_at_step"] or run["steps"]


def chapter_checks(steps: np.ndarray, solved: np.ndarray) -> dict[str, bool]:
    """Chapter 22's three asserts on one draw: ``steps`` and ``solved`` are (2, seeds) arrays, row 0 the 0.1
    runs, row 1 the 0.2 runs (a run that never solved counted with its whole budget)."""
    single = (steps[0][:, None] / steps[1][None, :]).ravel()
    return {
        "each range solves all but two": bool(solved.sum(axis=1).min() >= len(steps[0]) - 2),
        f"mean ratio below {GAP}": bool(steps[0].mean() / steps[1].mean() < GAP),
        f"some pairing {GAP}x apart": bool(single.max() >= GAP or single.min() <= 1 / GAP),
    }


def failure_rates(document: dict, draws: int = DRAWS, seed: int = 0) -> dict[str, float]:
    """The share of random draws of :data:`CHAPTER_SEEDS` seeds (without replacement, the same seeds for both
    ranges) on which each of the chapter's asserts fails, and on which any of them does."""
    by_seed = {(run["clip_range"], run["seed"]): run for run in document["runs"]}
    seeds = sorted({seed for clip_range, seed in by_seed if all((c, seed) in by_seed for c in CLIP_RANGES)})
    runs = [[by_seed[c, seed] for seed in seeds] for c in CLIP_RANGES]
    steps = np.array([[counted_steps(run) for run in row] for row in runs], dtype=float)
    solved = np.array([[run["solved_at_step"] is not None for run in row] for row in runs])
    rng = np.random.default_rng(seed)
    failed: dict[str, int] = {}
    any_failed = 0
    for _ in range(draws):
        drawn = rng.choice(len(seeds), size=min(CHAPTER_SEEDS, len(seeds)), replace=False)
        checks = chapter_checks(steps[:, drawn], solved[:, drawn])
        for name, held in checks.items():
            failed[name] = failed.get(name, 0) + (not held)
        any_failed += not all(checks.values())
    return {**{name: count / draws for name, count in failed.items()}, "any": any_failed / draws}


def markdown_table(document: dict) -> str:
    """Per clip range: runs, solved, steps to solve; then the chapter's failure rates over random draws."""
    lines = [
        "| clip range | runs | solved | median steps to 475 | mean steps (never solved: its budget) |",
        "|---|---|---|---|---|",
    ]
    for clip_range in CLIP_RANGES:
        runs = [run for run in document["runs"] if run["clip_range"] == clip_range]
        at = np.array([run["solved_at_step"] for run in runs if run["solved_at_step"] is not None])
        counted = np.array([counted_steps(run) for run in runs])
        median = f"{np.median(at):,.0f}" if len(at) else "-"
        lines.append(f"| {clip_range} | {len(runs)} | {len(at)} | {median} | {counted.mean():,.0f} |")
    rates, drawn = failure_rates(document), min(CHAPTER_SEEDS, len(runs))
    lines.append(f"\nChapter 22's asserts over {DRAWS:,} random draws of {drawn} seeds, share that fail:")
    lines += [f"- {name}: {rate:.3%}" for name, rate in rates.items()]
    return "\n".join(lines)


def report(run: dict) -> str:
    at = run["solved_at_step"]
    return f"clip {run['clip_range']} seed {run['seed']:>4}: " + (f"solved at {at:,}" if at else "never solved")


def main() -> None:
    header = {"claim": "C19", "algo": "ppo", "framework": "torch", "env": "CartPole-v1", "settings": CLIP_RANGES}
    sweep_main(
        __doc__, RESULTS, "clip_range", CLIP_RANGES, run_one, markdown_table, report, header, None, DEFAULT_SEEDS
    )


if __name__ == "__main__":
    main()
