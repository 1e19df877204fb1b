"""The actor-critic networks in TensorFlow 2 / Keras 3, shared by A2C and PPO: the
model, the policy's distribution, the rollout's evaluation, weights and
checkpoints.

Mirrors ``torch.py`` line by line. Each algorithm's whole update is in its own
``Learner`` (``rlkit/algos/a2c/tf.py``, ``rlkit/algos/ppo/tf.py``), built from
these functions. ``# differs:`` marks each place where the frameworks truly differ.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos import tf_parts as parts
from rlkit.algos.actor_critic.config import (
    METRICS,
    ActorCriticConfig,
    Batch,
    initial_weights,
)
from rlkit.algos.keras_adam import TorchAdam
from rlkit.algos.keras_rmsprop import TorchRMSprop
from rlkit.checkpoints import write_keras_checkpoint
from rlkit.contracts import TensorContract
from rlkit.encoders import ImageSpec

LOG_2PI = math.log(2 * math.pi)
#: Added to gSDE's variance before its log (SB3's 1e-6): a state whose latent
#: features are all zero would have a zero std.
SDE_EPS = 1e-6


def build_mlp(
    in_dim: int,
    out_dim: int,
    hidden_sizes: tuple[int, ...],
    image: ImageSpec | None = None,
    precision: str | None = None,
) -> keras.Sequential:
    """A tanh MLP with a linear output layer; for images, behind a convolutional
    encoder (first, so its weights come first), whose features the MLP reads. Its
    layers compute in ``precision`` (None: float32), its output is float32."""
    if image is None:
        layers: list = [keras.Input((in_dim,))]
    else:
        # differs: Keras' input names the images' stored dtype; Reshape tells Keras
        # the features' size, which it cannot infer through the encoder's flatten
        # (torch's first Linear is told in_dim)
        stored = keras.Input(image.shape, dtype=image.dtype)
        flat = keras.layers.Reshape((image.flat_size,))
        layers = [stored, parts.ConvEncoder(image, dtype=precision), flat]
    for width in hidden_sizes:
        layers.append(keras.layers.Dense(width, activation="tanh", dtype=precision))
    layers.append(keras.layers.Dense(out_dim, dtype=precision))
    return keras.Sequential(parts.float32_output(layers, precision))


@keras.saving.register_keras_serializable("rlkit")
class ActorCriticModel(keras.Model):
    """Actor, critic and the Gaussian policy's log std (``log_std_size`` 0 for
    discrete actions) in one model. With gSDE (``sde_features`` = the actor's last
    hidden width) the log std is a matrix, one entry per latent feature and action.

    For images each network has its own encoder, not one trunk with two heads
    (CleanRL's Atari PPO): the loss sums the policy and value losses, so a shared
    trunk would learn features for both at a ratio set by ``vf_coef`` and the
    returns' scale, and one global gradient clip would let a large value gradient
    shrink the policy's step. Separate, each network learns from its own loss alone,
    as the MLPs do; acting reads the actor's arrays (the first of the weights) with
    the numpy encoder and MLP. The cost: the update convolves each image twice.
    """

    def __init__(
        self,
        actor: keras.Model,
        critic: keras.Model,
        log_std_size: int = 0,
        sde_features: int = 0,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.actor, self.critic, self.log_std_size = actor, critic, log_std_size
        self.sde_features = sde_features
        # differs: gSDE's matrix as (features, action_dim), as a Dense kernel is (in,
        # out); torch's is (action_dim, features)
        shape = (sde_features, log_std_size) if sde_features else (log_std_size,)
        self.log_std = (
            self.add_weight(shape=shape, initializer="zeros", name="log_std")
            if log_std_size
            else None
        )
        self.built = True
        # differs: torch runs eagerly; TF traces the rollout's batched evaluation
        # once into a graph (a fixed signature: no retracing)
        obs_dim, action_dim = actor.input_shape[-1], actor.output_shape[-1]
        first = actor.layers[0]  # the encoder, for images
        image = first.spec if isinstance(first, parts.ConvEncoder) else None
        self.traced_rollout_outputs = parts.Traced(
            partial(rollout_outputs, self),
            input_specs(obs_dim, action_dim, not log_std_size, image),
            autograph=False,  # no Python loop or branch on a tensor to rewrite
        )
        # differs: one traced read of every variable (eager reads of each variable
        # cost ~0.4 ms in all); the loop reads the weights once per rollout
        self.read_parameters = parts.Traced(
            lambda: [tf.identity(variable) for variable in parameters(self)], []
        )

    def call(self, obs):
        return self.actor(obs), self.critic(obs)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "actor": keras.saving.serialize_keras_object(self.actor),
            "critic": keras.saving.serialize_keras_object(self.critic),
            "log_std_size": self.log_std_size,
            "sde_features": self.sde_features,
        }

    @classmethod
    def from_config(cls, config: dict) -> ActorCriticModel:
        config["actor"] = keras.saving.deserialize_keras_object(config["actor"])
        config["critic"] = keras.saving.deserialize_keras_object(config["critic"])
        return cls(**config)


def build_model(
    obs_dim: int,
    action_dim: int,
    discrete: bool,
    config: ActorCriticConfig,
    seed: int,
    device: str,
    image: ImageSpec | None = None,
) -> ActorCriticModel:
    """Actor (logits or Gaussian mean, plus a state-independent log std, or gSDE's
    log std matrix) and critic in one model, so that a checkpoint is that model's
    weights; with the seed's initial weights (the same as torch's). ``image``: each
    network reads the images through its own convolutional encoder."""
    precision = parts.compute_dtype(config.precision, device)
    actor = build_mlp(obs_dim, action_dim, config.hidden_sizes, image, precision)
    critic = build_mlp(obs_dim, 1, config.hidden_sizes, image, precision)
    sde = config.hidden_sizes[-1] if config.use_sde else 0
    model = ActorCriticModel(actor, critic, 0 if discrete else action_dim, sde)
    weights = initial_weights(obs_dim, action_dim, discrete, config, seed, image)
    set_weights(model, weights)
    return model


def parameters(model: ActorCriticModel) -> list[tf.Variable]:
    """Actor, critic and (continuous actions) log std, in :func:`get_weights`
    order."""
    log_std = [] if model.log_std is None else [model.log_std]
    return [
        *model.actor.trainable_variables,
        *model.critic.trainable_variables,
        *log_std,
    ]


def build_optimizer(config: ActorCriticConfig) -> TorchAdam | TorchRMSprop:
    """The update's optimizer (``config.optimizer``): Adam, or RMSprop as SB3's A2C
    steps."""
    # differs: Keras' own Adam and RMSprop place epsilon differently from torch's;
    # TorchAdam and TorchRMSprop take torch's steps. The learner builds it for the
    # model's variables (after fp16's loss scaling wraps it); torch's takes them here
    lr = config.learning_rate
    if config.optimizer == "adam":
        return TorchAdam(learning_rate=lr, epsilon=config.adam_eps)
    return TorchRMSprop(
        learning_rate=lr, rho=config.rmsprop_alpha, epsilon=config.rmsprop_eps
    )


def actor_outputs(model: ActorCriticModel, obs):
    """The actor's output and, with gSDE, its last hidden layer's activations (the
    latent features its noise multiplies; None without)."""
    if not model.sde_features:
        return model.actor(obs, training=True), None
    *trunk, head = model.actor.layers  # fp32 only (the config checks): no cast
    features = obs
    for layer in trunk:
        features = layer(features)
    return head(features), features


def sde_log_std(log_std, features):
    """gSDE's log std at each state: log sqrt(sum_j z_j^2 sigma_jk^2), the std of
    mu + z E with E ~ N(0, sigma^2). The features are detached (SB3's default):
    the network learns through the mean only, sigma through this std."""
    # differs: the matrix is (features, action_dim) here: a Dense kernel's product
    variance = tf.stop_gradient(features) ** 2 @ tf.exp(2.0 * log_std)
    return 0.5 * tf.math.log(variance + SDE_EPS)


def log_prob_entropy(model: ActorCriticModel, obs, actions):
    """log pi(a|s) and the policy's entropy at s: categorical over logits, or
    diagonal Gaussian (with gSDE, its std depends on s)."""
    (out, features), log_std = actor_outputs(model, obs), model.log_std
    if log_std is None:
        log_p = tf.nn.log_softmax(out, axis=-1)
        log_probs = tf.gather(log_p, actions, batch_dims=1)
        entropy = -tf.reduce_sum(tf.exp(log_p) * log_p, axis=-1)
    elif features is None:
        z = (actions - out) / tf.exp(log_std)
        log_probs = tf.reduce_sum(-0.5 * z**2 - log_std - 0.5 * LOG_2PI, axis=-1)
        entropy = tf.fill(
            [tf.shape(obs)[0]], tf.reduce_sum(log_std + 0.5 * (1.0 + LOG_2PI))
        )
    else:
        log_std = sde_log_std(log_std, features)
        z = (actions - out) / tf.exp(log_std)
        log_probs = tf.reduce_sum(-0.5 * z**2 - log_std - 0.5 * LOG_2PI, axis=-1)
        entropy = tf.reduce_sum(log_std + 0.5 * (1.0 + LOG_2PI), axis=-1)
    return log_probs, entropy


def critic_values(model: ActorCriticModel, obs):
    """V(s), one value per observation."""
    return tf.squeeze(model.critic(obs, training=False), -1)


def rollout_outputs(model: ActorCriticModel, obs, actions):
    """The tensors :func:`values_and_log_probs` returns (traced once per model)."""
    log_probs = log_prob_entropy(model, obs[: tf.shape(actions)[0]], actions)[0]
    return critic_values(model, obs), log_probs


def values_and_log_probs(
    model: ActorCriticModel, obs: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """V(s) for a rollout's observations (the one after its last step included)
    and log pi(a|s) for the first ``len(actions)`` of them (the "old"
    log-probabilities): one batched call after each rollout."""
    values, log_probs = model.traced_rollout_outputs(
        tf.constant(obs), tf.constant(actions)
    )
    return values.numpy(), log_probs.numpy()


def run_update(
    train_update,
    contract: TensorContract,
    batch: dict[str, np.ndarray],
    minibatches: np.ndarray,
    clip_range: float,
    max_kl: float,
    learning_rate: float | None,  # differs: torch's optimizer holds it already
) -> dict[str, float]:
    """``train_update(batch, minibatches, clip_range, max_kl, learning_rate)`` on a
    rollout that satisfies the contract, read into a :class:`Batch` of tensors (a
    learning rate of None as NaN: keep the optimizer's); its metrics by name."""
    contract.check(batch)
    fields = (tf.constant(batch[name]) for name in Batch._fields)
    means = train_update(
        Batch(*fields),
        tf.constant(minibatches, dtype=tf.int64),
        tf.constant(clip_range, dtype=tf.float32),
        tf.constant(max_kl, dtype=tf.float32),
        tf.constant(np.nan if learning_rate is None else learning_rate, tf.float32),
    )
    return dict(zip(METRICS, means.numpy().tolist(), strict=True))


# differs: torch sets its optimizer's learning rate in place, eagerly and for free
def assign_learning_rate(optimizer, learning_rate) -> None:
    """Inside a traced update: give the optimizer ``learning_rate`` before its
    steps, unless it is NaN (none was set since the last update). Assigned here
    and not eagerly in ``set_learning_rate``: an eager assign is a call of its own
    (~0.2 ms a rollout); in the graph it costs next to nothing."""
    if not tf.math.is_nan(learning_rate):
        optimizer.learning_rate.assign(learning_rate)


def rows(batch: Batch, indices) -> Batch:
    """The batch's transitions at ``indices`` (a minibatch), every field alike."""
    return Batch(*(tf.gather(field, indices) for field in batch))


def get_weights(model: ActorCriticModel) -> list[np.ndarray]:
    """``[actor W0, b0, ..., critic W0, b0, ...(, log_std)]``, each kernel as
    (in, out) (Keras' layout; gSDE's log std as (features, action_dim)); an
    encoder's (kh, kw, in, out) kernels and biases lead its network's arrays."""
    # differs: one traced read of every variable; torch reads them tensor by tensor
    return [value.numpy() for value in model.read_parameters()]


def set_weights(model: ActorCriticModel, weights: list[np.ndarray]) -> None:
    """Load weights in :func:`get_weights` order."""
    params = parameters(model)
    if len(weights) != len(params):
        raise ValueError(f"expected {len(params)} arrays, got {len(weights)}")
    for param, value in zip(params, weights, strict=True):
        param.assign(np.asarray(value, dtype=np.float32))


def save(model: ActorCriticModel, path: str | Path, meta: dict) -> None:
    """A ``.keras`` archive or ``.weights.h5`` file with the weights and rlkit's
    metadata."""
    write_keras_checkpoint(path, meta, model)


def load(model: ActorCriticModel, path: str | Path) -> None:
    model.load_weights(str(path))


# differs: torch has Tensor.std(); tf.math.reduce_std has no Bessel correction
def sample_std(x):
    """Standard deviation with Bessel's correction, as torch's ``Tensor.std()``
    (tf.math.reduce_std has none)."""
    n = tf.cast(tf.shape(x)[0], x.dtype)
    return tf.sqrt(tf.reduce_sum((x - tf.reduce_mean(x)) ** 2) / (n - 1.0))


# differs: torch needs no signatures; TF traces each function once for these
def input_specs(
    obs_dim: int, action_dim: int, discrete: bool, image: ImageSpec | None = None
) -> list:
    """Observations and actions: a rollout's, or a batch's first two fields. Images
    arrive as stored (uint8 pixels, bool grids)."""
    action_spec = (
        tf.TensorSpec((None,), tf.int64)
        if discrete
        else tf.TensorSpec((None, action_dim), tf.float32)
    )
    obs_spec = (
        tf.TensorSpec((None, obs_dim))
        if image is None
        else tf.TensorSpec((None, *image.shape), image.dtype)
    )
    return [obs_spec, action_spec]


# differs: torch needs no signatures; TF traces each function once for these
def update_signature(
    obs_dim: int, action_dim: int, discrete: bool, image: ImageSpec | None = None
) -> list:
    """The arguments of a learner's ``train_update``: the rollout as a
    :class:`Batch`, the minibatches' index arrays, the clip range, the KL limit,
    the learning rate (NaN: keep the optimizer's)."""
    vector, scalar = tf.TensorSpec((None,)), tf.TensorSpec(())
    batch = Batch(*input_specs(obs_dim, action_dim, discrete, image), *[vector] * 4)
    minibatches = tf.TensorSpec((None, None, None), tf.int64)
    return [batch, minibatches, scalar, scalar, scalar]
