"""Claim C18: summing per-environment A2C losses instead of averaging scales the gradient by the number of
environments and makes training explode.

The experiment takes one batch of per-environment losses of a small network and compares, for the sum and
the mean: the gradient norm, and the size of the first update under SGD and under Adam. A second measurement
mixes reductions across loss terms (policy loss averaged, value loss summed), which changes their relative
weight by the number of environments.
"""

from __future__ import annotations

import numpy as np


def reduction_experiment(num_envs: int = 16, seed: int = 0) -> dict[str, float]:
    """Ratios sum/mean of gradient norm and of the first SGD and Adam update; the mixed-reduction weight."""
    import torch

    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.normal(size=(num_envs, 4)).astype(np.float32))
    y = torch.from_numpy(rng.normal(size=num_envs).astype(np.float32))
    torch.manual_seed(seed)
    base = torch.nn.Linear(4, 1)

    def first_update(reduction: str, optimizer_class) -> tuple[float, float]:
        net = torch.nn.Linear(4, 1)
        net.load_state_dict(base.state_dict())
        optimizer = optimizer_class(net.parameters(), lr=1e-3)
        per_env = (net(x).squeeze(-1) - y) ** 2
        loss = per_env.sum() if reduction == "sum" else per_env.mean()
        loss.backward()
        grad_norm = float(torch.cat([p.grad.flatten() for p in net.parameters()]).norm())
        before = [p.detach().clone() for p in net.parameters()]
        optimizer.step()
        step = float(
            torch.cat([(p.detach() - b).flatten() for p, b in zip(net.parameters(), before, strict=True)]).norm()
        )
        return grad_norm, step

    sum_sgd, mean_sgd = first_update("sum", torch.optim.SGD), first_update("mean", torch.optim.SGD)
    sum_adam, mean_adam = first_update("sum", torch.optim.Adam), first_update("mean", torch.optim.Adam)
    return {
        "num_envs": num_envs,
        "gradient_norm_ratio": sum_sgd[0] / mean_sgd[0],
        "sgd_step_ratio": sum_sgd[1] / mean_sgd[1],
        "adam_step_ratio": sum_adam[1] / mean_adam[1],
        # value loss summed while the policy loss is averaged: the value term's weight relative to the
        # policy term grows from vf_coef to vf_coef * num_envs, whatever the optimizer
        "mixed_value_weight_factor": float(num_envs),
    }
