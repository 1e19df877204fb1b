"""DQN's agent, written once for both frameworks (numpy only); it trains in the replay loop of
:mod:`rlkit.algos.replay`, shared with Rainbow, DDPG, TD3 and SAC.

The framework appears only behind ``learner``: an object from ``torch.py`` or ``tf.py`` with
``update_many(batches)`` (the burst's noise is its ``"noise"`` entry), ``get_weights()``, ``set_weights()``,
``save()`` and ``load()``. Acting goes through :func:`rlkit.nets.q_network_forward` on a numpy copy of the
online weights, refreshed after every burst of gradient steps: at batch size one, numpy is several times
faster than torch and than a ``tf.function`` (chapter 00 measures it). How DQN explores while training is
its default exploration (:mod:`rlkit.exploration`: epsilon-greedy, or noisy nets).
"""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.dqn.config import DQNConfig
from rlkit.atari import MINATAR_IDS
from rlkit.distributional import categorical_support, expected_q
from rlkit.encoders import ImageSpec, encode, image_spec, refuse_export, split_encoder
from rlkit.envs import env_name, make_vec_env
from rlkit.errors import RlkitError
from rlkit.exploration import EpsilonGreedy, Exploration, NoisyNets
from rlkit.health import health_signals
from rlkit.nets import q_network_forward
from rlkit.policy_plan import PolicyPlan

#: Environment steps that solve each environment with the default config (used when total_steps is None).
#: Epsilon decays over ``eps_fraction`` of the budget, so a budget is measured as itself. Acrobot: at 25,000
#: every seed of ten (0-4, 101-105) in both frameworks reached -100 by 15,000 steps, 1.67x
#: (``benchmarks/RESULTS.md``). LunarLander: 200,000, where the slowest seed measured at 150,000 was still
#: rising (``DQNConfig.env_defaults``). Rainbow's budgets start from this dictionary (``rlkit/algos/rainbow``).
DEFAULT_TOTAL_STEPS = {
    "CartPole-v1": 50_000, "Acrobot-v1": 25_000, "MountainCar-v0": 200_000, "LunarLander-v3": 200_000,
    **dict.fromkeys(MINATAR_IDS, 500_000),
    # RL Zoo's and CleanRL's Atari budget: 10M agent steps (40M frames), a GPU's work (chapter 16)
    **{
        f"ALE/{game}-v5": 10_000_000
        for game in ("Pong", "Breakout", "SpaceInvaders", "Seaquest", "BeamRider", "Qbert", "Enduro")
    },
}  # fmt: skip
FALLBACK_TOTAL_STEPS = 100_000


class DQNAgent(replay.ReplayAgent):
    """A trained (or training) DQN policy: greedy or epsilon-greedy actions from its Q-network."""

    algo = "dqn"
    config_class = DQNConfig
    learner_modules = {"torch": "rlkit.algos.dqn.torch", "tf": "rlkit.algos.dqn.tf"}

    def __init__(
        self, learner, env_id: str, obs_dim: int, n_actions: int, config: DQNConfig, image: ImageSpec | None = None
    ) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.n_actions = n_actions
        #: The image observations' description and encoder (``rlkit/encoders.py``), None for flat ones.
        self.image = image
        if image is not None:
            self.obs_shape, self.obs_dtype = image.shape, np.dtype(image.dtype)
        self.noise_size = config.noise_size(obs_dim if image is None else image.flat_size, n_actions)
        self.support = categorical_support(config.v_min, config.v_max, config.n_atoms)
        #: One draw per gradient step for the online and one for the target network (none without noisy layers).
        self.burst_noise_shape = (2, config.gradient_steps, self.noise_size)
        self.health = BurstHealth(config)
        self.refresh()

    @staticmethod
    def default_exploration(config: DQNConfig) -> Exploration:
        """Epsilon-greedy on the config's schedule; a noisy network explores through its noise instead, after
        ``learning_starts`` uniform-random steps."""
        if config.noisy:
            return NoisyNets(config.learning_starts)
        return EpsilonGreedy(config.eps_start, config.eps_end, config.eps_fraction)

    @classmethod
    def make(cls, env_id, framework: str, config: DQNConfig, seed: int = 0, device: str = "cpu"):
        """A fresh agent for ``env_id`` and the vector environment it trains on; checks the action space."""
        envs = make_vec_env(env_id, config.num_envs, seed=seed, training=True)
        space = envs.single_action_space
        if not hasattr(space, "n"):
            envs.close()
            raise RlkitError(
                f"{cls.algo.upper()} needs a discrete action space, but {env_name(env_id)} has {space}: use an "
                "algorithm for continuous actions (ddpg, td3, sac, ppo)"
            )
        obs_dim = int(np.prod(envs.single_observation_space.shape))
        image = image_spec(envs.single_observation_space, config.encoder)
        learner = cls.learner_class(framework)(obs_dim, int(space.n), config, seed, device=device, image=image)
        return cls(learner, env_name(env_id), obs_dim, int(space.n), config, image).trained_on(env_id), envs

    def refresh(self) -> list[np.ndarray]:
        """Copy the learner's current online weights into the numpy forward pass used for acting; return them.

        The training loop calls this after every burst of updates; call it yourself after updating
        ``agent.learner`` directly.
        """
        self._weights = self.learner.get_weights()
        return self._weights

    def q_values(self, obs: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
        """Q-values of a batch of observations, shape (batch, n_actions), from the last :meth:`refresh`.

        A noisy network uses one ``noise`` draw for the batch (None: its mean weights); a distributional
        one returns the mean of each action's return distribution.
        """
        config = self.config
        encoder, dense = split_encoder(self._weights, self.image)
        if self.image is not None:
            obs = encode(encoder, obs, self.image)
        out = q_network_forward(
            dense, obs, dueling=config.dueling, noisy=config.noisy, n_atoms=config.atoms, noise=noise
        )
        return expected_q(out, self.support) if config.distributional else out

    def export_plan(self) -> PolicyPlan:
        """Argmax over the Q-values (C51's expected values for a distributional network)."""
        refuse_export(self.image)
        support = self.support.astype(np.float32) if self.config.distributional else None
        return PolicyPlan(self.obs_dim, "argmax", self.n_actions, support=support)

    def export_network(self):
        return self.learner.q

    def export_reference(self, obs: np.ndarray) -> np.ndarray:
        return self.q_values(obs)

    def act(self, obs: np.ndarray, deterministic: bool = True) -> np.ndarray | int:
        """Greedy actions for a batch of observations (an int for a single observation)."""
        del deterministic  # DQN's policy is greedy; exploration is the loop's job (rlkit.exploration)
        obs = np.asarray(obs, dtype=self.obs_dtype)
        if obs.ndim == len(self.obs_shape):
            return int(self.q_values(obs[None]).argmax())
        return self.q_values(obs).argmax(axis=1)

    def checkpoint_extra(self) -> dict:
        return {"n_actions": self.n_actions, "image": None if self.image is None else self.image.as_dict()}

    @classmethod
    def from_meta(cls, meta: dict, device: str = "cpu") -> DQNAgent:
        config = cls.config_class(**meta["config"])
        image = None if meta.get("image") is None else ImageSpec.from_dict(meta["image"])
        learner = cls.learner_class(meta["framework"])(
            meta["obs_dim"], meta["n_actions"], config, device=device, image=image
        )
        return cls(learner, meta["env_id"], meta["obs_dim"], meta["n_actions"], config, image)


class BurstHealth:
    """What DQN's loop watches after each burst: optimizer resets when the loss passes
    ``reset_optimizer_above`` (claim C40), and the health signals of chapter 15 from the burst's last batch."""

    def __init__(self, config: DQNConfig) -> None:
        self.config = config
        self.optimizer_resets = 0

    def after_burst(self, agent: DQNAgent, batches: dict[str, np.ndarray], metrics: dict[str, float]) -> dict:
        config = self.config
        if config.reset_optimizer_above is not None and metrics["loss"] > config.reset_optimizer_above:
            agent.learner.reset_optimizer()
            self.optimizer_resets += 1
        td_errors = None if config.distributional else agent.learner.last_priorities[-1]  # C51's are not TD errors
        signals = health_signals(agent.q_values(batches["obs"][-1]), td_errors)
        return {**signals, "optimizer_resets": self.optimizer_resets}

    def state_dict(self) -> dict:
        return {"optimizer_resets": self.optimizer_resets}

    def load_state_dict(self, state: dict) -> None:
        self.optimizer_resets = int(state["optimizer_resets"])


#: The learner class of a framework ("torch" or "tf"), importing it now (experiments build learners alone).
learner_class = DQNAgent.learner_class


train = replay.entry_point(DQNAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
