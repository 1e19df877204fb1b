"""Deep Q-Network (Mnih et al. 2015) with the Double-DQN target (van Hasselt et al. 2016) as a switch."""

from rlkit.algos.dqn.agent import DQNAgent, train
from rlkit.algos.dqn.config import DQNConfig, dqn_contract

__all__ = ["DQNAgent", "DQNConfig", "dqn_contract", "train"]
