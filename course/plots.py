"""Plots for the book: learning curves and schedules, titled and labelled, with a legend naming each run."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rlkit.logger import History


def smooth(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing moving average, averaging fewer points at the start so the curve starts where the data does."""
    values = np.asarray(values, dtype=np.float64)
    if window <= 1 or len(values) == 0:
        return values
    cumsum = np.concatenate([[0.0], np.cumsum(values)])
    end = np.arange(1, len(values) + 1)
    start = np.maximum(end - window, 0)
    return (cumsum[end] - cumsum[start]) / (end - start)


def format_steps(ax) -> None:
    """Label the x axis in thousands of steps ("20k"), so long step counts never run into each other."""
    from matplotlib.ticker import FuncFormatter

    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x / 1000:g}k" if x else "0"))


def plot_learning_curves(
    runs: Mapping[str, History],
    metric: str = "episode_return",
    window: int = 10,
    threshold: float | None = None,
    title: str = "Learning curves",
    ax=None,
):
    """One line per run (label -> History) of ``metric`` against environment steps; returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    for label, history in runs.items():
        steps, values = history.series(metric)
        ax.plot(steps, smooth(values, window), label=label)
    if threshold is not None:
        ax.axhline(threshold, color="grey", linestyle="--", linewidth=1, label=f"solved ({threshold:g})")
    ax.set_title(title)
    ax.set_xlabel("environment steps")
    format_steps(ax)
    ax.set_ylabel(metric.replace("_", " ") + (f" (mean of {window})" if window > 1 else ""))
    ax.legend()
    ax.grid(alpha=0.3)
    return ax


def plot_schedule(schedule, total_steps: int, label: str = "value", title: str = "Schedule", ax=None):
    """Plot a schedule (callable on a step array) over ``total_steps``; returns the Axes."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3))
    steps = np.linspace(0, total_steps, 500)
    ax.plot(steps, schedule(steps), label=label)
    ax.set_title(title)
    ax.set_xlabel("environment steps")
    format_steps(ax)
    ax.set_ylabel(label)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    return ax
