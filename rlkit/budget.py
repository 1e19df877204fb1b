"""A budget far beyond what a run can finish is said at its start, with the time it would take.

``total_steps=10**12`` (a typo, or a budget copied from a paper's total over many machines) used to start
with only a progress bar's ETA of a million hours. A run asked for more than :data:`LARGE` steps is timed over
its first :data:`FIRST_STEPS` steps and then warns (:class:`BudgetWarning`) with the time the rest would take at
that rate and the replay memory it holds; it goes on, since a long run may be meant.
"""

from __future__ import annotations

import time
import warnings

from rlkit.disk_space import array_bytes, mib

#: Budgets above this many environment steps are timed and warned about.
LARGE = 10**9
#: The steps whose rate estimates the run's time.
FIRST_STEPS = 2_000


class BudgetWarning(UserWarning):
    """A step budget that would take far longer than a run usually lasts."""


class LargeBudget:
    """Times the first :data:`FIRST_STEPS` steps of a run towards ``until`` and warns once at ``self.at``."""

    def __init__(self, loop, until: int) -> None:
        self.until, self.first, self.at, self.start = until, loop.step, loop.step + FIRST_STEPS, time.perf_counter()

    def warn(self, loop) -> None:
        rate = (loop.step - self.first) / max(time.perf_counter() - self.start, 1e-9)
        hours = (self.until - loop.step) / rate / 3600
        buffer = getattr(loop, "buffer", None)
        kind = "replay" if hasattr(buffer, "sample") else "rollout"  # a replay loop's, or PPO's and A2C's
        memory = f"; its {kind} buffer holds {mib(array_bytes(buffer))}" if buffer is not None else ""
        warnings.warn(
            f"total_steps={self.until:,} at {rate:,.0f} steps/s (the first {loop.step - self.first:,} steps) would "
            f"take about {describe_hours(hours)}{memory}: ask for fewer steps (total_steps= / --steps), or let it "
            "run and stop it with Ctrl-C, which saves it resumable",
            BudgetWarning,
            stacklevel=4,
        )


def watch(loop, until: int) -> LargeBudget | None:
    """A :class:`LargeBudget` when ``until`` is more than :data:`LARGE` steps ahead, else None (no cost)."""
    return LargeBudget(loop, until) if until - loop.step > LARGE else None


def describe_hours(hours: float) -> str:
    if hours >= 24 * 365:
        return f"{hours / (24 * 365):,.0f} years"
    if hours >= 48:
        return f"{hours / 24:,.0f} days"
    return f"{hours:,.1f} hours"
