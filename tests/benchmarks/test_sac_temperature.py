"""benchmarks/learning/sac_temperature.py, the runs chapter 32 reads for claim C25: a smoke run, and the committed
file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course.pitfalls.alpha_tape import TEMPERATURES, after_solving
from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "sac_temperature.json"


def test_a_short_pass_writes_every_setting_with_the_record_the_chapter_reads(tmp_path):
    pytest.importorskip("tensorflow")
    out = tmp_path / "temperature.json"
    run_benchmark("sac_temperature", "--seeds", "5", "--steps", "1200", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run["setting"] for run in written["runs"]] == list(TEMPERATURES)
    assert written["finished"] is not None and written["command"].endswith("--out temperature.json")
    for run in written["runs"]:
        assert run["seed"] == 5 and run["budget"] == 1_200 and run["eval_steps"] == [500, 1_000, 1_200]
        assert run["solved_at"] is None and len(after_solving(run)) == 0  # too few steps to swing up


def test_the_committed_file_has_ten_seeds_of_every_setting_as_the_code_defines_them():
    committed = json.loads(COMMITTED.read_text())
    assert committed["settings"] == TEMPERATURES and committed["finished"] is not None
    for setting in TEMPERATURES:
        assert sorted(run["seed"] for run in committed["runs"] if run["setting"] == setting) == list(range(10))
    assert {run["budget"] for run in committed["runs"] if run["trained_past_solving"]} == {7_000}
    assert (committed["eval_every"], committed["eval_episodes"]) == (500, 20)


def test_results_md_shows_the_table_of_the_committed_file():
    table = benchmark_script("sac_temperature").markdown_table(json.loads(COMMITTED.read_text()))
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `sac_temperature.py --table`"
