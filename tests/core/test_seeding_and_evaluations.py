"""seed_everything seeds what it promises; Evaluations keeps the schedule, the best snapshot and the first
solving step that TrainResult reports."""

from __future__ import annotations

import random

import numpy as np
import pytest

import rlkit
from rlkit.algos.dqn import DQNConfig
from rlkit.algos.training import Evaluations
from rlkit.logger import Logger


def test_seed_everything_seeds_python_numpy_and_the_imported_frameworks():
    torch = pytest.importorskip("torch")
    draws = []
    for _ in range(2):
        rng = rlkit.seed_everything(7)
        draws.append((random.random(), np.random.random(), rng.random(), torch.rand(1).item()))
    assert draws[0] == draws[1]
    rlkit.seed_everything(8)
    assert random.random() != draws[0][0] and torch.rand(1).item() != draws[0][3]
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(rlkit.RlkitError, match="seed must be a non-negative int"):
            rlkit.seed_everything(bad)


class ScriptedAgent:
    """A policy whose greedy return is set by hand: a 'good' agent balances CartPole, a 'bad' one pushes left."""

    def __init__(self, config) -> None:
        self.config, self.env_id, self.training_env, self.good = config, "CartPole-v1", "CartPole-v1", False
        self.algo, self.framework = "scripted", "numpy"

    def act(self, obs, deterministic=True):
        if self.good:  # push towards the side the pole falls to: a simple controller that balances for long
            return (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)
        return np.zeros(len(obs), dtype=np.int64)

    def snapshot(self):
        return self.good

    def restore(self, snapshot) -> None:
        self.good = snapshot


@pytest.mark.parametrize("keep_best", [False, True])
def test_evaluations_schedule_best_snapshot_solving_step_and_keep_best(keep_best):
    config = DQNConfig(eval_every=100, eval_episodes=3, keep_best=keep_best)
    agent = ScriptedAgent(config)
    evaluations = Evaluations(agent, seed=0)
    logger = Logger(1_000, progress=False)
    evaluations.bind(logger)
    assert not evaluations.due(99) and evaluations.due(100)
    assert evaluations.run(100) is False  # the bad policy does not solve
    agent.good = True
    assert evaluations.run(200) is True and evaluations.solved_at_step == 200
    assert evaluations.run(300) is False  # solved already: only the first solving step counts
    agent.good = False
    evaluations.run(400)
    assert evaluations.next_step == 500 and evaluations.best_snapshot is True
    result = evaluations.finish(400, logdir=None)
    assert result.solved_at_step == 200 and list(result.history.series("eval_return")[0]) == [100, 200, 300, 400]
    assert agent.good is keep_best  # the last (bad) policy unless keep_best asked for the best one
