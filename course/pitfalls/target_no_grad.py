"""Claim C02: does a missing ``torch.no_grad()`` around the TD target leak memory every update?

One DDPG critic update, repeated, written in several ways: the target under ``torch.no_grad()`` or not;
detached inside the loss or not; and its mean logged as a Python float or added to a running total as a
tensor (the ``total += loss`` habit). Per way the experiment measures the process's memory growth per update,
the autograd graph still reachable afterwards (through the running total, and through the last target), the
time per update, and whether gradients landed on the target networks.
"""

from __future__ import annotations

import copy
import time

import numpy as np


def graph_nodes(tensor) -> list:
    """The autograd nodes reachable from ``tensor``'s ``grad_fn``: the graph it keeps alive (none for a leaf)."""
    seen, stack = {}, [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen[node] = None
        stack.extend(next_node for next_node, _ in node.next_functions)
    return list(seen)


def graph_size(tensor) -> int:
    """How many autograd nodes ``tensor`` keeps alive (0 for a leaf)."""
    return len(graph_nodes(tensor))


def graph_bytes(tensor) -> int:
    """Bytes of the tensors that ``tensor``'s autograd graph still holds for a backward pass (0 for a leaf).

    Each node keeps the inputs its gradient needs as ``_saved_*`` attributes; a backward pass frees them, after
    which reading one raises. Storages are counted once, however many nodes share them.
    """
    import torch

    storages = {}
    for node in graph_nodes(tensor):
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            try:
                saved = getattr(node, name)
            except RuntimeError:  # freed by a backward pass
                continue
            for value in saved if isinstance(saved, tuple) else (saved,):
                if isinstance(value, torch.Tensor):
                    storage = value.untyped_storage()
                    storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def run_updates(
    no_grad: bool, detach: bool, log_tensor: bool, updates: int = 40, batch: int = 1024, width: int = 256
) -> dict:
    """``updates`` critic steps of a DDPG-sized problem; returns the measurements of one way of writing it."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    obs_dim, action_dim = 3, 1

    def mlp(inputs: int, outputs: int) -> nn.Sequential:
        hidden = [nn.Linear(inputs, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU()]
        return nn.Sequential(*hidden, nn.Linear(width, outputs))

    actor, critic = mlp(obs_dim, action_dim), mlp(obs_dim + action_dim, 1)
    # copy.deepcopy keeps requires_grad=True: the usual way target networks are made, and not frozen here
    target_actor, target_critic = copy.deepcopy(actor), copy.deepcopy(critic)
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
    obs, actions, next_obs = (torch.from_numpy(rng.normal(size=(batch, d)).astype(np.float32)) for d in (3, 1, 3))
    rewards = torch.from_numpy(rng.normal(size=(batch, 1)).astype(np.float32))

    def target():
        next_actions = torch.tanh(target_actor(next_obs))
        return rewards + 0.99 * target_critic(torch.cat([next_obs, next_actions], dim=1))

    running_total, logged, start_memory, times = 0.0, [], None, []
    for update in range(updates + 5):
        if update == 5:  # after warm-up: allocator pools, Adam state and first-call costs are in place
            start_memory = rss_mb()
        start = time.perf_counter()
        if no_grad:
            with torch.no_grad():
                y = target()
        else:
            y = target()
        loss = ((critic(torch.cat([obs, actions], dim=1)) - (y.detach() if detach else y)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()  # frees the saved tensors of every graph it runs through
        optimizer.step()
        if log_tensor:  # the target's mean, still attached to the target's graph
            running_total = running_total + y.mean()
        else:
            logged.append(y.mean().item())
        times.append(time.perf_counter() - start)
    end_memory = rss_mb()
    return {
        "memory_per_update_mb": (end_memory - start_memory) / updates,
        "graph_mb_per_update": (graph_bytes(running_total) if log_tensor else 0) / 2**20 / (updates + 5),
        "graph_nodes_kept": graph_size(running_total) if log_tensor else 0,
        # the last target's own graph, after its update: freed by the backward pass unless the loss detached it
        "target_graph_mb_after_update": graph_bytes(y) / 2**20,
        "ms_per_update": 1e3 * float(np.median(times)),
        "gradients_on_targets": any(p.grad is not None for p in target_critic.parameters()),
    }


#: The ways, as (no_grad, detach in the loss, log a tensor), keyed by a short description.
WAYS = {
    "no_grad, log .item()": (True, False, False),
    "no_grad, log tensor": (True, False, True),
    "no no_grad, log .item()": (False, False, False),
    "no no_grad, log tensor": (False, False, True),
    "no no_grad, detach, log tensor": (False, True, True),
}


def no_grad_experiment(updates: int = 40) -> dict[str, dict]:
    """The measurements of every way in :data:`WAYS`."""
    return {name: run_updates(*flags, updates=updates) for name, flags in WAYS.items()}
