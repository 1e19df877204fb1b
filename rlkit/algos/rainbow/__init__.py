"""Rainbow (Hessel et al. 2018): DQN with all its value-based improvements switched on at once.

Not a new algorithm in rlkit: the same loop, buffers and twin networks as :mod:`rlkit.algos.dqn`, with a
config whose defaults turn on the double target, the dueling network, 3-step returns, prioritized replay,
noisy layers and the C51 distribution. Each part is a DQN option and also works alone.
"""

from __future__ import annotations

from pathlib import Path

from rlkit.algos.dqn.agent import DQNAgent
from rlkit.algos.dqn.agent import train as train_dqn
from rlkit.algos.rainbow.config import RainbowConfig
from rlkit.result import TrainResult


class RainbowAgent(DQNAgent):
    """A DQN agent whose config defaults to every Rainbow part; checkpoints say ``rainbow``."""

    algo = "rainbow"
    config_class = RainbowConfig


def train(
    env_id: str,
    framework: str = "torch",
    seed: int = 0,
    total_steps: int | None = None,
    config: RainbowConfig | None = None,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
) -> TrainResult:
    """Train Rainbow on ``env_id``; see :func:`rlkit.train`."""
    return train_dqn(
        env_id, framework, seed, total_steps, config, logdir, progress, stop_when_solved, agent_class=RainbowAgent
    )


__all__ = ["RainbowAgent", "RainbowConfig", "train"]
