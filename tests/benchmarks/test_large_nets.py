"""benchmarks/costs/large_nets.py: a MuJoCo-sized gradient step beside the matrix products it must run."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from tests.conftest import benchmark_script, run_benchmark


def test_the_floor_counts_each_algorithms_products():
    """45 for SAC (what torch's profiler counts in rlkit's SAC step: mm and addmm calls), 32 for TD3 on average."""
    large = benchmark_script("large_nets")
    assert sum(sum(counts) for counts in large.PRODUCTS["sac"].values()) == 45
    assert sum(sum(counts) for counts in large.PRODUCTS["td3"].values()) == 32
    shapes = large.layer_shapes(17, 256, 12)
    assert shapes == [(17, 256), (256, 256), (256, 12)]


def test_a_smoke_run_writes_both_frameworks_beside_the_floor(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    out = tmp_path / "large.json"
    run_benchmark("large_nets", "--algos", "td3", "--sizes", "16", "--repeats", "1", "--out", str(out))
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["algo"], row["hidden"], row["batch"]) == ("td3", 16, 256)
    assert row["floor_ms"] > 0 and row["torch_cpu_ms"] > 0 and row["tf_cpu_ms"] > 0
    # the floor is the fastest library's products, and names it
    assert row["floor_ms"] == min(row["products_ms"].values())
    assert row["products_ms"][row["floor_library"]] == row["floor_ms"]
    assert {"numpy", "torch", "tf"} <= set(row["products_ms"])
    if sys.platform.startswith("linux") and (shutil.which("gcc") or shutil.which("cc")):
        assert row["products_ms"]["torch_mkl_told_intel"] > 0 and row["torch_told_intel_cpu_ms"] > 0


def test_each_library_times_the_products_it_is_asked_for():
    """A 16-times-wider layer costs each library more: the timed calls multiply (TensorFlow's graph keeps
    every product, none is shared or pruned)."""
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    large = benchmark_script("large_nets")
    for library in ("numpy", "torch", "tf"):
        small, wide = (large.gemm_ms(256, n, n, library, repeats=20) for n in (16, 256))
        assert wide > 4 * small, (library, small, wide)


def test_the_count_is_the_products_rlkits_torch_sac_step_runs():
    """The floor's count against the implementation: torch's profiler counts the mm and addmm calls of a burst."""
    pytest.importorskip("torch")
    import numpy as np
    from torch.profiler import ProfilerActivity, profile

    from rlkit.registry import ALGORITHMS

    large, update_cost = benchmark_script("large_nets"), benchmark_script("update_cost")
    entry = ALGORITHMS["sac"]
    config = entry.config_class.for_env(large.TASK, hidden_sizes=(16, 16), batch_size=8, gradient_steps=4)
    obs_dim, actions = update_cost.task_sizes(large.TASK)
    learner = entry.agent_class.learner_class("torch")(obs_dim, actions, config, seed=0)
    burst = update_cost.random_burst("sac", learner, config, np.random.default_rng(0), large.TASK)
    with profile(activities=[ProfilerActivity.CPU]) as profiled:
        learner.update_many(burst)
    calls = sum(event.count for event in profiled.key_averages() if event.key in ("aten::mm", "aten::addmm"))
    assert calls == 4 * sum(sum(counts) for counts in large.PRODUCTS["sac"].values()), calls
