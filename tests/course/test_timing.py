"""course.timing: chapter 43's timings of one update and one forward pass (moved out of rlkit.hardware, which
keeps device choice and the report)."""

from __future__ import annotations

import re
import time

import pytest

from course.timing import time_forward, time_update


def test_steps_timed_side_by_side_take_turns_each_round():
    """A load that comes and goes must fall on every step alike: each round calls every step (once untimed,
    to warm its caches, then timed) before the next round starts; the fastest call of each is kept."""
    from course.timing import fastest_seconds_side_by_side, seconds_side_by_side

    calls: list[str] = []
    times = seconds_side_by_side({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3)
    assert calls == ["a", "b"] + ["a", "a", "b", "b"] * 3  # a warm-up each, then three rounds
    assert set(times) == {"a", "b"} and all(len(spent) == 3 and min(spent) >= 0 for spent in times.values())

    slow_calls = iter([0.0, 0.0, 0.03, 0.0, 0.01, 0.0, 0.02])  # warm-up, then untimed and timed in turn
    fastest = fastest_seconds_side_by_side({"slow": lambda: time.sleep(next(slow_calls))}, 3)
    assert 0.01 <= fastest["slow"] < 0.02, fastest  # the shortest of the three timed calls (0.03, 0.01, 0.02)


def test_the_numpy_acting_path_is_timed_without_torch():
    assert time_forward(16, 4, "numpy", repeats=3) > 0


def test_an_update_and_a_forward_pass_are_timed_on_the_cpu():
    pytest.importorskip("torch")
    assert time_update(16, 8, "cpu", repeats=2) > 0
    assert time_forward(16, 4, "cpu", repeats=3) > 0


def test_a_device_torch_cannot_see_is_refused():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    from rlkit.errors import RlkitError

    with pytest.raises(RlkitError, match="device 'cuda'"):
        time_update(16, 8, "cuda")


def test_a_cnn_update_is_timed_and_its_cost_grows_with_the_batch():
    pytest.importorskip("torch")
    from course.timing import time_cnn_update

    small = time_cnn_update(8, "cpu", repeats=3)
    # the convolution runs on each of a grid's 64 positions: 128x the grids is far more arithmetic
    # (measured 30-50x the time from batch 32 to 2048 on a 2-core machine); 2x leaves room for noise
    large = time_cnn_update(1024, "cpu", repeats=3)
    assert small > 0 and 2 * small < large, (small, large)
    assert time_cnn_update(8, "cpu", repeats=1, precision="bf16") > 0


def test_a_cnn_update_on_a_device_torch_cannot_see_is_refused():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    from course.timing import time_cnn_update
    from rlkit.errors import RlkitError

    with pytest.raises(RlkitError, match="device 'cuda'"):
        time_cnn_update(8, "cuda")


def test_the_crossover_tables_pair_each_cpu_figure_with_the_gpu_one():
    from course.timing import crossover_tables

    results = {
        "gpu": "Some GPU",
        "torch": "2.13.0+cu126",
        "cuda_build": "12.6",
        "update_ms": {"cpu w64 b32": 0.5, "cuda w64 b32": 0.25, "cpu w1024 b2048": 40.0, "cuda w1024 b2048": 1.0},
        "update_ms_low_precision": {"cpu bf16 w64 b32": 0.8, "cuda bf16 w64 b32": 0.2},
        "cnn_update_ms": {"cpu b32": 1.5, "cuda b32": 0.5, "cuda fp16 b32": 0.4},
        "act_us": {"numpy w64 b1": 5.0, "cpu w64 b1": 20.0, "cuda w64 b1": 60.0},
    }
    lines = crossover_tables(results).splitlines()
    assert lines[0] == "GPU: Some GPU, torch 2.13.0+cu126, CUDA build 12.6"
    rows = [re.split(r" +b\d", line)[0].split() for line in lines if line.startswith("  ")]
    # MLPs by width, fp32 before bf16; then the CNN, fp32 before fp16; then acting, numpy first
    assert rows[:5] == [
        ["MLP", "width", "64", "fp32"],
        ["MLP", "width", "64", "bf16"],
        ["MLP", "width", "1024", "fp32"],
        ["CNN", "(MinAtar)", "fp32"],
        ["CNN", "(MinAtar)", "fp16"],
    ]
    assert "b32 0.50->0.25 (2.0x)" in lines[2] and "b2048 40.00->1.00 (40.0x)" in lines[4]
    assert "b32 -->0.40" in lines[6]  # a GPU figure without its CPU twin
    assert lines[-1].split() == ["width", "64", "b1", "numpy", "5.0", "cpu", "20.0", "cuda", "60.0"]


def test_a_cpu_only_file_shows_the_cpu_alone():
    from course.timing import crossover_tables

    text = crossover_tables({"update_ms": {"cpu w64 b32": 0.5}, "gpu": None})
    assert text.splitlines()[-1].split() == ["MLP", "width", "64", "fp32", "b32", "0.50"]
