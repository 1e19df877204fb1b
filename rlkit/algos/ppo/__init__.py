"""Proximal Policy Optimization (Schulman et al. 2017), discrete and continuous actions."""

from rlkit.algos.ppo.agent import PPOAgent, train
from rlkit.algos.ppo.config import PPOConfig

__all__ = ["PPOAgent", "PPOConfig", "train"]
