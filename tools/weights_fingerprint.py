"""Fingerprints of every algorithm's weights after a short, fixed run: the guard of a refactor that must
not change a single number.

A restructuring of the library (moving an update into one file, composing a loop from parts) is right only
if every run it touches computes exactly what it computed before. This script trains each algorithm in
each framework, with the variants that take other code paths (Rainbow's parts, prioritized replay, n-step
returns, a fixed temperature, Ornstein-Uhlenbeck noise, a continuous PPO, DQN and PPO on MinAtar's images),
for a few thousand steps from a fixed seed, and hashes the final weights, the target networks' weights where
there are any, and the logged metrics::

    python tools/weights_fingerprint.py before.json            # on the old code
    python tools/weights_fingerprint.py after.json --compare before.json

The second call exits 1 and names every run whose hash changed. Compare on one machine only: another CPU
rounds differently, so its hashes are other hashes (nothing here is committed for that reason).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from importlib.util import find_spec
from pathlib import Path

import numpy as np

import rlkit

#: Short runs that still update many times: learning starts early and every update is a burst.
REPLAY = {"learning_starts": 300, "train_every": 100, "batch_size": 32, "eval_every": 1_000, "eval_episodes": 2}
ROLLOUT = {"eval_every": 1_024, "eval_episodes": 2}

#: Metrics that time the run: they differ between any two runs.
TIMINGS = {"steps_per_second", "fps", "wall_time"}

#: name -> (algorithm, environment, steps, overrides)
CASES: dict[str, tuple[str, str, int, dict]] = {
    "dqn": ("dqn", "CartPole-v1", 2_000, REPLAY),
    "dqn-per-nstep": ("dqn", "CartPole-v1", 2_000, {**REPLAY, "prioritized": True, "n_step": 3}),
    "dqn-dueling-single": ("dqn", "CartPole-v1", 2_000, {**REPLAY, "dueling": True, "double": False}),
    "rainbow": ("rainbow", "CartPole-v1", 2_000, {**REPLAY, "train_every": 128}),
    "rainbow-acrobot": ("rainbow", "Acrobot-v1", 1_500, {**REPLAY, "train_every": 128}),
    "a2c": ("a2c", "CartPole-v1", 2_048, ROLLOUT),
    "a2c-pendulum": ("a2c", "Pendulum-v1", 2_048, ROLLOUT),
    "ppo": ("ppo", "CartPole-v1", 2_048, ROLLOUT),
    "ppo-pendulum": ("ppo", "Pendulum-v1", 2_048, ROLLOUT),
    "ddpg": ("ddpg", "Pendulum-v1", 1_500, REPLAY),
    "ddpg-ou-per-nstep": (
        "ddpg",
        "Pendulum-v1",
        1_500,
        {**REPLAY, "exploration": "ou", "prioritized": True, "n_step": 3},
    ),
    "td3": ("td3", "Pendulum-v1", 1_500, REPLAY),
    "td3-per": ("td3", "Pendulum-v1", 1_500, {**REPLAY, "prioritized": True}),
    "sac": ("sac", "Pendulum-v1", 1_500, REPLAY),
    "sac-fixed-alpha-nstep": ("sac", "Pendulum-v1", 1_500, {**REPLAY, "auto_alpha": False, "n_step": 3}),
    # image observations: MinAtar's convolutional encoder and the image replay (the ``minatar`` extra)
    "dqn-minatar": ("dqn", "MinAtar/Breakout-v1", 1_500, REPLAY),
    "ppo-minatar": ("ppo", "MinAtar/Breakout-v1", 2_048, ROLLOUT),
}
#: The package each family of cases needs beyond rlkit's own; a case whose package is missing is skipped, said.
NEEDS = {"minatar": "minatar"}


def digest(arrays) -> str:
    hasher = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        hasher.update(str((array.shape, array.dtype.str)).encode())
        hasher.update(array.tobytes())
    return hasher.hexdigest()[:16]


def fingerprint(algo: str, env: str, steps: int, overrides: dict, framework: str) -> dict[str, str]:
    result = rlkit.train(algo, env, framework=framework, seed=3, total_steps=steps, progress=False, **overrides)
    learner = result.agent.learner
    prints = {"weights": digest(result.agent.get_weights())}
    if hasattr(learner, "target_weights"):
        prints["targets"] = digest(learner.target_weights())
    history = result.history
    learned = sorted(name for name in history.names if name not in TIMINGS)
    prints["metrics"] = digest(np.concatenate(history.series(name)) for name in learned)
    return prints


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="JSON file to write the fingerprints to")
    parser.add_argument("--compare", type=Path, help="fingerprints of the old code to compare with")
    parser.add_argument("--only", nargs="*", default=None, help="case names (default: all)")
    args = parser.parse_args()
    prints = {}
    for name, (algo, env, steps, overrides) in CASES.items():
        if args.only and name not in args.only:
            continue
        missing = [package for tag, package in NEEDS.items() if tag in name and find_spec(package) is None]
        if missing:
            print(f"{name}: skipped, needs {', '.join(missing)} (pip install -e '.[{missing[0]}]')", flush=True)
            continue
        for framework in ("torch", "tf"):
            key = f"{name}/{framework}"
            prints[key] = fingerprint(algo, env, steps, overrides, framework)
            print(key, prints[key], flush=True)
    args.out.write_text(json.dumps(prints, indent=1) + "\n")
    if args.compare is None:
        return 0
    old = json.loads(args.compare.read_text())
    changed = [key for key in prints if old.get(key) != prints[key]]
    print(f"{len(prints) - len(changed)} of {len(prints)} runs bit-identical")
    for key in changed:
        print(f"CHANGED {key}: {old.get(key)} -> {prints[key]}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
