"""Ctrl-C and SIGTERM during training keep the work: the run finishes its current step, saves, then stops.

:class:`InterruptGuard` replaces the SIGINT and SIGTERM handlers while a run is driven (only in the main
thread, the only one Python delivers signals to) and puts the previous ones back when it ends. The first
signal is only noted; the training loop sees it after its current step (a vector-environment step and its
burst, or an on-policy rollout and its update: the units after which a run's state is whole), writes a
resumable checkpoint where the run has an output and raises :class:`~rlkit.errors.TrainingInterrupted`. A
second signal aborts at once, as a plain KeyboardInterrupt.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from rlkit.errors import TrainingInterrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class InterruptGuard:
    """Notes the first SIGINT or SIGTERM in ``signal`` (None until then); a second one aborts at once."""

    def __init__(self) -> None:
        self.signal: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            for number in SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        self.restore()

    def restore(self) -> None:
        """Put the handlers that were there before back (idempotent)."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous = {}

    def _handle(self, number: int, frame) -> None:
        name = signal.Signals(number).name
        if self.signal is not None:
            self.restore()
            raise KeyboardInterrupt(f"second {name}: training aborted at once, without saving")
        self.signal = number
        print(
            f"rlkit: {name} received: finishing the current step and saving the run (Ctrl-C again aborts at once)",
            file=sys.stderr,
            flush=True,
        )


def interrupted(
    number: int, checkpoint: Path | None, result, logdir=None, finished: bool = False
) -> TrainingInterrupted:
    """The exception that ends an interrupted run, its message naming the checkpoint and the call that
    continues it, or saying that nothing was saved and how to make a run save. ``finished``: the signal came
    during the final save of a run that had reached its end (the save was completed first)."""
    name = signal.Signals(number).name
    where = f"training interrupted by {name} at step {result.steps:,}"
    more = ""
    if finished:
        where = (
            f"{name} arrived during the run's final save, after its last step ({result.steps:,}): the save was "
            "completed first and the run is complete (this exception's .result)"
        )
        more = f", total_steps=<more than {result.steps:,}>"
    if checkpoint is None:
        message = (
            f"{where}; nothing was saved: the run had no output. Pass logdir= or save= to rlkit.train "
            "(--logdir or --save on the command line), or callbacks=[SaveCheckpoints(folder, resumable=True)], "
            "and an interrupted run keeps its work"
        )
    else:
        options = more + ("" if logdir is None else f", logdir={str(logdir)!r}")
        message = (
            f"{where}; the run is saved, resumable, in '{checkpoint}'. Continue it with "
            f"rlkit.train({result.algo!r}, resume={str(checkpoint)!r}{options})"
        )
    return TrainingInterrupted(message, number, checkpoint, result, finished)
