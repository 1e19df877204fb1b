"""PPO and A2C learn: they solve CartPole-v1 in both frameworks, and PPO swings up Pendulum-v1."""

from __future__ import annotations

import pytest

import rlkit

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_solves_cartpole(algo, framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    result = rlkit.train(algo, env="CartPole-v1", framework=framework, seed=1, stop_when_solved=True, progress=False)
    assert result.solved_at_step is not None, str(result)
    # A policy stopped at its first evaluation at 475 (10 episodes) sits near the threshold: on 20 new episodes
    # PPO's scored 486-500 on seeds 1-6 in both frameworks here and 463.6 (TF, seed 1) on another AMD EPYC.
    # 425 keeps that margin; a policy that has not learned to balance scores far below it.
    returns = rlkit.evaluate(result.agent, "CartPole-v1", episodes=20, seed=2024)
    assert returns.mean() >= 425, f"mean return {returns.mean():.1f} over 20 episodes"


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_ppo_swings_up_the_pendulum(framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    # the whole default budget: a policy that has just reached -200 on 20 episodes can still miss -250 on others
    result = rlkit.train("ppo", env="Pendulum-v1", framework=framework, seed=1, progress=False)
    returns = rlkit.evaluate(result.agent, "Pendulum-v1", episodes=20, seed=2024)
    assert returns.mean() >= -250, f"mean return {returns.mean():.1f} over 20 episodes ({result})"
