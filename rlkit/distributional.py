"""The categorical (C51) return distribution, in numpy: its support, its mean, and
the projection of a shifted and shrunk distribution back onto the support
(Bellemare et al. 2017).

The twins in ``rlkit/algos/dqn/torch.py`` and ``tf.py`` compute the same projection
with the same formula; this numpy version is what the agent acts with, what the tests
compare against, and what chapter 14 draws.

Why a "hat" formula and not the paper's floor/ceil scatter: atom i of the target
lands at position ``b_i = (clip(r + d z_i) - v_min) / dz`` on the grid of atoms; the
paper splits its mass between ``floor(b_i)`` and ``ceil(b_i)`` in proportion to the
distance, which needs a scatter-add (and a special case when ``b_i`` is a whole
number, where floor = ceil and a naive version loses the mass). The same split is
``m_j = sum_i p_i * max(0, 1 - |b_i - j|)``: a triangle ("hat") of width one around
every atom j. That is one broadcast (B, N, N) product and a sum, identical in numpy,
torch and TensorFlow, with no scatter, no Python loop and no special case; the hats
sum to one at every point of [0, N - 1], so mass is conserved. At N = 51 the
(B, N, N) temporary is 51 times the batch of distributions: small for a CPU course.
"""

from __future__ import annotations

import numpy as np


def categorical_support(v_min: float, v_max: float, n_atoms: int) -> np.ndarray:
    """The N evenly spaced return values z_0 = v_min, ..., z_{N-1} = v_max the
    distribution lives on."""
    return np.linspace(v_min, v_max, n_atoms, dtype=np.float32)


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def expected_q(logits: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Q(s, a) = sum_j p_j(s, a) z_j for logits of shape (..., N)."""
    return softmax(logits) @ support


def project_distribution(
    probs: np.ndarray,
    rewards: np.ndarray,
    discounts: np.ndarray,
    support: np.ndarray,
) -> np.ndarray:
    """Project the distribution of r + discount * Z (``probs`` (B, N) on ``support``)
    back onto ``support``.

    ``discounts`` is gamma^k, or 0 where the episode terminated (then all mass lands
    at r). Returns (B, N) probabilities; each row sums to one.
    """
    v_min, v_max = support[0], support[-1]
    delta = (v_max - v_min) / (len(support) - 1)
    shifted = np.clip(
        rewards[:, None] + discounts[:, None] * support[None, :], v_min, v_max
    )
    # (B, N): where each target atom lands on the grid 0..N-1
    position = (shifted - v_min) / delta
    # float32: an int64 grid would promote to float64
    atoms = np.arange(len(support), dtype=position.dtype)
    hats = np.maximum(1.0 - np.abs(position[:, :, None] - atoms[None, None, :]), 0.0)
    # m[b, j] = sum_i probs[b, i] hats[b, i, j]
    return (probs[:, None, :] @ hats)[:, 0]


def project_distribution_loop(
    probs: np.ndarray,
    rewards: np.ndarray,
    discounts: np.ndarray,
    support: np.ndarray,
) -> np.ndarray:
    """The same projection as Algorithm 1 of the C51 paper writes it: one sample and
    one atom at a time, mass split between floor(b) and ceil(b). Slow; kept as the
    reference the vectorised versions are checked against (and timed against in
    chapter 14)."""
    v_min, v_max, n_atoms = float(support[0]), float(support[-1]), len(support)
    delta = (v_max - v_min) / (n_atoms - 1)
    projected = np.zeros(probs.shape, dtype=np.float64)
    for b in range(len(probs)):
        for i in range(n_atoms):
            position = (
                min(max(rewards[b] + discounts[b] * support[i], v_min), v_max)
                - v_min
            ) / delta
            lower, upper = int(np.floor(position)), int(np.ceil(position))
            # lands exactly on an atom: the paper's two weights would both be zero
            # here
            if lower == upper:
                projected[b, lower] += probs[b, i]
            else:
                projected[b, lower] += probs[b, i] * (upper - position)
                projected[b, upper] += probs[b, i] * (position - lower)
    return projected
