"""Tensor contracts: the declared shape, dtype and range of every field of a training batch.

The classic silent DQN bug (claim C08) is a reward of shape ``[B]`` meeting next-state values of shape
``[B, 1]``: broadcasting turns the TD target into a ``[B, B]`` matrix and nothing raises. A contract names
what each field must look like and checks it at the boundary where a batch enters an update step, so a
wrong batch fails at once with a message that says which field, what was expected, what arrived and the
likely fix.

Shapes are tuples of ints and symbols. A symbol such as ``"B"`` binds on first use inside one check and
must then agree across fields, so ``("B",)`` for rewards and ``("B", "obs_dim")`` for observations also
checks that every field has the same batch size. Symbols can be bound up front (``obs_dim=4``).

The check works on numpy arrays, torch tensors and TensorFlow tensors alike: it only reads ``.shape`` and
``.dtype`` (and, for ranges, the values), so it never imports a framework.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rlkit.errors import ContractError

Dim = int | str


#: Names of the dtypes already seen: numpy computes ``dtype.name`` anew on every read, and the check runs
#: once per batch, so the name is looked up by the (hashable) dtype instead.
_DTYPE_NAMES: dict[Any, str] = {}


def dtype_name(value: Any) -> str:
    """The dtype of a numpy array, torch tensor or tf tensor as a plain name such as ``'float32'``."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return type(value).__name__
    with contextlib.suppress(KeyError, TypeError):  # TypeError: an unhashable dtype, named each time
        return _DTYPE_NAMES[dtype]
    name = getattr(dtype, "name", None)  # numpy and TensorFlow dtypes
    if not isinstance(name, str):
        name = str(dtype).replace("torch.", "")  # torch.float32 -> float32
    with contextlib.suppress(TypeError):
        _DTYPE_NAMES[dtype] = name
    return name


def shape_of(value: Any) -> tuple[int, ...]:
    """The shape as a tuple of ints, for numpy arrays and torch or tf tensors."""
    if isinstance(value, np.ndarray):
        return value.shape
    shape = getattr(value, "shape", None)
    if shape is None:
        return np.shape(value)
    return tuple(int(d) for d in shape)


@dataclass(frozen=True)
class Field:
    """One batch field: its shape (ints and symbols), accepted dtypes, and an optional closed value range."""

    shape: tuple[Dim, ...]
    dtypes: tuple[str, ...]
    low: float | None = None
    high: float | None = None
    doc: str = ""
    #: An optional field may be absent (its consumer fills a default); when present it is checked.
    optional: bool = False

    def describe(self, bound: Mapping[str, int]) -> str:
        dims = ", ".join(str(bound.get(d, d)) if isinstance(d, str) else str(d) for d in self.shape)
        return f"({dims}{',' if len(self.shape) == 1 else ''}) {'|'.join(self.dtypes)}"


@dataclass
class TensorContract:
    """The fields an algorithm's update step accepts, checked by :meth:`check`.

    ``check_ranges`` reads the values (``min``/``max``), which for framework tensors means a device sync;
    the training loops check numpy batches before conversion, where it costs a few microseconds.
    """

    owner: str
    fields: dict[str, Field]
    bound: dict[str, int] = field(default_factory=dict)
    check_ranges: bool = True

    def bind(self, **dims: int) -> TensorContract:
        """A copy with symbolic dimensions fixed, e.g. ``contract.bind(obs_dim=4, n_actions=2)``."""
        return TensorContract(self.owner, self.fields, {**self.bound, **dims}, self.check_ranges)

    def check(self, batch: Mapping[str, Any]) -> None:
        """Raise :class:`ContractError` on the first field that breaks the contract."""
        missing = [name for name, spec in self.fields.items() if name not in batch and not spec.optional]
        if missing:
            raise ContractError(
                f"batch is missing {missing}; {self.owner} expects fields {sorted(self.fields)}, got {sorted(batch)}"
            )
        bound = dict(self.bound)
        for name, spec in self.fields.items():
            if name in batch:
                self._check_field(name, spec, batch[name], bound)

    def _check_field(self, name: str, spec: Field, value: Any, bound: dict[str, int]) -> None:
        shape = shape_of(value)
        new = self._new_bindings(spec.shape, shape, bound) if len(shape) == len(spec.shape) else None
        if new is None:
            raise ContractError(
                f"batch['{name}'] has shape {shape}; {self.owner} expects {spec.describe(bound)}"
                f"{_shape_hint(spec.shape, shape)}"
            )
        dtype = dtype_name(value)
        if dtype not in spec.dtypes:
            raise ContractError(
                f"batch['{name}'] has dtype {dtype}; {self.owner} expects {spec.describe(bound)}"
                f" — convert with .astype(np.{spec.dtypes[0]}) before the update"
            )
        if self.check_ranges and (spec.low is not None or spec.high is not None) and np.size(value):
            values = np.asarray(value)
            lo, hi = values.min(), values.max()
            if (spec.low is not None and lo < spec.low) or (spec.high is not None and hi > spec.high):
                raise ContractError(
                    f"batch['{name}'] has values in [{lo}, {hi}]; {self.owner} expects values in "
                    f"[{spec.low}, {spec.high}]"
                )
        bound.update(new)  # messages above describe the field with the dimensions bound before it

    @staticmethod
    def _new_bindings(
        expected: tuple[Dim, ...], actual: tuple[int, ...], bound: Mapping[str, int]
    ) -> dict[str, int] | None:
        """The symbolic dimensions this field binds, or ``None`` if its shape disagrees with ``bound``."""
        new: dict[str, int] = {}
        for want, got in zip(expected, actual, strict=True):
            if isinstance(want, str):
                if new.setdefault(want, bound.get(want, got)) != got:
                    return None
            elif want != got:
                return None
        return new

    def describe(self) -> str:
        """A table of the contract, one field a line, for docs and notebooks."""
        width = max(len(n) for n in self.fields)
        lines = [f"{self.owner} batch contract:"]
        for name, spec in self.fields.items():
            rng = ""
            if spec.low is not None or spec.high is not None:
                rng = f" in [{spec.low}, {spec.high}]"
            doc = f"{spec.doc} (optional)" if spec.optional else spec.doc
            lines.append(f"  {name:<{width}}  {spec.describe(self.bound)}{rng}  {doc}".rstrip())
        return "\n".join(lines)


def _shape_hint(expected: tuple[Dim, ...], actual: tuple[int, ...]) -> str:
    """Name the usual fix when a shape is off by a trailing axis of size 1."""
    if len(actual) == len(expected) + 1 and actual[-1] == 1:
        return " — did you forget .squeeze(-1)?"
    if len(actual) + 1 == len(expected) and expected[-1] == 1:
        return " — did you forget [..., None] (unsqueeze(-1))?"
    return ""
