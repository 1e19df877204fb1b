"""The categorical (C51) return distribution, in numpy: its support, its mean, and the projection of a
shifted and shrunk distribution back onto the support (Bellemare et al. 2017).

The twins in ``rlkit/algos/dqn/torch.py`` and ``tf.py`` compute the same projection with the same formula;
this numpy version is what the agent acts with, what the tests compare against, and what chapter 14 draws.

Why a "hat" formula and not the paper's floor/ceil scatter: atom i of the target lands at position
``b_i = (clip(r + d z_i) - v_min) / dz`` on the grid of atoms; the paper splits its mass between
``floor(b_i)`` and ``ceil(b_i)`` in proportion to the distance, which needs a scatter-add (and a special
case when ``b_i`` is a whole number, where floor = ceil and a naive version loses the mass). The same split
is ``m_j = sum_i p_i * max(0, 1 - |b_i - j|)``: a triangle ("hat") of width one around every atom j. That is
one broadcast (B, N, N) product and a sum, identical in numpy, torch and TensorFlow, with no scatter, no
Python loop and no special case; the hats sum to one at every point of [0, N - 1], so mass is conserved.
At N = 51 the (B, N, N) temporary is 51 times the batch of distributions: small for a CPU course.
"""

from __future__ import annotations

import numpy as np


def categorical_support(v_min: float, v_max: float, n_atoms: int) -> np.ndarray:
    """The N evenly spaced return values z_0 = v_min, ..., z_{N-1} = v_max the distribution lives on."""
    return np.linspace(v_min, v_max, n_atoms, dtype=np.float32)


def softmax(logits: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def expected_q(logits: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Q(s, a) = sum_j p_j(s, a) z_j for logits of shape (..., N)."""
    return softmax(logits) @ support


def project_distribution(
    probs: np.ndarray, rewards: np.ndarray, discounts: np.ndarray, support: np.ndarray
) -> np.ndarray:
    """Project the distribution of r + discount * Z (``probs`` (B, N) on ``support``) back onto ``support``.

    ``discounts`` is gamma^k, or 0 where the episode terminated (then all mass lands at r).
    Returns (B, N) probabilities; each row sums to one.
    """
    v_min, v_max = support[0], support[-1]
    delta = (v_max - v_min) / (len(support) - 1)
    shifted = np.clip(rewards[:, None] + discounts[:, None] * support[None, :], v_min, v_max)
    position = (shifted - v_min) / delta  # (B, N): where each target atom lands on the grid 0..N-1
    hats = np.clip(1.0 - np.abs(position[:, :, None] - np.arange(len(support))[None, None, :]), 0.0, 1.0)
    return (probs[:, :, None] * hats).sum(axis=1)
