"""Where TensorFlow learners train: ``device=`` honoured, not a label.

A TensorFlow GPU build puts every op on the GPU unless told otherwise, so a TF learner runs inside
``tf.device`` of its device (``rlkit.hardware.on_learner_device``). A CPU-only machine can still prove that
the scope reaches every variable and op: TensorFlow can split the CPU into two logical devices, and a learner
sent to the second one must put everything there (the default would be the first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import rlkit
from rlkit.errors import RlkitError
from rlkit.hardware import tensorflow_device

tf = pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
GPUS = tf.config.list_physical_devices("GPU")

#: Runs in a fresh process (logical devices must be made before TensorFlow starts): each family's learner
#: is sent to /CPU:1, trained briefly, and reports where its variables live and where an update's outputs
#: were computed.
ON_SECOND_CPU = """
import json, sys
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import rlkit
from rlkit import hardware
from rlkit.algos import tf_parts
from rlkit.algos.a2c import tf as a2c_tf
from rlkit.algos.ppo import tf as ppo_tf

for module in (hardware, tf_parts, a2c_tf, ppo_tf):  # every place that names the learner's device
    module.tensorflow_device = lambda device: "/CPU:1"
found = {}
for algo, env, extra in [
    ("dqn", "CartPole-v1", {"learning_starts": 100, "train_every": 100, "gradient_steps": 2}),
    ("sac", "Pendulum-v1", {"learning_starts": 100, "train_every": 100, "gradient_steps": 2}),
    ("ppo", "CartPole-v1", {"num_steps": 32}),
]:
    result = rlkit.train(algo, env, framework="tf", total_steps=256, progress=False, eval_every=256,
                         eval_episodes=1, **extra)
    learner = result.agent.learner
    parts = [getattr(learner, name) for name in learner.TRAINING_STATE]
    parts = [item for part in parts for item in (part if isinstance(part, list) else [part])]
    variables = [v for part in parts for v in getattr(part, "variables", [])]
    found[algo] = {"variables": sorted({v.value.device.rsplit(":", 2)[-2][-3:] + ":" + v.value.device[-1]
                                        for v in variables}), "count": len(variables)}
    if algo == "dqn":  # the outputs of one gradient step, computed inside the learner's update
        outputs = []
        train_steps = learner.train_steps
        learner.train_steps = lambda *args: outputs.extend(tf.nest.flatten(train_steps(*args))) or train_steps(*args)
        learner.update(result.agent.loop.buffer.sample(32))
        found[algo]["update"] = sorted({t.device.rsplit("device:", 1)[-1] for t in outputs})
print(json.dumps(found))
"""


def test_a_tensorflow_learner_builds_and_updates_on_its_device():
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", ON_SECOND_CPU], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for algo, where in found.items():
        assert where["count"] >= 6 and where["variables"] == ["CPU:1"], (algo, where)
    assert found["dqn"]["update"] == ["CPU:1"], found["dqn"]


def test_cpu_means_the_cpu_and_auto_the_first_gpu():
    assert tensorflow_device("cpu") == "/CPU:0"
    assert tensorflow_device("auto") == ("/GPU:0" if GPUS else "/CPU:0")


@pytest.mark.skipif(bool(GPUS), reason="checks the refusal on a machine where TensorFlow sees no GPU")
@pytest.mark.parametrize("device", ["cuda", "cuda:1", "mps"])
def test_a_gpu_tensorflow_cannot_see_is_refused_naming_what_it_sees(device):
    with pytest.raises(RlkitError, match=rf"device '{device}': TensorFlow .* sees no GPU"):
        rlkit.train("dqn", framework="tf", total_steps=100, device=device, progress=False)


@pytest.mark.gpu
@pytest.mark.skipif(not GPUS, reason="needs a GPU TensorFlow sees")
def test_on_a_gpu_build_cpu_still_trains_on_the_cpu():
    result = rlkit.train("dqn", framework="tf", total_steps=300, device="cpu", progress=False, eval_every=300,
                         learning_starts=100)  # fmt: skip
    devices = {v.value.device for v in result.agent.learner.q.variables}
    assert all(device.endswith("CPU:0") for device in devices), devices


@pytest.mark.skipif(bool(GPUS), reason="checks the refusal on a machine where TensorFlow sees no GPU")
def test_load_and_resume_of_a_tensorflow_run_take_a_device(tmp_path):
    path = tmp_path / "agent.keras"
    rlkit.train("dqn", framework="tf", total_steps=400, learning_starts=100, eval_every=400, progress=False, save=path)
    assert rlkit.load(path, device="auto").learner.device == "/CPU:0"
    with pytest.raises(RlkitError, match=r"device 'cuda:0': TensorFlow .* sees no GPU"):
        rlkit.load(path, device="cuda:0")
    with pytest.raises(RlkitError, match=r"device 'cuda': TensorFlow .* sees no GPU"):
        rlkit.train("dqn", framework="tf", resume=path, device="cuda", total_steps=800, progress=False)
