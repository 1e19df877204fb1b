"""DDPG's learner in TensorFlow, whole (Lillicrap et al. 2016): a critic fit to a TD
target of target networks, and a deterministic actor that climbs the critic's
gradient at its own action.

Mirrors ``torch.py`` line by line; ``# differs:`` marks each place where the
frameworks truly differ. The plumbing around the update (networks, weights, bursts,
checkpoints) is in ``rlkit/algos/tf_parts.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

from rlkit.algos import tf_parts as parts
from rlkit.algos.ddpg.config import DDPGConfig
from rlkit.algos.keras_adam import TorchAdam
from rlkit.algos.off_policy.config import (
    NETWORKS_AND_OPTIMIZERS,
    Batch,
    off_policy_contract,
    single_burst,
)
from rlkit.algos.tf_parts import q_value
from rlkit.hardware import on_learner_device
from rlkit.learner_state import TrainingState


@on_learner_device  # differs: built and run in tf.device; torch moves tensors
class Learner(TrainingState):
    """An actor, a critic, a target copy of each, and their gradient steps."""

    framework = "tf"
    name = "DDPG"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets,
    #: both optimizers' moments and the gradient-step count.
    # differs: TF counts gradient steps in a tf.Variable
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "step_counter")
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
        self.model = parts.OffPolicyModel(self.actor, self.critics)
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

    def train_step(self, batch: Batch):
        """A critic step, an actor step, then the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        critic_loss, q_mean, td_errors = self.critic_step(batch)
        self.step_counter.assign_add(1)
        actor_loss = self.actor_step(batch.obs)
        self.update_targets()
        # one actor step a critic step; DDPG has no temperature: its alpha term is 0
        return critic_loss, q_mean, actor_loss, tf.ones(()), tf.zeros(()), td_errors

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
        # differs: torch computes the targets under torch.no_grad()
        next_value = self.next_value(batch.next_obs)
        targets = batch.rewards + discounts * (1.0 - batch.terminated) * next_value
        targets = tf.stop_gradient(targets)
        with tf.GradientTape() as tape:
            q = q_value(self.critics[0], batch.obs, batch.actions)
            # importance weights correct prioritized sampling; without it they are 1
            if self.config.prioritized:
                loss = tf.reduce_mean(batch.weights * (q - targets) ** 2)
            else:
                loss = tf.reduce_mean((q - targets) ** 2)
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
            td_errors = tf.abs(q - targets)
        return loss, tf.reduce_mean(q), td_errors

    def next_value(self, next_obs):
        """V(s') = Q_target(s', mu_target(s')): the target critic at the target
        actor's action."""
        next_actions = tf.tanh(self.target_actor(next_obs))
        return q_value(self.target_critics[0], next_obs, next_actions)

    def policy(self, obs: tf.Tensor) -> tf.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's outputs."""
        # every output is an action: the slice changes no number, but TF's graph
        # without it fuses tanh into the last layer, which rounds differently
        return tf.tanh(self.actor(obs)[:, : self.action_dim])

    def actor_step(self, obs):
        """One Adam step that raises Q(s, mu(s)); only the actor's variables are
        handed to the tape's gradient."""
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(q_value(self.critics[0], obs, self.policy(obs)))
            scaled = self.actor_optimizer.scale_loss(loss)
        # differs: torch calls loss.backward()
        grads = tape.gradient(scaled, self.actor.trainable_variables)
        self.actor_optimizer.apply_gradients(
            zip(grads, self.actor.trainable_variables, strict=True)
        )
        return loss

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critic and
        the actor."""
        parts.polyak_update(
            [*self.target_critics, self.target_actor],
            [*self.critics, self.actor],
            self.config.tau,
        )

    # the plumbing around the update (acting, bursts, weights, checkpoints): calls
    # of the functions in tf_parts.py, documented there

    # differs: torch counts in a plain attribute; TF reads its tf.Variable counter
    @property
    def gradient_steps(self) -> int:
        return int(self.step_counter.numpy())

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
