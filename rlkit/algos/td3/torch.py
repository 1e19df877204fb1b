"""TD3's three changes to DDPG, in PyTorch. ``tf.py`` mirrors this file line by
line."""

from __future__ import annotations

import torch

from rlkit.algos.ddpg import torch as ddpg
from rlkit.algos.off_policy.torch import q_value


class Learner(ddpg.Learner):
    """DDPG with two critics, delayed actor updates and a smoothed target action."""

    name = "TD3"
    n_critics = 2

    def target_policy(self, next_obs, noise):
        """Fix 3, target policy smoothing: clipped Gaussian noise on the target
        action, so Q is fit on a region."""
        clip = self.config.target_noise_clip
        smoothing = (self.config.target_noise * noise[0]).clamp(-clip, clip)
        return (torch.tanh(self.target_actor(next_obs)) + smoothing).clamp(-1.0, 1.0)

    def next_value(self, next_obs, noise, alpha):
        """Fix 1, clipped double Q: the smaller of the two target critics, against
        over-estimation."""
        next_actions = self.target_policy(next_obs, noise)
        first, second = (
            q_value(critic, next_obs, next_actions) for critic in self.target_critics
        )
        return torch.minimum(first, second)

    def policy_due(self) -> bool:
        """Fix 2, delayed policy updates: the actor and the targets move every
        ``policy_delay`` critic steps."""
        # differs: TF counts in a tf.Variable
        return self.gradient_steps % self.config.policy_delay == 0
