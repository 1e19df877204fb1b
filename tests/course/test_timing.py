"""course.timing: chapter 43's timings of one update and one forward pass (moved out of rlkit.hardware, which
keeps device choice and the report)."""

from __future__ import annotations

import pytest

from course.timing import time_forward, time_update


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
