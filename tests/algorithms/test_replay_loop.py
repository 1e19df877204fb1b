"""The replay loop and what plugs into it: buffer classes, callbacks, the registry, and the non-finite checks.

Fast runs (a few thousand steps, small networks): they prove the loop's wiring, not learning (that is in the
learning tests).
"""

from __future__ import annotations

import types

import gymnasium as gym
import numpy as np
import pytest

import rlkit
from rlkit.buffers import ReplayBuffer
from rlkit.callbacks import Callback, EvaluateEvery, LogScalars, SaveCheckpoints, StopWhenSolved
from rlkit.errors import RlkitError
from rlkit.exploration import ActionNoise, EpsilonGreedy, Exploration, NoisyNets, PolicySamples
from rlkit.numerics import NonFiniteError
from rlkit.registry import ALGORITHMS, Algorithm, AlgorithmParts, register

pytest.importorskip("torch")
SMALL = {"progress": False, "hidden_sizes": (16,), "eval_every": 1_000, "eval_episodes": 2}
REPLAY = {"learning_starts": 300, "train_every": 100, "gradient_steps": 10, "batch_size": 32}
ENVS = {"dqn": "CartPole-v1", "rainbow": "CartPole-v1", "a2c": "CartPole-v1", "ppo": "CartPole-v1",
        "ddpg": "Pendulum-v1", "td3": "Pendulum-v1", "sac": "Pendulum-v1"}  # fmt: skip


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", sorted(ALGORITHMS))
def test_every_algorithm_runs_a_short_smoke_test(algo, framework):
    """A broken loop fails here in seconds, not only in the slow learning tests."""
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    options = REPLAY if ALGORITHMS[algo].replay else {}
    result = rlkit.train(algo, env=ENVS[algo], framework=framework, total_steps=2_000, **SMALL, **options)
    assert result.steps >= 2_000 and len(result.history.series("eval_return")[1]) == 2
    loss = "loss" if algo in ("dqn", "rainbow") else "critic_loss" if ALGORITHMS[algo].replay else "value_loss"
    steps, values = result.history.series(loss)
    assert len(steps) > 3 and np.isfinite(values).all()
    if not ALGORITHMS[algo].replay:
        assert "explained_variance" in result.history


class CountingBuffer(ReplayBuffer):
    """A uniform buffer that counts what it is given: proof that the loop used the class it was handed."""

    added = 0

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        CountingBuffer.added += len(rewards)
        super().add(obs, actions, rewards, next_obs, terminated, discounts)


@pytest.mark.parametrize(("algo", "env"), [("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")])
def test_the_buffer_class_is_a_parameter(algo, env):
    CountingBuffer.added = 0
    result = rlkit.train(algo, env=env, total_steps=600, buffer_class=CountingBuffer, **SMALL, **REPLAY)
    # every transition, and no autoreset step (one follows each episode's end, except perhaps the last); DQN's
    # 3-step returns on CartPole hold back the last two steps of an unfinished episode
    episodes = len(result.history.series("episode_return")[1])
    pending = 2 if algo == "dqn" else 0
    assert 600 - episodes - pending <= CountingBuffer.added <= 600 - episodes + 1
    with pytest.raises(rlkit.RlkitError, match="ppo is on-policy and keeps no replay buffer"):
        rlkit.train("ppo", total_steps=600, buffer_class=CountingBuffer, progress=False)


@pytest.mark.parametrize("options", [{"prioritized": True}, {"n_step": 3}, {"prioritized": True, "n_step": 3}])
def test_the_off_policy_family_takes_prioritized_and_n_step_replay(options):
    from rlkit.buffers import PrioritizedReplayBuffer

    options = {"n_step": 1, **options}  # one-step unless the case asks for more (Pendulum's default is 3)
    result = rlkit.train("td3", env="Pendulum-v1", total_steps=1_000, **SMALL, **REPLAY, **options)
    assert np.isfinite(result.history.series("critic_loss")[1]).all()
    buffer = result.agent.loop.buffer
    assert isinstance(buffer, PrioritizedReplayBuffer) == options.get("prioritized", False)
    if options.get("prioritized"):  # the burst's |TD errors| came back: priorities are no longer all equal
        stored = buffer.tree.priorities(np.arange(len(buffer)))
        assert stored.min() < stored.max()
    gamma = result.agent.config.gamma
    discounts = np.unique(buffer.discounts[: len(buffer)].round(6))
    assert np.isclose(discounts.min(), gamma ** options.get("n_step", 1))  # full windows; shorter at time limits


class StopAt(Callback):
    def __init__(self, step: int) -> None:
        self.stop_step, self.seen = step, []

    def on_step(self, run) -> bool:
        self.seen.append(run.step)
        return run.step >= self.stop_step


@pytest.mark.parametrize(("algo", "options"), [("dqn", REPLAY), ("ppo", {})])
def test_a_callback_can_stop_training_and_sees_every_step(algo, options):
    stop = StopAt(1_500)
    result = rlkit.train(algo, total_steps=5_000, callbacks=[stop], **SMALL, **options)
    per_step = 1 if algo == "dqn" else rlkit.registry.config_class(algo)().num_envs
    assert stop.seen[:3] == [per_step, 2 * per_step, 3 * per_step]
    assert result.steps == stop.seen[-1] and 1_500 <= result.steps < 1_500 + 1_100


def test_stop_when_solved_callback_stops_at_the_threshold_given():
    result = rlkit.train("dqn", total_steps=5_000, callbacks=[StopWhenSolved(threshold=0.0)], **SMALL, **REPLAY)
    assert result.steps == 1_000  # the first evaluation returns more than 0
    result = rlkit.train("dqn", total_steps=5_000, callbacks=[StopWhenSolved(0.0, times=3)], **SMALL, **REPLAY)
    assert result.steps == 3_000  # every evaluation returns more than 0: the third in a row stops


def test_stop_when_solved_counts_evaluations_in_a_row_only():
    run = types.SimpleNamespace(threshold=-200.0)  # the part of a run the callback reads
    hold = StopWhenSolved(times=2)
    stops = [hold.on_evaluation(run, mean_return) for mean_return in (-150, -300, -150, -199, -120)]
    assert stops == [False, False, False, True, True]
    with pytest.raises(RlkitError, match="times must be a positive int"):
        StopWhenSolved(times=0)


def test_checkpoints_every_n_steps_and_the_best_one_and_the_last_agent_returned(tmp_path):
    saver = SaveCheckpoints(tmp_path, every=1_000, best=True)
    scalars = LogScalars(lambda run: {"buffer_fill": run.step / run.total_steps}, every=500)
    extra = EvaluateEvery(1_000, episodes=1, name="probe_return")
    result = rlkit.train("dqn", total_steps=3_000, callbacks=[saver, scalars, extra], **SMALL, **REPLAY)
    assert sorted(p.name for p in tmp_path.glob("step_*.pt")) == ["step_1000.pt", "step_2000.pt", "step_3000.pt"]
    best = rlkit.load(tmp_path / "best.pt")
    steps, evals = result.history.series("eval_return")
    assert saver.best_return == evals.max()
    best_step = rlkit.load(tmp_path / f"step_{steps[evals.argmax()]}.pt")  # evaluated right after that save
    for a, b in zip(best.get_weights(), best_step.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    last = rlkit.load(tmp_path / "step_3000.pt")
    for a, b in zip(last.get_weights(), result.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # the returned agent is the last one
    assert best.get_weights()[0].shape == result.agent.get_weights()[0].shape
    np.testing.assert_allclose(result.history.series("buffer_fill")[1], [1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])
    assert len(result.history.series("probe_return")[1]) == 3


class PushRight(Exploration):
    """Always action 1 on CartPole, counting the episodes it saw end: proof that the loop asked this object."""

    def __init__(self) -> None:
        self.ended = 0

    def actions(self, agent, obs, step, rng):
        return np.ones(len(obs), dtype=np.int64)

    def end_episodes(self, done):
        self.ended += int(np.sum(done))

    def metrics(self, step):
        return {"pushes": 1.0}


def test_the_exploration_is_a_parameter():
    exploration = PushRight()
    result = rlkit.train("dqn", total_steps=600, exploration=exploration, **SMALL, **REPLAY)
    loop = result.agent.loop
    assert loop.exploration is exploration
    stored = loop.buffer.actions[: len(loop.buffer)]
    assert len(stored) > 500 and (stored == 1).all()  # the default (epsilon-greedy from 1.0) stores both actions
    assert exploration.ended == len(result.history.series("episode_return")[1])
    assert "pushes" in result.history and "epsilon" not in result.history


@pytest.mark.parametrize(
    ("algo", "env", "options", "default"),
    [("dqn", "CartPole-v1", {}, EpsilonGreedy), ("dqn", "CartPole-v1", {"noisy": True}, NoisyNets),
     ("td3", "Pendulum-v1", {}, ActionNoise), ("sac", "Pendulum-v1", {}, PolicySamples)],
)  # fmt: skip
def test_each_algorithm_explores_with_its_default_exploration(algo, env, options, default):
    result = rlkit.train(algo, env=env, total_steps=400, **SMALL, **REPLAY, **options)
    assert type(result.agent.loop.exploration) is default


def test_a_wrong_exploration_is_refused_by_name():
    with pytest.raises(RlkitError, match="not the class EpsilonGreedy: pass an instance"):
        rlkit.train("dqn", total_steps=500, exploration=EpsilonGreedy, **SMALL, **REPLAY)
    with pytest.raises(RlkitError, match="lacks begin, actions, end_episodes"):
        rlkit.train("dqn", total_steps=500, exploration=object(), **SMALL, **REPLAY)
    with pytest.raises(RlkitError, match="ppo is on-policy: it explores by sampling its own policy"):
        rlkit.train("ppo", total_steps=500, exploration=EpsilonGreedy(), **SMALL)


def test_an_object_without_hooks_is_refused():
    with pytest.raises(rlkit.RlkitError, match="has none of the hooks"):
        rlkit.train("dqn", total_steps=500, callbacks=[object()], **SMALL, **REPLAY)


def test_a_new_algorithm_is_registered_by_name():
    def dqn_again() -> AlgorithmParts:
        from rlkit.algos.dqn.agent import DQNAgent

        return AlgorithmParts(DQNAgent, budgets={}, fallback_budget=1_000)

    register("dqn-again", Algorithm(dqn_again, loop="replay"))
    try:
        result = rlkit.train("dqn-again", total_steps=600, **SMALL, **REPLAY)
        assert result.algo == "dqn"
    finally:
        del ALGORITHMS["dqn-again"]
    with pytest.raises(rlkit.RlkitError, match="lower-case letters"):
        register("Bad Name", ALGORITHMS["dqn"])
    with pytest.raises(rlkit.RlkitError, match="takes an rlkit.registry.Algorithm"):
        register("dqn-string", "rlkit.algos.dqn")
    with pytest.raises(rlkit.RlkitError, match="loop is one of replay, rollout"):
        Algorithm(dqn_again, loop="on-policy")


class BreaksAt(gym.Wrapper):
    """Returns a NaN reward (or observation) at one step of each environment's life."""

    def __init__(self, env, at: int, field: str) -> None:
        super().__init__(env)
        self.at, self.field, self.steps = at, field, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        if self.steps == self.at:
            if self.field == "rewards":
                reward = float("nan")
            else:
                obs = np.full_like(obs, np.inf)
        return obs, reward, terminated, truncated, info


@pytest.fixture
def broken_cartpole():
    from gymnasium.envs.registration import register as gym_register

    for field in ("rewards", "next_obs"):
        gym_register(
            id=f"rlkit-tests/BrokenCartPole-{field}-v0",
            entry_point=lambda field=field, **kwargs: BreaksAt(gym.make("CartPole-v1", **kwargs), 150, field),
            max_episode_steps=500,
        )
    yield
    for field in ("rewards", "next_obs"):
        gym.registry.pop(f"rlkit-tests/BrokenCartPole-{field}-v0")


@pytest.mark.filterwarnings("ignore:invalid value encountered in matmul:RuntimeWarning")  # acting on inf
@pytest.mark.parametrize("field", ["rewards", "next_obs"])
@pytest.mark.parametrize("algo", ["dqn", "ppo"])
def test_a_nan_from_the_environment_stops_the_run_naming_field_and_step(algo, field, broken_cartpole):
    options = REPLAY if algo == "dqn" else {}
    with pytest.raises(
        NonFiniteError, match=rf"non-finite {field if algo == 'dqn' else field.replace('next_', '')}"
    ) as error:
        rlkit.train(algo, env=f"rlkit-tests/BrokenCartPole-{field}-v0", total_steps=3_000, **SMALL, **options)
    message = str(error.value)
    assert "environment step" in message and "the environment returned a NaN or infinite" in message


@pytest.mark.parametrize(
    ("algo", "env", "options"),
    [("dqn", "CartPole-v1", REPLAY), ("sac", "Pendulum-v1", REPLAY), ("a2c", "CartPole-v1", {})],
)
def test_an_update_that_diverges_stops_the_run_with_the_likely_cause(algo, env, options):
    rate = {"learning_rate": 1e30}
    with pytest.raises(NonFiniteError, match="the update diverged: a learning rate too high"):
        rlkit.train(
            algo, env=env, total_steps=3_000, **SMALL, **options, **rate, max_grad_norm=None
        ) if algo == "dqn" else rlkit.train(algo, env=env, total_steps=3_000, **SMALL, **options, **rate)


@pytest.mark.parametrize(("algo", "env", "options"), [("dqn", "CartPole-v1", REPLAY), ("a2c", "CartPole-v1", {})])
def test_a_non_finite_weight_left_by_an_update_stops_the_run_naming_the_array(algo, env, options):
    """Finite metrics but a NaN in the weights an update left: the loop checks the arrays the acting copy read
    (``refresh``), so the run stops at that update and names the array."""
    agent = rlkit.train(algo, env=env, total_steps=1_000, **SMALL, **options).agent
    learner = agent.learner
    name = "update_many" if algo == "dqn" else "update"
    update = getattr(learner, name)

    def update_leaving_a_nan(*args, **kwargs):
        metrics = update(*args, **kwargs)
        weights = learner.get_weights()
        weights[-1][0] = np.nan
        learner.set_weights(weights)
        return metrics

    setattr(learner, name, update_leaving_a_nan)
    last = len(learner.get_weights()) - 1
    with pytest.raises(NonFiniteError, match=rf"non-finite weights \(array {last} of .*after the update at"):
        agent.learn(1_000, progress=False)


def test_a_discrete_environment_is_refused_with_a_pointer():
    with pytest.raises(rlkit.RlkitError, match="continuous .*use dqn, ppo or a2c"):
        rlkit.train("sac", env="CartPole-v1", progress=False)


@pytest.mark.parametrize(("algo", "env"), [("dqn", "CartPole-v1"), ("sac", "Pendulum-v1")])
def test_several_environments_step_together_in_the_replay_loop(algo, env):
    """num_envs > 1: steps count every environment, each valid transition of each one is stored."""
    CountingBuffer.added = 0
    result = rlkit.train(algo, env=env, total_steps=800, num_envs=4, buffer_class=CountingBuffer, **SMALL, **REPLAY)
    assert result.steps == 800
    episodes = len(result.history.series("episode_return")[1]) if "episode_return" in result.history else 0
    pending = 4 * 2 if algo == "dqn" else 0  # 3-step returns: two steps of each unfinished episode wait
    assert 800 - episodes - pending <= CountingBuffer.added <= 800
    steps = result.history.series("critic_loss" if algo == "sac" else "loss")[0]
    assert all(step % 4 == 0 for step in steps)
