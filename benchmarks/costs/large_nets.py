"""Benchmark: a MuJoCo-sized gradient step (256x256 networks, batch 256) against its matrix-product floor.

SAC and TD3 on MuJoCo use two hidden layers of 256 and batches of 256 (RL Zoo, CleanRL, Spinning Up), where
the course's Pendulum defaults use 64x64. At that size a gradient step is mostly matrix products, so it has
a floor on a given CPU: the time of exactly those products, run back to back with no framework code, no
activation, no optimiser. This script counts the products one gradient step runs, times each shape with
each library at hand (one thread, float32) and takes the fastest as the floor, then sets the floor beside
the measured step of each framework (``update_cost.measure``: the learner's own ``update_many`` on random
contract-valid batches, the frameworks taking turns). The ratio says how much of a step is framework
overhead, and so how much a faster implementation could still gain.

The libraries: numpy (OpenBLAS), torch as shipped (Intel MKL), TensorFlow (oneDNN, products inside one
graph so that its call overhead is spread over many), and torch again in a fresh process with MKL's vendor
check answered "Intel" (``course.blas``; Linux and a C compiler needed, else skipped). On an AMD processor
MKL takes a generic path, so the last two differ there; torch's whole step is measured that way too
(``torch_told_intel_cpu_ms``), which says how much of torch's gap to TensorFlow is the vendor check. That
run is a measurement, not a recommendation: rlkit never preloads anything.

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
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks._results_file import provenance
from benchmarks.costs.update_cost import measure, task_sizes
from course.blas import intel_shim, run_preloaded
from rlkit import atomic
from rlkit.hardware import configure_numpy, configure_tensorflow, configure_torch

RESULTS = Path(__file__).parents[1] / "results" / "large_nets.json"
TASK = "HalfCheetah-v5"  # 17 observations, 6 actions
#: Products per gradient step at each layer position (first, hidden, output) of the actor and of the critics
#: (both together), from the passes the module's docstring lists.
PRODUCTS = {
    "sac": {"actor": (3, 4, 4), "critic": (2 * 5, 2 * 6, 2 * 6)},
    "td3": {"actor": (2, 2.5, 2.5), "critic": (4 + 3, 5 + 4, 5 + 4)},
}
#: The libraries that multiply, in the table's order; the last one runs in a preloaded child process.
LIBRARIES = ("numpy", "torch", "tf", "torch_mkl_told_intel")
#: Independent product triples per TensorFlow graph call, so its call overhead (tens of microseconds) is
#: spread over 3 x this many products; each triple has its own inputs, so no product can be shared.
TF_TRIPLES_PER_CALL = 10


def layer_shapes(n_in: int, hidden: int, n_out: int) -> list[tuple[int, int]]:
    return [(n_in, hidden), (hidden, hidden), (hidden, n_out)]


def median_ms(call: Callable[[], object], products_per_call: int, repeats: int) -> float:
    """Median CPU ms per product of ``call``, which runs ``products_per_call`` products."""
    call()  # a first call builds what it needs (TF traces its graph)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return 1000 * float(np.median(times)) / products_per_call


def gemm_ms(batch: int, n_in: int, n_out: int, library: str = "numpy", repeats: int = 200) -> float:
    """Median CPU ms of one product of a layer of ``n_in x n_out`` on a batch of ``batch`` in ``library``
    (one thread, float32): its forward, its input's gradient and its weights' gradient (same arithmetic,
    other shapes), timed together and divided by three."""
    rng = np.random.default_rng(0)
    triples = TF_TRIPLES_PER_CALL if library == "tf" else 1
    x, w, dy = (
        rng.standard_normal((triples, *shape), dtype=np.float32)
        for shape in ((batch, n_in), (n_in, n_out), (batch, n_out))
    )
    if library == "numpy":
        x, w, dy = x[0], w[0], dy[0]
        return median_ms(lambda: (x @ w, dy @ w.T, x.T @ dy), 3, repeats)
    if library == "torch":
        import torch

        x, w, dy = (torch.from_numpy(a[0]) for a in (x, w, dy))
        return median_ms(lambda: (x @ w, dy @ w.T, x.T @ dy), 3, repeats)
    import tensorflow as tf

    @tf.function
    def products(xs, ws, dys):
        return [
            (tf.matmul(a, b), tf.matmul(d, b, transpose_b=True), tf.matmul(a, d, transpose_a=True))
            for a, b, d in zip(xs, ws, dys, strict=True)
        ]

    inputs = [[tf.constant(a[k]) for k in range(triples)] for a in (x, w, dy)]
    return median_ms(lambda: products(*inputs), 3 * triples, max(repeats // triples, 10))


def floor_ms(algo: str, hidden: int, batch: int, library: str = "numpy") -> float:
    """The matrix products of one gradient step of ``algo`` at ``hidden`` x ``hidden``, timed in ``library``."""
    obs_dim, act_dim = task_sizes(TASK)
    actor_out = 2 * act_dim if algo == "sac" else act_dim  # SAC's actor outputs a mean and a log-std
    networks = {"actor": layer_shapes(obs_dim, hidden, actor_out), "critic": layer_shapes(obs_dim + act_dim, hidden, 1)}
    return sum(
        count * gemm_ms(batch, n_in, n_out, library)
        for name, shapes in networks.items()
        for count, (n_in, n_out) in zip(PRODUCTS[algo][name], shapes, strict=True)
    )


def step_settings(hidden: int) -> dict:
    return {"hidden_sizes": (hidden, hidden), "batch_size": 256, "gradient_steps": 50}


def torch_rows(algos: list[str], sizes: list[int], repeats: int) -> dict[str, dict[str, float]]:
    """torch's products and whole step, keyed ``algo:hidden``: what the preloaded child process reports."""
    return {
        f"{algo}:{hidden}": {
            "products_ms": floor_ms(algo, hidden, 256, "torch"),
            "cpu_ms": measure(algo, ["torch"], repeats, env=TASK, **step_settings(hidden))["torch"]["cpu_ms"],
        }
        for algo in algos
        for hidden in sizes
    }


def told_intel(algos: list[str], sizes: list[int], repeats: int) -> dict[str, dict[str, float]] | None:
    """:func:`torch_rows` in a fresh process whose MKL is told the CPU is an Intel one; None where that
    cannot be done (not Linux, no C compiler)."""
    with intel_shim() as shim:
        if shim is None:
            return None
        command = [sys.executable, "-m", __spec__.name, "--torch-only", "--algos", *algos, "--sizes"]
        command += [*map(str, sizes), "--repeats", str(repeats)]
        return json.loads(run_preloaded(command, shim).strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=["sac", "td3"], choices=sorted(PRODUCTS))
    parser.add_argument("--sizes", nargs="+", type=int, default=[64, 256], help="hidden widths (batch 256)")
    parser.add_argument("--repeats", type=int, default=5, help="timed bursts per framework (median reported)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--torch-only", action="store_true", help=argparse.SUPPRESS)  # the preloaded child
    args = parser.parse_args()
    configure_numpy()  # one thread for every library, as the learners have
    configure_torch()
    if args.torch_only:
        print(json.dumps(torch_rows(args.algos, args.sizes, args.repeats)))
        return
    configure_tensorflow()
    intel = told_intel(args.algos, args.sizes, args.repeats)
    document = {"provenance": provenance("benchmarks.costs.large_nets"), "task": TASK, "rows": []}
    print(
        f"{'algo':<5} {'hidden':>6} {'floor ms':>9} {'(library)':<21} {'torch ms':>9} {'told Intel':>10} "
        f"{'tf ms':>7} {'torch/floor':>11} {'tf/floor':>8}"
    )
    for algo in args.algos:
        for hidden in args.sizes:
            steps = measure(algo, ["torch", "tf"], args.repeats, env=TASK, **step_settings(hidden))
            products = {library: floor_ms(algo, hidden, 256, library) for library in LIBRARIES[:3]}
            if intel is not None:
                products["torch_mkl_told_intel"] = intel[f"{algo}:{hidden}"]["products_ms"]
            fastest = min(products, key=products.get)
            row = {"algo": algo, "hidden": hidden, "batch": 256, "floor_ms": products[fastest]}
            row |= {"floor_library": fastest, "products_ms": products}
            row.update({f"{fw}_cpu_ms": r["cpu_ms"] for fw, r in steps.items()})
            row.update({f"{fw}_wall_ms": r["wall_ms"] for fw, r in steps.items()})
            row["torch_told_intel_cpu_ms"] = None if intel is None else intel[f"{algo}:{hidden}"]["cpu_ms"]
            document["rows"].append(row)
            told = "-" if intel is None else f"{row['torch_told_intel_cpu_ms']:.3f}"
            print(
                f"{algo:<5} {hidden:>6} {row['floor_ms']:>9.3f} {fastest:<21} {row['torch_cpu_ms']:>9.3f} "
                f"{told:>10} {row['tf_cpu_ms']:>7.3f} {row['torch_cpu_ms'] / row['floor_ms']:>11.1f} "
                f"{row['tf_cpu_ms'] / row['floor_ms']:>8.1f}",
                flush=True,
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out, json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
