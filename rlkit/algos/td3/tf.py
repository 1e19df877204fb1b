"""TD3's learner in TensorFlow, whole: DDPG's update with three fixes (Fujimoto et
al. 2018), two critics against over-estimation, a smoothed target action and delayed
actor updates.

Mirrors ``torch.py`` line by line; ``# differs:`` marks each place where the
frameworks truly differ. The plumbing around the update (networks, weights, bursts,
checkpoints) is in ``rlkit/algos/tf_parts.py``.
"""

from __future__ import annotations

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
from rlkit.algos.td3.config import TD3Config
from rlkit.algos.tf_parts import q_value
from rlkit.hardware import on_learner_device
from rlkit.learner_state import TrainingState


@on_learner_device  # differs: built and run in tf.device; torch moves tensors
class Learner(TrainingState):
    """An actor, two critics, a target copy of each, and their gradient steps."""

    framework = "tf"
    name = "TD3"
    #: What a resumed run needs beyond the weights (``state_dict``): the targets,
    #: both optimizers' moments and the gradient-step count (the actor delay's
    #: phase).
    # differs: TF counts gradient steps in a tf.Variable
    TRAINING_STATE = (*NETWORKS_AND_OPTIMIZERS, "step_counter")
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
        """A critic step; every ``policy_delay`` critic steps also an actor step and
        the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        critic_loss, q_mean, td_errors = self.critic_step(batch)
        self.step_counter.assign_add(1)
        actor_loss = tf.zeros(())
        actor_steps = tf.zeros(())
        # fix 2, delayed policy updates: the actor and the targets move every
        # policy_delay critic steps
        # differs: a tensor condition on a tf.Variable (autograph's tf.cond); a
        # Python counter would be read once, at tracing (C22)
        if self.step_counter % self.config.policy_delay == 0:
            actor_loss = self.actor_step(batch.obs)
            actor_steps = tf.ones(())
            self.update_targets()
        # TD3 has no temperature: its alpha term is 0
        return critic_loss, q_mean, actor_loss, actor_steps, tf.zeros(()), td_errors

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
        # differs: torch computes the targets under torch.no_grad()
        next_value = self.next_value(batch.next_obs, batch.noise)
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

    def next_value(self, next_obs, noise):
        """V(s') = min_i Q_target_i(s', a'), at the target actor's smoothed action
        a'."""
        # fix 3, target policy smoothing: clipped Gaussian noise on the target
        # action, so Q is fit on a region
        clip = self.config.target_noise_clip
        smoothing = tf.clip_by_value(
            self.config.target_noise * noise[0], -clip, clip
        )
        next_actions = tf.tanh(self.target_actor(next_obs)) + smoothing
        next_actions = tf.clip_by_value(next_actions, -1.0, 1.0)
        # fix 1, clipped double Q: the smaller of the two target critics, against
        # over-estimation
        first, second = (
            q_value(critic, next_obs, next_actions) for critic in self.target_critics
        )
        return tf.minimum(first, second)

    def policy(self, obs: tf.Tensor) -> tf.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's outputs."""
        # every output is an action: the slice changes no number, but TF's graph
        # without it fuses tanh into the last layer, which rounds differently
        return tf.tanh(self.actor(obs)[:, : self.action_dim])

    def actor_step(self, obs):
        """One Adam step that raises Q_1(s, mu(s)); only the actor's variables are
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
        """target <- target + tau * (online - target), in place, for the critics and
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
