"""Keras' Adam with epsilon where ``torch.optim.Adam`` puts it, so the twins take the
same step.

Both libraries implement Adam, but not the same formula. torch divides the
bias-corrected first moment by ``sqrt(v_hat) + eps``; Keras folds the bias
corrections into the step size and divides by ``sqrt(v) + eps``, which in torch's
terms is an epsilon of ``eps / sqrt(1 - beta_2^t)`` — 32 times larger on the first
step. For a weight with a gradient near ``eps`` (common in a policy head initialised
with gain 0.01) the two steps then differ by most of the learning rate.
:class:`TorchAdam` changes that one term.

It reads Adam's moment slots ``_momentums`` / ``_velocities``, which Keras does not
document: pyproject.toml pins keras to the minor release this was tested with, and
the equivalence tests fail if a release moves them.
"""

from __future__ import annotations

import keras
from keras import ops


@keras.saving.register_keras_serializable("rlkit")
class TorchAdam(keras.optimizers.Adam):
    """``keras.optimizers.Adam`` whose update is ``torch.optim.Adam``'s (no amsgrad,
    no weight decay)."""

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        step = ops.cast(self.iterations + 1, variable.dtype)
        beta_1_power = ops.power(ops.cast(self.beta_1, variable.dtype), step)
        beta_2_power = ops.power(ops.cast(self.beta_2, variable.dtype), step)
        m = self._momentums[self._get_variable_index(variable)]
        v = self._velocities[self._get_variable_index(variable)]
        alpha = lr * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(
            v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.beta_2)
        )
        # Keras: sqrt(v) + eps. torch: sqrt(v / (1 - beta_2^t)) + eps, i.e.
        # sqrt(v) + eps * sqrt(1 - beta_2^t).
        denominator = ops.add(ops.sqrt(v), self.epsilon * ops.sqrt(1 - beta_2_power))
        self.assign_sub(variable, ops.divide(ops.multiply(m, alpha), denominator))

    def reset(self) -> None:
        """Zero the step count and both moment estimates, as a freshly built
        optimizer has them."""
        for variable in [self.iterations, *self._momentums, *self._velocities]:
            variable.assign(ops.zeros_like(variable))
