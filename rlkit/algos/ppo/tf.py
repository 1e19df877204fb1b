"""PPO's clipped policy loss in TensorFlow (networks and update loop:
``rlkit/algos/actor_critic/tf.py``).

Mirrors ``torch.py`` line by line.
"""

from __future__ import annotations

import tensorflow as tf

from rlkit.algos.actor_critic.tf import ActorCriticLearner


class Learner(ActorCriticLearner):
    """The actor-critic learner with PPO's clipped surrogate objective."""

    name = "PPO"

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
