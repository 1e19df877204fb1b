"""Shared fixtures. Frameworks are imported lazily inside tests that need them."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

#: The benchmark scripts, the package ``benchmarks`` (``benchmarks/<kind>/<name>.py``, run with ``python -m``).
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def dqn_batch(rng: np.random.Generator, batch_size: int = 32, obs_dim: int = 4, n_actions: int = 2) -> dict:
    """A random batch that satisfies the DQN contract, with some terminal transitions."""
    return {
        "obs": rng.normal(size=(batch_size, obs_dim)).astype(np.float32),
        "actions": rng.integers(0, n_actions, size=batch_size).astype(np.int64),
        "rewards": rng.normal(size=batch_size).astype(np.float32),
        "next_obs": rng.normal(size=(batch_size, obs_dim)).astype(np.float32),
        "terminated": (rng.random(batch_size) < 0.2).astype(np.float32),
    }


def benchmark_module(name: str) -> str:
    """The module of the script ``name`` (``"endings"``: ``"benchmarks.learning.endings"``), whatever its kind."""
    (script,) = BENCHMARKS.glob(f"*/{name}.py")
    return f"benchmarks.{script.parent.name}.{name}"


def benchmark_script(name: str) -> ModuleType:
    """Import the benchmark script ``name`` (``benchmarks/<kind>/<name>.py``) by its module name, as
    ``python -m`` does."""
    return importlib.import_module(benchmark_module(name))


def run_benchmark(name: str, *arguments: str, timeout: int = 300) -> None:
    """Run ``python -m benchmarks.<kind>.<name> ARGUMENTS`` from the repository's root, as a reader would;
    fails on a non-zero exit."""
    command = [sys.executable, "-m", benchmark_module(name), *arguments]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    subprocess.run(command, check=True, capture_output=True, text=True, env=env, cwd=BENCHMARKS.parent, timeout=timeout)
