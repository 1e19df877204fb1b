"""DDPG's learner in PyTorch, whole (Lillicrap et al. 2016): a critic fit to a TD
target of target networks, and a deterministic actor that climbs the critic's
gradient at its own action.

``tf.py`` mirrors this file line by line; ``# differs:`` marks each place where the
frameworks truly differ. The plumbing around the update (networks, weights, bursts,
checkpoints) is in ``rlkit/algos/torch_parts.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from rlkit.algos import torch_parts as parts
from rlkit.algos.ddpg.config import DDPGConfig
from rlkit.algos.off_policy.config import (
    NETWORKS_AND_OPTIMIZERS,
    Batch,
    off_policy_contract,
    single_burst,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_parts import q_value
from rlkit.learner_state import TrainingState


class Learner(TrainingState):
    """An actor, a critic, a target copy of each, and their gradient steps."""

    framework = "torch"
    name = "DDPG"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets,
    #: both optimizers' moments and the gradient-step count.
    # differs: TF counts gradient steps in a tf.Variable (step_counter)
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "gradient_steps")
    # differs: fp16's loss scalers; Keras keeps the scale in the optimizer's state
    LOSS_SCALERS = ("actor_scaler", "critic_scaler")
    #: Standard-normal draws per transition in a batch's ``noise``: one, unused (the
    #: family's batches all carry noise; TD3 smooths with it, SAC samples).
    noise_draws = 1

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: DDPGConfig,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        self.device = parts.seeded_device(seed, device)
        self.config, self.action_dim = config, action_dim
        self.contract = off_policy_contract(
            self.name, obs_dim, action_dim, self.noise_draws
        )
        # one critic, in a list of one (the family's checkpoint layout)
        self.actor, self.critics, self.target_actor, self.target_critics = (
            parts.actor_and_critics(
                obs_dim, action_dim, config, seed, self.device, n_critics=1
            )
        )
        self.model = parts.OffPolicyModel(self.actor, self.critics).to(self.device)
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
        # fp16's dynamic loss scaling, one scaler per optimizer; pass-throughs at
        # fp32 and bf16 (rlkit/precision.py)
        self.actor_scaler = parts.loss_scaler(config.precision, self.device)
        self.critic_scaler = parts.loss_scaler(config.precision, self.device)
        self.gradient_steps = 0  # differs: TF keeps this count in a tf.Variable
        # differs: constant metric terms, made once (TF's graph makes them once too)
        self.zero = torch.zeros((), device=self.device)
        self.one = torch.ones((), device=self.device)
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)
        # differs: torch runs a burst eagerly; TF traces it once into one graph
        self.train_steps = parts.burst_function(self.train_step)

    def train_step(self, batch: Batch):
        """A critic step, an actor step, then the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        critic_loss, q_mean, td_errors = self.critic_step(batch)
        self.gradient_steps += 1
        actor_loss = self.actor_step(batch.obs)
        self.update_targets()
        # one actor step a critic step; DDPG has no temperature: its alpha term is 0
        return critic_loss, q_mean, actor_loss, self.one, self.zero, td_errors

    def critic_step(self, batch: Batch):
        """One Adam step on the critic's importance-weighted MSE against
        r + d * (1 - terminated) * V(s').

        d is the transition's discount: gamma for a one-step transition, gamma^k for
        a k-step one (whose r is then the discounted sum of its k rewards).
        """
        discounts = batch.discounts
        # every transition's discount is gamma: one op less per gradient step
        if self.config.n_step == 1:
            discounts = self.config.gamma
        # differs: TF wraps the targets in tf.stop_gradient (claim C02 measures both)
        with torch.no_grad():
            next_value = self.next_value(batch.next_obs)
            targets = (
                batch.rewards + discounts * (1.0 - batch.terminated) * next_value
            )
        q = q_value(self.critics[0], batch.obs, batch.actions)
        # importance weights correct prioritized sampling; without it they are 1
        if self.config.prioritized:
            loss = (batch.weights * (q - targets) ** 2).mean()
        else:
            loss = F.mse_loss(q, targets)
        self.critic_optimizer.zero_grad(set_to_none=True)
        # fp16: the loss scaled up before its gradients (rlkit/precision.py)
        # differs: TF records the forward pass on a GradientTape and asks it for
        # gradients
        self.critic_scaler.scale(loss).backward()
        parts.scaled_step(self.critic_optimizer, self.critic_scaler)
        # priorities cost a few ops per step: computed only when prioritized
        td_errors = self.zero
        if self.config.prioritized:
            td_errors = (q - targets).abs().detach()
        return loss.detach(), q.detach().mean(), td_errors

    def next_value(self, next_obs):
        """V(s') = Q_target(s', mu_target(s')): the target critic at the target
        actor's action."""
        next_actions = torch.tanh(self.target_actor(next_obs))
        return q_value(self.target_critics[0], next_obs, next_actions)

    def policy(self, obs: torch.Tensor) -> torch.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's outputs."""
        # every output is an action: the slice changes no number, but TF's graph
        # without it fuses tanh into the last layer, which rounds differently
        return torch.tanh(self.actor(obs)[:, : self.action_dim])

    def actor_step(self, obs):
        """One Adam step that raises Q(s, mu(s)); gradients reach the critic too,
        but only the actor steps."""
        loss = -q_value(self.critics[0], obs, self.policy(obs)).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        # only the actor's gradients, as TF's tape: not the critics' (never used)
        self.actor_scaler.scale(loss).backward(inputs=self.actor_parameters)
        parts.scaled_step(self.actor_optimizer, self.actor_scaler)
        return loss.detach()

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critic and
        the actor."""
        parts.polyak_update(
            [*self.target_critics, self.target_actor],
            [*self.critics, self.actor],
            self.config.tau,
        )

    # the plumbing around the update (acting, bursts, weights, checkpoints): calls
    # of the functions in torch_parts.py, documented there

    def actions(self, obs: np.ndarray) -> np.ndarray:
        return parts.numpy_actions(self.policy, obs, self.device)

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        return self.update_many(single_burst(batch))

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        metrics, self.last_priorities = parts.run_burst(
            self.train_steps, batches, self.contract, self.config.gamma, self.device
        )
        return metrics

    def sync_targets(self) -> None:
        parts.copy_weights(
            [self.target_actor, *self.target_critics], [self.actor, *self.critics]
        )

    def get_weights(self) -> list[np.ndarray]:
        return parts.get_mlp_weights([self.actor, *self.critics])

    def target_weights(self) -> list[np.ndarray]:
        return parts.get_mlp_weights([self.target_actor, *self.target_critics])

    def set_weights(self, weights: list[np.ndarray]) -> None:
        parts.set_mlp_weights([self.actor, *self.critics], weights)
        self.sync_targets()

    def save(self, path: str | Path, meta: dict) -> None:
        parts.save_model(path, meta, self.model)

    def load(self, path: str | Path) -> None:
        parts.load_model(path, self.model)
        self.sync_targets()
