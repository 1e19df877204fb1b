"""Claim C30: float64 observations meeting float32 weights, and float32 vs float64 update sizes.

Three measurements: what torch does with a float64 batch in a float32 layer (it raises -- with which
message in this version), what Keras does with the same batch (it casts silently), and how much the same
Adam updates differ between precisions and frameworks (the claim says "orders of magnitude"): torch in
float32, torch in float64, and Keras in float64 (with :class:`rlkit.algos.keras_adam.TorchAdam`, Adam's
update as torch writes it, so that only the precision and the framework differ).
"""

from __future__ import annotations

import numpy as np


def torch_float64_error() -> str | None:
    """The error torch raises for a float64 batch in a float32 Linear layer (``None`` if it does not raise)."""
    import torch

    layer = torch.nn.Linear(4, 2)
    try:
        layer(torch.from_numpy(np.zeros((3, 4))))  # numpy defaults to float64
    except RuntimeError as exc:
        return str(exc)
    return None


def keras_float64_output_dtype() -> str:
    """The dtype a float32 Keras Dense layer returns for a float64 batch (Keras casts inputs to its dtype);
    ``"raised <error>"`` if Keras refuses the batch instead."""
    import keras

    layer = keras.layers.Dense(2)
    try:
        return str(keras.ops.convert_to_numpy(layer(np.zeros((3, 4)))).dtype)
    except Exception as exc:  # a future Keras that refuses the mix: report it rather than fail
        return f"raised {type(exc).__name__}: {exc}"


def _keras_float64_change(base_weights: list[np.ndarray], x: np.ndarray, y: np.ndarray, steps: int) -> np.ndarray:
    """The total weight change of ``steps`` TorchAdam steps on the regression net in Keras, float64."""
    import keras
    import tensorflow as tf

    from rlkit.algos.keras_adam import TorchAdam

    net = keras.Sequential(
        [
            keras.Input((x.shape[1],), dtype="float64"),
            keras.layers.Dense(base_weights[0].shape[1], activation="relu", dtype="float64"),
            keras.layers.Dense(1, dtype="float64"),
        ]
    )
    net.set_weights(base_weights)
    optimizer = TorchAdam(learning_rate=1e-3, epsilon=1e-8)
    x_t, y_t = tf.constant(x, tf.float64), tf.constant(y, tf.float64)
    for _ in range(steps):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((net(x_t) - y_t) ** 2)
        gradients = tape.gradient(loss, net.trainable_variables)
        optimizer.apply_gradients(zip(gradients, net.trainable_variables, strict=True))
    return np.concatenate([(w - s).ravel() for w, s in zip(net.get_weights(), base_weights, strict=True)])


def _keras_layout(tensor) -> np.ndarray:
    """A torch parameter as a float64 numpy array in Keras' layout (a kernel as (in, out))."""
    array = tensor.double().numpy()
    return array.T.copy() if array.ndim == 2 else array.copy()


def update_size_float32_vs_float64(steps: int = 5, seed: int = 0) -> dict:
    """Train the same small regression net with Adam from identical weights in three ways: torch float32,
    torch float64, Keras float64.

    Returns the mean absolute size of the total weight change in each (``update_size_<way>``), the ratio of
    each to torch float64's (``ratio`` for torch float32, ``ratio_keras_float64``), and the largest
    difference between two updates relative to the largest weight change (``max_relative_difference``:
    torch float32 against float64; ``max_relative_difference_keras``: Keras float64 against torch float32,
    the mix across frameworks). If precision changed update sizes by orders of magnitude, the ratios would
    be far from 1.
    """
    import torch

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(64, 4))
    y = rng.normal(size=(64, 1))
    torch.manual_seed(seed)
    base = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    changes = {}
    for dtype in (torch.float32, torch.float64):
        net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)).to(dtype)
        net.load_state_dict(base.state_dict())
        start = [p.detach().clone() for p in net.parameters()]
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        for _ in range(steps):
            loss = ((net(torch.as_tensor(x, dtype=dtype)) - torch.as_tensor(y, dtype=dtype)) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        # kernels as (in, out), Keras' layout, so that the changes line up with the Keras net's below
        changes[str(dtype).replace("torch.", "")] = np.concatenate(
            [_keras_layout(p.detach() - s).ravel() for p, s in zip(net.parameters(), start, strict=True)]
        )
    base_weights = [_keras_layout(p.detach()) for p in base.parameters()]
    changes["keras_float64"] = _keras_float64_change(base_weights, x, y, steps)
    sizes = {name: float(np.abs(change).mean()) for name, change in changes.items()}
    scale = np.abs(changes["float64"]).max()
    return {
        "update_size_float32": sizes["float32"],
        "update_size_float64": sizes["float64"],
        "update_size_keras_float64": sizes["keras_float64"],
        "ratio": sizes["float32"] / sizes["float64"],
        "ratio_keras_float64": sizes["keras_float64"] / sizes["float64"],
        "max_relative_difference": float(np.abs(changes["float32"] - changes["float64"]).max() / scale),
        "max_relative_difference_keras": float(np.abs(changes["keras_float64"] - changes["float32"]).max() / scale),
    }
