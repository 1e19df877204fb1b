"""DDPG's target and actor step in TensorFlow; the rest is
``rlkit/algos/off_policy/tf.py``.

Mirrors ``torch.py`` line by line.
"""

from __future__ import annotations

import tensorflow as tf

from rlkit.algos.off_policy.tf import OffPolicyLearner, q_value


class Learner(OffPolicyLearner):
    """One critic; the actor climbs the critic's gradient at its own action (the
    deterministic policy gradient)."""

    name = "DDPG"

    def target_policy(self, next_obs, noise):
        """The target actor's action at s' (TD3 adds smoothing noise here)."""
        return tf.tanh(self.target_actor(next_obs))

    def next_value(self, next_obs, noise, alpha):
        """Q_target(s', mu_target(s')): the target critic at the target actor's
        action."""
        return q_value(
            self.target_critics[0], next_obs, self.target_policy(next_obs, noise)
        )

    def actor_step(self, obs, noise, alpha):
        """One Adam step that raises Q(s, mu(s)); only the actor's variables are
        handed to the tape's gradient."""
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(q_value(self.critics[0], obs, self.policy(obs)))
        # differs: torch calls loss.backward()
        grads = tape.gradient(loss, self.actor.trainable_variables)
        self.actor_optimizer.apply_gradients(
            zip(grads, self.actor.trainable_variables, strict=True)
        )
        return loss
