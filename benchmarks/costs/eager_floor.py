"""Benchmark: how close can eager torch come to TensorFlow's gradient step at the course's sizes?

At the course's sizes (64x64 networks, batches of 128-256) TensorFlow's traced step is 2-3x faster than
torch's eager one on this kind of CPU (``update_cost``). This script estimates the floor of torch's eager
step from what the step must do, and sets TensorFlow's whole step beside it. For each replay algorithm at
its defaults on its task it records every ATen operation one gradient step runs, forward, backward and
optimiser (``TorchDispatchMode`` sees each call the dispatcher makes, views included), and measures:

* the products alone: each of the step's recorded ``mm``/``addmm``/``bmm`` calls timed on its own
  recorded tensors, many times over so that they sit in the cache (torch's own GEMM, MKL in the CPU
  build), and summed;
* the cheapest dispatch: one operation's cost on a tiny tensor, the lesser of a view called from Python
  and an in-place add issued from C++ (``torch._foreach_add_`` over a thousand tensors, which the CPU runs
  one tensor at a time); every other operation of the step costs at least about that;
* the floor: the products plus the other operations at the cheapest dispatch each, what an eager step of
  these operations cannot go below on this machine however little Python and autograd add;
* the whole recorded step replayed from Python with autograd off: if torch's real step is no slower, the
  learner's Python and autograd bookkeeping add nothing that removing them would gain.

If the floor is above 1.2x TensorFlow's whole step, no eager torch step made of these operations can
come within 1.2x of it here: only fewer or fused operations (``torch.compile``, which did not pay here:
``update_cost``'s notes in RESULTS.md) or faster small products can. Each time is a median over
``--repeats`` rounds in which the steps and replays take turns, so a neighbour's load falls on all alike
(the ratios are the measurement; absolute times move with the machine). Writes
``results/eager_floor.json``.

    python -m benchmarks.costs.eager_floor                    # the five replay algorithms
    python -m benchmarks.costs.eager_floor --algos sac --repeats 9
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks._results_file import provenance
from benchmarks.costs.update_cost import TASKS, random_burst, task_sizes
from rlkit import atomic
from rlkit.hardware import configure_numpy, configure_tensorflow, configure_torch
from rlkit.registry import ALGORITHMS

RESULTS = Path(__file__).parents[1] / "results" / "eager_floor.json"
#: The matrix products among ATen's operations.
PRODUCTS = ("mm", "addmm", "bmm", "baddbmm", "matmul", "linear")
#: Gradient steps recorded: every call's inputs stay alive until the replay, so a short burst.
RECORDED_STEPS = 8


def record_calls(learner, burst: dict[str, np.ndarray]) -> list[tuple[Callable, tuple, dict]]:
    """Every ATen call of ``learner.update_many(burst)``, in order, with the tensors it was called on."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[tuple[Callable, tuple, dict]] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            self.calls.append((func, args, kwargs))
            return func(*args, **kwargs)

    recorder = Recorder()
    with recorder:
        learner.update_many(burst)
    return recorder.calls


def replayer(calls: list[tuple[Callable, tuple, dict]]) -> Callable[[], None]:
    """A function that runs ``calls`` back to back (grad mode off: no autograd bookkeeping)."""
    import torch

    def replay() -> None:
        with torch.no_grad():
            for func, args, kwargs in calls:
                func(*args, **kwargs)

    return replay


def is_product(call: tuple[Callable, tuple, dict]) -> bool:
    return call[0].overloadpacket.__name__ in PRODUCTS


def products_ms(products: list[tuple[Callable, tuple, dict]], steps: int, calls: int = 200) -> float:
    """CPU ms per gradient step of ``products`` (recorded over ``steps`` steps), each distinct call (the
    operation, its tensors' shapes and strides) timed ``calls`` times back to back, hot in the cache: the
    median of five rounds, times how often it occurs."""
    import torch

    def signature(call: tuple[Callable, tuple, dict]) -> tuple:
        func, args, _ = call
        return func, tuple((tuple(a.shape), a.stride()) if isinstance(a, torch.Tensor) else a for a in args)

    counts: dict[tuple, int] = {}
    example: dict[tuple, tuple[Callable, tuple, dict]] = {}
    for call in products:
        key = signature(call)
        counts[key] = counts.get(key, 0) + 1
        example.setdefault(key, call)
    total = 0.0
    with torch.no_grad():
        for key, (func, args, kwargs) in example.items():

            def repeated(func=func, args=args, kwargs=kwargs) -> None:
                for _ in range(calls):
                    func(*args, **kwargs)

            repeated()
            total += counts[key] * float(np.median([cpu_ms(repeated) for _ in range(5)])) / calls
    return total / steps


def cheapest_dispatch_us(repeats: int = 5) -> float:
    """Median microseconds of the cheapest operation on a tiny tensor: the lesser of a view (``aten.t``)
    called from Python and an in-place add issued from C++ (``_foreach_add_``, one tensor at a time)."""
    import torch

    matrix, tensors, view = torch.ones(4, 4), [torch.ones(4) for _ in range(1_000)], torch.ops.aten.t.default

    def views() -> None:
        for _ in range(1_000):
            view(matrix)

    per_call = []
    for _ in range(repeats):
        per_call.append(min(cpu_ms(views), cpu_ms(lambda: torch._foreach_add_(tensors, 1.0))))
    return float(np.median(per_call))  # ms per 1,000 calls = us per call


def cpu_ms(call: Callable[[], object]) -> float:
    start = time.process_time()
    call()
    return 1000 * (time.process_time() - start)


def measure_algorithm(algo: str, repeats: int, dispatch_us: float) -> dict:
    """One row: operations per step and CPU ms per gradient step: the products (on their own), and the
    steps and the replay (medians over ``repeats`` rounds, taking turns within a round); the floor at
    ``dispatch_us`` per operation besides the products."""
    entry, env = ALGORITHMS[algo], TASKS[algo]
    config = entry.config_class.for_env(env)
    short = entry.config_class.for_env(env, gradient_steps=RECORDED_STEPS)
    obs_dim, actions = task_sizes(env)
    learner = {fw: entry.agent_class.learner_class(fw)(obs_dim, actions, config, seed=0) for fw in ("torch", "tf")}
    rng = np.random.default_rng(0)
    burst = random_burst(algo, learner["torch"], config, rng)
    recorded = entry.agent_class.learner_class("torch")(obs_dim, actions, short, seed=0)
    short_burst = random_burst(algo, recorded, short, rng)
    recorded.update_many(short_burst)  # a first burst builds what the learner keeps (optimiser state)
    calls = record_calls(recorded, short_burst)
    products = [call for call in calls if is_product(call)]
    row = {"algo": algo, "env": env, "ops_per_step": len(calls) / RECORDED_STEPS}
    row["products_per_step"] = len(products) / RECORDED_STEPS
    row["products_ms"] = products_ms(products, RECORDED_STEPS)
    timed = {
        "torch_step": (lambda: learner["torch"].update_many(burst), config.gradient_steps),
        "tf_step": (lambda: learner["tf"].update_many(burst), config.gradient_steps),
        "replay": (replayer(calls), RECORDED_STEPS),
    }
    for call, _ in timed.values():
        call()  # TF traces its burst; the rest warm their caches
    samples: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(repeats):
        for name, (call, steps) in timed.items():
            samples[name].append(cpu_ms(call) / steps)
    row |= {f"{name}_ms": float(np.median(values)) for name, values in samples.items()}
    row["floor_ms"] = row["products_ms"] + (row["ops_per_step"] - row["products_per_step"]) * dispatch_us / 1000
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--repeats", type=int, default=7, help="rounds of timings (medians reported)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    configure_numpy()
    configure_torch()
    configure_tensorflow()
    dispatch_us = cheapest_dispatch_us()
    document = {"provenance": provenance("benchmarks.costs.eager_floor"), "cheapest_dispatch_us": dispatch_us}
    document["rows"] = []
    print(f"cheapest dispatch: {dispatch_us:.2f} us per operation (CPU ms per gradient step below)")
    print(
        f"{'algo':<8} {'ops':>4} {'products':>8} {'floor':>6} {'torch':>6} {'replay':>6} {'TF':>6}"
        f" {'torch/TF':>8} {'floor/TF':>8} {'torch/replay':>12}"
    )
    for algo in args.algos:
        row = measure_algorithm(algo, args.repeats, dispatch_us)
        document["rows"].append(row)
        print(
            f"{algo:<8} {row['ops_per_step']:>4.0f} {row['products_ms']:>8.3f} {row['floor_ms']:>6.3f}"
            f" {row['torch_step_ms']:>6.3f} {row['replay_ms']:>6.3f} {row['tf_step_ms']:>6.3f}"
            f" {row['torch_step_ms'] / row['tf_step_ms']:>8.2f} {row['floor_ms'] / row['tf_step_ms']:>8.2f}"
            f" {row['torch_step_ms'] / row['replay_ms']:>12.2f}",
            flush=True,
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out, json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
