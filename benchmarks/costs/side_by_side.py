"""Benchmark: chapter 43's growth ratios, timed one step after another and side by side, beside a neighbour.

Chapter 43 asserts how the cost of an update grows from a batch of 32 to one of 2048: a few times for the
64-wide MLP (fixed cost), many times for the 1024-wide one and the MinAtar CNN (arithmetic). Timed one after
the other (each step's median of five, then the next step), the ratio compares moments: a step measured
while a neighbour kept the CPU busy against one measured after it stopped. On CI, beside the other test
worker, the CNN's ratio came out 6.1x where the chapter asserted above 8. This script times the same steps
three ways in one process, run after run: one after another (medians), and side by side, every step once
per round (the medians and the fastest calls of the same rounds); with no neighbour, with one that computes
in bursts (a matrix product on every core, on and off, as another test's BLAS does), with one that spins,
and with two that spin (more programs than cores, as when a test's threads crowd the other worker's). It
writes each run's four ratios per way to ``benchmarks/results/side_by_side.json``.

    python -m benchmarks.costs.side_by_side --runs 8
    ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 python -m benchmarks.costs.side_by_side \\
        --neighbours none crowded --out avx2.json     # the same, with torch's kernels held to AVX2

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

import numpy as np

from benchmarks._results_file import provenance
from course.timing import cnn_update_step, seconds_side_by_side, update_step
from rlkit.atomic import write_text

WIDTHS, BATCHES = (64, 256, 1024), (32, 2048)
SPIN = "while True: pass\n"
NEIGHBOURS = {  # the programs started beside the timing, each as its own process
    "none": [],
    # numpy's BLAS uses every core: on for 0.1-1.5 s, off for 0.1-1.5 s
    "bursty": [
        "import numpy as np, random, time\n"
        "random.seed(0); a = np.random.rand(800, 800)\n"
        "while True:\n"
        "    end = time.time() + random.uniform(0.1, 1.5)\n"
        "    while time.time() < end: a @ a\n"
        "    time.sleep(random.uniform(0.1, 1.5))\n"
    ],
    "spin": [SPIN],
    "crowded": [SPIN, SPIN],
}
ROUNDS = 7


def growth_ratios(times: dict) -> dict[str, float]:
    """Each network's time at the largest batch over its time at the smallest."""
    names = dict.fromkeys(name for name, _ in times)  # in the order measured
    return {name: round(times[name, BATCHES[-1]] / times[name, BATCHES[0]], 2) for name in names}


def measure(neighbours: list[str], runs: int) -> dict:
    steps = {(f"MLP {w}", b): update_step(w, b, "cpu") for w in WIDTHS for b in BATCHES}
    steps |= {("MinAtar CNN", b): cnn_update_step(b, "cpu") for b in BATCHES}
    ways = ("one after another, medians", "side by side, medians", "side by side, fastest calls")
    results: dict = {}
    for neighbour in neighbours:
        processes = [subprocess.Popen([sys.executable, "-c", code]) for code in NEIGHBOURS[neighbour]]
        results[neighbour] = {way: [] for way in ways}
        try:
            time.sleep(1.0 if processes else 0.0)  # let them start
            for run in range(runs):
                one_by_one = {  # each step's calls, then the next step's
                    key: float(np.median(seconds_side_by_side({key: step}, ROUNDS)[key])) for key, step in steps.items()
                }
                together = seconds_side_by_side(steps, ROUNDS)
                medians = {key: float(np.median(spent)) for key, spent in together.items()}
                fastest = {key: min(spent) for key, spent in together.items()}
                for way, times in zip(ways, (one_by_one, medians, fastest), strict=True):
                    results[neighbour][way].append(growth_ratios(times))
                print(f"{neighbour} run {run}: " + " | ".join(
                    str(results[neighbour][way][-1]) for way in ways), flush=True)  # fmt: skip
        finally:
            for process in processes:
                process.kill()
                process.wait()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="runs per neighbour (each run times all three ways)")
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
