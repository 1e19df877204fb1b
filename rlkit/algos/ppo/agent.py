"""PPO's agent and entry point; the loop is shared with A2C (``rlkit/algos/actor_critic/agent.py``)."""

from __future__ import annotations

from pathlib import Path

from rlkit.algos.actor_critic import agent as actor_critic
from rlkit.algos.ppo.config import PPOConfig
from rlkit.result import TrainResult

#: Environment steps that solve each environment with the defaults, and per-env hyperparameter changes.
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 100_000, "Pendulum-v1": 150_000, "Acrobot-v1": 200_000}
FALLBACK_TOTAL_STEPS = 200_000


class PPOAgent(actor_critic.ActorCriticAgent):
    algo = "ppo"
    config_class = PPOConfig
    learner_modules = {"torch": "rlkit.algos.ppo.torch", "tf": "rlkit.algos.ppo.tf"}


def train(
    env_id: str,
    framework: str = "torch",
    seed: int = 0,
    total_steps: int | None = None,
    config: PPOConfig | None = None,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
) -> TrainResult:
    """Train PPO on ``env_id``; see :func:`rlkit.train`."""
    total_steps = total_steps or DEFAULT_TOTAL_STEPS.get(env_id, FALLBACK_TOTAL_STEPS)
    return actor_critic.train(
        PPOAgent, env_id, framework, seed, total_steps, config or PPOConfig(), logdir, progress, stop_when_solved
    )
