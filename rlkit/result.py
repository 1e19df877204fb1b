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

    def __repr__(self) -> str:
        solved = f"solved at step {self.solved_at_step}" if self.solved_at_step else "not solved"
        best = self.history.last("eval_return")
        return (
            f"TrainResult({self.algo} on {self.env_id}, {self.framework}, seed {self.seed}: {self.steps} steps "
            f"in {self.wall_time:.1f} s, {solved}, last eval return {best})"
        )
