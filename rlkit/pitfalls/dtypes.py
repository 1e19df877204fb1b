"""Claim C30: float64 observations meeting float32 weights, and float32 vs float64 update sizes.

Three measurements: what torch does with a float64 batch in a float32 layer (it raises — with which
message in this version), what Keras does with the same batch (it casts silently), and how much one Adam
update computed entirely in float64 differs from the same update in float32 (the claim says "orders of
magnitude").
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
    """The dtype a float32 Keras Dense layer returns for a float64 batch (Keras casts inputs to its dtype)."""
    import keras

    layer = keras.layers.Dense(2)
    return str(keras.ops.convert_to_numpy(layer(np.zeros((3, 4)))).dtype)


def update_size_float32_vs_float64(steps: int = 5, seed: int = 0) -> dict:
    """Train the same small regression net with Adam in float32 and in float64 from identical weights.

    Returns the mean absolute size of the total weight change in each precision and their relative
    difference: if precision changed update sizes by orders of magnitude, the ratio would be far from 1.
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
        changes[str(dtype).replace("torch.", "")] = torch.cat(
            [(p.detach() - s).double().flatten() for p, s in zip(net.parameters(), start, strict=True)]
        ).numpy()
    size32 = float(np.abs(changes["float32"]).mean())
    size64 = float(np.abs(changes["float64"]).mean())
    diff = float(np.abs(changes["float32"] - changes["float64"]).max() / np.abs(changes["float64"]).max())
    return {
        "update_size_float32": size32,
        "update_size_float64": size64,
        "ratio": size32 / size64,
        "max_relative_difference": diff,
    }
