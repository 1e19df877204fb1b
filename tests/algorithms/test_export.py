"""Exported policies (ONNX through onnxruntime, TF SavedModel, LiteRT through its interpreter) act exactly as the
agent does, post-processing included (LiteRT's dynamic-range and int8 files within what int8 allows), and
``rlkit export`` writes and checks them."""

from __future__ import annotations

import re

import numpy as np
import pytest

import rlkit
from rlkit import export
from rlkit.cli import main

pytest.importorskip("onnxruntime", reason="needs the export extra: pip install 'rlkit-course[export]'")

#: (algorithm, environment, framework, settings): every export path -- argmax (DQN, C51's expected values,
#: categorical PPO), clipping (Gaussian PPO with observation normalisation, and PPO's Pendulum default, gSDE
#: with observations as given, whose noise matrix stays behind) and tanh + rescaling (TD3, SAC).
CASES = [
    ("dqn", "CartPole-v1", "torch", {}),
    ("rainbow", "CartPole-v1", "tf", {}),
    ("ppo", "Pendulum-v1", "torch", {"use_sde": False, "normalize_obs": True}),
    ("ppo", "Pendulum-v1", "tf", {}),
    ("a2c", "CartPole-v1", "tf", {}),
    ("td3", "Pendulum-v1", "tf", {}),
    ("sac", "Pendulum-v1", "torch", {}),
]


def make_agent(algo: str, env: str, framework: str, seed: int = 0, settings: dict | None = None):
    """An agent with random observation statistics and, for continuous actions, weights drawn large enough that
    its actions pass the bounds: parity then checks the clipping and rescaling, not only a linear map.

    Discrete agents keep their initial weights: large random ones make C51's softmax one-hot, and two actions
    with the same expected value tie, which float32 rounding breaks either way."""
    from rlkit.registry import algorithm

    entry = algorithm(algo)
    config = entry.config_class.for_env(env, **(settings or {}))
    agent, envs = entry.agent_class.make(env, framework, config, seed=seed)
    envs.close()
    rng = np.random.default_rng(seed)
    if export.policy_plan(agent).kind != "argmax":
        agent.set_weights([rng.normal(0.0, 0.5, w.shape).astype(np.float32) for w in agent.get_weights()])
    normalizer = getattr(agent, "obs_normalizer", None)
    if normalizer is not None and normalizer.enabled:
        normalizer.stats.update(rng.normal(1.0, 3.0, (500, agent.obs_dim)))
    return agent


@pytest.mark.parametrize(("algo", "env", "framework", "settings"), CASES)
def test_onnx_export_acts_like_the_agent(algo, env, framework, settings, tmp_path):
    agent = make_agent(algo, env, framework, settings=settings)
    path = export.export(agent, tmp_path / "policy.onnx")
    parity = export.onnx_parity(agent, path, count=256)
    assert parity.action_mismatches == 0, parity
    assert parity.max_action_diff < 1e-5 and parity.relative_output_diff < 1e-5, parity
    plan = export.policy_plan(agent)
    if plan.low is not None:  # continuous: the file's actions are in the environment's units, within bounds
        actions, _ = export.onnx_policy(path)(export.observations(agent, 256))
        assert (actions >= plan.low).all() and (actions <= plan.high).all()
        assert np.abs(actions).max() > 1.0  # Pendulum's [-2, 2], not the actor's [-1, 1]


def test_one_observation_and_a_batch_run_through_the_same_file(tmp_path):
    """The batch dimension is dynamic: exported from one example, the file takes any batch."""
    agent = make_agent("dqn", "CartPole-v1", "torch")
    run = export.onnx_policy(export.export(agent, tmp_path / "policy.onnx"))
    obs = export.observations(agent, 64)
    assert run(obs[:1])[0].shape == (1,) and run(obs)[0].shape == (64,)
    np.testing.assert_array_equal(run(obs)[0], agent.act(obs))


def test_saved_model_acts_like_the_agent(tmp_path):
    agent = make_agent("sac", "Pendulum-v1", "tf")
    path = export.export(agent, tmp_path / "policy", format="savedmodel")
    parity = export.compare(agent, export.saved_model_policy(path), export.observations(agent, 128))
    assert parity.max_action_diff < 1e-5 and parity.relative_output_diff < 1e-5, parity


def test_cli_exports_and_reports_parity(tmp_path, capsys):
    agent = make_agent("ppo", "Pendulum-v1", "torch")
    checkpoint = agent.save(tmp_path / "agent.pt")
    assert main(["export", str(checkpoint)]) == 0
    assert (tmp_path / "agent.onnx").is_file()
    out = capsys.readouterr().out
    assert "256 observations" in out and "0 actions differ" in out
    # the file on its own, without rlkit's agent: the checkpoint's own agent acts the same
    parity = export.onnx_parity(rlkit.load(checkpoint), tmp_path / "agent.onnx")
    assert parity.max_action_diff < 1e-5


def test_cli_exports_an_int8_litert_policy(tmp_path, capsys):
    pytest.importorskip("ai_edge_litert", reason="needs the export extra: pip install 'rlkit-course[export]'")
    checkpoint = make_agent("dqn", "CartPole-v1", "torch").save(tmp_path / "agent.pt")
    assert main(["export", str(checkpoint), "--format", "litert", "--quantize", "int8"]) == 0
    assert (tmp_path / "agent_int8.tflite").is_file()
    assert "256 observations" in capsys.readouterr().out


def test_cli_exports_a_dynamic_range_litert_policy(tmp_path, capsys):
    """The file is named after its quantization, and it is quantized: smaller than the float32 export."""
    pytest.importorskip("ai_edge_litert", reason="needs the export extra: pip install 'rlkit-course[export]'")
    checkpoint = make_agent("dqn", "CartPole-v1", "torch").save(tmp_path / "agent.pt")
    assert main(["export", str(checkpoint), "--format", "litert", "--quantize", "dynamic"]) == 0
    assert "256 observations" in capsys.readouterr().out
    assert main(["export", str(checkpoint), "--format", "litert"]) == 0
    small, plain = (tmp_path / "agent_dynamic.tflite").stat().st_size, (tmp_path / "agent.tflite").stat().st_size
    assert small < 0.7 * plain, (small, plain)


def test_cli_refuses_an_unknown_quantization(tmp_path, capsys):
    checkpoint = make_agent("dqn", "CartPole-v1", "torch").save(tmp_path / "agent.pt")
    with pytest.raises(SystemExit) as refused:  # argparse's refusal, before the checkpoint is read
        main(["export", str(checkpoint), "--format", "litert", "--quantize", "fp16"])
    assert refused.value.code == 2
    # newer Pythons print the choices without quotes
    assert re.search(r"invalid choice: 'fp16' \(choose from '?dynamic'?, '?int8'?\)", capsys.readouterr().err)


def test_cli_refuses_a_saved_model_of_a_torch_agent(tmp_path, capsys):
    checkpoint = make_agent("dqn", "CartPole-v1", "torch").save(tmp_path / "agent.pt")
    assert main(["export", str(checkpoint), "--format", "savedmodel"]) == 2
    assert "rlkit: error: a SavedModel is TensorFlow's format" in capsys.readouterr().err


@pytest.mark.parametrize(("algo", "env", "framework", "settings"), CASES)
def test_litert_export_acts_like_the_agent(algo, env, framework, settings, tmp_path):
    """A torch agent converts through its TensorFlow twin: the same weights, so the same actions."""
    pytest.importorskip("ai_edge_litert", reason="needs the export extra: pip install 'rlkit-course[export]'")
    agent = make_agent(algo, env, framework, settings=settings)
    parity = export.litert_parity(agent, export.export(agent, tmp_path / "policy.tflite", format="litert"))
    assert parity.action_mismatches == 0, parity
    assert parity.max_action_diff < 1e-5 and parity.relative_output_diff < 1e-5, parity


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_an_int8_litert_policy_is_smaller_and_close(framework, tmp_path):
    """int8 weights: the file shrinks (not 4x: a file this small is partly structure), and the outputs move by
    about the quantization step, a few percent of their range, not more."""
    pytest.importorskip("ai_edge_litert", reason="needs the export extra: pip install 'rlkit-course[export]'")
    agent = make_agent("sac", "Pendulum-v1", framework)
    plain = export.export(agent, tmp_path / "policy.tflite", format="litert")
    small = export.export(agent, tmp_path / "policy_int8.tflite", format="litert", quantize="int8")
    assert small.stat().st_size < 0.7 * plain.stat().st_size, (small.stat().st_size, plain.stat().st_size)
    exact, quantized = export.litert_parity(agent, plain), export.litert_parity(agent, small)
    assert exact.relative_output_diff < 1e-5 < quantized.relative_output_diff < 0.1, (exact, quantized)


def int8_tensors(path) -> list[list[int]]:
    """The shape signatures of a LiteRT file's int8 tensors (-1: the dynamic batch, i.e. an activation)."""
    from ai_edge_litert.interpreter import Interpreter

    details = Interpreter(model_path=str(path)).get_tensor_details()
    return [[int(n) for n in d["shape_signature"]] for d in details if d["dtype"] == np.int8]


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_a_dynamic_range_litert_policy_is_smaller_and_close(framework, tmp_path):
    """int8 weights (the 64 x 64 layer's; tensors under 1,024 elements stay float32) and float activations:
    the file shrinks, the outputs move by about the weights' quantization step, and no activation is int8
    (a batch-dimensioned int8 tensor would mean a representative dataset crept in: full int8)."""
    pytest.importorskip("ai_edge_litert", reason="needs the export extra: pip install 'rlkit-course[export]'")
    agent = make_agent("sac", "Pendulum-v1", framework)
    plain = export.export(agent, tmp_path / "policy.tflite", format="litert")
    small = export.export(agent, tmp_path / "policy_dynamic.tflite", format="litert", quantize="dynamic")
    assert small.stat().st_size < 0.7 * plain.stat().st_size, (small.stat().st_size, plain.stat().st_size)
    exact, quantized = export.litert_parity(agent, plain), export.litert_parity(agent, small)
    assert exact.relative_output_diff < 1e-5 < quantized.relative_output_diff < 0.1, (exact, quantized)
    weights = int8_tensors(small)
    assert [64, 64] in weights and all(-1 not in shape for shape in weights), weights


def test_an_unknown_quantization_names_the_accepted_ones():
    with pytest.raises(export.RlkitError, match=r"quantize must be one of None, 'dynamic', 'int8' .*got 'fp16'"):
        export.export(object(), "policy.tflite", format="litert", quantize="fp16")


def test_a_missing_extra_says_what_to_install(monkeypatch, tmp_path):
    agent = make_agent("dqn", "CartPole-v1", "torch")
    real = export.importlib.util.find_spec
    monkeypatch.setattr(export.importlib.util, "find_spec", lambda name: None if name == "onnxscript" else real(name))
    with pytest.raises(export.RlkitError, match=r"exporting needs onnxscript: pip install 'rlkit-course\[export\]'"):
        export.export(agent, tmp_path / "agent.onnx")


def test_unknown_format_is_refused():
    with pytest.raises(export.RlkitError, match="export format must be one of onnx, savedmodel, litert, got 'tflite'"):
        export.export(object(), "policy.tflite", format="tflite")
    with pytest.raises(export.RlkitError, match="quantize= applies to format='litert'"):
        export.export(object(), "policy.onnx", quantize="int8")
