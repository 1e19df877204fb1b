"""What every algorithm's config shares: validation with clear errors, overrides by name, per-env defaults."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from rlkit.errors import RlkitError, did_you_mean
from rlkit.hyperparams import check_types

#: What ``hidden_sizes`` must be (every algorithm's networks need at least one hidden layer).
HIDDEN_SIZES_RULE = "a non-empty sequence of positive layer widths, e.g. (64, 64)"


@dataclass
class AlgorithmConfig:
    """Base of the config dataclasses. Subclasses declare fields (with ``hidden_sizes``) and :meth:`checks`."""

    #: Per-environment defaults that differ from the class defaults (see :meth:`for_env`).
    env_defaults: ClassVar[dict[str, dict]] = {}

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
        for ok, name, rule in self.checks():
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
