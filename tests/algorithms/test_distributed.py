"""PPO and A2C on Ray rollout workers: the same data as one process, bit for bit; a dead worker is replaced
and its block collected again; a checkpoint resumes in one process; the run learns; without Ray, workers=
says what to install.

One Ray session for the module (two CPUs, a small object store), shut down at its end.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import rlkit
from rlkit.callbacks import Callback, SaveCheckpoints
from rlkit.errors import RlkitError

ray = pytest.importorskip("ray")

SHORT = {"total_steps": 1536, "progress": False, "num_steps": 64, "eval_every": 768, "eval_episodes": 2}


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20, logging_level="ERROR")
    yield
    ray.shutdown()


def same_run(a, b) -> None:
    """Every recorded series (but the wall-clock speed) and every final weight are equal, bit for bit."""
    ha, hb = a.history.to_dict(), b.history.to_dict()
    ha.pop("steps_per_second"), hb.pop("steps_per_second")
    hb.pop("worker_restarts", None)
    assert ha.keys() == hb.keys()
    for name in ha:
        assert np.array_equal(np.asarray(ha[name]), np.asarray(hb[name])), name
    for wa, wb in zip(a.agent.get_weights(), b.agent.get_weights(), strict=True):
        assert np.array_equal(wa, wb)


CASES = {
    # discrete actions (Gumbel noise), even blocks
    "ppo-torch-cartpole": ("ppo", "torch", "CartPole-v1", 4, 2, {}),
    # Gaussian noise, reward scaling on the learner, uneven blocks (2 + 1)
    "a2c-tf-pendulum": ("a2c", "tf", "Pendulum-v1", 3, 2, {"normalize_rewards": True}),
    # gSDE: every worker draws all environments' noise matrices, every 5 steps, and keeps its rows' actions
    "a2c-torch-pendulum-gsde": ("a2c", "torch", "Pendulum-v1", 3, 2, {"use_sde": True, "sde_sample_freq": 5}),
}


@pytest.mark.parametrize("case", CASES)
def test_workers_collect_the_data_of_one_process(case):
    algo, framework, env, num_envs, workers, extra = CASES[case]
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    settings = {"env": env, "framework": framework, "seed": 3, "num_envs": num_envs, **SHORT, **extra}
    one = rlkit.train(algo, **settings)
    spread = rlkit.train(algo, workers=workers, **settings)
    assert len(one.history.series("episode_return")[1]) > 0  # the comparison covers finished episodes
    same_run(one, spread)
    spread.agent.close()


class KillWorker(Callback):
    """Kills worker 0 after the first update: the next rollout finds it dead."""

    def __init__(self) -> None:
        self.killed = False

    def on_burst(self, run, metrics):
        if not self.killed:
            ray.kill(run.agent.loop.pool.actors[0])
            self.killed = True


def test_a_dead_worker_is_replaced_and_its_block_collected_again():
    pytest.importorskip("torch")
    settings = {"env": "CartPole-v1", "framework": "torch", "seed": 5, "num_envs": 4, **SHORT}
    one = rlkit.train("ppo", **settings)
    with pytest.warns(UserWarning, match="rollout worker 0 died"):
        spread = rlkit.train("ppo", workers=2, callbacks=[KillWorker()], **settings)
    assert spread.history.series("worker_restarts")[1].tolist() == [1]
    same_run(one, spread)  # nothing dropped, nothing collected twice: the run is the uninterrupted one
    spread.agent.close()


def test_a_checkpoint_of_a_run_on_workers_resumes_in_one_process(tmp_path):
    pytest.importorskip("torch")
    settings = {"env": "CartPole-v1", "framework": "torch", "seed": 4, "num_envs": 4, **SHORT}
    one = rlkit.train("ppo", **settings)
    save = SaveCheckpoints(tmp_path, every=768, resumable=True)
    rlkit.train("ppo", workers=2, callbacks=[save], **settings).agent.close()
    resumed = rlkit.train("ppo", resume=tmp_path / "step_768.pt", progress=False)
    same_run(one, resumed)


@pytest.mark.slow
def test_ppo_on_workers_solves_cartpole():
    pytest.importorskip("torch")
    result = rlkit.train("ppo", framework="torch", seed=1, workers=2, stop_when_solved=True, progress=False)
    result.agent.close()
    returns = rlkit.evaluate(result.agent, "CartPole-v1", episodes=20, seed=2024)
    assert returns.mean() >= 475, f"mean return {returns.mean():.1f} over 20 episodes ({result})"


def test_runs_that_cannot_be_split_are_refused():
    with pytest.raises(RlkitError, match="learns from replay"):
        rlkit.train("dqn", workers=2, total_steps=100, progress=False)
    with pytest.raises(RlkitError, match="normalize_obs=False"):
        rlkit.train("ppo", workers=2, normalize_obs=True, total_steps=100, progress=False)
    from tests.algorithms.test_image_dqn import GridWorld

    with pytest.raises(RlkitError, match="reads images through convolutional encoders: train it in one process"):
        rlkit.train("ppo", env=GridWorld, workers=2, num_envs=2, total_steps=100, progress=False)
    with pytest.raises(RlkitError, match="workers=3 hold one CPU each, and the Ray cluster has 2"):
        rlkit.train("ppo", workers=3, num_envs=4, total_steps=100, progress=False)
    with pytest.raises(RlkitError, match=r"workers must be an int in \[1, num_envs=4\]"):
        rlkit.train("ppo", workers=5, num_envs=4, total_steps=100, progress=False)


def test_without_ray_workers_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails, as when the extra is not installed
    with pytest.raises(RlkitError, match=r"pip install 'rlkit-course\[ray\]'"):
        rlkit.train("ppo", workers=2, total_steps=100, progress=False)
    assert rlkit.train("ppo", total_steps=256, num_steps=64, num_envs=4, progress=False).steps == 256
