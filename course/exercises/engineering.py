"""Checks for the exercises of the engineering chapters: a reproducible rollout (40), a standardisation
without a NaN gradient (41), the rescaling an exported policy carries (42), a frame rendered without a
display (43). torch is imported inside the check that needs it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from course.exercises.base import ExerciseError, answer, exercise_check, known, name_the_mistake


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


@exercise_check
def check_to_env_units(to_env_units: Callable) -> None:
    """Check ``to_env_units(squashed, low, high) -> actions`` (chapter 42): the rescaling an exported
    DDPG/TD3/SAC policy must contain, from the actor's tanh output in [-1, 1] to the bounds [low, high].

    Each case's first two rows are all -1 and all +1, so the endpoints can be told apart from the rest.
    """
    stored = known("to_env_units")
    for case, (squashed, low, high) in to_env_units_inputs().items():
        result = answer("to_env_units", to_env_units(squashed, low, high), squashed.shape)
        mistakes = {
            "clipped": "clipping keeps the actor's units; -1 and +1 must become low and high. Rescale instead.",
            "times high": "multiplying by high is right only for bounds symmetric about 0.",
            "no offset": "the width is right but the centre is not: shift by the middle of the bounds.",
            "reversed": "the map runs backwards: -1 must become low, not high.",
        }
        # a mistake that gives the answer on this case's bounds (times high, when symmetric) is not stored
        mistakes = {
            f"{name}: {case}": f"{case}: {text}" for name, text in mistakes.items() if f"{name}: {case}" in stored
        }
        name_the_mistake(result, stored, mistakes, atol=1e-5)
        if not (np.allclose(result[0], low, atol=1e-5) and np.allclose(result[1], high, atol=1e-5)):
            raise ExerciseError(
                f"{case}: -1 must map to low {low.tolist()} and +1 to high {high.tolist()}; got "
                f"{np.round(result[0], 4).tolist()} and {np.round(result[1], 4).tolist()}."
            )
        if not np.allclose(result, stored[f"answer: {case}"], atol=1e-5):
            raise ExerciseError(f"{case}: the endpoints are right but the map is not linear in between.")


def to_env_units_inputs() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(squashed, low, high) by case, float32 as an actor gives them: rows -1 and +1, then six in between."""
    rng = np.random.default_rng(0)
    cases = {}
    bounds = {
        "Pendulum's symmetric bounds": ([-2.0], [2.0]),
        "asymmetric bounds per dimension": ([0.0, -1.0], [1.0, 3.0]),
    }
    for case, (low, high) in bounds.items():
        ends = np.array([[-1.0] * len(low), [1.0] * len(low)])
        squashed = np.concatenate([ends, rng.uniform(-1, 1, (6, len(low)))]).astype(np.float32)
        cases[case] = (squashed, np.array(low, dtype=np.float32), np.array(high, dtype=np.float32))
    return cases


@exercise_check
def check_headless_frame(first_frame: Callable) -> None:
    """Check ``first_frame(env_id, seed) -> frame`` (chapter 43): the first frame of an episode reset with
    ``seed``, rendered as pixels on a machine without a display.

    The expected frames are stored as digests of their pixels (``frame_digest``), not rendered here: the
    calls that would render them are the answer. The pixels are pygame's drawing of the seeded start state;
    they were byte-identical with gymnasium 1.0.0 and 1.4.0, each on pygame 2.6.1 and on pygame-ce 2.5.8. If
    a release changes them, ``tests/course/test_exercises.py`` fails until ``python -m classroom.expectations``
    stores the new ones.
    """
    stored = known("headless_frame")
    for env_id, seed in headless_frame_inputs():
        frame = first_frame(env_id, seed)
        if frame is None:
            raise ExerciseError(
                f"{env_id}: render() returned None. With render_mode='human' (or none) an environment draws to a "
                "window and returns nothing; make it with render_mode='rgb_array' to get the pixels."
            )
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[-1] != 3 or frame.dtype != np.uint8:
            raise ExerciseError(
                f"{env_id}: expected an (height, width, 3) uint8 image, got {frame.shape} {frame.dtype}."
            )
        digest = frame_digest(frame)
        if digest != frame_digest(np.asarray(first_frame(env_id, seed))):
            raise ExerciseError(
                f"{env_id}, seed {seed}: two calls gave two different frames, so the episode does not start "
                "from the seed: pass it to env.reset(seed=seed) before env.render()."
            )
        if digest != str(stored[f"{env_id} {seed}"]):
            raise ExerciseError(
                f"{env_id}, seed {seed}: not the first frame of the episode reset with that seed. "
                "Call env.reset(seed=seed) before env.render()."
            )


def headless_frame_inputs() -> list[tuple[str, int]]:
    """(env_id, seed) of each frame the check asks for: two starts of CartPole, one of Pendulum."""
    return [("CartPole-v1", 0), ("CartPole-v1", 1), ("Pendulum-v1", 0)]


def frame_digest(frame: np.ndarray) -> str:
    """The SHA-256 of a frame's pixels (row-major bytes): what the check compares, and what is stored."""
    return hashlib.sha256(np.ascontiguousarray(frame).tobytes()).hexdigest()
