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
    #: The actor a run ends with: "online" (the last gradient step's) or "target", the target actor: a Polyak
    #: average of the online one (rate ``tau`` per actor step, so over its last ~1/tau steps). With "target" it
    #: is copied into the actor (and the target critics synced, as ``set_weights`` does) at a training call's
    #: last step, before the final evaluation: the agent evaluated, saved and returned is the average. The
    #: evaluations before it read the online actor, and training never acts with the average.
    final_actor: str = "online"

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            *super().checks(),
            (self.exploration in ("gaussian", "ou"), "exploration", "'gaussian' or 'ou'"),
            (self.exploration_noise >= 0, "exploration_noise", ">= 0"),
            (self.final_actor in ("online", "target"), "final_actor", "'online' or 'target'"),
        ]
