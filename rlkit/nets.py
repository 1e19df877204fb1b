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


def init_mlp_weights(sizes: Sequence[int], seed: int) -> list[np.ndarray]:
    """Initial weights ``[W0, b0, ...]`` for layer sizes ``[in, h1, ..., out]``, drawn in numpy.

    Each weight and bias is drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), torch.nn.Linear's default.
    Drawing them here rather than in a framework gives torch and TensorFlow the *same* initial network for
    the same seed, so the two frameworks' runs can be compared curve against curve.
    """
    rng = np.random.default_rng(seed)
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        bound = 1.0 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, size=(fan_in, fan_out)).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, size=fan_out).astype(np.float32))
    return weights
