"""SAC's hyperparameters (the shared ones are in ``rlkit/algos/off_policy/config.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rlkit.algos.off_policy.config import OffPolicyConfig

#: Bounds of the actor's log standard deviation: below -20 the Gaussian is a spike, above 2 it is flat.
LOG_STD_MIN, LOG_STD_MAX = -20.0, 2.0


#: The settings of every MuJoCo task (where they come from: the note above ``env_defaults`` below).
MUJOCO = {
    "hidden_sizes": (256, 256),
    "learning_rate": 3e-4,
    "learning_starts": 5_000,
    "eval_every": 5_000,
    "eval_episodes": 5,
}


@dataclass
class SACConfig(OffPolicyConfig):
    """SAC (Haarnoja et al. 2018): a tanh-squashed Gaussian actor, twin critics, an entropy bonus alpha."""

    #: MuJoCo (HalfCheetah, Hopper): the networks and step size of Haarnoja et al. (2018; 256x256, 3e-4 for
    #: every network; CleanRL's critics take 1e-3) and CleanRL's 5,000 random steps first (both use them on
    #: every MuJoCo task); evaluation over 5 episodes every 5,000 steps, since one episode is up to 1,000
    #: steps there. First tried on HalfCheetah, TF seed 0: 5,942 at 100k steps (RESULTS.md, "Harder tasks").
    env_defaults: ClassVar[dict[str, dict]] = {
        # Pendulum: every network's and the temperature's step size 3e-3 (not 1e-3) and 100 random steps first
        # (not 1,000). On seeds 300-309, never used to choose it, the first -200 came at a median of 3,500
        # (torch) / 4,000 (TF) steps against the defaults' 4,500 / 5,000, and 20 of 20 final agents were solved
        # against 19; SB3's wider 256x256 networks did as well at five times the cost per step.
        # benchmarks/RESULTS.md, "SAC on Pendulum-v1: where SB3's 3,000 steps come from", and "Endings".
        "Pendulum-v1": {"learning_rate": 3e-3, "learning_starts": 100},
        "HalfCheetah-v5": MUJOCO,
        # Hopper's budget is 300,000 steps (``agent.py``): a replay that holds all of them, as CleanRL's (1M).
        "Hopper-v5": {**MUJOCO, "buffer_size": 1_000_000},
    }

    #: Tune alpha so the policy's entropy tracks ``target_entropy`` (True), or keep ``alpha`` fixed (False).
    auto_alpha: bool = True
    #: The fixed alpha, or the starting value of the tuned one.
    alpha: float = 1.0
    #: Adam step size of log alpha where it differs from ``learning_rate`` (None: it).
    alpha_lr: float | None = None
    #: Entropy the tuning aims for; None means -action_dim, the usual heuristic.
    target_entropy: float | None = None

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            *super().checks(),
            (self.alpha > 0, "alpha", "> 0"),
            (self.alpha_lr is None or self.alpha_lr > 0, "alpha_lr", "> 0 or None"),
        ]
