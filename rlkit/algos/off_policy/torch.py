"""What DDPG, TD3 and SAC share, in PyTorch: networks, target copies, the critic
step, bursts, weights.

``tf.py`` mirrors this file line by line. Each algorithm subclasses
:class:`OffPolicyLearner` and supplies
``next_value`` (what its TD target bootstraps from) and ``actor_step``
(how its actor learns); TD3 also supplies ``policy_due`` and SAC ``alpha``.
``# differs:`` marks each place where the frameworks truly differ.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from rlkit.algos.off_policy.config import (
    OffPolicyConfig,
    burst_metrics,
    flatten_burst,
    initial_weights,
    off_policy_contract,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.batches import with_defaults
from rlkit.checkpoints import read_torch_checkpoint, write_torch_checkpoint
from rlkit.hardware import configure_torch, resolve_device


def build_mlp(
    in_dim: int, out_dim: int, hidden_sizes: tuple[int, ...]
) -> nn.Sequential:
    """A ReLU MLP with a linear output layer."""
    layers: list[nn.Module] = []
    for width in hidden_sizes:
        layers += [nn.Linear(in_dim, width), nn.ReLU()]
        in_dim = width
    layers.append(nn.Linear(in_dim, out_dim))
    return nn.Sequential(*layers)


def q_value(
    critic: nn.Module, obs: torch.Tensor, actions: torch.Tensor
) -> torch.Tensor:
    """Q(s, a) of a batch, shape (B,): the critic reads the observation and the
    action side by side."""
    return critic(torch.cat([obs, actions], dim=-1)).squeeze(-1)


class OffPolicyModel(nn.Module):
    """What a checkpoint keeps: the actor, the critics and SAC's log alpha (targets
    are copies of the critics)."""

    def __init__(
        self,
        actor: nn.Module,
        critics: nn.ModuleList,
        log_alpha: float | None = None,
    ) -> None:
        super().__init__()
        self.actor, self.critics = actor, critics
        self.log_alpha = (
            None if log_alpha is None else nn.Parameter(torch.full((1,), log_alpha))
        )


class OffPolicyLearner:
    """Actor, critics, their target copies and optimizers, and a burst of gradient
    steps."""

    framework = "torch"
    name = "off-policy"
    #: Critics Q(s, a): TD3 and SAC keep two for the clipped double-Q target.
    n_critics = 1
    #: Actor outputs per action dimension: 1 for a deterministic actor, 2
    #: (mean, log std) for SAC's.
    actor_outputs = 1
    #: Standard-normal draws per transition in the ``noise`` field (TD3: target
    #: smoothing; SAC: two samples).
    noise_draws = 1

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: OffPolicyConfig,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        configure_torch()  # one CPU thread unless RLKIT_THREADS says otherwise
        torch.manual_seed(seed)
        self.device = torch.device(resolve_device(device))  # cpu, cuda, mps
        self.config, self.action_dim = config, action_dim
        self.contract = off_policy_contract(
            self.name, obs_dim, action_dim, self.noise_draws
        )
        sizes, outputs = config.hidden_sizes, self.actor_outputs * action_dim
        self.actor = build_mlp(obs_dim, outputs, sizes)
        self.critics = nn.ModuleList(
            [
                build_mlp(obs_dim + action_dim, 1, sizes)
                for _ in range(self.n_critics)
            ]
        )
        self.target_actor = build_mlp(obs_dim, outputs, sizes).requires_grad_(False)
        self.target_critics = nn.ModuleList(
            [
                build_mlp(obs_dim + action_dim, 1, sizes)
                for _ in range(self.n_critics)
            ]
        )
        # differs: TF never hands the targets to a tape
        self.target_critics.requires_grad_(False)
        self.model = OffPolicyModel(
            self.actor, self.critics, self.initial_log_alpha()
        )
        for module in (self.model, self.target_actor, self.target_critics):
            module.to(self.device)  # differs: TF places variables itself
        # as tf's
        self.set_weights(
            initial_weights(
                obs_dim, action_dim, outputs, self.n_critics, config, seed
            )
        )
        # the actor step asks for these gradients only
        self.actor_parameters = list(self.actor.parameters())
        # differs: torch.optim's fused Adam kernel, called without torch.optim's
        # wrappers (torch_adam.py: half the cost a step, no torch._dynamo import)
        self.actor_optimizer = FusedAdam(
            self.actor_parameters, lr=config.step_size("actor")
        )
        self.critic_optimizer = FusedAdam(
            self.critics.parameters(), lr=config.step_size("critic")
        )
        self.gradient_steps = 0  # differs: TF keeps this count in a tf.Variable
        # differs: constant metric terms, made once (TF's graph makes them once too)
        self.zero = torch.zeros((), device=self.device)
        self.one = torch.ones((), device=self.device)
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)

    def policy(self, obs: torch.Tensor) -> torch.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's (first)
        outputs."""
        return torch.tanh(self.actor(obs)[:, : self.action_dim])

    def actions(self, obs: np.ndarray) -> np.ndarray:
        """Deterministic actions of a batch, through the framework (acting uses a
        numpy copy)."""
        with torch.inference_mode():
            obs = torch.as_tensor(obs, dtype=torch.float32, device=self.device)
            return self.policy(obs).cpu().numpy()

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """One gradient step on a batch that satisfies the contract (``noise`` shaped
        (D, B, A))."""
        return self.update_many(
            {name: values[None] for name, values in batch.items()}
        )

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        """K gradient steps, one per batch of ``batches`` (fields stacked as
        (K, B, ...)); mean metrics.

        ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
        transitions, uniform replay). The steps' new replay priorities (the critics'
        mean |TD error|) are kept in ``last_priorities``.
        """
        batches = with_defaults(batches, self.config.gamma)
        self.contract.check(flatten_burst(batches))
        totals, priorities = self.train_steps(*self.tensors(batches))
        self.last_priorities = priorities.cpu().numpy()
        return burst_metrics(totals.cpu().numpy(), len(batches["rewards"]))

    def tensors(self, batches: dict[str, np.ndarray]) -> tuple:
        """The burst's fields as tensors, in the argument order of :meth:`train_step`
        (no copies)."""
        names = (
            "obs",
            "actions",
            "rewards",
            "next_obs",
            "terminated",
            "discounts",
            "weights",
            "noise",
        )
        # differs: TF places tensors on its device itself
        return tuple(torch.as_tensor(batches[n], device=self.device) for n in names)

    def train_steps(
        self, obs, actions, rewards, next_obs, terminated, discounts, weights, noise
    ):
        """Run :meth:`train_step` on each batch along the leading axis; the summed
        metric terms, priorities."""
        # differs: torch sums the terms once, after the loop (one op, not two a step)
        terms, priorities = [], []
        # differs: TF runs this loop inside its graph (tf.range)
        for i in range(obs.shape[0]):
            batch = (
                obs[i],
                actions[i],
                rewards[i],
                next_obs[i],
                terminated[i],
                discounts[i],
                weights[i],
            )
            *step_terms, priority = self.train_step(*batch, noise[i])
            terms += step_terms
            priorities.append(priority)  # differs: TF writes into a tf.TensorArray
        totals = torch.stack(terms).reshape(obs.shape[0], -1).sum(dim=0)
        return totals, torch.stack(priorities)

    def train_step(
        self, obs, actions, rewards, next_obs, terminated, discounts, weights, noise
    ):
        """A critic step; then, when due, an actor step and the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        alpha = self.alpha()
        batch = (obs, actions, rewards, next_obs, terminated, discounts, weights)
        critic_loss, q_mean, td_errors = self.critic_step(*batch, noise, alpha)
        self.gradient_steps += 1
        # differs: torch reuses two constant tensors (no allocation a step)
        actor_loss, actor_steps = self.zero, self.zero
        if self.policy_due():
            actor_loss = self.actor_step(obs, noise, alpha)
            actor_steps = self.one
            self.update_targets()
        return critic_loss, q_mean, actor_loss, actor_steps, alpha, td_errors

    def td_targets(self, rewards, next_obs, terminated, discounts, noise, alpha):
        """r + d * (1 - terminated) * V(s'), each algorithm defining V(s') in
        ``next_value``.

        d is the transition's discount: gamma for a one-step transition, gamma^k for
        a k-step one (whose r is then the discounted sum of its k rewards).
        """
        # every transition's discount is gamma: one op less per gradient step
        if self.config.n_step == 1:
            discounts = self.config.gamma
        # differs: TF wraps the result in tf.stop_gradient (claim C02 measures both)
        with torch.no_grad():
            next_value = self.next_value(next_obs, noise, alpha)
            return rewards + discounts * (1.0 - terminated) * next_value

    def critic_step(
        self,
        obs,
        actions,
        rewards,
        next_obs,
        terminated,
        discounts,
        weights,
        noise,
        alpha,
    ):
        """One Adam step on the summed, importance-weighted MSE of every critic
        against the shared target."""
        targets = self.td_targets(
            rewards, next_obs, terminated, discounts, noise, alpha
        )
        q_values = [q_value(critic, obs, actions) for critic in self.critics]
        # importance weights correct prioritized sampling; without it they are 1
        if self.config.prioritized:
            loss = sum((weights * (q - targets) ** 2).mean() for q in q_values)
        else:
            loss = sum(F.mse_loss(q, targets) for q in q_values)
        self.critic_optimizer.zero_grad(set_to_none=True)
        # differs: TF records the forward pass on a GradientTape and asks it for
        # gradients
        loss.backward()
        self.critic_optimizer.step()
        # priorities cost a few ops per step: computed only when prioritized
        td_errors = self.zero
        if self.config.prioritized:
            td_errors = (
                torch.stack([(q - targets).abs() for q in q_values])
                .mean(dim=0)
                .detach()
            )
        return loss.detach(), q_values[0].detach().mean(), td_errors

    def next_value(self, next_obs, noise, alpha):
        """The value of s' that the TD target bootstraps from
        (see DDPG, TD3 and SAC)."""
        raise NotImplementedError

    def actor_step(self, obs, noise, alpha):
        """One step of the actor (see DDPG and SAC); returns its loss."""
        raise NotImplementedError

    def initial_log_alpha(self) -> float | None:
        """SAC's starting log temperature; None for the deterministic actors, which
        have none."""
        return None

    def policy_due(self) -> bool:
        """Whether this gradient step also updates the actor and the targets
        (every step; TD3 delays)."""
        return True

    def alpha(self) -> torch.Tensor:
        """The entropy temperature (0 for the deterministic actors; SAC learns
        it)."""
        return self.zero

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critics and
        the target actor."""
        targets, onlines = zip(*self.target_pairs(), strict=True)
        with torch.no_grad():  # one foreach call, not one lerp_ per tensor
            torch._foreach_lerp_(targets, onlines, self.config.tau)

    def target_pairs(self) -> list:
        """(target, online) parameter pairs of the critics and the actor (SAC,
        without a target actor, overrides)."""
        return [
            *self.critic_target_pairs(),
            *zip(
                self.target_actor.parameters(), self.actor.parameters(), strict=True
            ),
        ]

    def critic_target_pairs(self) -> list:
        return list(
            zip(
                self.target_critics.parameters(),
                self.critics.parameters(),
                strict=True,
            )
        )

    def sync_targets(self) -> None:
        """Copy the online weights into the targets' own tensors (a copy, not an
        alias: claim C03)."""
        self.target_actor.load_state_dict(self.actor.state_dict())
        self.target_critics.load_state_dict(self.critics.state_dict())

    def networks(self) -> list[nn.Sequential]:
        return [self.actor, *self.critics]

    def get_weights(self) -> list[np.ndarray]:
        """Actor then critics as ``[W0, b0, ...]``, each ``W`` as (in, out): Keras'
        layout (torch's is (out, in))."""
        return [array for net in self.networks() for array in mlp_weights(net)]

    def target_weights(self) -> list[np.ndarray]:
        """The target networks' weights, in :meth:`get_weights` order
        (the target actor first)."""
        return [
            array
            for net in (self.target_actor, *self.target_critics)
            for array in mlp_weights(net)
        ]

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order, then copy them into the
        targets."""
        sizes = [2 * len(linear_layers(net)) for net in self.networks()]
        if len(weights) != sum(sizes):
            raise ValueError(
                f"expected {sum(sizes)} arrays (actor, then critics), "
                f"got {len(weights)}"
            )
        start = 0
        for net, size in zip(self.networks(), sizes, strict=True):
            load_mlp_weights(net, weights[start : start + size])
            start += size
        self.sync_targets()

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.pt`` file with the actor, critics and rlkit's metadata (loads with
        ``weights_only=True``)."""
        write_torch_checkpoint(path, meta, self.model.state_dict())

    def load(self, path: str | Path) -> None:
        self.model.load_state_dict(read_torch_checkpoint(path)[1])
        self.sync_targets()


# differs: torch weights are read layer by layer; Keras has get_weights()
def linear_layers(net: nn.Sequential) -> list[nn.Linear]:
    return [layer for layer in net if isinstance(layer, nn.Linear)]


# differs: torch weights are read layer by layer; Keras has get_weights()
def mlp_weights(net: nn.Sequential) -> list[np.ndarray]:
    """``[W0, b0, ...]`` of an MLP, kernels transposed to (in, out)."""
    weights = []
    for layer in linear_layers(net):
        weights += [
            layer.weight.detach().cpu().numpy().T.copy(),
            layer.bias.detach().cpu().numpy().copy(),
        ]
    return weights


# differs: torch weights are written layer by layer; Keras has set_weights()
def load_mlp_weights(net: nn.Sequential, weights: list[np.ndarray]) -> None:
    with torch.no_grad():
        for layer, kernel, bias in zip(
            linear_layers(net), weights[0::2], weights[1::2], strict=True
        ):
            layer.weight.copy_(
                torch.as_tensor(np.asarray(kernel, dtype=np.float32).T)
            )
            layer.bias.copy_(torch.as_tensor(np.asarray(bias, dtype=np.float32)))
