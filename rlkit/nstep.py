"""n-step transitions: one-step transitions of a vector environment folded into n-step ones, per environment.

An n-step transition starts at s_t with action a_t and carries the discounted reward of the next n steps,
R = r_t + gamma r_(t+1) + ... + gamma^(n-1) r_(t+n-1), the observation n steps later, and the discount of
its bootstrap, gamma^n: the TD target becomes R + discount * (1 - terminated) * V(s_(t+n)).

Episode ends cut the window short, and the two kinds of end differ (claim C10):

* termination: every pending transition of that environment is emitted with its shorter return and
  ``terminated = 1`` (no bootstrap: there is nothing after a terminal state);
* truncation (a time limit): they are emitted with ``terminated = 0`` and the true final observation as
  ``next_obs``, with discount gamma^k for their k remaining steps, so the value beyond the cut is bootstrapped.

Steps flagged ``valid = False`` (gymnasium's autoreset steps, see :class:`rlkit.envs.EnvRunner`) are skipped.
"""

from __future__ import annotations

import numpy as np

from rlkit.errors import RlkitError
from rlkit.state import object_state, restore_object


class NStepFolder:
    """Keeps each environment's last ``n`` steps and emits n-step transitions as they complete."""

    def __init__(self, n: int, gamma: float, num_envs: int) -> None:
        if not isinstance(n, int) or n < 1:
            raise RlkitError(f"n-step horizon must be a positive int, got {n!r}")
        self.n, self.gamma = n, float(gamma)
        self.pending: list[list[tuple]] = [[] for _ in range(num_envs)]  # per env: (obs, action, reward)

    def state_dict(self) -> dict:
        """The pending windows: steps whose n-step transitions are not complete yet."""
        return object_state(self, names=("pending",))

    def load_state_dict(self, state: dict) -> None:
        restore_object(self, state)

    def step(self, obs, actions, rewards, next_obs, terminated, truncated, valid) -> dict[str, np.ndarray] | None:
        """Add one vector step (arrays over environments); returns the completed n-step transitions or None."""
        if self.n == 1:  # every valid step is complete at once: no windows, no Python loop over environments
            return self._one_step(obs, actions, rewards, next_obs, terminated, np.asarray(valid, dtype=bool))
        out: list[tuple] = []
        for env in np.flatnonzero(valid):
            window = self.pending[env]
            window.append((obs[env], actions[env], float(rewards[env])))
            if terminated[env] or truncated[env]:
                while window:  # the episode ended: every pending transition completes now
                    out.append(self._fold(window, next_obs[env], bool(terminated[env])))
                    window.pop(0)
            elif len(window) == self.n:
                out.append(self._fold(window, next_obs[env], False))
                window.pop(0)
        if not out:
            return None
        obs_out, actions_out, returns, next_out, terminated_out, discounts = zip(*out, strict=True)
        return {
            "obs": np.stack(obs_out).astype(np.float32),
            "actions": np.stack(actions_out),
            "rewards": np.asarray(returns, dtype=np.float32),
            "next_obs": np.stack(next_out).astype(np.float32),
            "terminated": np.asarray(terminated_out, dtype=np.float32),
            "discounts": np.asarray(discounts, dtype=np.float32),
        }

    def _one_step(self, obs, actions, rewards, next_obs, terminated, valid) -> dict[str, np.ndarray] | None:
        if not valid.any():
            return None
        return {
            "obs": np.asarray(obs[valid], dtype=np.float32),
            "actions": np.asarray(actions)[valid],
            "rewards": np.asarray(rewards, dtype=np.float32)[valid],
            "next_obs": np.asarray(next_obs[valid], dtype=np.float32),
            "terminated": np.asarray(terminated, dtype=np.float32)[valid],
            "discounts": np.full(int(valid.sum()), self.gamma, dtype=np.float32),
        }

    def _fold(self, window: list[tuple], next_obs: np.ndarray, terminated: bool) -> tuple:
        """The n-step transition starting at ``window[0]`` and ending after ``window[-1]``."""
        rewards = np.array([reward for _, _, reward in window])
        discounted = float(np.sum(rewards * self.gamma ** np.arange(len(window))))
        first_obs, first_action, _ = window[0]
        return first_obs, first_action, discounted, next_obs, terminated, self.gamma ** len(window)
