"""Claim C08: a ``[B]`` reward meeting ``[B, 1]`` next-state values broadcasts to ``[B, B]`` without error.

The experiment builds a DQN-style TD target from rewards of shape ``(B,)`` and next-state values of shape
``(B, 1)`` -- the shape a Q-network's ``max(dim=1, keepdim=True)`` or a forgotten ``squeeze`` gives -- in
numpy, torch and TensorFlow, and records the target's shape. It then runs three real losses on it, the way
a DQN would: a hand-written mean of squares (torch), torch's ``F.mse_loss`` and Keras' ``MeanSquaredError``
(on TensorFlow). For each it records the loss against the correct one, every warning emitted
(``warnings.catch_warnings(record=True)``), and, through the framework's own autograd, the value each
predicted Q-value is pulled towards. With ``buggy=False`` the same numbers are used with the right shapes,
which is what the measurements are compared against (and how a test checks that they can tell).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np

#: The losses the experiment runs, in the order reported.
LOSSES = ("hand-written mean", "torch F.mse_loss", "Keras MeanSquaredError")


def _recorded(fn: Callable[[], np.ndarray]) -> tuple[np.ndarray, list[str]]:
    """Run ``fn`` and return its result with the text of every warning it emitted (none filtered out)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in caught]


def _torch_loss_and_grad(loss_fn, q: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    import torch

    q_t = torch.tensor(q, requires_grad=True)
    loss = loss_fn(q_t, torch.from_numpy(target))
    loss.backward()
    return float(loss.detach()), q_t.grad.numpy().copy()


def _keras_loss_and_grad(q: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    import keras
    import tensorflow as tf

    q_t = tf.Variable(q)
    with tf.GradientTape() as tape:
        loss = keras.losses.MeanSquaredError()(tf.constant(target), q_t)  # Keras' order: (y_true, y_pred)
    return float(loss), tape.gradient(loss, q_t).numpy()


def _loss_and_grad(name: str, q: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """The loss ``name`` of predictions ``q`` (B,) against ``target``, and its gradient with respect to ``q``."""
    if name == "hand-written mean":
        return _torch_loss_and_grad(lambda pred, y: ((y - pred) ** 2).mean(), q, target)
    if name == "torch F.mse_loss":
        from torch.nn import functional as F

        return _torch_loss_and_grad(F.mse_loss, q, target)
    if name == "Keras MeanSquaredError":
        return _keras_loss_and_grad(q, target)
    raise ValueError(f"unknown loss {name!r}; choose from {LOSSES}")


def broadcast_td_experiment(batch_size: int = 64, gamma: float = 0.99, seed: int = 0, buggy: bool = True) -> dict:
    """Run the C08 experiment; return the target's shape per framework and, per loss, what it measured.

    ``losses[name]`` holds ``loss`` (its value), ``warnings`` (the messages it emitted), ``bootstrap_spread``
    (the standard deviation over the batch of ``q* - r``, where ``q*`` is the value the gradient pulls each
    Q-value towards: ``gamma * V(s'_j)`` when right, a constant when each sample's own next state is lost)
    and ``max_target_error`` (the largest distance of ``q*`` from the correct target). ``correct_loss`` and
    ``correct_bootstrap_spread`` are the same quantities with the right shapes.

    ``q*`` comes from two gradient evaluations: these losses are quadratic with one Q-value per term, so the
    gradient is ``h * (q - q*)`` with a constant ``h`` per sample, read off as ``grad(q + 1) - grad(q)``.
    """
    rng = np.random.default_rng(seed)
    q = rng.normal(size=batch_size).astype(np.float32)  # Q(s, a) of the taken actions, shape (B,)
    rewards = rng.normal(size=batch_size).astype(np.float32)
    next_values = rng.normal(size=(batch_size, 1)).astype(np.float32)  # the bug: (B, 1)
    not_done = np.ones(batch_size, dtype=np.float32)
    if not buggy:
        next_values = next_values[:, 0]
    right_target = rewards + gamma * not_done * next_values.reshape(-1)

    import tensorflow as tf
    import torch

    def target_in(convert) -> tuple[int, ...]:
        return tuple((convert(rewards) + gamma * convert(not_done) * convert(next_values)).shape)

    shapes = {"numpy": target_in(np.asarray), "torch": target_in(torch.from_numpy), "tf": target_in(tf.constant)}
    target = rewards + gamma * not_done * next_values  # (B, B) with the bug: row i pairs V(s'_i) with every r_j

    losses = {}
    for name in LOSSES:
        (loss, grad), messages = _recorded(lambda name=name: _loss_and_grad(name, q, target))
        (_, grad_shifted), _ = _recorded(lambda name=name: _loss_and_grad(name, q + 1, target))
        pulled_towards = q - grad / (grad_shifted - grad)
        losses[name] = {
            "loss": loss,
            "warnings": messages,
            "bootstrap_spread": float(np.std(pulled_towards - rewards)),
            "max_target_error": float(np.abs(pulled_towards - right_target).max()),
        }
    return {
        "batch_size": batch_size,
        "target_shapes": shapes,
        "correct_loss": float(np.mean((right_target - q) ** 2)),
        "correct_bootstrap_spread": float(np.std(right_target - rewards)),
        "losses": losses,
    }
