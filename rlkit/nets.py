"""Numpy forward passes of the small networks the frameworks train.

Acting in an environment loop calls the policy once per step with a batch of one (or a few) observations.
At that size the fixed cost of a framework call dominates: measured here for a 64x64 MLP, numpy takes
~17 us, torch under ``inference_mode`` ~120 us, a ``tf.function`` ~700 us and an eager Keras call ~4.6 ms.
So agents act through a numpy copy of their weights (refreshed after each burst of updates) and the
frameworks do what they are good at, batched gradient steps. Tests check that this forward pass equals the
torch and TensorFlow ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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


def q_network_forward(
    weights: Sequence[np.ndarray],
    x: np.ndarray,
    *,
    dueling: bool = False,
    noisy: bool = False,
    n_atoms: int = 1,
    noise: np.ndarray | None = None,
) -> np.ndarray:
    """The numpy twin of DQN's ``QNetwork``: Q-values (B, A), or C51 logits (B, A, n_atoms) when n_atoms > 1.

    ``weights`` lists each layer's ``W, b`` (each ``W`` as (in, out)) -- trunk, then the dueling value head,
    then the output head -- and for noisy layers ``W_mu, b_mu, W_sigma, b_sigma``. ``noise`` holds standard
    normal draws, ``in + out`` per noisy layer in that order; ``None`` acts with the mean weights.
    """
    layers = (
        noisy_layers(weights, noise)
        if noisy
        else [linear(w, b) for w, b in zip(weights[0::2], weights[1::2], strict=True)]
    )
    hidden = np.asarray(x, dtype=np.float32)
    n_heads = 2 if dueling else 1
    for layer in layers[:-n_heads]:
        hidden = np.maximum(layer(hidden), 0.0)
    out = layers[-1](hidden)
    out = out.reshape(len(out), -1, n_atoms)
    if dueling:
        value = layers[-2](hidden)[:, None, :]
        # subtracting the mean makes V and A identifiable: without it any constant could move between them
        out = value + out - out.mean(axis=1, keepdims=True)
    return out if n_atoms > 1 else out[:, :, 0]


def linear(kernel: np.ndarray, bias: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: x @ kernel + bias


def scale_noise(noise: np.ndarray) -> np.ndarray:
    """f(x) = sign(x) sqrt(|x|), the factorised noise of Fortunato et al. (2018)."""
    return np.sign(noise) * np.sqrt(np.abs(noise))


def noisy_layers(weights: Sequence[np.ndarray], noise: np.ndarray | None) -> list[Callable[[np.ndarray], np.ndarray]]:
    """One function per noisy layer (weights ``[W_mu, b_mu, W_sigma, b_sigma, ...]``) under one noise draw.

    Factorised Gaussian noise: W = W_mu + W_sigma * f(eps_in) f(eps_out)^T and b = b_mu + b_sigma * f(eps_out).
    Applied as x W_mu + b_mu + ((x * f(eps_in)) W_sigma + b_sigma) * f(eps_out), the same numbers without
    building the (in, out) noise matrix: acting, which draws new noise every step, takes a third of the time.
    ``noise=None`` gives the mean weights (greedy acting and evaluation).
    """
    layers, offset = [], 0
    for w_mu, b_mu, w_sigma, b_sigma in zip(*[iter(weights)] * 4, strict=True):
        if noise is None:
            layers.append(linear(w_mu, b_mu))
            continue
        fan_in, fan_out = w_mu.shape
        eps_in = scale_noise(noise[offset : offset + fan_in])
        eps_out = scale_noise(noise[offset + fan_in : offset + fan_in + fan_out])
        offset += fan_in + fan_out
        layers.append(
            lambda x, w_mu=w_mu, b_mu=b_mu, w_sigma=w_sigma, b_sigma=b_sigma, eps_in=eps_in, eps_out=eps_out: (
                x @ w_mu + b_mu + ((x * eps_in) @ w_sigma + b_sigma) * eps_out
            )
        )
    if noise is not None and offset != len(noise):
        raise ValueError(f"noise has {len(noise)} values, the noisy layers use {offset}")
    return layers


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
