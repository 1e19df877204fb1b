"""benchmarks/learning/health_signals.py (claim C16, chapter 15): the chapter's settings, its asserts as the
script replays them (each able to fail), a smoke run, the committed file and RESULTS.md's table of it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "health_signals.json"


def seed_runs(**changes: dict) -> dict[str, dict]:
    """One seed's three runs as the chapter wants them; ``changes`` overrides fields of a setting's run."""
    episodes = {"episode_steps": [500, 1_000, 2_000], "episode_returns": [20.0, 15.0, 25.0]}
    runs = {
        "healthy": {"q_std_first_over_bound_at": None, "q_std_max": 8.0, "q_std_final": 8.0,
                    "td_error_median_final": 0.1, "action_entropy_final": 0.6, "action_entropy_mean": 0.6,
                    "eval_return_max": 150.0, **episodes},
        "diverging": {"q_std_first_over_bound_at": 1_800, "q_std_max": 1e4, "q_std_final": 1e4,
                      "td_error_median_final": 50.0, "action_entropy_final": 0.0, "action_entropy_mean": 0.2,
                      "eval_return_max": 10.0, **episodes},
        "stuck": {"q_std_first_over_bound_at": None, "q_std_max": 0.5, "q_std_final": 0.5,
                  "td_error_median_final": 0.01, "action_entropy_final": 0.3, "action_entropy_mean": 0.3,
                  "eval_return_max": 12.0, **episodes},
    }  # fmt: skip
    for setting, fields in changes.items():
        runs[setting] = {**runs[setting], **fields}
    return runs


def holds(*seeds: dict[str, dict]) -> bool:
    script = benchmark_script("health_signals")
    return script.draw_holds(np.array([script.seed_summary(runs) for runs in seeds], dtype=float))


def test_the_script_trains_the_chapters_settings():
    chapter = json.loads((ROOT / "notebooks" / "15_training_health.ipynb").read_text())
    (cell,) = ["".join(c["source"]) for c in chapter["cells"] if "".join(c["source"]).startswith("settings = {")]
    namespace: dict = {}
    exec(cell[: cell.index("\n}\n") + 2], namespace)  # the dict literal only
    assert list(namespace["settings"].values()) == list(benchmark_script("health_signals").SETTINGS.values())


def test_each_of_the_chapters_asserts_fails_where_its_effect_is_removed():
    good = seed_runs()
    assert holds(good, good, good)
    assert not holds(good, seed_runs(healthy={"q_std_first_over_bound_at": 2_000}), good)  # a false alarm
    assert not holds(good, seed_runs(diverging={"q_std_first_over_bound_at": 3_600}), good)  # flagged too late
    late = {"episode_steps": [500, 1_000, 1_500], "episode_returns": [20.0, 80.0, 90.0]}
    assert not holds(seed_runs(healthy=late), good, good)  # the healthy run already learning when flagged
    assert not holds(seed_runs(stuck={"eval_return_max": 100.0}), good, good)  # the frozen target learned
    spread = seed_runs(diverging={"action_entropy_final": 0.5})
    assert holds(spread, spread, good) and not holds(spread, spread, spread)  # a collapse on one seed is enough
    varied = seed_runs(stuck={"action_entropy_mean": 0.05})
    assert holds(varied, good, good) and not holds(varied, varied, varied)  # the entropy's mean over the seeds


def test_a_short_pass_writes_every_setting(tmp_path):
    pytest.importorskip("tensorflow")
    out = tmp_path / "health.json"
    run_benchmark("health_signals", "--seeds", "5", "--steps", "1500", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run["setting"] for run in written["runs"]] == ["healthy", "diverging", "stuck"]
    assert {(run["seed"], run["steps"]) for run in written["runs"]} == {(5, 1500)}


def test_the_committed_file_has_every_default_seed_and_results_md_its_table():
    script = benchmark_script("health_signals")
    committed = json.loads(COMMITTED.read_text())
    assert committed["finished"] is not None and committed["steps"] == script.STEPS
    assert committed["started"] and committed["rlkit_commit"] and committed["machine"]
    for setting in script.SETTINGS:
        seeds = sorted(run["seed"] for run in committed["runs"] if run["setting"] == setting)
        assert seeds == script.DEFAULT_SEEDS
    table = script.markdown_table(committed)
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `health_signals.py --table`"
