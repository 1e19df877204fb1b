"""Benchmark: a trained policy deployed as a LiteRT file -- float32, dynamic-range and int8 -- beside the
agent's own numpy path, ONNX Runtime, a SavedModel and TorchScript.

For DQN and PPO on CartPole-v1 and SAC on Pendulum-v1, in both frameworks, it trains the default agent until
it solves (``stop_when_solved``; DQN as plain DQN, ``PLAIN_DQN``: a Q-value per action, the network whose
argmax quantization can flip; PPO and SAC with the defaults the file was measured with, ``MEASURED_WITH``),
exports it with ``rlkit.export`` (a torch agent through its TensorFlow twin), and measures for each LiteRT
file (``quantize`` None, "dynamic", "int8"):

- the file's size;
- the latency of one action for one observation (batch 1, as a robot's control loop asks), median over
  rounds in which every runner takes its turn: the agent's numpy path, onnxruntime, the SavedModel's
  serving signature, a TorchScript trace (``torch.jit.trace`` of ``export.torch_policy``) and each LiteRT
  file. The twins share their weights exactly, so a torch agent's SavedModel is its TensorFlow twin's and a
  TensorFlow agent's TorchScript its torch twin's: every row times every runtime on the same policy.
  onnxruntime and LiteRT run one thread, torch and TensorFlow as rlkit configures them (one thread unless
  ``RLKIT_THREADS`` says otherwise);
- agreement with the agent on 256 observations of its own episodes (actions equal, or the largest action
  difference for continuous actions); the float32 file acts as the agent does, so this is also the
  quantized policy's agreement with the float one;
- the mean return of 20 evaluation episodes acting through each file.

It settles what can be measured here of the source notes' claim that quantization cuts inference latency by
at least 40% on edge devices: on this x86 CPU, not on an ARM board (not measured).

    python -m benchmarks.costs.litert --out benchmarks/results/litert.json   # about 70 s on a 2-core CPU
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

import rlkit
from benchmarks._results_file import provenance
from rlkit import export
from rlkit.algos.dqn import PLAIN_DQN
from rlkit.atomic import write_text

CASES = [("dqn", "CartPole-v1"), ("ppo", "CartPole-v1"), ("sac", "Pendulum-v1")]
#: The settings ``litert.json`` was measured with where today's defaults differ: plain DQN, PPO's CartPole
#: default before it took SB3's value-loss weight, Adam epsilon and budget, and SAC's Pendulum default before
#: the endings sitting that adopted a larger step size.
MEASURED_WITH = {
    "dqn": PLAIN_DQN,
    "ppo": {"vf_coef": 0.5, "adam_eps": 1e-8, "total_steps": 60_000},
    "sac": {"learning_rate": 1e-3, "learning_starts": 1_000},
}
#: The LiteRT files, by the name the results use: float32, dynamic-range (int8 weights) and full int8.
QUANTIZE = {"float32": None, "dynamic": "dynamic", "int8": "int8"}


def latencies_us(runs: dict, obs: np.ndarray, rounds: int = 30, calls: int = 200) -> dict[str, float]:
    """Median microseconds per single-observation call of each runner, the runners taking turns each round."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            for row in obs[:calls]:
                run(row[None])
            times[name].append(1e6 * (time.perf_counter() - start) / calls)
    return {name: float(np.median(values)) for name, values in times.items()}


def episode_returns(act, env_id: str, episodes: int = 20, seed: int = 1000) -> list[float]:
    import gymnasium as gym

    env, returns = gym.make(env_id), []
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(act(np.asarray(obs, dtype=np.float32)))
            total, done = total + float(reward), terminated or truncated
        returns.append(total)
    env.close()
    return returns


def torchscript_policy(agent):
    """A function ``obs -> (action, output)`` calling a TorchScript trace of the agent's torch policy (a
    TensorFlow agent's torch twin: the same weights), as chapter 42 traces it."""
    import warnings

    import torch

    module = export.torch_policy(agent.in_framework("torch"))
    with warnings.catch_warnings():  # torch.jit.trace warns that it is deprecated (chapter 42 shows it)
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(module, torch.zeros(1, agent.obs_dim))

    def run(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            action, output = traced(torch.as_tensor(obs))
        return action.numpy(), output.numpy()

    return run


def measure(algo: str, env_id: str, framework: str, seed: int, folder: Path) -> dict:
    pinned = MEASURED_WITH.get(algo, {})
    result = rlkit.train(algo, env_id, framework=framework, seed=seed, stop_when_solved=True, progress=False, **pinned)
    agent = result.agent
    files = {
        name: export.export(agent, folder / f"{algo}-{framework}-{name}.tflite", format="litert", quantize=quantize)
        for name, quantize in QUANTIZE.items()
    }
    onnx = export.export(agent, folder / f"{algo}-{framework}.onnx")
    saved = export.export_saved_model(agent.in_framework("tf"), folder / f"{algo}-{framework}-savedmodel")
    obs = export.observations(agent, 256, seed=seed)
    policies = {name: export.litert_policy(path) for name, path in files.items()}
    runs = {
        "numpy (agent.act)": lambda o: agent.act(o),
        "onnxruntime": export.onnx_policy(onnx),
        "SavedModel": export.saved_model_policy(saved),
        "TorchScript": torchscript_policy(agent),
        **policies,
    }
    for name in ("onnxruntime", "SavedModel", "TorchScript"):  # timed only if it is the agent's policy
        parity = export.compare(agent, runs[name], obs)
        if parity.relative_output_diff > 1e-5:  # float32 rounding is 1e-7 of the outputs; a wrong policy 1
            raise RuntimeError(f"{algo} {framework}: {name} does not act as the agent: {parity}")
    discrete = export.policy_plan(agent).kind == "argmax"

    def acting(run):
        return lambda o: int(run(o[None])[0][0]) if discrete else run(o[None])[0][0]

    row = {
        "algo": algo,
        "env": env_id,
        "framework": framework,
        "seed": seed,
        "solved_at_step": result.solved_at_step,
        "latency_us": latencies_us(runs, obs),
        "returns": {"agent": float(np.mean(episode_returns(lambda o: agent.act(o), env_id)))},
    }
    for name, path in files.items():
        parity = export.compare(agent, policies[name], obs)
        row[name] = {
            "bytes": path.stat().st_size,
            "actions_equal": 1.0 - parity.action_mismatches / parity.count if discrete else None,
            "max_action_diff": parity.max_action_diff,
            "relative_output_diff": parity.relative_output_diff,
        }
        row["returns"][name] = float(np.mean(episode_returns(acting(policies[name]), env_id)))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="benchmarks/results/litert.json")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for algo, env_id in CASES:
            for framework in ("torch", "tf"):
                row = measure(algo, env_id, framework, args.seed, Path(folder))
                print(json.dumps(row), flush=True)
                rows.append(row)
    document = {"provenance": provenance("benchmarks.costs.litert"), "rows": rows}
    write_text(Path(args.out), json.dumps(document, indent=1) + "\n")  # atomic: a kill keeps the old file
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
