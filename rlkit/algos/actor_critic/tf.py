"""The actor-critic networks and update loop in TensorFlow 2 / Keras 3, shared by A2C
and PPO.

Mirrors ``torch.py`` line by line. Each algorithm subclasses
:class:`ActorCriticLearner` and supplies only ``policy_loss``. ``# differs:`` marks
each place where the frameworks truly differ.
"""

from __future__ import annotations

import math
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos.actor_critic.config import (
    APPROX_KL,
    METRICS,
    ActorCriticConfig,
    actor_critic_contract,
    initial_weights,
)
from rlkit.algos.keras_adam import TorchAdam
from rlkit.checkpoints import write_keras_checkpoint
from rlkit.hardware import check_device, configure_tensorflow

LOG_2PI = math.log(2 * math.pi)


def build_mlp(
    in_dim: int, out_dim: int, hidden_sizes: tuple[int, ...]
) -> keras.Sequential:
    """A tanh MLP with a linear output layer."""
    layers: list = [keras.Input((in_dim,))]
    for width in hidden_sizes:
        layers.append(keras.layers.Dense(width, activation="tanh"))
    layers.append(keras.layers.Dense(out_dim))
    return keras.Sequential(layers)


class ActorCriticLearner:
    """Actor (logits or Gaussian mean, plus a state-independent log std), critic,
    optimizer, update step."""

    framework = "tf"
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
        configure_tensorflow()  # one CPU thread unless RLKIT_THREADS says otherwise
        keras.utils.set_random_seed(seed)
        # differs: TF puts its ops on a GPU itself when its GPU build sees one
        self.device = check_device(device)
        self.config, self.discrete = config, discrete
        self.contract = actor_critic_contract(
            self.name, obs_dim, discrete, action_dim
        )
        self.actor = build_mlp(obs_dim, action_dim, config.hidden_sizes)
        self.critic = build_mlp(obs_dim, 1, config.hidden_sizes)
        # the log std lives in a model with both networks, so a checkpoint is that
        # model's weights
        self.model = ActorCriticModel(
            self.actor, self.critic, 0 if discrete else action_dim
        )
        self.log_std = self.model.log_std
        # same as torch's
        self.set_weights(
            initial_weights(obs_dim, action_dim, discrete, config, seed)
        )
        # differs: Keras' own Adam places epsilon differently from torch's; TorchAdam
        # uses torch's formula
        self.optimizer = TorchAdam(
            learning_rate=config.learning_rate, epsilon=config.adam_eps
        )
        self.optimizer.build(self.parameters())
        action_spec = (
            tf.TensorSpec((None,), tf.int64)
            if discrete
            else tf.TensorSpec((None, action_dim), tf.float32)
        )
        obs_spec, vector, scalar = (
            tf.TensorSpec((None, obs_dim)),
            tf.TensorSpec((None,)),
            tf.TensorSpec(()),
        )
        update_spec = [obs_spec, action_spec, vector, vector, vector, vector]
        update_spec += [tf.TensorSpec((None, None, None), tf.int64), scalar, scalar]
        # differs: torch runs eagerly; TF traces each of these once into a graph
        # (fixed signatures: no retracing). A whole update (every epoch and
        # minibatch) is then one call, and so is the rollout's batched evaluation.
        self.train_update = tf.function(
            self.train_update, input_signature=update_spec
        )
        self.rollout_outputs = tf.function(
            self.rollout_outputs,
            input_signature=[obs_spec, action_spec],
            autograph=False,  # no Python loop or branch on a tensor to rewrite
        )
        self.read_parameters = tf.function(self.read_parameters)

    def parameters(self) -> list[tf.Variable]:
        """Actor, critic and (continuous actions) log std, in :meth:`get_weights`
        order."""
        log_std = [] if self.log_std is None else [self.log_std]
        return [
            *self.actor.trainable_variables,
            *self.critic.trainable_variables,
            *log_std,
        ]

    def values_and_log_probs(
        self, obs: np.ndarray, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """V(s) for a rollout's observations (the one after its last step included)
        and log pi(a|s) for the first ``len(actions)`` of them (the "old"
        log-probabilities): one batched call after each rollout."""
        values, log_probs = self.rollout_outputs(
            tf.constant(obs), tf.constant(actions)
        )
        return values.numpy(), log_probs.numpy()

    def rollout_outputs(self, obs, actions):
        """The tensors :meth:`values_and_log_probs` returns (traced once)."""
        log_probs = self.log_prob_entropy(obs[: tf.shape(actions)[0]], actions)[0]
        return self.critic_values(obs), log_probs

    def critic_values(self, obs):
        return tf.squeeze(self.critic(obs, training=False), -1)

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
        means = self.train_update(
            *(tf.constant(batch[name]) for name in self.contract.fields),
            tf.constant(minibatches, dtype=tf.int64),
            tf.constant(clip_range, dtype=tf.float32),
            tf.constant(max_kl, dtype=tf.float32),
        )
        return dict(zip(METRICS, means.numpy().tolist(), strict=True))

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
        totals = tf.zeros(len(METRICS) - 1)
        epochs = tf.zeros(())
        # differs: autograph turns both loops into graph while_loops
        for epoch in minibatches:
            epoch_totals = tf.zeros(len(METRICS) - 1)
            for indices in epoch:
                metrics = self.train_minibatch(
                    tf.gather(obs, indices), tf.gather(actions, indices),
                    tf.gather(old_log_probs, indices),
                    tf.gather(advantages, indices), tf.gather(returns, indices),
                    tf.gather(old_values, indices),
                    clip_range,
                )  # fmt: skip
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
        with tf.GradientTape() as tape:
            loss, metrics = self.loss(
                obs,
                actions,
                old_log_probs,
                advantages,
                returns,
                old_values,
                clip_range,
            )
        # differs: torch calls loss.backward()
        grads = tape.gradient(loss, self.parameters())
        grads, _ = tf.clip_by_global_norm(grads, self.config.max_grad_norm)
        self.optimizer.apply_gradients(zip(grads, self.parameters(), strict=True))
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
        values = tf.squeeze(self.critic(obs, training=True), -1)
        if self.config.normalize_advantages:
            advantages = (advantages - tf.reduce_mean(advantages)) / (
                sample_std(advantages) + 1e-8
            )
        policy_loss, approx_kl, clip_fraction = self.policy_loss(
            log_probs, old_log_probs, advantages, clip_range
        )
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
        """The algorithm's policy loss, approximate KL and clip fraction
        (see A2C and PPO)."""
        raise NotImplementedError

    def log_prob_entropy(self, obs, actions):
        """log pi(a|s) and the policy's entropy at s: categorical over logits, or
        diagonal Gaussian."""
        out = self.actor(obs, training=True)
        if self.discrete:
            log_p = tf.nn.log_softmax(out, axis=-1)
            log_probs = tf.gather(log_p, actions, batch_dims=1)
            entropy = -tf.reduce_sum(tf.exp(log_p) * log_p, axis=-1)
        else:
            z = (actions - out) / tf.exp(self.log_std)
            log_probs = tf.reduce_sum(
                -0.5 * z**2 - self.log_std - 0.5 * LOG_2PI, axis=-1
            )
            entropy = tf.fill(
                [tf.shape(obs)[0]],
                tf.reduce_sum(self.log_std + 0.5 * (1.0 + LOG_2PI)),
            )
        return log_probs, entropy

    def set_learning_rate(self, learning_rate: float) -> None:
        self.optimizer.learning_rate.assign(learning_rate)

    def get_weights(self) -> list[np.ndarray]:
        """``[actor W0, b0, ..., critic W0, b0, ...(, log_std)]``, each kernel as
        (in, out) (Keras' layout)."""
        return [value.numpy() for value in self.read_parameters()]

    # differs: one traced read of every variable (eager reads take 4x as long)
    def read_parameters(self):
        """Every variable's value, in :meth:`get_weights` order (traced once): the
        loop reads the weights twice per rollout (acting copy, NaN check), and an
        eager read of each variable costs ~0.4 ms in all."""
        return [tf.identity(variable) for variable in self.parameters()]

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order."""
        params = self.parameters()
        if len(weights) != len(params):
            raise ValueError(f"expected {len(params)} arrays, got {len(weights)}")
        for param, value in zip(params, weights, strict=True):
            param.assign(np.asarray(value, dtype=np.float32))

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.keras`` archive or ``.weights.h5`` file with the weights and rlkit's
        metadata."""
        write_keras_checkpoint(path, meta, self.model)

    def load(self, path: str | Path) -> None:
        self.model.load_weights(str(path))


# differs: torch has Tensor.std(); tf.math.reduce_std has no Bessel correction
def sample_std(x):
    """Standard deviation with Bessel's correction, as torch's ``Tensor.std()``
    (tf.math.reduce_std has none)."""
    n = tf.cast(tf.shape(x)[0], x.dtype)
    return tf.sqrt(tf.reduce_sum((x - tf.reduce_mean(x)) ** 2) / (n - 1.0))


@keras.saving.register_keras_serializable("rlkit")
class ActorCriticModel(keras.Model):
    """Actor, critic and the Gaussian policy's log std (``log_std_size`` 0 for
    discrete actions) in one model."""

    def __init__(
        self,
        actor: keras.Model,
        critic: keras.Model,
        log_std_size: int = 0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.actor, self.critic, self.log_std_size = actor, critic, log_std_size
        self.log_std = (
            self.add_weight(
                shape=(log_std_size,), initializer="zeros", name="log_std"
            )
            if log_std_size
            else None
        )
        self.built = True

    def call(self, obs):
        return self.actor(obs), self.critic(obs)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "actor": keras.saving.serialize_keras_object(self.actor),
            "critic": keras.saving.serialize_keras_object(self.critic),
            "log_std_size": self.log_std_size,
        }

    @classmethod
    def from_config(cls, config: dict) -> ActorCriticModel:
        config["actor"] = keras.saving.deserialize_keras_object(config["actor"])
        config["critic"] = keras.saving.deserialize_keras_object(config["critic"])
        return cls(**config)
