"""What :func:`rlkit.train` returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlkit.logger import History


@dataclass
class TrainResult:
    """The trained agent, its metric history, and how the run went.

    ``solved_at_step`` is the first environment step at which a greedy evaluation reached the
    environment's solve threshold (``None`` if it never did); ``wall_time`` is seconds of training.
    """

    agent: Any
    history: History
    config: Any
    algo: str
    env_id: str
    framework: str
    seed: int
    steps: int
    wall_time: float
    solved_at_step: int | None = None
    solved_at_time: float | None = None

    def __str__(self) -> str:
        solved = (
            f"solved at step {self.solved_at_step:,} ({self.solved_at_time:.1f} s)"
            if self.solved_at_step is not None
            else "not solved"
        )
        last = self.history.last("eval_return")
        evaluation = "no evaluation" if last is None else f"last evaluation {last:.1f}"
        return (
            f"{self.algo} {self.framework} on {self.env_id}, seed {self.seed}: {self.steps:,} steps in "
            f"{self.wall_time:.1f} s, {solved}; {evaluation}"
        )
