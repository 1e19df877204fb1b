"""The agent of DDPG, TD3 and SAC, written once for the three and both frameworks (numpy); it trains in the
replay loop of :mod:`rlkit.algos.replay`, shared with DQN.

Actions live in [-1, 1] (the actors end in tanh) and are rescaled to the environment's bounds only on their
way out, so the buffer, the critics and the noise never see environment units. Acting goes through a numpy
copy of the actor, refreshed after every burst; all randomness (exploration noise, TD3's smoothing noise,
SAC's samples) is drawn in numpy from the run's generator, so a seed fixes a run in either framework.
"""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.off_policy.config import OffPolicyConfig
from rlkit.encoders import refuse_images
from rlkit.envs import env_name, make_vec_env, space_info
from rlkit.errors import RlkitError
from rlkit.nets import mlp_forward
from rlkit.normalize import ObservationNormalizer
from rlkit.policy_plan import PolicyPlan


class OffPolicyAgent(replay.ReplayAgent):
    """A policy for continuous actions acting through numpy; subclassed per algorithm."""

    algo = "off-policy"
    config_class = OffPolicyConfig

    action_dtype = np.float32

    def __init__(self, learner, env_id: str, obs_dim: int, action: dict, config: OffPolicyConfig) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.action = action
        self.action_dim = int(np.prod(action["shape"]))
        self.action_shape = (self.action_dim,)
        self.low = np.asarray(action["low"], dtype=np.float32)
        self.high = np.asarray(action["high"], dtype=np.float32)
        #: TD3's smoothing noise or SAC's samples: ``noise_draws`` per transition of every batch of a burst.
        self.burst_noise_shape = (config.gradient_steps, learner.noise_draws, config.batch_size, self.action_dim)
        #: The critics' |TD errors| are computed only with ``prioritized`` (they cost a few ops per step).
        self.reports_priorities = config.prioritized
        if config.normalize_obs:
            self.obs_normalizer = ObservationNormalizer((obs_dim,))
        self.refresh()

    @classmethod
    def make(cls, env_id, framework: str, config, seed: int = 0, device: str = "cpu"):
        """A fresh agent for ``env_id`` and the vector environment it trains on; checks the action space."""
        envs = make_vec_env(env_id, config.num_envs, seed=seed, training=True)
        action = space_info(envs.single_action_space)
        if action["discrete"]:
            envs.close()
            raise RlkitError(
                f"{cls.algo.upper()} needs a continuous (Box) action space, but {env_name(env_id)} has "
                f"{envs.single_action_space}: use dqn, ppo or a2c for discrete actions"
            )
        if not (np.isfinite(action["low"]).all() and np.isfinite(action["high"]).all()):
            envs.close()
            raise RlkitError(
                f"{cls.algo.upper()} squashes its actions into the action space's bounds, but {env_name(env_id)}'s "
                f"{envs.single_action_space} is unbounded: use ppo, whose Gaussian policy needs no bounds"
            )
        refuse_images(envs, cls.algo, env_name(env_id))
        obs_dim = int(np.prod(envs.single_observation_space.shape))
        learner = cls.learner_class(framework)(obs_dim, int(np.prod(action["shape"])), config, seed, device=device)
        return cls(learner, env_name(env_id), obs_dim, action, config).trained_on(env_id), envs

    def actor_part(self, weights: list[np.ndarray]) -> list[np.ndarray]:
        """The actor's arrays of a learner's weight list (it lists the actor first: a kernel and a bias per layer)."""
        return weights[: 2 * (len(self.config.hidden_sizes) + 1)]

    def refresh(self) -> list[np.ndarray]:
        """Copy the learner's actor weights into the numpy forward pass used for acting; return every array
        read."""
        weights = self.learner.get_weights()
        self._actor = self.actor_part(weights)
        return weights

    def actor_output(self, obs: np.ndarray) -> np.ndarray:
        """The actor network's raw output for a batch of raw observations (numpy, from the last refresh),
        standardised first with ``normalize_obs``."""
        if self.obs_normalizer is not None:
            obs = self.obs_normalizer(obs)
        return mlp_forward(self._actor, obs)

    def export_plan(self) -> PolicyPlan:
        """The observation standardisation (with ``normalize_obs``), then tanh of the actor's first
        ``action_dim`` outputs, rescaled to the action bounds."""
        stats = {} if self.obs_normalizer is None else self.obs_normalizer.plan_fields()
        return PolicyPlan(self.obs_dim, "tanh", self.action_dim, low=self.low, high=self.high, **stats)

    def export_network(self):
        return self.learner.actor

    def export_reference(self, obs: np.ndarray) -> np.ndarray:
        return self.actor_output(obs)[:, : self.action_dim]

    def policy(self, obs: np.ndarray) -> np.ndarray:
        """Deterministic actions in [-1, 1] for a batch: tanh of the actor's (first) outputs."""
        return np.tanh(self.actor_output(obs)[:, : self.action_dim])

    def explore(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Exploratory actions in [-1, 1] for a batch of observations, as ``act(deterministic=False)`` takes
        them (see DDPG and SAC; training explores through :mod:`rlkit.exploration`)."""
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

    def snapshot(self):
        """Weights, and the observation statistics where there are some: the policy is both."""
        stats = None if self.obs_normalizer is None else self.obs_normalizer.stats.state()
        return self.get_weights(), stats

    def restore(self, snapshot) -> None:
        self.set_weights(snapshot[0])
        if snapshot[1] is not None:
            self.obs_normalizer.stats.load_state(snapshot[1])

    def checkpoint_extra(self) -> dict:
        extra = {"action": {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.action.items()}}
        if self.obs_normalizer is not None:
            extra["obs_normalizer"] = self.obs_normalizer.stats.state()
        return extra

    @classmethod
    def from_meta(cls, meta: dict, device: str = "cpu") -> OffPolicyAgent:
        config = cls.config_class(**meta["config"])
        action = dict(meta["action"], shape=tuple(meta["action"]["shape"]))
        action["low"], action["high"] = (np.asarray(action[k], dtype=np.float32) for k in ("low", "high"))
        action_dim = int(np.prod(action["shape"]))
        learner = cls.learner_class(meta["framework"])(meta["obs_dim"], action_dim, config, device=device)
        agent = cls(learner, meta["env_id"], meta["obs_dim"], action, config)
        if agent.obs_normalizer is not None:
            agent.obs_normalizer.stats.load_state(meta["obs_normalizer"])
        return agent
