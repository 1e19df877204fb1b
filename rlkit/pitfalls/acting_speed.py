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


def _microseconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm up (and trace, for tf.function)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e6


def time_forward_passes(hidden: tuple[int, ...] = (64, 64), batch: int = 1, repeats: int = 200) -> dict:
    """Microseconds per forward pass of a ReLU MLP (4 inputs, 2 outputs) in each way of calling it."""
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
