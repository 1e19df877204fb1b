"""Replay memory: a preallocated numpy ring buffer.

One array per field, allocated once at full capacity, written in place: no per-transition Python objects,
no tensors in the buffer, and a sample is one fancy-indexing gather per field (claim C35 compares this
layout with a deque of tensors). Batches come out as float32/int64 numpy arrays that already satisfy the
algorithms' tensor contracts; the framework converts them once, inside its update step.
"""

from __future__ import annotations

import numpy as np

from rlkit.errors import RlkitError
from rlkit.state import object_state, restore_object


class ReplayBuffer:
    """Ring buffer of ``(obs, action, reward, next_obs, terminated)`` transitions.

    ``terminated`` (not ``done``) is stored: a transition cut by a time limit is still bootstrapped from
    ``next_obs``, so truncation never enters the buffer as a terminal (claim C10).
    """

    #: What a resumed run needs of the buffer (:meth:`state_dict`).
    STATE = ("obs", "next_obs", "actions", "rewards", "terminated", "discounts", "rng", "position", "size")

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        action_shape: tuple[int, ...] = (),
        action_dtype: type | np.dtype = np.int64,
        obs_dtype: type | np.dtype = np.float32,
        seed: int | None = None,
        with_discounts: bool = False,
    ) -> None:
        if not isinstance(capacity, int | np.integer) or capacity < 1:
            raise RlkitError(f"ReplayBuffer capacity must be a positive int, got {capacity!r}")
        self.capacity = int(capacity)
        self.obs = np.zeros((capacity, *obs_shape), dtype=obs_dtype)
        self.next_obs = np.zeros((capacity, *obs_shape), dtype=obs_dtype)
        self.actions = np.zeros((capacity, *action_shape), dtype=action_dtype)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.terminated = np.zeros(capacity, dtype=np.float32)
        #: Per-transition bootstrap discounts (gamma^k of n-step transitions), when ``with_discounts``.
        self.discounts = np.zeros(capacity, dtype=np.float32) if with_discounts else None
        self.rng = np.random.default_rng(seed)
        self.position = 0  # next slot to write
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def nbytes(self) -> int:
        """Memory held by the arrays, in bytes."""
        arrays = (self.obs, self.next_obs, self.actions, self.rewards, self.terminated, self.discounts)
        return sum(a.nbytes for a in arrays if a is not None)

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        """Store a batch of transitions (leading axis = transitions); wraps around when full."""
        n = len(rewards)
        if n == 0:
            return
        if n > self.capacity:
            raise RlkitError(f"cannot add {n} transitions to a buffer of capacity {self.capacity}")
        slots = (self.position + np.arange(n)) % self.capacity
        self.obs[slots] = obs
        self.actions[slots] = actions
        self.rewards[slots] = rewards
        self.next_obs[slots] = next_obs
        self.terminated[slots] = terminated
        if self.discounts is not None:
            if discounts is None:
                raise RlkitError("this buffer stores n-step discounts: pass discounts= to add()")
            self.discounts[slots] = discounts
        self.position = int((self.position + n) % self.capacity)
        self.size = min(self.size + n, self.capacity)

    def sample(self, batch_size: int) -> dict[str, np.ndarray]:
        """A uniform sample (with replacement) of ``batch_size`` stored transitions."""
        if self.size == 0:
            raise RlkitError("cannot sample from an empty ReplayBuffer: add transitions first")
        return self.gather(self.rng.integers(0, self.size, size=batch_size))

    def gather(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """The stored fields at ``idx`` (any index shape), one fancy-indexing gather per field."""
        batch = {
            "obs": self.obs[idx],
            "actions": self.actions[idx],
            "rewards": self.rewards[idx],
            "next_obs": self.next_obs[idx],
            "terminated": self.terminated[idx],
        }
        if self.discounts is not None:
            batch["discounts"] = self.discounts[idx]
        return batch

    def sample_many(self, num_batches: int, batch_size: int) -> dict[str, np.ndarray]:
        """``num_batches`` independent uniform batches stacked along a leading axis: (K, B, ...).

        One gather for a whole burst of gradient steps. Drawing them up front is exact for uniform replay,
        whose sampling distribution does not change while the network trains.
        """
        flat = self.sample(num_batches * batch_size)
        return {name: values.reshape(num_batches, batch_size, *values.shape[1:]) for name, values in flat.items()}

    def state_dict(self) -> dict:
        """The stored transitions, where the next one goes and the sampling generator (plain data)."""
        return object_state(self, names=self.STATE)

    def load_state_dict(self, state: dict) -> None:
        restore_object(self, state)


class RolloutBuffer:
    """One on-policy rollout: ``T`` steps of ``N`` environments, as (T, N, ...) arrays.

    ``obs`` has one more row than the rest: the observation after the rollout, whose value bootstraps the
    last step. ``valid`` marks real transitions (gymnasium's autoreset steps are False; see
    :class:`rlkit.envs.EnvRunner`); :meth:`flatten` keeps only those. ``obs_dtype``: float32 vectors, or
    images as they come (uint8 pixels, bool grids), as in :class:`ReplayBuffer`.
    """

    def __init__(
        self,
        num_steps: int,
        num_envs: int,
        obs_shape: tuple[int, ...],
        action_shape: tuple[int, ...] = (),
        action_dtype: type | np.dtype = np.int64,
        obs_dtype: type | np.dtype = np.float32,
    ) -> None:
        if num_steps < 1 or num_envs < 1:
            raise RlkitError(f"RolloutBuffer needs num_steps and num_envs >= 1, got {num_steps}, {num_envs}")
        self.num_steps, self.num_envs = num_steps, num_envs
        self.obs = np.zeros((num_steps + 1, num_envs, *obs_shape), dtype=obs_dtype)
        self.actions = np.zeros((num_steps, num_envs, *action_shape), dtype=action_dtype)
        self.rewards = np.zeros((num_steps, num_envs), dtype=np.float32)
        self.terminated = np.zeros((num_steps, num_envs), dtype=np.float32)
        self.dones = np.zeros((num_steps, num_envs), dtype=np.float32)
        self.valid = np.zeros((num_steps, num_envs), dtype=bool)
        self.step = 0

    def add(self, obs, actions, rewards, terminated, truncated, valid) -> None:
        """Store one vector step (each argument has the environments along its first axis)."""
        if self.step >= self.num_steps:
            raise RlkitError("RolloutBuffer is full: call reset() before the next rollout")
        t = self.step
        self.obs[t], self.actions[t], self.rewards[t] = obs, actions, rewards
        self.terminated[t] = terminated
        self.dones[t] = np.logical_or(terminated, truncated)
        self.valid[t] = valid
        self.step += 1

    def finish(self, last_obs: np.ndarray) -> None:
        """Record the observation after the last step (the bootstrap of the rollout's end)."""
        self.obs[self.num_steps] = last_obs

    def reset(self) -> None:
        self.step = 0

    def flatten(self, **per_step: np.ndarray) -> dict[str, np.ndarray]:
        """Observations, actions and any other (T, N, ...) arrays given, flattened and filtered to valid steps."""
        keep = self.valid.reshape(-1)
        fields = {"obs": self.obs[:-1], "actions": self.actions, **per_step}
        return {name: values.reshape(-1, *values.shape[2:])[keep] for name, values in fields.items()}


class PrioritizedReplayBuffer(ReplayBuffer):
    """Proportional prioritized replay (Schaul et al. 2016) over a :class:`~rlkit.sum_tree.SumTree`.

    Transition i is drawn with probability P(i) = p_i^alpha / sum_j p_j^alpha, where p_i = |TD error| + eps
    from its last update; new transitions get the largest priority seen so far, so each is replayed at least
    about once. Samples carry importance weights w_j = (N P(j))^-beta divided by the largest weight of their
    batch (as Dopamine does; OpenAI baselines divides by the largest over the whole buffer). With a constant
    normaliser, beta = 1 would undo the bias of non-uniform sampling exactly, up to that constant factor;
    the batch's largest weight depends on the batch drawn, so a small bias remains, against the least likely
    transitions (chapter 13 measures it). The loop anneals beta towards 1.

    A burst samples all its batches from the priorities at the start of the burst and updates them after it
    (:meth:`update_priorities` with the burst's TD errors): priorities lag by at most one burst.
    """

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        action_shape: tuple[int, ...] = (),
        action_dtype: type | np.dtype = np.int64,
        obs_dtype: type | np.dtype = np.float32,
        seed: int | None = None,
        with_discounts: bool = False,
        alpha: float = 0.6,
        eps: float = 1e-6,
    ) -> None:
        from rlkit.sum_tree import SumTree

        super().__init__(capacity, obs_shape, action_shape, action_dtype, obs_dtype, seed, with_discounts)
        if alpha < 0:
            raise RlkitError(f"PrioritizedReplayBuffer alpha must be >= 0, got {alpha!r}")
        self.alpha, self.eps = float(alpha), float(eps)
        self.tree = SumTree(self.capacity)
        self.max_priority = 1.0

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        n = len(rewards)
        slots = (self.position + np.arange(n)) % self.capacity
        super().add(obs, actions, rewards, next_obs, terminated, discounts)
        self.tree.update(slots, np.full(n, self.max_priority**self.alpha))

    def sample(self, batch_size: int, beta: float = 1.0) -> dict[str, np.ndarray]:
        """A prioritized sample with ``indices`` (for :meth:`update_priorities`) and importance ``weights``."""
        return {name: values[0] for name, values in self.sample_many(1, batch_size, beta).items()}

    def sample_many(self, num_batches: int, batch_size: int, beta: float = 1.0) -> dict[str, np.ndarray]:
        """``num_batches`` prioritized batches stacked as (K, B, ...), drawn together from the current priorities."""
        if self.size == 0:
            raise RlkitError("cannot sample from an empty PrioritizedReplayBuffer: add transitions first")
        idx = self.tree.sample(batch_size, self.rng, num_batches)
        weights = (self.size * self.tree.priorities(idx) / self.tree.total) ** -beta
        weights = (weights / weights.max(axis=1, keepdims=True)).astype(np.float32)
        return {**self.gather(idx), "weights": weights, "indices": idx}

    def update_priorities(self, indices: np.ndarray, td_errors: np.ndarray) -> None:
        """New priorities (|TD error| + eps)^alpha for the sampled ``indices`` (any shape, matching)."""
        priorities = np.abs(np.asarray(td_errors, dtype=np.float64)).reshape(-1) + self.eps
        self.max_priority = max(self.max_priority, float(priorities.max()))
        self.tree.update(np.asarray(indices).reshape(-1), priorities**self.alpha)

    def state_dict(self) -> dict:
        """The replay state and the priorities: the sum tree and the largest priority so far."""
        own = object_state(self, names=("max_priority",))
        return {**super().state_dict(), **own, "tree": {"object": self.tree.state_dict()}}
