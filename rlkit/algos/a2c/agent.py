"""A2C's agent and entry point; the loop is shared with PPO (``rlkit/algos/actor_critic/agent.py``)."""

from __future__ import annotations

from pathlib import Path

from rlkit.algos.a2c.config import A2CConfig
from rlkit.algos.actor_critic import agent as actor_critic
from rlkit.result import TrainResult

#: Environment steps that solve each environment with the defaults.
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 500_000}
FALLBACK_TOTAL_STEPS = 500_000


class A2CAgent(actor_critic.ActorCriticAgent):
    algo = "a2c"
    config_class = A2CConfig
    learner_modules = {"torch": "rlkit.algos.a2c.torch", "tf": "rlkit.algos.a2c.tf"}


def train(
    env_id: str,
    framework: str = "torch",
    seed: int = 0,
    total_steps: int | None = None,
    config: A2CConfig | None = None,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
) -> TrainResult:
    """Train A2C on ``env_id``; see :func:`rlkit.train`."""
    total_steps = total_steps or DEFAULT_TOTAL_STEPS.get(env_id, FALLBACK_TOTAL_STEPS)
    return actor_critic.train(
        A2CAgent, env_id, framework, seed, total_steps, config or A2CConfig(), logdir, progress, stop_when_solved
    )
