"""Hyperparameters shared by the actor-critic algorithms, and the batch contract of their update step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from rlkit.algos.config_base import HIDDEN_SIZES_RULE, AlgorithmConfig
from rlkit.contracts import Field, TensorContract
from rlkit.encoders import ImageSpec, init_conv_weights
from rlkit.errors import RlkitError
from rlkit.nets import orthogonal_mlp_weights
from rlkit.schedules import ConstantSchedule, LinearDecay

#: The metrics an update returns: the loss terms in the order the twins' ``loss`` computes them, then the
#: number of epochs run (fewer than ``epochs`` when the KL early stop fires).
METRICS = ("loss", "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "epochs")
APPROX_KL = METRICS.index("approx_kl")


@dataclass
class ActorCriticConfig(AlgorithmConfig):
    """Every hyperparameter of A2C and PPO; each algorithm's subclass sets the defaults that suit it."""

    #: Hidden layer widths of the actor and of the critic (separate networks, tanh activations).
    hidden_sizes: tuple[int, ...] = (64, 64)
    #: The convolutional encoder in front of the actor and of the critic (one each) for image observations
    #: (``rlkit/encoders.py``): "auto" picks "nature" (Mnih et al. 2015) for frames of 36 pixels or more a side
    #: and "minatar" (Young & Tian 2019) for small grids. Flat observations ignore it; an MLP reads an image
    #: flattened in the environment (wrappers=[FlattenObservation]).
    encoder: str = "auto"
    #: The optimiser: "adam", or "rmsprop" (Mnih et al. 2016's for A2C, and Stable-Baselines3's). RMSprop's
    #: average of squared gradients starts at zero and is not corrected for it, so its first updates are up to
    #: ten times the step size (``rlkit/algos/torch_rmsprop.py``); Adam corrects that start away.
    optimizer: str = "adam"
    #: The optimiser's step size, annealed linearly to 0 over training when ``anneal_lr``.
    learning_rate: float = 3e-4
    anneal_lr: bool = True
    #: Adam's epsilon, added to the root of the second-moment estimate in each weight's step.
    adam_eps: float = 1e-8
    #: RMSprop's decay of its average of squared gradients, and the epsilon added to its root (SB3's values).
    rmsprop_alpha: float = 0.99
    rmsprop_eps: float = 1e-5
    #: Parallel environments and steps per environment in one rollout.
    num_envs: int = 8
    num_steps: int = 128
    #: Discount and GAE lambda (lambda = 1: Monte-Carlo-like advantages; 0: one-step TD).
    gamma: float = 0.99
    gae_lambda: float = 0.95
    #: Passes over each rollout, and minibatches per pass.
    epochs: int = 10
    num_minibatches: int = 4
    #: PPO's clip range for the probability ratio (annealed to 0 when ``anneal_clip``); unused by A2C.
    clip_range: float = 0.2
    anneal_clip: bool = False
    #: Clip the value function's change like the ratio (PPO2's option; often neutral or harmful).
    clip_value: bool = False
    #: Standardise advantages within each minibatch.
    normalize_advantages: bool = True
    #: Loss = policy loss + vf_coef * value loss - ent_coef * entropy.
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    #: Global gradient-norm clip.
    max_grad_norm: float = 0.5
    #: Stop the epochs of an update early when the approximate KL divergence exceeds 1.5 x this.
    target_kl: float | None = None
    #: Running normalisation of observations and (by the discounted return's std) of rewards.
    normalize_obs: bool = False
    normalize_rewards: bool = False
    #: Initial log standard deviation of the Gaussian policy (continuous actions); with ``use_sde``, of every
    #: entry of the log std matrix.
    log_std_init: float = 0.0
    #: Generalized state-dependent exploration (gSDE, Raffin et al. 2022; continuous actions): explore with a
    #: noise matrix E ~ N(0, sigma^2), shape (hidden_sizes[-1], action_dim), per environment, multiplying the
    #: actor's last hidden activations z(s): a = mu(s) + z(s) E. Held for ``sde_sample_freq`` steps, the noise
    #: is a function of the state, so nearby states in consecutive steps get similar perturbations: exploration
    #: correlated in time rather than independent at every step. The policy's std then depends on the state,
    #: std_k(s) = sqrt(sum_j z_j(s)^2 sigma_jk^2), and log std becomes a matrix (SB3's ``use_sde``).
    #: Off by default (PPO switches it on for Pendulum-v1: ``PPOConfig.env_defaults``).
    use_sde: bool = False
    #: With ``use_sde``: draw new noise matrices every this many steps of a rollout (<= 0: only at its start).
    sde_sample_freq: int = -1
    #: Greedy evaluation every ``eval_every`` environment steps over ``eval_episodes`` episodes.
    eval_every: int = 10_000
    eval_episodes: int = 10
    #: Return the weights (and normalisation statistics) of the best evaluation instead of the last ones.
    #: Off by default: the agent a run returns is the one it ended with (``SaveCheckpoints`` keeps the best).
    keep_best: bool = False

    def learning_rate_schedule(self, plan: int) -> LinearDecay | ConstantSchedule:
        """``learning_rate`` annealed linearly to 0 over the plan with ``anneal_lr``, else constant."""
        return LinearDecay(self.learning_rate, plan) if self.anneal_lr else ConstantSchedule(self.learning_rate)

    def checks(self) -> list[tuple[bool, str, str]]:
        return [
            (len(self.hidden_sizes) > 0 and all(h > 0 for h in self.hidden_sizes), "hidden_sizes", HIDDEN_SIZES_RULE),
            (self.learning_rate > 0, "learning_rate", "> 0"),
            (self.optimizer in ("adam", "rmsprop"), "optimizer", "'adam' or 'rmsprop'"),
            (self.adam_eps > 0, "adam_eps", "> 0"),
            (0 <= self.rmsprop_alpha < 1, "rmsprop_alpha", "in [0, 1)"),
            (self.rmsprop_eps > 0, "rmsprop_eps", "> 0"),
            (self.num_envs > 0, "num_envs", "> 0"),
            (self.num_steps > 0, "num_steps", "> 0"),
            (0 <= self.gamma <= 1, "gamma", "in [0, 1]"),
            (0 <= self.gae_lambda <= 1, "gae_lambda", "in [0, 1]"),
            (self.epochs > 0, "epochs", "> 0"),
            (0 < self.num_minibatches <= self.num_envs * self.num_steps, "num_minibatches", "in [1, rollout size]"),
            (0 < self.clip_range < 1, "clip_range", "in (0, 1)"),
            (self.ent_coef >= 0, "ent_coef", ">= 0"),
            (self.vf_coef >= 0, "vf_coef", ">= 0"),
            (self.max_grad_norm > 0, "max_grad_norm", "> 0"),
            (self.target_kl is None or self.target_kl > 0, "target_kl", "> 0 or None"),
            (self.eval_every > 0, "eval_every", "> 0"),
            (self.eval_episodes > 0, "eval_episodes", "> 0"),
            (self.encoder in ("auto", "nature", "minatar"), "encoder", "'auto', 'nature' or 'minatar'"),
            # gSDE's std reads the actor's last hidden activations in float32 (its numpy twin does too)
            (
                not self.use_sde or self.precision == "fp32",
                "precision",
                "'fp32' with use_sde=True (gSDE, on by default for some tasks: pass use_sde=False to train in "
                f"{self.precision})",
            ),
        ]


class Batch(NamedTuple):
    """What an update learns from: a rollout's transitions (or a minibatch of them), one tensor per field of
    :func:`actor_critic_contract`, which documents each."""

    obs: Any
    actions: Any
    old_log_probs: Any
    advantages: Any
    returns: Any
    old_values: Any


def actor_critic_contract(
    owner: str, obs_dim: int, discrete: bool, action_dim: int, image: ImageSpec | None = None
) -> TensorContract:
    """What an actor-critic update accepts: one row per valid transition of a rollout, the fields of
    :class:`Batch`. Image observations arrive as stored, (B, *image.shape) of the image's dtype (uint8 pixels,
    bool grids): the networks' encoders scale them (``rlkit/encoders.py``)."""
    obs = Field(("B", obs_dim), ("float32",), doc="(normalised) observations")
    if image is not None:
        obs = Field(("B", *image.shape), (image.dtype,), doc="image observations, as stored")
    if discrete:
        actions = Field(("B",), ("int64", "int32"), 0, action_dim - 1, doc="action indices")
    else:
        actions = Field(("B", action_dim), ("float32",), doc="raw (unclipped) Gaussian samples")
    return TensorContract(
        owner,
        {
            "obs": obs,
            "actions": actions,
            "old_log_probs": Field(("B",), ("float32",), doc="log pi_old(a|s) when the rollout was collected"),
            "advantages": Field(("B",), ("float32",), doc="GAE advantages"),
            "returns": Field(("B",), ("float32",), doc="advantages + old values: the value targets"),
            "old_values": Field(("B",), ("float32",), doc="V_old(s), for value clipping"),
        },
    )


def initial_weights(
    obs_dim: int, action_dim: int, discrete: bool, config: ActorCriticConfig, seed: int, image: ImageSpec | None = None
) -> list:
    """Orthogonal init drawn in numpy, so both frameworks start from the same network for the same seed.

    Policy head gain 0.01 (a near-uniform initial policy), value head gain 1, log std ``log_std_init`` (a
    (hidden_sizes[-1], action_dim) matrix of it with ``use_sde``; :func:`check_sde` refuses it first). For
    image observations each network's encoder comes first (torch's Conv2d default, as DQN's: its kernels and
    biases, then the MLP, which reads the encoder's ``flat_size`` features).
    """
    check_sde(config, discrete, image)
    features = obs_dim if image is None else image.flat_size
    actor = orthogonal_mlp_weights([features, *config.hidden_sizes, action_dim], seed, output_gain=0.01)
    critic = orthogonal_mlp_weights([features, *config.hidden_sizes, 1], seed + 1, output_gain=1.0)
    if image is not None:
        actor, critic = [*init_conv_weights(image, seed + 2), *actor], [*init_conv_weights(image, seed + 3), *critic]
    shape = (config.hidden_sizes[-1], action_dim) if config.use_sde else (action_dim,)
    log_std = [] if discrete else [np.full(shape, config.log_std_init, dtype=np.float32)]
    return [*actor, *critic, *log_std]


def check_sde(config: ActorCriticConfig, discrete: bool, image: ImageSpec | None) -> None:
    """Refuse gSDE where it has no meaning or no implementation, before a network is built: it perturbs a
    Gaussian's mean (no categorical policy has one), and reads the last hidden layer of an MLP on flat
    observations (the numpy actor has no image path for it)."""
    if not config.use_sde:
        return
    if discrete:
        raise RlkitError(
            f"{config.algorithm()}: use_sde=True (gSDE) explores continuous actions, and this environment's actions "
            "are discrete: train with use_sde=False"
        )
    if image is not None:
        raise RlkitError(
            f"{config.algorithm()}: use_sde=True (gSDE) is implemented for flat observations, and this environment's "
            f"are images {image.shape}: train with use_sde=False, or flatten them (wrappers=[FlattenObservation])"
        )
