"""TD3's agent and entry point: DDPG's agent (TD3 changes only the update, not how it acts)."""

from __future__ import annotations

from rlkit.algos import replay
from rlkit.algos.ddpg.agent import DDPGAgent
from rlkit.algos.td3.config import TD3Config

#: Environment steps for a training run with the defaults (they reach -200 on Pendulum within 20k).
DEFAULT_TOTAL_STEPS = {"Pendulum-v1": 20_000}
FALLBACK_TOTAL_STEPS = 100_000


class TD3Agent(DDPGAgent):
    algo = "td3"
    config_class = TD3Config
    learner_modules = {"torch": "rlkit.algos.td3.torch", "tf": "rlkit.algos.td3.tf"}


train = replay.entry_point(TD3Agent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
