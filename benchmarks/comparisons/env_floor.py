"""Benchmark: how fast rlkit could solve at all: the environment's own steps, against SB3's time to solve.

Issue 17 asks for a time to solve ten times shorter than Stable-Baselines3's. No learner can be faster than
the environment steps it takes, so for each pair this prints a floor: the CPU time of the environment alone
(``gymnasium.make``, random actions, no acting, learning or evaluation) for rlkit's median steps to solve,
and for SB3's, beside a tenth of SB3's median CPU time to solve. Where the floor is above that tenth, 10x is
out of reach at that sample efficiency, however cheap the learner. (The floor is low: a vector environment
adds its own cost per step, and so does evaluating, which both libraries count.)

SB3's times come from a file that ``benchmarks/comparisons/compare_sb3.py`` wrote; measure it on this machine
(``--libraries sb3``), since environment steps and SB3 run 2-3x apart between machines of this kind. rlkit's
steps to solve come from the committed ``benchmarks/results/compare_sb3.json`` (steps do not depend on the
machine's speed).

    python -m benchmarks.comparisons.compare_sb3 --libraries sb3 --pairs a2c:CartPole-v1 a2c:Acrobot-v1 \\
        ppo:CartPole-v1 ppo:Acrobot-v1 --max-steps 40000 --out sb3_here.json
    python -m benchmarks.comparisons.env_floor --sb3 sb3_here.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from benchmarks.comparisons.compare_sb3 import RESULTS, machine, summarize

#: Environment steps timed per block, and blocks (the median block is reported).
BLOCK, BLOCKS = 5_000, 5


def env_us_per_step(env_id: str) -> float:
    """CPU microseconds per ``step`` of ``gymnasium.make(env_id)`` with random actions, resets included."""
    env = gym.make(env_id)
    env.reset(seed=0)
    actions = [env.action_space.sample() for _ in range(BLOCK)]
    blocks = []
    for _ in range(BLOCKS):
        start = time.process_time()
        for action in actions:
            _, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                env.reset()
        blocks.append(1e6 * (time.process_time() - start) / BLOCK)
    env.close()
    return float(np.median(blocks))


def floors(sb3_runs: list[dict], rlkit_runs: list[dict]) -> list[dict]:
    """One row per pair SB3 solved on most seeds (a median to solve; an unsolved run counts as slowest): its
    median CPU s and steps to solve, rlkit's fewest median steps of the two frameworks, and the environment's
    CPU s for either number of steps."""
    sb3 = {(r["algo"], r["env"]): r for r in summarize(sb3_runs) if r["library"] == "sb3"}
    rlkit: dict[tuple[str, str], list[float]] = {}
    for row in summarize(rlkit_runs):
        if row["library"] == "rlkit" and row["median_steps_to_solve"] is not None:
            rlkit.setdefault((row["algo"], row["env"]), []).append(row["median_steps_to_solve"])
    rows, step_cost = [], {}
    for (algo, env_id), theirs in sorted(sb3.items()):
        if theirs["median_cpu_s_to_solve"] is None or (algo, env_id) not in rlkit:
            continue
        if env_id not in step_cost:
            step_cost[env_id] = env_us_per_step(env_id)
        us, mine = step_cost[env_id], min(rlkit[algo, env_id])
        rows.append({
            "algo": algo, "env": env_id, "seeds": theirs["seeds"], "solved": theirs["solved"],
            "env_us_per_step": us,
            "sb3_cpu_s": theirs["median_cpu_s_to_solve"], "sb3_steps": theirs["median_steps_to_solve"],
            "rlkit_steps": mine, "floor_rlkit_s": us * mine / 1e6,
            "floor_sb3_s": us * theirs["median_steps_to_solve"] / 1e6,
        })  # fmt: skip
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "| pair | env us/step | SB3 solved, median CPU s to solve (steps) | a tenth | env alone, rlkit's steps "
        "| env alone, SB3's steps | 10x possible at rlkit's steps |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        tenth = r["sb3_cpu_s"] / 10
        cells = [
            f"{r['algo'].upper()}, {r['env']}", f"{r['env_us_per_step']:.1f}",
            f"{r['solved']}/{r['seeds']}, {r['sb3_cpu_s']:.2f} ({r['sb3_steps']:,.0f})", f"{tenth:.2f}",
            f"{r['floor_rlkit_s']:.2f} ({r['rlkit_steps']:,.0f})", f"{r['floor_sb3_s']:.2f}",
            "no" if r["floor_rlkit_s"] >= tenth else f"only if learning costs under {tenth - r['floor_rlkit_s']:.2g} s",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sb3", type=Path, default=RESULTS, help="a compare_sb3.py file with SB3's runs")
    args = parser.parse_args()
    sb3_file, rlkit_file = json.loads(args.sb3.read_text()), json.loads(RESULTS.read_text())
    print(f"SB3's runs: {args.sb3.name}, measured on {sb3_file['machine']}")
    print(f"rlkit's steps: {RESULTS.name}; environments timed on {machine()}")
    print(markdown_table(floors(sb3_file["runs"], rlkit_file["runs"])))


if __name__ == "__main__":
    main()
