"""SAC's actor, target and temperature in PyTorch; the rest is
``rlkit/algos/off_policy/torch.py``.

``tf.py`` mirrors this file line by line.
"""

from __future__ import annotations

import math

import torch
from torch.nn import functional as F

from rlkit.algos.off_policy.torch import OffPolicyLearner, q_value
from rlkit.algos.sac.config import LOG_STD_MAX, LOG_STD_MIN, SACConfig
from rlkit.algos.torch_adam import FusedAdam

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
        self.alpha_optimizer = FusedAdam(
            [self.log_alpha], lr=config.step_size("alpha")
        )

    def initial_log_alpha(self) -> float:
        return math.log(self.config.alpha)

    def alpha(self) -> torch.Tensor:
        """exp(log_alpha), detached: the losses treat the temperature as a
        constant."""
        return self.log_alpha.detach().exp()[0]

    def sample(self, obs, noise):
        """Reparameterised actions a = tanh(mean + std * noise) and their
        log-probabilities log pi(a|s).

        The Gaussian density of u = mean + std * noise, minus
        log|da/du| = log(1 - tanh(u)^2) per dimension, written as
        2 (log 2 - u - softplus(-2u)): the same value without log(0) when tanh
        saturates.
        """
        mean, log_std = self.actor(obs).chunk(2, dim=-1)
        log_std = log_std.clamp(LOG_STD_MIN, LOG_STD_MAX)
        pre_tanh = mean + log_std.exp() * noise
        gaussian = (-0.5 * noise**2 - log_std - 0.5 * LOG_2PI).sum(-1)
        correction = (2.0 * (LOG_2 - pre_tanh - F.softplus(-2.0 * pre_tanh))).sum(-1)
        return torch.tanh(pre_tanh), gaussian - correction

    def min_q(self, critics, obs, actions):
        """The smaller of the two critics' values: clipped double Q, as in TD3."""
        return torch.minimum(
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
        actions, log_probs = self.sample(obs, noise[1])
        loss = (alpha * log_probs - self.min_q(self.critics, obs, actions)).mean()
        self.actor_optimizer.zero_grad(set_to_none=True)
        # only the actor's gradients, as TF's tape: not the critics' (never used)
        loss.backward(inputs=self.actor_parameters)
        self.actor_optimizer.step()
        if self.config.auto_alpha:
            self.alpha_step(log_probs.detach())
        return loss.detach()

    def alpha_step(self, log_probs):
        """Raise alpha while the policy's entropy (-log pi) is below the target,
        lower it while above."""
        loss = -(self.log_alpha * (log_probs + self.target_entropy)).mean()
        self.alpha_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.alpha_optimizer.step()

    def target_pairs(self) -> list:
        """Only the critics' targets move: SAC bootstraps from its current actor."""
        return self.critic_target_pairs()
