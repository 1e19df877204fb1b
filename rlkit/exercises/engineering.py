"""Checks for the exercises of the engineering chapters: a reproducible rollout (40), a standardisation
without a NaN gradient (41). torch is imported inside the check that needs it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rlkit.exercises.base import ExerciseError, exercise_check, passed


@exercise_check
def check_seeded_rollout(seeded_rollout: Callable) -> None:
    """Check ``seeded_rollout(seed) -> (first_states, actions)`` (chapter 40's exercise): three episodes of
    random actions on CartPole, returned as the first state of each episode and every action taken.

    The same seed must give the same rollout twice; another seed another one; and the three episodes must
    start in three different states (a seed passed to every ``reset`` restarts them all in one place).
    """
    first = seeded_rollout(0)
    if first is None:
        raise ExerciseError("seeded_rollout returned None: did you forget the `return`?")
    starts, actions = (np.asarray(part) for part in first)
    again_starts, again_actions = (np.asarray(part) for part in seeded_rollout(0))
    if not np.array_equal(starts, again_starts):
        raise ExerciseError("the same seed gave different first states: pass the seed to the first env.reset.")
    if not np.array_equal(actions, again_actions):
        raise ExerciseError(
            "the same seed gave different actions: env.reset(seed=...) does not seed the action space; "
            "call env.action_space.seed(seed) too."
        )
    if len(starts) != 3:
        raise ExerciseError(f"expected the first states of 3 episodes, got {len(starts)}.")
    if len({np.asarray(s).tobytes() for s in starts}) < 3:
        raise ExerciseError(
            "two episodes start in the same state: pass the seed to the first reset only; later resets "
            "continue the environment's generator."
        )
    other_starts, other_actions = (np.asarray(part) for part in seeded_rollout(1))
    if np.array_equal(starts, other_starts) or np.array_equal(actions, other_actions):
        raise ExerciseError("seeds 0 and 1 gave the same rollout: use the seed you are given, not a constant.")
    passed("check_seeded_rollout", 5)


@exercise_check
def check_standardize(standardize: Callable) -> None:
    """Check ``standardize(x)`` (torch tensors in and out): zero mean and unit spread for ordinary inputs,
    and a finite gradient when every input is equal (the case where ``sqrt(var) + eps`` gives NaN)."""
    import torch

    rng = np.random.default_rng(0)
    x = torch.tensor(rng.normal(3.0, 2.0, size=64).astype(np.float32), requires_grad=True)
    out = standardize(x)
    if out is None:
        raise ExerciseError("standardize returned None: did you forget the `return`?")
    if tuple(out.shape) != (64,):
        raise ExerciseError(f"standardize returned shape {tuple(out.shape)}; expected the input's shape (64,).")
    mean, spread = float(out.detach().mean()), float(out.detach().std(unbiased=False))
    if abs(mean) > 1e-4 or abs(spread - 1) > 1e-3:
        raise ExerciseError(
            f"the output has mean {mean:.4f} and spread {spread:.4f}; subtract the mean and divide by the "
            "standard deviation (the population one, dividing by n)."
        )
    if not out.requires_grad:
        raise ExerciseError("the output has no gradient: keep the computation in torch (no .numpy(), no detach).")
    constant = torch.full((64,), 0.5, requires_grad=True)
    result = standardize(constant)
    (result * torch.arange(64.0)).sum().backward()
    if not bool(torch.isfinite(result).all()):
        raise ExerciseError("for equal inputs the output is not finite: add an epsilon so you never divide by 0.")
    if constant.grad is None or not bool(torch.isfinite(constant.grad).all()):
        raise ExerciseError(
            "for equal inputs the gradient is NaN: the square root's slope at 0 is infinite. Put the epsilon "
            "inside the root, sqrt(var + eps), not after it."
        )
    passed("check_standardize", 5)
