"""benchmarks/learning/replay_schemes.py, the runs chapter 13 reads for claim C11: a smoke run, and the committed
file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course.pitfalls.bucketed_replay import REPLAYS
from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "replay_schemes.json"


def test_a_short_pass_writes_every_scheme_with_the_record_the_chapter_reads(tmp_path):
    pytest.importorskip("tensorflow")
    out = tmp_path / "schemes.json"
    run_benchmark("replay_schemes", "--seeds", "5", "--budget", "1500", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run["replay"] for run in written["runs"]] == list(REPLAYS)
    assert written["finished"] is not None and written["command"].endswith("--out schemes.json")
    for run in written["runs"]:
        assert (run["seed"], run["budget"], run["solved_at"]) == (5, 1_500, None)  # too few steps to solve


def test_the_committed_file_has_ten_seeds_of_every_scheme_at_the_chapters_budget():
    committed = json.loads(COMMITTED.read_text())
    assert committed["finished"] is not None and committed["framework"] == "tf"
    for replay in REPLAYS:
        assert sorted(run["seed"] for run in committed["runs"] if run["replay"] == replay) == list(range(10))
    assert {run["budget"] for run in committed["runs"]} == {40_000}


def test_results_md_shows_the_table_of_the_committed_file():
    table = benchmark_script("replay_schemes").markdown_table(json.loads(COMMITTED.read_text()))
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `replay_schemes.py --table`"
