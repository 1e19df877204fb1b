"""``torch.optim.RMSprop(foreach=True)``'s step, without ``torch.optim``'s wrappers (why: ``torch_adam.py``).

RMSprop (Tieleman & Hinton 2012) divides each gradient by the root of a running average of its squares, as Adam
does, but keeps no average of the gradients and corrects no bias: the average starts at zero, so the first
steps are up to ``1 / sqrt(1 - alpha)`` times the step size (10x at ``alpha=0.99``), shrinking to it over a few
hundred updates. That start is why Stable-Baselines3's A2C, which steps with RMSprop, solves CartPole in half
the steps it takes with Adam at the same step size (``benchmarks/RESULTS.md``, "A2C's optimiser").

:class:`ForeachRMSprop` runs the same ``torch._foreach_*`` calls on the same tensors as torch's multi-tensor
RMSprop (no momentum, not centred, no weight decay), so the weights are bit for bit its
(``tests/algorithms/test_torch_rmsprop.py``). Epsilon is added to the root, as torch does; Keras adds it under
the root, which ``keras_rmsprop.py`` changes for the TensorFlow twin.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from rlkit.algos.torch_adam import OneGroupOptimizer


class ForeachRMSprop(OneGroupOptimizer):
    """RMSprop with torch's formula: ``v = alpha v + (1 - alpha) g^2``, ``w -= lr g / (sqrt(v) + eps)``."""

    def __init__(self, params: Iterable[torch.nn.Parameter], lr: float, alpha: float = 0.99, eps: float = 1e-8) -> None:
        super().__init__(params)
        if not lr > 0 or not eps > 0 or not 0 <= alpha < 1:
            raise ValueError(
                f"ForeachRMSprop expects lr > 0, eps > 0 and alpha in [0, 1), got lr={lr}, eps={eps}, alpha={alpha}"
            )
        self.param_groups = [{"params": self.params, "lr": lr, "alpha": alpha, "eps": eps}]

    def step(self) -> None:
        """One RMSprop step for every parameter that has a gradient."""
        group = self.param_groups[0]
        params, states = self.with_gradients()
        if not params:
            return
        grads = [param.grad for param in params]
        square_avgs = [state["square_avg"] for state in states]
        with torch.no_grad():
            torch._foreach_add_([state["step"] for state in states], 1)
            torch._foreach_mul_(square_avgs, group["alpha"])
            torch._foreach_addcmul_(square_avgs, grads, grads, value=1 - group["alpha"])
            roots = torch._foreach_sqrt(square_avgs)
            torch._foreach_add_(roots, group["eps"])
            torch._foreach_addcdiv_(params, grads, roots, value=-float(group["lr"]))

    def new_state(self, param: torch.Tensor) -> dict[str, torch.Tensor]:
        """A zero average and a step count of 0, as torch.optim.RMSprop makes them."""
        state = {
            "step": torch.zeros((), dtype=torch.float32, device=param.device),
            "square_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
        }
        self.state[param] = state
        return state
