"""Claim C34 and the chapter on debugging (41): where a NaN comes from, what normalisation layers do in each
mode, shape bugs at the update's door, and what ``keras.Model.predict`` costs inside an environment loop.

* NaN hunting: :func:`hidden_nan` builds a loss that is finite while its gradient is not (a square root of a
  zero spread); :func:`blow_up_run` trains a small critic with a learning rate that makes it diverge;
  each can run under ``torch.autograd.detect_anomaly`` or ``tf.debugging.enable_check_numerics``, which
  name the operation that first produced the bad number. :func:`nan_tool_cost` measures what they cost.
  :class:`StandardizedRewards` (a reward wrapper without an epsilon) and :class:`RewardsWithTrailingAxis`
  (a buffer that returns rewards as (B, 1)) break an rlkit run at the two doors rlkit guards.
* C34: :func:`torch_batchnorm_modes` and :func:`keras_batchnorm_modes` measure when BatchNorm's running
  statistics move; :func:`batch_of_one` what each framework does with a single observation in training mode.
* :func:`acting_loop_costs`: one CartPole loop acted in five ways, in milliseconds per step.
"""

from __future__ import annotations

import contextlib
import re
import time
import warnings
from collections.abc import Callable

import gymnasium as gym
import numpy as np

from rlkit.buffers import ReplayBuffer
from rlkit.hardware import configure_tensorflow, configure_torch
from rlkit.nets import init_mlp_weights, mlp_forward


@contextlib.contextmanager
def check_numerics():
    """``tf.debugging.enable_check_numerics()`` for the duration of a ``with`` block, then disabled again
    (TensorFlow's INFO lines about switching it are silenced)."""
    import tensorflow as tf

    logger = tf.get_logger()
    level = logger.level
    logger.setLevel("WARNING")
    tf.debugging.enable_check_numerics()
    try:
        yield
    finally:
        tf.debugging.disable_check_numerics()
        logger.setLevel(level)


def torch_standardized_loss(values, targets):
    """Standardise ``values`` by their spread as it is often written (the epsilon
    outside the root) and regress them on ``targets``: :func:`hidden_nan`'s loss."""
    import torch

    centred = values - values.mean()
    spread = torch.sqrt((centred**2).mean())  # the root's slope at 0 is infinite
    return ((centred / (spread + 1e-8) - targets) ** 2).mean()


def tf_standardized_loss(values, targets):
    """The same loss in TensorFlow."""
    import tensorflow as tf

    centred = values - tf.reduce_mean(values)
    spread = tf.sqrt(tf.reduce_mean(centred**2))  # the root's slope at 0 is infinite
    return tf.reduce_mean((centred / (spread + 1e-8) - targets) ** 2)


def hidden_nan(framework: str, anomaly: bool = False, seed: int = 0) -> dict[str, object]:
    """A value head initialised to zero predicts the same value for every observation; standardising its
    predictions by ``sqrt(mean((v - mean v)^2)) + 1e-8`` is then finite (0 / 1e-8 = 0), and so is the loss,
    but the square root's derivative at zero is infinite and meets a zero: 0 * inf = NaN in torch. One
    optimizer step later every weight is NaN, with nothing in the loss to show it.

    ``anomaly`` runs the backward pass under ``torch.autograd.detect_anomaly`` (torch) or with
    ``tf.debugging.enable_check_numerics`` (TF) and records what it reports: the error's first line and, for
    torch, the line of the forward pass it traces the NaN back to.
    """
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(32, 4)).astype(np.float32)
    targets = rng.normal(size=32).astype(np.float32)
    weights = init_mlp_weights([4, 16, 1], seed)
    weights[2][...] = 0.0  # a zero-initialised output layer: every prediction is exactly 0
    weights[3][...] = 0.0
    report: dict[str, object] = {"error": None, "forward line": None}
    if framework == "torch":
        import torch

        params = [torch.tensor(w, requires_grad=True) for w in weights]

        def loss_fn():
            values = (torch.tanh(torch.from_numpy(obs) @ params[0] + params[1]) @ params[2] + params[3]).squeeze(-1)
            return torch_standardized_loss(values, torch.from_numpy(targets))

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mode = torch.autograd.detect_anomaly() if anomaly else contextlib.nullcontext()
            try:
                with mode:
                    loss = loss_fn()
                    loss.backward()
            except RuntimeError as error:
                report["error"] = str(error).splitlines()[0]
        for warning in caught:
            lines = [line.strip() for line in str(warning.message).splitlines()]
            if any(line.startswith("Error detected in") for line in lines):
                code = [line for i, line in enumerate(lines[1:], 1) if lines[i - 1].startswith("File")]
                report["forward line"] = code[-1] if code else None
        report["loss"] = float(loss.detach())
        grads = [p.grad for p in params]
        report["gradients finite"] = all(g is not None and bool(torch.isfinite(g).all()) for g in grads)
        present = [float(g.abs().max()) for g in grads if g is not None]
        report["largest |gradient|"] = float(np.max(present)) if present else None  # NaN if any is NaN
        if report["error"] is None:
            with torch.no_grad():
                after = [p - 0.1 * p.grad for p in params]
            report["weights finite after one step"] = all(bool(torch.isfinite(p).all()) for p in after)
        return report
    if framework == "tf":
        import tensorflow as tf

        variables = [tf.Variable(w) for w in weights]
        try:
            with check_numerics() if anomaly else contextlib.nullcontext(), tf.GradientTape() as tape:
                values = tf.squeeze(tf.tanh(obs @ variables[0] + variables[1]) @ variables[2] + variables[3], -1)
                loss = tf_standardized_loss(values, targets)
                grads = tape.gradient(loss, variables)
        except tf.errors.InvalidArgumentError as error:
            report["error"] = _check_numerics_headline(str(error))
            return report
        report["loss"] = float(loss)
        report["gradients finite"] = all(bool(tf.reduce_all(tf.math.is_finite(g))) for g in grads)
        report["largest |gradient|"] = max(float(tf.reduce_max(tf.abs(g))) for g in grads)
        after = [v - 0.1 * g for v, g in zip(variables, grads, strict=True)]
        report["weights finite after one step"] = all(bool(tf.reduce_all(tf.math.is_finite(w))) for w in after)
        return report
    raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")


def _check_numerics_headline(message: str) -> str:
    """The line of a check-numerics error that names the op, e.g. ``Detected Infinity or NaN in output 0 of
    eagerly-executing op "MatMul"``."""
    found = re.search(r"Detected Infinity or NaN in output \d+ of [^\"]*\"[^\"]+\"", message)
    return found.group(0) if found else message.splitlines()[0]


def blow_up_run(framework: str, learning_rate: float = 0.05, steps: int = 20, tool: bool = False) -> dict:
    """A critic (4-64-64-1 ReLU MLP, the same initial weights in both frameworks) regressed by plain SGD on
    targets of scale 100 with a learning rate that makes it diverge: the loss grows, overflows to inf, then
    turns NaN. Returns the losses, the first step whose loss was not finite and, with ``tool``, the step at
    which ``detect_anomaly`` / ``enable_check_numerics`` stopped the run, the type of the error it raised and
    the first line it reported.
    """
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(64, 4)).astype(np.float32)
    targets = (100 * rng.normal(size=64)).astype(np.float32)
    weights = init_mlp_weights([4, 64, 64, 1], seed=0)
    losses: list[float] = []
    error = error_type = None
    if framework == "torch":
        import torch

        params = [torch.tensor(w, requires_grad=True) for w in weights]
        x, y = torch.from_numpy(obs), torch.from_numpy(targets)

        def step():
            h = torch.relu(x @ params[0] + params[1])
            h = torch.relu(h @ params[2] + params[3])
            loss = (((h @ params[4] + params[5]).squeeze(-1) - y) ** 2).mean()
            for p in params:
                p.grad = None
            loss.backward()
            with torch.no_grad():
                for p in params:
                    p -= learning_rate * p.grad
            return float(loss.detach())

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # detect_anomaly warns that it is on, and prints its traceback
            try:
                with torch.autograd.set_detect_anomaly(tool):
                    for _ in range(steps):
                        losses.append(step())
            except RuntimeError as exc:
                error, error_type = str(exc).splitlines()[0], type(exc).__name__
    elif framework == "tf":
        import tensorflow as tf

        variables = [tf.Variable(w) for w in weights]

        def step():
            with tf.GradientTape() as tape:
                h = tf.nn.relu(obs @ variables[0] + variables[1])
                h = tf.nn.relu(h @ variables[2] + variables[3])
                loss = tf.reduce_mean((tf.squeeze(h @ variables[4] + variables[5], -1) - targets) ** 2)
            for variable, grad in zip(variables, tape.gradient(loss, variables), strict=True):
                variable.assign_sub(learning_rate * grad)
            return float(loss)

        try:
            with check_numerics() if tool else contextlib.nullcontext():
                for _ in range(steps):
                    losses.append(step())
        except tf.errors.InvalidArgumentError as exc:
            error, error_type = _check_numerics_headline(str(exc)), type(exc).__name__
    else:
        raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")
    finite = np.isfinite(losses)
    return {
        "losses": np.array(losses),
        "first non-finite loss": None if finite.all() else int(np.argmin(finite)),
        "stopped at": len(losses) if error is not None else None,
        "error": error,
        "error type": error_type,
    }


def nan_tool_cost(framework: str, repeats: int = 50) -> dict[str, float]:
    """Microseconds per forward-backward step of the :func:`blow_up_run` critic (on finite numbers), with and
    without the framework's NaN tool: ``detect_anomaly`` records a traceback for every op of the forward pass
    and checks every backward output; ``enable_check_numerics`` inserts a check after every op."""
    rng = np.random.default_rng(0)
    obs = rng.normal(size=(64, 4)).astype(np.float32)
    weights = init_mlp_weights([4, 64, 64, 1], seed=0)

    def microseconds(step) -> float:
        start = time.perf_counter()
        for _ in range(repeats):
            step()
        return (time.perf_counter() - start) / repeats * 1e6

    def best_of_five(step, tool: Callable[[], contextlib.AbstractContextManager]) -> tuple[float, float]:
        """The fastest of five rounds without and with the tool, the two taking turns within each round, so
        that a neighbour's load on a shared machine slows both alike."""
        step()
        with tool():
            step()
        plain, checked = [], []
        for _ in range(5):
            plain.append(microseconds(step))
            with tool():
                checked.append(microseconds(step))
        return min(plain), min(checked)

    if framework == "torch":
        import torch

        configure_torch()  # one thread, as rlkit's learners: two threads on a busy core cost 10x

        params = [torch.tensor(w, requires_grad=True) for w in weights]
        x = torch.from_numpy(obs)

        def step():
            h = torch.relu(torch.relu(x @ params[0] + params[1]) @ params[2] + params[3])
            (h @ params[4] + params[5]).square().mean().backward()

        @contextlib.contextmanager
        def anomaly_mode():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with torch.autograd.detect_anomaly():
                    yield

        plain, checked = best_of_five(step, anomaly_mode)
    elif framework == "tf":
        import tensorflow as tf

        configure_tensorflow()
        variables = [tf.Variable(w) for w in weights]

        def step():
            with tf.GradientTape() as tape:
                h = tf.nn.relu(tf.nn.relu(obs @ variables[0] + variables[1]) @ variables[2] + variables[3])
                loss = tf.reduce_mean(tf.square(h @ variables[4] + variables[5]))
            tape.gradient(loss, variables)

        plain, checked = best_of_five(step, check_numerics)
    else:
        raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")
    return {"plain us": plain, "with the tool us": checked, "slowdown": checked / plain}


class StandardizedRewards(gym.Wrapper):
    """Standardises every reward by the running mean and standard deviation of the rewards seen so far,
    without an epsilon: on CartPole every reward is 1, the standard deviation is 0, and 0 / 0 is NaN."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.count, self.mean, self.m2 = 0, 0.0, 0.0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.count += 1
        delta = reward - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (reward - self.mean)
        std = np.sqrt(self.m2 / self.count)  # 0 while every reward has been equal
        with np.errstate(invalid="ignore", divide="ignore"):
            standardized = np.float64(reward - self.mean) / std
        return obs, float(standardized), terminated, truncated, info


class RewardsWithTrailingAxis(ReplayBuffer):
    """A replay buffer whose batches carry rewards as (K, B, 1) instead of (K, B): the slip of claim C08, made
    where a custom buffer would make it."""

    def sample_many(self, num_batches: int, batch_size: int) -> dict:
        batches = super().sample_many(num_batches, batch_size)
        batches["rewards"] = batches["rewards"][..., None]  # (K, B) -> (K, B, 1)
        return batches


def torch_batchnorm_modes(seed: int = 0) -> dict[str, dict[str, float]]:
    """How far one forward pass moves a ``BatchNorm1d``'s running mean (from its initial zeros), in train and
    eval mode, with gradients, under ``torch.no_grad()`` and under ``torch.inference_mode()``; and how far the
    eval-mode output of a fixed observation moves with it (a policy that acts in eval mode changes without a
    single gradient step when a train-mode forward pass ran under ``no_grad``, e.g. for a TD target)."""
    import torch

    x = torch.from_numpy((np.random.default_rng(seed).normal(size=(64, 4)) * 3 + 5).astype(np.float32))
    probe = x[:1].clone()
    contexts = {"with grad": contextlib.nullcontext, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}
    found = {}
    for mode in ("train", "eval"):
        for name, context in contexts.items():
            layer = torch.nn.BatchNorm1d(4)
            with torch.no_grad():
                before = layer.eval()(probe).clone()
            layer.train(mode == "train")
            with context():
                layer(x)
            with torch.no_grad():
                after = layer.eval()(probe)
            found[f"{mode}, {name}"] = {
                "running mean moved": float(layer.running_mean.abs().max()),
                "eval output moved": float((after - before).abs().max()),
            }
    return found


def keras_batchnorm_modes(seed: int = 0) -> dict[str, float]:
    """How far one call moves a Keras ``BatchNormalization``'s moving mean (from zeros) for each way of calling
    it: ``training=True`` / ``False`` / not given, inside a model called directly or through ``predict``, a
    frozen layer (``trainable=False``) called with ``training=True``, and one epoch of ``fit``."""
    import keras

    x = (np.random.default_rng(seed).normal(size=(64, 4)) * 3 + 5).astype(np.float32)

    def moved(call: Callable) -> float:
        layer = keras.layers.BatchNormalization()
        layer.build((None, 4))
        call(layer)
        return float(np.abs(layer.moving_mean.numpy()).max())

    def model(layer):
        return keras.Sequential([keras.Input((4,)), layer])

    def frozen(layer):
        layer.trainable = False
        layer(x, training=True)

    def fit(layer):
        net = model(layer)
        net.compile(optimizer="sgd", loss="mse")
        net.fit(x, x, epochs=1, batch_size=64, verbose=0)

    return {
        "layer(x, training=True)": moved(lambda layer: layer(x, training=True)),
        "layer(x, training=False)": moved(lambda layer: layer(x, training=False)),
        "layer(x)": moved(lambda layer: layer(x)),
        "model(x)": moved(lambda layer: model(layer)(x)),
        "model.predict(x)": moved(lambda layer: model(layer).predict(x, verbose=0)),
        "trainable=False, training=True": moved(frozen),
        "model.fit, one epoch": moved(fit),
    }


def batchnorm_share_of_new_batch(seed: int = 0) -> dict[str, float]:
    """The share of a new batch's mean that one training-mode update puts into the running mean, for each
    framework's default ``momentum`` and for Keras given torch's number: the two define momentum oppositely
    (torch: running = (1 - m) running + m batch, default 0.1; Keras: running = m running + (1 - m) batch,
    default 0.99), so ``momentum=0.1`` means "keep 90 %" in torch and "keep 10 %" in Keras."""
    import keras
    import torch

    x = (np.random.default_rng(seed).normal(size=(64, 4)) * 3 + 5).astype(np.float32)
    batch_mean = x.mean(axis=0)

    def keras_share(momentum: float) -> float:
        layer = keras.layers.BatchNormalization(momentum=momentum)
        layer(x, training=True)
        return float(np.mean(layer.moving_mean.numpy() / batch_mean))

    layer = torch.nn.BatchNorm1d(4)
    layer(torch.from_numpy(x))
    return {
        "torch, default 0.1": float(np.mean(layer.running_mean.numpy() / batch_mean)),
        "keras, default 0.99": keras_share(0.99),
        "keras, momentum=0.1": keras_share(0.1),
    }


def batch_of_one(seed: int = 0) -> dict[str, object]:
    """What a BatchNorm layer in training mode does with a single observation (an agent acting one step at
    a time): torch raises; Keras normalises the observation by its own mean, so every input maps to the same
    output (beta, here 0). Returns torch's error and the spread of Keras' outputs over ten observations."""
    import keras
    import torch

    observations = np.random.default_rng(seed).normal(size=(10, 1, 4)).astype(np.float32)
    try:
        torch.nn.BatchNorm1d(4)(torch.from_numpy(observations[0]))
        torch_error = None
    except (ValueError, RuntimeError) as error:
        torch_error = str(error)
    layer = keras.layers.BatchNormalization()
    outputs = np.stack([layer(obs, training=True).numpy() for obs in observations])
    return {"torch error": torch_error, "keras output spread": float(np.ptp(outputs, axis=0).max())}


def acting_loop_costs(steps: int = 200, predict_steps: int = 40, hidden: int = 64, seed: int = 0) -> dict:
    """Milliseconds per CartPole step (the environment step included) for a greedy 4-64-64-2 policy called
    five ways, every one on the same weights: ``keras.Model.predict`` (builds a data pipeline for every
    call), ``predict_on_batch``, an eager Keras call, a ``tf.function``, and rlkit's numpy forward pass.
    ``predict`` runs for ``predict_steps`` only; every way must choose the same actions on the same states
    (checked on those steps)."""
    import keras
    import tensorflow as tf

    weights = init_mlp_weights([4, hidden, hidden, 2], seed)
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(hidden, activation="relu"),
         keras.layers.Dense(hidden, activation="relu"), keras.layers.Dense(2)]
    )  # fmt: skip
    model.set_weights(weights)
    traced = tf.function(lambda x: model(x, training=False))
    policies: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "model.predict": lambda obs: model.predict(obs, verbose=0),
        "predict_on_batch": lambda obs: np.asarray(model.predict_on_batch(obs)),
        "model(obs)": lambda obs: model(obs, training=False).numpy(),
        "tf.function": lambda obs: traced(obs).numpy(),
        "numpy": lambda obs: mlp_forward(weights, obs),
    }
    costs, actions = {}, {}
    for name, policy in policies.items():
        env = gym.make("CartPole-v1")
        obs, _ = env.reset(seed=seed)
        count = predict_steps if name == "model.predict" else steps
        policy(obs[None])  # warm up (and trace)
        taken = []
        start = time.perf_counter()
        for _ in range(count):
            action = int(np.argmax(policy(obs[None])[0]))
            taken.append(action)
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                obs, _ = env.reset()
        costs[name] = (time.perf_counter() - start) / count * 1e3
        actions[name] = taken[:predict_steps]
        env.close()
    same = all(a == actions["numpy"] for a in actions.values())
    return {"ms per step": costs, "same actions": same}
