"""Twin Delayed DDPG (Fujimoto et al. 2018), continuous actions."""

from rlkit.algos.td3.agent import TD3Agent, train
from rlkit.algos.td3.config import TD3Config

__all__ = ["TD3Agent", "TD3Config", "train"]
