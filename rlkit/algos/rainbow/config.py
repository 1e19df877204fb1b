"""Rainbow's defaults: every DQN option on, with the settings that made them solve our tasks together."""

from __future__ import annotations

from dataclasses import dataclass

from rlkit.algos.dqn.config import DQNConfig


@dataclass
class RainbowConfig(DQNConfig):
    """:class:`~rlkit.algos.dqn.DQNConfig` with the Rainbow parts switched on (any can be switched off)."""

    dueling: bool = True
    n_step: int = 3
    prioritized: bool = True
    noisy: bool = True
    distributional: bool = True
    #: The paper's 0.5 (tuned for Atari's 512-wide layers) kept CartPole below 200 for 50k steps on seed 0;
    #: 0.1 solved seeds 0-2 in 7.5k-17.5k steps (``benchmarks/rainbow.py``).
    noisy_sigma0: float = 0.1
    #: One gradient step per environment step (bursts of 128 every 128 steps), twice DQN's rate: with half
    #: of it Rainbow needed 20k-27.5k steps on CartPole, with this 7.5k-17.5k.
    train_every: int = 128
