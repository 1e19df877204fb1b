"""SAC's learner in PyTorch, whole (Haarnoja et al. 2018): a squashed Gaussian
actor that trades value for entropy, two critics fit to the soft TD target, and the
temperature alpha, tuned on log alpha (or fixed).

``tf.py`` mirrors this file line by line; ``# differs:`` marks each place where the
frameworks truly differ. The plumbing around the update (networks, weights, bursts,
checkpoints) is in ``rlkit/algos/torch_parts.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from rlkit.algos import torch_parts as parts
from rlkit.algos.off_policy.config import (
    NETWORKS_AND_OPTIMIZERS,
    Batch,
    off_policy_contract,
    single_burst,
)
from rlkit.algos.sac.config import LOG_STD_MAX, LOG_STD_MIN, SACConfig
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_parts import q_value
from rlkit.learner_state import TrainingState

LOG_2PI, LOG_2 = math.log(2 * math.pi), math.log(2.0)


class Learner(TrainingState):
    """A squashed Gaussian actor, two critics and their target copies, log alpha,
    and their gradient steps."""

    framework = "torch"
    name = "SAC"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets, the
    #: three optimizers' moments (the temperature's too) and the gradient-step
    #: count.
    # differs: TF counts gradient steps in a tf.Variable (step_counter)
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "alpha_optimizer", "gradient_steps")
    # differs: fp16's loss scalers; Keras keeps the scale in the optimizer's state
    LOSS_SCALERS = ("actor_scaler", "critic_scaler")
    #: Standard-normal draws per transition in a batch's ``noise``: one sample at s'
    #: for the target, one at s for the actor.
    noise_draws = 2

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: SACConfig,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        self.device = parts.seeded_device(seed, device)
        self.config, self.action_dim = config, action_dim
        self.contract = off_policy_contract(
            self.name, obs_dim, action_dim, self.noise_draws
        )
        # a mean and a log std per action dimension, two critics for clipped double
        # Q; the target actor is never used (SAC bootstraps from its current actor):
        # it stays the copy of the actor that set_weights and load make
        self.actor, self.critics, self.target_actor, self.target_critics = (
            parts.actor_and_critics(
                obs_dim, action_dim, config, seed, self.device, 2, actor_outputs=2
            )
        )
        self.model = parts.OffPolicyModel(
            self.actor, self.critics, math.log(config.alpha)
        ).to(self.device)
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
        self.log_alpha = self.model.log_alpha
        self.target_entropy = (
            -float(action_dim)
            if config.target_entropy is None
            else config.target_entropy
        )
        self.alpha_optimizer = FusedAdam(
            [self.log_alpha], lr=config.step_size("alpha")
        )

    def train_step(self, batch: Batch):
        """A critic step, an actor step (and, when tuned, a temperature step), then
        the update of the target critics.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        alpha = self.alpha()
        critic_loss, q_mean, td_errors = self.critic_step(batch, alpha)
        self.gradient_steps += 1
        actor_loss = self.actor_step(batch.obs, batch.noise, alpha)
        self.update_targets()
        # one actor step a critic step
        return critic_loss, q_mean, actor_loss, self.one, alpha, td_errors

    def alpha(self):
        """exp(log_alpha), detached: the losses treat the temperature as a
        constant."""
        return self.log_alpha.detach().exp()[0]

    def critic_step(self, batch: Batch, alpha):
        """One Adam step on the summed, importance-weighted MSE of both critics
        against r + d * (1 - terminated) * V(s').

        d is the transition's discount: gamma for a one-step transition, gamma^k for
        a k-step one (whose r is then the discounted sum of its k rewards).
        """
        discounts = batch.discounts
        # every transition's discount is gamma: one op less per gradient step
        if self.config.n_step == 1:
            discounts = self.config.gamma
        # differs: TF wraps the targets in tf.stop_gradient (claim C02 measures both)
        with torch.no_grad():
            next_value = self.next_value(batch.next_obs, batch.noise, alpha)
            targets = (
                batch.rewards + discounts * (1.0 - batch.terminated) * next_value
            )
        obs, actions = batch.obs, batch.actions
        q_values = [q_value(critic, obs, actions) for critic in self.critics]
        # importance weights correct prioritized sampling; without it they are 1
        if self.config.prioritized:
            loss = sum((batch.weights * (q - targets) ** 2).mean() for q in q_values)
        else:
            loss = sum(F.mse_loss(q, targets) for q in q_values)
        self.critic_optimizer.zero_grad(set_to_none=True)
        # fp16: the loss scaled up before its gradients (rlkit/precision.py)
        # differs: TF records the forward pass on a GradientTape and asks it for
        # gradients
        self.critic_scaler.scale(loss).backward()
        parts.scaled_step(self.critic_optimizer, self.critic_scaler)
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
        """The soft value of s': min target Q at a fresh sample a' ~ pi(s'), minus
        alpha log pi(a'|s')."""
        next_actions, next_log_probs = self.sample(next_obs, noise[0])
        return (
            self.min_q(self.target_critics, next_obs, next_actions)
            - alpha * next_log_probs
        )

    def sample(self, obs, noise):
        """Reparameterised actions a = tanh(mean + std * noise) and their
        log-probabilities log pi(a|s).

        The Gaussian density of u = mean + std * noise, minus
        log|da/du| = log(1 - tanh(u)^2) per dimension, written as
        2 (log 2 - u - softplus(-2u)): the same value without log(0) when tanh
        saturates.
        """
        # float32 whatever the precision (the actor's output is cast): in bf16 this
        # log-probability is off by ~0.03 nat even in the softplus form (chapter 44)
        mean, log_std = self.actor(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(LOG_STD_MIN, LOG_STD_MAX)
        pre_tanh = mean + log_std.exp() * noise
        gaussian = (-0.5 * noise**2 - log_std - 0.5 * LOG_2PI).sum(-1)
        correction = (2.0 * (LOG_2 - pre_tanh - F.softplus(-2.0 * pre_tanh))).sum(-1)
        return torch.tanh(pre_tanh), gaussian - correction

    def min_q(self, critics, obs, actions):
        """The smaller of the two critics' values: clipped double Q, as in TD3."""
        return torch.minimum(
            q_value(critics[0], obs, actions),
            q_value(critics[1], obs, actions),
        )

    def actor_step(self, obs, noise, alpha):
        """One Adam step on alpha log pi(a|s) - min Q(s, a); then, when tuned, one
        step on log alpha."""
        actions, log_probs = self.sample(obs, noise[1])
        loss = (alpha * log_probs - self.min_q(self.critics, obs, actions)).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        # only the actor's gradients, as TF's tape: not the critics' (never used)
        self.actor_scaler.scale(loss).backward(inputs=self.actor_parameters)
        parts.scaled_step(self.actor_optimizer, self.actor_scaler)
        if self.config.auto_alpha:
            self.alpha_step(log_probs.detach())
        return loss.detach()

    def alpha_step(self, log_probs):
        """Raise alpha while the policy's entropy (-log pi) is below the target,
        lower it while above."""
        loss = -(self.log_alpha * (log_probs + self.target_entropy)).mean()
        self.alpha_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.alpha_optimizer.step()

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critics
        only: SAC bootstraps from its current actor."""
        parts.polyak_update(self.target_critics, self.critics, self.config.tau)

    # the plumbing around the update (acting, bursts, weights, checkpoints): calls
    # of the functions in torch_parts.py, documented there

    def policy(self, obs: torch.Tensor) -> torch.Tensor:
        """The greedy action in [-1, 1]: tanh of the mean (the actor's first
        outputs)."""
        return torch.tanh(self.actor(obs)[:, : self.action_dim])

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
