"""benchmarks/comparisons/sb3_a2c_optimizer.py: SB3's A2C on CartPole with three optimisers. A smoke run, the
summary's arithmetic, the committed file and RESULTS.md's table of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import benchmark_script, run_benchmark

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "sb3_a2c_optimizer.json"


def test_a_short_pass_trains_sb3_with_each_optimizer(tmp_path):
    pytest.importorskip("stable_baselines3")
    out = tmp_path / "optimizers.json"
    run_benchmark("sb3_a2c_optimizer", "--seeds", "3", "--steps", "400", "--workers", "1", "--out", str(out))
    written = json.loads(out.read_text())
    assert [run["optimizer"] for run in written["runs"]] == ["rmsprop", "adam", "adam_no_momentum"]
    assert {(run["seed"], run["steps"], run["eval_steps"][-1]) for run in written["runs"]} == {(3, 400, 400)}


def test_each_optimizer_is_what_its_name_says():
    """SB3 picks RMSprop itself; Adam without momentum is RMSprop's decay and epsilon with the start corrected."""
    torch = pytest.importorskip("torch")
    script = benchmark_script("sb3_a2c_optimizer")
    assert script.sb3_overrides("rmsprop") == {}
    assert script.sb3_overrides("adam") == {"use_rms_prop": False}
    kwargs = {"optimizer_class": torch.optim.Adam, "optimizer_kwargs": {"betas": (0.0, 0.99), "eps": 1e-5}}
    assert script.sb3_overrides("adam_no_momentum") == {"policy_kwargs": kwargs}


def test_the_table_counts_unsolved_runs_as_never_solved():
    script = benchmark_script("sb3_a2c_optimizer")

    def run(optimizer: str, seed: int, first: int | None) -> dict:
        return {"optimizer": optimizer, "seed": seed, "first_solved_at": first, "eval_returns": [100.0 * seed]}

    runs = [run("rmsprop", 0, 5_000), run("rmsprop", 1, None), run("rmsprop", 2, None)]
    runs += [run("adam", 0, 10_000), run("adam", 1, 30_000)]
    table = script.markdown_table({"steps": 50_000, "runs": runs}).splitlines()
    assert table[2] == "| rmsprop | 3 | unsolved | 1 of 3 | 2 | 100 |"
    assert table[3] == "| adam | 2 | 20,000 | 1 of 2 | 0 | 50 |"
    assert len(table) == 4  # no runs of the third optimizer: no row


def test_the_committed_file_has_ten_seeds_of_each_and_results_md_its_table():
    committed = json.loads(COMMITTED.read_text())
    assert committed["finished"] is not None and committed["steps"] == 50_000 and committed["rlkit_commit"]
    for optimizer in ("rmsprop", "adam", "adam_no_momentum"):
        assert sorted(run["seed"] for run in committed["runs"] if run["optimizer"] == optimizer) == list(range(10))
    table = benchmark_script("sb3_a2c_optimizer").markdown_table(committed)
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `sb3_a2c_optimizer.py --table`"
