"""Benchmark: numpy's BLAS threads, as numpy ships them (one per core) against rlkit's one.

Acting and the buffers run in numpy, whose OpenBLAS starts a thread per core and keeps them spinning
between calls; ``rlkit.hardware.configure_numpy`` (applied whenever a framework is configured) holds them to
``RLKIT_THREADS``. For each seed, DQN's default run on CartPole-v1 with ``stop_when_solved=True``, torch and
TF, in fresh processes, each arm twice: each framework alone, then the two frameworks side by side, as
pytest's two workers or a benchmark's two processes run on a 2-core machine. The "numpy's default" arm
replaces ``configure_numpy`` with a no-op in its process, which is the behaviour before rlkit set it.
Prints steps, wall and CPU seconds to solve; the steps must not change between the arms.

    python -m benchmarks.costs.blas_threads
    python -m benchmarks.costs.blas_threads --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

RUN = """
import json, sys, time
import rlkit
import rlkit.hardware
framework, seed, arm = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if arm == "numpy's default":
    rlkit.hardware.configure_numpy = lambda threads=None: None
rlkit.train("dqn", env="CartPole-v1", framework=framework, seed=seed, total_steps=1_000, progress=False)  # warm-up
wall, cpu = time.perf_counter(), time.process_time()
result = rlkit.train("dqn", env="CartPole-v1", framework=framework, seed=seed, stop_when_solved=True, progress=False)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"steps": result.solved_at_step, "wall_s": wall, "cpu_s": cpu}))
"""

ARMS = ("numpy's default", "rlkit's threads")


def start(framework: str, seed: int, arm: str) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if not key.endswith("_NUM_THREADS")}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    return subprocess.Popen(
        [sys.executable, "-c", RUN, framework, str(seed), arm], stdout=subprocess.PIPE, text=True, env=env
    )


def finish(process: subprocess.Popen) -> dict:
    out, _ = process.communicate()
    if process.returncode:
        raise RuntimeError(f"a benchmark process failed with exit code {process.returncode}")
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    print(f"{'seed':>4} {'how':>13} {'arm':>16} {'framework':>9} {'steps':>7} {'wall s':>7} {'CPU s':>7}")
    for seed in args.seeds:
        for arm in ARMS:
            alone = {framework: finish(start(framework, seed, arm)) for framework in ("torch", "tf")}
            processes = {framework: start(framework, seed, arm) for framework in ("torch", "tf")}
            together = {framework: finish(process) for framework, process in processes.items()}
            for how, results in (("alone", alone), ("side by side", together)):
                for framework, r in results.items():
                    print(
                        f"{seed:>4} {how:>13} {arm:>16} {framework:>9} {r['steps']:>7} "
                        f"{r['wall_s']:>7.2f} {r['cpu_s']:>7.2f}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
