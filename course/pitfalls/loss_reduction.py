"""Claim C18: summing per-environment A2C losses instead of averaging scales the gradient by the number of
environments and makes training explode.

rlkit's A2C averages every loss term over the rollout. Summing over the ``N = num_envs`` environments the
mean loss of each is ``N`` times that average (exactly when every environment contributes the same number of
steps; rlkit drops gymnasium's autoreset steps, one per episode that ends within a rollout). The
experiment therefore trains A2C on CartPole with the loss multiplied by ``num_envs`` — a learner subclass,
the training loop unchanged — against the plain average, under three optimiser settings:

* plain SGD without gradient clipping: the summed loss's step is then exactly that of the mean loss with a
  learning rate ``N`` times larger, which is where the claim should show;
* Adam without clipping: Adam divides each step by a running root-mean-square of the gradient, so scaling
  the loss by ``N`` changes only the role of ``eps`` (``eps / N`` in effect); sum and mean should coincide;
* Adam with rlkit's default global gradient-norm clip (``max_grad_norm = 0.5``): clipping is not invariant
  to the scale of the gradient, so sum and mean can differ here, unless the averaged gradient is clipped
  too (then both become the same unit-norm direction); the experiment records how often the clip fires.

Only the torch twin is used: the reduction and the optimiser are the same arithmetic in both frameworks.
"""

from __future__ import annotations

import numpy as np

from rlkit.callbacks import Callback
from rlkit.numerics import NonFiniteError

#: name -> (optimiser, clip the global gradient norm at rlkit's max_grad_norm)
SETTINGS: dict[str, tuple[str, bool]] = {
    "SGD, no clipping": ("sgd", False),
    "Adam, no clipping": ("adam", False),
    "Adam, clipped (rlkit)": ("adam", True),
}
#: SGD's step size for the averaged loss: chosen so that the mean version learns within the budget.
SGD_LEARNING_RATE = 0.05


def a2c_agent_class(reduction: str, optimizer: str) -> type:
    """An A2C agent class whose torch learner sums (``"sum"``) or averages (``"mean"``) over environments,
    and steps with ``"adam"`` (rlkit's) or ``"sgd"`` (plain ``torch.optim.SGD``, no momentum)."""
    import torch

    from rlkit.algos.a2c import A2CAgent
    from rlkit.algos.a2c import torch as a2c_torch
    from rlkit.algos.actor_critic.torch import parameters

    if reduction not in ("mean", "sum") or optimizer not in ("adam", "sgd"):
        raise ValueError(f"reduction must be 'mean' or 'sum', optimizer 'adam' or 'sgd'; got {reduction}, {optimizer}")

    base = torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam

    class RecordingOptimizer(base):
        """The optimiser, recording the norm of the gradient it is given (after any clipping)."""

        def __init__(self, params, **kwargs):
            params = list(params)
            super().__init__(params, **kwargs)
            self.recorded_params, self.grad_norms = params, []

        def step(self, closure=None):
            grads = [p.grad.flatten() for p in self.recorded_params if p.grad is not None]
            self.grad_norms.append(float(torch.cat(grads).norm()))
            return super().step(closure)

    class Learner(a2c_torch.Learner):
        def __init__(self, obs_dim, action_dim, discrete, config, seed=0, device="cpu", image=None):
            super().__init__(obs_dim, action_dim, discrete, config, seed, device=device, image=image)
            # SGD without momentum, or the same Adam as rlkit's learner (lr, eps=1e-8)
            extra = {} if optimizer == "sgd" else {"eps": 1e-8}
            self.optimizer = RecordingOptimizer(parameters(self.model), lr=config.learning_rate, **extra)

        def loss(self, *args):
            loss, metrics = super().loss(*args)
            # the sum over environments of each environment's mean loss = num_envs x the overall mean
            return (loss * self.config.num_envs if reduction == "sum" else loss), metrics

    class Agent(A2CAgent):
        @classmethod
        def learner_class(cls, framework: str):
            if framework != "torch":
                raise ValueError("the reduction experiment runs the torch learner only")
            return Learner

    return Agent


class KeepRun(Callback):
    """Keeps a reference to the run, so its history and agent can be read even after it stopped with an error."""

    def on_start(self, run) -> None:
        self.run = run


def train_reduction(
    reduction: str,
    optimizer: str,
    clip: bool,
    seed: int,
    total_steps: int = 30_000,
    learning_rate: float | None = None,
) -> dict:
    """One A2C run on CartPole-v1 at A2C's class defaults, but for the reduction, optimiser and clipping.

    The class defaults (16 environments x 8 steps, raw advantages) are claim C18's setting: the summed loss
    is 16 times the average. CartPole's own defaults (``A2CConfig.env_defaults``) standardise the advantages,
    which hides most of a scale. The class's are pinned here so the experiment stays the one measured.

    ``learning_rate`` defaults to rlkit's (1e-3) for Adam and to :data:`SGD_LEARNING_RATE` for SGD. Returns
    the training returns, the last 20 episodes' mean return, whether every loss and weight stayed finite (a
    run whose update turns non-finite is stopped there by rlkit: ``stopped_at`` is that step), and the
    gradient norms the optimiser was given.
    """
    from rlkit.algos.a2c import A2CConfig
    from rlkit.algos.training import train_agent

    lr = learning_rate or (SGD_LEARNING_RATE if optimizer == "sgd" else A2CConfig().learning_rate)
    config = A2CConfig.from_overrides(learning_rate=lr, max_grad_norm=0.5 if clip else float("inf"))
    agent_class = a2c_agent_class(reduction, optimizer)
    watch = KeepRun()
    try:  # a diverging run stops at its first non-finite loss or weight (rlkit.numerics) ...
        train_agent(agent_class, "CartPole-v1", "torch", seed, total_steps, config, progress=False, callbacks=[watch])
        finite = True
    except NonFiniteError:  # ... and what it did until then is still in the callback's view of the run
        finite = False
    history, learner = watch.run.history, watch.run.agent.learner
    steps, returns = history.series("episode_return")
    finite = finite and all(np.isfinite(w).all() for w in learner.get_weights())
    norms = np.asarray(learner.optimizer.grad_norms)
    return {
        "steps": steps,
        "returns": returns,
        "final_return": float(returns[-20:].mean()) if len(returns) else float("nan"),
        "finite": bool(finite),
        "stopped_at": watch.run.step,
        # the gradient norm each step used (after clipping), and the share of steps the clip shortened
        "median_grad_norm": float(np.nanmedian(norms)) if np.isfinite(norms).any() else float("inf"),
        "clipped_fraction": float(np.mean(norms >= config.max_grad_norm * (1 - 1e-4))),
    }


def reduction_runs(seeds: tuple[int, ...] = (0, 1, 2), total_steps: int = 30_000) -> dict[str, dict[str, list[dict]]]:
    """Every setting of :data:`SETTINGS` x {"mean", "sum"} x seed: ``{setting: {reduction: [run, ...]}}``."""
    return {
        name: {
            reduction: [train_reduction(reduction, optimizer, clip, seed, total_steps) for seed in seeds]
            for reduction in ("mean", "sum")
        }
        for name, (optimizer, clip) in SETTINGS.items()
    }


def identical_episodes(run_a: dict, run_b: dict) -> int:
    """How many episodes, from the first, the two runs played with exactly the same returns."""
    n = min(len(run_a["returns"]), len(run_b["returns"]))
    differ = np.nonzero(run_a["returns"][:n] != run_b["returns"][:n])[0]
    return int(differ[0]) if len(differ) else n
