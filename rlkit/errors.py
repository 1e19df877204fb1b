"""Exceptions that rlkit raises on bad input.

Every error a user can cause by passing something wrong is an :class:`RlkitError`, so the command line can
print one clear line instead of a traceback, and library users can catch one type.
"""

from __future__ import annotations

import difflib
import numbers
from collections.abc import Iterable


class RlkitError(ValueError):
    """Bad input to rlkit: the message says what was expected and what arrived."""


class ContractError(RlkitError):
    """A batch field does not have the shape, dtype or range its algorithm declares."""


class EnvironmentFault(RlkitError):
    """An environment returned what its spaces and gymnasium's step API do not allow (a wrong shape or dtype, a
    reward that is not a finite scalar, flags that are not booleans), named at the step it happened."""


class CheckpointError(RlkitError):
    """A checkpoint is missing, corrupt, or was written by something other than rlkit."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or ``""`` when nothing is close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""


def is_count(value, minimum: int = 1) -> bool:
    """Whether ``value`` is an integer (Python's or numpy's, not a bool) of at least ``minimum``."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= minimum


class TrainingInterrupted(KeyboardInterrupt):
    """A run stopped by SIGINT (Ctrl-C) or SIGTERM after finishing its current step, its work saved where it
    had an output. ``checkpoint`` is the resumable checkpoint written (None when the run had no output),
    ``result`` the :class:`~rlkit.result.TrainResult` up to the interruption, ``signal`` the signal's number.

    A subclass of KeyboardInterrupt, not of :class:`RlkitError`: it is not bad input, and code that catches
    ``Exception`` (a notebook's retry loop, a sweep that records failures) must not swallow a stop the user
    asked for, while code that already handles Ctrl-C (``except KeyboardInterrupt``) keeps working.
    """

    def __init__(self, message: str, signal: int, checkpoint, result, finished: bool = False) -> None:
        super().__init__(message)
        self.signal, self.checkpoint, self.result = signal, checkpoint, result
        #: True where the signal came during the final save, after the run's last step: the run is complete.
        self.finished = finished

    def __str__(self) -> str:
        return str(self.args[0])
