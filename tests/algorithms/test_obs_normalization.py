"""Observation standardisation for the replay family (``normalize_obs`` of DDPG, TD3 and SAC): the learner
sees standardised batches while the buffer keeps raw observations, acting and exports apply the same
statistics, and checkpoints carry them."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit import export

SHORT = {"progress": False, "learning_starts": 300, "train_every": 100, "gradient_steps": 10, "batch_size": 64,
         "eval_every": 1_000, "eval_episodes": 1}  # fmt: skip


class Scaled:
    """Pendulum with its observations scaled by 100 and shifted by 50: far from standardised."""

    @staticmethod
    def make():
        import gymnasium as gym

        env = gym.make("Pendulum-v1")
        space = gym.spaces.Box(-1e4, 1e4, (3,), np.float32)
        return gym.wrappers.TransformObservation(env, lambda obs: (obs * 100 + 50).astype(np.float32), space)


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_the_learner_sees_standardised_batches_and_the_buffer_raw_ones(framework):
    seen = []
    result = rlkit.train("sac", Scaled.make, framework=framework, total_steps=1_000, normalize_obs=True, **SHORT)
    agent, buffer = result.agent, result.agent.loop.buffer
    learner_update = agent.learner.update_many
    agent.learner.update_many = lambda batches: seen.append(batches["obs"]) or learner_update(batches)
    agent.learn(200, progress=False)
    assert seen, "no burst ran"
    batch = np.concatenate([b.reshape(-1, 3) for b in seen])
    assert np.abs(batch.mean(axis=0)).max() < 0.5 and 0.5 < batch.std(axis=0).mean() < 2, batch.std(axis=0)
    assert np.abs(buffer.obs[: buffer.size]).max() > 20  # raw: the wrapper's scale
    assert np.abs(agent.obs_normalizer.stats.mean - 50).max() < 150


def test_without_the_option_nothing_is_standardised():
    result = rlkit.train("td3", "Pendulum-v1", total_steps=600, **SHORT)
    assert result.agent.obs_normalizer is None and export.policy_plan(result.agent).obs_mean is None


@pytest.mark.parametrize(("algo", "framework"), [("sac", "torch"), ("td3", "tf"), ("ddpg", "torch")])
def test_checkpoints_and_exports_carry_the_statistics(algo, framework, tmp_path):
    result = rlkit.train(algo, Scaled.make, framework=framework, total_steps=600, normalize_obs=True, **SHORT)
    agent = result.agent
    obs = np.random.default_rng(0).normal(50, 100, (64, 3)).astype(np.float32)
    loaded = rlkit.load(agent.save(tmp_path / ("agent.pt" if framework == "torch" else "agent.keras")))
    np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))
    parity = export.compare(agent, export.onnx_policy(export.export(agent, tmp_path / "policy.onnx")), obs)
    assert parity.action_mismatches == 0 and parity.max_action_diff < 1e-5, parity
    stats = agent.obs_normalizer.stats
    moved = rlkit.load(tmp_path / ("agent.pt" if framework == "torch" else "agent.keras"))
    moved.obs_normalizer.stats.mean = stats.mean + 10.0  # other statistics: other actions
    assert np.abs(moved.act(obs) - agent.act(obs)).max() > 1e-3
