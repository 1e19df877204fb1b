"""Benchmark: does torch's BLAS take its fast path on this CPU? (Intel MKL on AMD processors.)

torch's CPU wheels do their matrix products in Intel MKL. MKL picks its kernels by asking whether the CPU is
an Intel one (an internal function, ``mkl_serv_intel_cpu_true``), and on other vendors' CPUs it takes a
generic path even when they have the same vector instructions. This script measures what that costs: it
compiles a one-line library that answers "yes" (gcc or cc needed), then times, in fresh processes with and
without it preloaded (``LD_PRELOAD``), a small matrix product, a Linear layer's forward and backward, and
the replay algorithms' torch gradient steps (``update_cost.py``). On an Intel CPU both columns should agree.

The preload is a measurement, not a recommendation: it overrides an undocumented MKL internal and is not
part of rlkit. TensorFlow's CPU build uses oneDNN, which checks the instructions a CPU has rather than its
vendor, and is not affected.

    python benchmarks/blas_path.py                 # matmul and Linear; add --updates for the gradient steps
    python benchmarks/blas_path.py --updates --repeats 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rlkit.hardware import cpu_model, cpu_vendor

SHIM = "int mkl_serv_intel_cpu_true(void) { return 1; }\n"

#: Run in a fresh process: CPU microseconds of a 256x64 @ 64x64 product and of a Linear(64, 64) forward and
#: backward on a batch of 256, one thread, medians of 7 rounds of 2,000 calls.
PROBE = """
import time, numpy as np, torch
torch.set_num_threads(1)
x, w = torch.randn(256, 64), torch.randn(64, 64)
layer = torch.nn.Linear(64, 64)
xg = torch.randn(256, 64, requires_grad=True)
def linear():
    layer(xg).sum().backward()
for name, call in (("matmul 256x64 @ 64x64", lambda: x @ w), ("Linear(64, 64) forward + backward", linear)):
    rounds = []
    for _ in range(7):
        start = time.process_time()
        for _ in range(2000):
            call()
        rounds.append((time.process_time() - start) / 2000 * 1e6)
    print(f"{name}\\t{np.median(rounds):.1f}")
"""


def build_shim(folder: Path) -> Path:
    """Compile the one-function library into ``folder``; a clear error when no C compiler is found."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("blas_path.py needs a C compiler (gcc or cc) to build the preload library")
    source, library = folder / "intel_cpu_true.c", folder / "libintel_cpu_true.so"
    source.write_text(SHIM)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return library


def run(command: list[str], preload: Path | None) -> str:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if preload is not None:
        env["LD_PRELOAD"] = str(preload)
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout


def probe_rows(preload: Path | None) -> dict[str, float]:
    rows = run([sys.executable, "-c", PROBE], preload).strip().splitlines()
    return {name: float(value) for name, value in (row.split("\t") for row in rows)}


def update_rows(preload: Path | None, repeats: int) -> dict[str, float]:
    """torch CPU ms per gradient step of each replay algorithm, from ``update_cost.py``'s table."""
    script = Path(__file__).with_name("update_cost.py")
    out = run([sys.executable, str(script), "--frameworks", "torch", "--repeats", str(repeats)], preload)
    return {f"{line.split()[0]} gradient step (ms)": float(line.split()[-1]) for line in out.splitlines()[1:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--updates", action="store_true", help="also time the replay algorithms' torch steps")
    parser.add_argument("--repeats", type=int, default=3, help="bursts per algorithm with --updates")
    args = parser.parse_args()
    import torch

    blas = "Intel MKL" if "Math Kernel Library" in torch.__config__.show() else "not MKL"
    print(f"CPU: {cpu_model()} (vendor {cpu_vendor()}); torch {torch.__version__}, BLAS: {blas}")
    with tempfile.TemporaryDirectory() as folder:
        shim = build_shim(Path(folder))
        rows = [probe_rows(None), probe_rows(shim)]
        if args.updates:
            rows[0] |= update_rows(None, args.repeats)
            rows[1] |= update_rows(shim, args.repeats)
    print(f"{'CPU time per call (us unless stated)':<40} {'as shipped':>11} {'MKL told Intel':>15} {'ratio':>6}")
    for name, plain in rows[0].items():
        told = rows[1][name]
        print(f"{name:<40} {plain:>11.2f} {told:>15.2f} {plain / told:>6.2f}")


if __name__ == "__main__":
    main()
