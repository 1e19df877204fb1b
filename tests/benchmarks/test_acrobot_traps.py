"""benchmarks/learning/acrobot_traps.py: a smoke run, how an episode at the time limit is classified (each mode
able to fail), the summary's counts, and the committed files with RESULTS.md's tables of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def test_a_short_pass_plays_greedy_and_sampled_and_compares_nothing_it_cannot(tmp_path):
    out = tmp_path / "traps.json"
    arguments = ("--configs", "a2c:torch", "--seeds", "5", "--steps", "600", "--workers", "1", "--out", str(out))
    run_benchmark("acrobot_traps", *arguments)
    (run,) = json.loads(out.read_text())["runs"]
    assert 600 <= run["steps"] < 1_000  # whole rollouts
    assert len(run["greedy"]) == len(run["sampled"]) == 20
    assert run["greedy_matches_committed"] is None  # a shortened run is no committed run's twin
    for episode in run["greedy"] + run["sampled"]:
        assert ("lower_link_speed" in episode) == (episode["return"] <= -500)  # only episodes at the limit


def test_a_tail_whose_lower_link_stands_still_is_held_and_one_that_whirls_is_spinning():
    script = benchmark_script("acrobot_traps")
    one_torque = np.full(500, 2)
    held = script.tail_record(one_torque, np.full(500, 0.2))
    assert (held["top_action"], held["top_action_share"]) == (2, 1.0) and script.mode(held) == "held"
    spun = script.tail_record(one_torque, np.full(500, 10.5))  # the same torque, the lower link whirling
    assert script.mode(spun) == "spinning"
    mixed = script.tail_record(np.tile([1, 1, 2], 167)[:500], np.full(500, 10.5))
    assert mixed["top_action"] == 1 and abs(mixed["top_action_share"] - 0.67) < 0.01
    settled = script.tail_record(one_torque, np.r_[np.full(400, 10.5), np.full(100, 0.2)])
    assert script.mode(settled) == "held"  # only the last 100 steps count
    assert script.mode({"return": -80.0}) is None  # an episode that reached the goal has no mode


def test_the_summary_counts_solved_agents_and_episodes_at_the_limit_by_mode():
    script = benchmark_script("acrobot_traps")
    held = {"return": -500.0, "top_action": 2, "top_action_share": 1.0, "lower_link_speed": 0.2}
    spinning = {"return": -500.0, "top_action": 1, "top_action_share": 0.55, "lower_link_speed": 10.5}
    good = [{"return": -80.0}] * 20
    runs = [
        {"config": "a2c:tf", "seed": 0, "greedy": good, "sampled": good, "greedy_matches_committed": True},
        {"config": "a2c:tf", "seed": 1, "greedy": [held, held, spinning] + good[3:], "sampled": good,
         "greedy_matches_committed": False},
    ]  # fmt: skip
    table = script.markdown_table({"configs": ["a2c:tf"], "runs": runs})
    assert "| a2c:tf | 2 | 1 | 3 (2, 1) | 2 | 0 (0, 0) | 1 of 2 |" in table  # seed 1: mean -143, sampled -80
    assert "| a2c:tf seed 1 | -143.00 | 2 held, 1 spinning | -80.00 |" in table
    assert "seed 0 |" not in table  # solved both ways: not a miss


def test_the_committed_files_have_every_seed_repeat_the_endings_and_results_md_their_tables():
    script = benchmark_script("acrobot_traps")
    results_md = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    main = json.loads((RESULTS / "acrobot_traps.json").read_text())
    assert main["finished"] is not None and main["configs"] == script.DEFAULT_CONFIGS
    for config in script.DEFAULT_CONFIGS:
        runs = [run for run in main["runs"] if run["config"] == config]
        assert [run["seed"] for run in runs] == list(range(30)), config
        assert all(run["greedy_matches_committed"] for run in runs), config  # TF repeats the endings passes
    rainbow = json.loads((RESULTS / "acrobot_traps_rainbow.json").read_text())
    assert [(run["config"], run["seed"]) for run in rainbow["runs"]] == [("rainbow:tf", 209)]
    assert rainbow["runs"][0]["greedy_matches_committed"] is True
    for document in (main, rainbow):
        assert script.markdown_table(document) in results_md, "re-paste `acrobot_traps.py --table`"
