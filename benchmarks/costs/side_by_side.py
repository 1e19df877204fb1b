"""Benchmark: chapter 43's growth ratios, timed one step after another and side by side, beside a neighbour.

Chapter 43 asserts how the cost of an update grows from a batch of 32 to one of 2048: a few times for the
64-wide MLP (fixed cost), many times for the 1024-wide one and the MinAtar CNN (arithmetic). Timed one after
the other (each step's median of five, then the next step), the ratio compares moments: a step measured
while a neighbour kept the CPU busy against one measured after it stopped. On CI, beside the other test
worker, the CNN's ratio came out 6.1x where the chapter asserted above 8. This script measures both ways in
one process, round after round, with no neighbour, with one that computes in bursts (a two-thread matrix
product on and off, as another test's BLAS does), and with one that spins without pause; it writes each
run's four ratios to ``benchmarks/results/side_by_side.json``.

    python -m benchmarks.costs.side_by_side --runs 8
    ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 python -m benchmarks.costs.side_by_side \\
        --neighbours none --out avx2.json     # the same, with torch's kernels held to AVX2

The second line asks oneDNN (torch's convolutions) and MKL (its matrix products) for their AVX2 code paths:
what a CPU without AVX-512 runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._results_file import provenance
from course.timing import cnn_update_step, median_seconds_side_by_side, update_step
from rlkit.atomic import write_text

WIDTHS, BATCHES = (64, 256, 1024), (32, 2048)
NEIGHBOURS = {
    "none": None,
    # numpy's BLAS uses every core: on for 0.1-1.5 s, off for 0.1-1.5 s
    "bursty": "import numpy as np, random, time\n"
    "random.seed(0); a = np.random.rand(800, 800)\n"
    "while True:\n"
    "    end = time.time() + random.uniform(0.1, 1.5)\n"
    "    while time.time() < end: a @ a\n"
    "    time.sleep(random.uniform(0.1, 1.5))\n",
    "spin": "while True: pass\n",
}


def growth_ratios(times: dict) -> dict[str, float]:
    """Each network's time at the largest batch over its time at the smallest."""
    names = dict.fromkeys(name for name, _ in times)  # in the order measured
    return {name: round(times[name, BATCHES[-1]] / times[name, BATCHES[0]], 2) for name in names}


def measure(neighbours: list[str], runs: int) -> dict:
    steps = {(f"MLP {w}", b): update_step(w, b, "cpu") for w in WIDTHS for b in BATCHES}
    steps |= {("MinAtar CNN", b): cnn_update_step(b, "cpu") for b in BATCHES}
    results: dict = {}
    for neighbour in neighbours:
        code = NEIGHBOURS[neighbour]
        process = subprocess.Popen([sys.executable, "-c", code]) if code else None
        try:
            time.sleep(1.0 if process else 0.0)  # let it start
            for order in ("one after another", "side by side"):
                results.setdefault(neighbour, {})[order] = []
            for run in range(runs):
                one_by_one = {  # each step's five calls, then the next step's
                    key: median_seconds_side_by_side({key: step}, 5)[key] for key, step in steps.items()
                }
                together = median_seconds_side_by_side(steps, 5)
                for order, times in (("one after another", one_by_one), ("side by side", together)):
                    results[neighbour][order].append(growth_ratios(times))
                print(f"{neighbour} run {run}: {results[neighbour]['one after another'][-1]} | "
                      f"{results[neighbour]['side by side'][-1]}", flush=True)  # fmt: skip
        finally:
            if process:
                process.kill()
                process.wait()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="runs per neighbour (each run times both ways)")
    parser.add_argument("--neighbours", nargs="+", choices=sorted(NEIGHBOURS), default=list(NEIGHBOURS))
    parser.add_argument("--out", type=Path, default=Path(__file__).parents[1] / "results" / "side_by_side.json")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    isa = {name: os.environ[name] for name in ("ONEDNN_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS") if name in os.environ}
    record = {"provenance": {**provenance("benchmarks.costs.side_by_side"), "isa_limits": isa}}
    record["growth_2048_over_32"] = measure(args.neighbours, args.runs)
    write_text(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
