"""A2C's defaults (the fields are shared with PPO: see ``rlkit/algos/actor_critic/config.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from rlkit.algos.actor_critic.config import ActorCriticConfig


@dataclass
class A2CConfig(ActorCriticConfig):
    """Synchronous advantage actor-critic (Mnih et al. 2016): one gradient step per short rollout."""

    num_envs: int = 16
    num_steps: int = 8
    gamma: float = 0.99
    gae_lambda: float = 1.0
    epochs: int = 1
    num_minibatches: int = 1
    learning_rate: float = 1e-3
    #: A constant step size, so that the budget does not change how the run learns: annealed to 0 over the
    #: budget, cutting the budget from 500k to 200k steps slowed CartPole (seed 0 from 30k to 150k steps to
    #: solve, seed 4 unsolved); constant, every seed of ten solved within the 200k (``benchmarks/RESULTS.md``).
    anneal_lr: bool = False
    normalize_advantages: bool = False
