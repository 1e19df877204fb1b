"""Schedules: a value that changes with the training step (exploration epsilon, learning rate, PER beta).

A schedule is a callable ``schedule(step) -> float``; it also accepts a numpy array of steps, so a
notebook can plot a whole schedule in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rlkit.errors import RlkitError


@dataclass(frozen=True)
class LinearSchedule:
    """Goes linearly from ``start`` to ``end`` over ``duration`` steps after ``delay`` steps, then stays."""

    start: float
    end: float
    duration: int
    delay: int = 0

    def __post_init__(self) -> None:
        if self.duration <= 0:
            raise RlkitError(f"LinearSchedule needs duration > 0, got {self.duration}")
        if self.delay < 0:
            raise RlkitError(f"LinearSchedule needs delay >= 0, got {self.delay}")

    def __call__(self, step):
        fraction = np.clip((np.asarray(step, dtype=np.float64) - self.delay) / self.duration, 0.0, 1.0)
        value = self.start + fraction * (self.end - self.start)
        return float(value) if np.ndim(value) == 0 else value


@dataclass(frozen=True)
class LinearDecay:
    """``start * (1 - step / duration)``: from ``start`` to 0 over ``duration`` steps, then 0 (PPO's and A2C's
    annealing, written as their reference code computes it; LinearSchedule to 0 rounds differently)."""

    start: float
    duration: int

    def __post_init__(self) -> None:
        if self.duration <= 0:
            raise RlkitError(f"LinearDecay needs duration > 0, got {self.duration}")

    def __call__(self, step):
        remaining = 1.0 - np.clip(np.asarray(step, dtype=np.float64) / self.duration, 0.0, 1.0)
        value = self.start * remaining
        return float(value) if np.ndim(value) == 0 else value


@dataclass(frozen=True)
class ExponentialSchedule:
    """Multiplies by ``decay`` each step from ``start``, never going past ``end``."""

    start: float
    end: float
    decay: float

    def __post_init__(self) -> None:
        if not 0.0 < self.decay <= 1.0:
            raise RlkitError(f"ExponentialSchedule needs 0 < decay <= 1, got {self.decay}")

    def __call__(self, step):
        raw = self.start * self.decay ** np.asarray(step, dtype=np.float64)
        value = np.maximum(raw, self.end) if self.start >= self.end else np.minimum(raw, self.end)
        return float(value) if np.ndim(value) == 0 else value


@dataclass(frozen=True)
class ConstantSchedule:
    """Always ``value``: lets code take a schedule everywhere without special cases."""

    value: float

    def __call__(self, step):
        return float(self.value) if np.ndim(step) == 0 else np.full(np.shape(step), self.value)
