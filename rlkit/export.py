"""Export a trained agent's greedy policy to ONNX, a TensorFlow SavedModel or LiteRT: observations in,
actions out.

What the agent does in numpy around its network goes into the exported graph too, so that the file is the
whole policy and a runtime needs no rlkit: PPO's and A2C's observation normalisation, then the action
post-processing -- argmax for discrete actions (over C51's expected values for a distributional DQN),
tanh and the rescaling to the action bounds for DDPG, TD3 and SAC, clipping to the bounds for a Gaussian
policy. The graph has two outputs: ``action`` (what ``agent.act`` returns) and ``output`` (the network's
output the action is read from: Q-values, logits, means or pre-tanh actions), which makes parity testable
to a tolerance for discrete policies too.

* torch agents export with ``torch.onnx.export`` (torch 2.13's default exporter goes through
  ``torch.export`` and needs ``onnx`` and ``onnxscript``);
* TensorFlow agents export one ``tf.function`` to all three: ``tf.saved_model.save``, tf2onnx (the
  converter Keras' own ``model.export(format="onnx")`` calls) and TensorFlow's LiteRT converter (the
  ``.tflite`` flatbuffer that phones and microcontrollers run), optionally quantized: dynamic-range (int8
  weights, float activations) or int8 (weights and activations);
* a torch agent exports to LiteRT through its TensorFlow twin (``agent.in_framework("tf")``): the twins
  share one weight layout, so the converted graph holds exactly the torch agent's weights.

The batch dimension stays dynamic. :func:`onnx_parity` runs the file in onnxruntime against ``agent.act``,
:func:`litert_parity` runs a LiteRT file in the LiteRT interpreter (``ai-edge-litert``). All of it needs the
``export`` extra: ``pip install 'rlkit-course[export]'``.
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlkit.errors import RlkitError
from rlkit.policy_plan import PolicyPlan

FORMATS = ("onnx", "savedmodel", "litert")
#: LiteRT only: None (float32); "dynamic" (dynamic-range: int8 weights, float32 activations, nothing to
#: calibrate); "int8" (weights and activations, ranges calibrated on the agent's observations). Inputs and
#: outputs stay float32 in all three.
QUANTIZATIONS = (None, "dynamic", "int8")


def policy_plan(agent) -> PolicyPlan:
    """The :class:`PolicyPlan` of an agent: asked of the agent, which knows its own post-processing."""
    if not hasattr(agent, "export_plan"):
        raise RlkitError(f"rlkit exports rlkit agents (they have export_plan()), got {type(agent).__name__}")
    return agent.export_plan()


def policy_network(agent):
    """The trained framework module that maps (normalised) observations to the plan's network output."""
    return agent.export_network()


def numpy_policy(agent, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(actions, output)`` of the agent's own numpy path for a batch: the reference an export must match."""
    obs = np.asarray(obs, dtype=np.float32)
    return np.asarray(agent.act(obs)), agent.export_reference(obs)


def require(*modules: str) -> None:
    """Raise an error that says what to install when one of ``modules`` is missing (checked, not imported)."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise RlkitError(f"exporting needs {', '.join(missing)}: pip install 'rlkit-course[export]'")


# --- torch ---------------------------------------------------------------------------------------------


def torch_policy(agent):
    """A CPU ``torch.nn.Module``: observations (B, obs_dim) -> ``(action, output)``, post-processing inside."""
    import torch

    plan = policy_plan(agent)

    class Policy(torch.nn.Module):
        def __init__(self, network) -> None:
            super().__init__()
            self.network = network
            for name in ("obs_mean", "obs_std", "low", "high", "support"):
                value = getattr(plan, name)
                self.register_buffer(name, None if value is None else torch.from_numpy(value))

        def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            if self.obs_mean is not None:
                obs = torch.clamp((obs - self.obs_mean) / self.obs_std, -plan.obs_clip, plan.obs_clip)
            output = self.network(obs)
            if self.support is not None:
                output = (torch.softmax(output, dim=-1) * self.support).sum(dim=-1)
            output = output[:, : plan.columns]
            if plan.kind == "argmax":
                return output.argmax(dim=1), output
            if plan.kind == "clip":
                return torch.clamp(output, self.low, self.high), output
            # clamped too: a runtime's vectorised tanh can overshoot -1 or 1 by an ulp, which the rescale would
            # carry past the bound (seen with onnxruntime on an Intel CPU)
            action = self.low + (torch.tanh(output) + 1.0) * 0.5 * (self.high - self.low)
            return torch.clamp(action, self.low, self.high), output

    network = copy.deepcopy(policy_network(agent)).to("cpu").eval()
    return Policy(network).eval()


def export_torch_onnx(agent, path: Path, example: np.ndarray | None = None) -> Path:
    """``torch.onnx.export`` through ``torch.export``, with a dynamic batch dimension.

    ``example`` is the observation batch the exporter runs the module on (default: one standard-normal
    observation); chapter 42 measures whether its values change the graph.
    """
    import torch

    require("onnx", "onnxscript")
    module = torch_policy(agent)
    if example is None:
        example = np.random.default_rng(0).standard_normal((1, agent.obs_dim))
    obs = torch.as_tensor(np.asarray(example, dtype=np.float32))
    with _quiet("torch.onnx"):
        torch.onnx.export(
            module,
            (obs,),
            str(path),
            input_names=["obs"],
            output_names=["action", "output"],
            dynamic_shapes={"obs": {0: torch.export.Dim("batch")}},
            external_data=False,
            verbose=False,
        )
    return path


# --- TensorFlow ----------------------------------------------------------------------------------------


def tf_policy(agent):
    """A ``tf.Module`` whose ``__call__`` (a ``tf.function`` over any batch) returns ``{"action", "output"}``."""
    import tensorflow as tf

    plan = policy_plan(agent)
    signature = [tf.TensorSpec([None, plan.obs_dim], tf.float32, name="obs")]

    class Policy(tf.Module):
        def __init__(self, network) -> None:
            super().__init__()
            self.network = network

        @tf.function(input_signature=signature)
        def __call__(self, obs):
            # numpy arrays become graph constants (tf2onnx would turn captured tensors into extra inputs)
            if plan.obs_mean is not None:
                obs = tf.clip_by_value((obs - plan.obs_mean) / plan.obs_std, -plan.obs_clip, plan.obs_clip)
            output = self.network(obs)
            if plan.support is not None:
                output = tf.reduce_sum(tf.nn.softmax(output, axis=-1) * plan.support, axis=-1)
            output = output[:, : plan.columns]
            if plan.kind == "argmax":
                action = tf.argmax(output, axis=1)
            elif plan.kind == "clip":
                action = tf.clip_by_value(output, plan.low, plan.high)
            else:
                action = plan.low + (tf.tanh(output) + 1.0) * 0.5 * (plan.high - plan.low)
                action = tf.clip_by_value(action, plan.low, plan.high)  # as torch's: tanh can overshoot by an ulp
            return {"action": action, "output": output}

    return Policy(policy_network(agent.in_framework("tf")))


def export_tf_onnx(agent, path: Path) -> Path:
    """The TensorFlow policy's ``tf.function`` converted by tf2onnx (weights frozen into the graph)."""
    require("tf2onnx", "onnx")
    import tf2onnx

    policy = tf_policy(agent)
    with _quiet("tf2onnx"):
        tf2onnx.convert.from_function(
            policy.__call__, input_signature=policy.__call__.input_signature, output_path=str(path)
        )
    return path


def export_saved_model(agent, path: str | Path) -> Path:
    """A TensorFlow agent's policy as a SavedModel directory, serving signature ``serving_default``."""
    if agent.framework != "tf":
        raise RlkitError(
            "a SavedModel is TensorFlow's format: export a torch agent with format='onnx' (any runtime reads it)"
        )
    import tensorflow as tf

    policy = tf_policy(agent)
    tf.saved_model.save(policy, str(path), signatures=policy.__call__)
    return Path(path)


def export_litert(agent, path: str | Path, quantize: str | None = None, calibration: int = 512) -> Path:
    """The policy as a LiteRT flatbuffer (``.tflite``), converted from its TensorFlow graph.

    ``quantize="dynamic"`` (dynamic-range quantization) stores the weights of the larger layers in int8 and
    computes in float: the interpreter quantizes each activation on the fly, so nothing is calibrated, and
    the converter leaves a weight tensor of fewer than 1,024 elements (a small input or output layer) in
    float32 (its default threshold: such a tensor saves little). ``quantize="int8"`` stores weights and
    computes activations in int8 where LiteRT has int8 kernels (inputs and outputs stay float32); the
    activations' ranges are calibrated on ``calibration`` of the agent's own observations
    (:func:`observations`), which is what full-integer quantization needs.
    """
    import tensorflow as tf

    if quantize not in QUANTIZATIONS:
        accepted = ", ".join(repr(q) for q in QUANTIZATIONS)
        raise RlkitError(
            f"quantize must be one of {accepted} (None: float32; 'dynamic': int8 weights; 'int8': int8 weights "
            f"and activations), got {quantize!r}"
        )
    # the converter would keep Keras 3's weights as resource variables (READ_VARIABLE ops, which int8
    # calibration cannot run); frozen into constants, they become plain FULLY_CONNECTED weights
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    policy = tf_policy(agent)  # held: the traced function refers to it weakly
    frozen = convert_variables_to_constants_v2(policy.__call__.get_concrete_function())
    converter = tf.lite.TFLiteConverter.from_concrete_functions([frozen], policy)
    if quantize is not None:  # DEFAULT alone is dynamic-range; a representative dataset makes it int8
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if quantize == "int8":
        samples = observations(agent, calibration)
        converter.representative_dataset = lambda: ([row[None]] for row in samples)
    with _quiet("tensorflow"):
        Path(path).write_bytes(converter.convert())
    return Path(path)


# --- both ----------------------------------------------------------------------------------------------


def export(
    agent,
    path: str | Path,
    format: str = "onnx",
    example: np.ndarray | None = None,
    source: str | None = None,
    quantize: str | None = None,
) -> Path:
    """Write ``agent``'s greedy policy to ``path`` as ``format`` ("onnx", "savedmodel" or "litert"); returns
    the path.

    ``example`` (torch agents, ONNX only) is the observation batch the exporter runs the module on;
    ``quantize`` (LiteRT only) is None, "dynamic" or "int8" (:data:`QUANTIZATIONS`). An ONNX file or a
    SavedModel records which agent it came from (:func:`exported_from`), with ``source`` (its checkpoint)
    when given.
    """
    if format not in FORMATS:
        raise RlkitError(f"export format must be one of {', '.join(FORMATS)}, got {format!r}")
    if quantize is not None and format != "litert":
        raise RlkitError(f"quantize= applies to format='litert' (LiteRT's int8 kernels), not to {format!r}")
    from rlkit.atomic import atomic_path

    path = Path(path)
    if format == "onnx" and agent.framework == "tf" and example is not None:
        raise RlkitError("example= applies to torch agents: tf2onnx converts a traced signature, not an example")
    with atomic_path(path) as temporary:  # a failed or killed export keeps an earlier file whole
        if format == "litert":
            require("ai_edge_litert")
            export_litert(agent, temporary, quantize)
        elif format == "savedmodel":
            export_saved_model(agent, temporary)
        elif agent.framework == "torch":
            export_torch_onnx(agent, temporary, example)
        else:
            export_tf_onnx(agent, temporary)
        if format != "litert":  # a flatbuffer has no free-form metadata field runtimes ignore
            _record_origin(temporary, format, _origin(agent, source))
    return path


def _origin(agent, source: str | None) -> dict:
    origin = {"algo": agent.algo, "framework": agent.framework, "env_id": str(agent.env_id)}
    return {**origin, "checkpoint": str(source)} if source is not None else origin


def _record_origin(path: Path, format: str, origin: dict) -> None:
    """Keep ``origin`` in the export: an ONNX metadata entry ``rlkit`` (runtimes ignore it), or an
    ``rlkit.json`` beside a SavedModel's own files (TensorFlow ignores it)."""
    import json

    if format == "savedmodel":
        (path / "rlkit.json").write_text(json.dumps(origin), encoding="utf-8")
        return
    import onnx

    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "rlkit", json.dumps(origin)
    onnx.save(model, str(path))


def exported_from(path: str | Path) -> dict | None:
    """What :func:`export` recorded of the agent a file came from, or None (not rlkit's, or unreadable)."""
    import json

    path = Path(path)
    try:
        if path.is_dir():
            return json.loads((path / "rlkit.json").read_text(encoding="utf-8"))
        import onnx

        model = onnx.load(str(path), load_external_data=False)
        return next((json.loads(p.value) for p in model.metadata_props if p.key == "rlkit"), None)
    except Exception:  # anything else at that path: nothing to tell
        return None


def onnx_policy(path: str | Path):
    """A function ``obs -> (action, output)`` running the ONNX file in onnxruntime on the CPU."""
    require("onnxruntime")
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1  # small policies: threads only wait
    session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    order = [output.name for output in session.get_outputs()]
    wanted = [order.index("action"), order.index("output")]

    def run(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outputs = session.run(None, {name: np.asarray(obs, dtype=np.float32)})
        return outputs[wanted[0]], outputs[wanted[1]]

    return run


def saved_model_policy(path: str | Path):
    """A function ``obs -> (action, output)`` calling a SavedModel's ``serving_default`` signature."""
    import tensorflow as tf

    serve = tf.saved_model.load(str(path)).signatures["serving_default"]

    def run(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outputs = serve(obs=tf.constant(np.asarray(obs, dtype=np.float32)))
        return outputs["action"].numpy(), outputs["output"].numpy()

    return run


def litert_policy(path: str | Path):
    """A function ``obs -> (action, output)`` running a LiteRT file in the LiteRT interpreter on the CPU.

    The file's signature names its outputs by position (``output_0``, ``output_1``: the exported function's
    ``action`` and ``output``, in the order TensorFlow flattens a dict, by key).
    """
    require("ai_edge_litert")
    from ai_edge_litert.interpreter import Interpreter

    runner = Interpreter(model_path=str(path), num_threads=1).get_signature_runner("serving_default")

    def run(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outputs = runner(obs=np.asarray(obs, dtype=np.float32))
        return outputs["output_0"], outputs["output_1"]

    return run


def observations(agent, count: int, seed: int = 0) -> np.ndarray:
    """``count`` observations the policy meets: its own greedy episodes in the environment it was trained on
    (standard-normal draws when that environment is not a registered id)."""
    import gymnasium as gym

    from rlkit.envs import is_registered

    if not is_registered(agent.env_id):
        return np.random.default_rng(seed).standard_normal((count, agent.obs_dim)).astype(np.float32)
    env = gym.make(agent.env_id)
    obs, _ = env.reset(seed=seed)
    seen = []
    for episode in range(count):
        seen.append(np.asarray(obs, dtype=np.float32).reshape(-1))
        obs, _, terminated, truncated, _ = env.step(agent.act(seen[-1]))
        if terminated or truncated:
            obs, _ = env.reset(seed=seed + episode + 1)
    env.close()
    return np.stack(seen)


@dataclass(frozen=True)
class Parity:
    """How far an exported policy is from the agent: over ``count`` observations, the largest absolute
    difference of the network outputs and of the actions, and how many actions differ by more than 1e-5.

    ``output_scale`` is the largest |output| of the agent: float32 rounding is relative to it (about 1e-7).
    """

    count: int
    max_output_diff: float
    max_action_diff: float
    action_mismatches: int
    output_scale: float

    @property
    def relative_output_diff(self) -> float:
        return self.max_output_diff / max(self.output_scale, 1e-30)

    def __str__(self) -> str:
        return (
            f"{self.count} observations: max |output diff| {self.max_output_diff:.1e} "
            f"({self.relative_output_diff:.1e} of the largest output), max |action diff| "
            f"{self.max_action_diff:.1e}, {self.action_mismatches} actions differ"
        )


def compare(agent, run, obs: np.ndarray) -> Parity:
    """:class:`Parity` of ``run`` (a function obs -> (action, output)) against the agent's numpy path."""
    actions, output = numpy_policy(agent, obs)
    exported_actions, exported_output = run(obs)
    action_diff = np.abs(np.asarray(exported_actions, dtype=np.float64) - actions)
    return Parity(
        count=len(obs),
        max_output_diff=float(np.abs(np.asarray(exported_output) - output).max()),
        max_action_diff=float(action_diff.max()),
        action_mismatches=int((action_diff.reshape(len(obs), -1) > 1e-5).any(axis=1).sum()),
        output_scale=float(np.abs(output).max()),
    )


def onnx_parity(agent, path: str | Path, count: int = 256, seed: int = 0) -> Parity:
    """Run the ONNX file in onnxruntime on ``count`` observations of the agent's environment and compare."""
    return compare(agent, onnx_policy(path), observations(agent, count, seed))


def litert_parity(agent, path: str | Path, count: int = 256, seed: int = 0) -> Parity:
    """Run the LiteRT file in the LiteRT interpreter on ``count`` observations of the agent's environment and
    compare."""
    return compare(agent, litert_policy(path), observations(agent, count, seed))


@contextlib.contextmanager
def _quiet(logger: str):
    """Silence an exporter's progress lines and its dependencies' deprecation notes while it runs."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            # LiteRT's int8 converter asks for input statistics that float inputs do not need
            warnings.filterwarnings("ignore", message="Statistics for quantized inputs", category=UserWarning)
            yield
    finally:
        log.setLevel(level)
