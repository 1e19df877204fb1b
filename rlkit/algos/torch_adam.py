"""``torch.optim.Adam(fused=True)``'s step, without ``torch.optim``'s wrappers.

torch's optimizers are written to be traced by ``torch.compile``: building one imports
``torch._dynamo`` (1.3-1.7 s of CPU on this course's 2-core machine, about as long as
importing torch itself, paid by every run in a fresh process), and every ``step()``
passes through hooks, a grad-mode guard, a dynamo graph break and a regrouping of
tensors by device and dtype before it reaches the one fused kernel: 80 us a step for
DQN's 128x128 Q-network, against 39 us for the kernel called directly
(``benchmarks/costs/torch_adam.py``). rlkit's learners compile nothing, so :class:`FusedAdam`
calls that kernel, ``torch._fused_adam_``, itself: the same kernel on the same tensors,
so the weights it produces are bit for bit those of ``torch.optim.Adam(fused=True)``
(``tests/algorithms/test_torch_adam.py`` checks it step by step, learning-rate changes and a state
reset included). The kernel is an ATen operator without a documented Python API;
pyproject.toml pins torch, and that test fails if a release changes it.

It keeps the parts of ``torch.optim.Optimizer`` that rlkit uses, in its format:
``param_groups`` (one group; its ``"lr"`` is read every step), ``state`` (per
parameter ``step``, ``exp_avg``, ``exp_avg_sq``; cleared to forget the moments),
``zero_grad``, ``state_dict`` and ``load_state_dict``, so checkpoints read either.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch


class OneGroupOptimizer:
    """What rlkit uses of ``torch.optim.Optimizer``, in its format, for one parameter group: ``zero_grad``,
    ``state_dict`` and ``load_state_dict``. A subclass sets ``param_groups`` and writes ``step`` and
    ``new_state`` (one parameter's zero state, as torch.optim makes it)."""

    def __init__(self, params: Iterable[torch.nn.Parameter]) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError(f"{type(self).__name__} got an empty parameter list")
        self.param_groups: list[dict] = []
        #: parameter -> its state (a step count and the running averages), made at its first step
        self.state: dict[torch.Tensor, dict[str, torch.Tensor]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.params:
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.zero_()

    def new_state(self, param: torch.Tensor) -> dict[str, torch.Tensor]:
        raise NotImplementedError

    def with_gradients(self) -> tuple[list[torch.Tensor], list[dict[str, torch.Tensor]]]:
        """The parameters that have a gradient, and their states (a parameter's made at its first step)."""
        params = [param for param in self.params if param.grad is not None]
        return params, [self.state.get(param) or self.new_state(param) for param in params]

    def state_dict(self) -> dict:
        """``torch.optim.Optimizer.state_dict``'s layout: state by parameter index."""
        index = {param: i for i, param in enumerate(self.params)}
        group = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        return {
            "state": {index[p]: dict(s) for p, s in self.state.items()},
            "param_groups": [{**group, "params": list(range(len(self.params)))}],
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what :meth:`state_dict` (or the torch.optim optimizer's) saved for the same
        parameters."""
        groups = state_dict["param_groups"]
        if len(groups) != 1 or len(groups[0]["params"]) != len(self.params):
            raise ValueError(
                f"expected one parameter group of {len(self.params)} parameters, "
                f"got {[len(g['params']) for g in groups]}"
            )
        self.param_groups[0]["lr"] = groups[0]["lr"]
        self.state = {}
        for i, saved in state_dict["state"].items():
            param = self.params[int(i)]
            state = self.new_state(param)
            with torch.no_grad():
                for key in state:
                    state[key].copy_(torch.as_tensor(saved[key]))


class FusedAdam(OneGroupOptimizer):
    """Adam (Kingma & Ba 2015) with torch's formula: no weight decay, no amsgrad."""

    def __init__(
        self,
        params: Iterable[torch.nn.Parameter],
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        super().__init__(params)
        if not lr > 0 or not eps > 0 or not all(0 <= beta < 1 for beta in betas):
            raise ValueError(
                f"FusedAdam expects lr > 0, eps > 0 and betas in [0, 1), got lr={lr}, eps={eps}, betas={betas}"
            )
        self.param_groups = [{"params": self.params, "lr": lr, "betas": tuple(betas), "eps": eps}]

    def step(self) -> None:
        """One Adam step for every parameter that has a gradient."""
        group = self.param_groups[0]
        params, states = self.with_gradients()
        if not params:
            return
        steps = [state["step"] for state in states]
        beta1, beta2 = group["betas"]
        with torch.no_grad():
            torch._foreach_add_(steps, 1)
            torch._fused_adam_(
                params,
                [param.grad for param in params],
                [state["exp_avg"] for state in states],
                [state["exp_avg_sq"] for state in states],
                [],
                steps,
                lr=float(group["lr"]),
                beta1=beta1,
                beta2=beta2,
                weight_decay=0.0,
                eps=group["eps"],
                amsgrad=False,
                maximize=False,
            )

    def new_state(self, param: torch.Tensor) -> dict[str, torch.Tensor]:
        """Zero moments and a step count of 0, as torch.optim.Adam(fused=True) makes
        them (the count a float32 scalar on the parameter's device)."""
        state = {
            "step": torch.zeros((), dtype=torch.float32, device=param.device),
            "exp_avg": torch.zeros_like(param, memory_format=torch.preserve_format),
            "exp_avg_sq": torch.zeros_like(param, memory_format=torch.preserve_format),
        }
        self.state[param] = state
        return state
