"""SAC's actor, target and temperature in TensorFlow; the rest is
``rlkit/algos/off_policy/tf.py``.

Mirrors ``torch.py`` line by line.
"""

from __future__ import annotations

import math

import tensorflow as tf

from rlkit.algos.keras_adam import TorchAdam
from rlkit.algos.off_policy.tf import OffPolicyLearner, q_value
from rlkit.algos.sac.config import LOG_STD_MAX, LOG_STD_MIN, SACConfig

LOG_2PI, LOG_2 = math.log(2 * math.pi), math.log(2.0)


class Learner(OffPolicyLearner):
    """Twin critics, a squashed Gaussian actor, and alpha tuned on ``log_alpha``
    (or fixed)."""

    name = "SAC"
    n_critics = 2
    actor_outputs = 2  # a mean and a log std per action dimension
    noise_draws = 2  # one sample at s' for the target, one at s for the actor

    def __init__(
        self,
        obs_dim: int,
        action_dim: int,
        config: SACConfig,
        seed: int = 0,
        device: str = "cpu",
    ) -> None:
        super().__init__(obs_dim, action_dim, config, seed, device)
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

    def initial_log_alpha(self) -> float:
        return math.log(self.config.alpha)

    def alpha(self) -> tf.Tensor:
        """exp(log_alpha), detached: the losses treat the temperature as a
        constant."""
        return tf.stop_gradient(tf.exp(self.log_alpha[0]))

    def sample(self, obs, noise):
        """Reparameterised actions a = tanh(mean + std * noise) and their
        log-probabilities log pi(a|s).

        The Gaussian density of u = mean + std * noise, minus
        log|da/du| = log(1 - tanh(u)^2) per dimension, written as
        2 (log 2 - u - softplus(-2u)): the same value without log(0) when tanh
        saturates.
        """
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
            q_value(critics[0], obs, actions), q_value(critics[1], obs, actions)
        )

    def next_value(self, next_obs, noise, alpha):
        """The soft value of s': min target Q at a fresh sample a' ~ pi(s'), minus
        alpha log pi(a'|s')."""
        next_actions, next_log_probs = self.sample(next_obs, noise[0])
        return (
            self.min_q(self.target_critics, next_obs, next_actions)
            - alpha * next_log_probs
        )

    def actor_step(self, obs, noise, alpha):
        """One Adam step on alpha log pi(a|s) - min Q(s, a); then, when tuned, one
        step on log alpha."""
        with tf.GradientTape() as tape:
            actions, log_probs = self.sample(obs, noise[1])
            loss = tf.reduce_mean(
                alpha * log_probs - self.min_q(self.critics, obs, actions)
            )
        # differs: torch calls loss.backward()
        grads = tape.gradient(loss, self.actor.trainable_variables)
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

    def target_pairs(self) -> list:
        """Only the critics' targets move: SAC bootstraps from its current actor."""
        return self.critic_target_pairs()
