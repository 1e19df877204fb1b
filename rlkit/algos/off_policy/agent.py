"""The agent and training loop of DDPG, TD3 and SAC, written once for the three and both frameworks (numpy).

The loop is DQN's: collect -> store -> burst of updates -> evaluate. Actions live in [-1, 1] (the actors end
in tanh) and are rescaled to the environment's bounds only on their way out, so the buffer, the critics
and the noise never see environment units. Acting goes through a numpy copy of the actor, refreshed after
every burst; all randomness (exploration noise, TD3's smoothing noise, SAC's samples) is drawn in numpy
from the run's generator, so a seed fixes a run in either framework.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlkit.algos import training
from rlkit.algos.agent_base import Agent
from rlkit.algos.off_policy.config import OffPolicyConfig
from rlkit.algos.training import Evaluations
from rlkit.buffers import ReplayBuffer
from rlkit.envs import EnvRunner, make_vec_env, space_info
from rlkit.errors import RlkitError
from rlkit.logger import Logger
from rlkit.nets import mlp_forward
from rlkit.result import TrainResult
from rlkit.seeding import seed_everything


class OffPolicyAgent(Agent):
    """A policy for continuous actions acting through numpy; subclassed per algorithm."""

    algo = "off-policy"
    config_class = OffPolicyConfig

    def __init__(self, learner, env_id: str, obs_dim: int, action: dict, config: OffPolicyConfig) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.action = action
        self.action_dim = int(np.prod(action["shape"]))
        self.low = np.asarray(action["low"], dtype=np.float32)
        self.high = np.asarray(action["high"], dtype=np.float32)
        self.refresh()

    def refresh(self) -> None:
        """Copy the learner's actor weights into the numpy forward pass used for acting."""
        self._actor = self.learner.get_weights()[: 2 * (len(self.config.hidden_sizes) + 1)]

    def actor_output(self, obs: np.ndarray) -> np.ndarray:
        """The actor network's raw output for a batch of observations (numpy, from the last refresh)."""
        return mlp_forward(self._actor, obs)

    def policy(self, obs: np.ndarray) -> np.ndarray:
        """Deterministic actions in [-1, 1] for a batch: tanh of the actor's (first) outputs."""
        return np.tanh(self.actor_output(obs)[:, : self.action_dim])

    def begin_exploration(self, num_envs: int, rng: np.random.Generator) -> None:
        """Prepare the exploration of ``num_envs`` environments (DDPG and TD3 build their noise process)."""

    def end_episodes(self, done: np.ndarray) -> None:
        """Environments whose episode just ended (an OU noise process resets there)."""

    def explore(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exploratory actions in [-1, 1] for a batch of observations (see DDPG and SAC)."""
        raise NotImplementedError

    def to_env(self, actions: np.ndarray) -> np.ndarray:
        """Actions in [-1, 1] rescaled to the environment's bounds [low, high]."""
        return self.low + (np.asarray(actions, dtype=np.float32) + 1.0) * 0.5 * (self.high - self.low)

    def act(self, obs: np.ndarray, deterministic: bool = True, rng: np.random.Generator | None = None):
        """Environment actions for a batch of observations (one action for a single observation)."""
        obs = np.asarray(obs, dtype=np.float32)
        single = obs.ndim == 1
        batch = obs[None] if single else obs
        if deterministic:
            actions = self.policy(batch)
        else:
            actions = self.explore(batch, rng or np.random.default_rng())
        actions = self.to_env(actions)
        return actions[0] if single else actions

    def checkpoint_extra(self) -> dict:
        return {"action": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.action.items()}}

    @classmethod
    def from_checkpoint(cls, path: str | Path, meta: dict) -> OffPolicyAgent:
        config = cls.config_class(**meta["config"])
        action = dict(meta["action"], shape=tuple(meta["action"]["shape"]))
        action["low"], action["high"] = (np.asarray(action[k], dtype=np.float32) for k in ("low", "high"))
        learner = cls.learner_class(meta["framework"])(meta["obs_dim"], int(np.prod(action["shape"])), config)
        learner.load(path)
        return cls(learner, meta["env_id"], meta["obs_dim"], action, config)


def make_agent(agent_class: type[OffPolicyAgent], env_id: str, framework: str, config, seed: int = 0):
    """A fresh agent for ``env_id`` and the vector environment it trains on; checks the action space."""
    envs = make_vec_env(env_id, config.num_envs, seed=seed)
    action = space_info(envs.single_action_space)
    if action["discrete"]:
        envs.close()
        raise RlkitError(
            f"{agent_class.algo.upper()} needs a continuous (Box) action space, but {env_id} has "
            f"{envs.single_action_space}: use dqn, ppo or a2c for discrete actions"
        )
    if not (np.isfinite(action["low"]).all() and np.isfinite(action["high"]).all()):
        envs.close()
        raise RlkitError(
            f"{agent_class.algo.upper()} squashes its actions into the action space's bounds, but {env_id}'s "
            f"{envs.single_action_space} is unbounded: use ppo, whose Gaussian policy needs no bounds"
        )
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    learner = agent_class.learner_class(framework)(obs_dim, int(np.prod(action["shape"])), config, seed)
    return agent_class(learner, env_id, obs_dim, action, config), envs


def entry_point(agent_class: type[OffPolicyAgent], default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of an off-policy algorithm package, with its per-environment step budgets."""
    return training.entry_point(train_agent, agent_class, default_total_steps, fallback_total_steps)


def train_agent(
    agent_class: type[OffPolicyAgent],
    env_id: str,
    framework: str,
    seed: int,
    total_steps: int,
    config: OffPolicyConfig,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
) -> TrainResult:
    """Train an off-policy agent for ``total_steps`` environment steps; see :func:`rlkit.train`."""
    rng = seed_everything(seed)
    agent, envs = make_agent(agent_class, env_id, framework, config, seed)
    learner, num_envs, action_dim = agent.learner, config.num_envs, agent.action_dim
    buffer = ReplayBuffer(config.buffer_size, (agent.obs_dim,), (action_dim,), np.float32, seed=seed)
    runner = EnvRunner(envs, seed=seed)
    agent.begin_exploration(num_envs, rng)
    noise_shape = (config.gradient_steps, learner.noise_draws, config.batch_size, action_dim)
    logger = Logger(total_steps, logdir, progress, description=f"{agent.algo} {framework} {env_id}")
    evaluations = Evaluations(agent, seed, logger)
    step, next_train = 0, max(config.learning_starts, config.batch_size)
    try:
        while step < total_steps:
            if step < config.learning_starts:  # uniform random actions fill the buffer with varied data
                actions = rng.uniform(-1.0, 1.0, (num_envs, action_dim)).astype(np.float32)
            else:
                actions = agent.explore(runner.obs, rng)
            batch = runner.step(agent.to_env(actions))
            valid = batch.valid
            buffer.add(
                batch.obs[valid], actions[valid], batch.rewards[valid], batch.next_obs[valid], batch.terminated[valid]
            )
            agent.end_episodes(batch.terminated | batch.truncated)
            step += num_envs
            returns, lengths = runner.pop_episodes()
            if len(returns):
                logger.log_episodes(step, returns, lengths)

            if step >= next_train:
                next_train += config.train_every
                batches = buffer.sample_many(config.gradient_steps, config.batch_size)
                batches["noise"] = rng.standard_normal(noise_shape, dtype=np.float32)
                metrics = learner.update_many(batches)
                agent.refresh()
                logger.log(step, **metrics, steps_per_second=step / evaluations.elapsed())

            if evaluations.end_of_step(step, step >= total_steps, stop_when_solved):
                break
    finally:
        logger.close()
        runner.close()
    return evaluations.finish(step, logdir)
