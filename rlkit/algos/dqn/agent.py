"""DQN's agent and training loop, written once for both frameworks (numpy only).

The loop is collect -> store -> update -> evaluate. The framework appears only behind ``learner``: an
object from ``torch.py`` or ``tf.py`` with ``update(batch)``, ``get_weights()``, ``set_weights()``,
``save()`` and ``load()``. Acting goes through :func:`rlkit.nets.q_network_forward` on a numpy copy of the
online weights, refreshed after every burst of gradient steps: at batch size one, numpy is 7x faster than
torch and 40x faster than a ``tf.function`` (see ``rlkit/nets.py``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from rlkit.algos.agent_base import Agent
from rlkit.algos.dqn.config import DQNConfig
from rlkit.algos.training import Evaluations
from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.distributional import categorical_support, expected_q
from rlkit.envs import EnvRunner, make_vec_env
from rlkit.errors import RlkitError
from rlkit.health import health_signals
from rlkit.logger import Logger
from rlkit.nets import q_network_forward
from rlkit.nstep import NStepFolder
from rlkit.result import TrainResult
from rlkit.schedules import LinearSchedule
from rlkit.seeding import seed_everything

#: Environment steps that solve each environment with the default config (used when total_steps is None).
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 50_000, "Acrobot-v1": 100_000, "MountainCar-v0": 200_000}
FALLBACK_TOTAL_STEPS = 100_000


def learner_class(framework: str):
    """The ``DQNLearner`` of ``"torch"`` or ``"tf"``, importing that framework now."""
    module = {"torch": "rlkit.algos.dqn.torch", "tf": "rlkit.algos.dqn.tf"}[framework]
    return importlib.import_module(module).DQNLearner


class DQNAgent(Agent):
    """A trained (or training) DQN policy: greedy or epsilon-greedy actions from its Q-network."""

    algo = "dqn"
    config_class = DQNConfig

    def __init__(self, learner, env_id: str, obs_dim: int, n_actions: int, config: DQNConfig) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.n_actions = n_actions
        self.noise_size = config.noise_size(obs_dim, n_actions)
        self.support = categorical_support(config.v_min, config.v_max, config.n_atoms)
        self.refresh()

    def refresh(self) -> None:
        """Copy the learner's current online weights into the numpy forward pass used for acting.

        The training loop calls this after every burst of updates; call it yourself after updating
        ``agent.learner`` directly.
        """
        self._weights = self.learner.get_weights()

    def q_values(self, obs: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
        """Q-values of a batch of observations, shape (batch, n_actions), from the last :meth:`refresh`.

        A noisy network uses one ``noise`` draw for the batch (None: its mean weights); a distributional
        one returns the mean of each action's return distribution.
        """
        config = self.config
        out = q_network_forward(
            self._weights, obs, dueling=config.dueling, noisy=config.noisy, n_atoms=config.atoms, noise=noise
        )
        return expected_q(out, self.support) if config.distributional else out

    def act(self, obs: np.ndarray, deterministic: bool = True) -> np.ndarray | int:
        """Greedy actions for a batch of observations (an int for a single observation)."""
        del deterministic  # DQN's policy is greedy; exploration is the loop's job (see ``explore``)
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim == 1:
            return int(self.q_values(obs[None]).argmax())
        return self.q_values(obs).argmax(axis=1)

    def explore(self, obs: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        """Exploring actions for a batch: greedy under a fresh noise draw for a noisy network, and then
        uniform-random with probability ``epsilon`` (the training loop sets it to 0 for noisy networks)."""
        if self.config.noisy:
            noise = rng.standard_normal(self.noise_size, dtype=np.float32)
            actions = self.q_values(np.asarray(obs, dtype=np.float32), noise).argmax(axis=1)
        else:
            actions = self.act(obs)
        random = rng.random(len(actions)) < epsilon
        return np.where(random, rng.integers(0, self.n_actions, size=len(actions)), actions)

    def checkpoint_extra(self) -> dict:
        return {"n_actions": self.n_actions}

    @classmethod
    def from_checkpoint(cls, path: str | Path, meta: dict) -> DQNAgent:
        config = cls.config_class(**meta["config"])
        learner = learner_class(meta["framework"])(meta["obs_dim"], meta["n_actions"], config)
        learner.load(path)
        return cls(learner, meta["env_id"], meta["obs_dim"], meta["n_actions"], config)


def make_agent(
    env_id: str, framework: str, config: DQNConfig, seed: int = 0, agent_class: type[DQNAgent] = DQNAgent
) -> tuple[DQNAgent, object]:
    """A fresh agent for ``env_id`` and the vector environment it trains on; checks the action space."""
    envs = make_vec_env(env_id, config.num_envs, seed=seed)
    space = envs.single_action_space
    if not hasattr(space, "n"):
        envs.close()
        raise RlkitError(
            f"DQN needs a discrete action space, but {env_id} has {space}: use an algorithm for continuous "
            "actions (ddpg, td3, sac, ppo)"
        )
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    learner = learner_class(framework)(obs_dim, int(space.n), config, seed)
    return agent_class(learner, env_id, obs_dim, int(space.n), config), envs


def make_buffer(config: DQNConfig, obs_dim: int, seed: int) -> ReplayBuffer:
    """Uniform or prioritized replay, storing each transition's bootstrap discount (n-step returns)."""
    if config.prioritized:
        return PrioritizedReplayBuffer(
            config.buffer_size, (obs_dim,), seed=seed, with_discounts=True, alpha=config.per_alpha
        )
    return ReplayBuffer(config.buffer_size, (obs_dim,), seed=seed, with_discounts=True)


def exploration_schedule(config: DQNConfig, total_steps: int):
    """Epsilon per environment step: linear decay, or for noisy networks (which explore through their noise)
    uniform-random play until ``learning_starts`` and then none."""
    if config.noisy:
        return lambda step: 1.0 if step < config.learning_starts else 0.0
    return LinearSchedule(config.eps_start, config.eps_end, max(1, int(config.eps_fraction * total_steps)))


def train(
    env_id: str,
    framework: str = "torch",
    seed: int = 0,
    total_steps: int | None = None,
    config: DQNConfig | None = None,
    logdir: str | Path | None = None,
    progress: bool = True,
    stop_when_solved: bool = False,
    agent_class: type[DQNAgent] = DQNAgent,
) -> TrainResult:
    """Train DQN on ``env_id`` for ``total_steps`` environment steps; see :func:`rlkit.train`.

    ``agent_class`` lets a preset (Rainbow) reuse this loop with its own config defaults and checkpoint name.
    """
    config = config or agent_class.config_class.for_env(env_id)
    total_steps = total_steps or DEFAULT_TOTAL_STEPS.get(env_id, FALLBACK_TOTAL_STEPS)
    rng = seed_everything(seed)
    agent, envs = make_agent(env_id, framework, config, seed, agent_class)
    learner = agent.learner
    buffer = make_buffer(config, agent.obs_dim, seed)
    folder = NStepFolder(config.n_step, config.gamma, config.num_envs)
    runner = EnvRunner(envs, seed=seed)
    epsilon = exploration_schedule(config, total_steps)
    learning_rate = LinearSchedule(config.learning_rate, config.learning_rate * config.final_lr_fraction, total_steps)
    beta = LinearSchedule(config.per_beta_start, 1.0, total_steps)  # importance-weight exponent of PER
    logger = Logger(total_steps, logdir, progress, description=f"{agent_class.algo} {framework} {env_id}")
    evaluations = Evaluations(agent, seed, logger)
    step, next_train, optimizer_resets = 0, config.learning_starts, 0
    try:
        while step < total_steps:
            batch = runner.step(agent.explore(runner.obs, epsilon(step), rng))
            transitions = folder.step(
                batch.obs, batch.actions, batch.rewards, batch.next_obs, batch.terminated, batch.truncated, batch.valid
            )  # n-step transitions completed by this step (autoreset steps skipped), or None
            if transitions is not None:
                buffer.add(**transitions)
            step += config.num_envs
            returns, lengths = runner.pop_episodes()
            if len(returns):
                logger.log_episodes(step, returns, lengths)

            if step >= next_train:
                next_train += config.train_every
                learner.set_learning_rate(learning_rate(step))
                if config.prioritized:
                    batches = buffer.sample_many(config.gradient_steps, config.batch_size, beta(step))
                    indices = batches.pop("indices")
                    metrics = learner.update_many(batches)
                    buffer.update_priorities(indices, learner.last_priorities)
                else:
                    batches = buffer.sample_many(config.gradient_steps, config.batch_size)
                    metrics = learner.update_many(batches)
                if config.reset_optimizer_above is not None and metrics["loss"] > config.reset_optimizer_above:
                    learner.reset_optimizer()
                    optimizer_resets += 1
                agent.refresh()
                td_errors = None if config.distributional else learner.last_priorities[-1]  # C51's are not TD errors
                logger.log(
                    step,
                    **metrics,
                    **health_signals(agent.q_values(batches["obs"][-1]), td_errors),
                    optimizer_resets=optimizer_resets,
                    epsilon=epsilon(step),
                    steps_per_second=step / evaluations.elapsed(),
                )

            if evaluations.end_of_step(step, step >= total_steps, stop_when_solved):
                break
    finally:
        logger.close()
        runner.close()
    return evaluations.finish(step, logdir)
