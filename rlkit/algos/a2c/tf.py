"""A2C's policy loss in TensorFlow (networks and update loop:
``rlkit/algos/actor_critic/tf.py``).

Mirrors ``torch.py`` line by line.
"""

from __future__ import annotations

import tensorflow as tf

from rlkit.algos.actor_critic.tf import ActorCriticLearner


class Learner(ActorCriticLearner):
    """The actor-critic learner with the plain policy-gradient loss."""

    name = "A2C"

    def policy_loss(self, log_probs, old_log_probs, advantages, clip_range):
        """-E[log pi(a|s) A], averaged (not summed) over the batch; KL to the
        rollout's policy; no clipping."""
        loss = -tf.reduce_mean(log_probs * advantages)
        approx_kl = tf.reduce_mean(old_log_probs - log_probs)
        return loss, approx_kl, tf.zeros(())
