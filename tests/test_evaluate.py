from __future__ import annotations

import numpy as np
import pytest

from rlkit.errors import RlkitError
from rlkit.evaluate import evaluate


def test_evaluate_runs_each_episode_to_its_end():
    # Always pushing left ends a CartPole episode in about 10 steps; every return is one episode's length.
    returns = evaluate(lambda obs: np.zeros(len(obs), dtype=np.int64), "CartPole-v1", episodes=7, seed=3)
    assert returns.shape == (7,)
    assert returns.min() >= 5 and returns.max() <= 20


def test_evaluation_is_reproducible_with_a_seed():
    def policy(obs):
        return (obs[:, 2] > 0).astype(np.int64)

    np.testing.assert_array_equal(
        evaluate(policy, "CartPole-v1", 5, seed=1), evaluate(policy, "CartPole-v1", 5, seed=1)
    )


def test_bad_policy_and_episode_count_fail_clearly():
    with pytest.raises(RlkitError, match="callable"):
        evaluate(42, "CartPole-v1")
    with pytest.raises(RlkitError, match="episodes"):
        evaluate(lambda obs: obs, "CartPole-v1", episodes=0)
