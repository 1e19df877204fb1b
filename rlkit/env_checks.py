"""Environment faults named where they enter: at the vector environment's boundary, once per vector step.

An environment that returns an observation of the wrong shape, a reward that is not a finite scalar, or flags
that are not booleans used to surface far from its cause (gymnasium's "Output array is the wrong shape", numpy's
"setting an array element with a sequence", a NaN loss bursts later). :class:`StepCheck` compares the batched
arrays of a step with what the vector env declared (a handful of attribute comparisons and the rewards' sum,
non-finite if one is; no Python loop over sub-environments: ``benchmarks/env_checks.py`` measures it) and only
when something differs builds the message: the env id, the environment step, expected against received. A
failure inside the vector env's own step (a sub-environment's array that does not fit the batch) is named the
same way. gymnasium's ``SyncVectorEnv`` copies each sub-environment's values into its own typed arrays, so there
an observation of another dtype or flags that are not booleans arrive converted (the batch checks see them
from other vector envs); a wrong shape or a non-scalar reward fails its copy and is named.
"""

from __future__ import annotations

import math

import numpy as np

from rlkit.errors import EnvironmentFault
from rlkit.numerics import NonFiniteError, data_cause

#: Why a reward is NaN or infinite, as the NaN checks of the stored data say it.
CAUSE = data_cause("rewards")
NON_FINITE = "finite rewards were expected"


class NonFiniteReward(EnvironmentFault, NonFiniteError):
    """A NaN or infinite reward, caught at the step it arrived: an environment fault, and the non-finite data
    that :mod:`rlkit.numerics` would otherwise stop the run for a burst later."""


def vector_env_id(envs) -> str:
    """The id of the vector env's environment (its class name when it has no registered spec)."""
    first = envs.envs[0] if hasattr(envs, "envs") else envs
    spec = getattr(first, "spec", None)
    return spec.id if spec is not None else type(getattr(first, "unwrapped", first)).__name__


class StepCheck:
    """The checks of one vector env's steps; ``check`` raises :class:`EnvironmentFault` on the first fault."""

    def __init__(self, envs) -> None:
        self.env_id, n = vector_env_id(envs), envs.num_envs
        space = envs.single_observation_space
        self.obs_shape = None if space.shape is None else (n, *space.shape)
        self.obs_dtype = space.dtype
        self.flag_shape, self.ones = (n,), np.ones(n)

    def check(self, step: int, obs, rewards, terminated, truncated) -> None:
        """``step``: the environment steps taken, this one included. The fast path is one boolean expression."""
        if (
            (self.obs_shape is not None and (obs.shape != self.obs_shape or obs.dtype != self.obs_dtype))
            or rewards.shape != self.flag_shape
            or rewards.dtype.kind not in "fiu"
            or terminated.dtype != np.bool_
            or truncated.dtype != np.bool_
            or terminated.shape != self.flag_shape
            or truncated.shape != self.flag_shape
            or not math.isfinite(rewards.dot(self.ones))  # the sum, non-finite if a reward is; a third of the time
            # of np.isfinite(rewards).all() at 8 envs
        ):
            faults = self.faults(obs, rewards, terminated, truncated)
            if faults:  # none: finite rewards whose sum overflowed (beyond 1e307)
                message = f"the environment {self.env_id} at step {step:,}: {'; '.join(faults)}{self.hint()}"
                if len(faults) == 1 and faults[0].startswith(NON_FINITE):  # what the data's NaN checks raise too
                    raise NonFiniteReward(f"non-finite rewards at environment step {step:,}: {message}; {CAUSE}")
                raise EnvironmentFault(message)

    def faults(self, obs, rewards, terminated, truncated) -> list[str]:
        """What is wrong, for the message (the slow path: only after the fast one flagged the step)."""
        faults = []
        if self.obs_shape is not None and (obs.shape != self.obs_shape or obs.dtype != self.obs_dtype):
            faults.append(
                f"observations of shape {self.obs_shape} and dtype {self.obs_dtype} were expected (the observation "
                f"space), {obs.shape} {obs.dtype} arrived"
            )
        if rewards.shape != self.flag_shape or rewards.dtype.kind not in "fiu":
            faults.append(f"one scalar reward per environment, shape {self.flag_shape}, was expected, got "
                          f"{rewards.shape} {rewards.dtype}")  # fmt: skip
        elif not np.isfinite(rewards).all():
            faults.append(f"{NON_FINITE}, got {rewards[~np.isfinite(rewards)][:3].tolist()}")
        for name, flags in (("terminated", terminated), ("truncated", truncated)):
            if flags.dtype != np.bool_ or flags.shape != self.flag_shape:
                faults.append(f"{name} as booleans of shape {self.flag_shape} was expected, got {flags.shape} "
                              f"{flags.dtype}")  # fmt: skip
        return faults

    def failed(self, step: int, exc: Exception) -> EnvironmentFault:
        """The vector env's own step failed on what a sub-environment returned (an array that does not fit)."""
        shape = "?" if self.obs_shape is None else self.obs_shape[1:]
        return EnvironmentFault(
            f"the environment {self.env_id} at step {step:,} returned what does not fit its vector env ({exc}): "
            f"each step should return an observation of shape {shape} and dtype {self.obs_dtype}, a scalar finite "
            f"reward and boolean terminated/truncated{self.hint()}"
        )

    def hint(self) -> str:
        return "; check the environment's step (gymnasium.utils.env_checker.check_env runs it against its spaces)"
