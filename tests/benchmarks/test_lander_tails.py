"""benchmarks/learning/lander_tails.py: a smoke run that plays a final agent's evaluation episodes again, how an
episode's ending is named (each outcome able to fail), the chance of the mark and the interval, and the
committed file with RESULTS.md's table of it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_pass_plays_a_measured_run_as_it_is_and_trains_one_it_lacks(tmp_path):
    """Seed 4 trained by harder_tasks is played from its folder, its agent untouched; seed 5 is trained by the
    pass itself."""
    runs, measured, out = tmp_path / "runs", tmp_path / "harder.json", tmp_path / "tails.json"
    shared = ("--configs", "dqn:LunarLander-v3:torch", "--steps", "1500", "--runs", str(runs))
    run_benchmark("harder_tasks", *shared, "--seeds", "4", "--out", str(measured))
    agent = runs / "dqn-LunarLander-v3-torch-seed4-steps1500" / "final.pt"
    written = agent.stat().st_mtime_ns
    run_benchmark("lander_tails", *shared, "--seeds", "4", "5", "--episodes", "24", "--evaluated", str(measured),
                  "--out", str(out))  # fmt: skip
    played, trained = json.loads(out.read_text())["runs"]
    (evaluated,) = json.loads(measured.read_text())["runs"]
    assert played["final_returns"] == evaluated["final_returns"] and played["first_20_as_evaluated"] is True
    assert agent.stat().st_mtime_ns == written  # not trained again
    assert trained["first_20_as_evaluated"] is True  # the same start states, the same returns
    assert (played["trained_here"], trained["trained_here"]) == (False, True)
    assert (played["eval_steps"], played["eval_returns"]) == (evaluated["eval_steps"], evaluated["eval_returns"])
    assert trained["eval_steps"] and len(trained["eval_returns"]) == len(trained["eval_steps"])  # its own curve
    assert len(trained["episodes"]) == 24 and len(trained["final_returns"]) == 20
    script = benchmark_script("lander_tails")
    assert {episode["outcome"] for episode in played["episodes"] + trained["episodes"]} <= set(script.OUTCOMES)
    assert (runs / "dqn-LunarLander-v3-torch-seed5-steps1500" / "final.pt").exists()  # kept for the next pass


def test_a_pass_refuses_other_tasks_and_fewer_episodes_than_the_evaluation(tmp_path):
    """Each refusal names what it wants; a short budget makes a pass that failed to refuse end at once."""
    import subprocess

    short = ("--steps", "100", "--runs", str(tmp_path / "runs"), "--out", str(tmp_path / "x.json"))
    for arguments, said in (
        (("--configs", "dqn:CartPole-v1"), "LunarLander-v3 or LunarLanderContinuous-v3"),
        (("--configs", "dqn:LunarLander-v3:torch", "--episodes", "19"), "--episodes must be >= 20"),
    ):
        with pytest.raises(subprocess.CalledProcessError) as refused:
            run_benchmark("lander_tails", *arguments, *short)
        assert said in refused.value.stderr


def test_an_ending_is_named_from_the_last_step():
    script = benchmark_script("lander_tails")
    centre, outside = np.zeros(8), np.r_[1.02, np.zeros(7)]
    assert script.outcome(centre, 100.0, True) == "landed"
    assert script.outcome(centre, -100.0, True) == "crashed"
    assert script.outcome(outside, -100.0, True) == "flew off"
    assert script.outcome(centre, -0.3, False) == "on the pad"  # truncated at 1,000 steps, never at rest
    assert script.outcome(np.r_[0.38, 0.04, np.zeros(6)], -0.3, False) == "elsewhere"  # beside the pad
    assert script.outcome(np.r_[0.05, 0.5, np.zeros(6)], -0.3, False) == "elsewhere"  # above it


def test_real_episodes_are_recorded_as_play_episodes_plays_them():
    """A lander that never fires crashes on every start state; gymnasium's own heuristic lands on most."""
    import types

    from gymnasium.envs.box2d.lunar_lander import heuristic

    script = benchmark_script("lander_tails")
    idle = script.play(lambda obs: np.zeros(len(obs), dtype=int), "LunarLander-v3", 6, 100)
    assert [episode["outcome"] for episode in idle] == ["crashed"] * 6
    discrete = types.SimpleNamespace(unwrapped=types.SimpleNamespace(continuous=False))
    pilot = script.play(lambda obs: np.array([heuristic(discrete, o) for o in obs]), "LunarLander-v3", 12, 100)
    assert sum(episode["outcome"] == "landed" for episode in pilot) >= 9


def test_the_wilson_interval_holds_a_share_of_none_and_of_a_few():
    script = benchmark_script("lander_tails")
    low, high = script.wilson(0, 100)
    assert low == 0.0 and 0.03 < high < 0.04
    low, high = script.wilson(5, 100)
    assert 0.02 < low < 0.05 < high < 0.12


def test_the_table_counts_outcomes_and_the_mark_per_run():
    script = benchmark_script("lander_tails")
    landed = {"return": 270.0, "steps": 300, "outcome": "landed"}
    crashed = {"return": -100.0, "steps": 200, "outcome": "crashed"}
    on_pad = {"return": 170.0, "steps": 1000, "outcome": "on the pad"}  # at the time limit: not lost
    run = {
        "algo": "td3", "env": "LunarLanderContinuous-v3", "framework": "torch", "seed": 2,
        "episodes": [crashed, on_pad] + [landed] * 98, "final_returns": [-100.0] + [270.0] * 19,
    }  # fmt: skip
    row = script.markdown_table({"runs": [run]}).splitlines()[-1]
    assert row.startswith("| td3 LunarLanderContinuous-v3 torch seed 2 | no | 100 | 98 | 1 | 0 | 1 | 0 | 1.0% (")
    assert row.endswith("| 265.3 | 82% |")  # 0.99 ** 20 of the draws hold no crash


def test_the_committed_files_replay_their_runs_evaluations_and_results_md_shows_their_tables():
    script = benchmark_script("lander_tails")
    results_md = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    for name, overrides in (
        ("lander_tails.json", {}),
        ("lander_tails_td3_online_actor.json", {"final_actor": "online"}),
        ("lander_tails_td3_whole_replay.json", {"buffer_size": 300_000, "final_actor": "online"}),
    ):
        document = json.loads((ROOT / "benchmarks" / "results" / name).read_text())
        assert document["finished"] is not None and document["episodes"] == 100, name
        assert document["overrides"] == overrides and all(run["overrides"] == overrides for run in document["runs"])
        assert all(run["first_20_as_evaluated"] for run in document["runs"]), name
        assert script.markdown_table(document) in results_md, f"re-paste `lander_tails.py --table --out {name}`"
    runs = json.loads((ROOT / "benchmarks" / "results" / "lander_tails.json").read_text())["runs"]
    seeds = {"td3": range(6), "ppo": range(3), "dqn": range(3), "sac": range(3)}
    wanted = {(algo, fw, seed) for algo in seeds for fw in ("tf", "torch") for seed in seeds[algo]}
    assert {(run["algo"], run["framework"], run["seed"]) for run in runs} == wanted
    online = json.loads((ROOT / "benchmarks" / "results" / "lander_tails_td3_online_actor.json").read_text())["runs"]
    assert {(run["algo"], run["framework"], run["seed"]) for run in online} == {k for k in wanted if k[0] == "td3"}
