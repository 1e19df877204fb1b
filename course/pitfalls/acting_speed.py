"""Why agents act through numpy: the cost of one small forward pass in each framework.

Acting calls the policy once per environment step with a tiny batch, so the fixed cost of a framework call
dominates the arithmetic. This measures that cost for the same MLP in numpy, torch (``inference_mode``),
a TensorFlow ``tf.function``, an eager Keras call and ``keras.Model.predict``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from rlkit.nets import mlp_forward


def _microseconds(fn: Callable[[], object], repeats: int, rounds: int = 5) -> float:
    """Microseconds per call of ``fn``: the fastest of ``rounds`` rounds of ``repeats / rounds`` calls.

    The minimum is the cost of the call itself; a mean would add whatever other processes took from this
    one while it ran (on a busy machine, several times the cost being measured).
    """
    fn()  # warm up (and trace, for tf.function)
    calls = max(1, repeats // rounds)
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        per_call.append((time.perf_counter() - start) / calls)
    return min(per_call) * 1e6


def time_forward_passes(hidden: tuple[int, ...] = (64, 64), batch: int = 1, repeats: int = 200) -> dict:
    """Microseconds per forward pass of a ReLU MLP (4 inputs, 2 outputs) in each way of calling it
    (``keras.Model.predict``, far slower, is called ``repeats / 40`` times, at least 5)."""
    import keras
    import tensorflow as tf
    import torch

    from rlkit.algos.dqn.tf import build_q_network as build_keras
    from rlkit.algos.dqn.torch import build_q_network as build_torch
    from rlkit.hardware import configure_tensorflow, configure_torch

    configure_torch()
    configure_tensorflow()
    obs = np.random.default_rng(0).normal(size=(batch, 4)).astype(np.float32)
    torch_net, keras_net = build_torch(4, 2, hidden), build_keras(4, 2, hidden)
    weights = keras_net.get_weights()
    traced = tf.function(lambda x: keras_net(x, training=False))

    def torch_call():
        with torch.inference_mode():
            return torch_net(torch.from_numpy(obs)).numpy()

    timings = {
        "numpy": _microseconds(lambda: mlp_forward(weights, obs), repeats),
        "torch": _microseconds(torch_call, repeats),
        "tf.function": _microseconds(lambda: traced(obs).numpy(), repeats),
        "keras eager": _microseconds(lambda: keras_net(obs, training=False).numpy(), repeats),
        "keras predict": _microseconds(lambda: keras_net.predict(obs, verbose=0), max(5, repeats // 40)),
    }
    del keras
    return timings


def _dqn_burst(steps: int, batch_size: int, seed: int = 0) -> dict[str, np.ndarray]:
    """A burst of ``steps`` random CartPole-sized batches that satisfy the DQN contract, stacked (K, B, ...)."""
    rng = np.random.default_rng(seed)
    shape = (steps, batch_size)
    return {
        "obs": rng.normal(size=(*shape, 4)).astype(np.float32),
        "actions": rng.integers(0, 2, size=shape).astype(np.int64),
        "rewards": np.ones(shape, dtype=np.float32),
        "next_obs": rng.normal(size=(*shape, 4)).astype(np.float32),
        "terminated": (rng.random(shape) < 0.05).astype(np.float32),
    }


def time_update_steps(
    framework: str, steps: int = 64, repeats: int = 5, threads: int | None = None, batch_size: int = 128
) -> dict[str, float]:
    """Milliseconds of wall time and of CPU time (all the process's threads) per DQN gradient step.

    The learner is DQN's with its default config on CartPole's sizes, run as the training loop runs it: one
    ``update_many`` call per burst of ``steps`` batches (torch steps eagerly, TensorFlow runs the burst in one
    ``tf.function``, traced by a first, untimed call). Each number is the least of ``repeats`` bursts, as for
    the forward passes, so that what other programs take from the machine counts as little as it can.
    ``threads`` sets torch's intra-op threads for the measurement only (rlkit's setting is restored after);
    TensorFlow fixes its thread pools when it starts.
    """
    import torch

    from rlkit.algos.dqn import DQNConfig
    from rlkit.algos.dqn.agent import learner_class
    from rlkit.hardware import configure_torch

    if threads is not None and framework != "torch":
        raise ValueError("threads can be changed at run time for torch only; TensorFlow fixes them at start")
    learner = learner_class(framework)(4, 2, DQNConfig(), 0)
    burst = _dqn_burst(steps, batch_size)
    learner.update_many(burst)  # warm up (and trace, for TensorFlow)
    if threads is not None:
        torch.set_num_threads(threads)
    walls, cpus = [], []
    try:
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            learner.update_many(burst)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    finally:
        configure_torch()
    return {"wall_ms": min(walls) / steps * 1e3, "cpu_ms": min(cpus) / steps * 1e3}
