"""The instructor's half of every exercise: the inputs of its hidden test, which only the autograder has.

A hidden test runs the student's function and the chapter's reference solution (its ``solution`` cell) on
fresh inputs, drawn here, and compares everything they return and everything they leave in their arguments
(so an in-place update such as chapter 11's ``soft_update`` is compared too). The inputs differ from the
student-facing check's on purpose: an answer that only fits the cases the check prints still fails.

Each ``cases`` function is copied into the generated test by its source, so it may use only its argument
``rng`` (a ``numpy.random.Generator``) and the modules it imports itself (hence the quoted annotations).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Hidden:
    """How to test one exercise on inputs its student-facing check never shows."""

    cases: Callable  # rng -> list of argument tuples
    seed: int = 2024
    gradients: bool = False  # torch exercises: compare the gradients of the inputs too


@dataclass(frozen=True)
class HiddenGrade:
    """An open-ended exercise's hidden test: no reference to compare with, a grade on inputs the check never
    shows. ``grader`` is a function of ``course.exercises`` that takes the student's function and raises when
    it fails (a capstone's: the trained agent on unseen episodes)."""

    grader: str  # "module:function"


def bootstrap_mask(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    terminated, truncated = rng.random(9) < 0.4, rng.random(9) < 0.4
    return [(terminated, truncated), (np.array([True, False]), np.array([True, True]))]


def td_target(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    cases = []
    for batch, actions in ((7, 2), (1, 4), (16, 5)):
        terminated = (rng.random(batch) < 0.3).astype(np.float32)
        rewards, next_q = rng.normal(size=batch).astype(np.float32), rng.normal(size=(batch, actions))
        cases.append((rewards, next_q.astype(np.float32), terminated, float(rng.uniform(0.5, 0.999))))
    return cases


def soft_update(rng: "np.random.Generator") -> list[tuple]:
    online = [rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(2, 2, 2))]
    target = [rng.normal(size=array.shape) for array in online]
    return [(target, online, 0.05), (target, online, 1.0)]


def double_target(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    terminated = np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    return [(rng.normal(size=7), rng.normal(size=(7, 4)), rng.normal(size=(7, 4)), terminated, 0.97)]


def priority_weights(rng: "np.random.Generator") -> list[tuple]:
    priorities = rng.uniform(0.01, 5.0, size=12)
    return [(priorities, rng.integers(0, 12, size=8), 0.7, 0.5), (priorities, rng.integers(0, 12, size=3), 1.0, 1.0)]


def project(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    support = np.linspace(-5.0, 5.0, 21)
    logits = rng.normal(size=(6, 21))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    rewards = np.array([0.3, -7.0, 12.0, 0.0, 1.25, -0.5])  # below v_min, above v_max, on an atom
    discounts = np.array([0.99, 0.99, 0.9, 0.0, 1.0, 0.5])
    return [(probs, rewards, discounts, support)]


def entropy_of_greedy_actions(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    return [(rng.normal(size=(50, 4)),), (np.tile([[1.0, 0.0, 3.0, 2.0]], (5, 1)),), (rng.normal(size=(7, 6)),)]


def reward_to_go(rng: "np.random.Generator") -> list[tuple]:
    return [(rng.normal(size=9), 0.9), (rng.normal(size=1), 0.5), (rng.normal(size=20), 1.0)]


def policy_loss(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    log_probs = np.log(rng.uniform(0.05, 0.95, size=(5, 3)))
    return [(log_probs, rng.normal(size=(5, 3))), (log_probs[:, :1], rng.normal(size=(5, 1)))]


def clipped_surrogate(rng: "np.random.Generator") -> list[tuple]:
    ratio = rng.uniform(0.5, 1.6, size=20)
    return [(ratio, rng.normal(size=20), 0.2), (ratio, rng.normal(size=20), 0.1)]


def gaussian_log_prob(rng: "np.random.Generator") -> list[tuple]:
    return [(rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=2) * 0.5)]


def polyak_update(rng: "np.random.Generator") -> list[tuple]:
    return [(rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), 0.01), (rng.normal(size=4), rng.normal(size=4), 0.5)]


def smoothed_target_action(rng: "np.random.Generator") -> list[tuple]:
    return [(rng.uniform(-1.0, 1.0, size=(8, 2)), rng.normal(size=(8, 2)) * 2.0, 0.3, 0.4)]


def squashed_log_prob(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    mean, log_std = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)) * 0.2
    pre_tanh = mean + np.exp(log_std) * rng.normal(size=(6, 3))
    pre_tanh[0] = [9.0, -8.5, 0.0]  # saturated
    return [(pre_tanh, mean, log_std)]


def first_crossing(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    steps = np.arange(1, 11) * 500
    rising = np.sort(rng.normal(size=10)) * 100 - 300  # reaches its 5th value exactly at step 2,500
    wandering = np.cumsum(rng.normal(size=10)) * 50 - 300
    return [
        (steps, rising, float(rising[4])),
        (steps, wandering, float(wandering.max()) + 1.0),
        (steps, wandering, float(np.median(wandering))),
        (steps, wandering, -1e9),
    ]


def seeded_rollout(rng: "np.random.Generator") -> list[tuple]:
    return [(int(rng.integers(10, 10_000)),), (int(rng.integers(10, 10_000)),)]


def standardize(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np
    import torch

    return [
        (torch.tensor(rng.normal(-2.0, 5.0, size=33).astype(np.float32), requires_grad=True),),
        (torch.full((10,), -1.5, requires_grad=True),),  # equal inputs: sqrt(var) + eps has a NaN gradient
    ]


def to_env_units(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    cases = []
    for dims in (1, 3):  # bounds that are asymmetric about 0, of different widths per dimension
        low = rng.uniform(-5.0, 1.0, size=dims)
        high = low + rng.uniform(0.5, 4.0, size=dims)
        squashed = np.concatenate([-np.ones((1, dims)), np.ones((1, dims)), rng.uniform(-1.0, 1.0, (9, dims))])
        cases.append(tuple(part.astype(np.float32) for part in (squashed, low, high)))
    return cases


def first_frame(rng: "np.random.Generator") -> list[tuple]:
    seeds = [int(seed) for seed in rng.integers(10, 10_000, size=3)]  # environments the check never renders
    return [("CartPole-v1", seeds[0]), ("Acrobot-v1", seeds[1]), ("MountainCarContinuous-v0", seeds[2])]


def stack_at(rng: "np.random.Generator") -> list[tuple]:
    import numpy as np

    frames = rng.integers(0, 256, size=(30, 5, 4), dtype=np.uint8)
    starts = rng.random(30) < 0.2
    starts[0] = True  # the first frame always begins an episode
    return [(frames, starts, int(t), size) for t, size in ((0, 4), (int(rng.integers(5, 30)), 4), (29, 3), (17, 6))]


HIDDEN: dict[str, Hidden | HiddenGrade] = {
    "bootstrap_mask": Hidden(bootstrap_mask),
    "td_target": Hidden(td_target),
    "soft_update": Hidden(soft_update),
    "double_target": Hidden(double_target),
    "priority_weights": Hidden(priority_weights),
    "project": Hidden(project),
    "entropy_of_greedy_actions": Hidden(entropy_of_greedy_actions),
    "stack_at": Hidden(stack_at),
    "reward_to_go": Hidden(reward_to_go),
    "policy_loss": Hidden(policy_loss),
    "clipped_surrogate": Hidden(clipped_surrogate),
    "gaussian_log_prob": Hidden(gaussian_log_prob),
    "polyak_update": Hidden(polyak_update),
    "smoothed_target_action": Hidden(smoothed_target_action),
    "squashed_log_prob": Hidden(squashed_log_prob),
    "first_crossing": Hidden(first_crossing),
    "seeded_rollout": Hidden(seeded_rollout),
    "standardize": Hidden(standardize, gradients=True),
    "to_env_units": Hidden(to_env_units),
    "first_frame": Hidden(first_frame),
    # the capstone after chapter 60: the student's lander on 20 episodes its check never plays
    "land_the_lander": HiddenGrade("course.exercises.capstone:grade_on_unseen_episodes"),
}
