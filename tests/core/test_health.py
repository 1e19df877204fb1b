import numpy as np
import pytest

from rlkit.health import action_entropy, health_signals


def test_action_entropy_counts_greedy_actions():
    assert action_entropy(np.tile([[0.0, 1.0]], (5, 1))) == 0.0
    balanced = np.array([[1.0, 0.0], [0.0, 1.0]] * 3)
    assert action_entropy(balanced) == pytest.approx(np.log(2))
    assert action_entropy(np.eye(4)) == pytest.approx(np.log(4))


def test_action_entropy_rejects_wrong_shapes():
    with pytest.raises(ValueError, match=r"\(batch, n_actions\)"):
        action_entropy(np.ones(3))


def test_health_signals():
    q = np.array([[1.0, 3.0], [2.0, 0.0]])
    signals = health_signals(q, np.array([-3.0, 1.0, 2.0]))
    assert signals == {"q_std": pytest.approx(np.std(q)), "action_entropy": pytest.approx(np.log(2)),
                       "td_error_median": 2.0}  # fmt: skip
    assert "td_error_median" not in health_signals(q)


def test_explained_variance_is_one_for_a_perfect_critic_zero_for_the_mean_and_nan_without_variance():
    from rlkit.health import explained_variance

    returns = np.array([1.0, 2.0, 3.0, 6.0])
    assert explained_variance(returns, returns) == 1.0
    assert explained_variance(np.full(4, returns.mean()), returns) == 0.0
    assert explained_variance(-returns, returns) < 0  # worse than predicting the mean
    assert np.isnan(explained_variance(returns, np.ones(4)))
