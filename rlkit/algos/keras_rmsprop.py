"""Keras' RMSprop with epsilon where ``torch.optim.RMSprop`` puts it, so the twins take the same step.

torch divides the gradient by ``sqrt(v) + eps``; Keras by ``sqrt(v + eps)``. Under the root, SB3's A2C
epsilon of 1e-5 is a floor of about 3e-3 on the denominator: early in a run, while the average of squared
gradients is still far below 1e-5 (it starts at zero), Keras' steps are a small fraction of torch's, and the
large first steps that make RMSprop quick (``torch_rmsprop.py``) vanish. Stable-Baselines3 ships
``RMSpropTFLike`` for the same difference in the other direction (TensorFlow-era hyperparameters in torch).
:class:`TorchRMSprop` changes that one term (no momentum, not centred).
"""

from __future__ import annotations

import keras
from keras import ops


@keras.saving.register_keras_serializable("rlkit")
class TorchRMSprop(keras.optimizers.RMSprop):
    """``keras.optimizers.RMSprop`` whose update is ``torch.optim.RMSprop``'s: ``v = rho v + (1 - rho) g^2``,
    ``w -= lr g / (sqrt(v) + eps)``."""

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.99, epsilon: float = 1e-8, **kwargs) -> None:
        if kwargs.get("momentum") or kwargs.get("centered"):
            raise ValueError("TorchRMSprop implements plain RMSprop: no momentum, not centred")
        super().__init__(learning_rate=learning_rate, rho=rho, epsilon=epsilon, **kwargs)

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        velocity = self._velocities[self._get_variable_index(variable)]
        # torch: v.mul_(alpha).addcmul_(g, g, value=1 - alpha), in that order
        self.assign(
            velocity,
            ops.add(ops.multiply(velocity, self.rho), ops.multiply(ops.multiply(1 - self.rho, gradient), gradient)),
        )
        # Keras: sqrt(v + eps). torch: sqrt(v) + eps
        denominator = ops.add(ops.sqrt(velocity), self.epsilon)
        self.assign_sub(variable, ops.divide(ops.multiply(lr, gradient), denominator))
