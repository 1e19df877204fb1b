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


@exercise_check
def check_to_env_units(to_env_units: Callable) -> None:
    """Check ``to_env_units(squashed, low, high) -> actions`` (chapter 42): the rescaling an exported
    DDPG/TD3/SAC policy must contain, from the actor's tanh output in [-1, 1] to the bounds [low, high]."""
    rng = np.random.default_rng(0)
    cases = {
        "Pendulum's symmetric bounds": (np.array([-2.0]), np.array([2.0])),
        "asymmetric bounds per dimension": (np.array([0.0, -1.0]), np.array([1.0, 3.0])),
    }
    for name, (low, high) in cases.items():
        squashed = np.concatenate([-np.ones((1, len(low))), np.ones((1, len(low))), rng.uniform(-1, 1, (6, len(low)))])
        result = to_env_units(squashed.astype(np.float32), low.astype(np.float32), high.astype(np.float32))
        if result is None:
            raise ExerciseError("to_env_units returned None: did you forget the `return`?")
        result = np.asarray(result, dtype=np.float64)
        if result.shape != squashed.shape:
            raise ExerciseError(f"{name}: expected one action per row, shape {squashed.shape}, got {result.shape}.")
        if np.allclose(result, np.clip(squashed, low, high)) and not np.allclose(low, -1):
            raise ExerciseError(
                f"{name}: clipping keeps the actor's units; -1 and +1 must become low and high. Rescale instead."
            )
        if not (np.allclose(result[0], low, atol=1e-6) and np.allclose(result[1], high, atol=1e-6)):
            hint = " Multiplying by high is right only for bounds symmetric about 0." if np.any(low != -high) else ""
            raise ExerciseError(
                f"{name}: -1 must map to low {low.tolist()} and +1 to high {high.tolist()}; got {result[0].tolist()} "
                f"and {result[1].tolist()}.{hint} Try low + (squashed + 1) * (high - low) / 2."
            )
        expected = low + (squashed + 1.0) * 0.5 * (high - low)
        if not np.allclose(result, expected, atol=1e-5):
            raise ExerciseError(f"{name}: the endpoints are right but the map is not linear in between.")
    passed("check_to_env_units", len(cases))


@exercise_check
def check_headless_frame(first_frame: Callable) -> None:
    """Check ``first_frame(env_id, seed) -> frame`` (chapter 43): the first frame of an episode reset with
    ``seed``, rendered as pixels on a machine without a display."""
    import gymnasium as gym

    cases = [("CartPole-v1", 0), ("CartPole-v1", 1), ("Pendulum-v1", 0)]
    for env_id, seed in cases:
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
        env = gym.make(env_id, render_mode="rgb_array")
        env.reset(seed=seed)
        expected = env.render()
        env.close()
        if not np.array_equal(frame, expected):
            raise ExerciseError(
                f"{env_id}, seed {seed}: not the first frame of the episode reset with that seed. "
                "Call env.reset(seed=seed) before env.render()."
            )
    passed("check_headless_frame", len(cases))
