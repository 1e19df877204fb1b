"""Hyperparameters as people set them: typed checks, documented command-line flags, YAML files.

Every algorithm's hyperparameters are the fields of its config dataclass, documented by the ``#:`` comment
above each field (the Sphinx convention, so the same text serves the API docs). This module turns that one
source into everything else:

- :func:`check_types` names the field and the expected type when a value has the wrong one;
- :func:`add_config_arguments` builds typed ``argparse`` flags (``--learning-rate 5e-4``, ``--no-double``)
  whose ``--help`` shows each field's type, default and documentation;
- :func:`dump_yaml` writes a run's resolved configuration as YAML, which
  :func:`rlkit.config_files.load_yaml` reads back (as it reads RL-Zoo files keyed by environment id).

argparse, not ``tyro``: the flags come from the dataclass either way, but argparse is in the standard
library (no extra dependency in the two-command install), and rlkit needs control over two things tyro
decides for itself: one flag per field without nesting, and the ``#:`` comments as help text.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import numbers
import re
import types
import typing
from functools import cache
from typing import Any

import numpy as np

from rlkit.errors import RlkitError

_DOC_LINE = re.compile(r"^\s*#:\s?(.*)$")
_FIELD_LINE = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*:\s*[^=]+=")


@cache
def field_types(config_class: type) -> dict[str, Any]:
    """Field name -> resolved type annotation (``float``, ``int | None``, ``tuple[int, ...]``, ...)."""
    hints = typing.get_type_hints(config_class)
    return {field.name: hints[field.name] for field in dataclasses.fields(config_class)}


@cache
def field_docs(config_class: type) -> dict[str, str]:
    """Field name -> the ``#:`` comment above it, read from the source of the class and its bases.

    A field directly below another without a comment of its own shares that comment (``final_lr_fraction``
    under ``learning_rate``), as the source reads.
    """
    docs: dict[str, str] = {}
    for klass in reversed(config_class.__mro__):  # bases first: a subclass's own comment wins
        if not dataclasses.is_dataclass(klass):
            continue
        block: list[str] = []  # the #: lines read since the last field
        shared = ""  # the comment of the group of fields written right below it
        for line in inspect.getsource(klass).splitlines():
            if match := _DOC_LINE.match(line):
                block.append(match[1].strip())
            elif match := _FIELD_LINE.match(line):
                shared, block = (" ".join(block), []) if block else (shared, block)
                if shared:
                    docs[match[1]] = shared
            else:  # a blank line or other code ends the group
                block, shared = [], ""
    return {name: docs.get(name, "") for name in field_types(config_class)}


def type_name(annotation: Any) -> str:
    """How a type reads in an error or a help line: ``float``, ``int or None``, ``tuple of int``."""
    args = typing.get_args(annotation)
    if _is_union(annotation):
        return " or ".join("None" if arg is type(None) else type_name(arg) for arg in args)
    if typing.get_origin(annotation) is tuple:
        return f"tuple of {type_name(args[0])}"
    return getattr(annotation, "__name__", str(annotation))


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def coerce(value: Any, annotation: Any, name: str, owner: str) -> Any:
    """``value`` as the declared type, or :class:`RlkitError` naming the field, the type and what arrived.

    Conversions that lose nothing are made (an int for a float field, a list for a tuple field); anything else
    (``"fast"`` for a float, ``1.5`` for an int, ``1`` for a bool) is refused.
    """

    def refuse() -> RlkitError:
        return RlkitError(
            f"{owner} hyperparameter {name} must be {type_name(annotation)}, got {value!r} ({type(value).__name__})"
        )

    if _is_union(annotation):
        if value is None and type(None) in typing.get_args(annotation):
            return None
        for arg in typing.get_args(annotation):
            if arg is not type(None):
                try:
                    return coerce(value, arg, name, owner)
                except RlkitError:
                    pass
        raise refuse()
    if typing.get_origin(annotation) is tuple:
        if not isinstance(value, list | tuple):
            raise refuse()
        (item,) = {arg for arg in typing.get_args(annotation) if arg is not Ellipsis}
        try:
            return tuple(coerce(v, item, name, owner) for v in value)
        except RlkitError:
            raise refuse() from None
    is_bool = isinstance(value, bool | np.bool_)
    if annotation is bool:
        if is_bool:
            return bool(value)
        raise refuse()
    if annotation is int:
        if isinstance(value, numbers.Integral) and not is_bool:
            return int(value)
        if isinstance(value, numbers.Real) and not is_bool and float(value).is_integer():  # 1e5 for 100000
            return int(value)
        raise refuse()
    if annotation is float:
        if isinstance(value, numbers.Real) and not is_bool:
            return float(value)
        raise refuse()
    if annotation is str:
        if isinstance(value, str):
            return value
        raise refuse()
    return value


def check_types(config: Any) -> None:
    """Coerce every field of a config dataclass in place to its declared type, or raise naming the field."""
    owner = type(config).__name__.removesuffix("Config")
    for name, annotation in field_types(type(config)).items():
        setattr(config, name, coerce(getattr(config, name), annotation, name, owner))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _parse_optional(parse):
    def parse_or_none(text: str):
        return None if text.lower() in ("none", "null") else parse(text)

    parse_or_none.__name__ = parse.__name__
    return parse_or_none


def add_config_arguments(parser: argparse.ArgumentParser, config_class: type, env_id: str | None = None) -> None:
    """One typed flag per field of ``config_class``, its help the field's type, default and documentation.

    Every flag defaults to ``argparse.SUPPRESS``: only the flags a user types reach the config, so the
    per-environment defaults (``env_defaults``) still apply to the rest.
    """
    group = parser.add_argument_group(
        f"{config_class.__name__} hyperparameters",
        "Defaults shown are the class defaults" + (f" (for {env_id} where it has its own)" if env_id else "") + ".",
    )
    defaults = config_class.for_env(env_id).to_dict() if env_id else config_class().to_dict()
    docs = field_docs(config_class)
    for name, annotation in field_types(config_class).items():
        doc = docs[name].replace("%", "%%")
        help_text = f"[{type_name(annotation)}, default {defaults[name]!r}] {doc}"
        optional = _is_union(annotation) and type(None) in typing.get_args(annotation)
        base = (
            next((a for a in typing.get_args(annotation) if a is not type(None)), annotation)
            if optional
            else annotation
        )
        if base is bool:
            group.add_argument(
                _flag(name), dest=name, action=argparse.BooleanOptionalAction, default=argparse.SUPPRESS, help=help_text
            )
        elif typing.get_origin(base) is tuple:
            group.add_argument(
                _flag(name), dest=name, nargs="+", type=int, default=argparse.SUPPRESS, metavar="N", help=help_text
            )
        else:
            parse = _parse_optional(base) if optional else base
            metavar = base.__name__.upper() + ("|none" if optional else "")
            group.add_argument(
                _flag(name), dest=name, type=parse, default=argparse.SUPPRESS, metavar=metavar, help=help_text
            )


def dump_yaml(settings: dict[str, Any]) -> str:
    """YAML text of a run's resolved settings, readable back by :func:`load_yaml` (and by ``--config``)."""
    import yaml

    plain = {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}
    return yaml.safe_dump(plain, sort_keys=False)


def markdown_table(settings: dict[str, Any]) -> str:
    """The settings as a two-column markdown table (TensorBoard's Text tab renders it)."""
    rows = "\n".join(f"| {key} | `{value!r}` |" for key, value in settings.items())
    return f"| setting | value |\n|---|---|\n{rows}"
