"""course.measured: the chapters read the benchmarks' committed results files through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course.measured import committed_agent, committed_results, default_endings, show_default_endings

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


@pytest.mark.parametrize("name", ["compare_sb3.json", "sac_temperature.json", "replay_schemes.json"])
def test_inside_the_checkout_the_committed_file_is_read(name):
    assert committed_results(name) == json.loads((RESULTS / name).read_text())


@pytest.mark.parametrize("name", ["../pyproject.json", "results/compare_sb3.json", "compare_sb3"])
def test_only_a_json_file_name_of_the_results_folder_is_taken(name):
    with pytest.raises(ValueError, match="a file name in benchmarks/results ending in .json"):
        committed_results(name)


def test_a_committed_agent_is_read_from_the_checkout_and_only_an_agent_file_name_is_taken():
    (agent,) = sorted((RESULTS / "agents").glob("dqn-LunarLander-v3-*.pt"))
    assert committed_agent(agent.name) == agent
    for name in ("../dqn.pt", "agents/dqn.pt", "dqn.json"):
        with pytest.raises(ValueError, match="a file name in benchmarks/results/agents"):
            committed_agent(name)


def test_the_default_endings_of_a_pair_are_its_runs_in_the_endings_file_by_framework(capsys):
    runs = json.loads((RESULTS / "endings.json").read_text())["runs"]
    mine = [r for r in runs if (r["algo"], r["env"]) == ("td3", "Pendulum-v1")]
    endings = show_default_endings("td3", "Pendulum-v1")
    assert list(endings) == ["torch", "tf"]
    for framework, ending in endings.items():
        theirs = sorted((r for r in mine if r["framework"] == framework), key=lambda r: r["seed"])
        assert ending["seeds"] == [r["seed"] for r in theirs]
        assert ending["first_solved"] == [r["first_solved_at"] for r in theirs]
        assert ending["ended_solved"] == sum(r["final_solved"] for r in theirs)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 2 and all(line.startswith("td3 ") for line in printed)


def test_a_pair_the_endings_file_lacks_is_refused_by_name():
    with pytest.raises(ValueError, match="no default runs of sac on CartPole-v1"):
        default_endings("sac", "CartPole-v1")
