"""benchmarks/learning/harder_tasks.py: long runs that are interrupted go on from their checkpoint as if they had
not stopped, and a finished run is not run again."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from tests.benchmarks.staleness import assert_measured_on_todays_defaults
from tests.conftest import benchmark_script

SHORT = {"learning_starts": 500, "eval_every": 500, "train_every": 100, "gradient_steps": 50}


def test_an_interrupted_run_resumes_from_its_checkpoint_and_ends_as_an_uninterrupted_one(tmp_path, monkeypatch):
    """Ctrl-C at step 1,200 (a real SIGINT, which rlkit turns into a resumable save in the run's folder); the same
    task started again goes on from there and ends with the evaluations and final agent of a run never stopped."""
    harder = benchmark_script("harder_tasks")
    import rlkit.callbacks
    from rlkit.errors import TrainingInterrupted
    from rlkit.evaluate import play_episodes

    task = ("dqn", "CartPole-v1", "torch", 3, 2000, SHORT)
    whole = harder.run_one((*task, tmp_path / "whole", 1000, False, "cpu"))
    assert whole["resumed_from"] is None

    class CtrlCAt1200(rlkit.callbacks.SaveCheckpoints):
        def on_step(self, run):
            if run.step == 1200:
                os.kill(os.getpid(), signal.SIGINT)
            return super().on_step(run)

    with monkeypatch.context() as patch:
        patch.setattr(rlkit.callbacks, "SaveCheckpoints", CtrlCAt1200)
        with pytest.raises(TrainingInterrupted):
            harder.run_one((*task, tmp_path / "parts", 1000, False, "cpu"))
    folder = harder.run_folder(tmp_path / "parts", *task[:4], SHORT, 2000)
    assert harder.latest_checkpoint(folder).name == "step_1200.pt"
    resumed = harder.run_one((*task, tmp_path / "parts", 1000, False, "cpu"))
    assert resumed["resumed_from"] == "step_1200.pt" and resumed["budget"] == 2000
    saved = rlkit.load(folder / "final.pt")  # the agent the run returned, kept beside its checkpoints
    endings = benchmark_script("endings")  # the final episodes' count and seeds, shared by both scripts
    episodes = play_episodes(saved, "CartPole-v1", endings.FINAL_EPISODES, endings.FINAL_EVAL_SEED + 1_000 * 3)
    assert episodes.tolist() == resumed["final_returns"]
    for field in ("eval_steps", "eval_returns", "final_returns", "settings"):
        assert resumed[field] == whole[field], field
    assert resumed["at_milestones"] == {"100000": None, "300000": None}  # a 2,000-step run reaches neither
    assert resumed["final_graded"] is None  # the Hugging Face course's mark is LunarLander's
    assert harder.graded("LunarLander-v3", np.array([250.0, 150.0])) is False  # 200 - 50 < 200
    assert harder.graded("LunarLanderContinuous-v3", np.array([260.0, 240.0])) is True


def test_a_run_in_the_results_file_is_not_run_again(tmp_path, monkeypatch):
    harder = benchmark_script("harder_tasks")
    out = tmp_path / "harder.json"
    run = {"algo": "dqn", "env": "CartPole-v1", "framework": "torch", "seed": 0, "overrides": {}}
    out.write_text(json.dumps({"provenance": {}, "runs": [run]}))
    started = []
    monkeypatch.setattr(harder, "run_into_file", lambda document, out, run_one, tasks, *rest: started.extend(tasks))
    monkeypatch.setattr(harder, "table", lambda document: "")
    argv = ["harder_tasks", "--configs", "dqn:CartPole-v1:torch", "--seeds", "0", "1", "--out", str(out)]
    monkeypatch.setattr("sys.argv", argv)
    harder.main()
    assert [task[3] for task in started] == [1]


def test_runs_with_other_settings_keep_apart_and_a_checkpoint_of_other_settings_is_refused(tmp_path):
    harder = benchmark_script("harder_tasks")
    from rlkit.errors import RlkitError

    defaults = harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0)
    assert defaults.name == "dqn-CartPole-v1-torch-seed0"
    tuned = harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0, {"n_step": 2})
    assert tuned != defaults and tuned == harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0, {"n_step": 2})
    assert harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0, steps=300_000).name.endswith("-steps300000")
    harder.run_one(("dqn", "CartPole-v1", "torch", 0, 1000, SHORT, tmp_path, 1000, False, "cpu"))
    folder = harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0, SHORT, 1000)
    other = {**SHORT, "n_step": 2}  # CartPole's default is 3
    harder.run_folder(tmp_path, "dqn", "CartPole-v1", "torch", 0, other, 2000).symlink_to(folder)
    with pytest.raises(RlkitError, match="n_step"):  # a checkpoint of other settings, found in the folder
        harder.run_one(("dqn", "CartPole-v1", "torch", 0, 2000, other, tmp_path, 1000, False, "cpu"))


COMMITTED = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "harder_tasks.json"


def test_the_committed_runs_were_measured_on_the_defaults_and_budgets_of_today():
    """A change to a default of LunarLander's (or a MuJoCo task's) configuration makes the committed runs another
    algorithm's, which chapter 60 would still show: this fails until they are re-measured."""
    runs = json.loads(COMMITTED.read_text())["runs"]
    assert {(run["algo"], run["env"]) for run in runs} >= {("dqn", "LunarLander-v3"), ("ppo", "LunarLander-v3")}
    assert all(run["overrides"] == {} for run in runs), (
        "the committed file holds default runs only (a tuning pass: --out)"
    )
    assert_measured_on_todays_defaults(runs, "harder_tasks.json")


def test_the_committed_pixel_runs_were_measured_on_the_defaults_and_budgets_of_today():
    """Chapter 16 reads benchmarks/results/pixels.json (DQN and PPO on MinAtar): a changed MinAtar default fails
    here."""
    runs = json.loads((COMMITTED.parent / "pixels.json").read_text())["runs"]
    games = {"MinAtar/Breakout-v1", "MinAtar/SpaceInvaders-v1"}
    assert {(run["algo"], run["env"]) for run in runs} >= {(algo, game) for algo in ("dqn", "ppo") for game in games}
    assert all(run["overrides"] == {} for run in runs), "the committed file holds default runs only"
    assert_measured_on_todays_defaults(runs, "pixels.json")


def test_the_committed_unseen_seed_pixel_runs_are_default_runs_of_today():
    """RESULTS.md checks the MinAtar defaults, chosen on seeds 0-2, on a seed never used for choosing them."""
    runs = json.loads((COMMITTED.parent / "pixels_unseen_seeds.json").read_text())["runs"]
    wanted = {(algo, framework) for algo in ("dqn", "ppo") for framework in ("torch", "tf")}
    assert {(run["algo"], run["framework"]) for run in runs} == wanted
    assert all(run["seed"] >= 100 and run["overrides"] == {} for run in runs)
    assert_measured_on_todays_defaults(runs, "pixels_unseen_seeds.json")


@pytest.mark.parametrize("variant", ["n_step_1", "hard_target_1k", "hard_target_10k", "dueling", "ppo_lr_1e-3"])
def test_the_committed_pixel_variants_are_todays_defaults_with_one_change(variant):
    """Chapter 16 sets each variant's runs beside the default runs of the same seeds: they must differ from
    today's defaults by their overrides alone."""
    runs = json.loads((COMMITTED.parent / f"pixels_{variant}.json").read_text())["runs"]
    assert runs and all(run["overrides"] for run in runs), "a variant's runs name what they change"
    assert_measured_on_todays_defaults(runs, f"pixels_{variant}.json")


def test_results_md_shows_the_table_of_the_committed_file():
    table = benchmark_script("harder_tasks").table(json.loads(COMMITTED.read_text()))
    assert table in (COMMITTED.parents[1] / "RESULTS.md").read_text(), "re-paste `harder_tasks.py --table`"


#: The final agents kept in benchmarks/results/agents/, each with the results file and the run it ended.
COMMITTED_AGENTS = [
    ("dqn-MinAtar-Breakout-v1-tf-seed0.keras", "pixels.json", ("dqn", "MinAtar/Breakout-v1", "tf", 0)),  # ch. 16
    ("dqn-LunarLander-v3-torch-seed2.pt", "harder_tasks.json", ("dqn", "LunarLander-v3", "torch", 2)),  # ch. 60
]
# Not sac-HalfCheetah-v5-torch-seed0.pt (chapter 60's video): weights moved by a millionth play HalfCheetah's
# episodes up to 3% apart, and another seed's agent scores within 3% of it: no count of episodes tells them apart.


@pytest.mark.parametrize(("agent_file", "results_file", "run_key"), COMMITTED_AGENTS)
def test_a_committed_agent_is_the_final_agent_of_its_committed_run(agent_file, results_file, run_key):
    """The chapters play a kept agent as the final agent of a committed run: replaying that run's 20 final
    episodes gives back the returns it recorded. Another CPU may round a near-tie of two Q-values the other way
    and play an episode differently, so 15 of the 20 must agree episode by episode, to 1% (here all 20 do, and
    the lander's do with every weight moved by a millionth; another seed's lander agreed on 0 and 3)."""
    import rlkit
    from rlkit.evaluate import play_episodes

    endings = benchmark_script("endings")
    runs = json.loads((COMMITTED.parent / results_file).read_text())["runs"]
    (run,) = [r for r in runs if (r["algo"], r["env"], r["framework"], r["seed"]) == run_key and not r["overrides"]]
    agent = rlkit.load(COMMITTED.parent / "agents" / agent_file)
    seed = endings.FINAL_EVAL_SEED + 1_000 * run["seed"]
    returns = play_episodes(agent, run["env"], endings.FINAL_EPISODES, seed)
    recorded = run["final_returns"]
    same = sum(
        abs(ours - theirs) <= 0.01 * max(1.0, abs(theirs)) for ours, theirs in zip(returns, recorded, strict=True)
    )
    assert same >= 15, f"{same} of 20 episodes as recorded: not the run's final agent"
