"""course.measured: the chapters read the benchmarks' committed results files through it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course.measured import committed_agent, committed_results

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
