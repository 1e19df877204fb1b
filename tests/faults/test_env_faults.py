"""Environment faults are named at the vector env's boundary: the env id, the step and expected against
received, instead of gymnasium's or numpy's message from deep inside (or a NaN found bursts later)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import rlkit
from rlkit.env_checks import StepCheck
from rlkit.envs import EnvRunner, make_vec_env
from rlkit.errors import EnvironmentFault, RlkitError


class Faulty(gym.Wrapper):
    """CartPole that goes wrong at its ``after``-th step in the way ``fault`` names."""

    def __init__(self, fault: str, after: int = 30) -> None:
        super().__init__(gym.make("CartPole-v1"))
        self.fault, self.after, self.count = fault, after, 0

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.count += 1
        if self.count >= self.after:
            if self.fault == "obs_shape":
                obs = np.zeros(5, dtype=np.float32)
            elif self.fault == "reward_shape":
                reward = np.zeros(2)
            elif self.fault == "reward_nan":
                reward = float("nan")
        return obs, reward, terminated, truncated, info


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (
            "obs_shape",
            r"CartPole-v1 at step \d{3} .*\(Output array is the wrong shape\).* shape \(4,\) and dtype float32",
        ),
        ("reward_shape", r"the environment CartPole-v1 at step \d{3} .*a sequence.*a scalar finite reward"),
        ("reward_nan", r"the environment CartPole-v1 at step \d{3}: finite rewards were expected, got \[nan"),
    ],
)
def test_a_fault_mid_run_is_named_with_the_env_and_step(fault, message):
    runner = EnvRunner(make_vec_env(lambda: Faulty(fault), num_envs=8, seed=0), seed=0)
    with pytest.raises(EnvironmentFault, match=message):
        for _ in range(40):
            runner.step(np.zeros(8, dtype=np.int64))  # every copy fails at its 30th step (over its episodes)
    assert issubclass(EnvironmentFault, RlkitError)


def test_the_training_loop_names_it_too():
    pytest.importorskip("torch")
    with pytest.raises(EnvironmentFault, match=r"finite rewards were expected"):
        rlkit.train("dqn", env=lambda: Faulty("reward_nan", after=100), total_steps=2_000, progress=False)


class Declared:
    """What StepCheck reads of a vector env: its size and observation space."""

    num_envs, single_observation_space = 4, gym.spaces.Box(-1, 1, (3,), np.float32)
    spec = None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("obs", np.zeros((4, 3), np.float64), r"\(4, 3\) and dtype float32 were expected .*, \(4, 3\) float64"),
        ("obs", np.zeros((4, 2), np.float32), r"shape \(4, 3\) and dtype float32 .*, \(4, 2\) float32 arrived"),
        ("rewards", np.zeros((4, 1)), r"one scalar reward per environment, shape \(4,\), was expected, got \(4, 1\)"),
        ("rewards", np.array(["a"] * 4), r"shape \(4,\), was expected, got \(4,\) <U1"),
        ("rewards", np.array([0, np.inf, 0, 0]), r"finite rewards were expected, got \[inf\]"),
        ("terminated", np.zeros(4, np.int64), r"terminated as booleans of shape \(4,\) was expected, got \(4,\) int64"),
        ("truncated", np.zeros(4, np.float32), r"truncated as booleans of shape \(4,\) was expected, got \(4,\) float"),
    ],
)
def test_each_field_is_checked_on_the_batch(field, value, message):
    good = {
        "obs": np.zeros((4, 3), np.float32),
        "rewards": np.zeros(4),
        "terminated": np.zeros(4, bool),
        "truncated": np.zeros(4, bool),
    }
    check = StepCheck(Declared())
    check.check(12, **good)
    with pytest.raises(EnvironmentFault, match=r"the environment Declared at step 12: .*" + message):
        check.check(12, **{**good, field: value})


class Drift(gym.Env):
    """A 1-D task of its own (Box actions): the state moves by the action; ``fault`` makes it go wrong at the
    ``after``-th step: ``"raise"`` raises ValueError in its step, ``"float64"`` / ``"int"`` return observations
    of another dtype than the float32 its space declares (from its reset too where ``after`` is 0)."""

    observation_space = gym.spaces.Box(-10.0, 10.0, (2,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)

    def __init__(self, fault: str = "", after: int = 30) -> None:
        self.fault, self.after, self.count, self.state = fault, after, 0, np.zeros(2, np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.state = np.zeros(2, np.float32)
        return self.observation(), {}

    def step(self, action):
        self.count += 1
        if self.fault == "raise" and self.count >= self.after:
            raise ValueError("the simulator diverged")
        self.state = np.clip(self.state + action, -10, 10).astype(np.float32)  # a (3,) action cannot broadcast
        return self.observation(), 0.0, False, self.count % 50 == 0, {}

    def observation(self):
        if self.count >= self.after and self.fault in ("float64", "int"):
            return self.state.astype(np.float64 if self.fault == "float64" else np.int64)
        return self.state.copy()


def drift_runner(fault: str = "", after: int = 30) -> EnvRunner:
    return EnvRunner(make_vec_env(lambda: Drift(fault, after), num_envs=4, seed=0), seed=0)


def test_a_value_error_raised_by_the_envs_own_step_is_blamed_on_it_by_name():
    runner = drift_runner("raise")
    with pytest.raises(EnvironmentFault, match=r"the environment Drift at step 120: its own step raised ValueError: "
                       r"the simulator diverged"):  # fmt: skip
        for _ in range(40):
            runner.step(np.zeros((4, 2), np.float32))


@pytest.mark.parametrize(("shape", "dtype"), [((4, 3), np.float32), ((3, 2), np.float32), ((4, 2), np.str_)])
def test_actions_that_do_not_fit_are_named_as_the_callers_not_the_envs(shape, dtype):
    """The env raises (a (3,) action does not broadcast onto its (2,) state): still the caller's fault."""
    runner = drift_runner()
    with pytest.raises(RlkitError, match=r"the actions passed to the environment Drift at step 4 were ") as raised:
        runner.step(np.zeros(shape, dtype))
    assert not isinstance(raised.value, EnvironmentFault)
    assert "where its action space takes numbers of shape (4, 2)" in str(raised.value)


def test_an_error_outside_the_envs_own_code_propagates_unchanged(monkeypatch):
    runner = drift_runner()

    def broken(actions):
        raise ValueError("a bug of the vector env's caller")

    monkeypatch.setattr(runner.envs, "step", broken)
    with pytest.raises(ValueError, match="a bug of the vector env's caller") as raised:
        runner.step(np.zeros((4, 2), np.float32))
    assert not isinstance(raised.value, RlkitError)


@pytest.mark.parametrize("fault", ["float64", "int"])
def test_observations_of_another_dtype_are_named_not_converted_by_the_vector_env(fault):
    received = "float64" if fault == "float64" else "int64"
    runner = drift_runner(fault)
    with pytest.raises(EnvironmentFault, match=rf"the environment Drift \(copy 0\) at step 120: observations of dtype "
                       rf"float32 were expected \(the observation space\), dtype {received} arrived"):  # fmt: skip
        for _ in range(40):
            runner.step(np.zeros((4, 2), np.float32))


def test_a_reset_of_another_dtype_is_named_before_the_first_step_and_in_training():
    """A registered id (a custom env goes through gymnasium's env checker first, which refuses such a reset)."""
    gym.register("DriftFloat64-v0", entry_point=lambda: Drift("float64", after=0))
    try:
        with pytest.raises(EnvironmentFault, match=r"DriftFloat64-v0 \(copy 0\) at its reset: .* float64 arrived"):
            EnvRunner(make_vec_env("DriftFloat64-v0", num_envs=4, seed=0), seed=0)
        pytest.importorskip("torch")
        with pytest.raises(EnvironmentFault, match=r"np.asarray\(obs, dtype=np.float32\)"):
            rlkit.train("sac", env="DriftFloat64-v0", total_steps=200, progress=False)
    finally:
        gym.registry.pop("DriftFloat64-v0")
