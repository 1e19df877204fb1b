"""Checks for the exercises of the continuous-control chapters (30-33)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from course.exercises.base import ExerciseError, answer, exercise_check, known, name_the_mistake


@exercise_check
def check_polyak_update(polyak_update: Callable) -> None:
    """Check ``polyak_update(target, online, tau) -> new_target`` (chapter 30): target + tau (online - target)."""
    target, online, tau = polyak_update_inputs()
    expected = known("polyak_update")
    result = answer("polyak_update", polyak_update(target, online, tau), (4, 3))
    if np.allclose(result, expected["wrong network"]):
        raise ExerciseError(
            "tau weighs the wrong network: the *target* keeps 1 - tau of itself and takes tau of online."
        )
    if np.allclose(result, online):
        raise ExerciseError("that is a hard copy of the online network; a Polyak update moves only a fraction tau.")
    if not np.allclose(result, expected["answer"]):
        raise ExerciseError("expected (1 - tau) * target + tau * online.")
    full_step = polyak_update(np.zeros(2), np.ones(2), 1.0)
    if full_step is None or not np.allclose(full_step, 1.0):
        raise ExerciseError("with tau = 1 a Polyak update must equal a hard copy of the online weights.")


def polyak_update_inputs() -> tuple:
    """(target, online, tau): two 4 x 3 weight arrays and tau 0.05."""
    rng = np.random.default_rng(3)
    return rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), 0.05


@exercise_check
def check_smoothed_target_action(smoothed_target_action: Callable) -> None:
    """Check ``smoothed_target_action(target_action, noise, sigma, noise_clip) -> action`` (chapter 31).

    TD3's target policy smoothing: ``clip(target_action + clip(sigma * noise, -noise_clip, noise_clip), -1, 1)``
    with ``noise`` standard normal.
    """
    stored = known("smoothed_target_action")
    result = answer("smoothed_target_action", smoothed_target_action(*smoothed_target_action_inputs()), (4, 1))
    mistakes = {
        "noise not clipped": "clip the noise itself to [-noise_clip, noise_clip] before adding it: rows 3 and 4.",
        "action not clipped": "the smoothed action must stay a valid action: clip it to [-1, 1] (row 2).",
        "noise not scaled": "scale the standard-normal noise by sigma before clipping it.",
    }
    name_the_mistake(result, stored, mistakes)
    if not np.allclose(result, stored["answer"]):
        expected = stored["answer"].ravel().tolist()
        raise ExerciseError(f"expected {expected}, got {np.round(result, 3).ravel().tolist()}.")


def smoothed_target_action_inputs() -> tuple:
    """(target_action, noise, sigma, noise_clip): row 2 near the bound, rows 3 and 4 with large noise."""
    target_action, noise = np.array([[0.0], [0.95], [-0.5], [0.2]]), np.array([[0.5], [1.0], [-4.0], [3.0]])
    return target_action, noise, 0.2, 0.5


@exercise_check
def check_squashed_log_prob(squashed_log_prob: Callable) -> None:
    """Check ``squashed_log_prob(pre_tanh, mean, log_std) -> (B,)`` (chapter 32): log pi of a = tanh(u).

    The Gaussian log-density of ``u`` summed over dimensions, minus ``sum log(1 - tanh(u)^2)``.
    """
    stored = known("squashed_log_prob")
    result = answer("squashed_log_prob", squashed_log_prob(*squashed_log_prob_inputs()), (5,))
    if np.allclose(result, stored["gaussian"]):
        raise ExerciseError(
            "that is the Gaussian's log-density of u; a = tanh(u) squeezes it, so subtract sum log(1 - tanh(u)^2)."
        )
    if np.allclose(result, stored["wrong sign"]):
        raise ExerciseError("the correction has the wrong sign: log pi(a) = log N(u) - sum log(1 - tanh(u)^2).")
    if not np.isfinite(result).all():
        raise ExerciseError(
            "a saturated tanh (row 5) gives log(0): use log(1 - tanh(u)^2) = 2 (log 2 - u - softplus(-2u))."
        )
    if not np.allclose(result, stored["answer"], rtol=1e-4, atol=1e-3):
        raise ExerciseError(f"expected {np.round(stored['answer'], 3).tolist()}, got {np.round(result, 3).tolist()}.")


def squashed_log_prob_inputs() -> tuple:
    """(pre_tanh, mean, log_std) of 5 two-dimensional actions; row 5 saturated (1 - tanh(u)^2 ~ 1e-5, 3e-6)."""
    rng = np.random.default_rng(4)
    mean, log_std = rng.normal(size=(5, 2)), rng.normal(size=(5, 2)) * 0.3
    pre_tanh = mean + np.exp(log_std) * rng.normal(size=(5, 2))
    pre_tanh[4] = [6.0, -7.0]
    return pre_tanh, mean, log_std


@exercise_check
def check_first_crossing(first_crossing: Callable) -> None:
    """Check ``first_crossing(steps, returns, threshold) -> step or None`` (chapter 33): the first step whose
    evaluation return reached the threshold."""
    steps = np.array([1_000, 2_000, 3_000, 4_000, 5_000])
    cases = [
        (np.array([-900.0, -400.0, -199.0, -250.0, -150.0]), -200.0, 3_000),
        (np.array([-900.0, -400.0, -200.0, -150.0, -140.0]), -200.0, 3_000),
        (np.array([-900.0, -800.0, -700.0, -600.0, -500.0]), -200.0, None),
        (np.array([-100.0, -400.0, -300.0, -250.0, -150.0]), -200.0, 1_000),
    ]
    for returns, threshold, expected in cases:
        result = first_crossing(steps, returns, threshold)
        if expected is None and result is not None:
            raise ExerciseError(f"no evaluation reached {threshold}, so return None (got {result}).")
        if expected is not None and result is None:
            raise ExerciseError(f"returns {returns.tolist()} reach {threshold} at step {expected}; you returned None.")
        if expected is not None and int(result) != expected:
            strictly_above = next((int(s) for s, r in zip(steps, returns, strict=True) if r > threshold), None)
            hint = " (>= counts: reaching the threshold exactly is solving it)" if result == strictly_above else ""
            raise ExerciseError(f"returns {returns.tolist()}: expected step {expected}, got {result}{hint}.")
