"""Bad numbers never train silently: NaN or infinite data, losses and weights stop a run with a clear error.

A NaN reward or observation spreads through the TD targets into every weight within one burst, after which
the run trains on to the end and reports "last evaluation nan". The checks here run where the numbers are
already at hand, in numpy, and in bulk rather than per environment step: the transitions a burst (or a
rollout) adds are checked once before it is used, the metrics once after it, and the learner's weights once
after that (one more copy of them per burst). ``benchmarks/costs/numerics.py`` measures what they cost.
"""

from __future__ import annotations

import numpy as np

from rlkit.errors import RlkitError

_DATA_CAUSES = {
    "rewards": "the environment returned a NaN or infinite reward (a reward wrapper dividing by zero, a "
    "custom reward computed from unbounded state?)",
    "obs": "the environment returned a NaN or infinite observation (an unstable simulation, or a "
    "normalisation dividing by a zero variance?)",
    "next_obs": "the environment returned a NaN or infinite observation (an unstable simulation, or a "
    "normalisation dividing by a zero variance?)",
}
_UPDATE_CAUSE = (
    "the update diverged: a learning rate too high, rewards on a very large scale (try reward scaling), "
    "no gradient clipping, or a log/sqrt/division of zero in a loss"
)


def data_cause(name: str) -> str:
    """The likely cause of a NaN or infinity in the data field ``name`` (rewards, obs, next_obs)."""
    return _DATA_CAUSES[name]


class NonFiniteError(RlkitError):
    """A NaN or infinity reached training: the message names what, where and the likely cause."""


def first_non_finite(values: np.ndarray) -> int | None:
    """Index (along the first axis) of the first row holding a NaN or infinity, or None."""
    finite = np.isfinite(values.reshape(len(values), -1)).all(axis=1)
    return None if finite.all() else int(np.argmin(finite))


def check_new_transitions(buffer, count: int, first_step: int, step: int) -> None:
    """Check the ``count`` transitions most recently written into a ring ``buffer`` (stored between
    environment steps ``first_step`` and ``step``): rewards, observations, next observations."""
    if count == 0:
        return
    count = min(count, len(buffer))
    slots = (buffer.position - count + np.arange(count)) % buffer.capacity
    # the earliest bad transition, whatever the field: an infinite observation is first the next_obs of one
    # transition (then the obs of the following one), and the message should name where it entered
    found = []
    for name in ("rewards", "next_obs", "obs"):
        bad = first_non_finite(getattr(buffer, name)[slots])
        if bad is not None:
            found.append((bad, name))
    if found:
        bad, name = min(found)
        value = getattr(buffer, name)[slots[bad]]
        raise NonFiniteError(
            f"non-finite {name} in a transition stored between environment steps {first_step} and {step} "
            f"(transition {bad + 1} of {count}: {value!r}): {_DATA_CAUSES[name]}"
        )


def check_rollout(fields: dict[str, np.ndarray], step: int) -> None:
    """Check an on-policy rollout's (T, N, ...) arrays before the update that would learn from them."""
    for name, values in fields.items():
        bad = first_non_finite(values)
        if bad is not None:
            raise NonFiniteError(
                f"non-finite {name} in the rollout ending at environment step {step} (its step {bad} of "
                f"{len(values)}): {_DATA_CAUSES.get(name, _DATA_CAUSES['obs'])}"
            )


def check_finite_metrics(metrics: dict[str, float], step: int) -> None:
    """Stop when an update's loss (or any metric it reports) is NaN or infinite."""
    bad = [name for name, value in metrics.items() if not np.isfinite(value)]
    if bad:
        shown = ", ".join(f"{name}={metrics[name]}" for name in bad)
        raise NonFiniteError(f"non-finite {shown} in the update at environment step {step}: {_UPDATE_CAUSE}")


def check_finite_weights(agent, step: int, weights: list[np.ndarray] | None = None) -> None:
    """Stop when the weights an update produced hold a NaN or infinity: a gradient was not finite.

    ``weights``: the agent's ``get_weights()`` as already read (the loops pass what ``refresh`` read: a second
    read costs TensorFlow a call of its own, ~0.3 ms a rollout); None reads them here."""
    for index, array in enumerate(agent.get_weights() if weights is None else weights):
        if not np.isfinite(array).all():
            raise NonFiniteError(
                f"non-finite weights (array {index} of {type(agent).__name__}.get_weights(), shape {array.shape}) "
                f"after the update at environment step {step}: a gradient was NaN or infinite; {_UPDATE_CAUSE}"
            )
