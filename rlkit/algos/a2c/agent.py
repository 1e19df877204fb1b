"""A2C's agent and entry point; the loop is shared with PPO (``rlkit/algos/actor_critic/agent.py``)."""

from __future__ import annotations

from rlkit.algos.a2c.config import A2CConfig
from rlkit.algos.actor_critic import agent as actor_critic

#: Environment steps that solve each environment with the defaults.
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 500_000}
FALLBACK_TOTAL_STEPS = 500_000


class A2CAgent(actor_critic.ActorCriticAgent):
    algo = "a2c"
    config_class = A2CConfig
    learner_modules = {"torch": "rlkit.algos.a2c.torch", "tf": "rlkit.algos.a2c.tf"}


train = actor_critic.entry_point(A2CAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
