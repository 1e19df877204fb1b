"""benchmarks/comparisons/env_floor.py: the environment's own steps as a floor under any time to solve."""

from __future__ import annotations

import pytest

from tests.conftest import benchmark_script

env_floor = benchmark_script("env_floor")


def runs(library: str, framework: str, solved_at: int, cpu_s: float, seeds: int = 3) -> list[dict]:
    """Records of CartPole runs as compare_sb3.py writes them, every seed solving at the same step."""
    return [
        {"algo": "ppo", "env": "CartPole-v1", "library": library, "framework": framework, "seed": seed,
         "steps": 2 * solved_at, "final_return": 500.0, "solved_at_step": solved_at, "solved_cpu_s": cpu_s,
         "solved_wall_s": cpu_s, "cpu_s": 2 * cpu_s, "wall_s": 2 * cpu_s}
        for seed in range(seeds)
    ]  # fmt: skip


@pytest.mark.parametrize(("sb3_cpu_s", "verdict"), [(0.01, "no"), (1_000.0, "only if learning costs under")])
def test_the_floor_is_the_environments_cpu_time_for_rlkits_steps(sb3_cpu_s, verdict):
    rlkit = runs("rlkit", "torch", 20_000, 3.0) + runs("rlkit", "tf", 25_000, 3.0)
    (row,) = env_floor.floors(runs("sb3", "torch", 15_000, sb3_cpu_s), rlkit)
    assert row["rlkit_steps"] == 20_000 and row["sb3_steps"] == 15_000  # the fewer of the two frameworks
    assert 0 < row["env_us_per_step"] < 1_000  # measured: CartPole's step takes microseconds
    assert row["floor_rlkit_s"] == pytest.approx(row["env_us_per_step"] * 20_000 / 1e6)
    assert verdict in env_floor.markdown_table([row])


def test_a_pair_sb3_did_not_solve_has_no_floor():
    unsolved = [{**run, "solved_at_step": None, "solved_cpu_s": None, "solved_wall_s": None}
                for run in runs("sb3", "torch", 15_000, 1.0)]  # fmt: skip
    assert env_floor.floors(unsolved, runs("rlkit", "torch", 20_000, 3.0)) == []
