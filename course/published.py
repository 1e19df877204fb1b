"""Published MuJoCo results that chapter 60 sets the committed runs beside, each with where it was read.

A number from someone else's benchmark is only comparable when its measurement is known: which task version,
how many seeds, which returns (greedy evaluation episodes, or the training episodes, noise and all), and read
how (a table, the curve's own data, or by eye from a plot). Each :class:`Published` says all of it. None of
these runs used rlkit's exact settings; the notes say what differs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """One published result: ``returns`` maps environment steps to the mean return there."""

    who: str
    task: str  # the environment's version as published
    returns: dict[int, float]
    read_from: str  # "table", "curve data" (the plot's own numbers) or "plot, by eye"
    source: str  # repository, commit and file
    note: str


#: By (algorithm, task as rlkit trains it).
PUBLISHED: dict[tuple[str, str], list[Published]] = {
    ("ppo", "HalfCheetah-v5"): [
        Published(
            "CleanRL", "HalfCheetah-v4", {1_000_000: 1442.64}, "table",
            "vwxyzjn/cleanrl@35896b1 docs/benchmark/ppo_continuous_action.md",
            "rlkit's settings (ppo_continuous_action's defaults); 3 seeds, mean of the last 100 training episodes",
        ),
        Published(
            "CleanRL", "HalfCheetah-v4", {100_000: 450.0, 300_000: 1800.0}, "plot, by eye",
            "vwxyzjn/cleanrl docs/rl-algorithms/ppo/ppo_continuous_action_gymnasium_mujoco_v4.png",
            "the same runs' training-return curve",
        ),
        Published(
            "Spinning Up", "HalfCheetah-v3", {100_000: -60.0, 300_000: 559.0, 1_000_000: 1733.0}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_halfcheetah_performance.svg",
            "10 seeds, 4,000-step batches, 64x32 networks, no observation normalisation",
        ),
        Published(
            "RL Zoo", "HalfCheetah-v3", {1_000_000: 5819.1}, "table",
            "DLR-RM/rl-baselines3-zoo@61a0d13 benchmark.md",
            "tuned settings (256x256 ReLU networks, 512-step rollouts, learning rate 2e-5), one run, greedy episodes",
        ),
    ],
    ("ppo", "Hopper-v5"): [
        Published(
            "CleanRL", "Hopper-v4", {1_000_000: 2382.86}, "table",
            "vwxyzjn/cleanrl@35896b1 docs/benchmark/ppo_continuous_action.md",
            "rlkit's settings (ppo_continuous_action's defaults); 3 seeds, mean of the last 100 training episodes",
        ),
        Published(
            "CleanRL", "Hopper-v4", {100_000: 750.0, 300_000: 2100.0}, "plot, by eye",
            "vwxyzjn/cleanrl docs/rl-algorithms/ppo/ppo_continuous_action_gymnasium_mujoco_v4.png",
            "the same runs' training-return curve",
        ),
        Published(
            "Spinning Up", "Hopper-v3", {100_000: 249.0, 300_000: 517.0, 1_000_000: 1770.0}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_hopper_performance.svg",
            "10 seeds, 4,000-step batches, 64x32 networks, no observation normalisation",
        ),
        Published(
            "RL Zoo", "Hopper-v3", {1_000_000: 2410.4}, "table",
            "DLR-RM/rl-baselines3-zoo@61a0d13 benchmark.md",
            "tuned settings (256x256 ReLU networks, 512-step rollouts, gamma 0.999), one run, greedy episodes",
        ),
    ],
    ("sac", "HalfCheetah-v5"): [
        Published(
            "Spinning Up", "HalfCheetah-v3", {100_000: 6081.0, 300_000: 9163.0}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_halfcheetah_performance.svg",
            "10 seeds, 256x256, batches of 100, greedy test episodes every 10,000 steps",
        ),
        Published(
            "CleanRL", "HalfCheetah-v2", {100_000: 5500.0, 300_000: 7900.0}, "plot, by eye",
            "vwxyzjn/cleanrl docs/rl-algorithms/sac/HalfCheetah-v2.png",
            "256x256, critics' learning rate 1e-3, training episodes",
        ),
    ],
    ("td3", "HalfCheetah-v5"): [
        Published(
            "Fujimoto et al.", "HalfCheetah-v1", {100_000: 5513.5, 300_000: 7697.1, 1_000_000: 9566.6}, "curve data",
            "sfujim/TD3@34770cc learning_curves/HalfCheetah/TD3_HalfCheetah-v1_{0..9}.npy",
            "the TD3 paper's curves: 10 seeds, greedy evaluations of 10 episodes every 5,000 steps, 400x300, "
            "batches of 100, 10,000 random steps first",
        ),
        Published(
            "Spinning Up", "HalfCheetah-v3", {100_000: 5242.0, 300_000: 7625.0, 1_000_000: 9755.0}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_halfcheetah_performance.svg",
            "10 seeds, 256x256, batches of 100, greedy test episodes, smoothed over 11 evaluations",
        ),
        Published(
            "CleanRL", "HalfCheetah-v4", {1_000_000: 9583.22}, "table",
            "vwxyzjn/cleanrl@fe8d8a0 docs/benchmark/td3.md",
            "rlkit's settings (td3_continuous_action's defaults); 3 seeds, training episodes (with exploration noise)",
        ),
    ],
    ("sac", "Hopper-v5"): [
        Published(
            "Spinning Up", "Hopper-v3", {100_000: 1164.3, 300_000: 2887.0, 1_000_000: 3535.3}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_hopper_performance.svg",
            "10 seeds, 256x256, batches of 100, alpha fixed at 0.2, 10,000 random steps first, greedy test "
            "episodes, smoothed over 11 evaluations",
        ),
        Published(
            "CleanRL", "Hopper-v2", {100_000: 1400.0, 300_000: 2350.0}, "plot, by eye",
            "vwxyzjn/cleanrl docs/rl-algorithms/sac/Hopper-v2.png",
            "256x256, critics' learning rate 1e-3, 5,000 random steps first, 3 seeds, training episodes",
        ),
        Published(
            "CleanRL", "Hopper-v4", {1_000_000: 2310.46}, "table",
            "vwxyzjn/cleanrl@fe8d8a0 docs/benchmark/sac.md",
            "256x256, critics' learning rate 1e-3, 5,000 random steps first; 3 seeds, training episodes",
        ),
    ],
    ("td3", "Hopper-v5"): [
        Published(
            "Fujimoto et al.", "Hopper-v1", {100_000: 659.5, 300_000: 2410.3, 1_000_000: 3390.8}, "curve data",
            "sfujim/TD3@34770cc learning_curves/Hopper/TD3_Hopper-v1_{0..9}.npy",
            "the TD3 paper's curves: 10 seeds (at 100k from 25 to 2,790), greedy evaluations of 10 episodes "
            "every 5,000 steps, 400x300, batches of 100, 1,000 random steps first on Hopper",
        ),
        Published(
            "Spinning Up", "Hopper-v3", {100_000: 784.9, 300_000: 2402.3, 1_000_000: 2858.5}, "curve data",
            "openai/spinningup@038665d docs/images/plots/pyt/pytorch_hopper_performance.svg",
            "10 seeds, 256x256, batches of 100, 10,000 random steps first, greedy test episodes, smoothed over "
            "11 evaluations",
        ),
        Published(
            "CleanRL", "Hopper-v2", {100_000: 280.0, 300_000: 1400.0}, "plot, by eye",
            "vwxyzjn/cleanrl docs/rl-algorithms/td3/Hopper-v2.png",
            "rlkit's settings (td3_continuous_action's defaults: 25,000 random steps first); 3 seeds, training "
            "episodes (with exploration noise)",
        ),
        Published(
            "CleanRL", "Hopper-v4", {1_000_000: 3134.61}, "table",
            "vwxyzjn/cleanrl@fe8d8a0 docs/benchmark/td3.md",
            "rlkit's settings (td3_continuous_action's defaults); 3 seeds, training episodes (with exploration noise)",
        ),
    ],
}  # fmt: skip


#: The steps at which published curves are read, and the final column (a published run's 1M steps).
READ_AT = (100_000, 300_000)
FINAL = 1_000_000


def evaluation_at(run: dict, step: int) -> float | None:
    """A committed run's last evaluation at or before ``step``; None when it had none by then, or when the run
    ended before ``step`` (its last evaluation is at its end: a 150,000-step run has no value at 300,000)."""
    steps = run["eval_steps"]
    if not steps or steps[-1] < step:
        return None
    before = [value for at, value in zip(steps, run["eval_returns"], strict=True) if at <= step]
    return before[-1] if before else None


def beside_published(runs: list[dict], algo: str, task: str) -> list[tuple[str, list[float | None]]]:
    """One row per committed run of ``algo`` on ``task`` and per :data:`PUBLISHED` result: a label, then the
    return at each of :data:`READ_AT` and at the end (a committed run's final agent over 20 episodes, a
    published run's value at :data:`FINAL` steps); None where there is none."""
    rows = []
    for run in sorted(runs, key=lambda run: (run["framework"], run["seed"])):
        values = [evaluation_at(run, step) for step in READ_AT]
        rows.append((f"rlkit {run['framework']}, seed {run['seed']}", [*values, run["final_mean"]]))
    for ref in PUBLISHED[algo, task]:
        values = [ref.returns.get(step) for step in (*READ_AT, FINAL)]
        rows.append((f"{ref.who} {ref.task} ({ref.read_from})", values))
    return rows
