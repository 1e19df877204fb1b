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


class CheckpointError(RlkitError):
    """A checkpoint is missing, corrupt, or was written by something other than rlkit."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or ``""`` when nothing is close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""


def is_count(value, minimum: int = 1) -> bool:
    """Whether ``value`` is an integer (Python's or numpy's, not a bool) of at least ``minimum``."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= minimum
