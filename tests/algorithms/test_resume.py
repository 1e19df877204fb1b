"""Continuing training: a run saved halfway and resumed ends with the same weights, bit for bit, as the run
that never stopped (DQN, PPO and SAC in both frameworks, on CPU); ``agent.learn`` goes on from a live run;
resumable checkpoints load without pickle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rlkit
from rlkit.callbacks import SaveCheckpoints, StopAt
from rlkit.errors import CheckpointError, RlkitError

RUNS = {  # algorithm -> (environment, total steps, settings): small, but past warm-ups and several updates
    "dqn": ("CartPole-v1", 2_000, {"learning_starts": 200, "train_every": 100, "gradient_steps": 20}),
    "ppo": ("CartPole-v1", 4_096, {}),
    "sac": ("Pendulum-v1", 1_000, {"learning_starts": 200, "train_every": 100, "gradient_steps": 20}),
    # an Ornstein-Uhlenbeck process carries its state from step to step: it must come back too
    "ddpg": ("Pendulum-v1", 1_000, {"learning_starts": 200, "train_every": 100, "gradient_steps": 20,
                                    "exploration": "ou"}),
}  # fmt: skip
QUIET = {"progress": False, "eval_episodes": 2}
ROOT = str(Path(__file__).resolve().parents[2])  # the command line must run this checkout's rlkit


def train(algo: str, framework: str, **options):
    env, steps, settings = RUNS[algo]
    return rlkit.train(
        algo, env=env, framework=framework, seed=3, total_steps=steps, eval_every=steps // 4, **QUIET, **settings,
        **options,
    )  # fmt: skip


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", sorted(RUNS))
def test_half_saved_and_resumed_equals_the_uninterrupted_run_bit_for_bit(algo, framework, tmp_path):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    total = RUNS[algo][1]
    whole = train(algo, framework)
    train(algo, framework, callbacks=[SaveCheckpoints(tmp_path, every=total // 2, best=False, resumable=True)])
    saved = tmp_path.glob(f"step_*{'.pt' if framework == 'torch' else '.keras'}")
    halfway = min(saved, key=lambda path: int(path.name.split("_")[1].split(".")[0]))  # the first update past half
    assert total // 2 <= int(halfway.name.split("_")[1].split(".")[0]) < total
    resumed = rlkit.train(algo, framework=framework, resume=halfway, progress=False)
    assert resumed.steps == whole.steps == total
    for a, b in zip(whole.agent.get_weights(), resumed.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(whole.history.series("eval_return")[1], resumed.history.series("eval_return")[1])


PHYSICS_IN_C = {  # environment -> (module, algorithm): Box2D's world and MuJoCo's MjData live in C
    "LunarLander-v3": ("Box2D", "dqn"),
    "HalfCheetah-v5": ("mujoco", "sac"),
}


@pytest.mark.parametrize("env", sorted(PHYSICS_IN_C))
def test_a_run_on_a_physics_in_c_resumed_halfway_equals_the_uninterrupted_run(env, tmp_path):
    """The checkpoint cannot hold Box2D's or MuJoCo's state: the resumed run plays its environments' episodes in
    progress again (``EnvRunner.restore``) and ends bit-identical all the same."""
    module, algo = PHYSICS_IN_C[env]
    pytest.importorskip(module)
    settings = {"env": env, "seed": 3, "total_steps": 3_000, "learning_starts": 500, "train_every": 100,
                "gradient_steps": 20, "hidden_sizes": (32, 32), "eval_every": 1_000, **QUIET}  # fmt: skip
    whole = rlkit.train(algo, **settings)
    rlkit.train(algo, callbacks=[SaveCheckpoints(tmp_path, every=1_500, best=False, resumable=True)], **settings)
    halfway = min(tmp_path.glob("step_*.pt"), key=lambda path: int(path.name.split("_")[1].split(".")[0]))
    resumed = rlkit.train(algo, resume=halfway, progress=False)
    for a, b in zip(whole.agent.get_weights(), resumed.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    returns = [run.history.series("episode_return")[1] for run in (whole, resumed)]
    np.testing.assert_array_equal(*returns)


def test_stop_at_gives_the_first_part_of_the_long_run_which_resumes_to_its_end(tmp_path):
    """StopAt keeps the whole budget's schedules: its run is the start of the long one (a shorter total_steps
    is not: epsilon decays over a fraction of the budget), and it resumes to the long run's end, bit for bit."""
    pytest.importorskip("torch")
    env, _, settings = RUNS["dqn"]
    settings = {**settings, **QUIET, "env": env, "seed": 3, "eval_every": 500, "eps_fraction": 0.5}
    whole = rlkit.train("dqn", total_steps=2_000, **settings)
    saver = SaveCheckpoints(tmp_path, every=1_000, resumable=True)
    first = rlkit.train("dqn", total_steps=2_000, callbacks=[StopAt(1_000), saver], **settings)
    shorter = rlkit.train("dqn", total_steps=1_000, **settings)
    assert first.steps == 1_000
    epsilon = {name: run.history.series("epsilon")[1] for name, run in [("whole", whole), ("first", first)]}
    np.testing.assert_array_equal(epsilon["first"], epsilon["whole"][: len(epsilon["first"])])
    assert shorter.history.series("epsilon")[1][0] < epsilon["first"][0]  # decaying over 500 steps, not 1,000
    resumed = rlkit.train("dqn", resume=tmp_path / "step_1000.pt", progress=False)
    for a, b in zip(whole.agent.get_weights(), resumed.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(RlkitError, match="StopAt step must be a positive int"):
        StopAt(0)


def test_learn_goes_on_from_the_live_run_and_from_a_plain_checkpoint(tmp_path):
    pytest.importorskip("torch")
    first = train("dqn", "torch")
    buffered = len(first.agent.loop.buffer)
    more = first.agent.learn(1_000, progress=False)
    assert more.steps == 3_000 and more.agent is first.agent
    assert len(first.agent.loop.buffer) > buffered  # the same buffer, filled further
    assert list(more.history.series("eval_return")[0]) == [500, 1_000, 1_500, 2_000, 2_500, 3_000]
    first.agent.save(tmp_path / "plain.pt")
    loaded = rlkit.load(tmp_path / "plain.pt")
    fresh = loaded.learn(600, progress=False, seed=1)  # a new run from the loaded weights
    assert fresh.steps == 600


def test_resume_without_state_with_new_hyperparameters_or_past_the_end_fails_clearly(tmp_path):
    pytest.importorskip("torch")
    result = train("dqn", "torch")
    result.agent.save(tmp_path / "plain.pt")
    with pytest.raises(CheckpointError, match=r"no training state beside it \(plain.pt.state.npz\)"):
        rlkit.train("dqn", resume=tmp_path / "plain.pt", progress=False)
    result.agent.save(tmp_path / "run.pt", resumable=True)
    with pytest.raises(rlkit.RlkitError, match="keeps its checkpoint's hyperparameters; got gamma"):
        rlkit.train("dqn", resume=tmp_path / "run.pt", gamma=0.9)
    with pytest.raises(rlkit.RlkitError, match="already at step 2000: ask for total_steps > 2000"):
        rlkit.train("dqn", resume=tmp_path / "run.pt", progress=False)
    with pytest.raises(rlkit.RlkitError, match="holds a dqn agent, not ppo"):
        rlkit.train("ppo", resume=tmp_path / "run.pt", progress=False)
    resumed = rlkit.train("dqn", resume=tmp_path / "run.pt", total_steps=2_500, progress=False)
    assert resumed.steps == 2_500


def test_without_the_replay_buffer_the_resumed_run_refills_it_first(tmp_path):
    pytest.importorskip("torch")
    result = train("dqn", "torch")
    result.agent.save(tmp_path / "light.pt", resumable=True, replay_buffer=False)
    full_size = (tmp_path / "light.pt.state.npz").stat().st_size
    result.agent.save(tmp_path / "heavy.pt", resumable=True)
    assert (tmp_path / "heavy.pt.state.npz").stat().st_size > full_size
    resumed = rlkit.train("dqn", resume=tmp_path / "light.pt", total_steps=2_500, progress=False)
    assert 450 < len(resumed.agent.loop.buffer) <= 500  # only what the continued run collected


def test_a_training_state_with_pickled_objects_is_refused(tmp_path):
    path = tmp_path / "evil.state.npz"
    np.savez(path, **{"a0": np.array([object()], dtype=object), "__state__.json": np.array("{}")})
    with pytest.raises(CheckpointError, match="not a readable rlkit training state"):
        from rlkit.state import load_state

        load_state(path)


def test_the_command_line_resumes_a_logged_run(tmp_path):
    pytest.importorskip("torch")

    def cli(*args):
        run = [sys.executable, "-m", "rlkit", *args]
        return subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": ROOT})

    settings = ["--quiet", "--set", "learning_starts=200", "eval_every=500"]
    first = cli("train", "dqn", "--steps", "1000", "--logdir", "run", *settings)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "run" / "agent.pt.state.npz").is_file()
    more = cli("train", "dqn", "--resume", "run/agent.pt", "--steps", "1500", "--logdir", "run", "--quiet")
    assert more.returncode == 0, more.stderr
    assert "1,500 steps" in more.stdout


def test_a_training_state_without_a_part_the_learner_names_is_refused_by_name(tmp_path):
    learner = train("dqn", "torch").agent.learner
    state = learner.state_dict()
    del state["optimizer"]
    with pytest.raises(CheckpointError, match="no optimizer"):
        learner.load_state_dict(state)


class ScoredReplayBuffer(rlkit.ReplayBuffer):
    """A buffer with a state of its own: it names it, as course/pitfalls/bucketed_replay.py does."""

    STATE = (*rlkit.ReplayBuffer.STATE, "td_errors")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.td_errors = np.zeros(self.capacity, dtype=np.float32)


def test_a_replay_buffer_saves_what_it_names_and_a_subclass_adds_its_own():
    buffer = ScoredReplayBuffer(8, (2,), seed=0)
    buffer.add(np.arange(6.0).reshape(3, 2), np.zeros(3, np.int64), np.ones(3), np.ones((3, 2)), np.zeros(3))
    buffer.td_errors[:3] = 5.0
    copy = ScoredReplayBuffer(8, (2,), seed=1)
    copy.load_state_dict(buffer.state_dict())
    assert copy.size == 3 and copy.position == 3
    np.testing.assert_array_equal(copy.td_errors, buffer.td_errors)
    np.testing.assert_array_equal(copy.sample(4)["obs"], buffer.sample(4)["obs"])  # the generator came back too
