"""Short training runs behind chapter 11's C10 experiment (the chapter runs the long ones)."""

import pytest

from course.pitfalls import done_handling


def test_time_limit_run_records_the_cut_as_termination_and_lowers_the_values():
    pytest.importorskip("torch")
    fast = {"learning_starts": 200, "train_every": 50, "gradient_steps": 25, "eval_every": 10**6}
    runs = done_handling.time_limit_run(limit=10, total_steps=2_000, framework="torch", losses={"squared": 1e6}, **fast)
    assert set(runs) == {("squared", "bootstrap"), ("squared", "terminate")}
    for run in runs.values():
        steps, q_mean = run["q_mean"]
        assert len(steps) == len(q_mean) > 10 and run["best eval"] <= 10  # evaluated under the limit
    bootstrap, terminate = (runs["squared", name]["q_mean"][1][-1] for name in ("bootstrap", "terminate"))
    # a limit of 10 recorded as termination holds the values near 1 / (1 - 0.99 * 0.9) ~ 9.2
    assert terminate < done_handling.time_limit_fixed_point(0.99, 10) * 1.3 < bootstrap
