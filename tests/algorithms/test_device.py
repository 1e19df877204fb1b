"""Where torch learners train: device names resolved and refused clearly, the option carried from
``rlkit.train`` and ``--device`` into the learner, and (on a machine with a GPU) the same update there."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.errors import RlkitError
from rlkit.hardware import check_device, resolve_device

torch = pytest.importorskip("torch")

CUDA = torch.cuda.is_available()
gpu = pytest.mark.skipif(not CUDA, reason="needs a CUDA device")


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "tpu", "", None])
def test_unknown_device_names_are_refused(bad):
    with pytest.raises(RlkitError, match="device must be one of cpu, cuda, cuda:N, mps, auto"):
        check_device(bad)


def test_auto_is_cuda_when_torch_sees_one_and_cpu_otherwise():
    mps = torch.backends.mps.is_available()
    assert resolve_device("auto") == ("cuda" if CUDA else "mps" if mps else "cpu")
    assert resolve_device("cpu") == "cpu"


@pytest.mark.skipif(CUDA, reason="checks the refusal on a machine without CUDA")
def test_a_gpu_torch_cannot_see_is_refused_not_replaced_by_the_cpu():
    with pytest.raises(RlkitError, match=r"device 'cuda': torch .* sees 0 CUDA device\(s\)"):
        rlkit.train("dqn", total_steps=100, device="cuda", progress=False)


@pytest.mark.parametrize(("algo", "twin"), [("dqn", "rlkit.algos.torch_parts"), ("ppo", "rlkit.algos.ppo.torch")])
def test_load_and_resume_take_a_device(algo, twin, tmp_path, monkeypatch):
    """``rlkit.load(path, device=)`` and ``rlkit.train(resume=..., device=)`` build the learner where they are
    told, whatever device saved the checkpoint; a device this machine lacks is refused by name."""
    import importlib

    path = tmp_path / "agent.pt"
    options = {"learning_starts": 200} if algo == "dqn" else {}
    rlkit.train(algo, total_steps=600, progress=False, eval_every=600, save=path, **options)
    asked = []
    module = importlib.import_module(twin)
    monkeypatch.setattr(module, "resolve_device", lambda name: asked.append(name) or resolve_device(name))
    assert rlkit.load(path, device="auto").learner.device.type == resolve_device("auto").split(":")[0]
    assert asked == ["auto"]
    if not CUDA:
        with pytest.raises(RlkitError, match=r"device 'cuda': torch .* sees 0 CUDA device\(s\)"):
            rlkit.load(path, device="cuda")
        with pytest.raises(RlkitError, match=r"device 'cuda': torch .* sees 0 CUDA device\(s\)"):
            rlkit.train(algo, resume=path, device="cuda", total_steps=800, progress=False)


@gpu
def test_a_run_saved_on_the_cpu_resumes_on_the_gpu(tmp_path):
    path = tmp_path / "agent.pt"
    rlkit.train("td3", "Pendulum-v1", total_steps=600, progress=False, learning_starts=200, eval_every=600)
    first = rlkit.train("td3", "Pendulum-v1", total_steps=1_200, progress=False, learning_starts=200,
                        eval_every=600, save=path)  # fmt: skip
    first.agent.save(path, resumable=True)
    resumed = rlkit.train("td3", resume=path, device="cuda", total_steps=1_800, progress=False)
    assert resumed.agent.learner.device.type == "cuda" and resumed.steps == 1_800


@pytest.mark.parametrize(("algo", "twin"), [("dqn", "rlkit.algos.torch_parts"), ("ppo", "rlkit.algos.ppo.torch")])
def test_the_device_reaches_the_learner(algo, twin, monkeypatch):
    """The learner resolves the name it was given ("auto", not the default "cpu": on a machine without a GPU
    both end on the CPU, so the name asked for is what shows the option arrived)."""
    import importlib

    asked = []
    module = importlib.import_module(twin)
    monkeypatch.setattr(module, "resolve_device", lambda name: asked.append(name) or resolve_device(name))
    result = rlkit.train(algo, total_steps=600, device="auto", progress=False, eval_every=600)
    assert asked == ["auto"]
    learner = result.agent.learner
    assert learner.device.type == resolve_device("auto").split(":")[0]
    network = learner.q if hasattr(learner, "q") else learner.actor
    assert {p.device.type for p in network.parameters()} == {learner.device.type}


def test_cli_takes_a_device(tmp_path, capsys):
    from rlkit.cli import main

    save = tmp_path / "agent.pt"
    assert main(["train", "td3", "--env", "Pendulum-v1", "--steps", "400", "--device", "cpu", "--quiet"]) == 0
    assert main(["train", "dqn", "--device", "tpu", "--quiet", "--save", str(save)]) == 2
    assert "device must be one of" in capsys.readouterr().err
    # a CUDA device no machine here has reaches the learner, which refuses it by name (it never falls back)
    assert main(["train", "dqn", "--device", "cuda:63", "--steps", "300", "--quiet", "--save", str(save)]) == 2
    assert "device 'cuda:63'" in capsys.readouterr().err
    assert not save.exists()


@pytest.mark.gpu
@gpu
@pytest.mark.parametrize(("algo", "env"), [("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")])
def test_a_gpu_update_matches_the_cpu_one(algo, env):
    """One seed, one burst of three updates, on the CPU and on the GPU: the same network before and after."""
    from rlkit.registry import algorithm

    entry = algorithm(algo)
    agents = []
    for device in ("cpu", "cuda"):
        agent, envs = entry.agent_class.make(env, "torch", entry.config_class.for_env(env), 0, device=device)
        envs.close()
        agents.append(agent)
    for before_cpu, before_gpu in zip(*(agent.get_weights() for agent in agents), strict=True):
        np.testing.assert_array_equal(before_cpu, before_gpu)
    for agent in agents:
        agent.learner.update_many(burst(agent))
    for after_cpu, after_gpu in zip(*(agent.get_weights() for agent in agents), strict=True):
        np.testing.assert_allclose(after_cpu, after_gpu, rtol=1e-4, atol=1e-5)


def burst(agent) -> dict:
    """Three random batches of 32 that satisfy the agent's contract (the same draw on every call)."""
    rng = np.random.default_rng(0)
    k, b, obs_dim = 3, 32, agent.obs_dim
    batch = {
        "obs": rng.normal(size=(k, b, obs_dim)).astype(np.float32),
        "rewards": rng.normal(size=(k, b)).astype(np.float32),
        "next_obs": rng.normal(size=(k, b, obs_dim)).astype(np.float32),
        "terminated": (rng.random((k, b)) < 0.1).astype(np.float32),
    }
    if hasattr(agent, "n_actions"):
        batch["actions"] = rng.integers(0, agent.n_actions, (k, b)).astype(np.int64)
    else:
        batch["actions"] = rng.uniform(-1, 1, (k, b, agent.action_dim)).astype(np.float32)
        noise = (k, agent.learner.noise_draws, b, agent.action_dim)
        batch["noise"] = rng.normal(size=noise).astype(np.float32)
    return batch
