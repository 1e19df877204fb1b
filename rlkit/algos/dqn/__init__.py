"""Deep Q-Network (Mnih et al. 2015) with the Double-DQN target (van Hasselt et al. 2016) as a switch."""

from rlkit.algos.dqn.agent import DQNAgent, train
from rlkit.algos.dqn.config import PLAIN_DQN, DQNConfig, dqn_contract

__all__ = ["PLAIN_DQN", "DQNAgent", "DQNConfig", "dqn_contract", "train"]
