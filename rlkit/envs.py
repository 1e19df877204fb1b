"""Environments: creating them with clear errors, and stepping vector environments without fake transitions.

Two facts of gymnasium 1.x shape this module:

* ``step`` returns ``terminated`` and ``truncated`` separately. Only termination ends the return; a
  truncated episode (CartPole's 500-step time limit) must still bootstrap from the value of the observation
  it stopped in (claim C10). The runner keeps both flags apart.
* Vector environments reset a finished sub-environment on the *next* call to ``step`` (the default
  "next-step" autoreset). The observation returned with ``terminated | truncated`` is the true final
  observation; the following step ignores the action and returns the reset observation with reward 0.
  That step is not a transition of the environment, and :class:`EnvRunner` marks it ``valid=False`` so no
  buffer ever stores it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from rlkit.errors import RlkitError, did_you_mean

#: Returns that count as "solved" where the environment's spec has no ``reward_threshold``.
SOLVE_THRESHOLDS: dict[str, float] = {"Pendulum-v1": -200.0}


def make_env(env_id: str, seed: int | None = None, **kwargs) -> gym.Env:
    """``gymnasium.make`` with one clear error for unknown ids, and the action space seeded.

    The observation space is not reset here: pass ``seed`` to the first ``reset`` (the runner does).
    """
    if not isinstance(env_id, str):
        raise RlkitError(f"env must be a gymnasium id such as 'CartPole-v1', got {env_id!r}")
    try:
        env = gym.make(env_id, **kwargs)
    except gym.error.Error as exc:
        hint = did_you_mean(env_id, gym.envs.registry.keys())
        raise RlkitError(f"unknown environment '{env_id}' ({exc}).{hint}") from None
    if seed is not None:
        env.action_space.seed(seed)
    return env


def make_vec_env(env_id: str, num_envs: int = 1, seed: int | None = None, **kwargs) -> gym.vector.VectorEnv:
    """A synchronous vector of ``num_envs`` copies (sub-environment ``i``'s action space seeded ``seed + i``).

    Synchronous beats asynchronous for classic-control tasks: a CartPole step costs microseconds, far less
    than sending it to another process.
    """
    if not isinstance(num_envs, int) or num_envs < 1:
        raise RlkitError(f"num_envs must be a positive int, got {num_envs!r}")
    make_env(env_id).close()  # fail here, once, with a clear message for an unknown id
    fns = [(lambda i=i: make_env(env_id, None if seed is None else seed + i, **kwargs)) for i in range(num_envs)]
    envs = gym.vector.SyncVectorEnv(fns)
    if seed is not None:
        envs.action_space.seed(seed)
    return envs


def solve_threshold(env_id: str) -> float | None:
    """The return at which ``env_id`` counts as solved (its spec's ``reward_threshold``), if any."""
    spec = gym.spec(env_id)
    if spec.reward_threshold is not None:
        return float(spec.reward_threshold)
    return SOLVE_THRESHOLDS.get(env_id)


def space_info(space: gym.Space) -> dict:
    """The numbers a network needs from a space: ``{'discrete': True, 'n': 2}`` or ``{'shape': (3,), ...}``."""
    if isinstance(space, gym.spaces.Discrete):
        return {"discrete": True, "n": int(space.n)}
    if isinstance(space, gym.spaces.Box):
        return {"discrete": False, "shape": tuple(space.shape), "low": space.low, "high": space.high}
    raise RlkitError(f"rlkit supports Discrete and Box spaces, got {space}")


_NO_RETURNS = np.zeros(0, dtype=np.float64)
_NO_LENGTHS = np.zeros(0, dtype=np.int64)


@dataclass
class Transitions:
    """One vector step as arrays over sub-environments; ``valid`` is False for autoreset steps."""

    obs: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    next_obs: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    valid: np.ndarray


@dataclass
class EnvRunner:
    """Steps a gymnasium 1.x vector env, tracks episode returns, and flags autoreset steps as invalid.

    ``step(actions)`` returns :class:`Transitions`; the completed episodes since the last call are in
    ``pop_episodes()`` as ``(returns, lengths)`` arrays.
    """

    envs: gym.vector.VectorEnv
    seed: int | None = None
    obs: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = self.envs.num_envs
        self.obs, _ = self.envs.reset(seed=self.seed)
        self._autoreset = np.zeros(n, dtype=bool)
        self._ep_return = np.zeros(n, dtype=np.float64)
        self._ep_length = np.zeros(n, dtype=np.int64)
        self._done_returns: list[float] = []
        self._done_lengths: list[int] = []

    def step(self, actions: np.ndarray) -> Transitions:
        next_obs, rewards, terminated, truncated, _ = self.envs.step(actions)
        valid = ~self._autoreset
        self._ep_return += np.where(valid, rewards, 0.0)
        self._ep_length += valid
        done = (terminated | truncated) & valid
        if done.any():
            self._done_returns.extend(self._ep_return[done].tolist())
            self._done_lengths.extend(self._ep_length[done].tolist())
            self._ep_return[done] = 0.0
            self._ep_length[done] = 0
        self._autoreset = terminated | truncated
        batch = Transitions(self.obs, actions, rewards, next_obs, terminated, truncated, valid)
        self.obs = next_obs
        return batch

    def pop_episodes(self) -> tuple[np.ndarray, np.ndarray]:
        """Returns and lengths of the episodes completed since the last call (empty arrays if none)."""
        if not self._done_returns:
            return _NO_RETURNS, _NO_LENGTHS
        returns = np.asarray(self._done_returns, dtype=np.float64)
        lengths = np.asarray(self._done_lengths, dtype=np.int64)
        self._done_returns, self._done_lengths = [], []
        return returns, lengths

    def close(self) -> None:
        self.envs.close()
