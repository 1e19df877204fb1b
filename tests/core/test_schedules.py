from __future__ import annotations

import numpy as np
import pytest

from rlkit.errors import RlkitError
from rlkit.schedules import ConstantSchedule, ExponentialSchedule, LinearSchedule


def test_linear_schedule_interpolates_then_holds():
    schedule = LinearSchedule(1.0, 0.1, duration=100, delay=10)
    assert schedule(0) == 1.0
    assert schedule(10) == 1.0
    assert schedule(60) == pytest.approx(0.55)
    assert schedule(110) == pytest.approx(0.1)
    assert schedule(10_000) == pytest.approx(0.1)


def test_schedules_accept_arrays_for_plotting():
    steps = np.array([0, 50, 100])
    np.testing.assert_allclose(LinearSchedule(1.0, 0.0, 100)(steps), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(ConstantSchedule(0.3)(steps), [0.3, 0.3, 0.3])


def test_exponential_schedule_stops_at_its_floor():
    schedule = ExponentialSchedule(1.0, 0.05, decay=0.9)
    assert schedule(1) == pytest.approx(0.9)
    assert schedule(1_000) == pytest.approx(0.05)


@pytest.mark.parametrize("make", [lambda: LinearSchedule(1, 0, 0), lambda: ExponentialSchedule(1, 0, 1.5)])
def test_bad_schedules_fail_clearly(make):
    with pytest.raises(RlkitError):
        make()
