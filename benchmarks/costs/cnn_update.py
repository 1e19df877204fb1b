"""Benchmark: one DQN gradient step through a convolutional encoder, against its FLOP floor.

A convolution is a matrix product in disguise: every kernel-sized window of the input, laid out as a row
(im2col), times the kernel flattened to (kh * kw * in, out). So a gradient step through an encoder has a
count of floating-point operations, and a floor on a given CPU: that count at the best rate this core
multiplies matrices (a large float32 product in numpy, one BLAS thread), with no window gathering, no
activation, no optimiser, no framework. Set beside the measured step of each framework (the learner's own
``update_many`` on random batches of stored uint8/bool images, the frameworks taking turns), the ratio says
how far a step is from the arithmetic it must do: near 1 for the Nature encoder, whose products are large,
far above it for MinAtar's, whose products are so small that per-operation costs dominate.

What one Double-DQN step multiplies, per layer (convolutions and dense layers alike): the online network
forward on the observations (and backward: the weights' gradient of every layer, the input's gradient of
every layer but the first, whose input is data), the online network forward on the next observations (the
argmax of Double DQN) and the target network forward on them: 3 forwards + 2 backwards per layer, the first
layer 3 + 1, each a product of 2 M K N operations.

    python -m benchmarks.costs.cnn_update                      # Nature (Atari) and MinAtar encoders, batch 32
    python -m benchmarks.costs.cnn_update --encoders minatar --batch 32 128
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

from benchmarks._results_file import provenance
from rlkit import atomic
from rlkit.algos.dqn.config import DQNConfig
from rlkit.encoders import ImageSpec, image_spec
from rlkit.hardware import configure_numpy

RESULTS = Path(__file__).parents[1] / "results" / "cnn_update.json"
#: The image each encoder is measured on, with the dense layers after it (the course's defaults for each).
CASES = {
    "nature": (gym.spaces.Box(0, 255, (4, 84, 84), np.uint8), (512,), 6),  # four stacked Atari frames, Pong's 6
    "minatar": (gym.spaces.Box(0, 1, (10, 10, 4), bool), (128,), 3),  # MinAtar Breakout's grid and actions
}


def products(spec: ImageSpec, hidden: tuple[int, ...], n_actions: int, batch: int) -> list[tuple[int, int, int]]:
    """(M, K, N) of each layer's forward product: the convolutions as im2col products, then the dense layers."""
    shapes = []
    for (height, width, filters), (kh, kw, c_in, _) in zip(spec.feature_shapes(), spec.kernel_shapes(), strict=True):
        shapes.append((batch * height * width, kh * kw * c_in, filters))
    sizes = [spec.flat_size, *hidden, n_actions]
    shapes += [(batch, n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)]
    return shapes


def peak_gflops(size: int = 1024, repeats: int = 10) -> dict[str, float]:
    """The best rate this core multiplies float32 matrices at, per library: a (size x size) product, one
    thread, the fastest of ``repeats`` in CPU time (another process on the machine does not count against it).
    numpy's BLAS and torch's differ by up to 2x on the same core, so the floor takes the faster."""
    import torch

    from rlkit.hardware import configure_torch

    configure_torch()  # one thread
    rng = np.random.default_rng(0)
    a = rng.standard_normal((size, size), dtype=np.float32)
    b = rng.standard_normal((size, size), dtype=np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    products = {"numpy": lambda: a @ b, "torch": lambda: ta @ tb}
    rates = {}
    for name, product in products.items():
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            product()
            best = min(best, time.process_time() - start)
        rates[name] = 2 * size**3 / best / 1e9
    return rates


def gflop_per_step(shapes: list[tuple[int, int, int]]) -> float:
    """3 forwards + 2 backward products per layer (the first layer's input gradient is never needed)."""
    return sum(2 * m * k * n * (3 + (1 if index == 0 else 2)) for index, (m, k, n) in enumerate(shapes)) / 1e9


def random_burst(spec: ImageSpec, n_actions: int, steps: int, batch: int, rng: np.random.Generator) -> dict:
    def images() -> np.ndarray:
        if spec.dtype == "bool":
            return rng.random((steps, batch, *spec.shape)) < 0.1
        return rng.integers(0, 256, (steps, batch, *spec.shape), dtype=np.uint8)

    return {
        "obs": images(),
        "actions": rng.integers(0, n_actions, (steps, batch)),
        "rewards": rng.normal(size=(steps, batch)).astype(np.float32),
        "next_obs": images(),
        "terminated": np.zeros((steps, batch), dtype=np.float32),
    }


def measure(encoder: str, batch: int, steps: int, repeats: int) -> dict:
    """Floor and each framework's median ms (wall and CPU) per gradient step, the frameworks taking turns."""
    from rlkit.algos.dqn.agent import DQNAgent

    space, hidden, n_actions = CASES[encoder]
    spec = image_spec(space, encoder)
    config = DQNConfig(hidden_sizes=hidden, batch_size=batch, gradient_steps=steps)
    size = int(np.prod(space.shape))
    learners = {fw: DQNAgent.learner_class(fw)(size, n_actions, config, seed=0, image=spec) for fw in ("torch", "tf")}
    burst = random_burst(spec, n_actions, steps, batch, np.random.default_rng(0))
    for learner in learners.values():
        learner.update_many(burst)  # tracing and first-call costs, not counted
    times = {fw: {"wall": [], "cpu": []} for fw in learners}
    for _ in range(repeats):
        for fw, learner in learners.items():  # A B A B
            wall, cpu = time.perf_counter(), time.process_time()
            learner.update_many(burst)
            times[fw]["wall"].append(1000 * (time.perf_counter() - wall) / steps)
            times[fw]["cpu"].append(1000 * (time.process_time() - cpu) / steps)
    gflop, peaks = gflop_per_step(products(spec, hidden, n_actions, batch)), peak_gflops()
    row = {"encoder": encoder, "obs_shape": list(space.shape), "batch": batch, "gflop_per_step": gflop}
    row.update(peak_gflops=peaks, floor_ms=1000 * gflop / max(peaks.values()))
    for fw, measured in times.items():
        row[f"{fw}_wall_ms"] = float(np.median(measured["wall"]))
        row[f"{fw}_cpu_ms"] = float(np.median(measured["cpu"]))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoders", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--batch", nargs="+", type=int, default=[32])
    parser.add_argument("--steps", type=int, default=16, help="gradient steps per timed burst")
    parser.add_argument("--repeats", type=int, default=5, help="timed bursts per framework (median reported)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    configure_numpy()  # one BLAS thread, as the learners' frameworks have
    document = {"provenance": provenance("benchmarks.costs.cnn_update"), "rows": []}
    header = f"{'encoder':<8} {'batch':>5} {'GFLOP':>6} {'floor ms':>9} {'torch ms':>9} {'tf ms':>7}"
    print(header + f" {'torch/floor':>11} {'tf/floor':>8}")
    for encoder in args.encoders:
        for batch in args.batch:
            row = measure(encoder, batch, args.steps, args.repeats)
            document["rows"].append(row)
            floor = row["floor_ms"]
            print(
                f"{encoder:<8} {batch:>5} {row['gflop_per_step']:>6.2f} {floor:>9.2f} {row['torch_cpu_ms']:>9.2f} "
                f"{row['tf_cpu_ms']:>7.2f} {row['torch_cpu_ms'] / floor:>11.1f} {row['tf_cpu_ms'] / floor:>8.1f}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out, json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
