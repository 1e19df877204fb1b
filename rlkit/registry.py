"""The algorithms ``rlkit.train``, ``rlkit train`` and ``rlkit.load`` know, as one explicit table.

Each entry is a *factory*: a small function that imports the algorithm and returns its parts. Nothing is
imported until an entry is used, so the registry costs ``import rlkit`` nothing, and a reader finds every
algorithm's agent class by following an ordinary import (no module paths spelled as strings). An entry
also says which loop the algorithm trains in: ``"replay"`` (DQN, Rainbow, DDPG, TD3, SAC: it takes a
``buffer_class``) or ``"rollout"`` (A2C, PPO: it can collect on Ray workers).

A new algorithm is one more entry (:func:`register`)::

    def my_dqn() -> AlgorithmParts:
        from my_package import MyDQNAgent
        return AlgorithmParts(MyDQNAgent, budgets={"CartPole-v1": 50_000}, fallback_budget=100_000)

    rlkit.registry.register("my-dqn", Algorithm(my_dqn, loop="replay"))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from rlkit.errors import RlkitError, did_you_mean

LOOPS = ("replay", "rollout")


class AlgorithmParts(NamedTuple):
    """What an entry's factory returns."""

    #: The agent class: its ``config_class``, ``make`` (a fresh agent) and ``from_checkpoint``.
    agent: type
    #: Environment steps of a default run, per environment id (each measured: see the agent's module).
    budgets: dict[str, int]
    #: Environment steps of a default run on any other environment.
    fallback_budget: int


@dataclass(frozen=True)
class Algorithm:
    """One entry of the registry: ``parts`` imports the algorithm (called on first use), ``loop`` names
    the loop it trains in (one of :data:`LOOPS`)."""

    parts: Callable[[], AlgorithmParts]
    loop: str

    def __post_init__(self) -> None:
        if self.loop not in LOOPS:
            raise RlkitError(f"an algorithm's loop is one of {', '.join(LOOPS)}, got {self.loop!r}")
        if not callable(self.parts):
            raise RlkitError(f"an algorithm's parts are a function returning AlgorithmParts, got {self.parts!r}")

    @property
    def replay(self) -> bool:
        """Whether the algorithm learns from a replay buffer (and so takes ``buffer_class``)."""
        return self.loop == "replay"

    @property
    def agent_class(self) -> type:
        return self.parts().agent

    @property
    def config_class(self) -> type:
        return self.agent_class.config_class

    def budget(self, env_id: str) -> int:
        """Environment steps of a default run on ``env_id``."""
        parts = self.parts()
        return parts.budgets.get(env_id, parts.fallback_budget)


def _dqn() -> AlgorithmParts:
    from rlkit.algos.dqn import agent

    return AlgorithmParts(agent.DQNAgent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


def _rainbow() -> AlgorithmParts:
    from rlkit.algos import rainbow

    return AlgorithmParts(rainbow.RainbowAgent, rainbow.DEFAULT_TOTAL_STEPS, rainbow.FALLBACK_TOTAL_STEPS)


def _ppo() -> AlgorithmParts:
    from rlkit.algos.ppo import agent

    return AlgorithmParts(agent.PPOAgent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


def _a2c() -> AlgorithmParts:
    from rlkit.algos.a2c import agent

    return AlgorithmParts(agent.A2CAgent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


def _ddpg() -> AlgorithmParts:
    from rlkit.algos.ddpg import agent

    return AlgorithmParts(agent.DDPGAgent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


def _td3() -> AlgorithmParts:
    from rlkit.algos.td3 import agent

    return AlgorithmParts(agent.TD3Agent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


def _sac() -> AlgorithmParts:
    from rlkit.algos.sac import agent

    return AlgorithmParts(agent.SACAgent, agent.DEFAULT_TOTAL_STEPS, agent.FALLBACK_TOTAL_STEPS)


#: The registry: algorithm name -> its entry. Add an algorithm with :func:`register`.
ALGORITHMS: dict[str, Algorithm] = {
    "dqn": Algorithm(_dqn, loop="replay"),
    "rainbow": Algorithm(_rainbow, loop="replay"),
    "ppo": Algorithm(_ppo, loop="rollout"),
    "a2c": Algorithm(_a2c, loop="rollout"),
    "ddpg": Algorithm(_ddpg, loop="replay"),
    "td3": Algorithm(_td3, loop="replay"),
    "sac": Algorithm(_sac, loop="replay"),
}


def register(name: str, algorithm: Algorithm) -> None:
    """Make ``rlkit.train(name)``, ``rlkit train NAME`` and ``rlkit.load`` know a new algorithm."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", str(name)):
        raise RlkitError(f"algorithm names are lower-case letters, digits, '-' and '_', got {name!r}")
    if not isinstance(algorithm, Algorithm):
        raise RlkitError(f"register takes an rlkit.registry.Algorithm, got {type(algorithm).__name__}")
    ALGORITHMS[name] = algorithm


def algorithm(name: str) -> Algorithm:
    """The registry entry of ``name``; raises with a suggestion for an unknown name."""
    if not isinstance(name, str) or name.lower() not in ALGORITHMS:
        raise RlkitError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(ALGORITHMS))}."
            f"{did_you_mean(str(name).lower(), ALGORITHMS)}"
        )
    return ALGORITHMS[name.lower()]


def config_class(name: str) -> type:
    """The config dataclass of algorithm ``name`` (its hyperparameters, documented field by field)."""
    return algorithm(name).config_class


def replay_algorithms() -> str:
    """The names of the algorithms that learn from replay, for messages."""
    return ", ".join(name for name, entry in ALGORITHMS.items() if entry.replay)
