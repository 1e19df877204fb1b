"""A2C's learner in PyTorch: the whole update on one rollout, an optimizer step on
the policy-gradient loss, the value loss and the entropy bonus. A2C's defaults take
one step on the whole rollout; ``epochs``, ``num_minibatches`` and ``target_kl`` make
it run more, on shuffled minibatches, as PPO does.

``tf.py`` mirrors this file line by line. The networks, the policy's distribution
and the weights' layout are shared with PPO (``rlkit/algos/actor_critic/torch.py``).
``# differs:`` marks each place where the frameworks truly differ.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from rlkit.algos import torch_parts as parts
from rlkit.algos.actor_critic import torch as nets
from rlkit.algos.actor_critic.config import (
    APPROX_KL,
    METRICS,
    ActorCriticConfig,
    Batch,
    actor_critic_contract,
)
from rlkit.algos.torch_clip import clip_by_global_norm_
from rlkit.encoders import ImageSpec
from rlkit.hardware import configure_torch, resolve_device
from rlkit.learner_state import TrainingState


class Learner(TrainingState):
    """A2C's networks, their optimizer and the update on each rollout:
    ``update`` reads the rollout into one :class:`Batch`, ``train_update`` runs the
    epochs of minibatches, ``train_minibatch`` takes one step on the ``loss``."""

    framework = "torch"
    name = "A2C"
    #: What a resumed run needs beyond the weights (``state_dict``): the optimizer's
    #: moments (the model holds the only networks).
    TRAINING_STATE = ("model", "optimizer")
    # differs: fp16's loss scalers; Keras keeps the scale in the optimizer's state
    LOSS_SCALERS = ("scaler",)

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        discrete: bool,
        config: ActorCriticConfig,
        seed: int = 0,
        device: str = "cpu",
        image: ImageSpec | None = None,
    ):
        configure_torch()  # one CPU thread unless RLKIT_THREADS says otherwise
        torch.manual_seed(seed)
        self.device = torch.device(resolve_device(device))  # cpu, cuda, mps
        self.config, self.discrete, self.image = config, discrete, image
        self.contract = actor_critic_contract(
            self.name, obs_dim, discrete, action_dim, image
        )
        self.model = nets.build_model(
            obs_dim, action_dim, discrete, config, seed, self.device, image
        )
        self.actor, self.critic = self.model.actor, self.model.critic
        self.log_std = self.model.log_std
        self.optimizer = nets.build_optimizer(self.model, config)
        # fp16's dynamic loss scaling; a pass-through at fp32 and bf16
        # (rlkit/precision.py)
        self.scaler = parts.loss_scaler(config.precision, self.device)

    def values_and_log_probs(
        self, obs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """V(s) of a rollout's observations and log pi(a|s) of its actions."""
        return nets.values_and_log_probs(self.model, obs, actions)

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
        return nets.run_update(
            self.train_update, self.contract, batch, minibatches, clip_range, max_kl,
            self.device,
        )  # fmt: skip

    def train_update(self, batch: Batch, minibatches, clip_range, max_kl):
        """Mean of each metric over the minibatch steps taken (``epochs`` in the last
        slot). With A2C's defaults: one epoch of one minibatch, one step."""
        device = minibatches.device
        totals = torch.zeros(len(METRICS) - 1, device=device)
        epochs = torch.zeros((), device=device)
        # differs: TF runs both loops inside one traced graph
        for epoch in minibatches:
            epoch_totals = torch.zeros(len(METRICS) - 1, device=device)
            for indices in epoch:
                metrics = self.train_minibatch(nets.rows(batch, indices), clip_range)
                epoch_totals += torch.stack(metrics)
            totals, epochs = totals + epoch_totals / len(epoch), epochs + 1
            if epoch_totals[APPROX_KL] / len(epoch) > max_kl:
                # the policy moved too far from the one that collected the data
                break
        return torch.cat([totals / epochs, epochs[None]])

    def train_minibatch(self, batch: Batch, clip_range):
        """One clipped optimizer step on the minibatch's loss; returns the loss terms
        as a tuple."""
        loss, metrics = self.loss(batch, clip_range)
        self.optimizer.zero_grad(set_to_none=True)
        # fp16: the loss scaled up before its gradients (rlkit/precision.py)
        # differs: TF records the loss on a GradientTape and asks it for gradients
        self.scaler.scale(loss).backward()
        # differs: unscaled before the clip; TF scales the clip's bound instead
        self.scaler.unscale_(self.optimizer)
        grads = [p.grad for p in nets.parameters(self.model)]
        clip_by_global_norm_(grads, self.config.max_grad_norm)
        parts.scaled_step(self.optimizer, self.scaler)
        return metrics

    def loss(self, batch: Batch, clip_range):
        """policy loss + vf_coef * value loss - ent_coef * entropy, and the metrics
        (all detached)."""
        log_probs, entropy = nets.log_prob_entropy(
            self.model, batch.obs, batch.actions
        )
        values = nets.critic_values(self.model, batch.obs)
        advantages = batch.advantages
        if self.config.normalize_advantages:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss, approx_kl, clip_fraction = self.policy_loss(
            log_probs, batch.old_log_probs, advantages, clip_range
        )
        old_values, returns = batch.old_values, batch.returns
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
        """-E[log pi(a|s) A], averaged (not summed) over the batch; KL to the
        rollout's policy; no clipping."""
        loss = -(log_probs * advantages).mean()
        approx_kl = (old_log_probs - log_probs).mean()
        return loss, approx_kl, torch.zeros((), device=loss.device)

    def set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def get_weights(self) -> list[np.ndarray]:
        """Actor, critic (and log std), each kernel as (in, out) (Keras' layout)."""
        return nets.get_weights(self.model)

    def set_weights(self, weights: list[np.ndarray]) -> None:
        nets.set_weights(self.model, weights)

    def save(self, path: str | Path, meta: dict) -> None:
        nets.save(self.model, path, meta)

    def load(self, path: str | Path) -> None:
        nets.load(self.model, path)
