"""What one update and one forward pass cost on a device: the timings of the hardware chapter (43) and of
``benchmarks/costs/gpu_crossover.py``.

Both time the same MLP (obs_dim -> width -> width -> 1) built by the torch learners' own ``build_mlp``,
starting from numpy arrays as rlkit's updates and acting do, and report a median over a few calls.
"""

from __future__ import annotations

from rlkit.hardware import resolve_device


def time_update(
    width: int, batch: int, device: str = "cpu", obs_dim: int = 8, repeats: int = 5, precision: str = "fp32"
) -> float:
    """Median seconds of one Adam step of an MLP (obs_dim -> width -> width -> 1, squared error) on a batch
    that starts in numpy, as every rlkit update does: the unit of work a GPU has to make cheaper.

    The batch is copied to ``device`` inside the timed step and the device is synchronised before the clock
    is read, so a GPU's figure includes its transfer and launch costs (chapter 43's crossover). ``precision``
    is a learner's (``rlkit/precision.py``): the layers in bf16 or fp16, fp16 with its loss scaling.
    """
    import numpy as np
    import torch

    device = resolve_device(device)
    rng = np.random.default_rng(0)
    obs = rng.standard_normal((batch, obs_dim), dtype=np.float32)
    targets = rng.standard_normal((batch, 1), dtype=np.float32)
    from rlkit.algos.torch_parts import build_mlp, compute_dtype, loss_scaler

    torch.manual_seed(0)
    place = torch.device(device)
    net = build_mlp(obs_dim, 1, (width, width), compute_dtype(precision, place)).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    scaler = loss_scaler(precision, place)

    def step() -> None:
        x, y = torch.as_tensor(obs, device=device), torch.as_tensor(targets, device=device)
        loss = torch.nn.functional.mse_loss(net(x), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        loss.item()  # waits for the device, as reading the loss for logging does

    return _median_seconds(step, repeats)


def time_forward(width: int, batch: int, device: str = "cpu", obs_dim: int = 8, repeats: int = 50) -> float:
    """Median seconds of one forward pass of the same MLP on a numpy batch, the actions back in numpy: what
    acting costs on ``device``. ``device="numpy"`` times rlkit's own acting path
    (:func:`rlkit.nets.mlp_forward`) on the same weights."""
    import numpy as np

    from rlkit.nets import init_mlp_weights, mlp_forward

    obs = np.random.default_rng(0).standard_normal((batch, obs_dim), dtype=np.float32)
    weights = init_mlp_weights([obs_dim, width, width, 1], seed=0)
    if device == "numpy":
        return _median_seconds(lambda: mlp_forward(weights, obs), repeats)
    import torch

    device = resolve_device(device)
    from rlkit.algos.torch_parts import build_mlp, set_mlp_weights

    net = build_mlp(obs_dim, 1, (width, width))
    set_mlp_weights([net], weights)  # the numpy path's weights, so both compute the same function
    net = net.to(device)

    def act() -> None:
        with torch.inference_mode():
            net(torch.as_tensor(obs, device=device)).cpu().numpy()

    return _median_seconds(act, repeats)


def _median_seconds(work, repeats: int) -> float:
    import time

    import numpy as np

    work()  # warm-up: first calls pay for allocation, kernel selection and caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return float(np.median(times))
