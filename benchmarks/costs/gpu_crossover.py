"""Benchmark: where a GPU starts to pay for rlkit's updates and acting, network width x batch size.

Times one Adam step of an MLP (:func:`course.timing.time_update`) and of the MinAtar-sized convolutional
Q-network (:func:`course.timing.time_cnn_update`), and one forward pass (:func:`course.timing.time_forward`,
and numpy's), on the CPU and on a CUDA device, each starting from numpy arrays and ending when the device is
done, and writes the medians to a JSON file that chapter 43 reads (``benchmarks/gpu_crossover.json``;
:func:`course.timing.crossover_tables` prints it), with the same update steps in bf16 and fp16
(``precision=``, chapter 44). Its sections and their keys:

- ``update_ms``: the MLP, fp32, ``"<device> w<width> b<batch>"`` (``"cuda w256 b2048"``);
- ``update_ms_low_precision``: the MLP, ``"<device> <bf16|fp16> w<width> b<batch>"``;
- ``cnn_update_ms``: the CNN, ``"<device> b<batch>"`` in fp32, ``"<device> <bf16|fp16> b<batch>"``;
- ``act_us``: acting, ``"<numpy|device> w<width> b<batch>"``, in microseconds (the others in ms).

Run it on a machine with a GPU:

    python -m benchmarks.costs.gpu_crossover                  # needs CUDA; writes benchmarks/gpu_crossover.json
    python -m benchmarks.costs.gpu_crossover --cpu-only --output cpu.json   # the CPU half alone
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path

from course.timing import time_cnn_update, time_forward, time_update
from rlkit.atomic import write_text

WIDTHS = (64, 256, 1024)
UPDATE_BATCHES = (32, 256, 2048)
ACT_BATCHES = (1, 32, 1024)


def measure(devices: list[str]) -> dict:
    import torch

    results: dict = {
        "torch": torch.__version__,
        "cuda_build": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "cpu": f"{platform.machine()}, {os.cpu_count()} CPUs, {torch.get_num_threads()} thread(s) used",
        "update_ms": {},
        "act_us": {},
    }
    for device in devices:
        for width in WIDTHS:
            for batch in UPDATE_BATCHES:
                key = f"{device} w{width} b{batch}"
                results["update_ms"][key] = round(time_update(width, batch, device) * 1e3, 4)
                print(f"update {key}: {results['update_ms'][key]} ms", flush=True)
    # mixed precision (rlkit/precision.py, chapter 44): the same steps with the layers in 16 bits; on a GPU
    # with tensor cores this is where they pay, on a CPU bf16 needs its AVX-512 BF16 or AMX instructions
    results["update_ms_low_precision"] = {}
    for device in devices:
        for precision in ("bf16", "fp16"):
            for width in WIDTHS:
                for batch in UPDATE_BATCHES:
                    key = f"{device} {precision} w{width} b{batch}"
                    seconds = time_update(width, batch, device, precision=precision)
                    results["update_ms_low_precision"][key] = round(seconds * 1e3, 4)
                    print(f"update {key}: {results['update_ms_low_precision'][key]} ms", flush=True)
    # the MinAtar-sized CNN (chapter 43): its convolution has few weights but runs at every position of
    # every grid, so a sample costs it more arithmetic than the 256-wide MLP
    results["cnn_update_ms"] = {}
    for device in devices:
        for precision in ("fp32", "bf16", "fp16"):
            for batch in UPDATE_BATCHES:
                key = f"{device} b{batch}" if precision == "fp32" else f"{device} {precision} b{batch}"
                seconds = time_cnn_update(batch, device, precision=precision)
                results["cnn_update_ms"][key] = round(seconds * 1e3, 4)
                print(f"cnn update {key}: {results['cnn_update_ms'][key]} ms", flush=True)
    for device in ["numpy", *devices]:
        for width in WIDTHS:
            for batch in ACT_BATCHES:
                key = f"{device} w{width} b{batch}"
                results["act_us"][key] = round(time_forward(width, batch, device) * 1e6, 2)
                print(f"act {key}: {results['act_us'][key]} us", flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default=str(Path(__file__).parents[1] / "gpu_crossover.json"))
    parser.add_argument("--cpu-only", action="store_true", help="measure the CPU alone (no GPU needed)")
    args = parser.parse_args()
    import torch

    from rlkit.hardware import configure_torch

    configure_torch()  # one thread, as rlkit trains
    if not args.cpu_only and not torch.cuda.is_available():
        print("no CUDA device: run this on a GPU machine, or pass --cpu-only", file=sys.stderr)
        return 2
    devices = ["cpu"] if args.cpu_only else ["cpu", "cuda"]
    # atomic: a kill during the long measurement keeps the previous file whole
    write_text(Path(args.output), json.dumps(measure(devices), indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
