"""What every algorithm's config shares (validation with clear errors, overrides by name, per-env defaults), and
the fields of every algorithm that learns from a replay buffer, declared once."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from rlkit.errors import RlkitError, did_you_mean
from rlkit.hyperparams import check_types
from rlkit.precision import PRECISIONS

#: What ``hidden_sizes`` must be (every algorithm's networks need at least one hidden layer).
HIDDEN_SIZES_RULE = "a non-empty sequence of positive layer widths, e.g. (64, 64)"


@dataclass
class AlgorithmConfig:
    """Base of the config dataclasses. Subclasses declare fields (with ``hidden_sizes``) and :meth:`checks`."""

    #: Per-environment defaults that differ from the class defaults (see :meth:`for_env`).
    env_defaults: ClassVar[dict[str, dict]] = {}

    #: The arithmetic of the networks' layers: ``fp32``, or mixed precision with ``bf16`` or ``fp16`` layers
    #: (weights, optimizer, targets and losses stay float32; ``fp16`` adds dynamic loss scaling). A device that
    #: cannot compute in it is refused when the learner is built (``rlkit/precision.py``).
    precision: str = "fp32"

    def __post_init__(self) -> None:
        check_types(self)  # "fast" for learning_rate names the field and the type, before any rule compares it
        self.validate()

    @classmethod
    def algorithm(cls) -> str:
        return cls.__name__.removesuffix("Config")

    def checks(self) -> list[tuple[bool, str, str]]:
        """``(condition, field, rule)`` for every constraint on the hyperparameters."""
        raise NotImplementedError

    def validate(self) -> None:
        """Raise :class:`RlkitError` naming the first out-of-range hyperparameter and its rule."""
        precision = (self.precision in PRECISIONS, "precision", "one of " + ", ".join(map(repr, PRECISIONS)))
        for ok, name, rule in [precision, *self.checks()]:
            if not ok:
                # a rule over several fields ("eps_start/eps_end") reports each one's value
                parts = name.split("/")
                got = ", ".join(f"{part}={getattr(self, part, None)!r}" for part in parts) if len(parts) > 1 else None
                got = got or repr(getattr(self, name, None))
                raise RlkitError(f"{self.algorithm()} hyperparameter {name} must be {rule}, got {got}")

    @classmethod
    def from_overrides(cls, **overrides) -> AlgorithmConfig:
        """A config with some fields changed; unknown names fail with a suggestion."""
        known = {f.name for f in fields(cls)}
        for name in overrides:
            if name not in known:
                raise RlkitError(f"{cls.algorithm()} has no hyperparameter '{name}'.{did_you_mean(name, known)}")
        return cls(**overrides)

    @classmethod
    def for_env(cls, env_id: str, **overrides) -> AlgorithmConfig:
        """The defaults for ``env_id`` (class defaults, then ``env_defaults``), then the user's overrides."""
        return cls.from_overrides(**{**cls.env_defaults.get(env_id, {}), **overrides})

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def learning_rate_schedule(self, plan: int):
        """The learning rate per environment step of a run planned for ``plan`` steps (a schedule of
        :mod:`rlkit.schedules`), which the training loop sets before each update; None: the learner keeps the
        step sizes it was built with."""
        return None


@dataclass
class ReplayConfig(AlgorithmConfig):
    """What every algorithm that learns from a replay buffer shares: DQN (and Rainbow), DDPG, TD3 and SAC.

    The fields are declared here once, with the defaults of DDPG, TD3 and SAC; a family that needs another
    default (DQN's bursts, buffer and target blend) declares the field again beside its reason, which keeps
    the field's place and its checks.
    """

    #: Hidden layer widths of every network (ReLU).
    hidden_sizes: tuple[int, ...] = (64, 64)
    #: Adam step size of every network (an algorithm with several networks can set each one's apart).
    learning_rate: float = 1e-3
    #: Discount factor.
    gamma: float = 0.99
    #: Replay capacity in transitions.
    buffer_size: int = 100_000
    #: Transitions per gradient step.
    batch_size: int = 256
    #: Environment steps of random play (uniformly random actions) before the first gradient step.
    learning_starts: int = 1_000
    #: Environment steps between bursts of gradient steps.
    train_every: int = 200
    #: Gradient steps per burst.
    gradient_steps: int = 200
    #: Polyak rate of the target networks: target <- (1 - tau) * target + tau * online after each update.
    tau: float = 0.005
    #: Multi-step returns: each stored transition carries n rewards and bootstraps from the observation n
    #: steps later with discount gamma^n (shorter at episode ends; see ``rlkit/nstep.py``). 1 = one-step.
    n_step: int = 1
    #: Prioritized replay: sample transitions in proportion to |TD error|^per_alpha and weight their loss by
    #: importance weights whose exponent beta anneals from ``per_beta_start`` to 1 over training.
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
            (self.learning_rate > 0, "learning_rate", "> 0"),
            (0 <= self.gamma <= 1, "gamma", "in [0, 1]"),
            (self.buffer_size >= self.batch_size, "buffer_size", ">= batch_size"),
            (self.batch_size > 0, "batch_size", "> 0"),
            (self.learning_starts >= 0, "learning_starts", ">= 0"),
            (self.train_every > 0, "train_every", "> 0"),
            (self.gradient_steps > 0, "gradient_steps", "> 0"),
            (0 < self.tau <= 1, "tau", "in (0, 1]"),
            (isinstance(self.n_step, int) and self.n_step >= 1, "n_step", "an int >= 1"),
            (self.per_alpha >= 0, "per_alpha", ">= 0"),
            (0 <= self.per_beta_start <= 1, "per_beta_start", "in [0, 1]"),
            (self.num_envs > 0, "num_envs", "> 0"),
            (self.eval_every > 0, "eval_every", "> 0"),
            (self.eval_episodes > 0, "eval_episodes", "> 0"),
        ]
