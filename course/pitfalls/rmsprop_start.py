"""Chapter 21: how big an optimiser's first steps are, and where Keras and torch put RMSprop's epsilon.

RMSprop divides each gradient by the root of a running average of its squares that starts at zero, and
nothing corrects that start: for a steady gradient its step is ``1 / sqrt(1 - alpha^t)`` times the step
size, ten times at the first update for ``alpha = 0.99``. Adam divides the start away. Keras' RMSprop
adds its epsilon under the root (``sqrt(v + eps)``) where torch adds it after (``sqrt(v) + eps``): with a
gradient far below ``sqrt(eps)`` Keras' steps are a fraction of the step size from the start.
:func:`step_sizes` steps one weight with one steady gradient through each, in the frameworks themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: The optimisers compared, in the order the chapter plots them.
OPTIMIZERS = ("torch RMSprop (SB3's)", "torch Adam", "Keras RMSprop", "rlkit's TorchRMSprop (Keras)")


def step_sizes(updates: int = 400, gradient: float = 1e-3, lr: float = 1e-3, eps: float = 1e-5) -> dict:
    """Each optimiser's step on one weight at each of ``updates`` updates, all with the same ``gradient``,
    as a multiple of ``lr`` (RMSprop's decay 0.99, Adam's betas 0.9 and 0.999; ``eps`` for all)."""
    import keras
    import torch

    from rlkit.algos.keras_rmsprop import TorchRMSprop
    from rlkit.algos.torch_adam import FusedAdam
    from rlkit.algos.torch_rmsprop import ForeachRMSprop

    def torch_steps(make: Callable) -> np.ndarray:
        weight = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))
        optimizer, steps = make([weight]), []
        for _ in range(updates):
            before = weight.item()
            weight.grad = torch.full((1,), gradient, dtype=torch.float64)
            optimizer.step()
            steps.append(before - weight.item())
        return np.array(steps) / lr

    def keras_steps(optimizer) -> np.ndarray:
        weight = keras.Variable(np.zeros(1), dtype="float64")
        steps = []
        for _ in range(updates):
            before = float(weight.numpy()[0])
            optimizer.apply_gradients([(np.full(1, gradient), weight)])
            steps.append(before - float(weight.numpy()[0]))
        return np.array(steps) / lr

    runs = (
        lambda: torch_steps(lambda params: ForeachRMSprop(params, lr=lr, alpha=0.99, eps=eps)),
        lambda: torch_steps(lambda params: FusedAdam(params, lr=lr, eps=eps)),
        lambda: keras_steps(keras.optimizers.RMSprop(learning_rate=lr, rho=0.99, epsilon=eps)),
        lambda: keras_steps(TorchRMSprop(learning_rate=lr, rho=0.99, epsilon=eps)),
    )
    return {name: run() for name, run in zip(OPTIMIZERS, runs, strict=True)}


def rmsprop_formula(updates: int, gradient: float = 1e-3, eps: float = 1e-5, alpha: float = 0.99) -> np.ndarray:
    """torch's RMSprop step for a steady gradient, as a multiple of the step size, from the formula:
    ``g / (sqrt((1 - alpha^t) g^2) + eps)``, about ``1 / sqrt(1 - alpha^t)`` while ``eps`` is small beside g."""
    t = np.arange(1, updates + 1)
    return gradient / (np.sqrt(1 - alpha**t) * gradient + eps)
