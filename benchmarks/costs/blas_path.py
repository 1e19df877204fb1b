"""Benchmark: does torch's BLAS take its fast path on this CPU? (Intel MKL on AMD processors.)

:mod:`course.blas` times a small matrix product and a Linear layer in fresh processes, as shipped and with MKL's
vendor check answered "Intel" by a preloaded one-line library (gcc or cc needed); ``--updates`` does the same
for the replay algorithms' torch gradient steps (``update_cost.py``). On an Intel CPU both columns should
agree. TensorFlow's oneDNN checks instructions, not the vendor, and is not affected.

    python -m benchmarks.costs.blas_path                 # matmul and Linear; add --updates for the gradient steps
    python -m benchmarks.costs.blas_path --updates --repeats 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course.blas import intel_shim, probe, run_preloaded
from rlkit.hardware import cpu_model, cpu_vendor


def update_rows(preload: Path | None, repeats: int) -> dict[str, float]:
    """torch CPU ms per gradient step of each replay algorithm, from ``update_cost.py``'s table."""
    module = "benchmarks.costs.update_cost"
    out = run_preloaded([sys.executable, "-m", module, "--frameworks", "torch", "--repeats", str(repeats)], preload)
    return {f"{line.split()[0]} gradient step (ms)": float(line.split()[-1]) for line in out.splitlines()[1:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", action="store_true", help="also time the replay algorithms' torch steps")
    parser.add_argument("--repeats", type=int, default=3, help="bursts per algorithm with --updates")
    args = parser.parse_args()
    import torch

    blas = "Intel MKL" if "Math Kernel Library" in torch.__config__.show() else "not MKL"
    print(f"CPU: {cpu_model()} (vendor {cpu_vendor()}); torch {torch.__version__}, BLAS: {blas}")
    with intel_shim() as shim:
        if shim is None:
            raise SystemExit("blas_path.py needs Linux and a C compiler (gcc or cc) to build the preload library")
        rows = [probe(None), probe(shim)]
        if args.updates:
            rows[0] |= update_rows(None, args.repeats)
            rows[1] |= update_rows(shim, args.repeats)
    print(f"{'CPU time per call (us unless stated)':<40} {'as shipped':>11} {'MKL told Intel':>15} {'ratio':>6}")
    for name, plain in rows[0].items():
        told = rows[1][name]
        print(f"{name:<40} {plain:>11.2f} {told:>15.2f} {plain / told:>6.2f}")


if __name__ == "__main__":
    main()
