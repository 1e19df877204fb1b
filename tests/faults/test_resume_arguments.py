"""What is passed with ``resume=`` must agree with the checkpoint: another framework, seed, environment or
hyperparameter is refused naming both values (it used to be ignored, or to die inside gymnasium), while what
resume documents as changeable goes through."""

from __future__ import annotations

import pytest

import rlkit
from rlkit.cli import main
from rlkit.errors import RlkitError

SMALL = {"learning_starts": 100, "train_every": 50, "gradient_steps": 5, "eval_episodes": 1, "eval_every": 500}


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    pytest.importorskip("torch")
    path = tmp_path_factory.mktemp("resume") / "run.pt"
    result = rlkit.train("dqn", total_steps=300, seed=3, progress=False, **SMALL)
    result.agent.save(path, resumable=True)
    return path


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"framework": "tf"}, r"got framework='tf', and '.*run.pt' was trained with framework='torch'"),
        ({"seed": 7}, r"got seed=7, and '.*run.pt' was trained with seed=3: drop seed="),
        ({"seed": 0}, r"got seed=0, and '.*run.pt' was trained with seed=3"),
        ({"env": "Acrobot-v1"}, r"got env='Acrobot-v1', and '.*run.pt' was trained with env='CartPole-v1'"),
        ({"gamma": 0.9}, r"hyperparameters; got gamma=0.9, and '.*run.pt' was trained with gamma=0.99"),
        ({"hidden_sizes": [32]}, r"got hidden_sizes=\[32\], and '.*run.pt' was trained with hidden_sizes=\(128, 128\)"),
        ({"learning_rat": 1e-3}, r"dqn has no hyperparameter 'learning_rat'. Did you mean 'learning_rate'\?"),
    ],
)
def test_an_argument_that_contradicts_the_checkpoint_is_refused_naming_both(checkpoint, given, message):
    with pytest.raises(RlkitError, match=message):
        rlkit.train("dqn", resume=checkpoint, total_steps=400, progress=False, **given)


def test_what_agrees_with_the_checkpoint_or_is_changeable_goes_through(checkpoint, tmp_path):
    agreeing = {"framework": "torch", "seed": 3, "env": "CartPole-v1", "gamma": 0.99, "hidden_sizes": [128, 128]}
    changeable = {"logdir": tmp_path / "run", "save": tmp_path / "out.pt", "stop_when_solved": False}
    result = rlkit.train("dqn", resume=checkpoint, total_steps=400, progress=False, **agreeing, **changeable)
    assert result.steps == 400 and result.seed == 3


def test_the_command_line_refuses_a_seed_the_checkpoint_was_not_trained_with(checkpoint, tmp_path, capsys):
    argv = ["train", "dqn", "--resume", str(checkpoint), "--steps", "400", "--save", str(tmp_path / "x.pt")]
    assert main([*argv, "--seed", "5", "--quiet"]) == 2
    assert "got seed=5, and" in capsys.readouterr().err
    assert main([*argv, "--quiet"]) == 0  # nothing given: the checkpoint's own


def test_a_resume_explores_with_the_runs_own_exploration_class(checkpoint):
    from rlkit.exploration import EpsilonGreedy, NoisyNets

    with pytest.raises(RlkitError, match="this run explored with EpsilonGreedy, and NoisyNets cannot take its state"):
        rlkit.train("dqn", resume=checkpoint, total_steps=400, progress=False, exploration=NoisyNets(100))
    result = rlkit.train("dqn", resume=checkpoint, total_steps=400, progress=False, exploration=EpsilonGreedy(0.5))
    assert result.steps == 400 and result.history.series("epsilon")[1][-1] < 0.5
