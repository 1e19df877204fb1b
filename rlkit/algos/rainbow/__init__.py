"""Rainbow (Hessel et al. 2018): DQN with all its value-based improvements switched on at once.

Not a new algorithm in rlkit: the same loop, buffers and twin networks as :mod:`rlkit.algos.dqn`, with a
config whose defaults turn on the double target, the dueling network, 3-step returns, prioritized replay,
noisy layers and the C51 distribution. Each part is a DQN option and also works alone.
"""

from __future__ import annotations

from rlkit.algos import replay
from rlkit.algos.dqn.agent import DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS, DQNAgent
from rlkit.algos.rainbow.config import RainbowConfig


class RainbowAgent(DQNAgent):
    """A DQN agent whose config defaults to every Rainbow part; checkpoints say ``rainbow``."""

    algo = "rainbow"
    config_class = RainbowConfig


train = replay.entry_point(RainbowAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)

__all__ = ["RainbowAgent", "RainbowConfig", "train"]
