"""SAC's learner in TensorFlow, whole (Haarnoja et al. 2018): a squashed Gaussian
actor that trades value for entropy, two critics fit to the soft TD target, and the
temperature alpha, tuned on log alpha (or fixed).

Mirrors ``torch.py`` line by line; ``# differs:`` marks each place where the
frameworks truly differ. The plumbing around the update (networks, weights, bursts,
checkpoints) is in ``rlkit/algos/tf_parts.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import tensorflow as tf

from rlkit.algos import tf_parts as parts
from rlkit.algos.keras_adam import TorchAdam
from rlkit.algos.off_policy.config import (
    NETWORKS_AND_OPTIMIZERS,
    Batch,
    off_policy_contract,
    single_burst,
)
from rlkit.algos.sac.config import LOG_STD_MAX, LOG_STD_MIN, SACConfig
from rlkit.algos.tf_parts import q_value
from rlkit.hardware import on_learner_device
from rlkit.learner_state import TrainingState

LOG_2PI, LOG_2 = math.log(2 * math.pi), math.log(2.0)


@on_learner_device  # differs: built and run in tf.device; torch moves tensors
class Learner(TrainingState):
    """A squashed Gaussian actor, two critics and their target copies, log alpha,
    and their gradient steps."""

    framework = "tf"
    name = "SAC"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets, the
    #: three optimizers' moments (the temperature's too) and the gradient-step
    #: count.
    # differs: TF counts gradient steps in a tf.Variable
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "alpha_optimizer", "step_counter")
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
        )
        # differs: Keras' own Adam places epsilon differently from torch's; TorchAdam
        # uses torch's formula. For fp16 Keras wraps each optimizer in its loss
        # scaling, where torch keeps a GradScaler beside it (rlkit/precision.py)
        self.actor_optimizer = parts.loss_scaler(
            config.precision,
            TorchAdam(learning_rate=config.step_size("actor"), epsilon=1e-8),
        )
        self.critic_optimizer = parts.loss_scaler(
            config.precision,
            TorchAdam(learning_rate=config.step_size("critic"), epsilon=1e-8),
        )
        self.actor_optimizer.build(self.actor.trainable_variables)
        self.critic_optimizer.build(parts.trainable_variables(self.critics))
        # differs: torch uses a Python int
        self.step_counter = tf.Variable(0, dtype=tf.int64, trainable=False)
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)
        # differs: torch runs a burst eagerly; TF traces it once into one graph
        self.train_steps = parts.burst_function(
            self.train_step, obs_dim, action_dim, self.noise_draws
        )
        self.log_alpha = self.model.log_alpha
        self.target_entropy = (
            -float(action_dim)
            if config.target_entropy is None
            else config.target_entropy
        )
        # differs: a Keras 3 optimizer is built for one set of variables; log alpha
        # gets its own (claim C24)
        self.alpha_optimizer = TorchAdam(
            learning_rate=config.step_size("alpha"), epsilon=1e-8
        )
        self.alpha_optimizer.build([self.log_alpha])

    def train_step(self, batch: Batch):
        """A critic step, an actor step (and, when tuned, a temperature step), then
        the update of the target critics.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        alpha = self.alpha()
        critic_loss, q_mean, td_errors = self.critic_step(batch, alpha)
        self.step_counter.assign_add(1)
        actor_loss = self.actor_step(batch.obs, batch.noise, alpha)
        self.update_targets()
        # one actor step a critic step
        return critic_loss, q_mean, actor_loss, tf.ones(()), alpha, td_errors

    def alpha(self):
        """exp(log_alpha), detached: the losses treat the temperature as a
        constant."""
        return tf.stop_gradient(tf.exp(self.log_alpha[0]))

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
        # differs: torch computes the targets under torch.no_grad()
        next_value = self.next_value(batch.next_obs, batch.noise, alpha)
        targets = batch.rewards + discounts * (1.0 - batch.terminated) * next_value
        targets = tf.stop_gradient(targets)
        obs, actions = batch.obs, batch.actions
        with tf.GradientTape() as tape:
            q_values = [q_value(critic, obs, actions) for critic in self.critics]
            # importance weights correct prioritized sampling; without it they are 1
            if self.config.prioritized:
                loss = tf.add_n(
                    [
                        tf.reduce_mean(batch.weights * (q - targets) ** 2)
                        for q in q_values
                    ]
                )
            else:
                loss = tf.add_n(
                    [tf.reduce_mean((q - targets) ** 2) for q in q_values]
                )
            # fp16: the loss scaled up before its gradients (rlkit/precision.py)
            scaled = self.critic_optimizer.scale_loss(loss)
        # differs: torch calls loss.backward()
        variables = parts.trainable_variables(self.critics)
        grads = tape.gradient(scaled, variables)
        self.critic_optimizer.apply_gradients(zip(grads, variables, strict=True))
        # priorities cost a few ops per step: computed only when prioritized
        td_errors = tf.zeros(())
        # a Python condition: traced once, one branch in the graph
        if self.config.prioritized:
            td_errors = tf.reduce_mean(
                tf.stack([tf.abs(q - targets) for q in q_values]), axis=0
            )
        return loss, tf.reduce_mean(q_values[0]), td_errors

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
        mean, log_std = tf.split(self.actor(obs), 2, axis=-1)
        log_std = tf.clip_by_value(log_std, LOG_STD_MIN, LOG_STD_MAX)
        pre_tanh = mean + tf.exp(log_std) * noise
        gaussian = tf.reduce_sum(-0.5 * noise**2 - log_std - 0.5 * LOG_2PI, axis=-1)
        correction = tf.reduce_sum(
            2.0 * (LOG_2 - pre_tanh - tf.nn.softplus(-2.0 * pre_tanh)), axis=-1
        )
        return tf.tanh(pre_tanh), gaussian - correction

    def min_q(self, critics, obs, actions):
        """The smaller of the two critics' values: clipped double Q, as in TD3."""
        return tf.minimum(
            q_value(critics[0], obs, actions),
            q_value(critics[1], obs, actions),
        )

    def actor_step(self, obs, noise, alpha):
        """One Adam step on alpha log pi(a|s) - min Q(s, a); then, when tuned, one
        step on log alpha."""
        with tf.GradientTape() as tape:
            actions, log_probs = self.sample(obs, noise[1])
            loss = tf.reduce_mean(
                alpha * log_probs - self.min_q(self.critics, obs, actions)
            )
            scaled = self.actor_optimizer.scale_loss(loss)
        # differs: torch calls loss.backward()
        grads = tape.gradient(scaled, self.actor.trainable_variables)
        self.actor_optimizer.apply_gradients(
            zip(grads, self.actor.trainable_variables, strict=True)
        )
        if self.config.auto_alpha:
            self.alpha_step(tf.stop_gradient(log_probs))
        return loss

    def alpha_step(self, log_probs):
        """Raise alpha while the policy's entropy (-log pi) is below the target,
        lower it while above."""
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(
                self.log_alpha * (log_probs + self.target_entropy)
            )
        grads = tape.gradient(loss, [self.log_alpha])
        self.alpha_optimizer.apply_gradients(
            zip(grads, [self.log_alpha], strict=True)
        )

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critics
        only: SAC bootstraps from its current actor."""
        parts.polyak_update(self.target_critics, self.critics, self.config.tau)

    # the plumbing around the update (acting, bursts, weights, checkpoints): calls
    # of the functions in tf_parts.py, documented there

    # differs: torch counts in a plain attribute; TF reads its tf.Variable counter
    @property
    def gradient_steps(self) -> int:
        return int(self.step_counter.numpy())

    def policy(self, obs: tf.Tensor) -> tf.Tensor:
        """The greedy action in [-1, 1]: tanh of the mean (the actor's first
        outputs)."""
        return tf.tanh(self.actor(obs)[:, : self.action_dim])

    def actions(self, obs: np.ndarray) -> np.ndarray:
        return parts.numpy_actions(self.policy, obs)

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        return self.update_many(single_burst(batch))

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        metrics, self.last_priorities = parts.run_burst(
            self.train_steps, batches, self.contract, self.config.gamma
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
