"""benchmarks/costs/eager_floor.py: the floor of torch's eager gradient step, beside TensorFlow's step."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import benchmark_script, run_benchmark


def tiny_ddpg_learner(gradient_steps: int = 2):
    from rlkit.registry import ALGORITHMS

    update_cost = benchmark_script("update_cost")
    entry = ALGORITHMS["ddpg"]
    config = entry.config_class.for_env("Pendulum-v1", hidden_sizes=(8, 8), batch_size=4, gradient_steps=gradient_steps)
    obs_dim, actions = update_cost.task_sizes("Pendulum-v1")
    learner = entry.agent_class.learner_class("torch")(obs_dim, actions, config, seed=0)
    burst = update_cost.random_burst("ddpg", learner, config, np.random.default_rng(0))
    learner.update_many(burst)  # the optimiser's state exists before anything is recorded
    return learner, burst


def test_the_recording_holds_the_steps_products_backward_and_optimiser_included():
    """What the profiler counts as products, the recording holds too, and more than the forward pass's: a
    step's backward multiplies twice per layer for once forward."""
    pytest.importorskip("torch")
    from torch.profiler import ProfilerActivity, profile

    floor = benchmark_script("eager_floor")
    learner, burst = tiny_ddpg_learner()
    calls = floor.record_calls(learner, burst)
    with profile(activities=[ProfilerActivity.CPU]) as profiled:
        learner.update_many(burst)
    products = sum(event.count for event in profiled.key_averages() if event.key in ("aten::mm", "aten::addmm"))
    assert sum(map(floor.is_product, calls)) == products > 0
    names = {func.overloadpacket.__name__ for func, _, _ in calls}
    assert "threshold_backward" in names  # ReLU's backward: the backward pass is recorded
    assert len(calls) > 3 * products


def test_the_replay_issues_exactly_the_recorded_operations():
    pytest.importorskip("torch")
    floor = benchmark_script("eager_floor")
    learner, burst = tiny_ddpg_learner()
    calls = floor.record_calls(learner, burst)
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Names(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with Names():
        floor.replayer(calls)()
    assert seen == [func for func, _, _ in calls]


def test_a_smoke_run_writes_each_row_with_its_floor(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    out = tmp_path / "floor.json"
    run_benchmark("eager_floor", "--algos", "ddpg", "--repeats", "1", "--out", str(out))
    document = json.loads(out.read_text())
    (row,) = document["rows"]
    assert row["algo"] == "ddpg" and document["cheapest_dispatch_us"] > 0
    assert row["ops_per_step"] > row["products_per_step"] > 0
    others = (row["ops_per_step"] - row["products_per_step"]) * document["cheapest_dispatch_us"] / 1000
    assert row["floor_ms"] == pytest.approx(row["products_ms"] + others)
    assert min(row[name] for name in ("torch_step_ms", "tf_step_ms", "replay_ms", "products_ms")) > 0
