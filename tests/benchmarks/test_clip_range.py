"""benchmarks/learning/clip_range.py (claim C19, chapter 22): a smoke run, the chapter's asserts as the script
replays them (each able to fail), the committed file and RESULTS.md's table of it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "clip_range.json"


def document(steps_01: list[int | None], steps_02: list[int | None], budget: int = 50_000) -> dict:
    """A results file's runs: steps to solve per seed for each range (None: never solved in ``budget``)."""
    runs = [
        {"clip_range": clip_range, "seed": seed, "solved_at_step": at, "steps": budget if at is None else at}
        for clip_range, steps in (("0.1", steps_01), ("0.2", steps_02))
        for seed, at in enumerate(steps)
    ]
    return {"runs": runs}


def test_a_short_pass_writes_both_ranges_and_a_run_that_never_solved_counts_its_budget(tmp_path):
    out = tmp_path / "clip.json"
    run_benchmark("clip_range", "--seeds", "5", "--steps", "512", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run["clip_range"] for run in written["runs"]] == ["0.1", "0.2"]
    assert written["finished"] is not None and written["command"].endswith("--out clip.json")
    script = benchmark_script("clip_range")
    assert [script.counted_steps(run) for run in written["runs"]] == [512, 512]  # two rollouts solve nothing


def test_each_of_the_chapters_asserts_fails_where_its_effect_is_removed():
    script = benchmark_script("clip_range")
    spread = [10_000, 15_000, 20_000, 25_000, 30_000, 35_000, 40_000, 45_000]
    held = script.failure_rates(document(spread, spread), draws=200)
    assert held["any"] == 0.0, held  # the same spread in both ranges: every assert holds
    slower = script.failure_rates(document([2 * s for s in spread], spread), draws=200)
    assert slower["mean ratio below 1.8"] == 1.0, slower  # 0.1 twice as slow: the claim would be true
    alike = script.failure_rates(document([20_000] * 8, [20_000] * 8), draws=200)
    assert alike["some pairing 1.8x apart"] == 1.0, alike  # no spread: no single pairing shows a gap
    stuck = script.failure_rates(document([None, None, None, *spread[3:]], spread), draws=200)
    assert stuck["each range solves all but two"] == 1.0, stuck  # three of eight never solved


def test_the_committed_file_has_every_default_seed_of_both_ranges_and_results_md_its_table():
    script = benchmark_script("clip_range")
    committed = json.loads(COMMITTED.read_text())
    assert committed["finished"] is not None and committed["steps"] is None  # the default budget
    assert committed["started"] and committed["rlkit_commit"] and committed["machine"]
    for clip_range in script.CLIP_RANGES:
        seeds = sorted(run["seed"] for run in committed["runs"] if run["clip_range"] == clip_range)
        assert seeds == script.DEFAULT_SEEDS
    table = script.markdown_table(committed)
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `clip_range.py --table`"
