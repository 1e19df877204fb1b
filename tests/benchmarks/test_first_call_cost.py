"""benchmarks/costs/first_call_cost.py: a rollout's learner time, whole and by part."""

from __future__ import annotations

import pytest

from tests.conftest import benchmark_script


def test_the_parts_of_a_rollout_add_up_to_no_more_than_the_rollout():
    """Each part is timed inside the rollout it belongs to: together they cannot exceed the whole (the rest is
    the batch's assembly in numpy), and each framework's cheapest call is cheaper than any part but the
    learning rate's (set without a kernel: torch sets it on its optimiser, TensorFlow keeps it for the next
    update's graph)."""
    pytest.importorskip("torch")
    first_call = benchmark_script("first_call_cost")
    result = first_call.measure("a2c", "CartPole-v1", "torch", updates=5)
    parts, (_, rollout_cpu_ms) = result["parts_ms"], result["update_ms"]
    assert set(parts) == set(first_call.PARTS)
    assert all(ms > 0 for name, ms in parts.items() if name != "learning_rate"), parts
    assert sum(parts.values()) <= rollout_cpu_ms * 1.02 + 0.01, (parts, rollout_cpu_ms)
    assert 0 < result["cheapest_call_ms"] < min(parts["values"], parts["update"], parts["weights"])
