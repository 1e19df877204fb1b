"""What every training loop does around its updates: periodic greedy evaluation, the best policy seen, the
first step that solved the environment, the :class:`~rlkit.result.TrainResult` at the end; and what makes a
loop resumable: :class:`Loop` (its state) and :func:`drive` (running it up to a step, with callbacks)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from rlkit.checkpoints import run_path
from rlkit.envs import EnvRunner, env_name, solve_threshold, vector_env_state
from rlkit.evaluate import play_episodes
from rlkit.logger import History, Logger
from rlkit.result import TrainResult
from rlkit.seeding import eval_seed
from rlkit.state import object_state, restore_object


class Run:
    """What a callback sees of a training run: the agent, the step, the history, and a way to log."""

    def __init__(self, agent, logger: Logger, evaluations: Evaluations, total_steps: int) -> None:
        self.agent, self.logger, self.evaluations, self.total_steps = agent, logger, evaluations, total_steps
        self.step = 0

    @property
    def config(self):
        return self.agent.config

    @property
    def history(self):
        return self.logger.history

    @property
    def threshold(self) -> float | None:
        """The environment's solve threshold (None when it has none)."""
        return self.evaluations.threshold

    def log(self, **scalars: float) -> None:
        """Record custom scalars at the current step (history and TensorBoard)."""
        self.logger.log(self.step, **scalars)


class Evaluations:
    """Evaluates ``agent`` every ``config.eval_every`` environment steps and keeps the best snapshot.

    It outlives one call of :func:`drive`: a continued run goes on with the same schedule, best return and
    first solving step; the logger is the one of the current call (``bind``).
    """

    def __init__(self, agent, seed: int) -> None:
        self.agent, self.seed, self.config = agent, seed, agent.config
        self.logger: Logger | None = None
        self.threshold = solve_threshold(agent.training_env)
        self.next_step = self.config.eval_every
        self.best_return, self.best_snapshot = -np.inf, None
        self.solved_at_step = self.solved_at_time = None
        self.elapsed_before, self.start = 0.0, time.perf_counter()

    def bind(self, logger: Logger) -> None:
        self.logger = logger

    def elapsed(self) -> float:
        """Seconds of training, over every call that continued this run."""
        return self.elapsed_before + time.perf_counter() - self.start

    def due(self, step: int) -> bool:
        return step >= self.next_step

    def run(self, step: int) -> bool:
        """Evaluate now; returns True when this evaluation is the first to reach the solve threshold."""
        while self.next_step <= step:  # the next multiple of eval_every (an extra evaluation at a run's end
            self.next_step += self.config.eval_every  # must not push the schedule of a continued run)
        seed = eval_seed(self.seed, step)
        returns = play_episodes(self.agent, self.agent.training_env, self.config.eval_episodes, seed=seed)
        mean_return = float(returns.mean())
        self.logger.log(step, eval_return=mean_return)
        if mean_return > self.best_return:
            self.best_return, self.best_snapshot = mean_return, self.agent.snapshot()
        if self.threshold is not None and mean_return >= self.threshold and self.solved_at_step is None:
            self.solved_at_step, self.solved_at_time = step, self.elapsed()
            return True
        return False

    def end_of_step(self, step: int, last: bool, stop_when_solved: bool, hooks=None) -> bool:
        """Evaluate when due (and after the last step), tell the callbacks, advance the progress bar; True
        means stop now (solved with ``stop_when_solved``, or a callback asked to)."""
        stop = False
        if last:
            self.agent.end_training()
        if self.due(step) or last:
            solved_now = self.run(step)
            stop = solved_now and stop_when_solved
            if hooks is not None:
                stop = hooks.on_evaluation(step, self.logger.history.last("eval_return")) or stop
        if not stop:
            self.logger.advance(step)
        return stop

    def finish(self, steps: int, logdir: str | Path | None) -> TrainResult:
        """Restore the best policy (when ``keep_best`` and it beat the last one), save the run, build the result."""
        history = self.logger.history
        if self.config.keep_best and self.best_snapshot is not None and self.best_return > history.last("eval_return"):
            self.agent.restore(self.best_snapshot)
        if logdir is not None:
            self.agent.save_run(logdir, history)
        return self.result(steps)

    def result(self, steps: int) -> TrainResult:
        """The :class:`TrainResult` of the run as it stands (the agent as it is, not the best one)."""
        agent, history = self.agent, self.logger.history
        return TrainResult(
            agent=agent, history=history, config=self.config, algo=agent.algo, env_id=agent.env_id,
            framework=agent.framework, seed=self.seed, steps=steps, wall_time=self.elapsed(),
            solved_at_step=self.solved_at_step, solved_at_time=self.solved_at_time,
        )  # fmt: skip

    def state(self) -> dict:
        saved = object_state(self, skip=("start", "config"))
        saved["elapsed_before"] = {"value": self.elapsed(), "tuple": False}
        saved["best_snapshot"] = {"value": self.best_snapshot, "tuple": False}
        return saved

    def load_state(self, state: dict) -> None:
        restore_object(self, state)
        self.start = time.perf_counter()


class Loop:
    """What the two training loops share, as an object that can go on: the agent and its environments, the
    run's generator, the step count, the plan the schedules are spread over, the history and evaluations.

    A family's loop (:class:`~rlkit.algos.replay.ReplayLoop`, the on-policy one) adds its own parts and
    implements ``advance`` (one step of its kind), ``begin`` (schedules for the plan) and ``state`` /
    ``load_state``. Building a loop makes the agent able to continue: ``agent.learn(steps)``.
    """

    #: What a resumed run needs of the loop itself (a family's loop adds its own): the step count, the plan
    #: the schedules are spread over, the run's generator.
    STATE: tuple[str, ...] = ("step", "plan", "rng")

    def __init__(self, agent, envs, seed: int, rng: np.random.Generator, plan: int) -> None:
        self.agent, self.envs, self.seed, self.rng, self.plan = agent, envs, seed, rng, plan
        self.runner = EnvRunner(envs, seed=seed)
        self.step = 0
        self.history = History()
        self.evaluations = Evaluations(agent, seed)
        self.logger: Logger | None = None
        agent.loop = self

    def begin(self) -> None:
        """Build what depends on the plan (schedules); called again when a continued run extends it. Here: the
        learning rate per environment step, the config's ``learning_rate_schedule(plan)`` (None: constant)."""
        self.learning_rate = self.agent.config.learning_rate_schedule(self.plan)

    def set_learning_rate(self, step: int) -> None:
        """Give the learner the scheduled learning rate of environment step ``step``, before an update; every
        family anneals this way (PPO and A2C to 0 with ``anneal_lr``, DQN to ``final_lr_fraction``)."""
        if self.learning_rate is not None:
            self.agent.learner.set_learning_rate(self.learning_rate(step))

    def advance(self, hooks) -> bool:
        raise NotImplementedError

    def target(self, steps: int) -> int:
        """The step a call that asks for ``steps`` environment steps from now ends at."""
        return self.step + steps

    def extend(self, until: int) -> None:
        """Continuing past the plan spreads the schedules over the new end (annealing would otherwise stop at
        zero learning rate); within the plan nothing changes, so a resumed run follows the uninterrupted one."""
        if until > self.plan:
            self.plan = until
            self.begin()

    def steps_per_second(self) -> float:
        return self.step / max(self.evaluations.elapsed(), 1e-9)

    def common_state(self) -> dict:
        """The state every loop has: counters and generators, environments, learner, agent, evaluations."""
        return {
            "loop": object_state(self, names=self.STATE),
            "seed": self.seed,
            "runner": self.runner.state_dict(),
            "envs": vector_env_state(self.envs),
            "learner": self.agent.learner.state_dict(),
            "agent": self.agent.loop_state(),
            "evaluations": self.evaluations.state(),
            "history": self.history.to_dict(),
        }

    def load_common_state(self, state: dict) -> None:
        restore_object(self, state["loop"])
        self.runner.restore(state["runner"], state["envs"])
        self.agent.learner.load_state_dict(state["learner"])
        self.agent.refresh()
        self.agent.load_loop_state(state["agent"])
        self.evaluations.load_state(state["evaluations"])
        self.history = History(state["history"])


def drive(loop: Loop, until: int, logdir, progress: bool, stop_when_solved: bool, callbacks=()) -> TrainResult:
    """Run ``loop`` up to environment step ``until`` (or until solved / a callback stops it).

    SIGINT or SIGTERM (:mod:`rlkit.interrupts`) ends the run after its current step: it is saved resumable
    where it has an output (the logdir's agent, else a :class:`~rlkit.callbacks.SaveCheckpoints` folder) and
    :class:`~rlkit.errors.TrainingInterrupted` is raised with the checkpoint and the partial result. The guard
    stays armed through the final save of a run that reached its end: a signal arriving then waits until the
    logdir's files are whole, and the run ends as TrainingInterrupted with ``finished`` set (it is complete).
    """
    from rlkit.budget import watch as large_budget
    from rlkit.callbacks import CallbackList
    from rlkit.disk_space import check_free_space
    from rlkit.interrupts import InterruptGuard, interrupted

    agent = loop.agent
    loop.extend(until)
    check_free_space(loop, logdir, callbacks or (), until)  # before the first step, not at a save hours in
    budget = large_budget(loop, until)  # None unless beyond 1e9 steps
    description = f"{agent.algo} {agent.framework} {agent.env_id}"
    with InterruptGuard() as guard:
        logger = Logger(until, logdir, progress, description, history=loop.history, initial_step=loop.step)
        loop.logger = logger
        loop.evaluations.bind(logger)
        hooks = CallbackList(callbacks, Run(agent, logger, loop.evaluations, until))
        hooks.run.step = loop.step  # a continued run starts where it stopped
        try:
            record_settings(logger, agent, loop.seed)
            hooks.on_start()
            stopped = False
            if loop.step > 0 and loop.evaluations.due(loop.step):  # a checkpoint saved before this step's evaluation
                stopped = loop.evaluations.end_of_step(loop.step, False, stop_when_solved, hooks)
            while loop.step < until and not stopped and guard.signal is None:
                stop = loop.advance(hooks)
                if budget is not None and loop.step >= budget.at:
                    budget.warn(loop)
                    budget = None  # once
                if guard.signal is not None:  # the step is whole; its evaluation waits for the resumed run
                    break
                if loop.evaluations.end_of_step(loop.step, loop.step >= until, stop_when_solved, hooks) or stop:
                    break
            if guard.signal is None:
                hooks.on_end()
        finally:
            logger.close()
        if guard.signal is None:  # the final save, the guard still armed: a signal now waits for whole files
            result = loop.evaluations.finish(loop.step, logdir)
            if guard.signal is None:
                return result
            checkpoint = None if logdir is None else run_path(agent, logdir)
            raise interrupted(guard.signal, checkpoint, result, logdir, finished=True) from None
    # the handlers are the previous ones again: a second Ctrl-C aborts the save
    hooks.run.step = loop.step
    checkpoint = save_interrupted(loop, logdir, hooks)
    raise interrupted(guard.signal, checkpoint, loop.evaluations.result(loop.step), logdir) from None


def save_interrupted(loop: Loop, logdir, hooks) -> Path | None:
    """Save an interrupted run resumable where it has an output: the logdir (its agent and history, as a
    finished run), else the first :class:`~rlkit.callbacks.SaveCheckpoints` folder; None when it has neither."""
    from rlkit.callbacks import SaveCheckpoints

    if logdir is not None:
        return loop.agent.save_run(logdir, loop.history)
    for callback in hooks.callbacks:
        if isinstance(callback, SaveCheckpoints):
            return callback.save_now(hooks.run, resumable=True)
    return None


def record_settings(logger: Logger, agent, seed: int) -> None:
    """Write the run's resolved settings where its results go: ``config.yaml`` in the logdir (readable back by
    ``rlkit train --config``) and a table in TensorBoard's Text tab, at the start, so a crashed run has them."""
    if logger.logdir is None:
        return
    from rlkit.hyperparams import dump_yaml, markdown_table

    run = {"algo": agent.algo, "env": agent.env_id, "framework": agent.framework, "seed": seed}
    settings = {**run, "total_steps": logger.total_steps, **agent.config.to_dict()}
    from rlkit.atomic import write_text

    write_text(logger.logdir / "config.yaml", dump_yaml(settings))
    logger.text("config", markdown_table(settings))


def train_agent(
    agent_class: type,
    env_id,
    framework: str,
    seed: int,
    total_steps: int,
    config,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
    callbacks=(),
    device: str = "cpu",
    loop_class=None,
    **loop_options,
) -> TrainResult:
    """Train a fresh ``agent_class`` agent in ``loop_class`` (default: its family's loop,
    ``agent_class.loop_class``; ``rlkit.train(workers=...)`` passes the rollout loop that collects on Ray
    actors); see :func:`rlkit.train`. ``device`` is where the torch learner's networks live; ``loop_options``
    go to the loop (the replay loop's ``buffer_class`` and ``exploration``). ``seed`` is shifted by
    ``RLKIT_SEED_OFFSET`` here, once: the run, its environments and its evaluations all derive from the shifted
    seed."""
    from rlkit.seeding import seed_all, shifted

    seed = shifted(seed)
    rng = seed_all(seed)
    agent, envs = agent_class.make(env_id, framework, config, seed, device=device)
    loop = (loop_class or agent_class.loop_class)(agent, envs, seed, rng, total_steps, **loop_options)
    return drive(loop, loop.plan, logdir, progress, stop_when_solved, callbacks)


def entry_point(agent_class: type, default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of an algorithm package: :func:`train_agent` for ``agent_class``, with the step
    budget of each environment and the config from ``agent_class.config_class.for_env``. ``options``
    (callbacks, and for the replay loop buffer_class and exploration) go to the loop as they are."""

    def train(
        env_id: str,
        framework: str = "torch",
        seed: int = 0,
        total_steps: int | None = None,
        config=None,
        logdir: str | Path | None = None,
        progress: bool = True,
        stop_when_solved: bool = False,
        **options,
    ) -> TrainResult:
        steps = total_steps or default_total_steps.get(env_name(env_id), fallback_total_steps)
        config = config or agent_class.config_class.for_env(env_name(env_id))
        return train_agent(
            agent_class, env_id, framework, seed, steps, config, logdir, progress, stop_when_solved, **options
        )

    train.__doc__ = f"Train {agent_class.algo.upper()} on ``env_id``; see :func:`rlkit.train`."
    return train
