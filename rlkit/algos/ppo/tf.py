"""PPO's learner in TensorFlow 2 / Keras 3: the whole update on one rollout, epochs
of shuffled minibatches, each an optimizer step on the clipped surrogate, the value
loss and the entropy bonus.

Mirrors ``torch.py`` line by line. The networks, the policy's distribution and the
weights' layout are shared with A2C (``rlkit/algos/actor_critic/tf.py``).
``# differs:`` marks each place where the frameworks truly differ.
"""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos import tf_parts as parts
from rlkit.algos.actor_critic import tf as nets
from rlkit.algos.actor_critic.config import (
    APPROX_KL,
    METRICS,
    ActorCriticConfig,
    Batch,
    actor_critic_contract,
)
from rlkit.encoders import ImageSpec
from rlkit.hardware import configure_tensorflow, on_learner_device, tensorflow_device
from rlkit.learner_state import TrainingState


@on_learner_device  # differs: built and run in tf.device; torch moves tensors
class Learner(TrainingState):
    """PPO's networks, their optimizer and the update on each rollout:
    ``update`` reads the rollout into one :class:`Batch`, ``train_update`` runs the
    epochs of minibatches, ``train_minibatch`` takes one step on the ``loss``."""

    framework = "tf"
    name = "PPO"
    #: What a resumed run needs beyond the weights (``state_dict``): the optimizer's
    #: moments (the model holds the only networks).
    TRAINING_STATE = ("model", "optimizer")

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
        configure_tensorflow()  # one CPU thread unless RLKIT_THREADS says otherwise
        keras.utils.set_random_seed(seed)
        # differs: a TF device name, "/CPU:0" or "/GPU:N" (the learner runs in it)
        self.device = tensorflow_device(device)
        self.config, self.discrete, self.image = config, discrete, image
        self.contract = actor_critic_contract(
            self.name, obs_dim, discrete, action_dim, image
        )
        self.model = nets.build_model(
            obs_dim, action_dim, discrete, config, seed, self.device, image
        )
        self.actor, self.critic = self.model.actor, self.model.critic
        self.log_std = self.model.log_std
        # differs: for fp16 Keras wraps the optimizer in its loss scaling, where
        # torch keeps a GradScaler beside it (rlkit/precision.py)
        self.optimizer = parts.loss_scaler(
            config.precision, nets.build_optimizer(config)
        )
        self.optimizer.build(nets.parameters(self.model))
        # differs: torch runs eagerly; TF traces the whole update (every epoch and
        # minibatch) once into a graph (a fixed signature: no retracing)
        self.train_update = parts.Traced(
            self.train_update,
            nets.update_signature(obs_dim, action_dim, discrete, image),
        )
        # differs: set_learning_rate records the rate; the next update assigns it
        self.next_learning_rate: float | None = None

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
        learning_rate, self.next_learning_rate = self.next_learning_rate, None
        return nets.run_update(
            self.train_update, self.contract, batch, minibatches, clip_range, max_kl,
            learning_rate,
        )  # fmt: skip

    def train_update(self, batch: Batch, minibatches, clip_range, max_kl, lr):
        """Mean of each metric over the minibatch steps taken (``epochs`` in the last
        slot)."""
        nets.assign_learning_rate(self.optimizer, lr)  # differs: torch's is set
        totals = tf.zeros(len(METRICS) - 1)
        epochs = tf.zeros(())
        # differs: autograph turns both loops into graph while_loops
        for epoch in minibatches:
            epoch_totals = tf.zeros(len(METRICS) - 1)
            for indices in epoch:
                metrics = self.train_minibatch(nets.rows(batch, indices), clip_range)
                epoch_totals += tf.stack(metrics)
            size = tf.cast(tf.shape(epoch)[0], tf.float32)
            totals, epochs = totals + epoch_totals / size, epochs + 1
            if epoch_totals[APPROX_KL] / size > max_kl:
                # the policy moved too far from the one that collected the data
                break
        return tf.concat([totals / epochs, epochs[None]], axis=0)

    # differs: autograph need not rewrite this step and what it calls (no Python
    # loop or branch on a tensor there); the loops above are all it has to convert
    @tf.autograph.experimental.do_not_convert
    def train_minibatch(self, batch: Batch, clip_range):
        """One clipped optimizer step on the minibatch's loss; returns the loss terms
        as a tuple."""
        with tf.GradientTape() as tape:
            loss, metrics = self.loss(batch, clip_range)
            # fp16: the loss scaled up before its gradients (rlkit/precision.py)
            scaled = self.optimizer.scale_loss(loss)
        # differs: torch calls loss.backward()
        grads = tape.gradient(scaled, nets.parameters(self.model))
        # differs: the gradients are still scaled (Keras unscales them in
        # apply_gradients), so the clip's bound is scaled too:
        # clip(s g, s c) = s clip(g, c)
        bound = self.config.max_grad_norm * parts.loss_scale(self.optimizer)
        grads, _ = tf.clip_by_global_norm(grads, bound)
        self.optimizer.apply_gradients(
            zip(grads, nets.parameters(self.model), strict=True)
        )
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
            advantages = (advantages - tf.reduce_mean(advantages)) / (
                nets.sample_std(advantages) + 1e-8
            )
        policy_loss, approx_kl, clip_fraction = self.policy_loss(
            log_probs, batch.old_log_probs, advantages, clip_range
        )
        old_values, returns = batch.old_values, batch.returns
        if self.config.clip_value:
            clipped = old_values + tf.clip_by_value(
                values - old_values, -clip_range, clip_range
            )
            value_loss = 0.5 * tf.reduce_mean(
                tf.maximum((values - returns) ** 2, (clipped - returns) ** 2)
            )
        else:
            value_loss = 0.5 * tf.reduce_mean((values - returns) ** 2)
        entropy = tf.reduce_mean(entropy)
        loss = (
            policy_loss
            + self.config.vf_coef * value_loss
            - self.config.ent_coef * entropy
        )
        terms = (loss, policy_loss, value_loss, entropy, approx_kl, clip_fraction)
        return loss, tuple(tf.stop_gradient(term) for term in terms)

    def policy_loss(self, log_probs, old_log_probs, advantages, clip_range):
        """-E[min(r A, clip(r, 1 - c, 1 + c) A)] with r = pi / pi_old; also
        approximate KL and clip fraction."""
        log_ratio = log_probs - old_log_probs
        ratio = tf.exp(log_ratio)
        # zero gradient outside the range
        clipped = tf.clip_by_value(ratio, 1.0 - clip_range, 1.0 + clip_range)
        loss = -tf.reduce_mean(tf.minimum(ratio * advantages, clipped * advantages))
        # an unbiased, always-positive KL estimate
        approx_kl = tf.reduce_mean((ratio - 1.0) - log_ratio)
        clip_fraction = tf.reduce_mean(
            tf.cast(tf.abs(ratio - 1.0) > clip_range, tf.float32)
        )
        return loss, approx_kl, clip_fraction

    def set_learning_rate(self, learning_rate: float) -> None:
        # differs: assigned in the next update's graph (an eager assign costs a call)
        self.next_learning_rate = learning_rate

    def get_weights(self) -> list[np.ndarray]:
        """Actor, critic (and log std), each kernel as (in, out) (Keras' layout)."""
        return nets.get_weights(self.model)

    def set_weights(self, weights: list[np.ndarray]) -> None:
        nets.set_weights(self.model, weights)

    def save(self, path: str | Path, meta: dict) -> None:
        nets.save(self.model, path, meta)

    def load(self, path: str | Path) -> None:
        nets.load(self.model, path)
