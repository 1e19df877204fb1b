"""rlkit: deep reinforcement learning in PyTorch and TensorFlow, the library behind the course.

Importing rlkit imports neither torch nor TensorFlow: an algorithm imports its framework when asked to
train or load with it.

>>> import rlkit
>>> result = rlkit.train("dqn", env="CartPole-v1", framework="torch", seed=0)   # doctest: +SKIP
>>> rlkit.evaluate(result.agent, "CartPole-v1", episodes=20).mean()              # doctest: +SKIP
"""

from rlkit import exploration  # noqa: E402  (rlkit.exploration: what rlkit.train(exploration=...) takes)
from rlkit.advantages import compute_gae  # noqa: E402
from rlkit.api import FRAMEWORKS, load, train  # noqa: E402
from rlkit.buffers import ReplayBuffer, RolloutBuffer  # noqa: E402
from rlkit.contracts import Field, TensorContract  # noqa: E402
from rlkit.envs import EnvRunner, make_env, make_vec_env, solve_threshold  # noqa: E402
from rlkit.errors import CheckpointError, ContractError, RlkitError, TrainingInterrupted  # noqa: E402
from rlkit.evaluate import evaluate  # noqa: E402
from rlkit.logger import History, Logger  # noqa: E402
from rlkit.registry import ALGORITHMS, Algorithm, AlgorithmParts, register  # noqa: E402
from rlkit.result import TrainResult  # noqa: E402
from rlkit.schedules import ConstantSchedule, ExponentialSchedule, LinearSchedule  # noqa: E402
from rlkit.seeding import seed_everything  # noqa: E402
from rlkit.version import __version__  # noqa: E402, F401

__all__ = [
    "ALGORITHMS",
    "Algorithm",
    "AlgorithmParts",
    "FRAMEWORKS",
    "CheckpointError",
    "ConstantSchedule",
    "ContractError",
    "EnvRunner",
    "ExponentialSchedule",
    "Field",
    "History",
    "LinearSchedule",
    "Logger",
    "ReplayBuffer",
    "RolloutBuffer",
    "RlkitError",
    "TensorContract",
    "TrainResult",
    "TrainingInterrupted",
    "compute_gae",
    "evaluate",
    "exploration",
    "load",
    "make_env",
    "make_vec_env",
    "register",
    "seed_everything",
    "solve_threshold",
    "train",
]
