"""Training state on disk without pickle: nested dicts and lists of numbers, strings and numpy arrays.

A resumable checkpoint has to hold things of many kinds: replay arrays, optimizer moments, random-generator
states (with 128-bit integers), counters, an environment's physics. Pickle would hold them all, and would
also run any code a tampered file asks it to. Here the arrays go into an ``.npz`` archive read with
``allow_pickle=False``, and everything else into one JSON document stored beside them in the same archive,
with each array replaced by a reference to its entry: loading can only ever produce data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from rlkit.errors import CheckpointError

_ARRAY = "__array__"
_DOCUMENT = "__state__.json"


def generator_state(rng: np.random.Generator) -> dict:
    """A numpy generator's state as plain data (its bit generator's ``state`` dict)."""
    return {"__generator__": rng.bit_generator.state}


def restore_generator(rng: np.random.Generator, state: dict) -> None:
    """Set ``rng`` (in place: every holder of a reference continues the same stream) to a saved state."""
    rng.bit_generator.state = state["__generator__"]


def save_state(path: str | Path, tree: Any) -> Path:
    """Write ``tree`` to ``path`` (an ``.npz`` file), atomically: a crash keeps the previous file whole."""
    from rlkit.atomic import atomic_path

    arrays: dict[str, np.ndarray] = {}

    def encode(node: Any) -> Any:
        if isinstance(node, np.ndarray):
            key = f"a{len(arrays)}"
            arrays[key] = node
            return {_ARRAY: key}
        if isinstance(node, dict):
            if not all(isinstance(k, str) for k in node):
                raise TypeError(f"state keys must be strings, got {list(node)[:3]}")
            return {k: encode(v) for k, v in node.items()}
        if isinstance(node, list | tuple):
            return [encode(v) for v in node]
        if isinstance(node, np.generic):
            return node.item()
        if node is None or isinstance(node, bool | int | float | str):
            return node
        raise TypeError(f"cannot store {type(node).__name__} in a training state")

    document = json.dumps(encode(tree))
    path = Path(path)
    with atomic_path(path) as temporary, open(temporary, "wb") as file:
        np.savez(file, **arrays, **{_DOCUMENT: np.array(document)})
    return path


def load_state(path: str | Path) -> Any:
    """Read a tree written by :func:`save_state` (no pickle involved)."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"training state '{path}' does not exist")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files if key != _DOCUMENT}
            document = json.loads(str(archive[_DOCUMENT]))
    except Exception as exc:  # a truncated or foreign file fails in zipfile, numpy or json, each its own way
        raise CheckpointError(
            f"'{path}' is not a readable rlkit training state ({type(exc).__name__}: {exc}); it is truncated or was "
            "not written by rlkit: resume from another checkpoint, or load the weights alone with rlkit.load"
        ) from None

    def decode(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {_ARRAY}:
                return arrays[node[_ARRAY]]
            return {k: decode(v) for k, v in node.items()}
        if isinstance(node, list):
            return [decode(v) for v in node]
        return node

    return decode(document)


def _simple(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | float | str | np.ndarray | np.generic):
        return True
    if isinstance(value, list | tuple):
        return all(_simple(item) for item in value)
    return False


def object_state(
    obj: Any, names: tuple[str, ...] | None = None, skip: tuple[str, ...] = (), nested: tuple[str, ...] = ()
) -> dict:
    """The plain-data attributes of ``obj``: numbers, strings, arrays, lists of them and numpy generators,
    and the attributes named in ``nested`` as objects of their own (their plain data, recursively).

    ``names`` lists the attributes to save (the object's own account of its state, as a buffer's
    ``state_dict`` gives it); without it, every attribute of those kinds is saved and anything else (an
    environment, a framework object, a callable) left out: the way to save objects rlkit does not own, such
    as a gymnasium wrapper chain.
    """
    state = {}
    for name in vars(obj) if names is None else names:
        value = getattr(obj, name)
        if name in skip:
            continue
        if name in nested and value is not None:
            state[name] = {"object": object_state(value)}
        elif isinstance(value, np.random.Generator):
            state[name] = generator_state(value)
        elif _simple(value):
            state[name] = {"value": value, "tuple": isinstance(value, tuple)}
        elif names is not None:
            raise TypeError(f"{type(obj).__name__}.{name} ({type(value).__name__}) is no state rlkit can save")
    return state


def restore_object(obj: Any, state: dict) -> None:
    """Put back what :func:`object_state` saved; arrays and generators are restored in place where they exist
    (other holders of the same array or generator see the restored values)."""
    for name, entry in state.items():
        current = getattr(obj, name, None)
        if "__generator__" in entry:
            restore_generator(current, entry)
        elif "object" in entry:
            restore_object(current, entry["object"])
        else:
            value = entry["value"]
            if isinstance(current, np.ndarray) and isinstance(value, np.ndarray) and current.shape == value.shape:
                current[...] = value
            else:
                setattr(obj, name, tuple(value) if entry["tuple"] else value)
