"""Benchmark: the cost of one gradient step of each replay algorithm, torch against TF.

For each algorithm, the default config on its task builds the learner of each framework; the first burst
(TF traces it, torch compiles nothing) is timed on its own, then bursts of the default ``gradient_steps``
on random contract-valid batches are timed, the frameworks taking turns (A B A B) so a neighbour's load
falls on both. Prints ms per gradient step, wall and CPU (median of the repeats), and the torch/TF ratio.

``--solve SEED ...`` measures what the per-step cost is for: the default run with ``stop_when_solved=True``,
per seed one framework after the other (``_common.run_table``), its steps, wall and CPU seconds to solve and
their medians with the torch/TF ratio.

    python -m benchmarks.costs.update_cost                              # all five, 5 bursts each
    python -m benchmarks.costs.update_cost --algos sac td3 --repeats 9
    python -m benchmarks.costs.update_cost --solve 101 102 103 104 105  # time to solve on unseen seeds
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._common import run_table, until_solved
from rlkit.algos.actor_critic.agent import action_dim
from rlkit.envs import make_env, space_info
from rlkit.registry import ALGORITHMS

#: Each algorithm's task, the one its defaults were chosen on.
TASKS = {"dqn": "CartPole-v1", "rainbow": "CartPole-v1", "ddpg": "Pendulum-v1", "td3": "Pendulum-v1"}
TASKS["sac"] = "Pendulum-v1"


def task_sizes(env_id: str) -> tuple[int, int]:
    """Observation size and actions (discrete: their number; continuous: their dimension) of a task."""
    env = make_env(env_id)
    sizes = int(np.prod(env.observation_space.shape)), action_dim(space_info(env.action_space))
    env.close()
    return sizes


def random_burst(algo: str, learner, config, rng: np.random.Generator, env: str | None = None) -> dict[str, np.ndarray]:
    """K batches of random transitions that satisfy the learner's contract (fields stacked as (K, B, ...)),
    sized for ``env`` (default: the algorithm's task)."""
    k, b = config.gradient_steps, config.batch_size
    obs_dim, actions = task_sizes(env or TASKS[algo])
    burst = {
        "obs": rng.standard_normal((k, b, obs_dim), dtype=np.float32),
        "rewards": rng.standard_normal((k, b), dtype=np.float32),
        "next_obs": rng.standard_normal((k, b, obs_dim), dtype=np.float32),
        "terminated": (rng.random((k, b)) < 0.05).astype(np.float32),
        "discounts": np.full((k, b), config.gamma**config.n_step, dtype=np.float32),
        "weights": rng.uniform(0.1, 1.0, (k, b)).astype(np.float32),
    }
    if algo in ("dqn", "rainbow"):
        burst["actions"] = rng.integers(0, actions, (k, b))
    else:
        burst["actions"] = rng.uniform(-1.0, 1.0, (k, b, actions)).astype(np.float32)
        burst["noise"] = rng.standard_normal((k, learner.noise_draws, b, actions), dtype=np.float32)
    return burst


def timed(learner, burst: dict[str, np.ndarray]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``update_many`` call on ``burst``."""
    wall, cpu = time.perf_counter(), time.process_time()
    learner.update_many(burst)
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(
    algo: str, frameworks: list[str], repeats: int, env: str | None = None, **overrides
) -> dict[str, dict[str, float]]:
    """First-burst seconds and median ms per gradient step (wall, CPU) of each framework's learner, on
    ``env``'s sizes (default: the algorithm's task) with the config's defaults there and ``overrides``."""
    entry, env = ALGORITHMS[algo], env or TASKS[algo]
    config = entry.config_class.for_env(env, **overrides)
    obs_dim, actions = task_sizes(env)
    learners = {fw: entry.agent_class.learner_class(fw)(obs_dim, actions, config, seed=0) for fw in frameworks}
    rng = np.random.default_rng(0)
    bursts = [random_burst(algo, learners[frameworks[0]], config, rng, env) for _ in range(2)]
    results = {fw: {"first_s": timed(learners[fw], bursts[0])[0], "wall": [], "cpu": []} for fw in frameworks}
    for repeat in range(repeats):
        for fw in frameworks:  # A B A B: the frameworks take turns
            wall, cpu = timed(learners[fw], bursts[repeat % 2])
            results[fw]["wall"].append(1000 * wall / config.gradient_steps)
            results[fw]["cpu"].append(1000 * cpu / config.gradient_steps)
    return {
        fw: {"first_s": r["first_s"], "wall_ms": float(np.median(r["wall"])), "cpu_ms": float(np.median(r["cpu"]))}
        for fw, r in results.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--repeats", type=int, default=5, help="timed bursts per framework (median reported)")
    parser.add_argument("--solve", nargs="+", type=int, metavar="SEED", help="time to solve on these seeds")
    args = parser.parse_args()
    if args.solve:
        for algo in args.algos:
            print(f"== {algo} on {TASKS[algo]}, default run")
            run_table(until_solved(algo, TASKS[algo]), args.frameworks, args.solve)
        return
    print(f"{'algo':<8} {'framework':<9} {'first burst s':>13} {'wall ms/step':>12} {'CPU ms/step':>11}")
    for algo in args.algos:
        results = measure(algo, args.frameworks, args.repeats)
        for fw, r in results.items():
            print(f"{algo:<8} {fw:<9} {r['first_s']:>13.2f} {r['wall_ms']:>12.3f} {r['cpu_ms']:>11.3f}", flush=True)
        if len(results) == 2:
            torch_ms, tf_ms = results["torch"], results["tf"]
            print(
                f"{algo:<8} {'torch/tf':<9} {'':>13} {torch_ms['wall_ms'] / tf_ms['wall_ms']:>12.2f}"
                f" {torch_ms['cpu_ms'] / tf_ms['cpu_ms']:>11.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
