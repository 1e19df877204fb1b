"""The actor-critic networks and update loop in PyTorch, shared by A2C and PPO.

``tf.py`` mirrors this file line by line. Each algorithm subclasses
:class:`ActorCriticLearner` and supplies only ``policy_loss``. ``# differs:`` marks
each place where the frameworks truly differ.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rlkit.algos.actor_critic.config import (
    APPROX_KL,
    METRICS,
    ActorCriticConfig,
    actor_critic_contract,
    initial_weights,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_clip import clip_by_global_norm_
from rlkit.checkpoints import read_torch_checkpoint, write_torch_checkpoint
from rlkit.hardware import configure_torch, resolve_device

LOG_2PI = math.log(2 * math.pi)


def build_mlp(
    in_dim: int, out_dim: int, hidden_sizes: tuple[int, ...]
) -> nn.Sequential:
    """A tanh MLP with a linear output layer."""
    layers: list[nn.Module] = []
    for width in hidden_sizes:
        layers += [nn.Linear(in_dim, width), nn.Tanh()]
        in_dim = width
    layers.append(nn.Linear(in_dim, out_dim))
    return nn.Sequential(*layers)


class ActorCriticLearner:
    """Actor (logits or Gaussian mean, plus a state-independent log std), critic,
    optimizer, update step."""

    framework = "torch"
    name = "actor-critic"

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        discrete: bool,
        config: ActorCriticConfig,
        seed: int = 0,
        device: str = "cpu",
    ):
        configure_torch()  # one CPU thread unless RLKIT_THREADS says otherwise
        torch.manual_seed(seed)
        self.device = torch.device(resolve_device(device))  # cpu, cuda, mps
        self.config, self.discrete = config, discrete
        self.contract = actor_critic_contract(
            self.name, obs_dim, discrete, action_dim
        )
        self.actor = build_mlp(obs_dim, action_dim, config.hidden_sizes)
        self.critic = build_mlp(obs_dim, 1, config.hidden_sizes)
        # the log std lives in a model with both networks, so a checkpoint is that
        # model's state_dict
        self.model = ActorCriticModel(
            self.actor, self.critic, 0 if discrete else action_dim
        ).to(self.device)
        self.log_std = self.model.log_std
        # same as tf's
        self.set_weights(
            initial_weights(obs_dim, action_dim, discrete, config, seed)
        )
        # differs: Keras' own Adam places epsilon differently; tf.py uses TorchAdam,
        # this formula (keras_adam.py), here torch.optim's fused kernel without
        # torch.optim's wrappers (torch_adam.py: no torch._dynamo import)
        self.optimizer = FusedAdam(
            self.parameters(), lr=config.learning_rate, eps=config.adam_eps
        )

    def parameters(self) -> list[nn.Parameter]:
        """Actor, critic and (continuous actions) log std, in :meth:`get_weights`
        order."""
        log_std = [] if self.log_std is None else [self.log_std]
        return [*self.actor.parameters(), *self.critic.parameters(), *log_std]

    def values_and_log_probs(
        self, obs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """V(s) for a rollout's observations (the one after its last step included)
        and log pi(a|s) for the first ``len(actions)`` of them (the "old"
        log-probabilities): one batched call after each rollout."""
        with torch.inference_mode():
            values, log_probs = self.rollout_outputs(
                torch.as_tensor(obs, device=self.device),
                torch.as_tensor(actions, device=self.device),
            )
            return values.cpu().numpy(), log_probs.cpu().numpy()

    def rollout_outputs(self, obs, actions):
        """The tensors :meth:`values_and_log_probs` returns."""
        log_probs = self.log_prob_entropy(obs[: len(actions)], actions)[0]
        return self.critic_values(obs), log_probs

    def critic_values(self, obs):
        return self.critic(obs).squeeze(-1)

    def update(
        self,
        batch: dict[str, np.ndarray],
        minibatches: np.ndarray,
        clip_range: float,
        max_kl: float,
    ) -> dict:
        """Epochs of minibatch steps on one rollout; ``minibatches`` holds index
        arrays, shape (epochs, M, size).

        Stops after the first epoch whose mean approximate KL exceeds ``max_kl``;
        returns mean metrics.
        """
        self.contract.check(batch)
        device = self.device  # differs: TF places tensors on its device itself
        names = self.contract.fields
        fields = [torch.as_tensor(batch[name], device=device) for name in names]
        means = self.train_update(
            *fields,
            torch.as_tensor(minibatches, device=device),
            torch.tensor(clip_range, device=device),
            torch.tensor(max_kl, device=device),
        )
        return dict(zip(METRICS, means.tolist(), strict=True))

    def train_update(
        self,
        obs,
        actions,
        old_log_probs,
        advantages,
        returns,
        old_values,
        minibatches,
        clip_range,
        max_kl,
    ):
        """Mean of each metric over the minibatch steps taken (``epochs`` in the last
        slot)."""
        totals = torch.zeros(len(METRICS) - 1, device=obs.device)
        epochs = torch.zeros((), device=obs.device)
        # differs: TF runs both loops inside one traced graph
        for epoch in minibatches:
            epoch_totals = torch.zeros(len(METRICS) - 1, device=obs.device)
            for indices in epoch:
                metrics = self.train_minibatch(
                    obs[indices], actions[indices], old_log_probs[indices],
                    advantages[indices], returns[indices], old_values[indices],
                    clip_range,
                )  # fmt: skip
                epoch_totals += torch.stack(metrics)
            totals, epochs = totals + epoch_totals / len(epoch), epochs + 1
            if epoch_totals[APPROX_KL] / len(epoch) > max_kl:
                # the policy moved too far from the one that collected the data
                break
        return torch.cat([totals / epochs, epochs[None]])

    def train_minibatch(
        self,
        obs,
        actions,
        old_log_probs,
        advantages,
        returns,
        old_values,
        clip_range,
    ):
        """One clipped Adam step on the minibatch's loss; returns the loss terms as a
        tuple."""
        loss, metrics = self.loss(
            obs, actions, old_log_probs, advantages, returns, old_values, clip_range
        )
        self.optimizer.zero_grad(set_to_none=True)
        # differs: TF records the loss on a GradientTape and asks it for gradients
        loss.backward()
        grads = [p.grad for p in self.parameters()]
        clip_by_global_norm_(grads, self.config.max_grad_norm)
        self.optimizer.step()
        return metrics

    def loss(
        self,
        obs,
        actions,
        old_log_probs,
        advantages,
        returns,
        old_values,
        clip_range,
    ):
        """policy loss + vf_coef * value loss - ent_coef * entropy, and the metrics
        (all detached)."""
        log_probs, entropy = self.log_prob_entropy(obs, actions)
        values = self.critic(obs).squeeze(-1)
        if self.config.normalize_advantages:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss, approx_kl, clip_fraction = self.policy_loss(
            log_probs, old_log_probs, advantages, clip_range
        )
        if self.config.clip_value:
            clipped = old_values + torch.clamp(
                values - old_values, -clip_range, clip_range
            )
            value_loss = (
                0.5
                * torch.maximum(
                    (values - returns) ** 2, (clipped - returns) ** 2
                ).mean()
            )
        else:
            value_loss = 0.5 * ((values - returns) ** 2).mean()
        entropy = entropy.mean()
        loss = (
            policy_loss
            + self.config.vf_coef * value_loss
            - self.config.ent_coef * entropy
        )
        terms = (loss, policy_loss, value_loss, entropy, approx_kl, clip_fraction)
        return loss, tuple(term.detach() for term in terms)

    def policy_loss(self, log_probs, old_log_probs, advantages, clip_range):
        """The algorithm's policy loss, approximate KL and clip fraction
        (see A2C and PPO)."""
        raise NotImplementedError

    def log_prob_entropy(self, obs, actions):
        """log pi(a|s) and the policy's entropy at s: categorical over logits, or
        diagonal Gaussian."""
        out = self.actor(obs)
        if self.discrete:
            log_p = torch.log_softmax(out, dim=-1)
            log_probs = log_p.gather(1, actions.long()[:, None]).squeeze(1)
            entropy = -(log_p.exp() * log_p).sum(dim=-1)
        else:
            z = (actions - out) / self.log_std.exp()
            log_probs = (-0.5 * z**2 - self.log_std - 0.5 * LOG_2PI).sum(dim=-1)
            entropy = (self.log_std + 0.5 * (1.0 + LOG_2PI)).sum().expand(len(obs))
        return log_probs, entropy

    def set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def get_weights(self) -> list[np.ndarray]:
        """``[actor W0, b0, ..., critic W0, b0, ...(, log_std)]``, each kernel as
        (in, out) (Keras' layout)."""
        weights = []
        for network in (self.actor, self.critic):
            for layer in network:
                if isinstance(layer, nn.Linear):
                    weights += [
                        layer.weight.detach().cpu().numpy().T.copy(),
                        layer.bias.detach().cpu().numpy().copy(),
                    ]
        return (
            weights
            if self.log_std is None
            else [*weights, self.log_std.detach().cpu().numpy().copy()]
        )

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order."""
        params = self.parameters()
        if len(weights) != len(params):
            raise ValueError(f"expected {len(params)} arrays, got {len(weights)}")
        with torch.no_grad():
            for param, value in zip(params, weights, strict=True):
                value = np.asarray(value, dtype=np.float32)
                param.copy_(torch.as_tensor(value.T if value.ndim == 2 else value))

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.pt`` file with the model's state_dict and rlkit's metadata (loads
        with ``weights_only=True``)."""
        write_torch_checkpoint(path, meta, self.model.state_dict())

    def load(self, path: str | Path) -> None:
        self.model.load_state_dict(read_torch_checkpoint(path)[1])


class ActorCriticModel(nn.Module):
    """Actor, critic and the Gaussian policy's log std (``log_std_size`` 0 for
    discrete actions) in one model."""

    def __init__(
        self, actor: nn.Module, critic: nn.Module, log_std_size: int = 0
    ) -> None:
        super().__init__()
        self.actor, self.critic, self.log_std_size = actor, critic, log_std_size
        self.log_std = (
            nn.Parameter(torch.zeros(log_std_size)) if log_std_size else None
        )

    def forward(self, obs):
        return self.actor(obs), self.critic(obs)
