"""DQN's Q-network and update step in TensorFlow 2 / Keras 3.

Mirrors ``torch.py`` line by line: the same functions in the same order with the same
names, so the two can be read side by side. ``# differs:`` marks each place where the
frameworks truly differ.
The pieces it shares with the other learners (seeding, the Polyak update, weight
I/O, checkpoints) are in ``rlkit/algos/tf_parts.py``.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos import tf_parts as parts
from rlkit.algos.dqn.config import (
    Batch,
    DQNConfig,
    dqn_contract,
    initial_q_weights,
)
from rlkit.algos.keras_adam import TorchAdam
from rlkit.batches import with_defaults
from rlkit.distributional import categorical_support
from rlkit.encoders import ImageSpec
from rlkit.hardware import on_learner_device
from rlkit.learner_state import TrainingState


def build_q_network(
    obs_dim: int,
    n_actions: int,
    hidden_sizes: tuple[int, ...],
    dueling: bool = False,
    noisy: bool = False,
    atoms: int = 1,
    image: ImageSpec | None = None,
    precision: str | None = None,
) -> QNetwork:
    """An MLP from an observation to one Q-value per action; see :class:`QNetwork`
    for the options."""
    return QNetwork(
        obs_dim, n_actions, hidden_sizes, dueling, noisy, atoms, image, precision
    )


@keras.saving.register_keras_serializable(package="rlkit")
class QNetwork(keras.Model):
    """Observation -> Q-values (B, A), or C51 logits (B, A, atoms) when
    ``atoms > 1``.

    ``dueling``: a value head V and the output head A on one trunk, combined as
    V + A - mean_a A.
    ``noisy``: every layer is a :class:`NoisyDense`; ``call`` then takes one noise
    draw (None: the means).
    ``image``: a convolutional encoder reads the images first; ``obs_dim`` is then
    its output size.
    ``precision``: the dtype policy the layers compute in (None: float32); the
    output is float32 either way.
    """

    def __init__(
        self,
        obs_dim,
        n_actions,
        hidden_sizes,
        dueling=False,
        noisy=False,
        atoms=1,
        image=None,
        precision=None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        # first, so its weights come first in get_weights order
        self.encoder = (
            parts.ConvEncoder(image, dtype=precision) if image is not None else None
        )
        # differs: each Keras layer computes in its dtype policy; torch autocasts
        dense = partial(NoisyDense if noisy else keras.layers.Dense, dtype=precision)
        sizes = [obs_dim, *hidden_sizes]
        self.trunk = [dense(fan_out) for fan_out in sizes[1:]]
        self.value = dense(atoms) if dueling else None
        self.head = dense(n_actions * atoms)
        self.n_actions, self.noisy, self.atoms = n_actions, noisy, atoms
        self.settings = {
            "obs_dim": obs_dim,
            "n_actions": n_actions,
            "hidden_sizes": list(hidden_sizes),
            "dueling": dueling,
            "noisy": noisy,
            "atoms": atoms,
            "image": None if image is None else self.encoder.spec.as_dict(),
            "precision": precision,
        }  # differs: Keras saves a config
        # differs: Keras creates variables on the first call
        self(parts.example_input(obs_dim, self.encoder))

    def layers_in_order(self) -> list[keras.layers.Layer]:
        """Trunk, value head (dueling only), output head: the order of weights and of
        noise slices."""
        return [
            *self.trunk,
            *([self.value] if self.value is not None else []),
            self.head,
        ]

    def call(self, obs, noise=None):
        # float32 from here on (a no-op at fp32): see torch_parts.in_precision
        return tf.cast(self.outputs(obs, noise), tf.float32)

    def outputs(self, obs, noise):
        """The network's output, in the dtype its layers compute in."""
        noises = split_noise(self.layers_in_order(), noise if self.noisy else None)
        hidden = obs if self.encoder is None else self.encoder(obs)
        for layer, layer_noise in zip(
            self.trunk, noises[: len(self.trunk)], strict=True
        ):
            hidden = tf.nn.relu(apply_layer(layer, hidden, layer_noise))
        out = tf.reshape(
            apply_layer(self.head, hidden, noises[-1]),
            (-1, self.n_actions, self.atoms),
        )
        if self.value is not None:
            value = tf.reshape(
                apply_layer(self.value, hidden, noises[-2]), (-1, 1, self.atoms)
            )
            # subtracting the mean makes V and A identifiable: without it any
            # constant could move between them
            out = value + out - tf.reduce_mean(out, axis=1, keepdims=True)
        return out if self.atoms > 1 else tf.squeeze(out, axis=2)

    def get_config(self) -> dict:
        return {**super().get_config(), **self.settings}


@keras.saving.register_keras_serializable(package="rlkit")
class NoisyDense(keras.layers.Layer):
    """A dense layer with learned factorised Gaussian noise:
    W = W_mu + W_sigma * f(eps_in) f(eps_out)^T."""

    def __init__(self, units: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape) -> None:
        self.in_features, self.out_features = int(input_shape[-1]), self.units
        # differs: Keras stores kernels as (in, out); the values come from rlkit's
        # numpy init via set_weights
        self.kernel_mu = self.add_weight(
            shape=(self.in_features, self.units),
            initializer="zeros",
            name="kernel_mu",
        )
        self.bias_mu = self.add_weight(
            shape=(self.units,), initializer="zeros", name="bias_mu"
        )
        self.kernel_sigma = self.add_weight(
            shape=(self.in_features, self.units),
            initializer="zeros",
            name="kernel_sigma",
        )
        self.bias_sigma = self.add_weight(
            shape=(self.units,), initializer="zeros", name="bias_sigma"
        )

    def call(self, x, noise=None):
        if noise is None:  # the mean network: greedy acting and evaluation
            return tf.matmul(x, self.kernel_mu) + self.bias_mu
        # the draw comes scaled, f(eps), from split_noise
        # differs: Keras reads the weights in the layer's compute dtype (bf16, fp16);
        # torch composes them in float32 and autocasts the product
        noise = tf.cast(noise, x.dtype)
        eps_in, eps_out = noise[: self.in_features], noise[self.in_features :]
        kernel = self.kernel_mu + self.kernel_sigma * (
            eps_in[:, None] * eps_out[None, :]
        )
        return tf.matmul(x, kernel) + (self.bias_mu + self.bias_sigma * eps_out)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units}


def apply_layer(layer: keras.layers.Layer, x, noise):
    return layer(x) if noise is None else layer(x, noise)


def split_noise(layers: list[keras.layers.Layer], noise) -> list:
    """One slice of the scaled draw f(noise) per layer (in + out values each), or a
    None per layer.

    Scaling the whole draw at once costs 3 ops a forward pass, not 6 a layer.
    """
    if noise is None:
        return [None] * len(layers)
    return tf.split(
        scale_noise(noise),
        [layer.in_features + layer.out_features for layer in layers],
    )


def scale_noise(noise):
    """f(x) = sign(x) sqrt(|x|), the factorised noise of Fortunato et al. (2018)."""
    return tf.sign(noise) * tf.sqrt(tf.abs(noise))


@on_learner_device  # differs: built and run in tf.device; torch moves tensors
class DQNLearner(TrainingState):
    """The online and target Q-networks, their optimizer, and one gradient step on a
    batch."""

    framework = "tf"
    #: What a resumed run needs beyond the weights (``state_dict``): the target
    #: network, Adam's moments, the gradient-step count (the hard copies' phase) and
    #: the noisy layers' generator.
    # differs: TF counts gradient steps in a tf.Variable
    TRAINING_STATE = ("q", "target_q", "optimizer", "step_counter", "noise_rng")

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        config: DQNConfig,
        seed: int = 0,
        device: str = "cpu",
        image: ImageSpec | None = None,
    ) -> None:
        self.device = parts.seeded_device(seed, device)
        self.config, self.image = config, image
        self.contract = dqn_contract(obs_dim, n_actions, image)
        # what the dense layers read: the observation, or the encoder's features
        features = obs_dim if image is None else image.flat_size
        network = (
            features,
            n_actions,
            config.hidden_sizes,
            config.dueling,
            config.noisy,
            config.atoms,
            image,
            parts.compute_dtype(config.precision, self.device),
        )
        self.q, self.target_q = build_q_network(*network), build_q_network(*network)
        # differs: torch sets requires_grad_(False) on the parameters
        self.target_q.trainable = False
        # the same network as torch's
        self.set_weights(initial_q_weights(obs_dim, n_actions, config, seed, image))
        self.support = tf.constant(
            categorical_support(config.v_min, config.v_max, config.n_atoms)
        )
        self.noise_size = config.noise_size(features, n_actions)
        # noisy layers' draws, made in numpy like torch's
        self.noise_rng = np.random.default_rng(seed + 1)
        # differs: Keras' own Adam places epsilon differently from torch's; TorchAdam
        # uses torch's formula. For fp16 Keras wraps it in its loss scaling, where
        # torch keeps a GradScaler beside it (rlkit/precision.py)
        self.optimizer = parts.loss_scaler(
            config.precision,
            TorchAdam(learning_rate=config.learning_rate, epsilon=config.adam_eps),
        )
        self.optimizer.build(self.q.trainable_variables)
        # differs: torch uses a Python int
        self.step_counter = tf.Variable(0, dtype=tf.int64, trainable=False)
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)
        obs = parts.obs_spec(obs_dim, image)
        actions = tf.TensorSpec((None, None), tf.int64)
        vectors = tf.TensorSpec((None, None), tf.float32)
        noise = tf.TensorSpec((None, self.noise_size), tf.float32)
        spec = [
            Batch(obs, actions, vectors, obs, vectors, vectors, vectors),
            noise,
            noise,
        ]
        # differs: torch runs eagerly; TF traces the whole burst of steps once into
        # one graph. A burst of 128 steps then costs one call: measured 0.7 ms a step
        # against 2.7 ms for one call per step.
        self.train_steps = tf.function(self.train_steps, input_signature=spec)

    # differs: torch counts in a plain attribute; TF reads its tf.Variable counter
    @property
    def gradient_steps(self) -> int:
        return int(self.step_counter.numpy())

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q-values of a batch of observations with the mean weights (acting uses the
        numpy copy)."""
        return self.expected_q(
            self.q(parts.as_stored(obs, self.image), training=False)
        ).numpy()

    def update(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> dict[str, float]:
        """One gradient step on a batch that satisfies the DQN contract; returns loss
        and mean Q.

        ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
        transitions, uniform replay).
        ``noise`` (2, noise_size): the online and target networks' draws for noisy
        layers (None: fresh ones).
        """
        batches = {name: values[None] for name, values in batch.items()}
        if noise is not None:
            batches["noise"] = noise[:, None]
        return self.update_many(batches)

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        """K gradient steps, one per batch of ``batches`` (each field stacked as
        (K, B, ...)); mean metrics.

        ``batches["noise"]`` (2, K, noise_size), where given, holds the noisy layers'
        draws (drawn here otherwise). The steps' new replay priorities (|TD error|,
        or the cross-entropy for C51) are kept in ``last_priorities``.
        """
        batches = dict(batches)
        noise = batches.pop("noise", None)
        batches = with_defaults(batches, self.config.gamma)
        self.contract.check(
            {
                name: values.reshape(-1, *values.shape[2:])
                for name, values in batches.items()
            }
        )
        loss, q_mean, priorities = self.train_steps(*self.tensors(batches, noise))
        self.last_priorities = priorities.numpy()
        return {"loss": float(loss), "q_mean": float(q_mean)}

    def draw_noise(self, steps: int | None = None) -> np.ndarray:
        """Standard normal draws for the online and the target network:
        (2, noise_size), or per step."""
        shape = (
            (2, self.noise_size) if steps is None else (2, steps, self.noise_size)
        )
        return self.noise_rng.standard_normal(shape, dtype=np.float32)

    def gradients(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> list[np.ndarray]:
        """The (clipped) gradients one batch would apply, in :meth:`get_weights`
        order; takes no step."""
        batch = with_defaults(batch, self.config.gamma)
        self.contract.check(batch)
        *_, grads = self.compute_gradients(*self.tensors(batch, noise))
        # differs: Keras unscales inside apply_gradients; torch's are unscaled
        scale = parts.loss_scale(self.optimizer)
        return [np.array(grad / scale) for grad in grads]

    def tensors(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> tuple:
        """The batch as a :class:`Batch` of tensors, then the online and the target
        network's noise draws: the arguments of :meth:`train_step`."""
        batch = with_defaults(batch, self.config.gamma)
        if noise is None:  # fresh draws: one pair per batch, or per step of a burst
            noise = self.draw_noise(
                None if batch["obs"].ndim == 2 else len(batch["obs"])
            )
        # the contract allows int32 actions; indexing takes int64
        batch["actions"] = batch["actions"].astype(np.int64, copy=False)
        noise = np.asarray(noise, dtype=np.float32)
        fields = [batch[name] for name in Batch._fields]
        return (
            Batch(*(tf.convert_to_tensor(field) for field in fields)),
            tf.convert_to_tensor(noise[0]),
            tf.convert_to_tensor(noise[1]),
        )

    def train_steps(self, burst: Batch, noise, target_noise):
        """Run :meth:`train_step` on each batch along the burst's leading axis; mean
        loss and Q, and priorities."""
        total_loss = tf.zeros(())
        total_q = tf.zeros(())
        priorities = tf.TensorArray(tf.float32, size=tf.shape(burst.obs)[0])
        # differs: autograph turns this loop into a graph while_loop
        for i in tf.range(tf.shape(burst.obs)[0]):
            batch = Batch(*(field[i] for field in burst))
            loss, q_mean, priority = self.train_step(
                batch, noise[i], target_noise[i]
            )
            total_loss, total_q = total_loss + loss, total_q + q_mean
            # differs: torch appends to a Python list
            priorities = priorities.write(i, priority)
        steps = tf.cast(tf.shape(burst.obs)[0], tf.float32)
        return total_loss / steps, total_q / steps, priorities.stack()

    def expected_q(self, out):
        """Q-values from the network's output: the output itself, or sum_j
        softmax(logits)_j z_j for C51."""
        if not self.config.distributional:
            return out
        return tf.reduce_sum(tf.nn.softmax(out, axis=-1) * self.support, axis=-1)

    def td_targets(self, batch: Batch, noise, target_noise):
        """The TD target r + d Q_target(s', a') (B,), or for C51 the target
        distribution projected (B, N).

        a' = argmax of the online network when ``double``, else of the target.
        d = discount * (1 - terminated): gamma for a one-step transition, gamma^k for
        a k-step one (then r is its k rewards), 0 at a terminal.
        """
        # float32 whatever the precision (the networks' outputs are cast): a bf16
        # target rounds many late TD errors to exactly zero (chapter 44)
        next_target = self.target_q(batch.next_obs, target_noise, training=False)
        chooser = (
            self.q(batch.next_obs, noise, training=False)
            if self.config.double
            else next_target
        )
        next_actions = tf.argmax(self.expected_q(chooser), axis=1)
        # batch_dims=1 picks one row per sample and keeps shape (B,): a (B, 1) would
        # broadcast (claim C08)
        next_out = tf.gather(next_target, next_actions, batch_dims=1)
        bootstrap = batch.discounts * (1.0 - batch.terminated)
        if not self.config.distributional:
            # differs: torch uses torch.no_grad()
            return tf.stop_gradient(batch.rewards + bootstrap * next_out)
        return tf.stop_gradient(
            project_distribution(
                tf.nn.softmax(next_out, axis=-1),
                batch.rewards,
                bootstrap,
                self.support,
            )
        )

    def compute_gradients(self, batch: Batch, noise, target_noise):
        """Importance-weighted loss (Huber on the TD error, or C51's cross-entropy),
        mean Q, priorities, gradients."""
        targets = self.td_targets(batch, noise, target_noise)
        with tf.GradientTape() as tape:
            # Q(s, a), or its logits
            out = tf.gather(
                self.q(batch.obs, noise, training=True), batch.actions, batch_dims=1
            )
            if self.config.distributional:
                # log-softmax of float32 logits: in bf16 C51's gradient is off by ~6%
                losses = -tf.reduce_sum(
                    targets * tf.nn.log_softmax(out, axis=-1), axis=-1
                )
                # the priority is the cross-entropy; Rainbow's KL differs from it per
                # sample by the target's entropy
                priorities = tf.stop_gradient(losses)
            else:
                losses = huber(targets - out, self.config.huber_delta)
                priorities = tf.abs(targets - tf.stop_gradient(out))
            loss = tf.reduce_mean(batch.weights * losses)
            # fp16: the loss scaled up before its gradients (rlkit/precision.py)
            scaled = self.optimizer.scale_loss(loss)
        # differs: torch calls loss.backward()
        grads = tape.gradient(scaled, self.q.trainable_variables)
        # differs: the gradients are still scaled (Keras unscales them in
        # apply_gradients), so the clip's bound is scaled too:
        # clip(s g, s c) = s clip(g, c)
        if self.config.max_grad_norm is not None:
            bound = self.config.max_grad_norm * parts.loss_scale(self.optimizer)
            grads, _ = tf.clip_by_global_norm(grads, bound)
        q_mean = tf.reduce_mean(self.expected_q(tf.stop_gradient(out)))
        return loss, q_mean, priorities, grads

    def train_step(self, batch: Batch, noise, target_noise):
        """One Adam step on the clipped gradients, then the target update."""
        loss, q_mean, priorities, grads = self.compute_gradients(
            batch, noise, target_noise
        )
        # differs: see torch
        self.optimizer.apply_gradients(
            zip(grads, self.q.trainable_variables, strict=True)
        )
        self.step_counter.assign_add(1)
        self.update_target()
        return loss, q_mean, priorities

    def update_target(self) -> None:
        """Polyak-blend after every step, or copy every ``target_update_every``
        steps."""
        # a Python condition on the config: fixed when traced
        if self.config.target_update == "polyak":
            parts.polyak_update([self.target_q], [self.q], self.config.tau)
        elif self.step_counter % self.config.target_update_every == 0:
            # a tensor condition: autograph's tf.cond
            # differs: torch counts in a Python int, which would freeze here when
            # traced
            self.sync_target()

    def sync_target(self) -> None:
        """Hard update: copy the online weights into the target's own variables
        (a copy, not an alias)."""
        for target, online in zip(
            self.target_q.weights, self.q.weights, strict=True
        ):
            target.assign(online)

    def reset_optimizer(self) -> None:
        """Forget Adam's moment estimates and step count; the weights stay
        (claim C40)."""
        # differs: torch drops its per-parameter state and rebuilds it on the next
        # step
        parts.adam(self.optimizer).reset()

    def set_learning_rate(self, learning_rate: float) -> None:
        self.optimizer.learning_rate.assign(learning_rate)

    def get_weights(self) -> list[np.ndarray]:
        """Online weights layer by layer (``W, b``, or
        ``W_mu, b_mu, W_sigma, b_sigma``), each ``W`` as (in, out)."""
        return parts.get_mlp_weights([self.q])

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order into the online network, then
        sync the target."""
        parts.set_mlp_weights([self.q], weights)
        self.sync_target()

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.keras`` archive or ``.weights.h5`` file with the online weights and
        rlkit's metadata."""
        parts.save_model(path, meta, self.q)

    def load(self, path: str | Path) -> None:
        parts.load_model(path, self.q)
        self.sync_target()


def project_distribution(probs, rewards, discounts, support):
    """C51's projection of r + discount * Z onto the support, vectorised (see
    ``rlkit/distributional.py``)."""
    delta = (support[-1] - support[0]) / (support.shape[0] - 1)
    shifted = tf.clip_by_value(
        rewards[:, None] + discounts[:, None] * support[None, :],
        support[0],
        support[-1],
    )
    # (B, N): where each target atom lands on the grid 0..N-1
    position = (shifted - support[0]) / delta
    atoms = tf.range(support.shape[0], dtype=position.dtype)
    # hats[b, i, j] = max(0, 1 - |position[b, i] - j|); differs: torch builds it in
    # place, TF's graph needs not
    hats = tf.maximum(1.0 - tf.abs(position[:, :, None] - atoms[None, None, :]), 0.0)
    # m[b, j] = sum_i probs[b, i] hats[b, i, j]
    return tf.squeeze(tf.matmul(probs[:, None, :], hats), axis=1)


# differs: torch has F.huber_loss(reduction="none"); Keras' Huber reduces an axis
def huber(x, delta: float):
    """Elementwise Huber loss of a TD error. Written out because keras.losses.Huber
    reduces the last axis."""
    abs_x = tf.abs(x)
    return tf.where(
        abs_x <= delta, 0.5 * tf.square(x), delta * (abs_x - 0.5 * delta)
    )


#: The name every algorithm family gives its learner (``Agent.learner_class`` looks
#: it up).
Learner = DQNLearner
