"""Checks for the exercises of the policy-gradient chapters (20-23)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from course.exercises.base import ExerciseError, exercise_check, known, name_the_mistake, scalar


@exercise_check
def check_reward_to_go(reward_to_go: Callable) -> None:
    """Check ``reward_to_go(rewards, gamma) -> array`` (chapter 20): ``G_t = sum_k gamma^(k-t) r_k`` for k >= t."""
    rewards, gamma = reward_to_go_inputs()
    stored = known("reward_to_go")
    expected = stored["answer"]
    result = reward_to_go(rewards, gamma)
    if result is None:
        raise ExerciseError("reward_to_go returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape != rewards.shape:
        raise ExerciseError(f"return one value per step, shape {rewards.shape}; got {result.shape}.")
    if np.allclose(result, np.full(rewards.shape, expected[0])):
        raise ExerciseError("every step got the whole episode's return: step t should only count rewards from t on.")
    if np.allclose(result, np.cumsum(rewards)):
        raise ExerciseError("you summed the rewards *before* each step: the reward-to-go sums those from t onwards.")
    if np.allclose(result, stored["undiscounted"]):
        raise ExerciseError("the rewards are not discounted: multiply the reward k - t steps ahead by gamma^(k - t).")
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {expected.tolist()}, got {result.tolist()}.")


def reward_to_go_inputs() -> tuple:
    """One short episode's rewards and gamma 0.5."""
    return np.array([1.0, 0.0, 2.0, 3.0]), 0.5


@exercise_check
def check_a2c_policy_loss(policy_loss: Callable) -> None:
    """Check ``policy_loss(log_probs, advantages) -> float`` (chapter 21): ``-mean(log_probs * advantages)``."""
    log_probs, advantages = policy_loss_inputs()
    expected = float(known("policy_loss")["answer"])
    result = scalar("policy_loss", policy_loss(log_probs, advantages), "reduce over steps and environments")
    if np.isclose(result, -expected, atol=1e-5):
        raise ExerciseError("the sign is flipped: gradient *descent* on the loss must *increase* log pi(a|s) A.")
    if np.isclose(result, expected * log_probs.size, rtol=1e-4):
        raise ExerciseError(
            f"you summed over all {log_probs.size} samples: the gradient then grows with the number of environments "
            "and steps (claim C18). Average instead."
        )
    if any(np.isclose(result, expected * size, rtol=1e-4) for size in log_probs.shape):
        raise ExerciseError("you summed over one axis and averaged over the other: average over both.")
    if not np.isclose(result, expected, rtol=1e-4):
        raise ExerciseError(f"expected {expected:.4f}, got {result:.4f}.")


def policy_loss_inputs() -> tuple:
    """Log-probabilities and advantages of 8 steps x 4 environments."""
    rng = np.random.default_rng(1)
    log_probs = np.log(rng.uniform(0.1, 0.9, size=(8, 4))).astype(np.float32)
    return log_probs, rng.normal(size=(8, 4)).astype(np.float32)


@exercise_check
def check_clipped_surrogate(clipped_surrogate: Callable) -> None:
    """Check ``clipped_surrogate(ratio, advantages, clip) -> float`` (chapter 22): PPO's objective to maximise,
    ``mean(min(ratio * A, clip(ratio, 1 - clip, 1 + clip) * A))``."""
    ratio, advantages, clip = clipped_surrogate_inputs()
    stored = known("clipped_surrogate")
    expected = float(stored["answer"])
    result = scalar("clipped_surrogate", clipped_surrogate(ratio, advantages, clip), "the mean over the batch")
    if np.isclose(result, -expected, atol=1e-6):
        raise ExerciseError("the sign is flipped: return the objective to maximise; the loss is its negative.")
    if np.isclose(result, float(stored["clipped only"]), atol=1e-6):
        raise ExerciseError(
            "you return the clipped term alone: PPO takes the minimum of the clipped and the unclipped term, so "
            "a ratio that moved the *wrong* way (here 1.5 with A < 0) is not clipped and keeps its gradient."
        )
    if np.isclose(result, float(stored["maximum"]), atol=1e-6):
        raise ExerciseError("use the minimum of the two terms (a pessimistic bound), not the maximum.")
    if not np.isclose(result, expected, atol=1e-5):
        raise ExerciseError(f"expected {expected:.4f}, got {result:.4f}: check the clip bounds 1 - clip and 1 + clip.")


def clipped_surrogate_inputs() -> tuple:
    """(ratio, advantages, clip): ratios inside and outside [0.8, 1.2], advantages of both signs."""
    ratio = np.array([0.5, 0.9, 1.0, 1.3, 0.7, 1.5], dtype=np.float32)
    return ratio, np.array([1.0, 1.0, 2.0, 1.0, -1.0, -1.0], dtype=np.float32), 0.2


@exercise_check
def check_gaussian_log_prob(gaussian_log_prob: Callable) -> None:
    """Check ``gaussian_log_prob(actions, mean, log_std) -> (B,)`` (chapter 23): the diagonal Gaussian's
    log-density, summed over action dimensions."""
    actions, mean, log_std = gaussian_log_prob_inputs()
    stored = known("gaussian_log_prob")
    expected = stored["answer"]
    result = gaussian_log_prob(actions, mean, log_std)
    if result is None:
        raise ExerciseError("gaussian_log_prob returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape == (6, 3):
        raise ExerciseError(
            "you return one value per action dimension: a diagonal Gaussian's log-density is their sum."
        )
    if result.shape != (6,):
        raise ExerciseError(f"return one log-probability per sample, shape (6,); got {result.shape}.")
    mistakes = {
        "no log sigma": "the -log(sigma) term is missing: the density is divided by sigma in every dimension.",
        "no constant": "the constant -0.5 * log(2 pi) per dimension is missing (PPO's ratio would not mind; a "
        "reported log-probability or entropy would).",
        "not divided by sigma": "divide the deviation by sigma = exp(log_std) before squaring.",
    }
    name_the_mistake(result, stored, mistakes)
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {np.round(expected, 3).tolist()}, got {np.round(result, 3).tolist()}.")


def gaussian_log_prob_inputs() -> tuple:
    """(actions, mean, log_std): 6 samples of a 3-dimensional action, one log_std per dimension."""
    rng = np.random.default_rng(2)
    return rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), np.array([-0.5, 0.0, 0.3])
