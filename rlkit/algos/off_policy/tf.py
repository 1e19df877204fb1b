"""What DDPG, TD3 and SAC share, in TensorFlow 2 / Keras 3: networks, target copies,
the critic step, bursts.

Mirrors ``torch.py`` line by line. Each algorithm subclasses
:class:`OffPolicyLearner` and supplies
``next_value`` (what its TD target bootstraps from) and ``actor_step``
(how its actor learns); TD3 also supplies ``policy_due`` and SAC ``alpha``.
``# differs:`` marks each place where the frameworks truly differ.
"""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlkit.algos.keras_adam import TorchAdam
from rlkit.algos.off_policy.config import (
    OffPolicyConfig,
    burst_metrics,
    flatten_burst,
    initial_weights,
    off_policy_contract,
)
from rlkit.batches import with_defaults
from rlkit.checkpoints import write_keras_checkpoint
from rlkit.hardware import check_device, configure_tensorflow


def build_mlp(
    in_dim: int, out_dim: int, hidden_sizes: tuple[int, ...]
) -> keras.Sequential:
    """A ReLU MLP with a linear output layer."""
    layers: list = [keras.Input((in_dim,))]
    for width in hidden_sizes:
        layers.append(keras.layers.Dense(width, activation="relu"))
    layers.append(keras.layers.Dense(out_dim))
    return keras.Sequential(layers)


def q_value(critic: keras.Model, obs: tf.Tensor, actions: tf.Tensor) -> tf.Tensor:
    """Q(s, a) of a batch, shape (B,): the critic reads the observation and the
    action side by side."""
    return tf.squeeze(critic(tf.concat([obs, actions], axis=-1)), -1)


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


class OffPolicyLearner:
    """Actor, critics, their target copies and optimizers, and a burst of gradient
    steps."""

    framework = "tf"
    name = "off-policy"
    #: Critics Q(s, a): TD3 and SAC keep two for the clipped double-Q target.
    n_critics = 1
    #: Actor outputs per action dimension: 1 for a deterministic actor, 2
    #: (mean, log std) for SAC's.
    actor_outputs = 1
    #: Standard-normal draws per transition in the ``noise`` field (TD3: target
    #: smoothing; SAC: two samples).
    noise_draws = 1

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: OffPolicyConfig,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        configure_tensorflow()  # one CPU thread unless RLKIT_THREADS says otherwise
        keras.utils.set_random_seed(seed)
        # differs: TF puts its ops on a GPU itself when its GPU build sees one
        self.device = check_device(device)
        self.config, self.action_dim = config, action_dim
        self.contract = off_policy_contract(
            self.name, obs_dim, action_dim, self.noise_draws
        )
        sizes, outputs = config.hidden_sizes, self.actor_outputs * action_dim
        self.actor = build_mlp(obs_dim, outputs, sizes)
        self.critics = [
            build_mlp(obs_dim + action_dim, 1, sizes) for _ in range(self.n_critics)
        ]
        self.target_actor = build_mlp(obs_dim, outputs, sizes)
        self.target_critics = [
            build_mlp(obs_dim + action_dim, 1, sizes) for _ in range(self.n_critics)
        ]
        for target in (self.target_actor, *self.target_critics):
            # differs: torch sets requires_grad_(False) on the parameters
            target.trainable = False
        self.model = OffPolicyModel(
            self.actor, self.critics, self.initial_log_alpha()
        )
        # as torch's
        self.set_weights(
            initial_weights(
                obs_dim, action_dim, outputs, self.n_critics, config, seed
            )
        )
        # differs: Keras' own Adam places epsilon differently from torch's; TorchAdam
        # uses torch's formula
        self.actor_optimizer = TorchAdam(
            learning_rate=config.step_size("actor"), epsilon=1e-8
        )
        self.critic_optimizer = TorchAdam(
            learning_rate=config.step_size("critic"), epsilon=1e-8
        )
        self.actor_optimizer.build(self.actor.trainable_variables)
        self.critic_optimizer.build(self.critic_variables())
        # differs: torch uses a Python int
        self.step_counter = tf.Variable(0, dtype=tf.int64, trainable=False)
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)
        vectors, noise = (
            tf.TensorSpec((None, None)),
            tf.TensorSpec((None, self.noise_draws, None, action_dim)),
        )
        obs_spec, action_spec = (
            tf.TensorSpec((None, None, obs_dim)),
            tf.TensorSpec((None, None, action_dim)),
        )
        # differs: torch runs eagerly; TF traces the whole burst of steps once into
        # one graph (fixed signature)
        self.train_steps = tf.function(
            self.train_steps,
            input_signature=[
                obs_spec,
                action_spec,
                vectors,
                obs_spec,
                vectors,
                vectors,
                vectors,
                noise,
            ],
        )

    # differs: torch counts in a plain attribute; TF reads its tf.Variable counter
    @property
    def gradient_steps(self) -> int:
        return int(self.step_counter.numpy())

    # differs: a tape needs the variable list; torch optimizers hold their parameters
    def critic_variables(self) -> list[tf.Variable]:
        return [
            variable
            for critic in self.critics
            for variable in critic.trainable_variables
        ]

    def policy(self, obs: tf.Tensor) -> tf.Tensor:
        """The deterministic action in [-1, 1]: tanh of the actor's (first)
        outputs."""
        return tf.tanh(self.actor(obs)[:, : self.action_dim])

    def actions(self, obs: np.ndarray) -> np.ndarray:
        """Deterministic actions of a batch, through the framework (acting uses a
        numpy copy)."""
        return self.policy(tf.constant(obs, dtype=tf.float32)).numpy()

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """One gradient step on a batch that satisfies the contract (``noise`` shaped
        (D, B, A))."""
        return self.update_many(
            {name: values[None] for name, values in batch.items()}
        )

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        """K gradient steps, one per batch of ``batches`` (fields stacked as
        (K, B, ...)); mean metrics.

        ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
        transitions, uniform replay). The steps' new replay priorities (the critics'
        mean |TD error|) are kept in ``last_priorities``.
        """
        batches = with_defaults(batches, self.config.gamma)
        self.contract.check(flatten_burst(batches))
        totals, priorities = self.train_steps(*self.tensors(batches))
        self.last_priorities = priorities.numpy()
        return burst_metrics(totals.numpy(), len(batches["rewards"]))

    def tensors(self, batches: dict[str, np.ndarray]) -> tuple:
        """The burst's fields as tensors, in the argument order of :meth:`train_step`
        (no copies)."""
        names = (
            "obs",
            "actions",
            "rewards",
            "next_obs",
            "terminated",
            "discounts",
            "weights",
            "noise",
        )
        return tuple(tf.convert_to_tensor(batches[name]) for name in names)

    def train_steps(
        self, obs, actions, rewards, next_obs, terminated, discounts, weights, noise
    ):
        """Run :meth:`train_step` on each batch along the leading axis; the summed
        metric terms, priorities."""
        totals, priorities = (
            tf.zeros(5),
            tf.TensorArray(tf.float32, size=tf.shape(obs)[0]),
        )
        # differs: autograph turns this loop into a graph while_loop
        for i in tf.range(tf.shape(obs)[0]):
            batch = (
                obs[i],
                actions[i],
                rewards[i],
                next_obs[i],
                terminated[i],
                discounts[i],
                weights[i],
            )
            *terms, priority = self.train_step(*batch, noise[i])
            totals += tf.stack(terms)
            # differs: torch appends to a Python list
            priorities = priorities.write(i, priority)
        return totals, priorities.stack()

    def train_step(
        self, obs, actions, rewards, next_obs, terminated, discounts, weights, noise
    ):
        """A critic step; then, when due, an actor step and the target update.

        Returns the metric terms and the batch's |TD errors| (new priorities for
        prioritized replay).
        """
        alpha = self.alpha()
        batch = (obs, actions, rewards, next_obs, terminated, discounts, weights)
        critic_loss, q_mean, td_errors = self.critic_step(*batch, noise, alpha)
        self.step_counter.assign_add(1)
        actor_loss = tf.zeros(())
        actor_steps = tf.zeros(())
        # a tensor condition for TD3: autograph's tf.cond; a Python True otherwise
        if self.policy_due():
            actor_loss = self.actor_step(obs, noise, alpha)
            actor_steps = tf.ones(())
            self.update_targets()
        return critic_loss, q_mean, actor_loss, actor_steps, alpha, td_errors

    def td_targets(self, rewards, next_obs, terminated, discounts, noise, alpha):
        """r + d * (1 - terminated) * V(s'), each algorithm defining V(s') in
        ``next_value``.

        d is the transition's discount: gamma for a one-step transition, gamma^k for
        a k-step one (whose r is then the discounted sum of its k rewards).
        """
        # every transition's discount is gamma: one op less per gradient step
        if self.config.n_step == 1:
            discounts = self.config.gamma
        next_value = self.next_value(next_obs, noise, alpha)
        targets = rewards + discounts * (1.0 - terminated) * next_value
        # differs: torch computes this block under torch.no_grad()
        return tf.stop_gradient(targets)

    def critic_step(
        self,
        obs,
        actions,
        rewards,
        next_obs,
        terminated,
        discounts,
        weights,
        noise,
        alpha,
    ):
        """One Adam step on the summed, importance-weighted MSE of every critic
        against the shared target."""
        targets = self.td_targets(
            rewards, next_obs, terminated, discounts, noise, alpha
        )
        with tf.GradientTape() as tape:
            q_values = [q_value(critic, obs, actions) for critic in self.critics]
            # importance weights correct prioritized sampling; without it they are 1
            if self.config.prioritized:
                loss = tf.add_n(
                    [tf.reduce_mean(weights * (q - targets) ** 2) for q in q_values]
                )
            else:
                loss = tf.add_n(
                    [tf.reduce_mean((q - targets) ** 2) for q in q_values]
                )
        # differs: torch calls loss.backward()
        grads = tape.gradient(loss, self.critic_variables())
        self.critic_optimizer.apply_gradients(
            zip(grads, self.critic_variables(), strict=True)
        )
        # priorities cost a few ops per step: computed only when prioritized
        td_errors = tf.zeros(())
        # a Python condition: traced once, one branch in the graph
        if self.config.prioritized:
            td_errors = tf.reduce_mean(
                tf.stack([tf.abs(q - targets) for q in q_values]), axis=0
            )
        return loss, tf.reduce_mean(q_values[0]), td_errors

    def next_value(self, next_obs, noise, alpha):
        """The value of s' that the TD target bootstraps from
        (see DDPG, TD3 and SAC)."""
        raise NotImplementedError

    def actor_step(self, obs, noise, alpha):
        """One step of the actor (see DDPG and SAC); returns its loss."""
        raise NotImplementedError

    def initial_log_alpha(self) -> float | None:
        """SAC's starting log temperature; None for the deterministic actors, which
        have none."""
        return None

    def policy_due(self):
        """Whether this gradient step also updates the actor and the targets
        (every step; TD3 delays)."""
        return True

    def alpha(self) -> tf.Tensor:
        """The entropy temperature (0 for the deterministic actors; SAC learns
        it)."""
        return tf.zeros(())

    def update_targets(self) -> None:
        """target <- target + tau * (online - target), in place, for the critics and
        the target actor."""
        for target, online in self.target_pairs():
            target.assign(target + self.config.tau * (online - target))

    def target_pairs(self) -> list:
        """(target, online) variable pairs of the critics and the actor (SAC, without
        a target actor, overrides)."""
        return [
            *self.critic_target_pairs(),
            *zip(self.target_actor.weights, self.actor.weights, strict=True),
        ]

    def critic_target_pairs(self) -> list:
        targets = [
            variable for critic in self.target_critics for variable in critic.weights
        ]
        return list(
            zip(
                targets,
                [variable for critic in self.critics for variable in critic.weights],
                strict=True,
            )
        )

    def sync_targets(self) -> None:
        """Copy the online weights into the targets' own variables (a copy, not an
        alias: claim C03)."""
        for target, online in zip(
            (self.target_actor, *self.target_critics), self.networks(), strict=True
        ):
            target.set_weights(online.get_weights())

    def networks(self) -> list[keras.Sequential]:
        return [self.actor, *self.critics]

    def get_weights(self) -> list[np.ndarray]:
        """Actor then critics as ``[W0, b0, ...]``, each ``W`` as (in, out), Keras'
        own layout."""
        return [
            np.array(array) for net in self.networks() for array in net.get_weights()
        ]

    def target_weights(self) -> list[np.ndarray]:
        """The target networks' weights, in :meth:`get_weights` order
        (the target actor first)."""
        return [
            np.array(array)
            for net in (self.target_actor, *self.target_critics)
            for array in net.get_weights()
        ]

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order, then copy them into the
        targets."""
        sizes = [len(net.weights) for net in self.networks()]
        if len(weights) != sum(sizes):
            raise ValueError(
                f"expected {sum(sizes)} arrays (actor, then critics), "
                f"got {len(weights)}"
            )
        start = 0
        for net, size in zip(self.networks(), sizes, strict=True):
            net.set_weights(
                [
                    np.asarray(w, dtype=np.float32)
                    for w in weights[start : start + size]
                ]
            )
            start += size
        self.sync_targets()

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.keras`` archive or ``.weights.h5`` file with the actor, critics and
        rlkit's metadata."""
        write_keras_checkpoint(path, meta, self.model)

    def load(self, path: str | Path) -> None:
        self.model.load_weights(str(path))
        self.sync_targets()
