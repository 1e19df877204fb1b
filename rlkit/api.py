"""The public way to train, evaluate and load agents: ``rlkit.train``, ``rlkit.evaluate``, ``rlkit.load``.

Every algorithm plugs in through :data:`ALGORITHMS`; the framework is imported only when an algorithm
asks for it, so ``import rlkit`` stays light.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from rlkit.checkpoints import read_meta
from rlkit.errors import CheckpointError, RlkitError, did_you_mean
from rlkit.result import TrainResult

#: Algorithm name -> package holding ``agent.py`` (``train``, the agent class) and ``config.py``.
ALGORITHMS = {
    "dqn": "rlkit.algos.dqn",
    "rainbow": "rlkit.algos.rainbow",
    "ppo": "rlkit.algos.ppo",
    "a2c": "rlkit.algos.a2c",
    "ddpg": "rlkit.algos.ddpg",
    "td3": "rlkit.algos.td3",
    "sac": "rlkit.algos.sac",
}
FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


def algorithm(name: str):
    """The algorithm package for ``name``; raises with a suggestion for an unknown name."""
    if not isinstance(name, str) or name.lower() not in ALGORITHMS:
        raise RlkitError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(ALGORITHMS))}."
            f"{did_you_mean(str(name).lower(), ALGORITHMS)}"
        )
    return importlib.import_module(ALGORITHMS[name.lower()])


def config_class(name: str) -> type:
    """The config dataclass of algorithm ``name`` (its hyperparameters, documented field by field)."""
    package = algorithm(name)
    return next(getattr(package, n) for n in package.__all__ if n.endswith("Config"))


def check_framework(framework: str) -> str:
    """Validate ``framework`` and that it is installed, without importing it."""
    if framework not in FRAMEWORKS:
        raise RlkitError(f"unknown framework {framework!r}; choose 'torch' or 'tf'")
    if importlib.util.find_spec(FRAMEWORKS[framework]) is None:
        extra = "torch" if framework == "torch" else "tf"
        raise RlkitError(f"{FRAMEWORKS[framework]} is not installed: pip install 'rlkit[{extra}]'")
    return framework


def train(
    algo: str,
    env: str = "CartPole-v1",
    framework: str = "torch",
    seed: int = 0,
    total_steps: int | None = None,
    logdir: str | Path | None = None,
    save: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
    **config,
) -> TrainResult:
    """Train ``algo`` on gymnasium environment ``env`` with ``framework`` ("torch" or "tf").

    ``total_steps`` defaults to the budget the algorithm needs to solve ``env``; ``config`` overrides
    hyperparameters by name (see the algorithm's config class, e.g. ``rlkit.algos.dqn.DQNConfig``).
    ``logdir`` receives TensorBoard event files, ``history.json`` and the returned agent; ``save`` writes
    the returned agent to a path of your choice.
    ``stop_when_solved`` ends training at the first evaluation that reaches the solve threshold.
    Returns a :class:`~rlkit.result.TrainResult` with ``.agent`` and ``.history``.
    """
    package = algorithm(algo)
    check_framework(framework)
    if not isinstance(seed, int) or seed < 0:
        raise RlkitError(f"seed must be a non-negative int, got {seed!r}")
    if total_steps is not None and (not isinstance(total_steps, int) or total_steps < 1):
        raise RlkitError(f"total_steps must be a positive int, got {total_steps!r}")
    try:
        settings = config_class(algo).for_env(env, **config)
    except TypeError as exc:
        raise RlkitError(str(exc)) from None
    if save is not None:
        _check_save_path(save, framework)
    result = package.train(
        env,
        framework=framework,
        seed=seed,
        total_steps=total_steps,
        config=settings,
        logdir=logdir,
        progress=progress,
        stop_when_solved=stop_when_solved,
    )
    if save is not None:
        result.agent.save(save)
    return result


def load(path: str | Path):
    """Rebuild a saved agent (any algorithm, either framework) from its checkpoint file."""
    meta = read_meta(path)
    try:
        package = algorithm(meta["algo"])
        agent_class = next(getattr(package, n) for n in package.__all__ if n.endswith("Agent"))
        check_framework(meta["framework"])
        return agent_class.from_checkpoint(path, meta)
    except RlkitError:
        raise
    except Exception as exc:
        raise CheckpointError(f"'{path}' could not be restored: {exc}") from None


def _check_save_path(path: str | Path, framework: str) -> None:
    from rlkit.checkpoints import checkpoint_framework

    if checkpoint_framework(path) != framework:
        wanted = ".pt" if framework == "torch" else ".keras or .weights.h5"
        raise RlkitError(f"a {framework} agent saves to {wanted}, not '{path}'")
