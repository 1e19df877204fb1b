"""Callbacks: code of your own that runs inside a training run, and can stop it.

A callback is an object with any of the methods of :class:`Callback`; each receives the run's
:class:`~rlkit.algos.training.Run` (the agent, the step, the history, a ``log`` method) and may return True
to stop training after the current step. Pass them as ``rlkit.train(..., callbacks=[...])``; they are called
in the order given, and the training loops never import a framework for them.

The everyday ones are built in: :class:`StopWhenSolved`, :class:`SaveCheckpoints` (every N steps, and the
best evaluation separately), :class:`LogScalars` (custom metrics into the history and TensorBoard), and
:class:`EvaluateEvery` (an extra evaluation, e.g. on a harder variant of the task).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rlkit.errors import RlkitError, is_count


class Callback:
    """Override the hooks you need; a hook that returns True stops training (None and False do not)."""

    def on_start(self, run) -> None:
        """Before the first environment step."""

    def on_step(self, run) -> bool | None:
        """After every vector-environment step and the updates it triggered (``run.step`` counts environment
        steps over all environments)."""

    def on_burst(self, run, metrics: dict[str, float]) -> bool | None:
        """After every update: a burst of gradient steps (replay) or one rollout's update (on-policy)."""

    def on_evaluation(self, run, mean_return: float) -> bool | None:
        """After every periodic greedy evaluation (``config.eval_every``), with its mean return."""

    def on_end(self, run) -> None:
        """After the last step (not called when training stops with an error)."""


class CallbackList:
    """The callbacks of one run, called in order; a stop request from any of them stops the run."""

    def __init__(self, callbacks: Sequence[Callback], run) -> None:
        callbacks = list(callbacks or [])
        hooks = ("on_start", "on_step", "on_burst", "on_evaluation", "on_end")
        for callback in callbacks:
            if not any(callable(getattr(callback, hook, None)) for hook in hooks):
                raise RlkitError(
                    f"callback {callback!r} has none of the hooks {', '.join(hooks)}: subclass rlkit.callbacks.Callback"
                )
        self.callbacks, self.run = callbacks, run
        # only the callbacks that override on_step are called every step
        self.stepwise = [c for c in callbacks if getattr(type(c), "on_step", Callback.on_step) is not Callback.on_step]

    def _call(self, hook: str, *args) -> bool:
        stop = False
        for callback in self.callbacks:
            method = getattr(callback, hook, None)
            if method is not None and method(self.run, *args):
                stop = True
        return stop

    def on_start(self) -> None:
        self._call("on_start")

    def on_step(self, step: int) -> bool:
        self.run.step = step
        stop = False
        for callback in self.stepwise:  # none in the common case: one attribute write per step
            if callback.on_step(self.run):
                stop = True
        return stop

    def on_burst(self, step: int, metrics: dict[str, float]) -> bool:
        self.run.step = step
        return self._call("on_burst", metrics)

    def on_evaluation(self, step: int, mean_return: float) -> bool:
        self.run.step = step
        return self._call("on_evaluation", mean_return)

    def on_end(self) -> None:
        self._call("on_end")


class StopWhenSolved(Callback):
    """Stop once ``times`` evaluations in a row reach ``threshold`` (default: the env's own).

    One evaluation of a few episodes can reach the threshold by luck, with a policy that dips right after
    (seen with SAC on Pendulum: -160 on the evaluation at step 2,000, -224 on ten new episodes, -382 at the
    next evaluation); ``times=2`` asks for the level to hold.
    """

    def __init__(self, threshold: float | None = None, times: int = 1) -> None:
        if not is_count(times):
            raise RlkitError(f"StopWhenSolved times must be a positive int (evaluations in a row), got {times!r}")
        self.threshold, self.times, self.in_a_row = threshold, times, 0

    def on_evaluation(self, run, mean_return: float) -> bool:
        threshold = run.threshold if self.threshold is None else self.threshold
        reached = threshold is not None and mean_return >= threshold
        self.in_a_row = self.in_a_row + 1 if reached else 0
        return self.in_a_row >= self.times


class StopAt(Callback):
    """Stop once ``step`` environment steps are done, with every schedule still that of the whole budget.

    ``total_steps`` sets the schedules too (epsilon decays over a fraction of it, learning rates anneal over
    it), so a run with a smaller ``total_steps`` is a different run, not the start of the long one. ``StopAt``
    gives the first part of the long one: what a chapter shows live beside the committed whole curve, or a
    first leg that ``SaveCheckpoints(..., resumable=True)`` and ``rlkit.train(resume=...)`` can continue.
    """

    def __init__(self, step: int) -> None:
        if not is_count(step):
            raise RlkitError(f"StopAt step must be a positive int (environment steps), got {step!r}")
        self.step = step

    def on_step(self, run) -> bool:
        return run.step >= self.step


class SaveCheckpoints(Callback):
    """Save the agent every ``every`` environment steps (at the first update at or after each multiple) as
    ``step_<N>.<ext>`` and, when ``best``, the agent of the best evaluation so far as ``best.<ext>`` (.pt for
    torch, .keras for TensorFlow) in ``directory``. ``keep`` (None: all) keeps only the last ``keep`` of the
    ``step_<N>`` checkpoints, deleting older ones with their run state. ``spread`` (with ``every=None``)
    sizes ``every`` at the start of the run so that the run's budget is spread over about that many
    checkpoints (``rlkit train --logdir``'s default: a handful, whatever the budget).

    The agent a run returns stays the last one; these files are where the others are kept. Every file is
    written atomically (a crash mid-save keeps the previous checkpoints whole).
    """

    def __init__(
        self,
        directory: str | Path,
        every: int | None = None,
        best: bool = True,
        resumable: bool = False,
        keep: int | None = None,
        spread: int | None = None,
    ) -> None:
        if every is not None and not is_count(every):
            raise RlkitError(f"SaveCheckpoints every must be a positive int or None, got {every!r}")
        if keep is not None and not is_count(keep):
            raise RlkitError(
                f"SaveCheckpoints keep must be a positive int (how many of the last checkpoints to keep) or None "
                f"(all), got {keep!r}"
            )
        self.directory, self.every, self.best, self.resumable = Path(directory), every, best, resumable
        if spread is not None and (every is not None or not is_count(spread)):
            raise RlkitError(
                f"SaveCheckpoints spread (how many checkpoints over the run) is a positive int that replaces every=, "
                f"got spread={spread!r} with every={every!r}"
            )
        self.keep, self.spread = keep, spread
        self.next_save, self.best_return, self.saved = every, float("-inf"), []

    def on_start(self, run) -> None:
        if self.spread is not None:
            self.every = max(1, run.total_steps // self.spread)
        if self.every is not None:  # a resumed run saves at the next multiple, not at its first update
            self.next_save = (run.step // self.every + 1) * self.every
        if self.keep is not None and not self.saved:  # a resumed run's own earlier checkpoints count towards keep
            self.saved = [path for _, path in sorted(self.earlier(run))]

    def earlier(self, run) -> list[tuple[int, Path]]:
        """The ``step_<N>`` checkpoints of this folder up to the run's step (those a resumed run went through)."""
        found, suffix = [], self.path(run, "step").suffix
        for path in self.directory.glob(f"step_*{suffix}"):
            number = path.name[len("step_") : -len(suffix)]
            if number.isdigit() and 0 < int(number) <= run.step:
                found.append((int(number), path))
        return found

    def path(self, run, name: str) -> Path:
        return self.directory / f"{name}{'.pt' if run.agent.framework == 'torch' else '.keras'}"

    def save_now(self, run, resumable: bool | None = None) -> Path:
        """Write ``step_<N>`` now (and drop the oldest beyond ``keep``); an interrupted run saves here
        resumable whatever ``self.resumable`` says."""
        from rlkit.checkpoints import previous_state_path, training_state_path

        resumable = self.resumable if resumable is None else resumable
        path = run.agent.save(self.path(run, f"step_{run.step}"), resumable=resumable)
        if path not in self.saved:  # saved twice at one step (an interruption right after a periodic save)
            self.saved.append(path)
        while self.keep is not None and len(self.saved) > self.keep:
            old = self.saved.pop(0)
            old.unlink(missing_ok=True)  # the weights first: without them the state is no checkpoint
            training_state_path(old).unlink(missing_ok=True)
            previous_state_path(old).unlink(missing_ok=True)  # left by a save killed between its renames
        return path

    def on_burst(self, run, metrics: dict[str, float]) -> None:
        # after an update, never in the middle of one (an on-policy rollout): a resumable state is whole here
        if self.every is not None and run.step >= self.next_save:
            while self.next_save <= run.step:
                self.next_save += self.every
            self.save_now(run)

    def on_evaluation(self, run, mean_return: float) -> None:
        if self.best and mean_return > self.best_return:
            self.best_return = mean_return
            run.agent.save(self.path(run, "best"))


class LogScalars(Callback):
    """Every ``every`` environment steps, log the scalars ``fn(run)`` returns (a dict of name -> number)."""

    def __init__(self, fn: Callable[..., dict[str, float]], every: int = 1_000) -> None:
        self.fn, self.every, self.next_log = fn, every, every

    def on_step(self, run) -> None:
        if run.step >= self.next_log:
            while self.next_log <= run.step:  # a continued run starts past several multiples
                self.next_log += self.every
            run.log(**self.fn(run))


class EvaluateEvery(Callback):
    """Every ``every`` environment steps, evaluate the greedy policy on ``env`` (default: the training env)
    for ``episodes`` episodes and log the mean return as ``name``."""

    def __init__(self, every: int, episodes: int = 10, env: str | None = None, name: str = "extra_eval_return"):
        self.every, self.episodes, self.env, self.name = every, episodes, env, name
        self.next_eval = every

    def on_step(self, run) -> None:
        if run.step >= self.next_eval:
            from rlkit.evaluate import play_episodes

            while self.next_eval <= run.step:  # a continued run starts past several multiples
                self.next_eval += self.every
            env = self.env or run.agent.training_env  # a custom env has no id to look up
            returns = play_episodes(run.agent, env, self.episodes, seed=2_000_000 + run.step)
            run.log(**{self.name: float(returns.mean())})
