"""DDPG, TD3 and SAC learn: each swings up Pendulum-v1 (>= -200 over 10 new episodes) in both frameworks."""

from __future__ import annotations

import pytest

import rlkit

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", ["ddpg", "td3", "sac"])
def test_swings_up_the_pendulum(algo, framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    result = rlkit.train(algo, env="Pendulum-v1", framework=framework, seed=1, stop_when_solved=True, progress=False)
    assert result.solved_at_step is not None, f"not solved within the default budget: {result}"
    returns = rlkit.evaluate(result.agent, "Pendulum-v1", episodes=10, seed=2024)
    assert returns.mean() >= -200, f"mean return {returns.mean():.1f} over 10 new episodes ({result})"


def test_ornstein_uhlenbeck_exploration_also_learns():
    pytest.importorskip("torch")
    settings = {"exploration": "ou", "exploration_noise": 0.2}
    result = rlkit.train("ddpg", env="Pendulum-v1", seed=1, stop_when_solved=True, progress=False, **settings)
    assert result.solved_at_step is not None, str(result)


@pytest.mark.parametrize("options", [{"prioritized": True}, {"n_step": 3}], ids=["prioritized", "3-step"])
@pytest.mark.parametrize("algo", ["td3", "sac"])
def test_prioritized_and_n_step_replay_also_swing_up_the_pendulum(algo, options):
    """The replay loop's buffer options work for the whole family (measured, seed 1: TD3 7,000 / 4,000 steps,
    SAC 4,000 / 4,000, against 7,000 and 4,000 with uniform one-step replay)."""
    pytest.importorskip("torch")
    result = rlkit.train(algo, env="Pendulum-v1", seed=1, stop_when_solved=True, progress=False, **options)
    assert result.solved_at_step is not None, f"not solved within the default budget: {result}"
    returns = rlkit.evaluate(result.agent, "Pendulum-v1", episodes=10, seed=2024)
    assert returns.mean() >= -200, f"mean return {returns.mean():.1f} over 10 new episodes ({result})"
