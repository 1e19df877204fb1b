"""The replay loop: DQN, Rainbow, DDPG, TD3 and SAC all train here, in numpy, for both frameworks.

collect -> fold into n-step transitions -> store -> every ``train_every`` steps a burst of updates ->
evaluate. What differs between the algorithms is not asked of the agent through methods to override: it
comes in as parts, each passed to the loop or declared by the agent as plain data:

=========================  ==============================================================================
``exploration``            what to do and store at a step (:mod:`rlkit.exploration`): epsilon-greedy,
                           noisy nets, action noise, policy samples; ``rlkit.train(exploration=...)``,
                           else the agent's ``default_exploration(config)``
``buffer_class``           the replay memory: uniform or prioritized by the config, or any class with the
                           same methods (``rlkit.train(buffer_class=...)``)
``callbacks``              called after every step and burst (:mod:`rlkit.callbacks`)
``burst_noise_shape``      the agent's attribute: the standard-normal draws one burst needs (noisy nets,
                           TD3's smoothing, SAC's samples), handed to the learner as the burst's ``noise``
``reports_priorities``     the agent's attribute: whether the learner leaves new replay priorities in
                           ``last_priorities`` after a burst (needed by a prioritized buffer)
``health``                 the agent's attribute, None or an object whose ``after_burst`` returns extra
                           metrics (DQN's :class:`~rlkit.algos.dqn.agent.BurstHealth`: health signals and
                           optimizer resets)
learning rate              the config's ``learning_rate_schedule(plan)``, set by the loop before each burst
                           (:meth:`~rlkit.algos.training.Loop.set_learning_rate`, as the rollout loop does)
=========================  ==============================================================================

A burst (:meth:`ReplayLoop.burst`) samples ``gradient_steps`` batches, draws the burst's noise, sets the
learning rate and calls ``agent.learner.update_many({**batches, "noise": noise})``; the agent's ``to_env``
turns stored actions into the environment's units. Every random number comes from the run's generator
``rng`` (actions, exploration noise, the burst's noise) or from the buffer's own seeded generator
(sampling), so a seed fixes a run in either framework.
"""

from __future__ import annotations

import numpy as np

from rlkit.algos import training
from rlkit.algos.agent_base import Agent
from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.errors import CheckpointError, RlkitError
from rlkit.exploration import Exploration
from rlkit.nstep import NStepFolder
from rlkit.numerics import check_finite_metrics, check_finite_weights, check_new_transitions
from rlkit.schedules import LinearSchedule


class ReplayLoop(training.Loop):
    """One replay-based run, as an object: everything it needs to go on is in its attributes, so it can be
    continued (``agent.learn``) and saved and restored (``agent.save(path, resumable=True)``).

    ``plan`` is the number of environment steps the schedules (epsilon, learning rate, PER's beta) are
    spread over: the run's total, extended when training is continued past it. ``buffer_class`` and
    ``exploration`` are the parts described at the top of this module (None: the defaults).
    """

    #: The loop's own state beyond the step: the next burst's step and the finiteness checks' count.
    STATE = (*training.Loop.STATE, "next_train", "unchecked", "checked_step")

    def __init__(
        self,
        agent: ReplayAgent,
        envs,
        seed: int,
        rng,
        plan: int,
        buffer_class: type | None = None,
        exploration: Exploration | None = None,
    ):
        config = agent.config
        super().__init__(agent, envs, seed, rng, plan)
        self.buffer = make_buffer(agent, config, seed, buffer_class)
        self.exploration = agent.default_exploration(config) if exploration is None else exploration
        self.folder = NStepFolder(config.n_step, config.gamma, config.num_envs)
        self.next_train = max(config.learning_starts, config.batch_size)
        self.unchecked, self.checked_step = 0, 0  # transitions stored since the last finiteness check, its step
        self.begin()

    def begin(self) -> None:
        """(Re)build what depends on the plan: the learning rate, the exploration's schedules, PER's beta."""
        super().begin()
        self.exploration.begin(self.plan, self.agent.config.num_envs, self.rng)
        self.beta = LinearSchedule(self.agent.config.per_beta_start, 1.0, self.plan)  # PER's importance exponent

    def advance(self, hooks) -> bool:
        """One vector step, and the burst of updates it makes due; True when a callback asks to stop."""
        agent, config, runner, logger = self.agent, self.agent.config, self.runner, self.logger
        if agent.obs_normalizer is not None:
            agent.obs_normalizer.stats.update(runner.obs)
        actions = self.exploration.actions(agent, runner.obs, self.step, self.rng)
        batch = runner.step(agent.to_env(actions))
        transitions = self.folder.step(
            batch.obs, actions, batch.rewards, batch.next_obs, batch.terminated, batch.truncated, batch.valid
        )  # the n-step transitions this step completed (autoreset steps skipped), or None
        if transitions is not None:
            self.buffer.add(**transitions)
            self.unchecked += len(transitions["rewards"])
        self.exploration.end_episodes(batch.terminated | batch.truncated)
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
            metrics = self.burst(step)
            logger.log(step, **metrics, steps_per_second=self.steps_per_second())
            stop = hooks.on_burst(step, metrics)
        return hooks.on_step(step) or stop  # after this step's updates: a checkpoint here includes them

    def burst(self, step: int) -> dict[str, float]:
        """Sample ``gradient_steps`` batches, draw the burst's noise, update on them at the scheduled learning
        rate, refresh the acting copy; the burst's metrics (the learner's, the agent's health signals, the
        exploration's)."""
        agent, buffer, config = self.agent, self.buffer, self.agent.config
        if is_prioritized(buffer):
            batches = buffer.sample_many(config.gradient_steps, config.batch_size, self.beta(step))
            indices = batches.pop("indices")
        else:
            batches = buffer.sample_many(config.gradient_steps, config.batch_size)
        if agent.obs_normalizer is not None:  # the buffer keeps raw observations: today's statistics apply
            batches["obs"], batches["next_obs"] = (agent.obs_normalizer(batches[key]) for key in ("obs", "next_obs"))
        noise = self.rng.standard_normal(agent.burst_noise_shape, dtype=np.float32)
        self.set_learning_rate(step)
        metrics = agent.learner.update_many({**batches, "noise": noise})
        check_finite_metrics(metrics, step)
        if is_prioritized(buffer):
            buffer.update_priorities(indices, agent.learner.last_priorities)
        check_finite_weights(agent, step, agent.refresh())
        if agent.health is not None:
            metrics = {**metrics, **agent.health.after_burst(agent, batches, metrics)}
        return {**metrics, **self.exploration.metrics(step)}

    def state(self, replay_buffer: bool = True) -> dict:
        """Everything to continue this run exactly; ``replay_buffer=False`` leaves out the (large) buffer,
        which a restored run then refills from scratch."""
        health = self.agent.health
        return {
            **self.common_state(),
            "folder": self.folder.state_dict(),
            "buffer": self.buffer.state_dict() if replay_buffer else None,
            "exploration": {"class": type(self.exploration).__name__, "state": self.exploration.state_dict()},
            "health": None if health is None else health.state_dict(),
        }

    def load_state(self, state: dict) -> None:
        saved, given = state["exploration"]["class"], type(self.exploration).__name__
        if saved != given:
            raise CheckpointError(
                f"this run explored with {saved}, and {given} cannot take its state over: resume it with "
                f"exploration={saved}(...) (or without exploration= if {saved} is the algorithm's default)"
            )
        self.load_common_state(state)
        self.folder.load_state_dict(state["folder"])
        if state["buffer"] is not None:
            self.buffer.load_state_dict(state["buffer"])
        else:  # no transitions: the buffer fills again before the next burst
            self.next_train = self.step + max(self.agent.config.learning_starts, self.agent.config.batch_size)
        self.exploration.load_state_dict(state["exploration"]["state"])
        if self.agent.health is not None:
            self.agent.health.load_state_dict(state["health"])
        self.begin()


class ReplayAgent(Agent):
    """Base of the agents the replay loop trains: what they declare for it is data (see the module's table)."""

    #: The loop that trains this family.
    loop_class = ReplayLoop

    #: Shape and dtype of one stored action: () int64 for discrete actions, (action_dim,) float32 otherwise.
    action_shape: tuple[int, ...] = ()
    action_dtype: type = np.int64

    #: Shape of the standard-normal draws one burst of updates needs (the loop draws them from ``rng``).
    burst_noise_shape: tuple[int, ...] = (0,)

    #: Whether the learner leaves new replay priorities in ``last_priorities`` after each burst.
    reports_priorities: bool = True

    #: None, or an object whose ``after_burst(agent, batches, metrics)`` returns extra metrics after a burst
    #: (the acting copy already refreshed) and that has ``state_dict`` / ``load_state_dict``.
    health = None

    #: None, or the :class:`~rlkit.normalize.ObservationNormalizer` whose statistics the loop updates from
    #: every step's observations and applies to every burst (DDPG, TD3 and SAC with ``normalize_obs``).
    obs_normalizer = None

    @classmethod
    def make(cls, env_id: str, framework: str, config, seed: int = 0):
        """A fresh agent for ``env_id`` and the vector environment it trains on (checks the action space)."""
        raise NotImplementedError

    def to_env(self, actions: np.ndarray) -> np.ndarray:
        """Stored actions in the environment's own units (identity for discrete actions; the continuous
        agents rescale [-1, 1] to the action bounds), as every agent's ``to_env``."""
        return actions

    @staticmethod
    def default_exploration(config) -> Exploration:
        """The exploration a run of this algorithm uses unless ``rlkit.train(exploration=...)`` gives one."""
        raise NotImplementedError


def make_buffer(agent: ReplayAgent, config, seed: int, buffer_class: type | None = None) -> ReplayBuffer:
    """The run's replay memory: ``buffer_class`` if given, else prioritized or uniform as the config says, and
    storing each frame of stacked images once (:mod:`rlkit.frame_buffer`) where the config's ``frame_replay``
    asks for it (DQN's Atari defaults).

    Every buffer stores each transition's bootstrap discount (gamma^k of a k-step transition). A buffer is
    treated as prioritized when it has ``update_priorities``: it is then sampled with PER's beta and told the
    burst's new priorities.
    """
    options = {}
    if buffer_class is None and getattr(config, "frame_replay", False):
        from rlkit.frame_buffer import FrameReplayBuffer, PrioritizedFrameReplayBuffer

        buffer_class = PrioritizedFrameReplayBuffer if config.prioritized else FrameReplayBuffer
        image = getattr(agent, "image", None)
        options["frame_axis"] = -1 if image is not None and image.channels_last else 0
    elif buffer_class is None:
        buffer_class = PrioritizedReplayBuffer if config.prioritized else ReplayBuffer
    elif hasattr(buffer_class, "update_priorities") and not agent.reports_priorities:
        raise RlkitError(
            f"{agent.algo.upper()} computes replay priorities only with prioritized=True: set it to use "
            f"{getattr(buffer_class, '__name__', buffer_class)}, which samples by priority"
        )
    is_per = isinstance(buffer_class, type) and issubclass(buffer_class, PrioritizedReplayBuffer)
    if is_per:  # a callable (functools.partial) gets no alpha
        options["alpha"] = config.per_alpha
    return buffer_class(
        config.buffer_size,
        agent.obs_shape,
        agent.action_shape,
        agent.action_dtype,
        obs_dtype=agent.obs_dtype,
        seed=seed,
        with_discounts=True,
        **options,
    )


def is_prioritized(buffer) -> bool:
    return hasattr(buffer, "update_priorities")


def entry_point(agent_class: type[ReplayAgent], default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of a replay-based algorithm package, with its per-environment step budgets."""
    return training.entry_point(agent_class, default_total_steps, fallback_total_steps)
