"""Statistics over seeds, for the verdicts that rest on a committed benchmark's runs (chapters 10, 12, 23, 90).

A chapter's three live seeds can show a clean effect that twenty do not (chapter 12's C07). Where variants are
trained on the same seeds, the runs pair up by seed, and the question a verdict asks is on how many seeds one
variant came out ahead. Where a return is summed up over seeds, it is the interquartile mean with a bootstrap
interval (Agarwal et al. 2021): robust to one seed's outlier, and honest about how few seeds there are.
"""

from __future__ import annotations

from math import comb

import numpy as np

from rlkit.errors import RlkitError


def sign_test_p_value(wins: int, seeds: int) -> float:
    """Two-sided exact sign test: how likely ``wins`` or a split at least as lopsided, of ``seeds`` paired runs,
    if each side were equally likely to win on every seed.

    Paired by seed (each variant trained on the same seeds), the test asks only which side won on each seed,
    so a few runs with extreme values (a poor policy makes its over-estimation share large) cannot decide it.
    """
    if not 0 <= wins <= seeds or seeds < 1:
        raise RlkitError(f"wins must lie in 0..seeds and seeds be >= 1, got {wins} of {seeds}")
    extreme = max(wins, seeds - wins)
    tail = sum(comb(seeds, k) for k in range(extreme, seeds + 1)) / 2**seeds
    return min(1.0, 2 * tail)


def iqm(values: np.ndarray) -> float | np.ndarray:
    """Interquartile mean along the last axis: the mean of the middle half, dropping ``int(n / 4)`` values at
    each end (as ``scipy.stats.trim_mean(values, 0.25)``, which rliable's ``aggregate_iqm`` calls); one per row
    of a 2-D array."""
    ordered = np.sort(np.asarray(values, dtype=np.float64), axis=-1)
    n = ordered.shape[-1]
    cut = int(0.25 * n)
    middle = ordered[..., cut : n - cut].mean(axis=-1)
    return float(middle) if middle.ndim == 0 else middle


def bootstrap_resamples(values: np.ndarray, draws: int, seed: int, size: int | None = None) -> np.ndarray:
    """``draws`` resamples of the 1-D ``values`` with replacement, one per row, each as long as ``values`` (or
    ``size``: an evaluation of fewer episodes than were played)."""
    length = len(values) if size is None else size
    return values[np.random.default_rng(seed).integers(0, len(values), size=(draws, length))]


def iqm_ci(values: np.ndarray, reps: int = 2_000, seed: int = 0) -> tuple[float, float, float]:
    """IQM over seeds and its 95% percentile-bootstrap interval, resampling seeds with replacement.

    rliable's stratified bootstrap resamples runs within each task; with one task per summary that is this.
    rliable itself is not used: rliable 1.2 needs arch < 8, and arch 7.2 fails to import with pandas 3.1.
    """
    values = np.asarray(values, dtype=np.float64)
    boot = iqm(bootstrap_resamples(values, reps, seed))
    low, high = np.percentile(boot, [2.5, 97.5])
    return float(iqm(values)), float(low), float(high)


def fresh_miss_chance(returns, threshold: float, draws: int = 2_000, seed: int = 0) -> float:
    """How likely the same agent would miss ``threshold`` on as many fresh episodes: the share of bootstrap
    resamples of its episode ``returns`` whose mean lies below it.

    A final agent is judged by the mean of a few episodes (20 in ``benchmarks/learning/endings.py``), and
    their starts are random: a Pendulum policy whose episodes spread by about 90 has a 20-episode mean that
    moves by about 20 from one set of starts to the next, so an agent at -170 ends "solved" (-200) on most
    sets and not on all. Summed over a configuration's seeds this is the number of misses a second
    evaluation would be expected to find, which tells a 10 of 10 that holds from one that was lucky.
    """
    returns = np.asarray(returns, dtype=np.float64)
    if returns.ndim != 1 or len(returns) == 0:
        raise RlkitError(f"returns must be one episode return per entry, got shape {returns.shape}")
    return float(np.mean(bootstrap_resamples(returns, draws, seed).mean(axis=1) < threshold))
