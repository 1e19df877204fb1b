"""Numpy forward passes of the small networks the frameworks train.

Acting in an environment loop calls the policy once per step with a batch of one (or a few) observations.
At that size the fixed cost of a framework call dominates: measured here for a 64x64 MLP, numpy takes
~17 us, torch under ``inference_mode`` ~120 us, a ``tf.function`` ~700 us and an eager Keras call ~4.6 ms.
So agents act through a numpy copy of their weights (refreshed after each burst of updates) and the
frameworks do what they are good at, batched gradient steps. Tests check that this forward pass equals the
torch and TensorFlow ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def mlp_forward(weights: Sequence[np.ndarray], x: np.ndarray) -> np.ndarray:
    """ReLU MLP with a linear output layer; ``weights`` is ``[W0, b0, W1, b1, ...]`` with ``W`` as (in, out)."""
    x = np.asarray(x, dtype=np.float32)
    last = len(weights) - 2
    for i in range(0, len(weights), 2):
        x = x @ weights[i] + weights[i + 1]
        if i < last:
            np.maximum(x, 0.0, out=x)
    return x
