"""Training-health signals of a value-based agent, computed in numpy from what the
loop already has (claim C16).

Episode return is a late and noisy signal: early in training every run returns what
random play returns, whether it is learning or diverging. These signals look at the
value function itself:

* ``q_std``: the spread of Q(s, a) over a batch of replayed states. It grows steadily
  while values propagate (CartPole's values approach 1 / (1 - gamma) = 100) and
  explodes when the bootstrap feeds on itself.
* ``td_error_median``: the median |TD error| of the last gradient step, robust to the
  few large errors that prioritized replay and Huber loss are built for; it should
  stay near the scale of a reward.
* ``action_entropy``: the entropy (in nats, at most ln(n_actions)) of the greedy
  actions over the batch. A collapse to 0 means one action wins in every state,
  typical of runaway values.
"""

from __future__ import annotations

import numpy as np


def action_entropy(q_values: np.ndarray) -> float:
    """Entropy in nats of how often each action is the greedy one over a batch of
    Q-values (batch, actions)."""
    q_values = np.asarray(q_values)
    if q_values.ndim != 2 or len(q_values) == 0:
        raise ValueError(
            f"expected Q-values of shape (batch, n_actions), got {q_values.shape}"
        )
    counts = np.bincount(q_values.argmax(axis=1), minlength=q_values.shape[1])
    frequencies = counts[counts > 0] / len(q_values)
    # + 0.0: no "-0.0" for a single action
    return float(-(frequencies * np.log(frequencies)).sum()) + 0.0


def health_signals(
    q_values: np.ndarray, td_errors: np.ndarray | None = None
) -> dict[str, float]:
    """``q_std`` and ``action_entropy`` of a batch of Q-values, and
    ``td_error_median`` when TD errors are given."""
    signals = {
        "q_std": float(np.std(q_values)),
        "action_entropy": action_entropy(q_values),
    }
    if td_errors is not None and np.size(td_errors):
        signals["td_error_median"] = float(np.median(np.abs(td_errors)))
    return signals


def explained_variance(values: np.ndarray, returns: np.ndarray) -> float:
    """1 - Var(returns - values) / Var(returns): how much of the return's variance
    the critic accounts for.

    1 is a perfect critic, 0 one no better than predicting the mean, negative one
    worse than that; NaN when the returns have no variance (nothing to explain).
    Logged by A2C and PPO for the values the rollout was collected with, as
    Stable-Baselines3 does, so the figures compare.
    """
    variance = float(np.var(returns))
    return (
        float("nan")
        if variance == 0
        else 1.0 - float(np.var(returns - values)) / variance
    )
