"""The actor-critic networks in PyTorch, shared by A2C and PPO: the model, the
policy's distribution, the rollout's evaluation, weights and checkpoints.

``tf.py`` mirrors this file line by line. Each algorithm's whole update is in its
own ``Learner`` (``rlkit/algos/a2c/torch.py``, ``rlkit/algos/ppo/torch.py``), built
from these functions. ``# differs:`` marks each place where the frameworks truly
differ.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rlkit.algos import torch_parts as parts
from rlkit.algos.actor_critic.config import (
    METRICS,
    ActorCriticConfig,
    Batch,
    initial_weights,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_rmsprop import ForeachRMSprop
from rlkit.checkpoints import read_torch_checkpoint, write_torch_checkpoint
from rlkit.contracts import TensorContract
from rlkit.encoders import ImageSpec

LOG_2PI = math.log(2 * math.pi)
#: Added to gSDE's variance before its log (SB3's 1e-6): a state whose latent
#: features are all zero would have a zero std.
SDE_EPS = 1e-6


def build_mlp(
    in_dim: int,
    out_dim: int,
    hidden_sizes: tuple[int, ...],
    image: ImageSpec | None = None,
    precision: torch.dtype | None = None,
) -> parts.MLP:
    """A tanh MLP with a linear output layer; for images, behind a convolutional
    encoder (first, so its weights come first), whose features the MLP reads. Its
    layers compute in ``precision`` (None: float32), its output is float32."""
    layers: list[nn.Module] = []
    if image is not None:
        layers, in_dim = [parts.ConvEncoder(image)], image.flat_size
    for width in hidden_sizes:
        layers += [nn.Linear(in_dim, width), nn.Tanh()]
        in_dim = width
    layers.append(nn.Linear(in_dim, out_dim))
    return parts.MLP(layers, precision)


class ActorCriticModel(nn.Module):
    """Actor, critic and the Gaussian policy's log std (``log_std_size`` 0 for
    discrete actions) in one model. With gSDE (``sde_features`` = the actor's last
    hidden width) the log std is a matrix, one entry per latent feature and action.

    For images each network has its own encoder, not one trunk with two heads
    (CleanRL's Atari PPO): the loss sums the policy and value losses, so a shared
    trunk would learn features for both at a ratio set by ``vf_coef`` and the
    returns' scale, and one global gradient clip would let a large value gradient
    shrink the policy's step. Separate, each network learns from its own loss alone,
    as the MLPs do; acting reads the actor's arrays (the first of the weights) with
    the numpy encoder and MLP. The cost: the update convolves each image twice.
    """

    def __init__(
        self,
        actor: nn.Module,
        critic: nn.Module,
        log_std_size: int = 0,
        sde_features: int = 0,
    ) -> None:
        super().__init__()
        self.actor, self.critic, self.log_std_size = actor, critic, log_std_size
        self.sde_features = sde_features
        # differs: gSDE's matrix as (action_dim, features), as a Linear's weight is
        # (out, in); Keras' is (in, out), the layout get_weights hands out
        shape = (log_std_size, sde_features) if sde_features else (log_std_size,)
        self.log_std = nn.Parameter(torch.zeros(shape)) if log_std_size else None

    def forward(self, obs):
        return self.actor(obs), self.critic(obs)


def build_model(
    obs_dim: int,
    action_dim: int,
    discrete: bool,
    config: ActorCriticConfig,
    seed: int,
    device: torch.device,
    image: ImageSpec | None = None,
) -> ActorCriticModel:
    """Actor (logits or Gaussian mean, plus a state-independent log std, or gSDE's
    log std matrix) and critic in one model, so that a checkpoint is that model's
    state_dict; on ``device``, with the seed's initial weights (the same as tf's).
    ``image``: each network reads the images through its own convolutional
    encoder."""
    precision = parts.compute_dtype(config.precision, device)
    actor = build_mlp(obs_dim, action_dim, config.hidden_sizes, image, precision)
    critic = build_mlp(obs_dim, 1, config.hidden_sizes, image, precision)
    sde = config.hidden_sizes[-1] if config.use_sde else 0
    model = ActorCriticModel(actor, critic, 0 if discrete else action_dim, sde)
    model = model.to(device)
    weights = initial_weights(obs_dim, action_dim, discrete, config, seed, image)
    set_weights(model, weights)
    return model


def parameters(model: ActorCriticModel) -> list[nn.Parameter]:
    """Actor, critic and (continuous actions) log std, in :func:`get_weights`
    order."""
    log_std = [] if model.log_std is None else [model.log_std]
    return [*model.actor.parameters(), *model.critic.parameters(), *log_std]


def build_optimizer(
    model: ActorCriticModel, config: ActorCriticConfig
) -> FusedAdam | ForeachRMSprop:
    """The update's optimizer (``config.optimizer``): Adam, or RMSprop as SB3's A2C
    steps. torch.optim's kernels without torch.optim's wrappers (torch_adam.py: no
    torch._dynamo import)."""
    # differs: Keras' own Adam and RMSprop place epsilon differently; tf.py uses
    # torch's formulas (keras_adam.py, keras_rmsprop.py)
    params, lr = parameters(model), config.learning_rate
    if config.optimizer == "adam":
        return FusedAdam(params, lr=lr, eps=config.adam_eps)
    return ForeachRMSprop(
        params, lr=lr, alpha=config.rmsprop_alpha, eps=config.rmsprop_eps
    )


def actor_outputs(model: ActorCriticModel, obs):
    """The actor's output and, with gSDE, its last hidden layer's activations (the
    latent features its noise multiplies; None without)."""
    if not model.sde_features:
        return model.actor(obs), None
    *trunk, head = model.actor  # fp32 only (the config checks): no autocast
    features = obs
    for layer in trunk:
        features = layer(features)
    return head(features), features


def sde_log_std(log_std, features):
    """gSDE's log std at each state: log sqrt(sum_j z_j^2 sigma_jk^2), the std of
    mu + z E with E ~ N(0, sigma^2). The features are detached (SB3's default):
    the network learns through the mean only, sigma through this std."""
    # differs: the matrix is (action_dim, features) here: a Linear's product
    variance = nn.functional.linear(features.detach() ** 2, torch.exp(2.0 * log_std))
    return 0.5 * torch.log(variance + SDE_EPS)


def log_prob_entropy(model: ActorCriticModel, obs, actions):
    """log pi(a|s) and the policy's entropy at s: categorical over logits, or
    diagonal Gaussian (with gSDE, its std depends on s)."""
    (out, features), log_std = actor_outputs(model, obs), model.log_std
    if log_std is None:
        log_p = torch.log_softmax(out, dim=-1)
        log_probs = log_p.gather(1, actions.long()[:, None]).squeeze(1)
        entropy = -(log_p.exp() * log_p).sum(dim=-1)
    elif features is None:
        z = (actions - out) / log_std.exp()
        log_probs = (-0.5 * z**2 - log_std - 0.5 * LOG_2PI).sum(dim=-1)
        entropy = (log_std + 0.5 * (1.0 + LOG_2PI)).sum().expand(len(obs))
    else:
        log_std = sde_log_std(log_std, features)
        z = (actions - out) / log_std.exp()
        log_probs = (-0.5 * z**2 - log_std - 0.5 * LOG_2PI).sum(dim=-1)
        entropy = (log_std + 0.5 * (1.0 + LOG_2PI)).sum(dim=-1)
    return log_probs, entropy


def critic_values(model: ActorCriticModel, obs):
    """V(s), one value per observation."""
    return model.critic(obs).squeeze(-1)


def rollout_outputs(model: ActorCriticModel, obs, actions):
    """The tensors :func:`values_and_log_probs` returns."""
    log_probs = log_prob_entropy(model, obs[: len(actions)], actions)[0]
    return critic_values(model, obs), log_probs


def values_and_log_probs(
    model: ActorCriticModel, obs: np.ndarray, actions: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """V(s) for a rollout's observations (the one after its last step included)
    and log pi(a|s) for the first ``len(actions)`` of them (the "old"
    log-probabilities): one batched call after each rollout."""
    device = model.critic[-1].weight.device
    with torch.inference_mode():
        values, log_probs = rollout_outputs(
            model,
            torch.as_tensor(obs, device=device),
            torch.as_tensor(actions, device=device),
        )
        return values.cpu().numpy(), log_probs.cpu().numpy()


def run_update(
    train_update,
    contract: TensorContract,
    batch: dict[str, np.ndarray],
    minibatches: np.ndarray,
    clip_range: float,
    max_kl: float,
    device: torch.device,  # differs: TF places tensors on its device itself
) -> dict[str, float]:
    """``train_update(batch, minibatches, clip_range, max_kl)`` on a rollout that
    satisfies the contract, read into a :class:`Batch` of tensors; its metrics by
    name."""
    contract.check(batch)
    fields = (torch.as_tensor(batch[name], device=device) for name in Batch._fields)
    means = train_update(
        Batch(*fields),
        torch.as_tensor(minibatches, device=device),
        torch.tensor(clip_range, device=device),
        torch.tensor(max_kl, device=device),
    )
    return dict(zip(METRICS, means.tolist(), strict=True))


def rows(batch: Batch, indices) -> Batch:
    """The batch's transitions at ``indices`` (a minibatch), every field alike."""
    return Batch(*(field[indices] for field in batch))


def get_weights(model: ActorCriticModel) -> list[np.ndarray]:
    """``[actor W0, b0, ..., critic W0, b0, ...(, log_std)]``, each kernel as
    (in, out) (Keras' layout; gSDE's log std as (features, action_dim)); an
    encoder's (kh, kw, in, out) kernels and biases lead its network's arrays."""
    # differs: torch weights are read tensor by tensor; Keras reads them in one call
    weights = [param.detach().cpu().numpy() for param in parameters(model)]
    return [parts.to_keras_layout(weight).copy() for weight in weights]


def set_weights(model: ActorCriticModel, weights: list[np.ndarray]) -> None:
    """Load weights in :func:`get_weights` order."""
    params = parameters(model)
    if len(weights) != len(params):
        raise ValueError(f"expected {len(params)} arrays, got {len(weights)}")
    with torch.no_grad():
        for param, value in zip(params, weights, strict=True):
            value = np.asarray(value, dtype=np.float32)
            param.copy_(torch.as_tensor(parts.from_keras_layout(value)))


def save(model: ActorCriticModel, path: str | Path, meta: dict) -> None:
    """A ``.pt`` file with the model's state_dict and rlkit's metadata (loads
    with ``weights_only=True``)."""
    write_torch_checkpoint(path, meta, model.state_dict())


def load(model: ActorCriticModel, path: str | Path) -> None:
    model.load_state_dict(read_torch_checkpoint(path)[1])
