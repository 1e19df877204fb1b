"""What every training loop does around its updates: periodic greedy evaluation, the best policy seen, the
first step that solved the environment, and the :class:`~rlkit.result.TrainResult` at the end."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rlkit.envs import env_name, solve_threshold
from rlkit.evaluate import evaluate
from rlkit.logger import Logger
from rlkit.result import TrainResult


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
    """Evaluates ``agent`` every ``config.eval_every`` environment steps and keeps the best snapshot."""

    def __init__(self, agent, seed: int, logger: Logger) -> None:
        self.agent, self.seed, self.logger, self.config = agent, seed, logger, agent.config
        self.threshold = solve_threshold(agent.training_env)
        self.next_step = self.config.eval_every
        self.best_return, self.best_snapshot = -np.inf, None
        self.solved_at_step = self.solved_at_time = None
        self.start = time.perf_counter()
        record_settings(logger, agent, seed)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def due(self, step: int) -> bool:
        return step >= self.next_step

    def run(self, step: int) -> bool:
        """Evaluate now; returns True when this evaluation is the first to reach the solve threshold."""
        self.next_step += self.config.eval_every
        eval_seed = 1_000_000 + 1_000 * self.seed + step  # new episodes each time, never the training ones
        returns = evaluate(self.agent, self.agent.training_env, self.config.eval_episodes, seed=eval_seed)
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
        agent = self.agent
        return TrainResult(
            agent=agent, history=history, config=self.config, algo=agent.algo, env_id=agent.env_id,
            framework=agent.framework, seed=self.seed, steps=steps, wall_time=self.elapsed(),
            solved_at_step=self.solved_at_step, solved_at_time=self.solved_at_time,
        )  # fmt: skip


def record_settings(logger: Logger, agent, seed: int) -> None:
    """Write the run's resolved settings where its results go: ``config.yaml`` in the logdir (readable back by
    ``rlkit train --config``) and a table in TensorBoard's Text tab, at the start, so a crashed run has them."""
    if logger.logdir is None:
        return
    from rlkit.hyperparams import dump_yaml, markdown_table

    run = {"algo": agent.algo, "env": agent.env_id, "framework": agent.framework, "seed": seed}
    settings = {**run, "total_steps": logger.total_steps, **agent.config.to_dict()}
    logger.logdir.mkdir(parents=True, exist_ok=True)
    (logger.logdir / "config.yaml").write_text(dump_yaml(settings), encoding="utf-8")
    logger.text("config", markdown_table(settings))


def entry_point(
    train_agent: Callable[..., TrainResult],
    agent_class: type,
    default_total_steps: dict[str, int],
    fallback_total_steps: int,
) -> Callable[..., TrainResult]:
    """The ``train`` function of an algorithm package: ``train_agent`` (its family's loop) for ``agent_class``,
    with the step budget of each environment and the config from ``agent_class.config_class.for_env``.
    ``options`` (callbacks, and for the replay loop buffer_class) go to the loop as they are."""

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
