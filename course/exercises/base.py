"""What every exercise check shares: the error a wrong answer raises, and the wrapper that tells a stub that
is not filled in yet from a wrong answer.

A chapter is read top to bottom and often run with "Run all" (Colab, JupyterLab): the exercise's stub still
raises ``NotImplementedError`` then, and its check must say so and let the run go on. The reference solution
is checked with ``strict=True``, where "not attempted" is an error too, so a broken solution fails CI.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib import resources

import numpy as np


class ExerciseError(AssertionError):
    """A check failed; the message explains the mistake."""


def exercise_check(check: Callable[[Callable], None]) -> Callable[..., None]:
    """Wrap ``check(function)`` so that a ``function`` that raises ``NotImplementedError`` (the unfilled stub)
    prints "not attempted yet" instead of failing, unless the caller passes ``strict=True``."""

    @functools.wraps(check)
    def run(function: Callable, *, strict: bool = False) -> None:
        if not callable(function):
            raise TypeError(
                f"{check.__name__} expects the function you wrote (pass it without calling it), "
                f"got {type(function).__name__}"
            )
        try:
            check(function)
        except NotImplementedError:
            name = getattr(function, "__name__", "your function")
            message = (
                f"{name} is not attempted yet: replace `raise NotImplementedError` in the cell that defines it "
                "with your code, run that cell, then run this one again."
            )
            if strict:
                raise ExerciseError(message) from None
            print(f"{check.__name__}: {message}")
        else:
            print(f"{check.__name__}: all checks passed.")

    return run


def scalar(name: str, result, hint: str) -> float:
    """The student's result as one float, or an error that says what came back instead (``hint``: how to
    reduce it to one number)."""
    if result is None:
        raise ExerciseError(f"{name} returned None: did you forget the `return`?")
    if np.ndim(result) != 0:
        raise ExerciseError(f"return one number ({hint}), got shape {np.shape(result)}.")
    return float(result)


def name_the_mistake(result: np.ndarray, stored: dict[str, np.ndarray], mistakes: dict[str, str], **tolerance) -> None:
    """Raise the message of the first mistake whose stored result ``result`` matches (``np.allclose``)."""
    for mistake, message in mistakes.items():
        if np.allclose(result, stored[mistake], **tolerance):
            raise ExerciseError(message)


def answer(name: str, result, shape: tuple[int, ...]) -> np.ndarray:
    """The student's result as a float64 array of ``shape``, or an error that says what came back instead."""
    if result is None:
        raise ExerciseError(f"{name} returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape != shape:
        raise ExerciseError(f"{name} should return shape {shape}, got {result.shape}.")
    return result


@functools.cache
def _answer_key() -> dict:
    return json.loads(resources.files("course.exercises").joinpath("expected.json").read_text())


def known(exercise: str) -> dict[str, np.ndarray]:
    """The stored results of ``exercise``'s check inputs: the answer and the usual mistakes, by name.

    They are numbers, computed outside the package (``classroom/expectations.py``), so that a check's source
    is not the answer key.
    """
    return {name: np.asarray(value) for name, value in _answer_key()[exercise].items()}
