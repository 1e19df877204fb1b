"""Seeding every source of randomness an experiment touches (claim C32).

Python's ``random``, numpy's global state, torch and TensorFlow each have their own generator; the
environment and its action space have theirs too (gymnasium seeds them through ``reset(seed=...)`` and
``action_space.seed(...)``, which :func:`rlkit.envs.make_env` does). rlkit's own code never draws from a
global generator: each component gets a ``numpy.random.Generator`` derived from the run's seed.
"""

from __future__ import annotations

import random
import sys

import numpy as np

from rlkit.errors import RlkitError


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python, numpy and whichever of torch / TensorFlow are already imported; return a Generator.

    Frameworks that are not imported yet are not imported here (``import rlkit`` stays light); the
    algorithm seeds its framework itself when it builds its networks.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise RlkitError(f"seed must be a non-negative int, got {seed!r}")
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    # PYTHONHASHSEED is not set here: Python reads it once, at start-up (the Makefile exports it for tests)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(seed)
    if "tensorflow" in sys.modules:
        sys.modules["tensorflow"].random.set_seed(seed)
    return np.random.default_rng(seed)


def eval_seed(run_seed: int, step: int) -> int:
    """The seed of the evaluation episodes a run of seed ``run_seed`` plays at environment step ``step``.

    New episodes at every evaluation (a million seeds above the small ones runs are trained with), and the
    same ones for any library that asks: the SB3 benchmark evaluates Stable-Baselines3's runs on them too.
    """
    return 1_000_000 + 1_000 * run_seed + step
