"""The Hugging Face course's mark for a LunarLander agent, and how likely an agent passes it (chapter 60).

The mark is the mean minus one standard deviation of a final agent's episode returns, at least 200. Over
twenty episodes a single crash (about -100 where a landing scores near 270) fails it, so whether an agent
passes depends on the draw of start states as much as on the agent: the chance of the mark is the share of
bootstrap draws of twenty of its episodes that pass.
"""

from __future__ import annotations

import numpy as np

from course.pitfalls.statistics import bootstrap_resamples

MARK = 200.0
#: Episodes the mark is taken over (the benchmarks' final evaluation).
EPISODES = 20


def passes_mark(returns) -> np.ndarray:
    """Whether mean - std of the returns reaches :data:`MARK`, along the last axis (one verdict per row)."""
    returns = np.asarray(returns, dtype=np.float64)
    return returns.mean(axis=-1) - returns.std(axis=-1) >= MARK


def chance_of_mark(returns, draws: int = 10_000, seed: int = 0) -> float:
    """The share of ``draws`` bootstrap draws of :data:`EPISODES` of ``returns`` (with replacement, as
    :func:`~course.pitfalls.statistics.fresh_miss_chance` draws) that pass the mark."""
    returns = np.asarray(returns, dtype=np.float64)
    return float(passes_mark(bootstrap_resamples(returns, draws, seed, size=EPISODES)).mean())
