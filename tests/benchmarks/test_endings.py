"""benchmarks/learning/endings.py: the agent a default ``rlkit.train`` call returns, played on fresh seeds. A smoke run,
the committed file (every configuration of the course on ten seeds, measured on today's defaults) and
RESULTS.md's table of it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from course.measured import late_evaluations_solved
from tests.benchmarks.staleness import assert_measured_on_todays_defaults
from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "endings.json"


def test_a_short_pass_plays_the_final_agent_and_records_why_it_ended_so(tmp_path):
    out = tmp_path / "endings.json"
    run_benchmark(
        "endings", "--configs", "dqn:CartPole-v1:torch", "--seeds", "5", "--workers", "1", "--out", str(out),
        "--set", "total_steps=1500", "learning_starts=500", "eval_every=500",
    )  # fmt: skip
    run = json.loads(out.read_text())["runs"][0]
    assert (run["algo"], run["env"], run["framework"], run["seed"], run["budget"]) == (
        "dqn",
        "CartPole-v1",
        "torch",
        5,
        1500,
    )
    assert len(run["final_returns"]) == 20 and run["final_mean"] == pytest.approx(np.mean(run["final_returns"]))
    assert run["final_solved"] == (run["final_mean"] >= 475) and run["eval_steps"] == [500, 1000, 1500]
    assert set(run["diagnostics"]) == {"q_mean", "loss"}  # DQN's value estimates: a divergence shows there


def test_late_evaluations_count_those_past_half_the_budget_at_each_tasks_threshold():
    """Only evaluations after half the budget count, each against its own task's threshold."""
    runs = [
        {"env": "CartPole-v1", "budget": 100, "eval_steps": [25, 50, 75, 100], "eval_returns": [500, 500, 474, 475]},
        {"env": "Pendulum-v1", "budget": 40, "eval_steps": [10, 30, 40], "eval_returns": [-150, -250, -199]},
    ]
    assert late_evaluations_solved(runs) == (2, 4)  # 475 and -199 solved; 474 and -250 not
    assert late_evaluations_solved(runs[:1]) == (1, 2)  # the step at half the budget is early


def test_the_committed_file_holds_every_configuration_on_ten_seeds_at_the_defaults():
    endings = benchmark_script("endings")
    committed = json.loads(COMMITTED.read_text())
    assert committed["finished"] is not None
    found: dict[tuple, list[int]] = {}
    for run in committed["runs"]:
        assert run["overrides"] == {}, "the committed file holds default runs only"
        found.setdefault((run["algo"], run["env"], run["framework"]), []).append(run["seed"])
    assert set(found) == set(endings.parse_configs(None))
    assert all(len(set(seeds)) >= 10 for seeds in found.values())


def test_the_committed_file_was_measured_on_the_defaults_of_today():
    """Staleness cannot come back silently: a change to any default hyperparameter or default budget of a
    configuration makes its committed runs another algorithm's, and this fails until they are re-measured."""
    assert_measured_on_todays_defaults(json.loads(COMMITTED.read_text())["runs"], "endings.json")


def test_the_committed_bf16_pass_is_todays_defaults_at_bf16_on_the_seeds_of_the_float32_runs():
    """Chapter 44 sets the bf16 pass beside the committed float32 runs seed by seed: the pass must be today's
    default runs with precision alone changed, on seeds the float32 file holds, and finished."""
    low = json.loads((COMMITTED.parent / "precision_bf16.json").read_text())
    assert low["finished"] is not None
    assert all(run["overrides"] == {"precision": "bf16"} for run in low["runs"])
    assert_measured_on_todays_defaults(low["runs"], "precision_bf16.json")
    exact = {(r["algo"], r["env"], r["framework"], r["seed"]) for r in json.loads(COMMITTED.read_text())["runs"]}
    assert {(r["algo"], r["env"], r["framework"], r["seed"]) for r in low["runs"]} <= exact


def test_results_md_shows_the_table_of_the_committed_file():
    table = benchmark_script("endings").table(json.loads(COMMITTED.read_text()))
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `endings.py --table`"


def test_the_readme_states_the_committed_files_endings_and_its_date():
    """The README's sentence of the endings is the committed file's, clause by clause (line breaks aside), and
    names the day it was measured: a re-measured file with another count fails here until it is re-pasted."""
    endings = benchmark_script("endings")
    committed = json.loads(COMMITTED.read_text())
    readme = " ".join((ROOT / "README.md").read_text().split())
    sentence = endings.readme_sentence(committed)
    assert sentence in readme, "re-paste `python -m benchmarks.learning.endings --readme`"
    paragraph = readme[readme.rindex("Played for 20 episodes", 0, readme.index(sentence)) : readme.index(sentence)]
    assert committed["provenance"]["started"][:10] in paragraph
