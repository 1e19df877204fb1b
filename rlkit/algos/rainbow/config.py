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
    #: with 0.1 every seed we tried solved (``benchmarks/RESULTS.md``).
    noisy_sigma0: float = 0.1
    #: One gradient step per environment step (bursts of 128 every 128 steps), twice DQN's rate: with half
    #: of it Rainbow needed 20k-27.5k steps on CartPole (TF, seeds 0-2), with this 5k-25k.
    train_every: int = 128
