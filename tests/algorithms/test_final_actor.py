"""DDPG's and TD3's ``final_actor="target"``: a run ends on its target actor (the Polyak average of the online
one), and that average is the agent the final evaluation plays, the run saves and ``rlkit.train`` returns."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.algos.td3.config import TD3Config
from rlkit.checkpoints import run_path
from rlkit.errors import RlkitError
from rlkit.evaluate import play_episodes
from rlkit.seeding import eval_seed

#: Short runs with updates from step 100 on: long enough for the target actor to differ from the online one.
SHORT = {"total_steps": 600, "learning_starts": 100, "eval_every": 200, "eval_episodes": 2}


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", ["ddpg", "td3"])
def test_a_run_ending_on_its_target_actor_evaluates_saves_and_returns_the_average(algo, framework, tmp_path):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    common = {"env": "Pendulum-v1", "framework": framework, "seed": 3, "progress": False, **SHORT}
    online = rlkit.train(algo, **common)
    average = rlkit.train(algo, final_actor="target", logdir=tmp_path, **common)

    # the same run up to its last step: every evaluation before the final one agrees
    steps, returns = online.history.series("eval_return")
    np.testing.assert_array_equal(average.history.series("eval_return")[1][:-1], returns[:-1])
    # the online run's target actor is what the other run ended on, and differs from the online actor
    expected = online.agent.actor_part(online.agent.learner.target_weights())
    assert not all(
        np.array_equal(a, b) for a, b in zip(expected, online.agent.actor_part(online.agent.get_weights()), strict=True)
    )
    for got, want in zip(average.agent.actor_part(average.agent.get_weights()), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    # the critics are the last step's: only the actor is averaged
    for got, want in zip(
        average.agent.get_weights()[len(expected) :], online.agent.get_weights()[len(expected) :], strict=True
    ):
        np.testing.assert_array_equal(got, want)
    # the final evaluation played the average; the saved agent is the average
    final = play_episodes(average.agent, "Pendulum-v1", SHORT["eval_episodes"], eval_seed(average.seed, int(steps[-1])))
    assert average.history.last("eval_return") == pytest.approx(final.mean(), abs=1e-9)
    saved = rlkit.load(run_path(average.agent, tmp_path))
    for got, want in zip(saved.get_weights(), average.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(got, want)


def test_final_actor_takes_online_or_target_only():
    with pytest.raises(RlkitError, match="final_actor.*'online' or 'target'"):
        TD3Config(final_actor="average")
