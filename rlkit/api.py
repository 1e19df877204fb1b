"""The public way to train, evaluate and load agents: ``rlkit.train``, ``rlkit.evaluate``, ``rlkit.load``.

Every algorithm plugs in through the registry (:mod:`rlkit.registry`); the framework is imported only when
an algorithm asks for it, so ``import rlkit`` stays light.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Sequence
from pathlib import Path

from rlkit.callbacks import Callback
from rlkit.checkpoints import check_layout, read_meta
from rlkit.envs import env_name, env_source, is_registered
from rlkit.errors import CheckpointError, RlkitError, did_you_mean, is_count
from rlkit.hardware import check_device
from rlkit.registry import Algorithm, algorithm, replay_algorithms
from rlkit.result import TrainResult
from rlkit.run_lock import locked

FRAMEWORKS = {"torch": "torch", "tf": "tensorflow"}


def check_framework(framework: str) -> str:
    """Validate ``framework`` and that it is installed, without importing it."""
    if framework not in FRAMEWORKS:
        raise RlkitError(f"unknown framework {framework!r}; choose 'torch' or 'tf'")
    if importlib.util.find_spec(FRAMEWORKS[framework]) is None:
        extra = "torch" if framework == "torch" else "tf"
        raise RlkitError(f"{FRAMEWORKS[framework]} is not installed: pip install 'rlkit-course[{extra}]'")
    return framework


#: The environment ``rlkit.train`` uses when none is named.
DEFAULT_ENV = "CartPole-v1"


def train(
    algo: str,
    env: str | None = None,
    framework: str | None = None,
    seed: int | None = None,
    total_steps: int | None = None,
    logdir: str | Path | None = None,
    save: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
    callbacks: Sequence[Callback] = (),
    buffer_class: type | None = None,
    exploration=None,
    env_kwargs: dict | None = None,
    wrappers: Sequence = (),
    resume: str | Path | None = None,
    device: str = "cpu",
    workers: int | None = None,
    ray_address: str | None = None,
    overwrite: bool = False,
    **config,
) -> TrainResult:
    """Train ``algo`` on the environment ``env`` (default CartPole-v1) with ``framework`` ("torch", the default,
    or "tf") from ``seed`` (default 0).

    ``env`` is a registered gymnasium id, a ``gymnasium.Env`` instance, or a callable returning one;
    ``env_kwargs`` go to ``gymnasium.make`` (or the callable) and ``wrappers`` (callables env -> env, such as
    gymnasium's wrapper classes) wrap every copy. Custom environments pass gymnasium's env checker first.

    ``total_steps`` defaults to the budget the algorithm needs to solve ``env``; ``config`` overrides
    hyperparameters by name (see the algorithm's config class, e.g. ``rlkit.algos.dqn.DQNConfig``).
    ``logdir`` receives TensorBoard event files, ``history.json`` and the returned agent; ``save`` writes
    the returned agent to a path of your choice.
    ``stop_when_solved`` ends training at the first evaluation that reaches the solve threshold.
    ``callbacks`` run inside the loop (see :mod:`rlkit.callbacks`); ``buffer_class`` replaces the replay
    buffer of a replay-based algorithm (DQN, Rainbow, DDPG, TD3, SAC) by a class with the same methods;
    ``exploration`` replaces its exploration (what it does and stores at each step) by an object of
    :mod:`rlkit.exploration` or one with the same methods (default: the algorithm's own, built from its config;
    a string, ``"gaussian"`` or ``"ou"``, is DDPG's and TD3's config field of that name).
    ``resume`` continues the run saved resumable at that checkpoint (``agent.save(path, resumable=True)``, or
    ``SaveCheckpoints(..., resumable=True)``) up to ``total_steps`` in all (default: the run's own total),
    exactly as if it had not stopped (an environment whose physics lives in C, Box2D's, MuJoCo's or the ALE's,
    too: the run records each episode in progress and plays it again on resuming); its algorithm, framework,
    environment, seed and hyperparameters are the checkpoint's: any of them passed with ``resume`` must equal
    the checkpoint's (a different one is refused, naming both). What a resumed run may change:
    ``total_steps``, ``callbacks``, ``logdir``, ``save``, ``progress``, ``stop_when_solved`` (and
    ``buffer_class``, ``env_kwargs``, ``wrappers``; ``exploration`` only for one of the class the run explored
    with, which takes its state over).
    ``device`` is where the learner trains, in either framework: "cpu" (default, the CPU even where a GPU is
    seen), "cuda", "cuda:N", "mps" or "auto" (the first GPU the framework sees, else the CPU); a GPU the
    framework cannot see is refused by name. Acting stays in numpy on the CPU. A resumed run goes on on the
    device named now, whichever one it was saved from (checkpoints hold CPU arrays).
    ``workers`` (PPO and A2C) collects each rollout on that many Ray actors, the ``num_envs`` environments
    split between them, with the same data as in one process (see :mod:`rlkit.distributed.rollouts`);
    ``ray_address`` joins an existing Ray cluster instead of starting one here (needs ``rlkit-course[ray]``); the
    workers stay up so that ``result.agent.learn`` can go on, and ``result.agent.close()`` ends them.
    Returns a :class:`~rlkit.result.TrainResult` with ``.agent`` (the last one) and ``.history``.
    Ctrl-C (SIGINT) or SIGTERM ends the run after its current step, saved resumable in its output (the logdir's
    agent, a ``SaveCheckpoints`` folder, or ``save``), and raises :class:`~rlkit.errors.TrainingInterrupted`
    with ``.checkpoint`` and the partial ``.result``; a second Ctrl-C aborts at once.
    A ``logdir`` holds one live run (``rlkit.lock``, see :mod:`rlkit.run_lock`): a second run there is refused
    naming the first one's pid, and a logdir that already holds a run is refused unless ``resume`` continues a
    checkpoint of it or ``overwrite=True`` (which removes the old run's files first).
    """
    entry = algorithm(algo)
    if isinstance(exploration, str):  # DDPG's and TD3's config field "exploration" ("gaussian" or "ou")
        config, exploration = {**config, "exploration": exploration}, None
    if exploration is not None:
        _check_exploration(algo, entry, exploration)
    if resume is not None and (workers is not None or ray_address is not None):
        raise RlkitError("a resumed run continues in one process: workers= and ray_address= apply to a new run")
    if resume is not None:
        given = env_kwargs or wrappers or not (env is None or isinstance(env, str))
        source = env_source(env or DEFAULT_ENV, env_kwargs, wrappers) if given else None  # default: the checkpoint's
        if source is None and env is not None:
            source = env  # an id: checked against the checkpoint's
        run = {"framework": framework, "seed_given": seed, "config": config}
        if buffer_class is not None and not entry.replay:
            raise _no_replay_buffer(algo)
        from rlkit.checkpoints import checkpoint_framework

        check_outputs(save, logdir, checkpoint_framework(resume))  # before the resumed steps, not after them
        options = {"callbacks": callbacks, "buffer_class": buffer_class, "exploration": exploration}
        options.update(env=source, run=run, device=device)
        with locked(logdir, resume, overwrite), _keep_interrupted(save):
            result = _resume(algo, resume, total_steps, logdir, progress, stop_when_solved, **options)
        if save is not None:
            result.agent.save(save)
        return result
    env = DEFAULT_ENV if env is None else env
    framework = "torch" if framework is None else framework
    seed = 0 if seed is None else seed
    check_framework(framework)
    check_device(device)
    if not is_count(seed, minimum=0):
        raise RlkitError(f"seed must be a non-negative int, got {seed!r}")
    if total_steps is not None and not is_count(total_steps):
        raise RlkitError(f"total_steps must be a positive int, got {total_steps!r}")
    if not isinstance(env, str) or env_kwargs or wrappers:
        env = env_source(env, env_kwargs, wrappers)
    _check_budget_names(entry, config)
    try:
        settings = entry.config_class.for_env(env_name(env), **config)
    except TypeError as exc:
        raise RlkitError(str(exc)) from None
    check_outputs(save, logdir, framework)
    options = {"callbacks": callbacks, "device": device}
    if workers is not None or ray_address is not None:
        options.update(_distributed(algo, entry, workers, ray_address))
    if buffer_class is not None:
        if not callable(buffer_class):
            raise RlkitError(
                f"buffer_class must be a class (or callable) with ReplayBuffer's arguments, got {buffer_class!r}"
            )
        if not entry.replay:
            raise _no_replay_buffer(algo)
        options["buffer_class"] = buffer_class
    if exploration is not None:
        options["exploration"] = exploration
    from rlkit.algos.training import train_agent

    steps = total_steps or entry.budget(env_name(env))
    with locked(logdir, overwrite=overwrite), _keep_interrupted(save):
        result = train_agent(
            entry.agent_class, env, framework, seed, steps, settings, logdir, progress, stop_when_solved, **options
        )
    if save is not None:
        result.agent.save(save)
    return result


@contextlib.contextmanager
def _keep_interrupted(save):
    """An interrupted run with no other output is saved, resumable, to ``save`` (what its end would have
    written there), and the exception says so."""
    from rlkit.errors import TrainingInterrupted
    from rlkit.interrupts import interrupted

    try:
        yield
    except TrainingInterrupted as exc:
        if exc.checkpoint is not None or save is None:
            raise
        exc.result.agent.save(save, resumable=True)
        raise interrupted(exc.signal, Path(save), exc.result, finished=exc.finished) from None


def load(path: str | Path, device: str = "cpu"):
    """Rebuild a saved agent (any algorithm, either framework) from its checkpoint file, its learner on
    ``device`` (as :func:`train`'s: "cpu", "cuda", "cuda:N", "mps", "auto"), whichever device saved it."""
    meta = read_meta(path)
    check_layout(meta, path)
    try:
        agent_class = algorithm(meta["algo"]).agent_class
        check_framework(meta["framework"])
        check_device(device)
        return agent_class.from_checkpoint(path, meta, device=device)
    except RlkitError:
        raise
    except Exception as exc:
        raise CheckpointError(f"'{path}' could not be restored: {exc}") from None


def _resume(
    algo, path, total_steps, logdir, progress, stop_when_solved, callbacks, buffer_class, exploration, env, run, device
):
    """Rebuild the agent and its run from a resumable checkpoint, check what was passed with it against the
    checkpoint (``run``: framework, seed, hyperparameters; ``env``), and drive it on."""
    from rlkit.algos.training import drive
    from rlkit.checkpoints import check_state_layout, training_state_path

    agent = load(path, device)
    if agent.algo != algo.lower():
        raise RlkitError(f"'{path}' holds a {agent.algo} agent, not {algo}")
    state_path = training_state_path(path)
    if not state_path.is_file():
        raise CheckpointError(
            f"'{path}' has no training state beside it ({state_path.name}): save with agent.save(path, "
            "resumable=True) or SaveCheckpoints(..., resumable=True) to continue a run"
        )
    meta = read_meta(path)
    check_state_layout(meta, path)
    state = _matching_state(path, state_path, meta)
    check_resumed_run(path, agent, int(state["seed"]), env, **run)
    if env is not None and not isinstance(env, str):
        agent.trained_on(env)
    elif not is_registered(agent.env_id):
        raise RlkitError(f"'{path}' was trained on a custom environment, {agent.env_id}: pass env= to resume it")
    plan = int(state["loop"]["plan"]["value"])
    options = {"buffer_class": buffer_class, "exploration": exploration} if algorithm(algo).replay else {}
    loop = agent.new_loop(int(state["seed"]), plan, **options)
    loop.load_state(state)
    until = plan if total_steps is None else total_steps
    if until <= loop.step:
        raise RlkitError(f"the run in '{path}' is already at step {loop.step}: ask for total_steps > {loop.step}")
    return drive(loop, until, logdir, progress, stop_when_solved, callbacks)


def check_resumed_run(path, agent, seed: int, env, framework, seed_given, config: dict) -> None:
    """Refuse what was passed with ``resume=`` that contradicts the checkpoint, naming both values: a run
    resumes as it was, and an argument it would silently ignore (a seed, another framework) misleads."""
    from rlkit.seeding import shifted

    def refuse(name: str, given, saved) -> None:
        raise RlkitError(
            f"a resumed run keeps its checkpoint's {name}; got {name}={given!r}, and '{path}' was trained with "
            f"{name}={saved!r}: drop {name}= to resume it, or start a new run (without resume=) to change it"
        )

    if framework is not None and framework != agent.framework:
        refuse("framework", framework, agent.framework)
    if seed_given is not None and shifted(seed_given) != seed:
        refuse("seed", seed_given, seed)
    if isinstance(env, str) and env_name(env) != agent.env_id:
        refuse("env", env, agent.env_id)
    for name, value in config.items():
        if not hasattr(agent.config, name):
            raise RlkitError(f"{agent.algo} has no hyperparameter {name!r}.{did_you_mean(name, vars(agent.config))}")
        saved = getattr(agent.config, name)
        if not _same(value, saved):
            raise RlkitError(
                f"a resumed run keeps its checkpoint's hyperparameters; got {name}={value!r}, and '{path}' was "
                f"trained with {name}={saved!r}: drop {name}= to resume it, or start a new run to change it"
            )


def _same(given, saved) -> bool:
    """Equal as hyperparameters: a list and a tuple of the same widths are one ``hidden_sizes``."""
    if isinstance(given, list | tuple) and isinstance(saved, list | tuple):
        return list(given) == list(saved)
    return given == saved


def _matching_state(path, state_path: Path, meta: dict) -> dict:
    """The run state saved with the weights in ``path``: the one beside them, or, after a save killed between
    its two renames (``Agent.save``), the previous save's, kept under a hidden name until the new weights are in
    place; refused when neither is."""
    from rlkit.checkpoints import previous_state_path
    from rlkit.state import load_state

    state = load_state(state_path)
    previous = previous_state_path(path)
    if meta.get("state_id") != state.get("state_id") and previous.is_file():
        kept = load_state(previous)
        if kept.get("state_id") == meta.get("state_id"):
            return kept
    _check_same_save(path, state_path, meta, state)
    return state


def _check_same_save(path, state_path: Path, meta: dict, state: dict) -> None:
    """Refuse a run state written by another save than the weights beside it (see ``Agent.save``): a crash
    between the two renames, or a state file copied or left next to other weights. Checkpoints written before
    rlkit recorded ``state_id`` have it in neither file and pass."""
    if meta.get("state_id") != state.get("state_id"):
        raise CheckpointError(
            f"'{state_path}' is the run state of another save than the weights in '{path}' (state ids "
            f"{state.get('state_id')!r} and {meta.get('state_id')!r}): the save that wrote them was interrupted, or "
            "the files were mixed; resume from an earlier checkpoint, or load the weights alone with rlkit.load"
        )


#: Names other libraries give the step budget (SB3's ``learn(total_timesteps)``, RL-Zoo's ``n_timesteps``).
BUDGET_NAMES = ("steps", "timesteps", "total_timesteps", "n_timesteps", "num_steps_total")


def _check_budget_names(entry: Algorithm, config: dict) -> None:
    """A budget under another library's name is not a hyperparameter: say that rlkit calls it ``total_steps``
    (the close-spelling hint would offer a hyperparameter, e.g. ``n_step`` for ``steps``)."""
    from dataclasses import fields

    hyperparameters = {f.name for f in fields(entry.config_class)}
    for name in config:
        if name in BUDGET_NAMES and name not in hyperparameters:
            raise RlkitError(
                f"rlkit.train has no argument {name}=: the number of environment steps to train is "
                f"total_steps={config[name]!r} (--steps on the command line)"
            )


def _distributed(algo: str, entry: Algorithm, workers, ray_address) -> dict:
    """The loop of a run on Ray workers (the rollout loop, collecting on actors), checked here so that a
    wrong option fails before any work."""
    from rlkit.distributed import require_ray

    if entry.loop != "rollout":
        raise RlkitError(f"workers= runs the on-policy loop (ppo, a2c) on Ray actors; {algo} learns from replay")
    workers = 1 if workers is None else workers
    if not is_count(workers):
        raise RlkitError(f"workers must be a positive int, got {workers!r}")
    if ray_address is not None and not isinstance(ray_address, str):
        raise RlkitError(f"ray_address must be a string such as 'auto' or '10.0.0.5:6379', got {ray_address!r}")
    require_ray("workers=")
    from rlkit.distributed.rollouts import RayRolloutLoop

    return {"loop_class": functools.partial(RayRolloutLoop, workers=workers, ray_address=ray_address)}


def _check_exploration(algo: str, entry: Algorithm, exploration) -> None:
    """An exploration object applies to the replay loop only (an on-policy policy explores by sampling itself)."""
    if not entry.replay:
        raise RlkitError(
            f"{algo} is on-policy: it explores by sampling its own policy, and exploration= applies to the "
            f"replay algorithms ({replay_algorithms()})"
        )
    from rlkit.exploration import check_exploration

    check_exploration(exploration)


def _no_replay_buffer(algo: str) -> RlkitError:
    return RlkitError(f"{algo} is on-policy and keeps no replay buffer: buffer_class applies to {replay_algorithms()}")


def check_outputs(save: str | Path | None, logdir: str | Path | None, framework: str) -> None:
    """Check where a run will write before it takes its first step: ``save``'s suffix against the framework,
    and that the folders of ``save`` and ``logdir`` can be created and written (a run that fails to save after
    hours of training has lost them)."""
    if save is not None:
        _check_save_path(save, framework)
        writable_folder(Path(save).parent, "save")
    if logdir is not None:
        writable_folder(logdir, "logdir")


def _check_save_path(path: str | Path, framework: str) -> None:
    from rlkit.checkpoints import checkpoint_framework

    if checkpoint_framework(path) != framework:
        wanted = ".pt" if framework == "torch" else ".keras or .weights.h5"
        raise RlkitError(f"a {framework} agent saves to {wanted}, not '{path}'")


def writable_folder(folder: str | Path, what: str) -> Path:
    """Create ``folder`` if needed and write a probe file in it (permission bits alone say nothing for root,
    or on a read-only mount); raises an :class:`RlkitError` naming the folder when either fails."""
    import tempfile

    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".rlkit-probe-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise RlkitError(
            f"the {what} folder '{folder}' cannot be created or written ({reason}), checked before training: choose "
            f"a folder you can write to, or fix its permissions"
        ) from None
    return folder
