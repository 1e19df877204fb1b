"""The replay loop: DQN, Rainbow, DDPG, TD3 and SAC all train here, in numpy, for both frameworks.

collect -> fold into n-step transitions -> store -> every ``train_every`` steps a burst of updates ->
evaluate. What differs between the algorithms is not written here but asked of the agent, through a few
documented methods of :class:`ReplayAgent` (the extension points):

===========================  ==========================================================================
``begin_training``           build schedules and noise processes (DQN's epsilon, DDPG's OU process)
``exploration_actions``      what to do and store at a step: epsilon-greedy, a random warm-up, noise
``to_env`` / ``end_episodes``  the stored action in the environment's units; episode ends (OU resets)
``burst_noise_shape``        standard-normal draws a burst needs (noisy nets, TD3 smoothing, SAC samples)
``train_burst``              hand one burst to the learner (DQN also anneals its learning rate here)
``after_burst``              extra metrics after a burst (DQN: health signals, optimizer resets)
===========================  ==========================================================================

and of two parameters: the buffer class (``buffer_class``; uniform or prioritized by default, anything with
the same methods otherwise) and the callbacks. Every random number comes from the run's generator ``rng``
(actions, exploration noise, the burst's noise) or from the buffer's own seeded generator (sampling), so a
seed fixes a run in either framework.
"""

from __future__ import annotations

import numpy as np

from rlkit.algos import training
from rlkit.algos.agent_base import Agent
from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.errors import RlkitError
from rlkit.nstep import NStepFolder
from rlkit.numerics import check_finite_metrics, check_finite_weights, check_new_transitions
from rlkit.schedules import LinearSchedule
from rlkit.state import object_state, restore_object


class ReplayLoop(training.Loop):
    """One replay-based run, as an object: everything it needs to go on is in its attributes, so it can be
    continued (``agent.learn``) and saved and restored (``agent.save(path, resumable=True)``).

    ``plan`` is the number of environment steps the schedules (epsilon, learning rate, PER's beta) are
    spread over: the run's total, extended when training is continued past it.
    """

    def __init__(self, agent: ReplayAgent, envs, seed: int, rng, plan: int, buffer_class: type | None = None):
        config = agent.config
        super().__init__(agent, envs, seed, rng, plan)
        self.buffer = make_buffer(agent, config, seed, buffer_class)
        self.folder = NStepFolder(config.n_step, config.gamma, config.num_envs)
        self.noise_shape = agent.burst_noise_shape(config.gradient_steps, config.batch_size)
        self.next_train = max(config.learning_starts, config.batch_size)
        self.unchecked, self.checked_step = 0, 0  # transitions stored since the last finiteness check, its step
        self.begin()

    def begin(self) -> None:
        """(Re)build what depends on the plan: the agent's schedules and PER's beta."""
        self.agent.begin_training(self.plan, self.agent.config.num_envs, self.rng)
        self.beta = LinearSchedule(self.agent.config.per_beta_start, 1.0, self.plan)  # PER's importance exponent

    def advance(self, hooks) -> bool:
        """One vector step, and the burst of updates it makes due; True when a callback asks to stop."""
        agent, config, runner, logger = self.agent, self.agent.config, self.runner, self.logger
        actions = agent.exploration_actions(runner.obs, self.step, self.rng)
        batch = runner.step(agent.to_env(actions))
        transitions = self.folder.step(
            batch.obs, actions, batch.rewards, batch.next_obs, batch.terminated, batch.truncated, batch.valid
        )  # the n-step transitions this step completed (autoreset steps skipped), or None
        if transitions is not None:
            self.buffer.add(**transitions)
            self.unchecked += len(transitions["rewards"])
        agent.end_episodes(batch.terminated | batch.truncated)
        self.step += config.num_envs
        step = self.step
        returns, lengths = runner.pop_episodes()
        if len(returns):
            logger.log_episodes(step, returns, lengths)

        stop = False
        if step >= self.next_train:
            self.next_train += config.train_every
            check_new_transitions(self.buffer, self.unchecked, self.checked_step, step)  # before learning from them
            self.unchecked, self.checked_step = 0, step
            metrics = burst(agent, self.buffer, config, self.beta(step), self.rng, self.noise_shape, step)
            logger.log(step, **metrics, steps_per_second=self.steps_per_second())
            stop = hooks.on_burst(step, metrics)
        return hooks.on_step(step) or stop  # after this step's updates: a checkpoint here includes them

    def state(self, replay_buffer: bool = True) -> dict:
        """Everything to continue this run exactly; ``replay_buffer=False`` leaves out the (large) buffer,
        which a restored run then refills from scratch."""
        return {
            **self.common_state(),
            "folder": object_state(self.folder),
            "buffer": object_state(self.buffer, nested=("tree",)) if replay_buffer else None,
        }

    def load_state(self, state: dict) -> None:
        self.load_common_state(state)
        restore_object(self.folder, state["folder"])
        if state["buffer"] is not None:
            restore_object(self.buffer, state["buffer"])
        else:  # no transitions: the buffer fills again before the next burst
            self.next_train = self.step + max(self.agent.config.learning_starts, self.agent.config.batch_size)
        self.begin()


class ReplayAgent(Agent):
    """Base of the agents the replay loop trains; subclasses fill in the extension points below."""

    #: The loop that trains this family.
    loop_class = ReplayLoop

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

    def train_burst(self, batches: dict[str, np.ndarray], noise: np.ndarray, step: int) -> dict[str, float]:
        """One burst: ``batches`` stacked as (K, B, ...) and the burst's noise; returns the learner's metrics."""
        raise NotImplementedError

    def after_burst(self, step: int, batches: dict[str, np.ndarray], metrics: dict[str, float]) -> dict[str, float]:
        """Extra metrics to log after a burst (the acting copy is already refreshed)."""
        return {}

    def reports_priorities(self) -> bool:
        """Whether the learner leaves new replay priorities in ``last_priorities`` after each burst."""
        return True


def make_buffer(agent: ReplayAgent, config, seed: int, buffer_class: type | None = None) -> ReplayBuffer:
    """The run's replay memory: ``buffer_class`` if given, else prioritized or uniform as the config says.

    Every buffer stores each transition's bootstrap discount (gamma^k of a k-step transition). A buffer is
    treated as prioritized when it has ``update_priorities``: it is then sampled with PER's beta and told the
    burst's new priorities.
    """
    if buffer_class is None:
        buffer_class = PrioritizedReplayBuffer if config.prioritized else ReplayBuffer
    elif hasattr(buffer_class, "update_priorities") and not agent.reports_priorities():
        raise RlkitError(
            f"{agent.algo.upper()} computes replay priorities only with prioritized=True: set it to use "
            f"{getattr(buffer_class, '__name__', buffer_class)}, which samples by priority"
        )
    is_per = isinstance(buffer_class, type) and issubclass(buffer_class, PrioritizedReplayBuffer)
    options = {"alpha": config.per_alpha} if is_per else {}  # a callable (functools.partial) gets no alpha
    shape = (agent.obs_dim,)
    return buffer_class(
        config.buffer_size, shape, agent.action_shape, agent.action_dtype, seed=seed, with_discounts=True, **options
    )


def is_prioritized(buffer) -> bool:
    return hasattr(buffer, "update_priorities")


def entry_point(agent_class: type[ReplayAgent], default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of a replay-based algorithm package, with its per-environment step budgets."""
    return training.entry_point(agent_class, default_total_steps, fallback_total_steps)


def burst(agent: ReplayAgent, buffer, config, beta: float, rng, noise_shape, step: int) -> dict[str, float]:
    """Sample ``gradient_steps`` batches, update on them, refresh the acting copy; the burst's metrics."""
    if is_prioritized(buffer):
        batches = buffer.sample_many(config.gradient_steps, config.batch_size, beta)
        indices = batches.pop("indices")
    else:
        batches = buffer.sample_many(config.gradient_steps, config.batch_size)
    noise = rng.standard_normal(noise_shape, dtype=np.float32)
    metrics = agent.train_burst(batches, noise, step)
    check_finite_metrics(metrics, step)
    if is_prioritized(buffer):
        buffer.update_priorities(indices, agent.learner.last_priorities)
    agent.refresh()
    check_finite_weights(agent, step)
    return {**metrics, **agent.after_burst(step, batches, metrics)}
