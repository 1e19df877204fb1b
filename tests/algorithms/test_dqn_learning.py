"""DQN learns: it solves CartPole-v1 in both frameworks, and the same seed gives the same run."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.algos.dqn import PLAIN_DQN


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_dqn_solves_cartpole(framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    result = rlkit.train(
        "dqn",
        env="CartPole-v1",
        framework=framework,
        seed=1,
        total_steps=50_000,
        stop_when_solved=True,
        progress=False,
    )
    assert result.solved_at_step is not None, f"not solved in 50k steps: {result}"
    returns = rlkit.evaluate(result.agent, "CartPole-v1", episodes=20, seed=2024)
    assert returns.mean() >= 475, f"mean return {returns.mean():.1f} over 20 episodes"


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_dueling_n_step_prioritized_dqn_solves_cartpole(framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    """The options compose and learn (the Rainbow preset below adds noisy nets and C51)."""
    options = {"dueling": True, "n_step": 3, "prioritized": True}
    result = rlkit.train(
        "dqn", env="CartPole-v1", framework=framework, seed=0, stop_when_solved=True, progress=False, **options
    )
    assert result.solved_at_step is not None, f"not solved in 50k steps: {result}"
    returns = rlkit.evaluate(result.agent, "CartPole-v1", episodes=20, seed=2024)
    # stopped at its first 10-episode evaluation >= 475: on 20 other episodes one or two may still fall early
    assert returns.mean() >= 450, f"mean return {returns.mean():.1f} over 20 episodes"


@pytest.mark.slow
@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize(("env", "threshold", "margin"), [("CartPole-v1", 475, 50), ("Acrobot-v1", -100, 15)])
def test_rainbow_solves_cartpole_and_acrobot(framework, env, threshold, margin):
    """Solved = a greedy evaluation over 20 episodes reaches the threshold; then 20 new episodes confirm it.

    The confirmation allows a margin: a run stopped at its first crossing sits right at the threshold.
    """
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    result = rlkit.train(
        "rainbow",
        env=env,
        framework=framework,
        seed=0,
        stop_when_solved=True,
        progress=False,
        eval_episodes=20,
    )  # the default budget: what it must hold is that the defaults solve within it
    assert result.solved_at_step is not None, f"not solved in the default budget: {result}"
    assert result.history.last("eval_return") >= threshold
    returns = rlkit.evaluate(result.agent, env, episodes=20, seed=2024)
    assert returns.mean() >= threshold - margin, f"mean return {returns.mean():.1f} over 20 new episodes"


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_same_seed_twice_gives_identical_runs(framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")

    def run():
        result = rlkit.train(
            "dqn",
            env="CartPole-v1",
            framework=framework,
            seed=7,
            total_steps=3_000,
            progress=False,
            learning_starts=500,
            eval_every=1_500,
            gradient_steps=32,
        )
        return result.history, rlkit.evaluate(result.agent, "CartPole-v1", episodes=5, seed=1)

    (history_a, returns_a), (history_b, returns_b) = run(), run()
    np.testing.assert_array_equal(returns_a, returns_b)
    for metric in ("episode_return", "loss", "eval_return"):
        np.testing.assert_array_equal(history_a.series(metric)[1], history_b.series(metric)[1])


@pytest.mark.parametrize("plain", [True, False], ids=["plain DQN", "CartPole's default, with C51"])
def test_training_records_the_metrics_it_promises(plain):
    result = rlkit.train(
        "dqn",
        env="CartPole-v1",
        seed=0,
        total_steps=2_000,
        progress=False,
        learning_starts=500,
        eval_every=1_000,
        gradient_steps=8,
        **(PLAIN_DQN if plain else {}),
    )
    assert result.steps == 2_000
    # C51 learns distributions by cross-entropy: it has no TD errors to take the median of
    health = ("q_std", "action_entropy", "optimizer_resets", *(["td_error_median"] if plain else []))
    for metric in ("episode_return", "episode_length", "loss", "q_mean", "epsilon", "eval_return", *health):
        assert metric in result.history
    assert ("td_error_median" in result.history) == plain
    assert len(result.history.series("eval_return")[0]) == 2
    assert result.history.series("optimizer_resets")[1].max() == 0  # off by default


def test_optimizer_resets_fire_when_the_loss_passes_the_threshold():
    result = rlkit.train(
        "dqn", env="CartPole-v1", seed=0, total_steps=2_000, progress=False, learning_starts=500,
        eval_every=1_000, gradient_steps=8, reset_optimizer_above=1e-9,
    )  # fmt: skip
    steps, resets = result.history.series("optimizer_resets")
    np.testing.assert_array_equal(resets, np.arange(1, len(steps) + 1))  # every burst's loss is above 1e-9


def test_public_api_rejects_bad_arguments():
    with pytest.raises(rlkit.RlkitError, match="unknown algorithm"):
        rlkit.train("ppo2")
    with pytest.raises(rlkit.RlkitError, match="seed"):
        rlkit.train("dqn", seed=-1)
    with pytest.raises(rlkit.RlkitError, match="batch_size"):
        rlkit.train("dqn", batch_size=0)
