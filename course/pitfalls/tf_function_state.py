"""Claims C22 and C23: Python state inside a ``tf.function`` is read once, when the function is traced.

``tf.function`` runs the Python body once per input signature to build a graph, then replays the graph.
A Python ``int`` counter, an ``if`` on it, and ``np.random`` all run only during that trace: their values
are baked into the graph as constants. ``tf.Variable`` counters, tensor conditions and ``tf.random`` ops
are part of the graph and run on every call.
"""

from __future__ import annotations

import numpy as np

#: The ways of counting TD3's gradient steps inside a ``tf.function``, as (key, description) pairs.
COUNTER_FORMS = (
    ("attribute", "a Python int attribute, read and incremented inside"),
    ("int argument", "the step passed in as a Python int"),
    ("variable", "a tf.Variable, incremented inside"),
    ("tensor argument", "the step passed in as a tensor"),
)


def delayed_update_counts(calls: int = 10, delay: int = 2) -> dict[str, dict[str, float]]:
    """TD3's "update the actor every ``delay`` steps" in a ``tf.function``, with each of :data:`COUNTER_FORMS`.

    Each form is called ``calls`` times, as steps 1, 2, ..., ``calls``. Returned per form: ``traces`` (how
    often the Python body ran), ``actor_updates`` (how often the delayed branch ran in the graph),
    ``expected_updates`` (``calls // delay``, what a correct delay gives), ``due_steps`` (the steps whose
    call updated the actor), ``counter`` (the counter's value after the last call; the last step passed for
    the argument forms), ``ms_per_call`` (mean wall time of a call, tracing included) and
    ``retracing_warnings`` (TensorFlow's "triggered tf.function retracing" warnings during the calls).

    Why the forms differ: a Python value read inside the body is read once, while tracing, and an ``if`` on it
    is decided then; a Python argument is part of the trace's cache key, so every new value traces the
    function again (correct, at the cost of one trace per value); a ``tf.Variable`` or a tensor argument is
    read by the graph on every call, so autograph turns the ``if`` into ``tf.cond`` and one trace serves all.
    """
    import logging
    import time

    import tensorflow as tf

    class RetracingWarnings(logging.Handler):
        """Counts TensorFlow's "triggered tf.function retracing" warnings."""

        def __init__(self) -> None:
            super().__init__(logging.WARNING)
            self.count = 0

        def emit(self, record: logging.LogRecord) -> None:
            self.count += "retracing" in record.getMessage()

    class Form:
        def __init__(self, key: str) -> None:
            self.key, self.traces, self.python_steps = key, 0, 0
            self.variable_steps = tf.Variable(0)
            self.actor_updates = tf.Variable(0)
            self.due_steps: list[int] = []
            self.call = tf.function(self._step)

        def _step(self, step=None):
            self.traces += 1  # a Python side effect: it happens only while tracing
            if self.key == "attribute":
                self.python_steps += 1  # runs once per trace, not once per call
                due = self.python_steps % delay == 0  # a Python bool, decided at trace time
            elif self.key == "variable":
                self.variable_steps.assign_add(1)
                due = self.variable_steps % delay == 0  # a tensor: autograph makes the if a tf.cond
            else:  # the step as an argument: a Python int (one trace per value) or a tensor (a tf.cond)
                due = step % delay == 0
            if due:
                self.actor_updates.assign_add(1)
            return self.actor_updates.read_value()

    results, logger = {}, logging.getLogger("tensorflow")
    for key, _ in COUNTER_FORMS:
        form, updates_before, times, warnings = Form(key), 0, [], RetracingWarnings()
        logger.addHandler(warnings)
        for step in range(1, calls + 1):
            arguments = {"int argument": (step,), "tensor argument": (tf.constant(step),)}.get(key, ())
            start = time.perf_counter()
            updates = int(form.call(*arguments))  # the counter forms take no argument: nothing to retrace on
            times.append(time.perf_counter() - start)
            if updates > updates_before:
                form.due_steps.append(step)
            updates_before = updates
        logger.removeHandler(warnings)
        counter = {"attribute": form.python_steps, "variable": int(form.variable_steps.numpy())}.get(key, calls)
        results[key] = {
            "traces": form.traces,
            "actor_updates": int(form.actor_updates.numpy()),
            "expected_updates": calls // delay,
            "due_steps": form.due_steps,
            "counter": counter,
            "ms_per_call": 1e3 * float(np.mean(times)),
            "retracing_warnings": warnings.count,
        }
    return results


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
