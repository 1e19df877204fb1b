"""A2C's policy loss in PyTorch (networks and update loop:
``rlkit/algos/actor_critic/torch.py``).

``tf.py`` mirrors this file line by line.
"""

from __future__ import annotations

import torch

from rlkit.algos.actor_critic.torch import ActorCriticLearner


class Learner(ActorCriticLearner):
    """The actor-critic learner with the plain policy-gradient loss."""

    name = "A2C"

    def policy_loss(self, log_probs, old_log_probs, advantages, clip_range):
        """-E[log pi(a|s) A], averaged (not summed) over the batch; KL to the
        rollout's policy; no clipping."""
        loss = -(log_probs * advantages).mean()
        approx_kl = (old_log_probs - log_probs).mean()
        return loss, approx_kl, torch.zeros((), device=loss.device)
