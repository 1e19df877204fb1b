"""Claim C01: ``tf.clip_by_value`` is not differentiable in PPO and must be replaced by nested ``tf.where``.

The experiment evaluates PPO's clipped surrogate ``min(r A, clip(r, 1 - eps, 1 + eps) A)`` at ratios inside,
outside and exactly on the clip boundaries, for a positive and a negative advantage, and takes the gradient
with respect to the ratio in three ways: ``torch.clamp``, ``tf.clip_by_value`` and nested ``tf.where``.
"""

from __future__ import annotations

import numpy as np


def surrogate_gradients(clip: float = 0.2) -> dict[str, np.ndarray]:
    """d surrogate / d ratio for each implementation; also the ratios and advantages used."""
    import tensorflow as tf
    import torch

    ratios = np.array([0.5, 1 - clip, 0.9, 1.0, 1.1, 1 + clip, 1.5], dtype=np.float32)
    ratios = np.concatenate([ratios, ratios])
    advantages = np.concatenate([np.ones(7), -np.ones(7)]).astype(np.float32)

    r = torch.tensor(ratios, requires_grad=True)
    a = torch.tensor(advantages)
    torch.minimum(r * a, torch.clamp(r, 1 - clip, 1 + clip) * a).sum().backward()
    grads = {"torch.clamp": r.grad.numpy()}

    def tf_gradient(clip_fn) -> np.ndarray:
        r_tf = tf.Variable(ratios)
        with tf.GradientTape() as tape:
            surrogate = tf.reduce_sum(tf.minimum(r_tf * advantages, clip_fn(r_tf) * advantages))
        return tape.gradient(surrogate, r_tf).numpy()

    grads["tf.clip_by_value"] = tf_gradient(lambda x: tf.clip_by_value(x, 1 - clip, 1 + clip))
    grads["nested tf.where"] = tf_gradient(
        lambda x: tf.where(x > 1 + clip, 1 + clip, tf.where(x < 1 - clip, 1 - clip, x))
    )
    return {"ratios": ratios, "advantages": advantages, **grads}
