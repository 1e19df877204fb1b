"""Small PyTorch pieces the learners share, as functions: seeding, networks and
their weights in Keras' layout, target networks, checkpoints, and, in a section of
their own, the off-policy family's critics and bursts of gradient steps.

An algorithm's update lives whole in its own file (``rlkit/algos/td3/torch.py``);
what is here is the plumbing around it, the same for every algorithm that uses it.
``tf_parts.py`` mirrors this file function by function; ``# differs:`` marks each
place where the frameworks truly differ.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from rlkit.algos.off_policy.config import (
    Batch,
    OffPolicyConfig,
    burst_metrics,
    flatten_burst,
    initial_weights,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.batches import with_defaults
from rlkit.checkpoints import read_torch_checkpoint, write_torch_checkpoint
from rlkit.contracts import TensorContract
from rlkit.encoders import ImageSpec
from rlkit.errors import RlkitError
from rlkit.hardware import configure_torch, resolve_device
from rlkit.precision import refusal

# ----------------------------------------------------------------------------------
# Any learner: seed and device, networks and their weights, targets, checkpoints
# ----------------------------------------------------------------------------------


def seeded_device(seed: int, device: str) -> torch.device:
    """Seed the framework; the device a learner computes on (cpu, cuda, mps)."""
    configure_torch()  # one CPU thread unless RLKIT_THREADS says otherwise
    torch.manual_seed(seed)
    return torch.device(resolve_device(device))


def build_mlp(
    in_dim: int,
    out_dim: int,
    hidden_sizes: tuple[int, ...],
    precision: torch.dtype | None = None,
) -> MLP:
    """A ReLU MLP with a linear output layer; its layers compute in ``precision``
    (:func:`compute_dtype`), its output is float32."""
    layers: list[nn.Module] = []
    for width in hidden_sizes:
        layers += [nn.Linear(in_dim, width), nn.ReLU()]
        in_dim = width
    layers.append(nn.Linear(in_dim, out_dim))
    return MLP(layers, precision)


# ----------------------------------------------------------------------------------
# Precision: the layers compute in bf16 or fp16, everything around them in float32
# ----------------------------------------------------------------------------------

#: The dtype the layers compute in at each precision (fp32: no autocast at all).
LOW_PRECISION = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def compute_dtype(precision: str, device: torch.device) -> torch.dtype | None:
    """The dtype of the networks' layers (None: float32); a precision the device
    cannot compute in is refused by name (one small autocast product tells)."""
    dtype = LOW_PRECISION[precision]
    if dtype is not None:
        ones = torch.ones(2, 2, device=device)
        # differs: torch's autocast warns and stays in float32 where the dtype is not
        # supported, and raises for a device it does not know
        try:
            with torch.autocast(device.type, dtype=dtype):
                probe_dtype = (ones @ ones).dtype
        except RuntimeError as error:
            raise RlkitError(refusal(precision, str(device), "torch")) from error
        if probe_dtype != dtype:
            raise RlkitError(refusal(precision, str(device), "torch"))
    return dtype


# differs: Keras casts inside each layer by its dtype policy (tf_parts.build_mlp)
def in_precision(
    forward: Callable, dtype: torch.dtype | None, x: torch.Tensor, *more
) -> torch.Tensor:
    """``forward(x, *more)`` with its layers in ``dtype`` (None: float32, as it
    is); the output comes back in float32."""
    if dtype is None:
        return forward(x, *more)
    with torch.autocast(x.device.type, dtype=dtype):
        out = forward(x, *more)
    # float32 from here on: the TD targets, losses, softmaxes and log-probabilities
    # read it, and bf16's 8 significant bits lose what they compare (chapter 44)
    return out.float()


# differs: a Keras Sequential's layers carry their dtype policy themselves
class MLP(nn.Sequential):
    """Layers in sequence, computing in ``precision`` (None: float32), with a
    float32 output."""

    def __init__(
        self, layers: list[nn.Module], precision: torch.dtype | None = None
    ) -> None:
        super().__init__(*layers)
        self.precision = precision

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return in_precision(super().forward, self.precision, x)


def loss_scaler(precision: str, device: torch.device) -> torch.amp.GradScaler:
    """Dynamic loss scaling for fp16, whose 5 exponent bits flush small gradients to
    zero; a pass-through for fp32 and bf16 (float32's exponent range)."""
    # differs: Keras' LossScaleOptimizer starts at 2**15 and doubles every 2,000
    # finite steps; these settings make torch's GradScaler do the same
    return torch.amp.GradScaler(
        device.type,
        init_scale=2.0**15,
        growth_interval=2000,
        enabled=precision == "fp16",
    )


# differs: Keras' LossScaleOptimizer does both inside apply_gradients
def scaled_step(optimizer: FusedAdam, scaler: torch.amp.GradScaler) -> None:
    """Adam's step on the unscaled gradients (skipped, the scale halved, where fp16
    overflowed), then the scale's update; a plain step without loss scaling."""
    scaler.step(optimizer)
    scaler.update()


class ConvEncoder(nn.Module):
    """Stored images -> features (B, flat_size): convolutions with ReLUs, as
    ``rlkit/encoders.py`` describes them (its numpy ``encode`` is the reference)."""

    def __init__(self, spec: ImageSpec) -> None:
        super().__init__()
        # differs: torch needs each convolution's input channels; Keras infers them
        channels = [spec.channels, *(filters for filters, _, _ in spec.convs[:-1])]
        self.convs = nn.ModuleList(
            [
                nn.Conv2d(c_in, filters, size, stride=stride)
                for c_in, (filters, size, stride) in zip(
                    channels, spec.convs, strict=True
                )
            ]
        )
        self.scale, self.channels_last = spec.scale, spec.channels_last

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # uint8 pixels (or bool grids) leave the buffer as they were stored
        x = obs.to(torch.float32) * self.scale
        if self.channels_last:
            # differs: torch convolves NCHW; TF's CPU Conv2D takes only NHWC
            x = x.permute(0, 3, 1, 2)
        for conv in self.convs:
            x = torch.relu(conv(x))
        # differs: back to NHWC before flattening, so the next layer's weights have
        # one layout in both frameworks
        return x.permute(0, 2, 3, 1).flatten(1)


def as_stored(obs: np.ndarray, image: ImageSpec | None) -> np.ndarray:
    """Observations as the buffer stores them: float32 vectors, or images in their
    own dtype (the encoder scales them)."""
    return np.asarray(obs, dtype=np.float32 if image is None else image.dtype)


# differs: torch weights are read tensor by tensor; Keras has get_weights()
def parameters(nets: list[nn.Module]) -> list[nn.Parameter]:
    return [parameter for net in nets for parameter in net.parameters()]


def get_mlp_weights(nets: list[nn.Module]) -> list[np.ndarray]:
    """Every weight of each network in turn (``[W0, b0, ...]`` of an MLP), each
    matrix ``W`` as (in, out): Keras' layout (torch's is (out, in))."""
    # differs: torch weights are read tensor by tensor; Keras has get_weights()
    weights = [parameter.detach().cpu().numpy() for parameter in parameters(nets)]
    return [to_keras_layout(w).copy() for w in weights]


# differs: torch holds Linear weights (out, in) and Conv2d kernels (out, in, kh, kw)
def to_keras_layout(weight: np.ndarray) -> np.ndarray:
    """A torch weight in Keras' layout: (in, out), or (kh, kw, in, out)."""
    if weight.ndim == 4:
        return weight.transpose(2, 3, 1, 0)
    return weight.T if weight.ndim == 2 else weight


# differs: the inverse of to_keras_layout
def from_keras_layout(weight: np.ndarray) -> np.ndarray:
    if weight.ndim == 4:
        return weight.transpose(3, 2, 0, 1)
    return weight.T if weight.ndim == 2 else weight


def set_mlp_weights(nets: list[nn.Module], weights: list[np.ndarray]) -> None:
    """Load weights in :func:`get_mlp_weights` order into the networks, in place."""
    targets = parameters(nets)
    if len(weights) != len(targets):
        raise ValueError(
            f"expected {len(targets)} arrays in get_weights order, "
            f"got {len(weights)}"
        )
    # differs: torch weights are written tensor by tensor; Keras has set_weights()
    with torch.no_grad():
        for parameter, value in zip(targets, weights, strict=True):
            value = np.asarray(value, dtype=np.float32)
            parameter.copy_(torch.as_tensor(from_keras_layout(value)))


def copy_weights(targets: list[nn.Module], onlines: list[nn.Module]) -> None:
    """Copy each online network into its target's own tensors (a copy, not an
    alias: claim C03)."""
    for target, online in zip(targets, onlines, strict=True):
        target.load_state_dict(online.state_dict())


def polyak_update(
    targets: list[nn.Module], onlines: list[nn.Module], tau: float
) -> None:
    """target <- target + tau * (online - target), in place, for each pair of
    networks."""
    target_parameters = [p for net in targets for p in net.parameters()]
    online_parameters = [p for net in onlines for p in net.parameters()]
    with torch.no_grad():  # one foreach call, not one lerp_ per tensor
        torch._foreach_lerp_(target_parameters, online_parameters, tau)


def numpy_actions(
    policy: Callable, obs: np.ndarray, device: torch.device
) -> np.ndarray:
    """``policy`` on a numpy batch, through the framework; the actions in numpy."""
    with torch.inference_mode():
        obs = torch.as_tensor(obs, dtype=torch.float32, device=device)
        return policy(obs).cpu().numpy()


def save_model(path: str | Path, meta: dict, model: nn.Module) -> None:
    """A ``.pt`` file with the model's weights and rlkit's metadata (loads with
    ``weights_only=True``)."""
    write_torch_checkpoint(path, meta, model.state_dict())


def load_model(path: str | Path, model: nn.Module) -> None:
    """Load the weights of a :func:`save_model` file into ``model``, in place."""
    model.load_state_dict(read_torch_checkpoint(path)[1])


# ----------------------------------------------------------------------------------
# The off-policy family (DDPG, TD3, SAC): critics Q(s, a), networks, bursts
# ----------------------------------------------------------------------------------


def q_value(
    critic: nn.Module, obs: torch.Tensor, actions: torch.Tensor
) -> torch.Tensor:
    """Q(s, a) of a batch, shape (B,): the critic reads the observation and the
    action side by side."""
    return critic(torch.cat([obs, actions], dim=-1)).squeeze(-1)


def actor_and_critics(
    obs_dim: int,
    action_dim: int,
    config: OffPolicyConfig,
    seed: int,
    device: torch.device,
    n_critics: int,
    actor_outputs: int = 1,
) -> tuple[MLP, nn.ModuleList, MLP, nn.ModuleList]:
    """The actor (``actor_outputs`` per action dimension), the critics and a frozen
    target copy of each, on ``device``, with rlkit's initial weights."""
    sizes, outputs = config.hidden_sizes, actor_outputs * action_dim
    dtype = compute_dtype(config.precision, device)
    actor = build_mlp(obs_dim, outputs, sizes, dtype)
    critics = nn.ModuleList(
        build_mlp(obs_dim + action_dim, 1, sizes, dtype) for _ in range(n_critics)
    )
    target_actor = build_mlp(obs_dim, outputs, sizes, dtype).requires_grad_(False)
    target_critics = nn.ModuleList(
        build_mlp(obs_dim + action_dim, 1, sizes, dtype) for _ in range(n_critics)
    )
    # differs: TF never hands the targets to a tape
    target_critics.requires_grad_(False)
    for module in (actor, critics, target_actor, target_critics):
        module.to(device)  # differs: TF places variables itself
    # drawn in numpy: the same networks in both frameworks
    weights = initial_weights(obs_dim, action_dim, outputs, n_critics, config, seed)
    set_mlp_weights([actor, *critics], weights)
    copy_weights([target_actor, *target_critics], [actor, *critics])
    return actor, critics, target_actor, target_critics


class OffPolicyModel(nn.Module):
    """What a checkpoint keeps: the actor, the critics and SAC's log alpha (targets
    are copies of the critics)."""

    def __init__(
        self,
        actor: nn.Module,
        critics: nn.ModuleList,
        log_alpha: float | None = None,
    ) -> None:
        super().__init__()
        self.actor, self.critics = actor, critics
        self.log_alpha = (
            None if log_alpha is None else nn.Parameter(torch.full((1,), log_alpha))
        )


def run_burst(
    train_steps: Callable,
    batches: dict[str, np.ndarray],
    contract: TensorContract,
    gamma: float,
    device: torch.device,
) -> tuple[dict[str, float], np.ndarray]:
    """Check a burst of K batches (fields stacked as (K, B, ...)) and run
    ``train_steps`` on it: the mean metrics, the new replay priorities (K, B).

    ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
    transitions, uniform replay).
    """
    batches = with_defaults(batches, gamma)
    contract.check(flatten_burst(batches))
    totals, priorities = train_steps(burst_tensors(batches, device))
    steps = len(batches["rewards"])
    return burst_metrics(totals.cpu().numpy(), steps), priorities.cpu().numpy()


def burst_tensors(batches: dict[str, np.ndarray], device: torch.device) -> Batch:
    """The burst's fields as tensors (no copies)."""
    # differs: TF places tensors on its device itself
    return Batch(
        *(torch.as_tensor(batches[name], device=device) for name in Batch._fields)
    )


def each_step(train_step: Callable, burst: Batch):
    """Run ``train_step`` on each batch along the burst's leading axis; the summed
    metric terms, the priorities."""
    # differs: torch sums the terms once, after the loop (one op, not two a step)
    terms, priorities = [], []
    # differs: TF runs this loop inside its graph (tf.range)
    for i in range(burst.obs.shape[0]):
        *step_terms, priority = train_step(Batch(*(field[i] for field in burst)))
        terms += step_terms
        priorities.append(priority)  # differs: TF writes into a tf.TensorArray
    totals = torch.stack(terms).reshape(burst.obs.shape[0], -1).sum(dim=0)
    return totals, torch.stack(priorities)


def burst_function(train_step: Callable) -> Callable:
    """A learner's ``train_steps``: :func:`each_step` of its ``train_step``."""

    def train_steps(burst: Batch):
        return each_step(train_step, burst)

    # differs: torch runs a burst eagerly; TF traces it once into one graph
    return train_steps
