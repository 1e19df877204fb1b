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

#: The benchmark scripts: run as scripts, they import each other by their file names.
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


def benchmark_script(name: str) -> ModuleType:
    """Import ``benchmarks/<name>.py`` as its command line does, with the folder on the path for its own
    imports (``from compare_sb3 import ...``)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


def run_benchmark(name: str, *arguments: str, timeout: int = 300) -> None:
    """Run ``python benchmarks/<name>.py ARGUMENTS`` from the repository's root, as a reader would; fails on a
    non-zero exit."""
    command = [sys.executable, str(BENCHMARKS / f"{name}.py"), *arguments]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    subprocess.run(command, check=True, capture_output=True, text=True, env=env, cwd=BENCHMARKS.parent, timeout=timeout)
