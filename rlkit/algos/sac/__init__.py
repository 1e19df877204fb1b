"""Soft Actor-Critic (Haarnoja et al. 2018), continuous actions, with automatic entropy tuning."""

from rlkit.algos.sac.agent import SACAgent, train
from rlkit.algos.sac.config import SACConfig

__all__ = ["SACAgent", "SACConfig", "train"]
