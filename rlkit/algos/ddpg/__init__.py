"""Deep Deterministic Policy Gradient (Lillicrap et al. 2016), continuous actions."""

from rlkit.algos.ddpg.agent import DDPGAgent, train
from rlkit.algos.ddpg.config import DDPGConfig

__all__ = ["DDPGAgent", "DDPGConfig", "train"]
