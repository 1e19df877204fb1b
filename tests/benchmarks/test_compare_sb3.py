"""benchmarks/comparisons/compare_sb3.py: a smoke run of both libraries (tiny budget, one seed, one task) and its
summaries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.comparisons import compare_sb3

ROOT = Path(__file__).resolve().parents[2]
MAX_STEPS, EVAL_EVERY = 2_500, 1_000  # not a multiple: the run's end needs an evaluation of its own


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "compare.json"
    command = [sys.executable, "-m", "benchmarks.comparisons.compare_sb3", "--pairs", "ppo:CartPole-v1"]
    command += ["--seeds", "1", "--max-steps", str(MAX_STEPS), "--eval-every", str(EVAL_EVERY), "--out", str(out)]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONHASHSEED": "0"}
    subprocess.run(command, check=True, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    return json.loads(out.read_text())


def test_one_seed_runs_rlkit_in_both_frameworks_and_sb3_with_the_record_the_chapter_reads(results):
    runs = sorted((r["library"], r["framework"]) for r in results["runs"])
    assert runs == [("rlkit", "tf"), ("rlkit", "torch"), ("sb3", "torch")]
    assert {"measured", "machine", "versions", "commands", "zoo_source"} <= set(results)
    assert results["versions"]["stable-baselines3"]
    assert results["commands"][0]["command"].startswith("python -m benchmarks.comparisons.compare_sb3")
    # the machine of the sitting, of each run, and of the file
    here = compare_sb3.machine()
    assert results["commands"][0]["machine"] == here == results["machine"]
    assert all(run["machine"] == here for run in results["runs"])


def test_a_file_appended_to_on_another_machine_names_both():
    sittings = [{"machine": "AMD"}, {"machine": "Intel"}, {"machine": "AMD"}, {}]
    assert compare_sb3.machines(sittings) == "AMD; Intel; a machine not recorded"
    assert compare_sb3.machines([]) == compare_sb3.machine()


def test_every_run_goes_to_its_budget_on_the_shared_evaluation_schedule(results):
    for run in results["runs"]:
        steps = [p[0] for p in run["curve"]]
        assert run["steps"] >= MAX_STEPS, run  # not stopped at solving: the last evaluation is the final return
        assert steps[-1] == run["steps"] and run["final_return"] == run["curve"][-1][3]
        # one evaluation at the first update at or after each multiple of EVAL_EVERY, and one after the last step
        due = [next(s for s in steps if s >= k * EVAL_EVERY) for k in range(1, MAX_STEPS // EVAL_EVERY + 1)]
        assert sorted(set(due + [steps[-1]])) == steps, run
        wall, cpu = np.array([p[1] for p in run["curve"]]), np.array([p[2] for p in run["curve"]])
        assert np.all(np.diff(wall) > 0) and np.all(np.diff(cpu) > 0) and cpu[0] > 0
        assert run["wall_s"] == wall[-1] and run["cpu_s"] == cpu[-1]


def test_summary_has_one_row_per_library_and_framework_with_sb3_over_rlkit_ratios(results):
    rows = {(r["library"], r["framework"]): r for r in results["summary"]}
    assert set(rows) == {("rlkit", "tf"), ("rlkit", "torch"), ("sb3", "torch")}
    sb3 = rows["sb3", "torch"]
    assert all(row["seeds"] == 1 for row in rows.values())
    for row in (rows["rlkit", "torch"], rows["rlkit", "tf"]):
        assert row["sb3_over_this_cpu_s_total"] == pytest.approx(sb3["median_cpu_s_total"] / row["median_cpu_s_total"])
        assert row["sb3_over_this_cpu_s_total"] != 1.0  # two different runs, never the same time


def test_a_run_is_solved_at_its_first_evaluation_at_or_above_the_threshold():
    curve = compare_sb3.Curve("CartPole-v1", 0, 100)
    curve.points = [[100, 1.0, 0.9, 300.0], [200, 2.0, 1.8, 475.0], [300, 3.0, 2.7, 500.0], [400, 4.0, 3.6, 200.0]]
    record = compare_sb3._record("ppo", "CartPole-v1", "rlkit", "torch", 0, curve, 400, 0.0)
    assert (record["solved_at_step"], record["solved_wall_s"], record["solved_cpu_s"]) == (200, 2.0, 1.8)
    assert record["final_return"] == 200.0
    curve.points = curve.points[:1]
    assert compare_sb3._record("ppo", "CartPole-v1", "rlkit", "torch", 0, curve, 100, 0.0)["solved_at_step"] is None


def test_median_time_to_solve_counts_unsolved_runs_as_slowest():
    assert compare_sb3.median_with_unsolved([3.0, None, 1.0]) == 3.0
    assert compare_sb3.median_with_unsolved([3.0, None, None]) is None


def _run(algo: str, library: str, framework: str, seed: int = 0, env_id: str = "CartPole-v1") -> dict:
    return {"algo": algo, "env": env_id, "library": library, "framework": framework, "seed": seed, "final_return": 1.0}


def test_plan_skips_what_is_measured_and_redo_replaces_only_the_chosen_libraries():
    kept = [_run("dqn", "rlkit", "torch"), _run("dqn", "sb3", "torch"), _run("ppo", "rlkit", "torch")]
    rlkit_runs = [compare_sb3.LIBRARY_NAMES["rlkit-torch"], compare_sb3.LIBRARY_NAMES["rlkit-tf"]]
    runs, todo = compare_sb3.plan(kept, [("dqn", "CartPole-v1")], [0, 1], rlkit_runs, redo=False)
    assert runs == kept
    assert todo == [("dqn", "CartPole-v1", 0, [("rlkit", "tf")]), ("dqn", "CartPole-v1", 1, rlkit_runs)]
    runs, todo = compare_sb3.plan(kept, [("dqn", "CartPole-v1")], [0], rlkit_runs, redo=True)
    assert runs == kept[1:]  # dqn's rlkit run dropped; its SB3 run and another pair's rlkit run kept
    assert todo == [("dqn", "CartPole-v1", 0, rlkit_runs)]


def test_rainbow_gets_no_sb3_run_of_its_own_but_a_marked_copy_of_the_dqn_one():
    everything = list(compare_sb3.LIBRARY_NAMES.values())
    _, todo = compare_sb3.plan([], [("rainbow", "CartPole-v1")], [0], everything, redo=False)
    assert todo == [("rainbow", "CartPole-v1", 0, [("rlkit", "torch"), ("rlkit", "tf")])]
    runs = [_run("dqn", "sb3", "torch", seed) for seed in (0, 1)] + [_run("dqn", "sb3", "torch", 0, "Acrobot-v1")]
    runs += [_run("ppo", "sb3", "torch", 0)]
    copies = [r for r in compare_sb3.with_stand_ins(runs) if "same_run_as" in r]
    assert sorted((c["algo"], c["env"], c["seed"], c["same_run_as"]) for c in copies) == [
        ("rainbow", "Acrobot-v1", 0, "dqn"),
        ("rainbow", "CartPole-v1", 0, "dqn"),
        ("rainbow", "CartPole-v1", 1, "dqn"),
    ]  # one per DQN run (seed 2 has none); PPO has its own SB3 run
    assert compare_sb3.with_stand_ins(compare_sb3.with_stand_ins(runs)) == compare_sb3.with_stand_ins(runs)
    remeasured = [{**r, "final_return": 123.0} if r["algo"] == "dqn" else r for r in runs + copies]
    refreshed = [r for r in compare_sb3.with_stand_ins(remeasured) if "same_run_as" in r]
    assert len(refreshed) == 3 and all(c["final_return"] == 123.0 for c in refreshed)  # copies follow their source


def test_the_results_table_has_a_row_per_run_with_sb3_over_rlkit_on_the_rlkit_rows(results):
    lines = compare_sb3.markdown_table(results["summary"]).splitlines()
    assert len(lines) == 2 + len(results["summary"])
    rows_cells = [[cell.strip() for cell in line.split("|")[1:-1]] for line in lines[2:]]
    cells = {row[1]: row for row in rows_cells}
    assert list(cells) == ["rlkit torch", "rlkit TF", "SB3"]  # the order of RUNS
    rows = {(r["library"], r["framework"]): r for r in results["summary"]}
    ratio = rows["rlkit", "torch"]["sb3_over_this_cpu_s_to_solve"]
    assert cells["rlkit torch"][-1] == ("-" if ratio is None else f"{ratio:.2f}")
    assert cells["SB3"][-1] == "" and cells["SB3"][7] == f"{rows['sb3', 'torch']['budget_steps']:,}"


def test_a_measured_ratio_is_printed_on_its_rlkit_row_with_two_decimals():
    summary = compare_sb3.summarize(json.loads(compare_sb3.RESULTS.read_text())["runs"])
    row = next(r for r in summary if r["library"] == "rlkit" and r["sb3_over_this_cpu_s_to_solve"] is not None)
    label = {"torch": "rlkit torch", "tf": "rlkit TF"}[row["framework"]]
    line = next(
        line
        for line in compare_sb3.markdown_table(summary).splitlines()
        if line.startswith(f"| {row['algo'].upper()}, {row['env']} | {label} |")
    )
    assert line.split("|")[-2].strip() == f"{row['sb3_over_this_cpu_s_to_solve']:.2f}"


def test_results_md_and_readme_show_the_tables_of_the_committed_results_file():
    committed = json.loads(compare_sb3.RESULTS.read_text())
    table = compare_sb3.markdown_table(compare_sb3.summarize(committed["runs"]))
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `compare_sb3.py --table results`"
    short = compare_sb3.readme_table(compare_sb3.summarize(committed["runs"]))
    assert short in (ROOT / "README.md").read_text(), "re-paste `compare_sb3.py --table readme`"


def test_results_md_shows_the_ten_seed_steps_table_of_the_three_committed_files():
    more = ("compare_sb3_seeds_5_9.json", "compare_sb3_ppo_cartpole_seeds_10_29.json")
    files = (compare_sb3.RESULTS, *(compare_sb3.RESULTS.with_name(name) for name in more))
    runs = [run for path in files for run in json.loads(path.read_text())["runs"]]
    table = compare_sb3.steps_table(runs)
    assert table in (ROOT / "benchmarks" / "RESULTS.md").read_text(), "re-paste `compare_sb3.py --table steps`"
    assert "| PPO, Pendulum-v1 | 20,480 (10 seeds, 0 ended below) |" in table  # the joined seeds, counted
    assert "| PPO, CartPole-v1 | 17,664 (30 seeds, 0 ended below) |" in table


def test_the_steps_table_joins_seeds_and_counts_endings_below_and_runs_never_solved():
    def run(library: str, framework: str, seed: int, solved_at: int | None, final: float) -> dict:
        record = _run("ppo", library, framework, seed)
        return {**record, "solved_at_step": solved_at, "final_return": final, "solved_cpu_s": None,
                "solved_wall_s": None, "cpu_s": 1.0, "wall_s": 1.0, "steps": 100}  # fmt: skip

    runs = [
        run("rlkit", "torch", 0, 10, 500.0),
        run("rlkit", "torch", 1, 30, 400.0),
        run("rlkit", "torch", 2, 20, 500.0),
    ]
    runs += [run("rlkit", "tf", 0, None, 9.0), run("rlkit", "tf", 1, None, 9.0), run("sb3", "torch", 0, 5, 500.0)]
    line = compare_sb3.steps_table(runs).splitlines()[2]
    assert line == (
        "| PPO, CartPole-v1 | 20 (3 seeds, 1 ended below) | never (2 seeds, 2 ended below) "
        "| 5 (1 seed, 0 ended below) |"
    )


def test_the_recorded_command_keeps_no_folder_of_this_machine(tmp_path):
    inside = ROOT / "benchmarks" / "results" / "x.json"
    arguments = ["--out", str(tmp_path / "merged.json"), "--pairs", "ppo:CartPole-v1", "--out", str(inside)]
    assert compare_sb3.portable(arguments) == [
        "--out", "merged.json", "--pairs", "ppo:CartPole-v1", "--out", "benchmarks/results/x.json"
    ]  # fmt: skip


def test_a_pass_made_with_a_preloaded_library_names_it_and_no_folder(monkeypatch):
    """A preload that answers MKL's vendor check gives torch other numbers on an AMD CPU (chapter 40): the
    record of a pass made with one names the library, by file name only."""
    from benchmarks._results_file import provenance

    monkeypatch.delenv("LD_PRELOAD", raising=False)
    assert "preloaded" not in provenance("benchmarks.learning.endings")
    monkeypatch.setenv("LD_PRELOAD", "/opt/shim/libintel_cpu_true.so:/usr/lib/libjemalloc.so")
    assert provenance("benchmarks.learning.endings")["preloaded"] == ["libintel_cpu_true.so", "libjemalloc.so"]


def test_a_pass_records_the_cpus_vector_extensions_its_name_does_not_say(tmp_path):
    from benchmarks._results_file import vector_extensions

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx avx2 fma avx512f avx512bw\n")
    assert vector_extensions(cpuinfo) == ["avx2", "fma", "avx512f"]
    cpuinfo.write_text("model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx avx2 fma\n")
    assert vector_extensions(cpuinfo) == ["avx2", "fma"]
    assert vector_extensions(tmp_path / "absent") is None


def test_the_commit_stamp_marks_edits_to_any_measured_code_but_not_the_results_files(tmp_path):
    """A results file names the commit it measured; an uncommitted edit to the library, the course's package or
    a benchmark script must show as "+changes", while a pass writing its own results file must not."""

    def git(*arguments: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *arguments],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    files = ["rlkit/a.py", "course/b.py", "benchmarks/learning/c.py", "benchmarks/results/d.json", "notebooks/e.md"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("0\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "start")
    clean = compare_sb3.commit(tmp_path)
    assert clean and not clean.endswith("+changes")
    for name in files:
        (tmp_path / name).write_text("1\n")
        measured = not name.startswith(("benchmarks/results", "notebooks"))
        assert compare_sb3.commit(tmp_path) == clean + ("+changes" if measured else ""), name
        git("checkout", "--", name)
    (tmp_path / "course" / "new.py").write_text("1\n")
    assert compare_sb3.commit(tmp_path) == clean + "+changes"
