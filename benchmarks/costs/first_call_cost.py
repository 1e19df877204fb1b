"""Benchmark: what an actor-critic learner costs before its first update is done, and per update after.

For PPO and A2C with their CartPole-v1 defaults (PPO also with its Pendulum-v1 ones), in each framework,
in a fresh process per measurement (tracing caches are per process): seconds to build the learner, to
compute the first rollout's values and old log-probabilities, run the first update on it and read the
weights back (all a rollout asks of the learner), and then milliseconds per such rollout once traced.
The frameworks alternate (torch, tf, torch, ...) so that a busy machine slows both alike.
Wall and CPU seconds are both reported.

A rollout asks four things of the learner: the values and old log-probabilities, the learning rate set,
the update, and the weights read back once (the acting copy's refresh; the NaN check reads the same arrays).
A second table splits the traced rollout's CPU time into those parts, beside the cheapest call of each
framework (torch: an add of two one-element tensors; TensorFlow: the concrete function of a traced function
that adds one to its one-element input, called as the learners call theirs), the per-call floor of any
part.

    python -m benchmarks.costs.first_call_cost                     # 3 repeats of each case
    python -m benchmarks.costs.first_call_cost --repeats 5 --updates 50
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CASES = [("ppo", "CartPole-v1"), ("a2c", "CartPole-v1"), ("ppo", "Pendulum-v1")]
#: What a rollout asks of the learner, in the loop's order (the second table's columns).
PARTS = ("values", "learning_rate", "update", "weights")


def clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> list[float]:
    wall, cpu = clocks()
    return [wall - start[0], cpu - start[1]]


def measure(algo: str, env: str, framework: str, updates: int) -> dict:
    """One learner's phases in this process, each as [wall s, CPU s]; ``update_ms`` per traced update."""
    import rlkit  # noqa: F401  (the package itself, before any framework)
    from rlkit.algos.a2c.agent import A2CAgent
    from rlkit.algos.actor_critic.agent import action_dim, minibatch_indices
    from rlkit.algos.ppo.agent import PPOAgent
    from rlkit.envs import make_vec_env, space_info

    start = clocks()
    if framework == "torch":
        import torch  # noqa: F401
    else:
        import tensorflow  # noqa: F401
    result = {"import": since(start)}
    agent_class = {"ppo": PPOAgent, "a2c": A2CAgent}[algo]
    config = agent_class.config_class.for_env(env)
    envs = make_vec_env(env, 1, seed=0)
    action = space_info(envs.single_action_space)
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    n_actions = action_dim(action)
    rng = np.random.default_rng(0)
    size = config.num_envs * config.num_steps
    obs = rng.normal(size=(size + config.num_envs, obs_dim)).astype(np.float32)
    if action["discrete"]:
        actions = rng.integers(0, n_actions, size)
    else:
        actions = rng.normal(size=(size, n_actions)).astype(np.float32)

    start = clocks()
    learner = agent_class.learner_class(framework)(obs_dim, n_actions, action["discrete"], config, 0)
    learner.get_weights()  # the agent's first refresh, when it is built
    result["build"] = since(start)

    parts = dict.fromkeys(PARTS, 0.0)

    def timed(part: str, call):
        start = time.process_time()
        output = call()
        parts[part] += time.process_time() - start
        return output

    def one_update() -> None:  # what RolloutLoop.advance asks of the learner per rollout
        values, old_log_probs = timed("values", lambda: learner.values_and_log_probs(obs, actions))
        batch = {
            "obs": obs[:size],
            "actions": actions,
            "old_log_probs": old_log_probs.astype(np.float32),
            "advantages": rng.normal(size=size).astype(np.float32),
            "returns": values[:size].astype(np.float32),
            "old_values": values[:size].astype(np.float32),
        }
        minibatches = np.stack([minibatch_indices(size, config.num_minibatches, rng) for _ in range(config.epochs)])
        timed("learning_rate", lambda: learner.set_learning_rate(config.learning_rate))
        timed("update", lambda: learner.update(batch, minibatches, config.clip_range, np.inf))
        timed("weights", learner.get_weights)  # the refresh (the NaN check reads the same arrays)

    start = clocks()
    one_update()
    result["first_update"] = since(start)
    one_update()  # a second call can still trace (a new constant, a new shape)
    parts.update(dict.fromkeys(PARTS, 0.0))
    start = clocks()
    for _ in range(updates):
        one_update()
    wall, cpu = since(start)
    result["update_ms"] = [1e3 * wall / updates, 1e3 * cpu / updates]
    result["parts_ms"] = {part: 1e3 * seconds / updates for part, seconds in parts.items()}
    result["cheapest_call_ms"] = cheapest_call_ms(framework)
    return result


def cheapest_call_ms(framework: str, calls: int = 2_000) -> float:
    """CPU ms of the framework's cheapest call from Python: a one-element add (torch), the concrete function
    of a traced function adding one to a one-element tensor (TensorFlow), the median of five rounds of
    ``calls``."""
    if framework == "torch":
        import torch

        x = torch.ones(1)

        def call():
            return torch.add(x, 1.0)
    else:
        import tensorflow as tf

        x = tf.ones(1)
        add_one = tf.function(lambda value: value + 1.0).get_concrete_function(tf.TensorSpec((1,)))

        def call():
            return add_one(x)

    call()  # a first call, untimed
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            call()
        rounds.append((time.process_time() - start) / calls)
    return 1e3 * float(np.median(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--updates", type=int, default=30, help="traced updates timed per process")
    parser.add_argument("--frameworks", nargs="+", default=["torch", "tf"], choices=["torch", "tf"])
    parser.add_argument("--one", nargs=3, metavar=("ALGO", "ENV", "FRAMEWORK"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one, updates=args.updates)))
        return
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    for algo, task in CASES:
        runs: dict[str, list[dict]] = {framework: [] for framework in args.frameworks}
        for _ in range(args.repeats):
            for framework in args.frameworks:
                # -m: the measurement imports this checkout's rlkit (a file's path would find the installed one)
                one = ["--updates", str(args.updates), "--one", algo, task, framework]
                command = [sys.executable, "-m", __spec__.name, *one]
                output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
                runs[framework].append(json.loads(output.strip().splitlines()[-1]))
        print(f"== {algo} on {task} (medians of {args.repeats} processes; wall / CPU)")
        print(f"{'framework':<9} {'build s':>13} {'first update s':>15} {'ms per rollout':>15}")
        for framework, results in runs.items():
            cells = []
            for phase, scale in (("build", "{:.2f}"), ("first_update", "{:.2f}"), ("update_ms", "{:.1f}")):
                wall, cpu = np.median([result[phase] for result in results], axis=0)
                cells.append(f"{scale.format(wall)} / {scale.format(cpu)}")
            print(f"{framework:<9} {cells[0]:>13} {cells[1]:>15} {cells[2]:>15}", flush=True)
        print(f"CPU ms per traced rollout, by part: {' '.join(f'{part:>13}' for part in PARTS)} {'cheapest call':>13}")
        for framework, results in runs.items():
            cells = [np.median([result["parts_ms"][part] for result in results]) for part in PARTS]
            cheapest = np.median([result["cheapest_call_ms"] for result in results])
            print(f"{framework:<34} {' '.join(f'{cell:>13.3f}' for cell in cells)} {cheapest:>13.4f}", flush=True)
        print()


if __name__ == "__main__":
    main()
