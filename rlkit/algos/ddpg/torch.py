"""DDPG's target and actor step in PyTorch; the rest is
``rlkit/algos/off_policy/torch.py``.

``tf.py`` mirrors this file line by line.
"""

from __future__ import annotations

import torch

from rlkit.algos.off_policy.torch import OffPolicyLearner, q_value


class Learner(OffPolicyLearner):
    """One critic; the actor climbs the critic's gradient at its own action (the
    deterministic policy gradient)."""

    name = "DDPG"

    def target_policy(self, next_obs, noise):
        """The target actor's action at s' (TD3 adds smoothing noise here)."""
        return torch.tanh(self.target_actor(next_obs))

    def next_value(self, next_obs, noise, alpha):
        """Q_target(s', mu_target(s')): the target critic at the target actor's
        action."""
        return q_value(
            self.target_critics[0], next_obs, self.target_policy(next_obs, noise)
        )

    def actor_step(self, obs, noise, alpha):
        """One Adam step that raises Q(s, mu(s)); gradients reach the critic too, but
        only the actor steps."""
        loss = -q_value(self.critics[0], obs, self.policy(obs)).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        # only the actor's gradients, as TF's tape: not the critics' (never used)
        loss.backward(inputs=self.actor_parameters)
        self.actor_optimizer.step()
        return loss.detach()
