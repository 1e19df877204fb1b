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


def mlp_forward(weights: Sequence[np.ndarray], x: np.ndarray, activation: str = "relu") -> np.ndarray:
    """MLP with ``activation`` ("relu" or "tanh") between layers and a linear output layer.

    ``weights`` is ``[W0, b0, W1, b1, ...]`` with each ``W`` as (in, out).
    """
    x = np.asarray(x, dtype=np.float32)
    last = len(weights) - 2
    for i in range(0, len(weights), 2):
        x = x @ weights[i] + weights[i + 1]
        if i < last:
            if activation == "relu":
                np.maximum(x, 0.0, out=x)
            else:
                np.tanh(x, out=x)
    return x


def dueling_forward(weights: Sequence[np.ndarray], x: np.ndarray) -> np.ndarray:
    """Q-values of a dueling network: a ReLU trunk, then V(s) + A(s, a) - mean_a A(s, a).

    ``weights`` is ``[trunk W0, b0, ..., value W, b, advantage W, b]``, each ``W`` as (in, out).
    """
    hidden = np.asarray(x, dtype=np.float32)
    for i in range(0, len(weights) - 4, 2):
        hidden = np.maximum(hidden @ weights[i] + weights[i + 1], 0.0)
    value = hidden @ weights[-4] + weights[-3]
    advantage = hidden @ weights[-2] + weights[-1]
    return value + advantage - advantage.mean(axis=1, keepdims=True)


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


def orthogonal_mlp_weights(
    sizes: Sequence[int], seed: int, hidden_gain: float = np.sqrt(2), output_gain: float = 1.0
) -> list[np.ndarray]:
    """Orthogonal kernels (scaled by a gain) and zero biases, the initialisation policy-gradient methods use.

    The small output gain of a policy head (0.01) starts the policy near uniform; drawing the matrices in
    numpy gives torch and TensorFlow the same initial network for the same seed.
    """
    rng = np.random.default_rng(seed)
    weights = []
    layers = list(zip(sizes[:-1], sizes[1:], strict=True))
    for index, (fan_in, fan_out) in enumerate(layers):
        gain = output_gain if index == len(layers) - 1 else hidden_gain
        matrix = rng.normal(size=(max(fan_in, fan_out), min(fan_in, fan_out)))
        q, r = np.linalg.qr(matrix)
        q *= np.sign(np.diag(r))  # make the decomposition unique, so the draw is uniform over rotations
        kernel = q if fan_in >= fan_out else q.T
        weights.append((gain * kernel).astype(np.float32))
        weights.append(np.zeros(fan_out, dtype=np.float32))
    return weights
