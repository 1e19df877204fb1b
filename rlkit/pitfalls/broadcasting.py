"""Claim C08: a ``[B]`` reward meeting ``[B, 1]`` next-state values broadcasts to ``[B, B]`` without error.

The experiment computes a DQN-style squared TD loss twice from the same numbers: once with every tensor of
shape ``(B,)`` and once with the next-state values left as ``(B, 1)``, the shape a Q-network's
``max(dim=1, keepdim=True)`` or a forgotten ``squeeze`` gives. It reports whether anything raised, the shape
of the target, and what the gradient pulls each predicted Q-value towards: with the bug, every sample's
target becomes ``r_j + gamma * mean(V(s'))`` — the next state of each transition no longer matters.
"""

from __future__ import annotations

import numpy as np


def broadcast_td_experiment(batch_size: int = 64, gamma: float = 0.99, seed: int = 0) -> dict:
    """Run the C08 experiment in numpy, torch and TensorFlow; return shapes, errors and gradient overlap."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=batch_size).astype(np.float32)  # Q(s, a) of the taken actions, shape (B,)
    rewards = rng.normal(size=batch_size).astype(np.float32)
    next_values = rng.normal(size=(batch_size, 1)).astype(np.float32)  # the bug: (B, 1)
    not_done = np.ones(batch_size, dtype=np.float32)

    def target_shape(xp_rewards, xp_next, xp_not_done):
        return tuple((xp_rewards + gamma * xp_not_done * xp_next).shape)

    # The gradient of mean((target - q)^2) with respect to q, correct and buggy, in closed form.
    right_target = rewards + gamma * not_done * next_values[:, 0]
    wrong_target = rewards + gamma * not_done * next_values  # (B, B): row i pairs next_values[i] with all j
    grad_right = -2 * (right_target - q) / batch_size
    grad_wrong = (-2 * (wrong_target - q[None, :])).sum(axis=0) / wrong_target.size
    cosine = float(grad_right @ grad_wrong / (np.linalg.norm(grad_right) * np.linalg.norm(grad_wrong)))
    # What each q[j] is pulled towards: its own r_j + gamma * V(s'_j), or (bug) r_j + gamma * mean(V(s')).
    pulled_towards_wrong = wrong_target.mean(axis=0)

    shapes = {"numpy": target_shape(rewards, next_values, not_done)}
    import torch

    shapes["torch"] = target_shape(torch.from_numpy(rewards), torch.from_numpy(next_values), torch.from_numpy(not_done))
    import tensorflow as tf

    shapes["tf"] = target_shape(tf.constant(rewards), tf.constant(next_values), tf.constant(not_done))
    return {
        "batch_size": batch_size,
        "target_shapes": shapes,
        "gradient_cosine": cosine,
        # spread of the bootstrap term gamma * V(s'_j) across the batch, as each sample's gradient sees it
        "bootstrap_spread_right": float(np.std(right_target - rewards)),
        "bootstrap_spread_wrong": float(np.std(pulled_towards_wrong - rewards)),
        "loss_right": float(np.mean((right_target - q) ** 2)),
        "loss_wrong": float(np.mean((wrong_target - q[None, :]) ** 2)),
    }
