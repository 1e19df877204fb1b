"""Hyperparameters shared by DDPG, TD3 and SAC, the batch contract of their update (and ``Batch``, the named
tuple the update reads it as), and their initial weights.

The three are one family: an actor, one or two critics Q(s, a), target copies blended by Polyak averaging,
a replay buffer, and training in bursts of gradient steps. The defaults reach -200 on Pendulum-v1 within
20k environment steps for every seed we tried (see ``benchmarks/learning/off_policy.py``): small networks (64x64),
one gradient step per environment step, and a batch of 256.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from rlkit.algos.config_base import ReplayConfig
from rlkit.contracts import Field, TensorContract
from rlkit.nets import init_mlp_weights

#: What an update reports, averaged over the burst (``actor_loss`` over the steps that updated the actor).
METRICS = ("critic_loss", "q_mean", "actor_loss", "alpha")
#: What every learner of the family keeps for a resumed run beyond its weights: the model (actor, critics, and
#: SAC's temperature), the target copies and the two optimizers; each learner adds its own (``TRAINING_STATE``).
NETWORKS_AND_OPTIMIZERS = ("model", "target_actor", "target_critics", "actor_optimizer", "critic_optimizer")


@dataclass
class OffPolicyConfig(ReplayConfig):
    """What the three algorithms share beyond every replay algorithm's fields (:class:`ReplayConfig`, whose
    defaults are theirs); each subclass adds its own."""

    #: Hidden layer widths of the actor and of each critic (ReLU). SAC on Pendulum needs ~3,000 gradient
    #: steps whatever the width, so the width sets the wall time: 64x64 steps about 4x faster than 256x256.
    hidden_sizes: tuple[int, ...] = (64, 64)
    #: Adam step sizes of the actor and of the critics where they differ from ``learning_rate`` (None: it).
    actor_lr: float | None = None
    critic_lr: float | None = None
    #: Standardise observations by a running mean and variance (clipped to +-10), updated from every step's
    #: observations. The buffer keeps the raw observations and each burst is standardised with the statistics
    #: of the moment, as SB3's VecNormalize does for off-policy replay; the statistics are part of the policy
    #: (checkpoints and exports carry them). For observations of very different scales (MuJoCo's); off by
    #: default, where the course's tasks do not need it.
    normalize_obs: bool = False

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            *super().checks(),
            (self.actor_lr is None or self.actor_lr > 0, "actor_lr", "> 0 or None"),
            (self.critic_lr is None or self.critic_lr > 0, "critic_lr", "> 0 or None"),
        ]

    def step_size(self, network: str) -> float:
        """The Adam step size of ``network`` ("actor", "critic"; SAC also "alpha"): its own where set, else
        ``learning_rate``."""
        own = getattr(self, f"{network}_lr")
        return self.learning_rate if own is None else own


def off_policy_contract(owner: str, obs_dim: int, action_dim: int, noise_draws: int) -> TensorContract:
    """What an off-policy update accepts; actions are scaled to [-1, 1] (the tanh range of the actors).

    ``noise`` holds standard-normal draws made in numpy: TD3's target smoothing noise, SAC's
    reparameterisation noise. Drawing it outside the update gives both frameworks the same noise (the
    equivalence tests rely on it) and cannot be frozen by tracing (claim C23).
    """
    return TensorContract(
        owner,
        {
            "obs": Field(("B", obs_dim), ("float32",), doc="observations s"),
            "actions": Field(("B", action_dim), ("float32",), -1.0, 1.0, doc="actions a, scaled to [-1, 1]"),
            "rewards": Field(("B",), ("float32",), doc="rewards r"),
            "next_obs": Field(("B", obs_dim), ("float32",), doc="next observations s'"),
            "terminated": Field(("B",), ("float32",), 0, 1, doc="1 where s' is terminal (not truncated)"),
            "discounts": Field(
                ("B",), ("float32",), 0, 1, doc="bootstrap discount gamma^k, default gamma", optional=True
            ),
            "weights": Field(("B",), ("float32",), 0, None, doc="importance weights, default 1", optional=True),
            "noise": Field((noise_draws, "B", action_dim), ("float32",), doc="standard-normal draws"),
        },
    )


class Batch(NamedTuple):
    """The fields of the contract, in its order, as the update reads them: one batch (``obs`` shaped (B, obs_dim),
    ``noise`` (D, B, A)), or a burst of K of them stacked along a leading axis (``obs`` (K, B, obs_dim), ``noise``
    (K, D, B, A)). Tensors of either framework, or numpy arrays."""

    obs: Any
    actions: Any
    rewards: Any
    next_obs: Any
    terminated: Any
    discounts: Any
    weights: Any
    noise: Any


def initial_weights(obs_dim: int, action_dim: int, actor_outputs: int, n_critics: int, config, seed: int) -> list:
    """Actor then critics, torch.nn.Linear's default init drawn in numpy (the same network in both frameworks)."""
    weights = init_mlp_weights([obs_dim, *config.hidden_sizes, actor_outputs], seed)
    for index in range(n_critics):
        weights += init_mlp_weights([obs_dim + action_dim, *config.hidden_sizes, 1], seed + 1 + index)
    return weights


def single_burst(batch: dict) -> dict:
    """One batch as a burst of one (a leading axis of length 1 on every field, no copies)."""
    return {name: values[None] for name, values in batch.items()}


def flatten_burst(batches: dict) -> dict:
    """A burst of K batches (fields stacked as (K, B, ...), noise as (K, D, B, A)) as one batch to check."""
    flat = {name: values.reshape(-1, *values.shape[2:]) for name, values in batches.items() if name != "noise"}
    noise = batches["noise"]
    flat["noise"] = noise.swapaxes(0, 1).reshape(noise.shape[1], -1, *noise.shape[3:])
    return flat


def burst_metrics(totals, steps: int) -> dict[str, float]:
    """Mean metrics of a burst from the twins' summed terms (critic loss, Q, actor loss, actor steps, alpha)."""
    critic_loss, q_mean, actor_loss, actor_steps, alpha = (float(total) for total in totals)
    means = (critic_loss / steps, q_mean / steps, actor_loss / max(actor_steps, 1.0), alpha / steps)
    return dict(zip(METRICS, means, strict=True))
