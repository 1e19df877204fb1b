"""PPO's agent and entry point; the loop is shared with A2C (``rlkit/algos/actor_critic/agent.py``)."""

from __future__ import annotations

from rlkit.algos.actor_critic import agent as actor_critic
from rlkit.algos.ppo.config import PPOConfig

#: Environment steps that solve each environment with the defaults (hyperparameters per env: PPOConfig).
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 100_000, "Pendulum-v1": 150_000, "Acrobot-v1": 200_000}
FALLBACK_TOTAL_STEPS = 200_000


class PPOAgent(actor_critic.ActorCriticAgent):
    algo = "ppo"
    config_class = PPOConfig
    learner_modules = {"torch": "rlkit.algos.ppo.torch", "tf": "rlkit.algos.ppo.tf"}


train = actor_critic.entry_point(PPOAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
