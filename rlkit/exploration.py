"""Exploration: what a replay-trained agent does and stores at each step, as a small object the loop is given.

The replay loop (:mod:`rlkit.algos.replay`) asks its exploration, and nothing else, which actions to take
while training. An exploration is any object with these methods (:class:`Exploration` gives the defaults of
all but ``actions``):

==================================  ===================================================================
``begin(plan, num_envs, rng)``      before the first step, and again when a continued run extends the
                                    plan: build schedules spread over ``plan`` environment steps
``actions(agent, obs, step, rng)``  the actions to take and store for a batch of observations at
                                    environment step ``step``: discrete indices, or [-1, 1] for
                                    continuous actions (the agent's ``to_env`` rescales them)
``end_episodes(done)``              the environments whose episode just ended (an OU process resets)
``metrics(step)``                   scalars to log after each burst (DQN's epsilon), or ``{}``
``state_dict()``                    what it carries from step to step (numbers and arrays), for a
                                    resumable save; ``load_state_dict(state)`` puts it back
==================================  ===================================================================

Every random number comes from the ``rng`` passed in, the run's generator, so a seed fixes the run.

The built-in ones, each algorithm's default (:meth:`~rlkit.algos.replay.ReplayAgent.default_exploration`):
:class:`EpsilonGreedy` (DQN), :class:`NoisyNets` (Rainbow, DQN with ``noisy=True``), :class:`ActionNoise`
(DDPG, TD3: Gaussian or Ornstein-Uhlenbeck noise from :mod:`rlkit.noise`) and :class:`PolicySamples` (SAC).
Pass another to ``rlkit.train(..., exploration=...)``.
"""

from __future__ import annotations

import numpy as np

from rlkit.errors import RlkitError
from rlkit.noise import make_noise
from rlkit.schedules import LinearSchedule

#: The methods an exploration has (:class:`Exploration` defines them all but ``actions``).
PROTOCOL = ("begin", "actions", "end_episodes", "metrics", "state_dict", "load_state_dict")


class Exploration:
    """Base of the explorations: every method of the protocol but ``actions`` does nothing by default."""

    def begin(self, plan: int, num_envs: int, rng: np.random.Generator) -> None:
        """Build what depends on the plan (``plan`` environment steps) and the number of environments."""

    def actions(self, agent, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        """The actions to take and store for ``obs`` (one row per environment) at environment step ``step``."""
        raise NotImplementedError

    def end_episodes(self, done: np.ndarray) -> None:
        """``done[i]``: environment ``i``'s episode just ended."""

    def metrics(self, step: int) -> dict[str, float]:
        """Scalars to log after a burst of updates."""
        return {}

    def state_dict(self) -> dict:
        """What this exploration carries from step to step; schedules are rebuilt from the plan by ``begin``."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Put back what :meth:`state_dict` returned."""


def check_exploration(exploration) -> None:
    """Refuse, naming what is missing, an object that is not an exploration (a class instead of an instance,
    a string, an object without the protocol's methods)."""
    if isinstance(exploration, type):
        raise RlkitError(
            f"exploration must be an exploration object, not the class {exploration.__name__}: pass an instance, "
            f"e.g. {exploration.__name__}(...)"
        )
    missing = [name for name in PROTOCOL if not callable(getattr(exploration, name, None))]
    if missing:
        raise RlkitError(
            f"exploration must be an object with the methods {', '.join(PROTOCOL)} (see rlkit.exploration; "
            f"subclass rlkit.exploration.Exploration for the defaults), got {exploration!r}, which lacks "
            f"{', '.join(missing)}"
        )


def epsilon_greedy(greedy: np.ndarray, epsilon: float, n_actions: int, rng: np.random.Generator) -> np.ndarray:
    """``greedy``, each replaced with probability ``epsilon`` by a uniform-random action. Both draws happen
    whatever ``epsilon`` is (0 and 1 included), so a run's later random numbers do not depend on it."""
    random = rng.random(len(greedy)) < epsilon
    return np.where(random, rng.integers(0, n_actions, size=len(greedy)), greedy)


def uniform_actions(agent, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uniform-random continuous actions in [-1, 1], one row per observation."""
    return rng.uniform(-1.0, 1.0, (len(obs), agent.action_dim)).astype(np.float32)


class EpsilonGreedy(Exploration):
    """DQN's: the greedy action, replaced by a uniform-random one with probability epsilon, which decays
    linearly from ``start`` to ``end`` over the first ``fraction`` of the plan and then stays."""

    def __init__(self, start: float = 1.0, end: float = 0.02, fraction: float = 0.1) -> None:
        self.start, self.end, self.fraction = start, end, fraction
        self.epsilon = LinearSchedule(start, end, 1)

    def begin(self, plan: int, num_envs: int, rng: np.random.Generator) -> None:
        self.epsilon = LinearSchedule(self.start, self.end, max(1, int(self.fraction * plan)))

    def actions(self, agent, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        return epsilon_greedy(agent.act(obs), self.epsilon(step), agent.n_actions, rng)

    def metrics(self, step: int) -> dict[str, float]:
        return {"epsilon": self.epsilon(step)}


class NoisyNets(Exploration):
    """Rainbow's: uniform-random actions until ``learning_starts``, then the greedy action of the noisy
    network under a fresh noise draw per step (its noise is the exploration; epsilon is 0)."""

    def __init__(self, learning_starts: int) -> None:
        self.learning_starts = learning_starts

    def epsilon(self, step: int) -> float:
        return 1.0 if step < self.learning_starts else 0.0

    def actions(self, agent, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        noise = rng.standard_normal(agent.noise_size, dtype=np.float32)  # drawn in the warm-up too
        greedy = agent.q_values(np.asarray(obs, dtype=np.float32), noise).argmax(axis=1)
        return epsilon_greedy(greedy, self.epsilon(step), agent.n_actions, rng)

    def metrics(self, step: int) -> dict[str, float]:
        return {"epsilon": self.epsilon(step)}


class ActionNoise(Exploration):
    """DDPG's and TD3's: uniform-random actions until ``learning_starts`` (varied data for the first updates),
    then the deterministic action plus ``"gaussian"`` or ``"ou"`` noise of scale ``sigma``
    (:mod:`rlkit.noise`), clipped back into [-1, 1]. An Ornstein-Uhlenbeck process's position carries from
    step to step (it is this exploration's state) and resets where an episode ends."""

    def __init__(self, kind: str = "gaussian", sigma: float = 0.1, learning_starts: int = 0) -> None:
        make_noise(kind, sigma, (1, 1), np.random.default_rng(0))  # refuses an unknown kind now
        self.kind, self.sigma, self.learning_starts = kind, sigma, learning_starts
        self.process, self.rng = None, None

    def begin(self, plan: int, num_envs: int, rng: np.random.Generator) -> None:
        """A continued or resumed run (the same generator) keeps its process: rebuilding would restart OU at 0."""
        if rng is not self.rng:
            self.process, self.rng = None, rng

    def noise(self, shape: tuple[int, ...]):
        """The noise process for actions of ``shape`` (environments, action dimensions), built when first needed."""
        if self.process is None or self.process.shape != shape:
            self.process = make_noise(self.kind, self.sigma, shape, self.rng)
        return self.process

    def actions(self, agent, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        if step < self.learning_starts:
            return uniform_actions(agent, obs, rng)
        noise = self.noise((len(obs), agent.action_dim))()
        return np.clip(agent.policy(obs) + noise, -1.0, 1.0).astype(np.float32)

    def end_episodes(self, done: np.ndarray) -> None:
        if self.process is not None:
            self.process.reset(done)

    def state_dict(self) -> dict:
        """The OU process's position (Gaussian noise has none)."""
        position = getattr(self.process, "state", None)
        return {} if position is None else {"ou_state": position.copy()}

    def load_state_dict(self, state: dict) -> None:
        if "ou_state" in state:
            position = np.asarray(state["ou_state"], dtype=np.float32)
            self.noise(position.shape).state = position.copy()


class PolicySamples(Exploration):
    """SAC's: uniform-random actions until ``learning_starts``, then samples of the agent's own stochastic
    policy (``agent.explore``): its entropy is the exploration, no noise is added."""

    def __init__(self, learning_starts: int = 0) -> None:
        self.learning_starts = learning_starts

    def actions(self, agent, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        if step < self.learning_starts:
            return uniform_actions(agent, obs, rng)
        return agent.explore(obs, rng)
