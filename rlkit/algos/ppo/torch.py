"""PPO's clipped policy loss in PyTorch (networks and update loop:
``rlkit/algos/actor_critic/torch.py``).

``tf.py`` mirrors this file line by line.
"""

from __future__ import annotations

import torch

from rlkit.algos.actor_critic.torch import ActorCriticLearner


class Learner(ActorCriticLearner):
    """The actor-critic learner with PPO's clipped surrogate objective."""

    name = "PPO"

    def policy_loss(self, log_probs, old_log_probs, advantages, clip_range):
        """-E[min(r A, clip(r, 1 - c, 1 + c) A)] with r = pi / pi_old; also
        approximate KL and clip fraction."""
        log_ratio = log_probs - old_log_probs
        ratio = torch.exp(log_ratio)
        # zero gradient outside the range
        clipped = torch.clamp(ratio, 1.0 - clip_range, 1.0 + clip_range)
        loss = -torch.minimum(ratio * advantages, clipped * advantages).mean()
        # an unbiased, always-positive KL estimate
        approx_kl = ((ratio - 1.0) - log_ratio).mean()
        clip_fraction = ((ratio - 1.0).abs() > clip_range).float().mean()
        return loss, approx_kl, clip_fraction
