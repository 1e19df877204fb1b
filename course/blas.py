"""What Intel MKL's vendor check costs torch on this CPU (chapter 43, ``benchmarks/costs/blas_path.py``).

torch's CPU wheels multiply matrices with Intel MKL, which picks its kernels by asking whether the processor
is an Intel one (an internal function, ``mkl_serv_intel_cpu_true``); other vendors' CPUs can get a generic
path even when they have the same vector instructions. How much that costs depends on the CPU: a 256x64 @ 64x64
product ran 2.2x slower than with the check answered "Intel" on one 2-core AMD EPYC, and within 10% of it on
another (``benchmarks/RESULTS.md``). :func:`vendor_check_cost` measures it by timing the same
calls in fresh processes as shipped and with a one-line library preloaded (``LD_PRELOAD``) that answers "yes".
The preload is a measurement, not a recommendation: it overrides an undocumented MKL internal, and rlkit never
sets it for training.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

SHIM = "int mkl_serv_intel_cpu_true(void) { return 1; }\n"

#: Run in a fresh process: CPU microseconds of a 256x64 @ 64x64 product and of a Linear(64, 64) forward and
#: backward on a batch of 256, one thread, medians of ``rounds`` rounds of 2,000 calls.
PROBE = """
import sys, time, numpy as np, torch
torch.set_num_threads(1)
x, w = torch.randn(256, 64), torch.randn(64, 64)
layer = torch.nn.Linear(64, 64)
xg = torch.randn(256, 64, requires_grad=True)
def linear():
    layer(xg).sum().backward()
for name, call in (("matmul 256x64 @ 64x64", lambda: x @ w), ("Linear(64, 64) forward + backward", linear)):
    times = []
    for _ in range(int(sys.argv[1])):
        start = time.process_time()
        for _ in range(2000):
            call()
        times.append((time.process_time() - start) / 2000 * 1e6)
    print(f"{name}\\t{np.median(times):.2f}")
"""


def build_shim(folder: Path) -> Path | None:
    """Compile the one-function library into ``folder``; None when no C compiler (gcc or cc) is found."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None
    source, library = folder / "intel_cpu_true.c", folder / "libintel_cpu_true.so"
    source.write_text(SHIM)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return library


@contextmanager
def intel_shim() -> Iterator[Path | None]:
    """The one-function library, built in a temporary folder that lives as long as the ``with`` block; None
    where it cannot be used (not Linux, where ``LD_PRELOAD`` is a glibc feature, or no C compiler)."""
    if not sys.platform.startswith("linux"):
        yield None
        return
    with tempfile.TemporaryDirectory() as folder:
        yield build_shim(Path(folder))


def run_preloaded(command: list[str], preload: Path | None) -> str:
    """``command``'s standard output, run with ``preload`` in ``LD_PRELOAD`` (or without any)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    if preload is not None:
        env["LD_PRELOAD"] = str(preload)
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout


def probe(preload: Path | None, rounds: int = 7) -> dict[str, float]:
    """CPU microseconds per call of :data:`PROBE`'s two calls, in a fresh process."""
    rows = run_preloaded([sys.executable, "-c", PROBE, str(rounds)], preload).strip().splitlines()
    return {name: float(value) for name, value in (row.split("\t") for row in rows)}


def vendor_check_cost(rounds: int = 5, pairs: int = 3) -> dict[str, tuple[float, float]] | None:
    """Per call, (as shipped, MKL told "Intel") CPU microseconds; None without a C compiler or off Linux.

    ``pairs`` pairs of fresh processes, the two sides alternating (shipped, told, shipped, told, ...), and the
    median of each side: a burst of load from another process lands on both sides alike instead of on one.
    """
    with intel_shim() as shim:
        if shim is None:
            return None
        shipped, told = [], []
        for _ in range(pairs):
            shipped.append(probe(None, rounds))
            told.append(probe(shim, rounds))
    return {
        name: (float(np.median([run[name] for run in shipped])), float(np.median([run[name] for run in told])))
        for name in shipped[0]
    }
