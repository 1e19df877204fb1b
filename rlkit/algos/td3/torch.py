"""TD3's learner in PyTorch, whole: DDPG's update with three fixes (Fujimoto et al.
2018), two critics against over-estimation, a smoothed target action and delayed
actor updates.

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
from rlkit.algos.off_policy.config import (
    NETWORKS_AND_OPTIMIZERS,
    Batch,
    off_policy_contract,
    single_burst,
)
from rlkit.algos.td3.config import TD3Config
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_parts import q_value
from rlkit.learner_state import TrainingState


class Learner(TrainingState):
    """An actor, two critics, a target copy of each, and their gradient steps."""

    framework = "torch"
    name = "TD3"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets,
    #: both optimizers' moments and the gradient-step count (the actor delay's
    #: phase).
    # differs: TF counts gradient steps in a tf.Variable (step_counter)
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "gradient_steps")
    # differs: fp16's loss scalers; Keras keeps the scale in the optimizer's state
    LOSS_SCALERS = ("actor_scaler", "critic_scaler")
    #: Standard-normal draws per transition in a batch's ``noise``: the smoothing.
    noise_draws = 1

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: TD3Config,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        self.device = parts.seeded_device(seed, device)
        self.config, self.action_dim = config, action_dim
        self.contract = off_policy_contract(
            self.name, obs_dim, action_dim, self.noise_draws
        )
        # two critics for fix 1, clipped double Q
        self.actor, self.critics, self.target_actor, self.target_critics = (
            parts.actor_and_critics(
                obs_dim, action_dim, config, seed, self.device, n_critics=2
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
        """A critic step; every ``policy_delay`` critic steps also an actor step and
        the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        critic_loss, q_mean, td_errors = self.critic_step(batch)
        self.gradient_steps += 1
        # differs: torch reuses two constant tensors (no allocation a step)
        actor_loss, actor_steps = self.zero, self.zero
        # fix 2, delayed policy updates: the actor and the targets move every
        # policy_delay critic steps
        # differs: TF counts in a tf.Variable
        if self.gradient_steps % self.config.policy_delay == 0:
            actor_loss = self.actor_step(batch.obs)
            actor_steps = self.one
            self.update_targets()
        # TD3 has no temperature: its alpha term is 0
        return critic_loss, q_mean, actor_loss, actor_steps, self.zero, td_errors

    def critic_step(self, batch: Batch):
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
            next_value = self.next_value(batch.next_obs, batch.noise)
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

    def next_value(self, next_obs, noise):
        """V(s') = min_i Q_target_i(s', a'), at the target actor's smoothed action
        a'."""
        # fix 3, target policy smoothing: clipped Gaussian noise on the target
        # action, so Q is fit on a region
        clip = self.config.target_noise_clip
        smoothing = (self.config.target_noise * noise[0]).clamp(-clip, clip)
        next_actions = torch.tanh(self.target_actor(next_obs)) + smoothing
        next_actions = next_actions.clamp(-1.0, 1.0)
        # fix 1, clipped double Q: the smaller of the two target critics, against
        # over-estimation
        first, second = (
            q_value(critic, next_obs, next_actions) for critic in self.target_critics
        )
        return torch.minimum(first, second)

    def policy(self, obs: torch.Tensor) -> torch.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's outputs."""
        # every output is an action: the slice changes no number, but TF's graph
        # without it fuses tanh into the last layer, which rounds differently
        return torch.tanh(self.actor(obs)[:, : self.action_dim])

    def actor_step(self, obs):
        """One Adam step that raises Q_1(s, mu(s)); gradients reach the critic too,
        but only the actor steps."""
        loss = -q_value(self.critics[0], obs, self.policy(obs)).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        # only the actor's gradients, as TF's tape: not the critics' (never used)
        self.actor_scaler.scale(loss).backward(inputs=self.actor_parameters)
        parts.scaled_step(self.actor_optimizer, self.actor_scaler)
        return loss.detach()

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critics and
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
