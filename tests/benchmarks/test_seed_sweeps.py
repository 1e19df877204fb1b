"""The seed sweeps whose committed files chapters read: benchmarks/learning/overestimation.py (claim C07, chapter 12),
epsilon_schedules.py (claim C13, chapter 11), ppo_ablation.py (chapter 23) and td3_smoothing.py (claim C28, chapter
31). A smoke run of each, the committed
files, and RESULTS.md's tables of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
#: script -> (the runs' setting field, the settings, seeds in the committed file, steps per run)
SWEEPS = {
    "overestimation": ("variant", ["vanilla", "double", "dueling"], 20, 15_000),
    "epsilon_schedules": ("schedule", ["fast", "default", "slow"], 10, 20_000),
    "ppo_ablation": ("variant", ["plain Gaussian", "log_std_init -0.5", "no normalisation"], 10, None),
    "td3_smoothing": ("setting", ["sigma 0.2, clip 0.5", "sigma 0.05, clip 0.1"], 30, 8_000),
}


@pytest.mark.parametrize("script", SWEEPS)
def test_a_short_pass_writes_every_setting_with_the_record_the_chapter_reads(script, tmp_path):
    pytest.importorskip("tensorflow")
    field, settings, _, _ = SWEEPS[script]
    out = tmp_path / "sweep.json"
    run_benchmark(script, "--seeds", "5", "--steps", "600", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run[field] for run in written["runs"]] == settings
    assert written["finished"] is not None and written["command"].endswith("--out sweep.json")
    assert {(run["seed"], run["steps"]) for run in written["runs"]} == {(5, 600)}


@pytest.mark.parametrize("script", SWEEPS)
def test_the_committed_file_has_every_seed_of_every_setting(script):
    field, settings, seeds, steps = SWEEPS[script]
    committed = json.loads((ROOT / "benchmarks" / "results" / f"{script}.json").read_text())
    assert committed["finished"] is not None and committed["framework"] == "tf" and committed["steps"] == steps
    assert committed["started"] and committed["rlkit_commit"] and committed["machine"]  # where and when
    for setting in settings:
        assert sorted(run["seed"] for run in committed["runs"] if run[field] == setting) == list(range(seeds))


@pytest.mark.parametrize("script", SWEEPS)
def test_results_md_shows_the_table_of_the_committed_file(script):
    committed = json.loads((ROOT / "benchmarks" / "results" / f"{script}.json").read_text())
    table = benchmark_script(script).markdown_table(committed)
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), f"re-paste `{script}.py --table`"


@pytest.mark.parametrize(
    "arguments",
    [["--workers", "0"], ["--seeds", "1", "1"], ["--steps", "0"]],
    ids=["no worker", "a seed twice", "no step"],
)
def test_a_sweep_that_would_run_nothing_or_a_seed_twice_is_refused_before_it_starts(arguments):
    from benchmarks._results_file import check_sweep, seed_sweep_parser

    parser = seed_sweep_parser("a sweep", ROOT / "unused.json")
    parser.add_argument("--steps", type=int, default=None)
    check_sweep(parser, parser.parse_args(["--seeds", "1", "2"]))  # a sound sweep passes
    with pytest.raises(SystemExit):
        check_sweep(parser, parser.parse_args(arguments))
