"""The actor-critic agent and training loop, written once for A2C and PPO and both frameworks (numpy only).

Per update: collect ``num_steps`` steps of ``num_envs`` environments, acting through a numpy copy of the
actor; compute the rollout's values and old log-probabilities in one batched framework call; compute
GAE in numpy; then hand ``epochs`` shuffled passes of minibatch indices to the learner's ``update``.
"""

from __future__ import annotations

import math

import numpy as np

from rlkit.advantages import compute_gae
from rlkit.algos import training
from rlkit.algos.actor_critic.config import ActorCriticConfig
from rlkit.algos.agent_base import Agent
from rlkit.buffers import RolloutBuffer
from rlkit.encoders import ImageSpec, encode, image_spec, refuse_export, split_encoder
from rlkit.envs import env_name, make_vec_env, space_info
from rlkit.errors import RlkitError
from rlkit.health import explained_variance
from rlkit.nets import mlp_forward
from rlkit.normalize import ObservationNormalizer, RewardScaler
from rlkit.numerics import check_finite_metrics, check_finite_weights, check_rollout
from rlkit.policy_plan import PolicyPlan
from rlkit.state import object_state, restore_object


class RolloutLoop(training.Loop):
    """One on-policy run as an object (see :class:`~rlkit.algos.training.Loop`): per ``advance``, collect
    ``num_steps`` steps of ``num_envs`` environments acting through the numpy actor, compute the rollout's
    values and old log-probabilities in one batched call, GAE in numpy, then ``epochs`` shuffled passes
    of minibatches in the learner's ``update``. The plan is a whole number of rollouts."""

    def __init__(self, agent: ActorCriticAgent, envs, seed: int, rng, plan: int) -> None:
        config = agent.config
        self.rollout = config.num_steps * config.num_envs
        super().__init__(agent, envs, seed, rng, self.whole_rollouts(plan))
        space = envs.single_action_space
        self.buffer = RolloutBuffer(
            config.num_steps, config.num_envs, agent.obs_shape, space.shape, space.dtype, obs_dtype=agent.obs_dtype
        )
        self.scale_rewards = RewardScaler(config.num_envs, config.gamma, enabled=config.normalize_rewards)
        self.begin()

    def whole_rollouts(self, steps: int) -> int:
        return max(1, math.ceil(steps / self.rollout)) * self.rollout

    def target(self, steps: int) -> int:
        return self.step + self.whole_rollouts(steps)

    def advance(self, hooks) -> bool:
        """One rollout and the update on it; True when a callback asks to stop."""
        agent, config, logger, buffer, rng = self.agent, self.agent.config, self.logger, self.buffer, self.rng
        learner = agent.learner
        self.set_learning_rate(self.step)  # linear annealing over the plan (the config's schedule)
        remaining = 1.0 - self.step / self.plan
        clip_range = config.clip_range * (remaining if config.anneal_clip else 1.0)

        buffer.reset()
        stop = self.collect(hooks)
        step = self.step
        check_rollout({"rewards": buffer.rewards, "obs": buffer.obs}, step)  # before learning from it

        flat_obs = buffer.obs.reshape(-1, *agent.obs_shape)  # images stay as stored
        flat_actions = buffer.actions.reshape(self.rollout, *buffer.actions.shape[2:])
        values, old_log_probs = learner.values_and_log_probs(flat_obs, flat_actions)
        values = values.reshape(config.num_steps + 1, config.num_envs)
        advantages, value_targets = compute_gae(
            buffer.rewards, values, buffer.terminated, buffer.dones, buffer.valid, config.gamma, config.gae_lambda
        )
        data = buffer.flatten(
            old_log_probs=old_log_probs.reshape(config.num_steps, config.num_envs),
            advantages=advantages,
            returns=value_targets,
            old_values=values[:-1].astype(np.float32),
        )
        minibatches = np.stack(
            [minibatch_indices(len(data["obs"]), config.num_minibatches, rng) for _ in range(config.epochs)]
        )
        max_kl = np.inf if config.target_kl is None else 1.5 * config.target_kl
        metrics = learner.update(data, minibatches, clip_range, max_kl)
        check_finite_metrics(metrics, step)
        check_finite_weights(agent, step, agent.refresh())
        metrics["explained_variance"] = explained_variance(data["old_values"], data["returns"])
        logger.log(step, **metrics, clip_range=clip_range, steps_per_second=self.steps_per_second())
        return hooks.on_burst(step, metrics) or stop

    def collect(self, hooks) -> bool:
        """Fill the buffer with one rollout, acting here; True when a callback asks to stop. The extension
        point of loops that collect elsewhere (``rlkit.distributed``: the same steps on Ray actors)."""
        agent, runner, normalize = self.agent, self.runner, self.agent.obs_normalizer
        stop = False
        for t in range(self.agent.config.num_steps):
            obs = normalize(runner.obs, update=True)
            agent.reset_noise(t, self.rng, self.agent.config.num_envs)  # gSDE only
            actions = agent.sample(obs, self.rng)
            batch = runner.step(agent.to_env(actions))
            stop = self.record(obs, actions, batch, *runner.pop_episodes(), hooks) or stop
        self.buffer.finish(normalize(runner.obs))
        return stop

    def record(self, obs, actions, batch, returns: np.ndarray, lengths: np.ndarray, hooks) -> bool:
        """Store one vector step (rewards scaled), log the episodes it ended, count it and tell the callbacks."""
        num_envs = self.agent.config.num_envs
        rewards = self.scale_rewards(batch.rewards, batch.terminated | batch.truncated)
        self.buffer.add(obs, actions, rewards, batch.terminated, batch.truncated, batch.valid)
        if len(returns):
            self.logger.log_episodes(self.step + num_envs, returns, lengths)
        self.step += num_envs
        return hooks.on_step(self.step)

    def state(self, replay_buffer: bool = True) -> dict:
        """Everything to continue this run exactly (an on-policy run keeps no replay buffer)."""
        return {**self.common_state(), "scale_rewards": object_state(self.scale_rewards, nested=("stats",))}

    def load_state(self, state: dict) -> None:
        self.load_common_state(state)
        restore_object(self.scale_rewards, state["scale_rewards"])
        self.begin()


class ActorCriticAgent(Agent):
    """A stochastic policy (categorical or diagonal Gaussian) acting through numpy; subclassed per algorithm."""

    algo = "actor-critic"
    config_class = ActorCriticConfig
    #: The loop that trains this family (``rlkit.train(workers=...)`` passes its Ray twin instead).
    loop_class = RolloutLoop

    def __init__(
        self,
        learner,
        env_id: str,
        obs_dim: int,
        action: dict,
        config: ActorCriticConfig,
        image: ImageSpec | None = None,
    ) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.action, self.discrete = action, action["discrete"]
        #: The image observations' description and encoders (``rlkit/encoders.py``), None for flat ones.
        self.image = image
        #: gSDE's exploration matrices, (num_envs, hidden_sizes[-1], action_dim), drawn by :meth:`reset_noise`
        #: and held between draws; None without gSDE (or before a rollout's first draw).
        self.noise: np.ndarray | None = None
        if image is None:
            self.obs_normalizer = ObservationNormalizer((obs_dim,), enabled=config.normalize_obs)
        else:
            self.obs_shape, self.obs_dtype = image.shape, np.dtype(image.dtype)
            self.obs_normalizer = ImagesAsStored(self.obs_dtype)
        self.refresh()

    @classmethod
    def make(cls, env_id, framework: str, config, seed: int = 0, device: str = "cpu"):
        """A fresh agent for ``env_id`` and the vector environment it trains on."""
        envs = make_vec_env(env_id, config.num_envs, seed=seed, training=True)
        try:
            image = read_images(envs.single_observation_space, config, cls.algo, env_name(env_id))
        except RlkitError:
            envs.close()
            raise
        action = space_info(envs.single_action_space)
        obs_dim = int(np.prod(envs.single_observation_space.shape))
        shape = (obs_dim, action_dim(action), action["discrete"])
        learner = cls.learner_class(framework)(*shape, config, seed, device=device, image=image)
        return cls(learner, env_name(env_id), obs_dim, action, config, image).trained_on(env_id), envs

    def refresh(self) -> list[np.ndarray]:
        """Copy the learner's actor weights (its encoder's first, for images; and the log std) into the numpy
        forward pass used for acting; return every array read. With gSDE ``_std`` is sigma,
        (hidden_sizes[-1], action_dim)."""
        weights = self.learner.get_weights()
        encoder_arrays = 0 if self.image is None else 2 * len(self.image.convs)
        actor_arrays = encoder_arrays + 2 * (len(self.config.hidden_sizes) + 1)
        self._encoder, self._actor = split_encoder(weights[:actor_arrays], self.image)
        self._std = None if self.discrete else np.exp(weights[-1])
        return weights

    def policy_output(self, normalized_obs: np.ndarray) -> np.ndarray:
        """Logits (discrete) or Gaussian means (continuous) for a batch of normalised observations (images as
        stored: the encoder scales them)."""
        if self.image is not None:
            normalized_obs = encode(self._encoder, normalized_obs, self.image)
        return mlp_forward(self._actor, normalized_obs, activation="tanh")

    def policy_features(self, normalized_obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """gSDE: the Gaussian means and the actor's last hidden activations z(s), the latent features its noise
        multiplies (flat observations: ``check_sde`` refuses images). The means equal :meth:`policy_output`'s."""
        features = np.tanh(mlp_forward(self._actor[:-2], normalized_obs, activation="tanh"))
        return features @ self._actor[-2] + self._actor[-1], features

    def export_plan(self) -> PolicyPlan:
        """The observation normalisation, then argmax over the logits or the Gaussian mean clipped to the
        bounds."""
        refuse_export(self.image)
        f32, stats = np.float32, self.obs_normalizer.plan_fields()
        if self.discrete:
            return PolicyPlan(self.obs_dim, "argmax", self.action["n"], **stats)
        low, high = (np.asarray(self.action[k], dtype=f32) for k in ("low", "high"))
        return PolicyPlan(self.obs_dim, "clip", action_dim(self.action), low=low, high=high, **stats)

    def export_network(self):
        return self.learner.actor

    def export_reference(self, obs: np.ndarray) -> np.ndarray:
        return self.policy_output(self.obs_normalizer(obs))

    def draw_noise(self, rng: np.random.Generator, rows: int) -> np.ndarray:
        """gSDE: ``rows`` exploration matrices E, each entry ~ N(0, sigma^2) for the current log std matrix."""
        return self._std * rng.standard_normal((rows, *self._std.shape))

    def reset_noise(self, step: int, rng: np.random.Generator, rows: int) -> None:
        """gSDE: before step ``step`` of a rollout, draw new matrices for the ``rows`` environments when due: at
        step 0 and every ``sde_sample_freq`` steps (at step 0 only if that is <= 0), else keep them. Without
        gSDE nothing is drawn, so the run's random stream is the plain Gaussian's.

        Every rollout starts with a draw from the loop's generator, and a run is saved and resumed at a
        rollout's boundary (after its update): a resumed run draws the same matrices from the restored
        generator as the uninterrupted one, so the noise itself is never saved."""
        freq = self.config.sde_sample_freq
        if self.config.use_sde and (step == 0 or (freq > 0 and step % freq == 0)):
            self.noise = self.draw_noise(rng, rows)

    def sample(
        self, normalized_obs: np.ndarray, rng: np.random.Generator, noise: np.ndarray | None = None
    ) -> np.ndarray:
        """Raw policy samples: action indices, or unclipped Gaussian draws (what log-probabilities refer to).
        With gSDE, mu(s) + z(s) E with the held matrices E (:meth:`reset_noise`; ``noise`` instead, one per row):
        rng is not read, the noise was drawn when the matrices were."""
        if self.config.use_sde and not self.discrete:
            means, features = self.policy_features(normalized_obs)
            matrices = self.noise if noise is None else noise
            if matrices is None or len(matrices) != len(means):
                got = None if matrices is None else matrices.shape
                raise RlkitError(
                    f"gSDE samples with one noise matrix per observation: {len(means)} observations and noise "
                    f"{got}: call reset_noise(step, rng, {len(means)}) first, or pass noise=draw_noise(rng, rows)"
                )
            return (means + np.einsum("bh,bha->ba", features, matrices)).astype(np.float32)
        out = self.policy_output(normalized_obs)
        if self.discrete:  # Gumbel-max: argmax(logits + Gumbel noise) is a categorical sample
            return (out - np.log(-np.log(rng.random(out.shape)))).argmax(axis=1)
        return (out + self._std * rng.standard_normal(out.shape)).astype(np.float32)

    def to_env(self, actions: np.ndarray) -> np.ndarray:
        """What the environment receives: Gaussian samples clipped to the action bounds."""
        if self.discrete:
            return actions
        return np.clip(actions, self.action["low"], self.action["high"])

    def act(self, obs: np.ndarray, deterministic: bool = True, rng: np.random.Generator | None = None):
        """Actions for a batch of raw observations (an action for a single one): the mode, or a sample."""
        obs = np.asarray(obs, dtype=self.obs_dtype)
        single = obs.ndim == len(self.obs_shape)
        normalized = self.obs_normalizer(obs[None] if single else obs)
        if deterministic:
            out = self.policy_output(normalized)
            actions = out.argmax(axis=1) if self.discrete else out
        else:
            rng = rng or np.random.default_rng()
            # gSDE: fresh matrices for this call's observations (the loop's held ones are its rollout's)
            noise = self.draw_noise(rng, len(normalized)) if self.config.use_sde else None
            actions = self.sample(normalized, rng, noise)
        actions = self.to_env(actions)
        return (int(actions[0]) if self.discrete else actions[0]) if single else actions

    def loop_state(self) -> dict:
        """The observation statistics keep changing while training goes on."""
        return object_state(self.obs_normalizer.stats)

    def load_loop_state(self, state: dict) -> None:
        restore_object(self.obs_normalizer.stats, state)

    def snapshot(self):
        """Weights and observation statistics: the policy is both."""
        return self.get_weights(), self.obs_normalizer.stats.state()

    def restore(self, snapshot) -> None:
        self.set_weights(snapshot[0])
        self.obs_normalizer.stats.load_state(snapshot[1])

    def checkpoint_extra(self) -> dict:
        action = {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in self.action.items()}
        image = None if self.image is None else self.image.as_dict()
        return {"action": action, "obs_normalizer": self.obs_normalizer.stats.state(), "image": image}

    @classmethod
    def from_meta(cls, meta: dict, device: str = "cpu") -> ActorCriticAgent:
        config = cls.config_class(**meta["config"])
        action = {k: (np.asarray(v, dtype=np.float32) if isinstance(v, list) else v) for k, v in meta["action"].items()}
        image = None if meta.get("image") is None else ImageSpec.from_dict(meta["image"])
        shape = (meta["obs_dim"], action_dim(action), action["discrete"])
        learner = cls.learner_class(meta["framework"])(*shape, config, device=device, image=image)
        agent = cls(learner, meta["env_id"], meta["obs_dim"], action, config, image)
        agent.obs_normalizer.stats.load_state(meta["obs_normalizer"])
        return agent


class ImagesAsStored(ObservationNormalizer):
    """The observation "normaliser" of an agent that reads images: none. Images pass through in their stored
    dtype (uint8 pixels, bool grids) to the encoders, which scale them; running statistics would standardise
    each pixel by its own history (a constant background pixel into noise) and hand float32 copies around."""

    def __init__(self, dtype: np.dtype) -> None:
        super().__init__((), enabled=False)
        self.dtype = dtype

    def __call__(self, obs: np.ndarray, update: bool = False) -> np.ndarray:
        return np.asarray(obs, dtype=self.dtype)


def read_images(space, config: ActorCriticConfig, algo: str, name: str) -> ImageSpec | None:
    """The :class:`~rlkit.encoders.ImageSpec` the actor and critic read ``space`` with (None for flat
    observations); refuses by name what they cannot read."""
    image = image_spec(space, config.encoder)
    if image is not None and config.normalize_obs:
        raise RlkitError(
            f"{algo.upper()} reads {name}'s images through convolutional encoders, which scale the pixels "
            "themselves: normalize_obs=True would standardise each pixel by its own running statistics. Train with "
            "normalize_obs=False"
        )
    return image


def action_dim(action: dict) -> int:
    """Logits per observation (discrete) or action dimensions (continuous)."""
    return int(action["n"]) if action["discrete"] else int(np.prod(action["shape"]))


def minibatch_indices(size: int, num_minibatches: int, rng: np.random.Generator) -> np.ndarray:
    """A shuffled permutation of ``range(size)`` cut into ``num_minibatches`` equal rows (remainder dropped)."""
    per_batch = size // num_minibatches
    return rng.permutation(size)[: per_batch * num_minibatches].reshape(num_minibatches, per_batch)


def entry_point(agent_class: type[ActorCriticAgent], default_total_steps: dict[str, int], fallback_total_steps: int):
    """The ``train`` function of an actor-critic algorithm package, with its per-environment step budgets."""
    return training.entry_point(agent_class, default_total_steps, fallback_total_steps)
