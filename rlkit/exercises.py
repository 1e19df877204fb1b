"""Checks for the chapters' exercises: each ``check_*`` runs a student's function on cases chosen to catch
the usual mistakes, and says *what* is wrong and how to fix it, not just that something is.

A failed check raises :class:`ExerciseError` (an ``AssertionError``), so a notebook run stops there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class ExerciseError(AssertionError):
    """A check failed; the message explains the mistake."""


def _passed(name: str, count: int) -> None:
    print(f"{name}: all {count} checks passed.")


def check_td_target(td_target: Callable) -> None:
    """Check ``td_target(rewards, next_q, terminated, gamma) -> targets`` (chapter 10).

    ``next_q`` holds the target network's Q-values of the next observation for every action, shape
    ``(B, n_actions)``; the answer is ``r + gamma * (1 - terminated) * max_a next_q`` of shape ``(B,)``.
    """
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=5).astype(np.float32)
    next_q = rng.normal(size=(5, 3)).astype(np.float32)
    terminated = np.array([0, 0, 1, 0, 1], dtype=np.float32)
    gamma = 0.9
    expected = rewards + gamma * (1 - terminated) * next_q.max(axis=1)

    result = td_target(rewards, next_q, terminated, gamma)
    if result is None:
        raise ExerciseError("td_target returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape == (5, 5):
        raise ExerciseError(
            "your targets have shape (5, 5): a (B,) array met a (B, 1) one and broadcast to (B, B) without "
            "any error (claim C08). Take the max over actions without keepdims, so it has shape (B,)."
        )
    if result.shape == (5, 1):
        raise ExerciseError("your targets have shape (5, 1); DQN expects (5,): squeeze the action axis.")
    if result.shape != (5,):
        raise ExerciseError(f"your targets have shape {result.shape}; expected one target per sample, (5,).")
    done = terminated == 1
    if not np.allclose(result[done], rewards[done], atol=1e-6):
        raise ExerciseError(
            "at a terminal transition the target must be the reward alone: multiply the bootstrap term by "
            "(1 - terminated). (A truncated transition, by contrast, keeps its bootstrap.)"
        )
    if np.allclose(result, rewards + (1 - terminated) * next_q.max(axis=1), atol=1e-6):
        raise ExerciseError("the bootstrap term is not discounted: multiply it by gamma.")
    for wrong, reduction in (
        (next_q.mean(axis=1), "mean"),
        (next_q.min(axis=1), "min"),
        (next_q[:, 0], "first"),
    ):
        if np.allclose(result, rewards + gamma * (1 - terminated) * wrong, atol=1e-6):
            raise ExerciseError(
                f"you used the {reduction} of the next Q-values; the target uses the best next action: max over axis 1."
            )
    if not np.allclose(result, expected, atol=1e-5):
        raise ExerciseError(
            f"targets differ from r + gamma * (1 - terminated) * max_a Q(s', a): got {result}, expected {expected}."
        )
    if td_target(rewards[:1], next_q[:1], terminated[:1], gamma).shape != (1,):
        raise ExerciseError(
            "with a batch of one, the result must still have shape (1,): avoid .squeeze() without an axis."
        )
    _passed("check_td_target", 6)


def check_bootstrap_mask(bootstrap_mask: Callable) -> None:
    """Check ``bootstrap_mask(terminated, truncated) -> float32 mask`` (chapter 01)."""
    terminated = np.array([False, True, False, True])
    truncated = np.array([False, False, True, True])
    result = bootstrap_mask(terminated, truncated)
    if result is None:
        raise ExerciseError("bootstrap_mask returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape != (4,):
        raise ExerciseError(f"expected one factor per transition, shape (4,); got {result.shape}.")
    if result.dtype != np.float32:
        raise ExerciseError(f"return float32 (the dtype of the rewards it multiplies), got {result.dtype}.")
    if result[2] == 0:
        raise ExerciseError(
            "transition 2 was truncated, not terminated: its last state still has a future, so it must keep "
            "bootstrapping (factor 1). Only `terminated` stops bootstrapping (claim C10)."
        )
    if not np.array_equal(result, [1, 0, 1, 0]):
        raise ExerciseError(f"expected [1, 0, 1, 0] (0 exactly where terminated), got {result.tolist()}.")
    _passed("check_bootstrap_mask", 4)
