"""Everything a learner needs to continue training exactly: networks (targets too), optimizers, counters.

A checkpoint for acting needs the online weights only; continuing a run needs the rest too: the target
networks (they lag the online ones), Adam's moment estimates and step counts (a fresh optimizer takes
sign-sized first steps), the gradient-step counter (TD3's delay, hard target copies), SAC's temperature.
Each learner names these parts itself, in its ``TRAINING_STATE``, so what a checkpoint holds is written down
in the class that owns it; :class:`TrainingState` gives it ``state_dict`` / ``load_state_dict`` over them, and
the two functions here turn the named parts into numpy arrays and plain data for :mod:`rlkit.state` and back:
torch modules and optimizers, Keras models, optimizers and variables, lists of them, Python counters, numpy
generators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rlkit.errors import CheckpointError
from rlkit.state import generator_state, restore_generator


class TrainingState:
    """``state_dict`` / ``load_state_dict`` of a learner over the attributes its ``TRAINING_STATE`` names."""

    TRAINING_STATE: tuple[str, ...] = ()
    #: torch's fp16 loss scalers (``torch.amp.GradScaler``), saved beside the rest and restored where a state
    #: holds them: states written before rlkit had mixed precision have none, and their runs needed none.
    #: (Keras' ``LossScaleOptimizer`` keeps its scale among the optimizer's own variables.)
    LOSS_SCALERS: tuple[str, ...] = ()

    def state_dict(self) -> dict[str, Any]:
        return learner_state(self, (*self.TRAINING_STATE, *self.LOSS_SCALERS))

    def load_state_dict(self, state: dict[str, Any]) -> None:
        load_learner_state(self, state, self.TRAINING_STATE)
        load_learner_state(self, state, tuple(name for name in self.LOSS_SCALERS if name in state))


def learner_state(learner, names: tuple[str, ...]) -> dict[str, Any]:
    """The learner's parts ``names`` as numpy arrays and plain data, keyed by attribute name."""
    dump = _torch_dump if learner.framework == "torch" else _tf_dump
    state = {}
    for name in names:
        value = getattr(learner, name)
        entry = dump(value)
        if entry is None and isinstance(value, list | tuple) and value:
            items = [dump(item) for item in value]
            entry = None if any(item is None for item in items) else {"list": items}
        if entry is None and isinstance(value, np.random.Generator):
            entry = generator_state(value)
        if entry is None and isinstance(value, int | float) and not isinstance(value, bool):
            entry = {"number": value}
        if entry is None:
            raise TypeError(f"{type(learner).__name__}'s {name!r} ({type(value).__name__}) is no state rlkit can save")
        state[name] = entry
    return state


def load_learner_state(learner, state: dict[str, Any], names: tuple[str, ...]) -> None:
    """Restore the parts ``names`` that :func:`learner_state` saved into a learner built with the same config
    and spaces (a state may hold more: layout-2 files saved every attribute of a known type)."""
    missing = [name for name in names if name not in state]
    if missing:
        learner_name = f"{type(learner).__module__}.{type(learner).__name__}"
        raise CheckpointError(f"the training state has no {', '.join(missing)} for {learner_name}")
    load = _torch_load if learner.framework == "torch" else _tf_load
    for name in names:
        value, entry = getattr(learner, name), state[name]
        if "number" in entry:
            setattr(learner, name, entry["number"])
        elif "__generator__" in entry:
            restore_generator(value, entry)
        elif "list" in entry:
            for item, item_entry in zip(value, entry["list"], strict=True):
                load(item, item_entry)
        else:
            load(value, entry)


def _torch_dump(value) -> dict | None:
    import torch

    if isinstance(value, torch.nn.Module):
        return {"module": {k: t.detach().cpu().numpy().copy() for k, t in value.state_dict().items()}}
    # an optimizer by what it does (torch.optim's, and rlkit's FusedAdam, which has the same state_dict)
    if hasattr(value, "param_groups") and hasattr(value, "load_state_dict"):
        saved = value.state_dict()
        per_param = {
            str(index): {k: (t.detach().cpu().numpy().copy() if torch.is_tensor(t) else t) for k, t in s.items()}
            for index, s in saved["state"].items()
        }
        groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in saved["param_groups"]]
        return {"optimizer": {"state": per_param, "param_groups": groups}}
    if isinstance(value, torch.Tensor):
        return {"tensor": value.detach().cpu().numpy().copy()}
    if isinstance(value, torch.amp.GradScaler):  # its scale and growth count; {} while disabled
        return {"scaler": value.state_dict()}
    return None


def _torch_load(value, entry: dict) -> None:
    import torch

    if "module" in entry:
        value.load_state_dict({k: torch.from_numpy(np.array(a)) for k, a in entry["module"].items()})
    elif "optimizer" in entry:
        saved = entry["optimizer"]
        state = {
            int(index): {k: (torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v) for k, v in s.items()}
            for index, s in saved["state"].items()
        }
        value.load_state_dict({"state": state, "param_groups": saved["param_groups"]})
    elif "tensor" in entry:
        with torch.no_grad():
            value.copy_(torch.from_numpy(np.array(entry["tensor"])))
    elif "scaler" in entry and entry["scaler"]:
        value.load_state_dict({k: v.item() if isinstance(v, np.ndarray) else v for k, v in entry["scaler"].items()})


def _tf_dump(value) -> dict | None:
    import keras
    import tensorflow as tf

    if isinstance(value, keras.optimizers.Optimizer):
        return {"optimizer": [np.array(variable.numpy()) for variable in value.variables]}
    if isinstance(value, keras.Model | keras.layers.Layer):
        return {"model": [np.array(w) for w in value.get_weights()]}
    if isinstance(value, tf.Variable):
        return {"variable": np.array(value.numpy())}
    return None


def _tf_load(value, entry: dict) -> None:
    if "optimizer" in entry:
        for variable, array in zip(value.variables, entry["optimizer"], strict=True):
            variable.assign(array)
    elif "model" in entry:
        value.set_weights(entry["model"])
    elif "variable" in entry:
        value.assign(entry["variable"])
