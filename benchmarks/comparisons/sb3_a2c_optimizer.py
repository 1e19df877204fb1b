"""Benchmark: why Stable-Baselines3's A2C solves CartPole in fewer steps than rlkit's did: its optimiser.

SB3's A2C steps with RMSprop (``torch.optim.RMSprop``, alpha 0.99, epsilon 1e-5), rlkit's stepped with Adam.
RMSprop's average of squared gradients starts at zero and nothing corrects that start, so a weight's first
step is ten times the step size, shrinking to it over a few hundred updates; Adam divides the start away
(bias correction). This script trains SB3's A2C with the RL Zoo's CartPole settings three ways, only the
optimiser changed, and records the first evaluation that solved (475 over 10 episodes, every 5,000 steps, on
``compare_sb3.py``'s schedule and episode seeds):

* ``rmsprop``: SB3's own (its default, the zoo's setting);
* ``adam``: ``use_rms_prop=False``, SB3's Adam (betas 0.9 and 0.999, and the epsilon SB3 gives it, 1e-5);
* ``adam_no_momentum``: Adam with no average of gradients (beta 1 = 0) and RMSprop's 0.99 and 1e-5: RMSprop
  with its start corrected, the one difference left.

If ``adam_no_momentum`` is as slow as ``adam``, the momentum is not what makes RMSprop quick here; its start is.
Each run stops at ``--steps`` (50,000: SB3's slowest seeds of the comparison solved later, and are counted
unsolved here). Writes ``results/sb3_a2c_optimizer.json``.

    python -m benchmarks.comparisons.sb3_a2c_optimizer                 # seeds 0-9, two workers
    python -m benchmarks.comparisons.sb3_a2c_optimizer --table         # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import sweep_main
from benchmarks.comparisons.compare_sb3 import median_with_unsolved, run_sb3

RESULTS = Path(__file__).resolve().parents[1] / "results" / "sb3_a2c_optimizer.json"
OPTIMIZERS = ("rmsprop", "adam", "adam_no_momentum")
STEPS = 50_000
EVAL_EVERY = 5_000
THRESHOLD = 475.0


def sb3_overrides(optimizer: str) -> dict:
    """The zoo settings each optimiser changes (none for SB3's own RMSprop)."""
    import torch

    if optimizer == "rmsprop":
        return {}
    if optimizer == "adam":
        return {"use_rms_prop": False}
    kwargs = {"betas": (0.0, 0.99), "eps": 1e-5}
    return {"policy_kwargs": {"optimizer_class": torch.optim.Adam, "optimizer_kwargs": kwargs}}


def run_one(task: tuple[str, int, int]) -> dict:
    """One (optimiser, seed) run: every evaluation's mean return, and the first that solved."""
    import torch

    torch.set_num_threads(1)
    optimizer, seed, steps = task
    start = time.process_time()
    curve, _ = run_sb3("a2c", "CartPole-v1", seed, EVAL_EVERY, steps, sb3_overrides(optimizer))
    points = [(int(step), float(mean)) for step, _, _, mean in curve.points]
    first = next((step for step, mean in points if mean >= THRESHOLD), None)
    return {"optimizer": optimizer, "seed": seed, "steps": steps, "first_solved_at": first,
            "eval_steps": [step for step, _ in points], "eval_returns": [mean for _, mean in points],
            "cpu_s": round(time.process_time() - start, 2)}  # fmt: skip


def markdown_table(document: dict) -> str:
    """One row per optimiser: median first solve (unsolved runs counted as never), the first evaluation's
    returns, the runs unsolved within the budget."""
    lines = [
        "| SB3's A2C optimiser | seeds | median first solve | solved by 10,000 | unsolved by "
        f"{document['steps']:,} | median return at {EVAL_EVERY:,} steps |",
        "|---|---|---|---|---|---|",
    ]
    for optimizer in OPTIMIZERS:
        runs = [run for run in document["runs"] if run["optimizer"] == optimizer]
        if not runs:
            continue
        firsts = [run["first_solved_at"] for run in runs]
        median = median_with_unsolved(firsts)
        early = sum(first is not None and first <= 10_000 for first in firsts)
        cells = [
            optimizer, str(len(runs)), "unsolved" if median is None else f"{median:,.0f}", f"{early} of {len(runs)}",
            str(firsts.count(None)), f"{np.median([run['eval_returns'][0] for run in runs]):.0f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(run: dict) -> str:
    first = "unsolved" if run["first_solved_at"] is None else f"{run['first_solved_at']:,}"
    return f"{run['optimizer']:>16} seed {run['seed']}: first solved at {first}, {run['cpu_s']:.0f} CPU s"


def main() -> None:
    header = {"algo": "a2c", "library": "sb3", "env": "CartPole-v1", "eval_every": EVAL_EVERY, "threshold": THRESHOLD}
    sweep_main(__doc__, RESULTS, "optimizer", list(OPTIMIZERS), run_one, markdown_table, report, header, STEPS)


if __name__ == "__main__":
    main()
