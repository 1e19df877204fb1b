"""Claim C01: ``tf.clip_by_value`` is not differentiable in PPO and must be replaced by nested ``tf.where``.

The experiment evaluates PPO's clipped surrogate ``min(r A, clip(r, 1 - eps, 1 + eps) A)`` at ratios inside,
outside and exactly on the clip boundaries, for a positive and a negative advantage, and takes the gradient
with respect to the ratio in three ways: ``torch.clamp``, ``tf.clip_by_value`` and nested ``tf.where``. It
also takes the gradient of the clip alone, ``d clip(r) / d r``, for each of the three.
"""

from __future__ import annotations

import numpy as np


def surrogate_gradients(clip: float = 0.2) -> dict[str, np.ndarray]:
    """d surrogate / d ratio for each implementation (keyed by its name), d clip / d ratio (keyed
    ``"clip only: <name>"``), and the ratios and advantages used."""
    import tensorflow as tf
    import torch

    ratios = np.array([0.5, 1 - clip, 0.9, 1.0, 1.1, 1 + clip, 1.5], dtype=np.float32)
    ratios = np.concatenate([ratios, ratios])
    advantages = np.concatenate([np.ones(7), -np.ones(7)]).astype(np.float32)

    grads = {}
    for clip_only in (False, True):
        r = torch.tensor(ratios, requires_grad=True)
        a = torch.tensor(advantages)
        clipped = torch.clamp(r, 1 - clip, 1 + clip)
        (clipped if clip_only else torch.minimum(r * a, clipped * a)).sum().backward()
        grads["clip only: torch.clamp" if clip_only else "torch.clamp"] = r.grad.numpy()

    def tf_gradient(clip_fn, clip_only: bool) -> np.ndarray:
        r_tf = tf.Variable(ratios)
        with tf.GradientTape() as tape:
            clipped = clip_fn(r_tf)
            target = clipped if clip_only else tf.minimum(r_tf * advantages, clipped * advantages)
            total = tf.reduce_sum(target)
        return tape.gradient(total, r_tf).numpy()

    implementations = {
        "tf.clip_by_value": lambda x: tf.clip_by_value(x, 1 - clip, 1 + clip),
        "nested tf.where": lambda x: tf.where(x > 1 + clip, 1 + clip, tf.where(x < 1 - clip, 1 - clip, x)),
    }
    for name, clip_fn in implementations.items():
        grads[name] = tf_gradient(clip_fn, clip_only=False)
        grads[f"clip only: {name}"] = tf_gradient(clip_fn, clip_only=True)
    return {"ratios": ratios, "advantages": advantages, **grads}
