"""Benchmark for claim C16: do Q-spread, TD-error and action-entropy signals tell a diverging or a stuck DQN
run from a healthy one early? And how often would chapter 15's asserts fail on a reader's machine?

Chapter 15 trains three settings live on three seeds (plain DQN, TensorFlow, CartPole-v1, 5,000 steps): the
default, a target copied every 10 steps (it diverges) and a frozen target (it learns nothing). Its asserts
read the runs' logged signals: a divergence flagged (Q spread past 1 / (1 - gamma) = 100) before step 3,500
while the returns still look random, the healthy runs never flagged, the stuck runs calm but far below the
healthy ones, one action everywhere at the end of a diverging run (on at least one of the three seeds), and
the frozen target's actions not collapsed (the entropy averaged over the seeds). Another CPU rounds
differently, so a reader's three seeds are three other seeds. This script trains the chapter's runs on many
seeds (by default 36: 0-8, 1000-1008, 2000-2008 and 3000-3008, the seeds the chapter plays at
``RLKIT_SEED_OFFSET`` 0 to 3000), counts the seeds on which each per-seed assert holds, and estimates how
often the chapter fails over random draws of three seeds.

    python -m benchmarks.learning.health_signals                  # 108 runs: 6 minutes with --workers 1
    python -m benchmarks.learning.health_signals --seeds 0 --workers 1 --out one_seed.json
    python -m benchmarks.learning.health_signals --table          # the file's summary, as RESULTS.md shows it
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import sweep_main

RESULTS = Path(__file__).resolve().parents[1] / "results" / "health_signals.json"
#: Chapter 15's settings (DQNConfig overrides on top of plain DQN), by the names the file keeps.
SETTINGS: dict[str, dict] = {
    "healthy": {},
    "diverging": {"target_update": "hard", "target_update_every": 10},
    "stuck": {"target_update": "hard", "target_update_every": 10**9},
}
STEPS = 5_000
DEFAULT_SEEDS = [offset + seed for offset in (0, 1000, 2000, 3000) for seed in range(9)]
#: The chapter's seeds per setting, and how many random draws of that many seeds estimate its failure rate.
CHAPTER_SEEDS, DRAWS = 3, 40_000
Q_BOUND, FLAG_BY, RANDOM_PLAY = 100.0, 3_500, 50.0  # 1 / (1 - gamma); the chapter's step and return bounds
#: The chapter's entropy bounds: a diverging run's final entropy below COLLAPSED is one action everywhere; the
#: frozen target's mean entropy above NOT_COLLAPSED is no lasting collapse.
COLLAPSED, NOT_COLLAPSED = 0.05, 0.1
#: The names of the two per-seed checks the chapter judges over its seeds rather than per seed.
ONE_ACTION, NO_COLLAPSE = "diverging run ends on one action", f"stuck run's mean entropy above {NOT_COLLAPSED}"


def run_one(task: tuple[str, int, int]) -> dict:
    """One chapter run, kept as the signals its asserts read."""
    import rlkit
    from rlkit.algos.dqn import PLAIN_DQN

    setting, seed, steps = task
    start = time.process_time()
    result = rlkit.train(
        "dqn", env="CartPole-v1", framework="tf", seed=seed, total_steps=steps, progress=False,
        **{**PLAIN_DQN, **SETTINGS[setting]},
    )  # fmt: skip
    q_steps, q_std = result.history.series("q_std")
    over = np.flatnonzero(q_std > Q_BOUND)
    episode_steps, episode_returns = result.history.series("episode_return")
    entropy = result.history.series("action_entropy")[1]
    return {
        "setting": setting, "seed": seed, "steps": steps,
        "q_std_first_over_bound_at": int(q_steps[over[0]]) if len(over) else None,
        "q_std_max": float(q_std.max()), "q_std_final": float(q_std[-1]),
        "td_error_median_final": float(result.history.series("td_error_median")[1][-1]),
        "action_entropy_final": float(entropy[-1]), "action_entropy_mean": float(entropy.mean()),
        "eval_return_max": float(result.history.series("eval_return")[1].max()),
        "episode_steps": episode_steps.tolist(), "episode_returns": episode_returns.tolist(),
        "cpu_s": time.process_time() - start,
    }  # fmt: skip


def mean_return_until(run: dict, step: int) -> float:
    """A run's mean training-episode return over the episodes that ended by ``step`` (the chapter's)."""
    steps, returns = np.asarray(run["episode_steps"]), np.asarray(run["episode_returns"])
    return float(returns[steps <= step].mean())


def per_seed_checks(healthy: dict, diverging: dict, stuck: dict) -> dict[str, bool]:
    """Chapter 15's asserts on one seed's three runs."""
    flag = diverging["q_std_first_over_bound_at"]
    return {
        "healthy run never flagged": healthy["q_std_first_over_bound_at"] is None,
        f"divergence flagged before step {FLAG_BY:,}": flag is not None and flag < FLAG_BY,
        "returns still random-like when flagged": flag is not None
        and max(mean_return_until(diverging, flag), mean_return_until(healthy, flag)) < RANDOM_PLAY,
        "diverging TD error 100x the healthy one's": diverging["td_error_median_final"]
        > 100 * healthy["td_error_median_final"]
        and healthy["td_error_median_final"] < 1,
        "stuck run calm": stuck["q_std_max"] < Q_BOUND and stuck["td_error_median_final"] < 1,
        "stuck run below half the healthy best": stuck["eval_return_max"] < 0.5 * healthy["eval_return_max"],
        "stuck Q spread a tenth of the healthy one's": stuck["q_std_final"] < 0.1 * healthy["q_std_final"],
        ONE_ACTION: diverging["action_entropy_final"] < COLLAPSED,
        NO_COLLAPSE: stuck["action_entropy_mean"] > NOT_COLLAPSED,
    }


#: The two checks the chapter makes over its seeds rather than on each: a collapse on at least one seed, and
#: the frozen target's entropy averaged over the seeds.
OVER_SEEDS = (ONE_ACTION, NO_COLLAPSE)


def seed_summary(runs: dict[str, dict]) -> tuple[bool, float, float]:
    """What the chapter reads of one seed: its per-seed asserts all hold; the diverging run's final entropy;
    the stuck run's mean entropy."""
    checks = per_seed_checks(runs["healthy"], runs["diverging"], runs["stuck"])
    per_seed = all(held for name, held in checks.items() if name not in OVER_SEEDS)
    return per_seed, runs["diverging"]["action_entropy_final"], runs["stuck"]["action_entropy_mean"]


def draw_holds(summaries: np.ndarray) -> bool:
    """The chapter's verdict on the :func:`seed_summary` rows of one draw."""
    return bool(summaries[:, 0].all() and summaries[:, 1].min() < COLLAPSED and summaries[:, 2].mean() > NOT_COLLAPSED)


def by_seed(document: dict) -> list[dict[str, dict]]:
    """The seeds with all three settings' runs, each as {setting: run}, in seed order."""
    runs: dict[int, dict[str, dict]] = {}
    for run in document["runs"]:
        runs.setdefault(run["seed"], {})[run["setting"]] = run
    return [runs[seed] for seed in sorted(runs) if set(runs[seed]) == set(SETTINGS)]


def failure_rate(document: dict, draws: int = DRAWS, seed: int = 0) -> float:
    """The share of random draws of :data:`CHAPTER_SEEDS` seeds (without replacement) the chapter fails on."""
    summaries = np.array([seed_summary(runs) for runs in by_seed(document)], dtype=float)
    rng, size = np.random.default_rng(seed), min(CHAPTER_SEEDS, len(summaries))
    failed = sum(not draw_holds(summaries[rng.choice(len(summaries), size, replace=False)]) for _ in range(draws))
    return failed / draws


def markdown_table(document: dict) -> str:
    """Seeds on which each per-seed assert holds; the spread the chapter's bounds stand on; the failure rate."""
    seeds = by_seed(document)
    checks = [per_seed_checks(s["healthy"], s["diverging"], s["stuck"]) for s in seeds]
    lines = ["| chapter 15's check, per seed | seeds where it holds |", "|---|---|"]
    lines += [f"| {name} | {sum(c[name] for c in checks)} of {len(seeds)} |" for name in checks[0]]
    flags = [s["diverging"]["q_std_first_over_bound_at"] for s in seeds]
    flagged = sorted(f for f in flags if f is not None)
    entropy = [s["stuck"]["action_entropy_mean"] for s in seeds]
    lines.append(
        f"\nDiverging runs flagged at steps {flagged[0]:,} to {flagged[-1]:,} (median {np.median(flagged):,.0f}; "
        f"never on {flags.count(None)}); the stuck runs' mean action entropy {min(entropy):.3f} to {max(entropy):.3f}. "
        f"The chapter fails on {failure_rate(document):.2%} of {DRAWS:,} random draws of "
        f"{min(CHAPTER_SEEDS, len(seeds))} seeds."
    )
    return "\n".join(lines)


def report(run: dict) -> str:
    flag = run["q_std_first_over_bound_at"]
    return (
        f"{run['setting']:>9} seed {run['seed']:>4}: Q spread past {Q_BOUND:.0f} at {flag if flag else '-'}, "
        f"final entropy {run['action_entropy_final']:.2f}, best evaluation {run['eval_return_max']:.0f}"
    )


def main() -> None:
    header = {"claim": "C16", "algo": "dqn", "framework": "tf", "env": "CartPole-v1", "settings": SETTINGS}
    sweep_main(
        __doc__, RESULTS, "setting", list(SETTINGS), run_one, markdown_table, report, header, STEPS, DEFAULT_SEEDS
    )


if __name__ == "__main__":
    main()
