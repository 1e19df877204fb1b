"""Rainbow (Hessel et al. 2018): DQN with all its value-based improvements switched on at once.

Not a new algorithm in rlkit: the same loop, buffers and twin networks as :mod:`rlkit.algos.dqn`, with a
config whose defaults turn on the double target, the dueling network, 3-step returns, prioritized replay,
noisy layers and the C51 distribution. Each part is a DQN option and also works alone.
"""

from __future__ import annotations

from rlkit.algos import replay
from rlkit.algos.dqn.agent import DEFAULT_TOTAL_STEPS as DQN_TOTAL_STEPS
from rlkit.algos.dqn.agent import FALLBACK_TOTAL_STEPS, DQNAgent
from rlkit.algos.rainbow.config import RainbowConfig

#: Environment steps of a default run. Rainbow's own, not DQN's: a Rainbow step costs several times a DQN step
#: (one gradient step per environment step, each 2-3x DQN's), so a budget larger than it needs costs minutes.
#: About 1.5x the most steps any seed needed to solve, over seeds 0-4 and 101-105 in both frameworks, rounded up
#: to the evaluation interval (``benchmarks/RESULTS.md``, "Rainbow's defaults and budgets"): CartPole 35,000
#: (the most: 22,500, seed 105 in both frameworks), Acrobot 27,500 (the most: 17,500, torch seed 2).
DEFAULT_TOTAL_STEPS = {**DQN_TOTAL_STEPS, "CartPole-v1": 35_000, "Acrobot-v1": 27_500}


class RainbowAgent(DQNAgent):
    """A DQN agent whose config defaults to every Rainbow part; checkpoints say ``rainbow``."""

    algo = "rainbow"
    config_class = RainbowConfig


train = replay.entry_point(RainbowAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)

__all__ = ["RainbowAgent", "RainbowConfig", "train"]
