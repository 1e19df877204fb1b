"""Claims C31, C32 and C33: seeds, reruns and resumed runs, measured (chapter 40).

A rerun differs from the first run when some generator the code draws from started elsewhere. Which ones
does a deep-RL script draw from? The experiments here answer by removing one seed at a time and comparing the
final weights of the two runs, instead of trusting a list of seeds to set:

* C32: :func:`script_run` is a small DQN written the usual way (Python's ``random`` for the epsilon coin,
  numpy's global generator for replay sampling, the framework's default initialisers, ``env.reset(seed=...)``
  and ``action_space.sample()``); :func:`seed_ablation` reruns it with each seed removed.
  :func:`gymnasium_seeding` measures what ``reset(seed=...)`` does and does not seed, for one environment and
  for a vector of them. :class:`ScrambleGlobalGenerators` re-seeds every global generator from the operating
  system during an rlkit run, to show that rlkit's runs depend on the run's seed alone.
* C31: :func:`dropout_masks` calls ``tf.random.set_seed`` inside a training step and counts distinct dropout
  masks, for raw TensorFlow ops and for Keras layers, eagerly and inside a ``tf.function``.
* C33: :func:`generator_round_trip` serialises numpy generators as JSON; :func:`resume_forgetting` resumes an
  rlkit checkpoint with one part of its saved state left out, to show what a bit-identical resume needs.
* What determinism costs and what it cannot promise: :func:`determinism_cost`, :func:`thread_count_sums`,
  :func:`repeated_on_another_cpu` (the same runs on two CPUs, read from the benchmark files).
"""

from __future__ import annotations

import json
import os
import pickle
import random
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np

from rlkit.callbacks import Callback

#: The generators a hand-written DQN script draws from, in the order :func:`seed_ablation` removes them.
SOURCES = ("python", "numpy", "framework", "env reset", "action space")
#: A removed seed is modelled by starting that generator from another seed: deterministic, and what a new
#: process does anyway (an unseeded generator starts from operating-system entropy).
UNSEEDED_OFFSET = 1_000


def script_run(
    framework: str,
    seed: int = 0,
    unseeded: str | None = None,
    steps: int = 300,
    hidden: int = 32,
) -> np.ndarray:
    """A small DQN written the way most scripts are; its final weights as one array.

    Every generator in :data:`SOURCES` is seeded with ``seed`` except ``unseeded``,
    which starts from ``seed + UNSEEDED_OFFSET``. The epsilon coin comes from
    Python's ``random``, replay indices from ``np.random``, the initial weights from
    the framework's default initialisers, the first state from
    ``env.reset(seed=...)`` and random actions from ``action_space.sample()``.
    """
    if framework not in ("torch", "tf"):
        raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")
    if unseeded is not None and unseeded not in SOURCES:
        raise ValueError(f"unseeded must be one of {SOURCES} or None: {unseeded!r}")
    offset = {name: UNSEEDED_OFFSET if name == unseeded else 0 for name in SOURCES}
    seeds = {name: seed + offset[name] for name in SOURCES}
    # import the framework before seeding: importing TensorFlow draws from Python's
    # random, so a first run importing it after random.seed would start elsewhere
    __import__("torch" if framework == "torch" else "tensorflow")
    random.seed(seeds["python"])
    np.random.seed(seeds["numpy"])
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=seeds["env reset"])
    env.action_space.seed(seeds["action space"])
    net = _ScriptNet(framework, hidden, seeds["framework"])
    batch_size, gamma = 32, 0.99
    memory = {
        "obs": np.zeros((steps, 4), np.float32),
        "actions": np.zeros(steps, np.int64),
        "rewards": np.zeros(steps, np.float32),
        "next_obs": np.zeros((steps, 4), np.float32),
        "terminated": np.zeros(steps, np.float32),
    }
    for t in range(steps):
        epsilon = max(0.1, 1.0 - t / (0.5 * steps))
        if random.random() < epsilon:  # Python's random
            action = int(env.action_space.sample())  # the action space's generator
        else:
            action = int(np.argmax(net.q_values(obs[None])[0]))
        next_obs, reward, terminated, truncated, _ = env.step(action)
        stored = (obs, action, reward, next_obs, float(terminated))
        for name, value in zip(memory, stored, strict=True):
            memory[name][t] = value
        obs = next_obs
        if terminated or truncated:
            obs, _ = env.reset()  # no seed: the environment's generator goes on
        if t >= batch_size and t % 4 == 0:
            idx = np.random.randint(0, t + 1, size=batch_size)  # numpy's global one
            net.td_step({name: col[idx] for name, col in memory.items()}, gamma)
    env.close()
    return net.flat_weights()


class _ScriptNet:
    """The script's Q-network and plain TD step (no target network), in torch or Keras, default init."""

    def __init__(self, framework: str, hidden: int, seed: int) -> None:
        self.framework = framework
        if framework == "torch":
            import torch

            torch.manual_seed(seed)
            self.model = torch.nn.Sequential(
                torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 2)
            )  # fmt: skip
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        elif framework == "tf":
            import keras
            import tensorflow as tf

            tf.random.set_seed(seed)  # what most TensorFlow scripts call to seed "the framework"
            self.model = keras.Sequential(
                [keras.Input((4,)), keras.layers.Dense(hidden, activation="relu"), keras.layers.Dense(2)]
            )
            self.optimizer = keras.optimizers.Adam(learning_rate=1e-3)
        else:
            raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        if self.framework == "torch":
            import torch

            with torch.no_grad():
                return self.model(torch.from_numpy(obs)).numpy()
        return self.model(obs, training=False).numpy()

    def td_step(self, batch: dict[str, np.ndarray], gamma: float) -> None:
        next_q = self.q_values(batch["next_obs"]).max(axis=1)
        targets = (batch["rewards"] + gamma * (1 - batch["terminated"]) * next_q).astype(np.float32)
        if self.framework == "torch":
            import torch

            q = self.model(torch.from_numpy(batch["obs"]))
            q = q.gather(1, torch.from_numpy(batch["actions"])[:, None]).squeeze(1)
            loss = torch.nn.functional.mse_loss(q, torch.from_numpy(targets))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            return
        import tensorflow as tf

        with tf.GradientTape() as tape:
            q = self.model(batch["obs"], training=True)
            q = tf.gather(q, batch["actions"], batch_dims=1)
            loss = tf.reduce_mean((q - targets) ** 2)
        variables = self.model.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables, strict=True))

    def flat_weights(self) -> np.ndarray:
        if self.framework == "torch":
            return np.concatenate([p.detach().numpy().ravel() for p in self.model.parameters()])
        return np.concatenate([np.ravel(w) for w in self.model.get_weights()])


def seed_ablation(framework: str, seed: int = 0, steps: int = 300) -> dict[str, float]:
    """Largest |weight difference| between :func:`script_run` with every seed and with each one removed.

    The entry ``"none"`` reruns with every seed set: it measures whether a rerun in the same process is
    bit-identical at all (0.0), the baseline the removals are read against.
    """
    reference = script_run(framework, seed, None, steps)
    return {
        name: float(np.abs(script_run(framework, seed, None if name == "none" else name, steps) - reference).max())
        for name in ("none", *SOURCES)
    }


def gymnasium_seeding(seed: int = 0, samples: int = 32, episodes: int = 5) -> dict[str, bool | int]:
    """What gymnasium's ``reset(seed=...)`` seeds and what it does not, in fresh environments.

    Two fresh CartPoles reset with the same seed start in the same state, but their action spaces are separate
    generators that ``reset`` does not touch: unseeded, ``action_space.sample()`` starts from the operating
    system's entropy in each. Passing the seed to *every* reset restarts the environment's generator each
    episode, so every episode starts in the same state. A vector environment reset with ``seed`` seeds its
    copies ``seed, seed + 1, ...``; its action space is again a generator of its own.
    """

    def fresh(seed_actions: bool) -> tuple[np.ndarray, np.ndarray]:
        env = gym.make("CartPole-v1")
        first, _ = env.reset(seed=seed)
        if seed_actions:
            env.action_space.seed(seed)
        actions = np.array([env.action_space.sample() for _ in range(samples)])
        env.close()
        return first, actions

    (obs_a, unseeded_a), (obs_b, unseeded_b) = fresh(False), fresh(False)
    (_, seeded_a), (_, seeded_b) = fresh(True), fresh(True)

    def first_states(reseed_every_episode: bool) -> int:
        env = gym.make("CartPole-v1")
        starts = []
        for episode in range(episodes):
            obs, _ = env.reset(seed=seed if reseed_every_episode or episode == 0 else None)
            starts.append(obs.tobytes())
        env.close()
        return len(set(starts))

    def vector_run() -> tuple[np.ndarray, np.ndarray]:
        envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(2)])
        first, _ = envs.reset(seed=seed)
        actions = np.array([envs.action_space.sample() for _ in range(samples)])
        envs.close()
        return first, actions

    (vec_obs_a, vec_actions_a), (vec_obs_b, vec_actions_b) = vector_run(), vector_run()
    return {
        "same first state": bool(np.array_equal(obs_a, obs_b)),
        "same actions, action space unseeded": bool(np.array_equal(unseeded_a, unseeded_b)),
        "same actions, action space seeded": bool(np.array_equal(seeded_a, seeded_b)),
        "distinct first states, seed at first reset": first_states(False),
        "distinct first states, seed at every reset": first_states(True),
        "vector: same first states": bool(np.array_equal(vec_obs_a, vec_obs_b)),
        "vector: copies start apart": bool(not np.array_equal(vec_obs_a[0], vec_obs_a[1])),
        "vector: same actions, unseeded": bool(np.array_equal(vec_actions_a, vec_actions_b)),
    }


def import_draws_from_python_random(module: str = "tensorflow") -> bool:
    """Whether importing ``module`` draws from Python's global ``random``, measured in a fresh interpreter:
    seed, draw one number; seed again, import, draw again. True means a script that calls ``random.seed``
    before the import starts its own draws elsewhere than one that calls it after."""
    import subprocess
    import sys

    program = (
        "import random; random.seed(0); a = random.random(); random.seed(0); "
        f"import {module}; print(a == random.random())"
    )
    environment = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"importing {module} failed: {result.stderr[-500:]}")
    return result.stdout.strip().splitlines()[-1] == "False"


class ScrambleGlobalGenerators(Callback):
    """Re-seed Python's, numpy's, torch's and TensorFlow's global generators from the operating system at the
    start of a run and after every update: a run that still reproduces draws from none of them."""

    def __init__(self) -> None:
        self.scrambles = 0

    def _scramble(self) -> None:
        import sys

        entropy = int.from_bytes(os.urandom(4), "little")
        random.seed(entropy)
        np.random.seed(entropy)
        if "torch" in sys.modules:
            sys.modules["torch"].manual_seed(entropy)
        if "tensorflow" in sys.modules:
            sys.modules["tensorflow"].random.set_seed(entropy)
        self.scrambles += 1

    def on_start(self, run) -> None:
        self._scramble()

    def on_burst(self, run, metrics: dict[str, float]) -> None:
        self._scramble()


def dropout_masks(steps: int = 5, units: int = 64, rate: float = 0.5, seed: int = 0) -> dict[str, int]:
    """How many distinct dropout masks ``steps`` training steps draw when each step starts by calling
    ``tf.random.set_seed(seed)`` (claim C31), for four ways of applying dropout.

    Eagerly, ``tf.random.set_seed`` resets the global seed *and* the counter TensorFlow derives each op's seed
    from, so a raw ``tf.nn.dropout`` after it draws the same mask every time. Inside a ``tf.function`` the call
    runs once, at tracing, and the traced op's own state advances between calls. A Keras 3 ``Dropout`` layer
    draws from its own ``SeedGenerator`` (a variable created with the layer), which no global seed resets.
    ``"once, eager"`` is the intended use, set once before the loop. ``"rerun"`` counts the distinct mask
    sequences of two loops that each start with ``set_seed``: one (the seed restarts the stream exactly).
    """
    import keras
    import tensorflow as tf

    x = tf.ones((1, units))

    def distinct(step) -> int:
        return len({step().numpy().astype(bool).tobytes() for _ in range(steps)})

    def nn_step():
        tf.random.set_seed(seed)
        return tf.nn.dropout(x, rate)

    graph_step = tf.function(nn_step)
    layer = keras.layers.Dropout(rate)

    def layer_step():
        tf.random.set_seed(seed)
        return layer(x, training=True)

    def sequence() -> bytes:
        tf.random.set_seed(seed)
        return b"".join(tf.nn.dropout(x, rate).numpy().astype(bool).tobytes() for _ in range(steps))

    tf.random.set_seed(seed)
    once = len({tf.nn.dropout(x, rate).numpy().astype(bool).tobytes() for _ in range(steps)})
    return {
        "tf.nn.dropout, eager": distinct(nn_step),
        "tf.nn.dropout, tf.function": distinct(graph_step),
        "keras Dropout layer, eager": distinct(layer_step),
        "once, eager": once,
        "rerun": len({sequence(), sequence()}),
    }


def keras_initial_weights_follow(seed: int = 0) -> dict[str, bool]:
    """Which global seed fixes a Keras 3 ``Dense`` layer's initial weights: for each seeding call, whether two
    layers built right after it with the same seed start equal. (Keras 3 draws a default initializer seed
    from Python's ``random``; ``keras.utils.set_random_seed`` seeds Python, numpy and the backend together.)"""
    import keras
    import tensorflow as tf

    def kernel():
        layer = keras.layers.Dense(8)
        layer.build((None, 4))
        return layer.kernel.numpy()

    calls = {
        "tf.random.set_seed": tf.random.set_seed,
        "np.random.seed": np.random.seed,
        "random.seed": random.seed,
        "keras.utils.set_random_seed": keras.utils.set_random_seed,
    }
    same = {}
    for name, call in calls.items():
        call(seed)
        first = kernel()
        call(seed)
        same[name] = bool(np.array_equal(first, kernel()))
    return same


def generator_round_trip(seed: int = 0, draws: int = 1_000) -> dict[str, bool | int]:
    """Claim C33: a numpy ``Generator``, the legacy global ``RandomState`` and a gymnasium environment's
    generator, saved as JSON text (and by pickle) mid-stream, restored into new objects, continue exactly.

    The JSON path is what :mod:`rlkit.state` does (no pickle, so loading cannot run code); the 128-bit
    integers of PCG64's state are plain Python ints, which JSON holds exactly.
    """
    from rlkit.state import generator_state, restore_generator

    rng = np.random.default_rng(seed)
    rng.random(draws)  # somewhere mid-stream
    text = json.dumps(generator_state(rng))
    restored = np.random.default_rng()  # any other state
    restore_generator(restored, json.loads(text))
    generator_ok = np.array_equal(rng.random(draws), restored.random(draws))

    np.random.seed(seed)
    np.random.random(draws)
    name, keys, pos, has_gauss, cached = np.random.get_state()
    legacy_text = json.dumps([name, keys.tolist(), pos, has_gauss, cached])
    expected = np.random.random(draws)
    name, keys, pos, has_gauss, cached = json.loads(legacy_text)
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))
    legacy_ok = np.array_equal(np.random.random(draws), expected)

    env = gym.make("CartPole-v1")
    env.reset(seed=seed)
    env_text = json.dumps(env.unwrapped.np_random.bit_generator.state)
    expected_starts = [env.reset()[0] for _ in range(3)]
    other = gym.make("CartPole-v1")
    other.reset(seed=seed + 1)
    other.unwrapped.np_random.bit_generator.state = json.loads(env_text)
    env_ok = all(np.array_equal(other.reset()[0], start) for start in expected_starts)
    env.close()
    other.close()

    pickled = pickle.loads(pickle.dumps(rng))
    pickle_ok = np.array_equal(pickled.random(draws), rng.random(draws))
    return {
        "Generator via JSON": bool(generator_ok),
        "legacy np.random via JSON": bool(legacy_ok),
        "gymnasium env via JSON": bool(env_ok),
        "Generator via pickle": bool(pickle_ok),
        "JSON bytes": len(text),
    }


#: The parts of a replay run's saved state :func:`resume_forgetting` can leave out, and where they live.
FORGETTABLE = {
    "run generator": (("loop", "rng"),),
    "replay buffer's generator": (("buffer", "rng"),),
    "optimizer state": (("learner", "optimizer"),),
    "environments": (("envs",), ("runner",)),
}


def resume_forgetting(path: str | Path, forget: str | None = None, total_steps: int | None = None):
    """Resume the replay-based run saved resumable at ``path``, leaving one part of its state out.

    What :func:`rlkit.train` with ``resume=path`` does (rebuild the agent and a loop from the checkpoint,
    restore the saved state, drive on), except that the part named ``forget`` (a key of :data:`FORGETTABLE`)
    is taken from the freshly built loop instead: what a resume that does not save that part gets (a
    generator seeded again from the run's seed, a new optimizer, environments reset anew).
    ``forget=None`` is the full resume. Returns the :class:`~rlkit.result.TrainResult`.
    """
    from rlkit.algos.training import drive
    from rlkit.api import load
    from rlkit.checkpoints import training_state_path
    from rlkit.state import load_state

    if forget is not None and forget not in FORGETTABLE:
        raise ValueError(f"forget must be one of {sorted(FORGETTABLE)} or None, got {forget!r}")
    agent = load(path)
    state = load_state(training_state_path(path))
    plan = int(state["loop"]["plan"]["value"])
    loop = agent.new_loop(int(state["seed"]), plan)
    if forget is not None:
        fresh = loop.state()
        for keys in FORGETTABLE[forget]:
            saved, new = state, fresh
            for key in keys[:-1]:
                saved, new = saved[key], new[key]
            if keys[-1] in new:
                saved[keys[-1]] = new[keys[-1]]
            else:  # not in a fresh learner (a Keras optimizer builds its variables at the first step)
                saved.pop(keys[-1])
    loop.load_state(state)
    return drive(loop, plan if total_steps is None else total_steps, None, False, False)


def weight_difference(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    """Largest absolute difference between two agents' weights (0.0: bit-identical)."""
    return float(max(np.abs(np.asarray(x) - np.asarray(y)).max() for x, y in zip(a, b, strict=True)))


def _microseconds(fn, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(3):  # the best of three: other processes only ever add time
        start = time.perf_counter()
        for _ in range(repeats):
            fn()
        best = min(best, (time.perf_counter() - start) / repeats * 1e6)
    return best


def determinism_cost(framework: str, repeats: int = 100, hidden: int = 64) -> dict[str, float | bool]:
    """Microseconds per Adam step of a small MLP with and without the framework's determinism switch, on
    CPU, and whether the weights after ``repeats`` steps are the same either way.

    torch: ``torch.use_deterministic_algorithms(True)``, which makes an op without a deterministic
    implementation raise instead of running. TensorFlow: ``tf.config.experimental.enable_op_determinism()``,
    which also makes random ops without a seed raise. Both switches change kernels only where a
    non-deterministic one exists; on a CPU most ops have none. Each switch is put back as it was.
    """
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = rng.normal(size=(64, 2)).astype(np.float32)
    if framework == "torch":
        import torch

        was = torch.are_deterministic_algorithms_enabled()

        def run(deterministic: bool) -> tuple[float, np.ndarray]:
            torch.use_deterministic_algorithms(deterministic)
            torch.manual_seed(0)
            net = torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 2))
            optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
            xt, yt = torch.from_numpy(x), torch.from_numpy(y)

            def step():
                loss = ((net(xt) - yt) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            micros = _microseconds(step, repeats)
            return micros, np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])

        try:
            default, deterministic = run(False), run(True)
        finally:
            torch.use_deterministic_algorithms(was)
    elif framework == "tf":
        import keras
        import tensorflow as tf
        from tensorflow.python.framework import config as tf_config  # the only way to switch it off again

        was = tf_config.is_op_determinism_enabled()

        def run(deterministic: bool) -> tuple[float, np.ndarray]:
            if deterministic:
                tf.config.experimental.enable_op_determinism()
            else:
                tf_config.disable_op_determinism()
            keras.utils.set_random_seed(0)
            net = keras.Sequential(
                [keras.Input((4,)), keras.layers.Dense(hidden, activation="relu"), keras.layers.Dense(2)]
            )
            optimizer = keras.optimizers.Adam(learning_rate=1e-3)

            @tf.function
            def step():
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean((net(x, training=True) - y) ** 2)
                grads = tape.gradient(loss, net.trainable_variables)
                optimizer.apply_gradients(zip(grads, net.trainable_variables, strict=True))

            micros = _microseconds(step, repeats)
            return micros, np.concatenate([np.ravel(w) for w in net.get_weights()])

        try:
            default, deterministic = run(False), run(True)
        finally:
            (tf.config.experimental.enable_op_determinism if was else tf_config.disable_op_determinism)()
    else:
        raise ValueError(f"framework must be 'torch' or 'tf', got {framework!r}")
    return {
        "default us": default[0],
        "deterministic us": deterministic[0],
        "same weights": bool(np.array_equal(default[1], deterministic[1])),
    }


def unseeded_random_op_under_tf_determinism() -> str | None:
    """The error TensorFlow raises for a random op without a seed once op determinism is on (None: none).

    The global seed is unset for the experiment (a script that never called ``tf.random.set_seed``), and
    both it and the determinism switch are put back afterwards.
    """
    import tensorflow as tf
    from tensorflow.python.eager import context
    from tensorflow.python.framework import config as tf_config

    was, global_seed = tf_config.is_op_determinism_enabled(), context.global_seed()
    try:
        tf.config.experimental.enable_op_determinism()
        tf.random.set_seed(None)
        tf.random.uniform((1,))
        return None
    except RuntimeError as error:
        return str(error)
    finally:
        if not was:
            tf_config.disable_op_determinism()
        tf.random.set_seed(global_seed)


def thread_count_sums(size: int = 2_000_000, threads: Sequence[int] = (1, 2), seed: int = 0) -> dict[int, float]:
    """The float32 sum of the same ``size`` numbers in torch with different intra-op thread counts.

    A parallel reduction splits the array into one chunk per thread and adds the partial sums: another thread
    count adds in another order, and float addition is not associative. Determinism switches do not cover this:
    a result is reproducible only with the same thread count. rlkit's thread setting is put back afterwards.
    """
    import torch

    from rlkit.hardware import configure_torch

    values = torch.from_numpy(np.random.default_rng(seed).normal(size=size).astype(np.float32))
    sums = {}
    try:
        for count in threads:
            torch.set_num_threads(count)
            sums[count] = float(values.sum())
    finally:
        configure_torch()
    return sums


def repeated_on_another_cpu(sitting: dict, rerun: dict, algo: str, env: str, framework: str) -> dict:
    """How many runs of a later pass repeated the endings sitting's run of the same seed exactly (every
    evaluation and every final episode equal), for one configuration.

    ``sitting`` is an endings sitting (``endings.json``, or an earlier one kept as a pass of
    ``endings_variants.json``); ``rerun`` one pass of ``endings_variants.json`` at the defaults, made at a
    commit that left these runs' code as it was (``tests/benchmarks/test_freshness.py`` held the sitting to
    every commit's code until it was measured again). Equal returns all along mean the same actions all
    along: the two CPUs computed the same run.
    """
    config = (algo, env, framework)
    first = {run["seed"]: run for run in sitting["runs"] if (run["algo"], run["env"], run["framework"]) == config}
    again = [run for run in rerun["runs"] if (run["algo"], run["env"], run["framework"]) == config]
    again = [run for run in again if run["seed"] in first]
    if not again:
        raise ValueError(f"the pass has no run of {config} on a seed of the sitting's {sorted(first)}")
    same = [
        run["seed"]
        for run in again
        if run["eval_returns"] == first[run["seed"]]["eval_returns"]
        and run["final_returns"] == first[run["seed"]]["final_returns"]
    ]
    return {
        "same": len(same), "of": len(again), "machine": rerun["provenance"]["machine"],
        "preloaded": rerun["provenance"].get("preloaded", []),
    }  # fmt: skip
