"""Benchmark: a MuJoCo-sized gradient step (256x256 networks, batch 256) against its matrix-product floor.

SAC and TD3 on MuJoCo use two hidden layers of 256 and batches of 256 (RL Zoo, CleanRL, Spinning Up), where
the course's Pendulum defaults use 64x64. At that size a gradient step is mostly matrix products, so it has
a floor on a given CPU: the time of exactly those products, run back to back in numpy (one BLAS thread,
float32), with no framework, no activation, no optimiser. This script counts the products one gradient step
runs, times each shape on this CPU, and sets the sum beside the measured step of each framework
(``update_cost.measure``: the learner's own ``update_many`` on random contract-valid batches, the
frameworks taking turns). The ratio says how much of a step is framework overhead, and so how much a faster
implementation could still gain.

What one gradient step multiplies, counted per layer of each network (first, hidden, output): a forward pass
is one product (B x n_in)(n_in x n_out); a backward pass one more for the weights' gradient and one for the
input's, which the first layer skips unless its input needs a gradient (the critics' action input, in the
actor's loss). SAC's step: the actor forward on the next observations and both target critics forward
(the target); both critics forward and backward (their loss); the actor forward and backward, and both
critics forward and backward to their inputs only (the actor's loss, the critics' weights held): 45 products
(torch's profiler counts 45 ``mm``/``addmm`` calls per step of rlkit's SAC at these sizes). TD3's: the
target actor and both target critics forward, both critics forward and backward, and every second step
(``policy_delay``) the actor's loss through the first critic: 32 products per step on average.

    python -m benchmarks.costs.large_nets                        # SAC and TD3, both frameworks, HalfCheetah's sizes
    python -m benchmarks.costs.large_nets --sizes 64 256 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from benchmarks._results_file import provenance
from benchmarks.costs.update_cost import measure, task_sizes
from rlkit import atomic
from rlkit.hardware import configure_numpy

RESULTS = Path(__file__).parents[1] / "results" / "large_nets.json"
TASK = "HalfCheetah-v5"  # 17 observations, 6 actions
#: Products per gradient step at each layer position (first, hidden, output) of the actor and of the critics
#: (both together), from the passes the module's docstring lists.
PRODUCTS = {
    "sac": {"actor": (3, 4, 4), "critic": (2 * 5, 2 * 6, 2 * 6)},
    "td3": {"actor": (2, 2.5, 2.5), "critic": (4 + 3, 5 + 4, 5 + 4)},
}


def layer_shapes(n_in: int, hidden: int, n_out: int) -> list[tuple[int, int]]:
    return [(n_in, hidden), (hidden, hidden), (hidden, n_out)]


def gemm_ms(batch: int, n_in: int, n_out: int, repeats: int = 200) -> float:
    """Median ms of one product of a layer of ``n_in x n_out`` on a batch of ``batch``: its forward, its input's
    gradient and its weights' gradient (same arithmetic, other shapes), timed together and divided by three,
    in numpy float32 on one BLAS thread."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, n_in), dtype=np.float32)
    w = rng.standard_normal((n_in, n_out), dtype=np.float32)
    dy = rng.standard_normal((batch, n_out), dtype=np.float32)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        x @ w  # forward
        dy @ w.T  # the input's gradient
        x.T @ dy  # the weights' gradient
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times)) / 3


def floor_ms(algo: str, hidden: int, batch: int) -> float:
    """The matrix products of one gradient step of ``algo`` at ``hidden`` x ``hidden``, timed in numpy."""
    obs_dim, act_dim = task_sizes(TASK)
    actor_out = 2 * act_dim if algo == "sac" else act_dim  # SAC's actor outputs a mean and a log-std
    networks = {"actor": layer_shapes(obs_dim, hidden, actor_out), "critic": layer_shapes(obs_dim + act_dim, hidden, 1)}
    return sum(
        count * gemm_ms(batch, n_in, n_out)
        for name, shapes in networks.items()
        for count, (n_in, n_out) in zip(PRODUCTS[algo][name], shapes, strict=True)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=["sac", "td3"], choices=sorted(PRODUCTS))
    parser.add_argument("--sizes", nargs="+", type=int, default=[64, 256], help="hidden widths (batch 256)")
    parser.add_argument("--repeats", type=int, default=5, help="timed bursts per framework (median reported)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    configure_numpy()  # one BLAS thread, as the learners' frameworks have
    document = {"provenance": provenance("benchmarks.costs.large_nets"), "task": TASK, "rows": []}
    print(f"{'algo':<5} {'hidden':>6} {'floor ms':>9} {'torch ms':>9} {'tf ms':>7} {'torch/floor':>11} {'tf/floor':>8}")
    for algo in args.algos:
        for hidden in args.sizes:
            settings = {"hidden_sizes": (hidden, hidden), "batch_size": 256, "gradient_steps": 50}
            steps = measure(algo, ["torch", "tf"], args.repeats, env=TASK, **settings)
            floor = floor_ms(algo, hidden, 256)
            row = {"algo": algo, "hidden": hidden, "batch": 256, "floor_ms": floor}
            row.update({f"{fw}_cpu_ms": r["cpu_ms"] for fw, r in steps.items()})
            row.update({f"{fw}_wall_ms": r["wall_ms"] for fw, r in steps.items()})
            document["rows"].append(row)
            print(
                f"{algo:<5} {hidden:>6} {floor:>9.3f} {row['torch_cpu_ms']:>9.3f} {row['tf_cpu_ms']:>7.3f} "
                f"{row['torch_cpu_ms'] / floor:>11.1f} {row['tf_cpu_ms'] / floor:>8.1f}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out, json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
