"""Claims C22 and C23: Python state inside a ``tf.function`` is read once, when the function is traced.

``tf.function`` runs the Python body once per input signature to build a graph, then replays the graph.
A Python ``int`` counter, an ``if`` on it, and ``np.random`` all run only during that trace: their values
are baked into the graph as constants. ``tf.Variable`` counters, tensor conditions and ``tf.random`` ops
are part of the graph and run on every call.
"""

from __future__ import annotations

import numpy as np


def delayed_update_counts(calls: int = 10, delay: int = 2) -> dict[str, int]:
    """TD3's "update the actor every ``delay`` steps" in a tf.function, counting with a Python int or a tf.Variable."""
    import tensorflow as tf

    class PythonCounter:
        def __init__(self) -> None:
            self.steps, self.traces = 0, 0
            self.actor_updates = tf.Variable(0)
            self.step = tf.function(self._step)

        def _step(self):
            self.traces += 1  # Python side effect: happens only while tracing
            self.steps += 1
            if self.steps % delay == 0:  # a Python bool: decided once, at trace time
                self.actor_updates.assign_add(1)
            return tf.constant(0)

    class VariableCounter:
        def __init__(self) -> None:
            self.steps, self.traces = tf.Variable(0), 0
            self.actor_updates = tf.Variable(0)
            self.step = tf.function(self._step)

        def _step(self):
            self.traces += 1
            self.steps.assign_add(1)
            if self.steps % delay == 0:  # a tensor: autograph turns the if into tf.cond, decided every call
                self.actor_updates.assign_add(1)
            return tf.constant(0)

    python, variable = PythonCounter(), VariableCounter()
    for _ in range(calls):
        python.step()
        variable.step()
    return {
        "calls": calls,
        "python_traces": python.traces,
        "python_counter": python.steps,
        "python_actor_updates": int(python.actor_updates.numpy()),
        "variable_traces": variable.traces,
        "variable_counter": int(variable.steps.numpy()),
        "variable_actor_updates": int(variable.actor_updates.numpy()),
    }


def noise_inside_tf_function(calls: int = 5, seed: int = 0) -> dict[str, np.ndarray]:
    """The exploration noise a tf.function returns over ``calls`` calls: from np.random, tf.random, or an input."""
    import tensorflow as tf

    np.random.seed(seed)
    generator = tf.random.Generator.from_seed(seed)
    rng = np.random.default_rng(seed)

    @tf.function
    def numpy_noise(action):
        return action + np.random.normal(0.0, 0.1)  # evaluated once, during tracing: a constant in the graph

    @tf.function
    def tf_noise(action):
        return action + generator.normal([], stddev=0.1)  # a graph op: a new draw on every call

    @tf.function
    def noise_as_input(action, noise):
        return action + noise  # drawn outside (rlkit's way): the function only adds it

    zero = tf.constant(0.0)
    return {
        "np.random inside": np.array([float(numpy_noise(zero)) for _ in range(calls)]),
        "tf.random inside": np.array([float(tf_noise(zero)) for _ in range(calls)]),
        "noise passed in": np.array(
            [float(noise_as_input(zero, tf.constant(0.1 * rng.standard_normal(), tf.float32))) for _ in range(calls)]
        ),
    }
