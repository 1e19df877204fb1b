"""DQN's Q-network and update step in PyTorch.

``tf.py`` mirrors this file line by line: the same functions in the same order with
the same names, so the two can be read side by side. ``# differs:`` marks each place
where the frameworks truly differ.
The pieces it shares with the other learners (seeding, the Polyak update, weight
I/O, checkpoints) are in ``rlkit/algos/torch_parts.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from rlkit.algos import torch_parts as parts
from rlkit.algos.dqn.config import (
    Batch,
    DQNConfig,
    dqn_contract,
    initial_q_weights,
)
from rlkit.algos.torch_adam import FusedAdam
from rlkit.algos.torch_clip import clip_by_global_norm_
from rlkit.batches import with_defaults
from rlkit.distributional import categorical_support
from rlkit.encoders import ImageSpec
from rlkit.learner_state import TrainingState


def build_q_network(
    obs_dim: int,
    n_actions: int,
    hidden_sizes: tuple[int, ...],
    dueling: bool = False,
    noisy: bool = False,
    atoms: int = 1,
    image: ImageSpec | None = None,
    precision: torch.dtype | None = None,
) -> QNetwork:
    """An MLP from an observation to one Q-value per action; see :class:`QNetwork`
    for the options."""
    return QNetwork(
        obs_dim, n_actions, hidden_sizes, dueling, noisy, atoms, image, precision
    )


class QNetwork(nn.Module):
    """Observation -> Q-values (B, A), or C51 logits (B, A, atoms) when
    ``atoms > 1``.

    ``dueling``: a value head V and the output head A on one trunk, combined as
    V + A - mean_a A.
    ``noisy``: every layer is a :class:`NoisyLinear`; ``forward`` then takes one
    noise draw (None: the means).
    ``image``: a convolutional encoder reads the images first; ``obs_dim`` is then
    its output size.
    ``precision``: the dtype the layers compute in (None: float32); the output is
    float32 either way.
    """

    def __init__(
        self,
        obs_dim,
        n_actions,
        hidden_sizes,
        dueling=False,
        noisy=False,
        atoms=1,
        image=None,
        precision=None,
    ) -> None:
        super().__init__()
        # first, so its weights come first in get_weights order
        self.encoder = parts.ConvEncoder(image) if image is not None else None
        linear = NoisyLinear if noisy else nn.Linear
        sizes = [obs_dim, *hidden_sizes]
        self.trunk = nn.ModuleList(
            [
                linear(fan_in, fan_out)
                for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True)
            ]
        )
        self.value = linear(sizes[-1], atoms) if dueling else None
        self.head = linear(sizes[-1], n_actions * atoms)
        self.n_actions, self.noisy, self.atoms = n_actions, noisy, atoms
        self.precision = precision

    def layers_in_order(self) -> list[nn.Module]:
        """Trunk, value head (dueling only), output head: the order of weights and of
        noise slices."""
        return [
            *self.trunk,
            *([self.value] if self.value is not None else []),
            self.head,
        ]

    def forward(
        self, obs: torch.Tensor, noise: torch.Tensor | None = None
    ) -> torch.Tensor:
        return parts.in_precision(self.outputs, self.precision, obs, noise)

    def outputs(self, obs: torch.Tensor, noise: torch.Tensor | None) -> torch.Tensor:
        """The network's output, in the dtype its layers compute in."""
        noises = split_noise(self.layers_in_order(), noise if self.noisy else None)
        hidden = obs if self.encoder is None else self.encoder(obs)
        for layer, layer_noise in zip(
            self.trunk, noises[: len(self.trunk)], strict=True
        ):
            hidden = F.relu(apply_layer(layer, hidden, layer_noise))
        out = apply_layer(self.head, hidden, noises[-1]).reshape(
            -1, self.n_actions, self.atoms
        )
        if self.value is not None:
            value = apply_layer(self.value, hidden, noises[-2]).reshape(
                -1, 1, self.atoms
            )
            # subtracting the mean makes V and A identifiable: without it any
            # constant could move between them
            out = value + out - out.mean(dim=1, keepdim=True)
        return out if self.atoms > 1 else out.squeeze(2)


class NoisyLinear(nn.Module):
    """A linear layer with learned factorised Gaussian noise:
    W = W_mu + W_sigma * f(eps_in) f(eps_out)^T."""

    def __init__(self, in_features: int, out_features: int) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        # differs: torch stores (out, in); the values come from rlkit's numpy init
        # through set_weights
        self.weight_mu = nn.Parameter(torch.zeros(out_features, in_features))
        self.bias_mu = nn.Parameter(torch.zeros(out_features))
        self.weight_sigma = nn.Parameter(torch.zeros(out_features, in_features))
        self.bias_sigma = nn.Parameter(torch.zeros(out_features))

    def forward(
        self, x: torch.Tensor, noise: torch.Tensor | None = None
    ) -> torch.Tensor:
        if noise is None:  # the mean network: greedy acting and evaluation
            return F.linear(x, self.weight_mu, self.bias_mu)
        # the draw comes scaled, f(eps), from split_noise
        eps_in, eps_out = noise[: self.in_features], noise[self.in_features :]
        weight = self.weight_mu + self.weight_sigma * torch.outer(eps_out, eps_in)
        return F.linear(x, weight, self.bias_mu + self.bias_sigma * eps_out)


def apply_layer(
    layer: nn.Module, x: torch.Tensor, noise: torch.Tensor | None
) -> torch.Tensor:
    return layer(x) if noise is None else layer(x, noise)


def split_noise(layers: list[nn.Module], noise: torch.Tensor | None) -> list:
    """One slice of the scaled draw f(noise) per layer (in + out values each), or a
    None per layer.

    Scaling the whole draw at once costs 3 ops a forward pass, not 6 a layer.
    """
    if noise is None:
        return [None] * len(layers)
    return list(
        scale_noise(noise).split(
            [layer.in_features + layer.out_features for layer in layers]
        )
    )


def scale_noise(noise: torch.Tensor) -> torch.Tensor:
    """f(x) = sign(x) sqrt(|x|), the factorised noise of Fortunato et al. (2018)."""
    return noise.sign() * noise.abs().sqrt()


class DQNLearner(TrainingState):
    """The online and target Q-networks, their optimizer, and one gradient step on a
    batch."""

    framework = "torch"
    #: What a resumed run needs beyond the weights (``state_dict``): the target
    #: network, Adam's moments, the gradient-step count (the hard copies' phase) and
    #: the noisy layers' generator.
    # differs: TF counts gradient steps in a tf.Variable (step_counter)
    TRAINING_STATE = ("q", "target_q", "optimizer", "gradient_steps", "noise_rng")
    # differs: fp16's loss scalers; Keras keeps the scale in the optimizer's state
    LOSS_SCALERS = ("scaler",)

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        config: DQNConfig,
        seed: int = 0,
        device: str = "cpu",
        image: ImageSpec | None = None,
    ) -> None:
        self.device = parts.seeded_device(seed, device)
        self.config, self.image = config, image
        self.contract = dqn_contract(obs_dim, n_actions, image)
        # what the dense layers read: the observation, or the encoder's features
        features = obs_dim if image is None else image.flat_size
        network = (
            features,
            n_actions,
            config.hidden_sizes,
            config.dueling,
            config.noisy,
            config.atoms,
            image,
            parts.compute_dtype(config.precision, self.device),
        )
        self.q = build_q_network(*network).to(self.device)
        self.target_q = build_q_network(*network).to(self.device)
        # differs: TF marks this by never handing the target to a tape
        self.target_q.requires_grad_(False)
        # the same network as tf's
        self.set_weights(initial_q_weights(obs_dim, n_actions, config, seed, image))
        self.support = torch.as_tensor(
            categorical_support(config.v_min, config.v_max, config.n_atoms),
            device=self.device,
        )
        self.noise_size = config.noise_size(features, n_actions)
        # noisy layers' draws, made in numpy like tf's
        self.noise_rng = np.random.default_rng(seed + 1)
        # differs: torch.optim's fused Adam kernel, called without torch.optim's
        # wrappers (torch_adam.py: half the cost a step, no torch._dynamo import)
        self.optimizer = FusedAdam(
            self.q.parameters(), lr=config.learning_rate, eps=config.adam_eps
        )
        # fp16's dynamic loss scaling; a pass-through at fp32 and bf16
        # (rlkit/precision.py)
        self.scaler = parts.loss_scaler(config.precision, self.device)
        self.gradient_steps = 0  # differs: TF keeps this count in a tf.Variable
        # new replay priorities of the last burst, (K, B)
        self.last_priorities = np.zeros((0, 0), dtype=np.float32)

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        """Q-values of a batch of observations with the mean weights (acting uses the
        numpy copy)."""
        with torch.inference_mode():
            obs = parts.as_stored(obs, self.image)
            obs = torch.as_tensor(obs, device=self.device)
            return self.expected_q(self.q(obs)).cpu().numpy()

    def update(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> dict[str, float]:
        """One gradient step on a batch that satisfies the DQN contract; returns loss
        and mean Q.

        ``discounts`` and ``weights`` may be left out (gamma and 1: one-step
        transitions, uniform replay).
        ``noise`` (2, noise_size): the online and target networks' draws for noisy
        layers (None: fresh ones).
        """
        batches = {name: values[None] for name, values in batch.items()}
        if noise is not None:
            batches["noise"] = noise[:, None]
        return self.update_many(batches)

    def update_many(self, batches: dict[str, np.ndarray]) -> dict[str, float]:
        """K gradient steps, one per batch of ``batches`` (each field stacked as
        (K, B, ...)); mean metrics.

        ``batches["noise"]`` (2, K, noise_size), where given, holds the noisy layers'
        draws (drawn here otherwise). The steps' new replay priorities (|TD error|,
        or the cross-entropy for C51) are kept in ``last_priorities``.
        """
        batches = dict(batches)
        noise = batches.pop("noise", None)
        batches = with_defaults(batches, self.config.gamma)
        self.contract.check(
            {
                name: values.reshape(-1, *values.shape[2:])
                for name, values in batches.items()
            }
        )
        loss, q_mean, priorities = self.train_steps(*self.tensors(batches, noise))
        self.last_priorities = priorities.cpu().numpy()
        return {"loss": loss.item(), "q_mean": q_mean.item()}

    def draw_noise(self, steps: int | None = None) -> np.ndarray:
        """Standard normal draws for the online and the target network:
        (2, noise_size), or per step."""
        shape = (
            (2, self.noise_size) if steps is None else (2, steps, self.noise_size)
        )
        return self.noise_rng.standard_normal(shape, dtype=np.float32)

    def gradients(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> list[np.ndarray]:
        """The (clipped) gradients one batch would apply, in :meth:`get_weights`
        order; takes no step."""
        batch = with_defaults(batch, self.config.gamma)
        self.contract.check(batch)
        *_, grads = self.compute_gradients(*self.tensors(batch, noise))
        # differs: GradScaler unscales once per step; its update ends this one
        self.scaler.update()
        grads = [grad.cpu().numpy() for grad in grads]
        return [parts.to_keras_layout(grad).copy() for grad in grads]

    def tensors(
        self, batch: dict[str, np.ndarray], noise: np.ndarray | None = None
    ) -> tuple:
        """The batch as a :class:`Batch` of tensors, then the online and the target
        network's noise draws: the arguments of :meth:`train_step`."""
        batch = with_defaults(batch, self.config.gamma)
        if noise is None:  # fresh draws: one pair per batch, or per step of a burst
            noise = self.draw_noise(
                None if batch["obs"].ndim == 2 else len(batch["obs"])
            )
        # the contract allows int32 actions; indexing takes int64
        batch["actions"] = batch["actions"].astype(np.int64, copy=False)
        noise = np.asarray(noise, dtype=np.float32)
        fields = [batch[name] for name in Batch._fields]
        device = self.device  # differs: TF places tensors on its device itself
        return (
            Batch(*(torch.as_tensor(field, device=device) for field in fields)),
            torch.as_tensor(noise[0], device=device),
            torch.as_tensor(noise[1], device=device),
        )

    def train_steps(self, burst: Batch, noise, target_noise):
        """Run :meth:`train_step` on each batch along the burst's leading axis; mean
        loss and Q, and priorities."""
        # differs: torch sums the terms once, after the loop (not two ops a step)
        losses, q_means, priorities = [], [], []
        # differs: TF runs this loop inside its graph (tf.range)
        for i in range(burst.obs.shape[0]):
            batch = Batch(*(field[i] for field in burst))
            loss, q_mean, priority = self.train_step(
                batch, noise[i], target_noise[i]
            )
            losses.append(loss)
            q_means.append(q_mean)
            priorities.append(priority)  # differs: TF writes into a tf.TensorArray
        return (
            torch.stack(losses).mean(),
            torch.stack(q_means).mean(),
            torch.stack(priorities),
        )

    def expected_q(self, out: torch.Tensor) -> torch.Tensor:
        """Q-values from the network's output: the output itself, or sum_j
        softmax(logits)_j z_j for C51."""
        if not self.config.distributional:
            return out
        return (F.softmax(out, dim=-1) * self.support).sum(dim=-1)

    def td_targets(self, batch: Batch, noise, target_noise):
        """The TD target r + d Q_target(s', a') (B,), or for C51 the target
        distribution projected (B, N).

        a' = argmax of the online network when ``double``, else of the target.
        d = discount * (1 - terminated): gamma for a one-step transition, gamma^k for
        a k-step one (then r is its k rewards), 0 at a terminal.
        """
        # float32 whatever the precision (the networks' outputs are cast): a bf16
        # target rounds many late TD errors to exactly zero (chapter 44)
        # differs: TF computes the same values and wraps them in tf.stop_gradient
        with torch.no_grad():
            next_target = self.target_q(batch.next_obs, target_noise)
            chooser = (
                self.q(batch.next_obs, noise) if self.config.double else next_target
            )
            next_actions = self.expected_q(chooser).argmax(dim=1)
            # one row per sample keeps shape (B,): a (B, 1) here would broadcast to
            # (B, B) below (claim C08)
            rows = torch.arange(len(next_actions), device=next_actions.device)
            next_out = next_target[rows, next_actions]
            bootstrap = batch.discounts * (1.0 - batch.terminated)
            if not self.config.distributional:
                return batch.rewards + bootstrap * next_out
            return project_distribution(
                F.softmax(next_out, dim=-1), batch.rewards, bootstrap, self.support
            )

    def compute_gradients(self, batch: Batch, noise, target_noise):
        """Importance-weighted loss (Huber on the TD error, or C51's cross-entropy),
        mean Q, priorities, gradients."""
        targets = self.td_targets(batch, noise, target_noise)
        # Q(s, a) (B,), or its logits (B, N)
        rows = torch.arange(len(batch.actions), device=batch.actions.device)
        out = self.q(batch.obs, noise)[rows, batch.actions]
        if self.config.distributional:
            # log-softmax of float32 logits: in bf16 C51's gradient is off by ~6%
            losses = -(targets * F.log_softmax(out, dim=-1)).sum(dim=-1)
            # the priority is the cross-entropy; Rainbow's KL differs from it per
            # sample by the target's entropy
            priorities = losses.detach()
        else:
            losses = F.huber_loss(
                out, targets, delta=self.config.huber_delta, reduction="none"
            )
            priorities = (targets - out).detach().abs()
        loss = (batch.weights * losses).mean()
        self.optimizer.zero_grad(set_to_none=True)
        # fp16: the loss scaled up before its gradients (rlkit/precision.py)
        # differs: TF records the forward pass on a GradientTape and asks it for
        # gradients
        self.scaler.scale(loss).backward()
        # differs: unscaled before the clip; TF scales the clip's bound instead
        self.scaler.unscale_(self.optimizer)
        grads = [p.grad for p in self.q.parameters()]
        if self.config.max_grad_norm is not None:
            clip_by_global_norm_(grads, self.config.max_grad_norm)
        q_mean = self.expected_q(out.detach()).mean()
        return loss.detach(), q_mean, priorities, grads

    def train_step(self, batch: Batch, noise, target_noise):
        """One Adam step on the clipped gradients, then the target update."""
        loss, q_mean, priorities, _ = self.compute_gradients(
            batch, noise, target_noise
        )
        # differs: the gradients wait in each parameter's .grad; Keras takes them as
        # input
        parts.scaled_step(self.optimizer, self.scaler)
        self.gradient_steps += 1
        self.update_target()
        return loss, q_mean, priorities

    def update_target(self) -> None:
        """Polyak-blend after every step, or copy every ``target_update_every``
        steps."""
        if self.config.target_update == "polyak":
            parts.polyak_update([self.target_q], [self.q], self.config.tau)
        elif self.gradient_steps % self.config.target_update_every == 0:
            # differs: TF counts in a tf.Variable; a Python int would freeze when
            # traced
            self.sync_target()

    def sync_target(self) -> None:
        """Hard update: copy the online weights into the target's own tensors
        (a copy, not an alias)."""
        self.target_q.load_state_dict(self.q.state_dict())

    def reset_optimizer(self) -> None:
        """Forget Adam's moment estimates and step count; the weights stay
        (claim C40)."""
        # differs: Keras keeps the moments in variables, zeroed in place
        self.optimizer.state.clear()

    def set_learning_rate(self, learning_rate: float) -> None:
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate

    def get_weights(self) -> list[np.ndarray]:
        """Online weights layer by layer (``W, b``, or
        ``W_mu, b_mu, W_sigma, b_sigma``), each ``W`` as (in, out)."""
        return parts.get_mlp_weights([self.q])

    def set_weights(self, weights: list[np.ndarray]) -> None:
        """Load weights in :meth:`get_weights` order into the online network, then
        sync the target."""
        parts.set_mlp_weights([self.q], weights)
        self.sync_target()

    def save(self, path: str | Path, meta: dict) -> None:
        """A ``.pt`` file with the online weights and rlkit's metadata (loads with
        ``weights_only=True``)."""
        parts.save_model(path, meta, self.q)

    def load(self, path: str | Path) -> None:
        parts.load_model(path, self.q)
        self.sync_target()


def project_distribution(probs, rewards, discounts, support):
    """C51's projection of r + discount * Z onto the support, vectorised (see
    ``rlkit/distributional.py``)."""
    delta = (support[-1] - support[0]) / (support.shape[0] - 1)
    shifted = (rewards[:, None] + discounts[:, None] * support[None, :]).clamp(
        support[0], support[-1]
    )
    # (B, N): where each target atom lands on the grid 0..N-1
    position = (shifted - support[0]) / delta
    atoms = torch.arange(
        support.shape[0], dtype=position.dtype, device=position.device
    )
    # hats[b, i, j] = max(0, 1 - |position[b, i] - j|), built in place: half the time
    # of out-of-place ops
    hats = (
        (position[:, :, None] - atoms[None, None, :])
        .abs_()
        .neg_()
        .add_(1.0)
        .clamp_(min=0.0)
    )
    # m[b, j] = sum_i probs[b, i] hats[b, i, j]
    return torch.bmm(probs[:, None, :], hats).squeeze(1)


#: The name every algorithm family gives its learner (``Agent.learner_class`` looks
#: it up).
Learner = DQNLearner
