"""The replay loop: DQN, Rainbow, DDPG, TD3 and SAC all train here, in numpy, for both frameworks.

collect -> fold into n-step transitions -> store -> every ``train_every`` steps a burst of updates ->
evaluate. What differs between the algorithms is not written here but asked of the agent, through a few
documented methods of :class:`ReplayAgent` (the extension points):

===========================  ==========================================================================
``begin_training``           build schedules and noise processes (DQN's epsilon, DDPG's OU process)
``exploration_actions``      what to do and store at a step: epsilon-greedy, a random warm-up, noise
``to_env`` / ``end_episodes``  the stored action in the environment's units; episode ends (OU resets)
``burst_noise_shape``        standard-normal draws a burst needs (noisy nets, TD3 smoothing, SAC samples)
``learn``                    hand one burst to the learner (DQN also anneals its learning rate here)
``after_burst``              extra metrics after a burst (DQN: health signals, optimizer resets)
===========================  ==========================================================================

and of two parameters: the buffer class (``buffer_class``; uniform or prioritized by default, anything with
the same methods otherwise) and the callbacks. Every random number comes from the run's generator ``rng``
(actions, exploration noise, the burst's noise) or from the buffer's own seeded generator (sampling), so a
seed fixes a run in either framework.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlkit.algos import training
from rlkit.algos.agent_base import Agent
from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.callbacks import Callback, CallbackList
from rlkit.envs import EnvRunner
from rlkit.logger import Logger
from rlkit.nstep import NStepFolder
from rlkit.numerics import check_finite_metrics, check_finite_weights, check_new_transitions
from rlkit.result import TrainResult
from rlkit.schedules import LinearSchedule
from rlkit.seeding import seed_everything


class ReplayAgent(Agent):
    """Base of the agents :func:`train_agent` trains; subclasses fill in the extension points below."""

    #: Shape and dtype of one stored action: () int64 for discrete actions, (action_dim,) float32 otherwise.
    action_shape: tuple[int, ...] = ()
    action_dtype: type = np.int64

    @classmethod
    def make(cls, env_id: str, framework: str, config, seed: int = 0):
        """A fresh agent for ``env_id`` and the vector environment it trains on (checks the action space)."""
        raise NotImplementedError

    def begin_training(self, total_steps: int, num_envs: int, rng: np.random.Generator) -> None:
        """Called once before the first step: build schedules and exploration noise."""

    def exploration_actions(self, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        """The actions to take in (and store for) a batch of observations at environment step ``step``."""
        raise NotImplementedError

    def to_env(self, actions: np.ndarray) -> np.ndarray:
        """Stored actions in the environment's own units (identity for discrete actions)."""
        return actions

    def end_episodes(self, done: np.ndarray) -> None:
        """Environments whose episode just ended (an OU noise process resets there)."""

    def burst_noise_shape(self, gradient_steps: int, batch_size: int) -> tuple[int, ...]:
        """Shape of the standard-normal draws one burst of updates needs (the loop draws them from ``rng``)."""
        return (0,)

    def learn(self, batches: dict[str, np.ndarray], noise: np.ndarray, step: int) -> dict[str, float]:
        """One burst: ``batches`` stacked as (K, B, ...) and the burst's noise; returns the learner's metrics."""
        raise NotImplementedError

    def after_burst(self, step: int, batches: dict[str, np.ndarray], metrics: dict[str, float]) -> dict[str, float]:
        """Extra metrics to log after a burst (the acting copy is already refreshed)."""
        return {}


def make_buffer(agent: ReplayAgent, config, seed: int, buffer_class: type | None = None) -> ReplayBuffer:
    """The run's replay memory: ``buffer_class`` if given, else prioritized or uniform as the config says.

    Every buffer stores each transition's bootstrap discount (gamma^k of a k-step transition). A buffer is
    treated as prioritized when it has ``update_priorities``: it is then sampled with PER's beta and told the
    burst's new priorities.
    """
    if buffer_class is None:
        buffer_class = PrioritizedReplayBuffer if config.prioritized else ReplayBuffer
    options = {"alpha": config.per_alpha} if issubclass(buffer_class, PrioritizedReplayBuffer) else {}
    shape = (agent.obs_dim,)
    return buffer_class(
        config.buffer_size, shape, agent.action_shape, agent.action_dtype, seed=seed, with_discounts=True, **options
    )


def is_prioritized(buffer) -> bool:
    return hasattr(buffer, "update_priorities")


def entry_point(agent_class: type[ReplayAgent], default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of a replay-based algorithm package, with its per-environment step budgets."""
    return training.entry_point(train_agent, agent_class, default_total_steps, fallback_total_steps)


def train_agent(
    agent_class: type[ReplayAgent],
    env_id: str,
    framework: str,
    seed: int,
    total_steps: int,
    config,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
    callbacks: Sequence[Callback] = (),
    buffer_class: type | None = None,
) -> TrainResult:
    """Train a replay-based agent for ``total_steps`` environment steps; see :func:`rlkit.train`."""
    rng = seed_everything(seed)
    agent, envs = agent_class.make(env_id, framework, config, seed)
    buffer = make_buffer(agent, config, seed, buffer_class)
    folder = NStepFolder(config.n_step, config.gamma, config.num_envs)
    runner = EnvRunner(envs, seed=seed)
    agent.begin_training(total_steps, config.num_envs, rng)
    beta = LinearSchedule(config.per_beta_start, 1.0, total_steps)  # importance-weight exponent of PER
    noise_shape = agent.burst_noise_shape(config.gradient_steps, config.batch_size)
    logger = Logger(total_steps, logdir, progress, description=f"{agent.algo} {framework} {agent.env_id}")
    evaluations = training.Evaluations(agent, seed, logger)
    hooks = CallbackList(callbacks, training.Run(agent, logger, evaluations, total_steps))
    step, next_train = 0, max(config.learning_starts, config.batch_size)
    unchecked, checked_step = 0, 0  # transitions stored since the last finiteness check, and its step
    try:
        hooks.on_start()
        while step < total_steps:
            actions = agent.exploration_actions(runner.obs, step, rng)
            batch = runner.step(agent.to_env(actions))
            transitions = folder.step(
                batch.obs, actions, batch.rewards, batch.next_obs, batch.terminated, batch.truncated, batch.valid
            )  # the n-step transitions this step completed (autoreset steps skipped), or None
            if transitions is not None:
                buffer.add(**transitions)
                unchecked += len(transitions["rewards"])
            agent.end_episodes(batch.terminated | batch.truncated)
            step += config.num_envs
            returns, lengths = runner.pop_episodes()
            if len(returns):
                logger.log_episodes(step, returns, lengths)

            stop = False
            if step >= next_train:
                next_train += config.train_every
                check_new_transitions(buffer, unchecked, checked_step, step)  # before they are learned from
                unchecked, checked_step = 0, step
                metrics = burst(agent, buffer, config, beta(step), rng, noise_shape, step)
                logger.log(step, **metrics, steps_per_second=step / evaluations.elapsed())
                stop = hooks.on_burst(step, metrics)
            stop = hooks.on_step(step) or stop  # after this step's updates: a checkpoint here includes them

            if evaluations.end_of_step(step, step >= total_steps, stop_when_solved, hooks) or stop:
                break
        hooks.on_end()
    finally:
        logger.close()
        runner.close()
    return evaluations.finish(step, logdir)


def burst(agent: ReplayAgent, buffer, config, beta: float, rng, noise_shape, step: int) -> dict[str, float]:
    """Sample ``gradient_steps`` batches, update on them, refresh the acting copy; the burst's metrics."""
    if is_prioritized(buffer):
        batches = buffer.sample_many(config.gradient_steps, config.batch_size, beta)
        indices = batches.pop("indices")
    else:
        batches = buffer.sample_many(config.gradient_steps, config.batch_size)
    noise = rng.standard_normal(noise_shape, dtype=np.float32)
    metrics = agent.learn(batches, noise, step)
    check_finite_metrics(metrics, step)
    if is_prioritized(buffer):
        buffer.update_priorities(indices, agent.learner.last_priorities)
    agent.refresh()
    check_finite_weights(agent, step)
    return {**metrics, **agent.after_burst(step, batches, metrics)}
