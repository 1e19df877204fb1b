"""TD3's three changes to DDPG, in TensorFlow. Mirrors ``torch.py`` line by line."""

from __future__ import annotations

import tensorflow as tf

from rlkit.algos.ddpg import tf as ddpg
from rlkit.algos.off_policy.tf import q_value


class Learner(ddpg.Learner):
    """DDPG with two critics, delayed actor updates and a smoothed target action."""

    name = "TD3"
    n_critics = 2

    def target_policy(self, next_obs, noise):
        """Fix 3, target policy smoothing: clipped Gaussian noise on the target
        action, so Q is fit on a region."""
        clip = self.config.target_noise_clip
        smoothing = tf.clip_by_value(
            self.config.target_noise * noise[0], -clip, clip
        )
        return tf.clip_by_value(
            tf.tanh(self.target_actor(next_obs)) + smoothing, -1.0, 1.0
        )

    def next_value(self, next_obs, noise, alpha):
        """Fix 1, clipped double Q: the smaller of the two target critics, against
        over-estimation."""
        next_actions = self.target_policy(next_obs, noise)
        first, second = (
            q_value(critic, next_obs, next_actions) for critic in self.target_critics
        )
        return tf.minimum(first, second)

    def policy_due(self):
        """Fix 2, delayed policy updates: the actor and the targets move every
        ``policy_delay`` critic steps."""
        # differs: a tensor condition on a tf.Variable; a Python counter would be
        # read once, at tracing (C22)
        return self.step_counter % self.config.policy_delay == 0
