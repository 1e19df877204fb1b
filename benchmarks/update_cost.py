"""Benchmark: the cost of one gradient step of each replay algorithm, torch against TF.

For each algorithm, the default config on its task builds the learner of each framework; the first burst
(TF traces it, torch compiles nothing) is timed on its own, then bursts of the default ``gradient_steps``
on random contract-valid batches are timed, the frameworks taking turns (A B A B) so a neighbour's load
falls on both. Prints ms per gradient step, wall and CPU (median of the repeats), and the torch/TF ratio.

``--solve SEED ...`` measures what the per-step cost is for: the default run with ``stop_when_solved=True``,
per seed one framework after the other, its wall and CPU seconds (the CPU of the whole call, building the
agent included) and the median of each with the torch/TF ratio.

    python benchmarks/update_cost.py                              # all five, 5 bursts each
    python benchmarks/update_cost.py --algos sac td3 --repeats 9
    python benchmarks/update_cost.py --solve 101 102 103 104 105  # time to solve on unseen seeds
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import rlkit
from rlkit.api import ALGORITHMS

#: Each algorithm's task, the one its defaults were chosen on.
TASKS = {"dqn": "CartPole-v1", "rainbow": "CartPole-v1", "ddpg": "Pendulum-v1", "td3": "Pendulum-v1"}
TASKS["sac"] = "Pendulum-v1"
#: Observation size and actions (discrete: their number; continuous: their dimension) of each task.
SPACES = {"CartPole-v1": (4, 2), "Pendulum-v1": (3, 1)}


def random_burst(algo: str, learner, config, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """K batches of random transitions that satisfy the learner's contract (fields stacked as (K, B, ...))."""
    k, b = config.gradient_steps, config.batch_size
    obs_dim, actions = SPACES[TASKS[algo]]
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


def measure(algo: str, frameworks: list[str], repeats: int) -> dict[str, dict[str, float]]:
    """First-burst seconds and median ms per gradient step (wall, CPU) of each framework's learner."""
    entry = ALGORITHMS[algo]
    config = entry.config_class.for_env(TASKS[algo])
    obs_dim, actions = SPACES[TASKS[algo]]
    learners = {fw: entry.agent_class.learner_class(fw)(obs_dim, actions, config, seed=0) for fw in frameworks}
    rng = np.random.default_rng(0)
    bursts = [random_burst(algo, learners[frameworks[0]], config, rng) for _ in range(2)]
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


def solve(algo: str, frameworks: list[str], seeds: list[int]) -> dict[str, dict[str, list]]:
    """Steps, wall and CPU seconds to solve of each framework's default run, the frameworks taking turns."""
    results = {fw: {"steps": [], "wall": [], "cpu": []} for fw in frameworks}
    for seed in seeds:
        for fw in frameworks:
            cpu = time.process_time()
            result = rlkit.train(algo, env=TASKS[algo], framework=fw, seed=seed, progress=False, stop_when_solved=True)
            cpu = time.process_time() - cpu
            step = "-" if result.solved_at_step is None else f"{result.solved_at_step:,}"
            print(f"{algo:<8} {fw:<9} {seed:>5} {step:>8} {result.wall_time:>7.1f} {cpu:>6.1f}", flush=True)
            # an unsolved run counts with its whole budget's time (the median row says how many solved)
            if result.solved_at_step is not None:
                results[fw]["steps"].append(result.solved_at_step)
            results[fw]["wall"].append(result.wall_time)
            results[fw]["cpu"].append(cpu)
    return results


def print_solve(algo: str, results: dict[str, dict[str, list]], seeds: list[int]) -> None:
    """Each framework's medians (steps of the solved runs, wall and CPU of all) and the torch/TF ratio."""
    medians = {
        fw: {key: float(np.median(v)) if v else float("nan") for key, v in r.items()} for fw, r in results.items()
    }
    for fw, m in medians.items():
        solved = len(results[fw]["steps"])
        print(f"{algo:<8} {fw:<9} median {solved}/{len(seeds)} {m['steps']:>8,.0f} {m['wall']:>7.1f} {m['cpu']:>6.1f}")
    if len(medians) == 2:
        ratio = {key: medians["torch"][key] / medians["tf"][key] for key in ("wall", "cpu")}
        print(f"{algo:<8} torch/tf {'':>24} {ratio['wall']:>7.2f} {ratio['cpu']:>6.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--algos", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--repeats", type=int, default=5, help="timed bursts per framework (median reported)")
    parser.add_argument("--solve", nargs="+", type=int, metavar="SEED", help="time to solve on these seeds")
    args = parser.parse_args()
    if args.solve:
        print(f"{'algo':<8} {'framework':<9} {'seed':>5} {'solved':>8} {'wall s':>7} {'CPU s':>6}")
        for algo in args.algos:
            print_solve(algo, solve(algo, args.frameworks, args.solve), args.solve)
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
