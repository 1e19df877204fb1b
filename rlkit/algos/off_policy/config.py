"""Hyperparameters shared by DDPG, TD3 and SAC, the batch contract of their update, and their initial weights.

The three are one family: an actor, one or two critics Q(s, a), target copies blended by Polyak averaging,
a replay buffer, and training in bursts of gradient steps. The defaults reach -200 on Pendulum-v1 within
20k environment steps for every seed we tried (see ``benchmarks/off_policy.py``): small networks (64x64),
one gradient step per environment step, and a batch of 256.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlkit.algos.config_base import HIDDEN_SIZES_RULE, AlgorithmConfig
from rlkit.contracts import Field, TensorContract
from rlkit.nets import init_mlp_weights

#: What an update reports, averaged over the burst (``actor_loss`` over the steps that updated the actor).
METRICS = ("critic_loss", "q_mean", "actor_loss", "alpha")


@dataclass
class OffPolicyConfig(AlgorithmConfig):
    """Every hyperparameter the three algorithms share; each subclass adds its own."""

    #: Hidden layer widths of the actor and of each critic (ReLU). SAC on Pendulum needs ~3,000 gradient
    #: steps whatever the width, so the width sets the wall time: 64x64 steps about 4x faster than 256x256.
    hidden_sizes: tuple[int, ...] = (64, 64)
    #: Adam step sizes of the actor and the critics.
    actor_lr: float = 1e-3
    critic_lr: float = 1e-3
    #: Discount factor.
    gamma: float = 0.99
    #: Polyak rate of the target networks: target <- (1 - tau) * target + tau * online after each update.
    tau: float = 0.005
    #: Replay capacity (transitions) and transitions per gradient step.
    buffer_size: int = 100_000
    batch_size: int = 256
    #: Environment steps of uniformly random actions before the first gradient step.
    learning_starts: int = 1_000
    #: Environment steps between bursts, and gradient steps per burst (1 gradient step per env step).
    train_every: int = 200
    gradient_steps: int = 200
    #: Multi-step returns: each stored transition carries n rewards and bootstraps from the observation n
    #: steps later with discount gamma^n (shorter at episode ends; see ``rlkit/nstep.py``). 1 = one-step.
    n_step: int = 1
    #: Prioritized replay: sample transitions in proportion to |TD error|^per_alpha (the critics' mean) and
    #: weight their critic loss by importance weights whose exponent anneals from ``per_beta_start`` to 1.
    prioritized: bool = False
    per_alpha: float = 0.6
    per_beta_start: float = 0.4
    #: Parallel environments stepped together.
    num_envs: int = 1
    #: Greedy evaluation every ``eval_every`` environment steps over ``eval_episodes`` episodes.
    eval_every: int = 1_000
    eval_episodes: int = 10
    #: Return the weights of the best evaluation instead of the last ones. Off by default: the agent a run
    #: returns is the one it ended with (``SaveCheckpoints`` keeps the best).
    keep_best: bool = False

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            (len(self.hidden_sizes) > 0 and all(h > 0 for h in self.hidden_sizes), "hidden_sizes", HIDDEN_SIZES_RULE),
            (self.actor_lr > 0, "actor_lr", "> 0"),
            (self.critic_lr > 0, "critic_lr", "> 0"),
            (0 <= self.gamma <= 1, "gamma", "in [0, 1]"),
            (0 < self.tau <= 1, "tau", "in (0, 1]"),
            (self.buffer_size >= self.batch_size, "buffer_size", ">= batch_size"),
            (self.batch_size > 0, "batch_size", "> 0"),
            (self.learning_starts >= 0, "learning_starts", ">= 0"),
            (self.train_every > 0, "train_every", "> 0"),
            (self.gradient_steps > 0, "gradient_steps", "> 0"),
            (self.n_step >= 1, "n_step", ">= 1"),
            (self.per_alpha >= 0, "per_alpha", ">= 0"),
            (0 <= self.per_beta_start <= 1, "per_beta_start", "in [0, 1]"),
            (self.num_envs > 0, "num_envs", "> 0"),
            (self.eval_every > 0, "eval_every", "> 0"),
            (self.eval_episodes > 0, "eval_episodes", "> 0"),
        ]


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


def initial_weights(obs_dim: int, action_dim: int, actor_outputs: int, n_critics: int, config, seed: int) -> list:
    """Actor then critics, torch.nn.Linear's default init drawn in numpy (the same network in both frameworks)."""
    weights = init_mlp_weights([obs_dim, *config.hidden_sizes, actor_outputs], seed)
    for index in range(n_critics):
        weights += init_mlp_weights([obs_dim + action_dim, *config.hidden_sizes, 1], seed + 1 + index)
    return weights


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
