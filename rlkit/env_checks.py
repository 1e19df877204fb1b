"""Environment faults named where they enter: at the vector environment's boundary, once per vector step.

An environment that returns an observation of the wrong shape or dtype, a reward that is not a finite scalar, or
flags that are not booleans used to surface far from its cause (gymnasium's "Output array is the wrong shape",
numpy's "setting an array element with a sequence", a NaN loss bursts later). :class:`StepCheck` compares the
batched arrays of a step with what the vector env declared (a handful of attribute comparisons and the rewards'
sum, non-finite if one is) and only when something differs builds the message: the env id, the environment
step, expected against received. ``benchmarks/costs/env_checks.py`` measures what it costs per step.

gymnasium's ``SyncVectorEnv`` copies each sub-environment's observation into an array of the space's dtype, so
an environment returning float64 observations in a float32 space (or integers in a float space) would arrive
converted: the check also reads the sub-environments' own observations, which ``SyncVectorEnv`` keeps in its
``_env_obs`` list (gymnasium 1.4's does; where a vector env has no such list, only the batch is checked).

A failure inside the vector env's own step is blamed on the environment only where it is the environment's:
raised inside a sub-environment's ``step`` or ``reset``, or by the vector env fitting what one returned into its
batch. Actions that do not fit the action space are the caller's fault (rlkit's or a custom policy's), named as
such even where the environment is the one that raised; anything else propagates unchanged.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np

from rlkit.errors import EnvironmentFault, RlkitError
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
        self.envs, self.env_id, n = envs, vector_env_id(envs), envs.num_envs
        space = envs.single_observation_space
        self.obs_shape = None if space.shape is None else (n, *space.shape)
        self.obs_dtype = space.dtype
        self.flag_shape, self.ones = (n,), np.ones(n)
        action_space = getattr(envs, "single_action_space", None)
        self.action_shape = None if getattr(action_space, "shape", None) is None else (n, *action_space.shape)
        self.action_kinds = "iu" if isinstance(action_space, gym.spaces.Discrete) else "fiu"

    def check_sources(self, step: int) -> None:
        """The sub-environments' own observations, before the vector env converted them to the space's dtype:
        a loop of identity tests over ``num_envs`` arrays (builtin dtypes are singletons); ``step`` 0 is the reset.
        """
        expected = self.obs_dtype
        for index, obs in enumerate(getattr(self.envs, "_env_obs", ())):
            if obs.__class__ is not np.ndarray or obs.dtype is not expected:
                received = getattr(obs, "dtype", None)
                if received != expected:  # an equal dtype that is another object (a byte order spelled out) passes
                    raise EnvironmentFault(self.source_fault(step, index, obs))

    def source_fault(self, step: int, index: int, obs) -> str:
        """The message for a sub-environment's observation of another dtype (or no array) than its space's."""
        received = f"dtype {obs.dtype}" if isinstance(obs, np.ndarray) else f"a {type(obs).__name__}"
        when = "its reset" if step == 0 else f"step {step:,}"
        return (
            f"the environment {self.env_id} (copy {index}) at {when}: observations of dtype {self.obs_dtype} were "
            f"expected (the observation space), {received} arrived, which the vector env would convert silently; "
            f"return np.asarray(obs, dtype=np.{self.obs_dtype}) from reset and step, or declare the observation "
            f"space with the dtype the environment returns{self.hint()}"
        )

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

    def failed(self, step: int, actions, exc: Exception) -> Exception | None:
        """What to raise for ``exc`` from the vector env's step, by whose fault it is: actions that do not fit
        the action space are the caller's (an :class:`~rlkit.errors.RlkitError` naming them, whoever raised);
        an error raised inside a sub-environment's step or reset, or while the vector env fits what one
        returned into its batch, is the environment's; None for anything else (``exc`` propagates as it is)."""
        wrong = self.action_fault(actions)
        if wrong is not None:
            return RlkitError(
                f"the actions passed to the environment {self.env_id} at step {step:,} {wrong}, and its step failed "
                f"({type(exc).__name__}: {exc}): the actions come from the policy (rlkit's agent, or your own "
                "code calling the vector env), not from the environment; act with the agent on the environment's "
                "observations (agent.act(obs)), which returns one action per copy"
            )
        where = raised_in(exc, self.envs)
        if where in ("step", "reset"):
            return EnvironmentFault(
                f"the environment {self.env_id} at step {step:,}: its own {where} raised {type(exc).__name__}: "
                f"{exc}{self.hint()}"
            )
        if where == "batch":
            shape = "?" if self.obs_shape is None else self.obs_shape[1:]
            return EnvironmentFault(
                f"the environment {self.env_id} at step {step:,} returned what does not fit its vector env ({exc}): "
                f"each step should return an observation of shape {shape} and dtype {self.obs_dtype}, a scalar "
                f"finite reward and boolean terminated/truncated{self.hint()}"
            )
        return None

    def action_fault(self, actions) -> str | None:
        """How ``actions`` do not fit the vector env's action space (shape, and integers for Discrete), or None."""
        if self.action_shape is None:
            return None
        actions = np.asarray(actions)
        if actions.shape != self.action_shape or actions.dtype.kind not in self.action_kinds:
            kind = "integers" if self.action_kinds == "iu" else "numbers"
            return f"were {actions.shape} {actions.dtype}, where its action space takes {kind} of shape " + str(
                self.action_shape
            )
        return None

    def hint(self) -> str:
        return "; check the environment's step (gymnasium.utils.env_checker.check_env runs it against its spaces)"


def raised_in(exc: BaseException, envs) -> str | None:
    """Where in the vector env ``envs`` the exception ``exc`` was raised: ``"step"`` or ``"reset"`` when its
    traceback goes through that method of a sub-environment (the environment's own code, wrappers included),
    ``"batch"`` when its innermost frame is the vector env's own step or reset (assigning what a sub-environment
    returned to its arrays) or gymnasium's ``concatenate`` (stacking the observations); else None."""
    subs = {id(env) for env in getattr(envs, "envs", ())}
    frames, traceback = [], exc.__traceback__
    while traceback is not None:
        frames.append(traceback.tb_frame)
        traceback = traceback.tb_next
    for frame in frames:
        if frame.f_code.co_name in ("step", "reset") and id(frame.f_locals.get("self")) in subs:
            return frame.f_code.co_name
    for frame in frames:
        if "concatenate" in frame.f_code.co_name and frame.f_globals.get("__name__", "").startswith("gymnasium.vector"):
            return "batch"
    if frames and frames[-1].f_code.co_name in ("step", "reset") and frames[-1].f_locals.get("self") is envs:
        return "batch"
    return None
