"""Tests over seeds, for the verdicts that rest on a committed benchmark's runs (chapters 12 and 23).

A chapter's three live seeds can show a clean effect that twenty do not (chapter 12's C07). Where variants are
trained on the same seeds, the runs pair up by seed, and the question a verdict asks is on how many seeds one
variant came out ahead.
"""

from __future__ import annotations

from math import comb

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
