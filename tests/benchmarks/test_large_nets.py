"""benchmarks/costs/large_nets.py: a MuJoCo-sized gradient step beside the matrix products it must run."""

from __future__ import annotations

import json

import pytest

from tests.conftest import benchmark_script, run_benchmark


def test_the_floor_counts_each_algorithms_passes():
    large = benchmark_script("large_nets")
    assert sum(large.PASSES["sac"].values()) == 18 and sum(large.PASSES["td3"].values()) == 12
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
