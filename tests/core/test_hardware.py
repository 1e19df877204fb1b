from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from rlkit.hardware import blas_note, default_threads, format_report, report


def test_report_reads_versions_without_importing_frameworks():
    code = (
        "import sys; from rlkit.hardware import report; r = report(); "
        "print(r['versions']['numpy'] is not None, 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_probed_report_names_devices_and_cuda_builds():
    pytest.importorskip("torch")
    info = report(probe_frameworks=True)
    assert info["torch"]["installed"] and "cuda_build" in info["torch"]
    text = format_report(info)
    assert "torch" in text and "threads" in text


def test_threads_default_to_one_and_follow_the_environment(monkeypatch):
    monkeypatch.delenv("RLKIT_THREADS", raising=False)
    assert default_threads() == 1
    monkeypatch.setenv("RLKIT_THREADS", "2")
    assert default_threads() == 2
    monkeypatch.setenv("RLKIT_THREADS", "zero")
    with pytest.raises(ValueError, match="RLKIT_THREADS"):
        default_threads()


@pytest.mark.parametrize(
    ("vendor", "blas", "warned"),
    [("AuthenticAMD", "mkl", True), ("GenuineIntel", "mkl", False), ("AuthenticAMD", "other", False)],
)
def test_the_report_warns_of_mkl_only_on_cpus_that_are_not_intel(vendor, blas, warned):
    info = {**report(), "cpu_vendor": vendor, "torch": {"installed": False, "blas": blas}}
    assert (blas_note(info) is not None) == warned
    assert ("may take a slower path on AuthenticAMD" in format_report(info)) == warned


BLAS_THREADS = """
import json
import sys
import numpy
from threadpoolctl import threadpool_info
from rlkit import hardware

def blas_threads():
    return sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})

def rollout_worker():  # a Ray rollout worker's actor, built here without Ray (Ray pins OMP_NUM_THREADS itself)
    from rlkit.algos.actor_critic.config import initial_weights
    from rlkit.algos.ppo.agent import PPOAgent
    from rlkit.algos.ppo.config import PPOConfig
    from rlkit.distributed.rollouts import RolloutWorker, WorkerSpec
    from rlkit.envs import env_source, make_env, space_info

    config, action = PPOConfig(num_envs=1), space_info(make_env("CartPole-v1").action_space)
    spec = WorkerSpec(PPOAgent, env_source("CartPole-v1"), "CartPole-v1", 4, action, config, 0, 0, 1, 1)
    RolloutWorker(spec, initial_weights(4, 2, True, config, 0)).envs.close()

before = blas_threads()
rollout_worker() if sys.argv[1] == "RolloutWorker" else getattr(hardware, sys.argv[1])()
print(json.dumps(before), json.dumps(blas_threads()))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="numpy's BLAS starts one thread per core: needs two cores")
@pytest.mark.parametrize(
    ("configure", "threads"),
    [
        ("configure_numpy", None),
        ("configure_numpy", "2"),
        ("configure_torch", None),
        ("configure_tensorflow", None),
        ("RolloutWorker", None),
    ],
    # the frameworks pass their count on; a rollout worker builds no learner and sets it itself
    ids=["numpy", "numpy, RLKIT_THREADS=2", "torch", "tensorflow", "Ray rollout worker"],
)
def test_configuring_a_framework_holds_numpys_blas_to_rlkits_threads(configure, threads):
    if configure in ("configure_torch", "configure_tensorflow"):
        pytest.importorskip({"configure_torch": "torch", "configure_tensorflow": "tensorflow"}[configure])
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS") and k != "RLKIT_THREADS"}
    if threads:
        env["RLKIT_THREADS"] = threads
    out = subprocess.run(
        [sys.executable, "-c", BLAS_THREADS, configure], capture_output=True, text=True, check=True, env=env
    ).stdout
    before, after = (json.loads(part) for part in out.strip().splitlines()[-1].split(" "))
    assert len(before) == 1 and before[0] > 1  # numpy's default: a thread per core
    assert after == [int(threads or 1)]


FLUSHED = """
import torch
from rlkit.hardware import configure_torch
tiny = torch.full((4,), 1e-39)  # a float32 denormal
before = (tiny * 1.0).max().item()
configure_torch()
print(before, (tiny * 1.0).max().item())
"""


def test_configure_torch_flushes_denormals_to_zero_as_tensorflow_does():
    """torch keeps denormals by default (slow arithmetic: Rainbow's Adam step 6x slower); rlkit's learners
    flush them, as TensorFlow does by default."""
    pytest.importorskip("torch")
    out = subprocess.run([sys.executable, "-c", FLUSHED], capture_output=True, text=True, check=True).stdout
    before, after = map(float, out.split())
    assert before > 0  # torch's default
    assert after == 0.0


def test_tensorflow_flushes_denormals_by_default():
    """Why configure_torch flushes: so both twins compute with the same arithmetic. The same expression on
    torch's default keeps the denormal (the test above), so this one can tell the two apart."""
    tf = pytest.importorskip("tensorflow")
    tiny = tf.fill((4,), tf.constant(1e-39, tf.float32))
    assert float(tf.reduce_max(tiny * 1.0)) == 0.0


TF_THREADS_AFTER_TRAINING = """
import rlkit
import tensorflow as tf

rlkit.train("{algo}", "{env}", framework="tf", total_steps={steps}, progress=False)
threading = tf.config.threading
print(threading.get_intra_op_parallelism_threads(), threading.get_inter_op_parallelism_threads())
"""


@pytest.mark.parametrize(
    ("algo", "env", "steps"), [("sac", "Pendulum-v1", 300), ("ppo", "CartPole-v1", 512)], ids=["replay", "rollout"]
)
def test_a_tensorflow_learner_holds_tensorflow_to_rlkits_threads(algo, env, steps):
    """A TF learner is built inside ``tf.device``, which starts TensorFlow: its thread pools must be set before
    that, or TensorFlow keeps its default (a thread per core; 0 reads as that default) and an rlkit run takes
    every core of the machine (it did, from the learners' device scopes on, until this test)."""
    pytest.importorskip("tensorflow")
    env_vars = {k: v for k, v in os.environ.items() if k != "RLKIT_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", TF_THREADS_AFTER_TRAINING.format(algo=algo, env=env, steps=steps)],
        capture_output=True, text=True, check=True, env=env_vars,
    ).stdout  # fmt: skip
    assert out.split()[-2:] == ["1", "1"], out
