"""What one update and one forward pass cost on a device: the timings of the hardware chapter (43) and of
``benchmarks/costs/gpu_crossover.py``.

:func:`time_update` and :func:`time_forward` time the same MLP (obs_dim -> width -> width -> 1) built by the
torch learners' own ``build_mlp``; :func:`time_cnn_update` times an update of the network a DQN reads MinAtar's
grids with (the learners' ``ConvEncoder``, then an MLP head). Each starts from numpy arrays as rlkit's updates
and acting do, and reports a median over a few calls. The update timings first set torch's threads as a
learner does (:func:`rlkit.hardware.configure_torch`, one by default): more threads than free cores made a
small step a hundred times slower on a busy machine.

``update_step``, ``cnn_update_step`` and ``forward_step`` build the same steps without timing them, for
:func:`fastest_seconds_side_by_side` to time in turn where their ratios matter (chapter 43).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from rlkit.hardware import configure_torch, resolve_device

K = TypeVar("K")


def time_update(
    width: int, batch: int, device: str = "cpu", obs_dim: int = 8, repeats: int = 5, precision: str = "fp32"
) -> float:
    """Median seconds of one Adam step of an MLP (obs_dim -> width -> width -> 1, squared error) on a batch
    that starts in numpy, as every rlkit update does: the unit of work a GPU has to make cheaper.

    The batch is copied to ``device`` inside the timed step and the device is synchronised before the clock
    is read, so a GPU's figure includes its transfer and launch costs (chapter 43's crossover). ``precision``
    is a learner's (``rlkit/precision.py``): the layers in bf16 or fp16, fp16 with its loss scaling.
    """
    return _median_seconds(update_step(width, batch, device, obs_dim, precision), repeats)


def update_step(
    width: int, batch: int, device: str = "cpu", obs_dim: int = 8, precision: str = "fp32"
) -> Callable[[], None]:
    """The step :func:`time_update` times, built and ready to call: for :func:`fastest_seconds_side_by_side`."""
    import numpy as np
    import torch

    configure_torch()  # the learners' thread count
    device = resolve_device(device)
    rng = np.random.default_rng(0)
    obs = rng.standard_normal((batch, obs_dim), dtype=np.float32)
    targets = rng.standard_normal((batch, 1), dtype=np.float32)
    from rlkit.algos.torch_parts import build_mlp, compute_dtype, loss_scaler

    torch.manual_seed(0)
    place = torch.device(device)
    net = build_mlp(obs_dim, 1, (width, width), compute_dtype(precision, place)).to(device)
    return _adam_step(net, obs, targets, device, loss_scaler(precision, place))


#: MinAtar Breakout's observations (a 10x10 grid, 4 boolean channels), the hidden layer the course's MinAtar
#: runs give the head (``benchmarks/costs/cnn_update.py``), and its 3 actions.
MINATAR_SHAPE, MINATAR_HIDDEN, MINATAR_ACTIONS = (10, 10, 4), (128,), 3


def minatar_spec():
    """The :class:`rlkit.encoders.ImageSpec` a learner makes of MinAtar Breakout's observation space."""
    import gymnasium as gym

    from rlkit.encoders import image_spec

    return image_spec(gym.spaces.Box(0, 1, MINATAR_SHAPE, bool), "minatar")


def time_cnn_update(
    batch: int,
    device: str = "cpu",
    hidden: tuple[int, ...] = MINATAR_HIDDEN,
    n_actions: int = MINATAR_ACTIONS,
    repeats: int = 5,
    precision: str = "fp32",
) -> float:
    """Median seconds of one Adam step of a MinAtar-sized convolutional Q-network on a batch of boolean grids
    that starts in numpy: rlkit's ``minatar`` encoder (``rlkit/encoders.py``, one 3x3 convolution of 16
    filters on the 10x10x4 grid) built by the torch learners' own ``ConvEncoder``, then an MLP head
    (``hidden``, ``n_actions`` outputs, squared error against fixed targets).

    As in :func:`time_update`, the grids are copied to ``device`` inside the timed step (as bools, the
    encoder scales them) and the loss is read back, and ``precision`` sets the dtype the layers compute in.
    """
    return _median_seconds(cnn_update_step(batch, device, hidden, n_actions, precision), repeats)


def cnn_update_step(
    batch: int,
    device: str = "cpu",
    hidden: tuple[int, ...] = MINATAR_HIDDEN,
    n_actions: int = MINATAR_ACTIONS,
    precision: str = "fp32",
) -> Callable[[], None]:
    """The step :func:`time_cnn_update` times, built and ready to call."""
    import numpy as np
    import torch

    from rlkit.algos.torch_parts import MLP, ConvEncoder, build_mlp, compute_dtype, loss_scaler

    configure_torch()  # the learners' thread count
    device = resolve_device(device)
    spec = minatar_spec()
    rng = np.random.default_rng(0)
    obs = rng.random((batch, *MINATAR_SHAPE)) < 0.1  # sparse grids, as MinAtar's are
    targets = rng.standard_normal((batch, n_actions), dtype=np.float32)
    torch.manual_seed(0)
    place = torch.device(device)
    # encoder and head as one network whose layers compute in the precision, its output float32
    head = build_mlp(spec.flat_size, n_actions, hidden)
    net = MLP([ConvEncoder(spec), head], compute_dtype(precision, place)).to(device)
    return _adam_step(net, obs, targets, device, loss_scaler(precision, place))


def time_forward(width: int, batch: int, device: str = "cpu", obs_dim: int = 8, repeats: int = 50) -> float:
    """Median seconds of one forward pass of the same MLP on a numpy batch, the actions back in numpy: what
    acting costs on ``device``. ``device="numpy"`` times rlkit's own acting path
    (:func:`rlkit.nets.mlp_forward`) on the same weights."""
    return _median_seconds(forward_step(width, batch, device, obs_dim), repeats)


def forward_step(width: int, batch: int, device: str = "cpu", obs_dim: int = 8) -> Callable[[], None]:
    """The forward pass :func:`time_forward` times, built and ready to call."""
    import numpy as np

    from rlkit.nets import init_mlp_weights, mlp_forward

    obs = np.random.default_rng(0).standard_normal((batch, obs_dim), dtype=np.float32)
    weights = init_mlp_weights([obs_dim, width, width, 1], seed=0)
    if device == "numpy":
        return lambda: mlp_forward(weights, obs)
    import torch

    device = resolve_device(device)
    from rlkit.algos.torch_parts import build_mlp, set_mlp_weights

    net = build_mlp(obs_dim, 1, (width, width))
    set_mlp_weights([net], weights)  # the numpy path's weights, so both compute the same function
    net = net.to(device)

    def act() -> None:
        with torch.inference_mode():
            net(torch.as_tensor(obs, device=device)).cpu().numpy()

    return act


def _adam_step(net, obs, targets, device: str, scaler):
    """One Adam step of ``net`` on a squared error, from numpy arrays copied to ``device`` in the step, with
    the learners' loss scaling (a pass-through but at fp16); the loss is read back, which waits for the
    device as reading it for logging does."""
    import torch

    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)

    def step() -> None:
        x, y = torch.as_tensor(obs, device=device), torch.as_tensor(targets, device=device)
        loss = torch.nn.functional.mse_loss(net(x), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        loss.item()

    return step


def _median_seconds(work, repeats: int) -> float:
    import numpy as np

    return float(np.median(seconds_side_by_side({"work": work}, repeats)["work"]))


def seconds_side_by_side(steps: Mapping[K, Callable[[], None]], rounds: int = 5) -> dict[K, list[float]]:
    """The seconds of every timed call of each of ``steps``, timed in turn: every round calls each step once.

    Timed one after the other, a step measured while another program kept the CPU busy looks slower than
    one measured a moment later when it had stopped, and a ratio of the two says more about the neighbour
    than about the steps. Interleaved, a load that comes and goes falls on all of them alike. A load that
    stays does not fall alike: a step of a millisecond that loses the CPU for a few takes several times as
    long, one of a hundred barely longer. So a ratio is best taken between each step's fastest call, the
    one least interrupted (:func:`fastest_seconds_side_by_side`); chapter 43 asserts on those.
    """
    import time

    for work in steps.values():
        work()  # warm-up: first calls pay for allocation, kernel selection and caches
    times: dict[K, list[float]] = {key: [] for key in steps}
    for _ in range(rounds):
        for key, work in steps.items():
            work()  # once untimed, so each timed call finds the caches as its own last call left them
            start = time.perf_counter()
            work()
            times[key].append(time.perf_counter() - start)
    return times


def fastest_seconds_side_by_side(steps: Mapping[K, Callable[[], None]], rounds: int = 7) -> dict[K, float]:
    """Each step's fastest call of :func:`seconds_side_by_side`: what it costs when nothing interrupts it."""
    return {key: min(spent) for key, spent in seconds_side_by_side(steps, rounds).items()}


def crossover_tables(results: dict) -> str:
    """The figures of a ``benchmarks/costs/gpu_crossover.py`` file as text: each update (MLP by width, the
    MinAtar CNN) on the CPU against the GPU, fp32 then bf16 and fp16, and acting on numpy, the CPU and the GPU.

    Only what the file holds is shown: a file written before a section existed (the CNN, low precision), or
    by ``--cpu-only``, shows the CPU alone.
    """
    from collections import defaultdict

    lines = [f"GPU: {results.get('gpu')}, torch {results.get('torch')}, CUDA build {results.get('cuda_build')}"]

    def parse(key: str) -> tuple[str, str, str, int]:
        """A key's parts: "cuda bf16 w256 b32" -> ("cuda", "bf16", "w256", 32); fp32 if unnamed; the CNN has no w."""
        device, *rest = key.split()
        precision = rest.pop(0) if rest[0] in ("fp32", "bf16", "fp16") else "fp32"
        net = rest[0] if len(rest) == 2 else "cnn"
        return device, precision, net, int(rest[-1][1:])

    updates: dict = defaultdict(dict)  # (net, precision) -> {batch: {device: ms}}
    for section in ("update_ms", "update_ms_low_precision", "cnn_update_ms"):
        for key, ms in results.get(section, {}).items():
            device, precision, net, batch = parse(key)
            updates[net, precision].setdefault(batch, {})[device] = ms
    if updates:
        lines.append("update, ms per Adam step, CPU -> GPU (x: the GPU's speed-up)")
    for (net, precision), by_batch in sorted(updates.items(), key=lambda item: _row_order(*item[0])):
        cells = []
        for batch, ms in sorted(by_batch.items()):
            cpu, gpu = ms.get("cpu"), next((ms[d] for d in ms if d != "cpu"), None)
            cell = "-" if cpu is None else f"{cpu:.2f}"
            if gpu is not None:
                cell += f"->{gpu:.2f}" + (f" ({cpu / gpu:.1f}x)" if cpu is not None else "")
            cells.append(f"b{batch} {cell}")
        name = "CNN (MinAtar)" if net == "cnn" else f"MLP width {net[1:]}"
        lines.append(f"  {name:<15} {precision}  " + " | ".join(cells))
    acting: dict = defaultdict(dict)  # (width, batch) -> {device: us}
    for key, us in results.get("act_us", {}).items():
        device, _, net, batch = parse(key)
        acting[net, batch][device] = us
    if acting:
        lines.append("acting, us per forward pass")
    for (net, batch), us in sorted(acting.items(), key=lambda item: (int(item[0][0][1:]), item[0][1])):
        lines.append(f"  width {net[1:]:>4} b{batch:<5} " + "  ".join(f"{d} {t:.1f}" for d, t in us.items()))
    return "\n".join(lines)


def _row_order(net: str, precision: str) -> tuple[int, int]:
    """MLPs by width, then the CNN; fp32, bf16, fp16 within each."""
    return (10**9 if net == "cnn" else int(net[1:]), ("fp32", "bf16", "fp16").index(precision))
