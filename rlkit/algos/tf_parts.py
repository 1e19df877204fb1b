"""Small TensorFlow 2 / Keras 3 pieces the learners share, as functions: seeding,
networks and their weights, target networks, checkpoints, and, in a section of
their own, the off-policy family's critics and bursts of gradient steps.

An algorithm's update lives whole in its own file (``rlkit/algos/td3/tf.py``);
what is here is the plumbing around it, the same for every algorithm that uses it.
Mirrors ``torch_parts.py`` function by function; ``# differs:`` marks each place
where the frameworks truly differ.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos.off_policy.config import (
    Batch,
    OffPolicyConfig,
    burst_metrics,
    flatten_burst,
    initial_weights,
)
from rlkit.batches import with_defaults
from rlkit.checkpoints import write_keras_checkpoint
from rlkit.contracts import TensorContract
from rlkit.encoders import ImageSpec
from rlkit.errors import RlkitError
from rlkit.hardware import configure_tensorflow, tensorflow_device
from rlkit.precision import refusal

# ----------------------------------------------------------------------------------
# Any learner: seed and device, networks and their weights, targets, checkpoints
# ----------------------------------------------------------------------------------


def seeded_device(seed: int, device: str) -> str:
    """Seed the framework; the device a learner computes on."""
    configure_tensorflow()  # one CPU thread unless RLKIT_THREADS says otherwise
    keras.utils.set_random_seed(seed)
    # differs: a TF device name, "/CPU:0" or "/GPU:N" (the learner runs in its scope)
    return tensorflow_device(device)


def build_mlp(
    in_dim: int,
    out_dim: int,
    hidden_sizes: tuple[int, ...],
    precision: str | None = None,
) -> keras.Sequential:
    """A ReLU MLP with a linear output layer; its layers compute in ``precision``
    (:func:`compute_dtype`), its output is float32."""
    layers: list = [keras.Input((in_dim,))]
    for width in hidden_sizes:
        layers.append(keras.layers.Dense(width, activation="relu", dtype=precision))
    layers.append(keras.layers.Dense(out_dim, dtype=precision))
    return keras.Sequential(float32_output(layers, precision))


# differs: torch runs eagerly and has no graph to call
class Traced:
    """``function`` traced once into a graph for its fixed ``input_signature`` and
    called through that one concrete function (traced at the first call, not when
    built: a learner loaded only to act never traces its update).

    Why not the ``tf.function`` itself: each call of one matches its arguments
    against the signature in Python before it runs the graph, about 0.1 ms for a
    few tensors and 0.3 ms for an actor-critic update's ten (2-core CPU,
    ``benchmarks/costs/first_call_cost.py``); the concrete function skips that, and
    runs the same graph, so the numbers are the same to the bit. Called with
    tensors of exactly the signature's dtypes (a Python float is refused)."""

    def __init__(self, function: Callable, input_signature: list, **options) -> None:
        self.function = tf.function(
            function, input_signature=input_signature, **options
        )
        self.concrete = None

    def __call__(self, *args):
        if self.concrete is None:
            self.concrete = self.function.get_concrete_function()
        return self.concrete(*args)


# ----------------------------------------------------------------------------------
# Precision: the layers compute in bf16 or fp16, everything around them in float32
# ----------------------------------------------------------------------------------

#: The dtype policy of the layers at each precision (fp32: Keras' default).
LOW_PRECISION = {"fp32": None, "bf16": "mixed_bfloat16", "fp16": "mixed_float16"}


def compute_dtype(precision: str, device: str) -> str | None:
    """The dtype policy of the networks' layers, by name (None: float32); a
    precision the device cannot compute in is refused by name (one small product
    tells)."""
    policy = LOW_PRECISION[precision]
    if policy is not None:
        # differs: TF raises where it has no kernel for the dtype on the device
        try:
            with tf.device(device):
                ones = tf.ones((2, 2), keras.DTypePolicy(policy).compute_dtype)
                tf.matmul(ones, ones)
        except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as error:
            raise RlkitError(refusal(precision, device, "tensorflow")) from error
    return policy


# differs: Keras casts inside each layer by its policy; torch's autocast is a scope
def float32_output(layers: list, precision: str | None) -> list:
    """The layers, then (in low precision) a float32 cast of their output."""
    if precision is None:
        return layers
    # float32 from here on: the TD targets, losses, softmaxes and log-probabilities
    # read it, and bf16's 8 significant bits lose what they compare (chapter 44)
    return [*layers, keras.layers.Activation("linear", dtype="float32")]


def loss_scaler(precision: str, optimizer: keras.Optimizer) -> keras.Optimizer:
    """Dynamic loss scaling for fp16, whose 5 exponent bits flush small gradients to
    zero: the optimizer wrapped; as it is for fp32 and bf16 (float32's range)."""
    # differs: Keras wraps the optimizer; torch keeps a GradScaler beside it
    if precision != "fp16":
        return optimizer
    return keras.optimizers.LossScaleOptimizer(
        optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000
    )


# differs: torch keeps the optimizer itself beside its GradScaler
def adam(optimizer: keras.Optimizer) -> keras.Optimizer:
    """The Adam inside a loss-scaling wrapper, or the optimizer itself."""
    return getattr(optimizer, "inner_optimizer", optimizer)


# differs: torch's GradScaler unscales the gradients itself (unscale_)
def loss_scale(optimizer: keras.Optimizer):
    """The factor the loss was scaled by (1 without loss scaling)."""
    if isinstance(optimizer, keras.optimizers.LossScaleOptimizer):
        return optimizer.dynamic_scale
    return 1.0


@keras.saving.register_keras_serializable(package="rlkit")
class ConvEncoder(keras.layers.Layer):
    """Stored images -> features (B, flat_size): convolutions with ReLUs, as
    ``rlkit/encoders.py`` describes them (its numpy ``encode`` is the reference)."""

    def __init__(self, spec: ImageSpec | dict, **kwargs) -> None:
        super().__init__(**kwargs)
        # differs: Keras rebuilds a saved layer from its config, a dict
        spec = spec if isinstance(spec, ImageSpec) else ImageSpec.from_dict(spec)
        self.convs = [
            # differs: each Keras layer computes in its own dtype policy (this
            # encoder's); torch's autocast covers the whole forward pass
            keras.layers.Conv2D(
                filters, size, strides=stride, dtype=self.dtype_policy
            )
            for filters, size, stride in spec.convs
        ]
        self.scale, self.channels_last, self.spec = (
            spec.scale,
            spec.channels_last,
            spec,
        )

    def call(self, obs):
        # uint8 pixels (or bool grids) leave the buffer as they were stored
        x = tf.cast(obs, tf.float32) * self.scale
        if not self.channels_last:
            # differs: TF's CPU Conv2D takes only NHWC; torch convolves NCHW
            x = tf.transpose(x, (0, 2, 3, 1))
        for conv in self.convs:
            x = tf.nn.relu(conv(x))
        # differs: already NHWC, TF flattens as it is
        return tf.reshape(x, (tf.shape(x)[0], -1))

    def get_config(self) -> dict:
        return {**super().get_config(), "spec": self.spec.as_dict()}


def as_stored(obs: np.ndarray, image: ImageSpec | None) -> np.ndarray:
    """Observations as the buffer stores them: float32 vectors, or images in their
    own dtype (the encoder scales them)."""
    return np.asarray(obs, dtype=np.float32 if image is None else image.dtype)


# differs: Keras creates a network's variables on its first call, on this input
def example_input(obs_dim: int, encoder: ConvEncoder | None):
    if encoder is None:
        return keras.ops.zeros((1, obs_dim))
    return np.zeros((1, *encoder.spec.shape), dtype=encoder.spec.dtype)


# differs: a tf.function's input signature names the observations' shape, dtype
def obs_spec(obs_dim: int, image: ImageSpec | None) -> tf.TensorSpec:
    """A burst's observations: (K, B, obs_dim) float32, or (K, B, *image) stored."""
    if image is None:
        return tf.TensorSpec((None, None, obs_dim), tf.float32)
    return tf.TensorSpec((None, None, *image.shape), image.dtype)


# differs: a tape needs the variable list; torch optimizers hold their parameters
def trainable_variables(nets: list[keras.Model]) -> list[tf.Variable]:
    return [variable for net in nets for variable in net.trainable_variables]


def get_mlp_weights(nets: list[keras.Sequential]) -> list[np.ndarray]:
    """Every weight of each network in turn (``[W0, b0, ...]`` of an MLP), each
    matrix ``W`` as (in, out), Keras' own layout."""
    return [np.array(array) for net in nets for array in net.get_weights()]


def set_mlp_weights(nets: list[keras.Sequential], weights: list[np.ndarray]) -> None:
    """Load weights in :func:`get_mlp_weights` order into the networks, in place."""
    sizes = [len(net.weights) for net in nets]
    if len(weights) != sum(sizes):
        raise ValueError(
            f"expected {sum(sizes)} arrays in get_weights order, got {len(weights)}"
        )
    start = 0
    for net, size in zip(nets, sizes, strict=True):
        net.set_weights(
            [np.asarray(w, dtype=np.float32) for w in weights[start : start + size]]
        )
        start += size


def copy_weights(targets: list[keras.Model], onlines: list[keras.Model]) -> None:
    """Copy each online network into its target's own variables (a copy, not an
    alias: claim C03)."""
    for target, online in zip(targets, onlines, strict=True):
        target.set_weights(online.get_weights())


def polyak_update(
    targets: list[keras.Model], onlines: list[keras.Model], tau: float
) -> None:
    """target <- target + tau * (online - target), in place, for each pair of
    networks."""
    target_variables = [v for net in targets for v in net.weights]
    online_variables = [v for net in onlines for v in net.weights]
    for target, online in zip(target_variables, online_variables, strict=True):
        target.assign(target + tau * (online - target))


def numpy_actions(policy: Callable, obs: np.ndarray) -> np.ndarray:
    """``policy`` on a numpy batch, through the framework; the actions in numpy."""
    return policy(tf.constant(obs, dtype=tf.float32)).numpy()


def save_model(path: str | Path, meta: dict, model: keras.Model) -> None:
    """A ``.keras`` archive or ``.weights.h5`` file with the model and rlkit's
    metadata."""
    write_keras_checkpoint(path, meta, model)


def load_model(path: str | Path, model: keras.Model) -> None:
    """Load the weights of a :func:`save_model` file into ``model``, in place."""
    model.load_weights(str(path))


# ----------------------------------------------------------------------------------
# The off-policy family (DDPG, TD3, SAC): critics Q(s, a), networks, bursts
# ----------------------------------------------------------------------------------


def q_value(critic: keras.Model, obs: tf.Tensor, actions: tf.Tensor) -> tf.Tensor:
    """Q(s, a) of a batch, shape (B,): the critic reads the observation and the
    action side by side."""
    return tf.squeeze(critic(tf.concat([obs, actions], axis=-1)), -1)


def actor_and_critics(
    obs_dim: int,
    action_dim: int,
    config: OffPolicyConfig,
    seed: int,
    device: str,
    n_critics: int,
    actor_outputs: int = 1,
) -> tuple[keras.Sequential, list, keras.Sequential, list]:
    """The actor (``actor_outputs`` per action dimension), the critics and a frozen
    target copy of each, with rlkit's initial weights; ``device`` is the learner's,
    in whose scope they are built."""
    sizes, outputs = config.hidden_sizes, actor_outputs * action_dim
    dtype = compute_dtype(config.precision, device)
    actor = build_mlp(obs_dim, outputs, sizes, dtype)
    critics = [
        build_mlp(obs_dim + action_dim, 1, sizes, dtype) for _ in range(n_critics)
    ]
    target_actor = build_mlp(obs_dim, outputs, sizes, dtype)
    target_critics = [
        build_mlp(obs_dim + action_dim, 1, sizes, dtype) for _ in range(n_critics)
    ]
    for target in (target_actor, *target_critics):
        # differs: torch sets requires_grad_(False) on the parameters
        target.trainable = False
    # drawn in numpy: the same networks in both frameworks
    weights = initial_weights(obs_dim, action_dim, outputs, n_critics, config, seed)
    set_mlp_weights([actor, *critics], weights)
    copy_weights([target_actor, *target_critics], [actor, *critics])
    return actor, critics, target_actor, target_critics


@keras.saving.register_keras_serializable("rlkit")
class OffPolicyModel(keras.Model):
    """What a checkpoint keeps: the actor, the critics and SAC's log alpha (targets
    are copies of the critics)."""

    def __init__(
        self,
        actor: keras.Model,
        critics: list,
        log_alpha: float | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.actor, self.critics, self.initial_log_alpha = (
            actor,
            list(critics),
            log_alpha,
        )
        self.log_alpha = (
            None
            if log_alpha is None
            else self.add_weight(shape=(1,), initializer="zeros", name="log_alpha")
        )
        if log_alpha is not None:
            self.log_alpha.assign([log_alpha])
        self.built = True

    # differs: a Keras Model must define call; the torch container is never called
    def call(self, obs):
        return self.actor(obs)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "actor": keras.saving.serialize_keras_object(self.actor),
            "critics": [
                keras.saving.serialize_keras_object(critic)
                for critic in self.critics
            ],
            "log_alpha": self.initial_log_alpha,
        }

    @classmethod
    def from_config(cls, config: dict) -> OffPolicyModel:
        config["actor"] = keras.saving.deserialize_keras_object(config["actor"])
        config["critics"] = [
            keras.saving.deserialize_keras_object(critic)
            for critic in config["critics"]
        ]
        return cls(**config)


def run_burst(
    train_steps: Callable,
    batches: dict[str, np.ndarray],
    contract: TensorContract,
    gamma: float,
) -> tuple[dict[str, float], np.ndarray]:
    """Check a burst of K batches (fields stacked as (K, B, ...)) and run
    ``train_steps`` on it: the mean metrics, the new replay priorities (K, B).

    ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
    transitions, uniform replay).
    """
    batches = with_defaults(batches, gamma)
    contract.check(flatten_burst(batches))
    totals, priorities = train_steps(burst_tensors(batches))
    steps = len(batches["rewards"])
    return burst_metrics(totals.numpy(), steps), priorities.numpy()


def burst_tensors(batches: dict[str, np.ndarray]) -> Batch:
    """The burst's fields as tensors (no copies)."""
    return Batch(*(tf.convert_to_tensor(batches[name]) for name in Batch._fields))


def each_step(train_step: Callable, burst: Batch):
    """Run ``train_step`` on each batch along the burst's leading axis; the summed
    metric terms, the priorities."""
    # the five metric terms of a step (burst_metrics)
    totals = tf.zeros(5)
    priorities = tf.TensorArray(tf.float32, size=tf.shape(burst.obs)[0])
    # differs: autograph turns this loop into a graph while_loop
    for i in tf.range(tf.shape(burst.obs)[0]):
        *terms, priority = train_step(Batch(*(field[i] for field in burst)))
        totals += tf.stack(terms)
        # differs: torch appends to a Python list
        priorities = priorities.write(i, priority)
    return totals, priorities.stack()


def burst_function(
    train_step: Callable, obs_dim: int, action_dim: int, noise_draws: int
) -> Callable:
    """A learner's ``train_steps``: :func:`each_step` of its ``train_step``."""

    def train_steps(burst: Batch):
        return each_step(train_step, burst)

    # differs: torch runs a burst eagerly; TF traces it once into one graph, whose
    # signature leaves K batches of B transitions free
    vectors = tf.TensorSpec((None, None))
    obs = tf.TensorSpec((None, None, obs_dim))
    actions = tf.TensorSpec((None, None, action_dim))
    noise = tf.TensorSpec((None, noise_draws, None, action_dim))
    signature = [Batch(obs, actions, vectors, obs, vectors, vectors, vectors, noise)]
    return tf.function(train_steps, input_signature=signature)
