"""Checks for the chapters' exercises: each ``check_*`` runs a reader's function on cases chosen to catch
the usual mistakes, and says *what* is wrong and how to fix it, not just that something is.

A wrong answer raises :class:`ExerciseError` (an ``AssertionError``); a stub that still raises
``NotImplementedError`` prints "not attempted yet" and lets a "Run all" go on (``strict=True`` makes that an
error too: the chapters check their reference solutions that way). These checks are the feedback a reader
sees; the grading of an assignment (``make assignments``) adds hidden tests that only the autograder has.
"""

from course.exercises.base import ExerciseError
from course.exercises.capstone import check_land_the_lander
from course.exercises.continuous import (
    check_first_crossing,
    check_polyak_update,
    check_smoothed_target_action,
    check_squashed_log_prob,
)
from course.exercises.engineering import (
    check_headless_frame,
    check_seeded_rollout,
    check_standardize,
    check_to_env_units,
)
from course.exercises.policy_gradient import (
    check_a2c_policy_loss,
    check_clipped_surrogate,
    check_gaussian_log_prob,
    check_reward_to_go,
)
from course.exercises.value_based import (
    check_action_entropy,
    check_bootstrap_mask,
    check_categorical_projection,
    check_double_target,
    check_priority_weights,
    check_soft_update,
    check_stack_at,
    check_td_target,
)

__all__ = [
    "ExerciseError",
    "check_a2c_policy_loss",
    "check_action_entropy",
    "check_bootstrap_mask",
    "check_categorical_projection",
    "check_clipped_surrogate",
    "check_double_target",
    "check_first_crossing",
    "check_gaussian_log_prob",
    "check_headless_frame",
    "check_land_the_lander",
    "check_polyak_update",
    "check_priority_weights",
    "check_reward_to_go",
    "check_seeded_rollout",
    "check_smoothed_target_action",
    "check_soft_update",
    "check_stack_at",
    "check_squashed_log_prob",
    "check_standardize",
    "check_td_target",
    "check_to_env_units",
]
