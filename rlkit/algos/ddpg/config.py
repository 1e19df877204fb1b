"""DDPG's hyperparameters (the shared ones are in ``rlkit/algos/off_policy/config.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from rlkit.algos.off_policy.config import OffPolicyConfig


@dataclass
class DDPGConfig(OffPolicyConfig):
    """DDPG (Lillicrap et al. 2016): a deterministic actor, one critic, noise added to the actions."""

    #: Exploration noise: "gaussian" (independent per step) or "ou" (Ornstein-Uhlenbeck, correlated in time).
    exploration: str = "gaussian"
    #: Scale of the exploration noise, in units of the [-1, 1] action range.
    exploration_noise: float = 0.1

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            *super().checks(),
            (self.exploration in ("gaussian", "ou"), "exploration", "'gaussian' or 'ou'"),
            (self.exploration_noise >= 0, "exploration_noise", ">= 0"),
        ]
