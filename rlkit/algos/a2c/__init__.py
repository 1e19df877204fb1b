"""Synchronous advantage actor-critic (A2C), discrete and continuous actions."""

from rlkit.algos.a2c.agent import A2CAgent, train
from rlkit.algos.a2c.config import A2CConfig

__all__ = ["A2CAgent", "A2CConfig", "train"]
