"""DQN's agent, written once for both frameworks (numpy only); it trains in the replay loop of
:mod:`rlkit.algos.replay`, shared with Rainbow, DDPG, TD3 and SAC.

The framework appears only behind ``learner``: an object from ``torch.py`` or ``tf.py`` with
``update_many(batches, noise)``, ``get_weights()``, ``set_weights()``, ``save()`` and ``load()``. Acting goes
through :func:`rlkit.nets.q_network_forward` on a numpy copy of the online weights, refreshed after every
burst of gradient steps: at batch size one, numpy is several times faster than torch and than a
``tf.function`` (chapter 00 measures it).
"""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.dqn.config import DQNConfig
from rlkit.distributional import categorical_support, expected_q
from rlkit.envs import env_name, make_vec_env
from rlkit.errors import RlkitError
from rlkit.health import health_signals
from rlkit.nets import q_network_forward
from rlkit.policy_plan import PolicyPlan
from rlkit.schedules import LinearSchedule

#: Environment steps that solve each environment with the default config (used when total_steps is None).
#: Epsilon decays over ``eps_fraction`` of the budget, so a budget is measured as itself. Acrobot: at 25,000
#: every seed of ten (0-4, 101-105) in both frameworks reached -100 by 15,000 steps, 1.67x
#: (``benchmarks/RESULTS.md``). Rainbow's budgets start from this dictionary (``rlkit/algos/rainbow``).
DEFAULT_TOTAL_STEPS = {"CartPole-v1": 50_000, "Acrobot-v1": 25_000, "MountainCar-v0": 200_000}
FALLBACK_TOTAL_STEPS = 100_000


class DQNAgent(replay.ReplayAgent):
    """A trained (or training) DQN policy: greedy or epsilon-greedy actions from its Q-network."""

    algo = "dqn"
    config_class = DQNConfig
    learner_modules = {"torch": "rlkit.algos.dqn.torch", "tf": "rlkit.algos.dqn.tf"}

    def __init__(self, learner, env_id: str, obs_dim: int, n_actions: int, config: DQNConfig) -> None:
        super().__init__(learner, env_id, obs_dim, config)
        self.n_actions = n_actions
        self.noise_size = config.noise_size(obs_dim, n_actions)
        self.support = categorical_support(config.v_min, config.v_max, config.n_atoms)
        self.optimizer_resets = 0
        self.refresh()

    @classmethod
    def make(cls, env_id, framework: str, config: DQNConfig, seed: int = 0, device: str = "cpu"):
        """A fresh agent for ``env_id`` and the vector environment it trains on; checks the action space."""
        envs = make_vec_env(env_id, config.num_envs, seed=seed)
        space = envs.single_action_space
        if not hasattr(space, "n"):
            envs.close()
            raise RlkitError(
                f"{cls.algo.upper()} needs a discrete action space, but {env_name(env_id)} has {space}: use an "
                "algorithm for continuous actions (ddpg, td3, sac, ppo)"
            )
        obs_dim = int(np.prod(envs.single_observation_space.shape))
        learner = cls.learner_class(framework)(obs_dim, int(space.n), config, seed, device=device)
        return cls(learner, env_name(env_id), obs_dim, int(space.n), config).trained_on(env_id), envs

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

    def export_plan(self) -> PolicyPlan:
        """Argmax over the Q-values (C51's expected values for a distributional network)."""
        support = self.support.astype(np.float32) if self.config.distributional else None
        return PolicyPlan(self.obs_dim, "argmax", self.n_actions, support=support)

    def export_network(self):
        return self.learner.q

    def export_reference(self, obs: np.ndarray) -> np.ndarray:
        return self.q_values(obs)

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

    # --- the replay loop's extension points (see rlkit.algos.replay) -------------------------------------

    def begin_training(self, total_steps: int, num_envs: int, rng: np.random.Generator) -> None:
        """The epsilon and learning-rate schedules of a run of ``total_steps`` environment steps."""
        config = self.config
        self.epsilon = exploration_schedule(config, total_steps)
        final_lr = config.learning_rate * config.final_lr_fraction
        self.learning_rate = LinearSchedule(config.learning_rate, final_lr, total_steps)

    def exploration_actions(self, obs: np.ndarray, step: int, rng: np.random.Generator) -> np.ndarray:
        """Epsilon-greedy actions (noisy networks: greedy under fresh noise after a random warm-up)."""
        return self.explore(obs, self.epsilon(step), rng)

    def burst_noise_shape(self, gradient_steps: int, batch_size: int) -> tuple[int, ...]:
        """One draw per gradient step for the online and one for the target network (none without noisy layers)."""
        return (2, gradient_steps, self.noise_size)

    def train_burst(self, batches: dict[str, np.ndarray], noise: np.ndarray, step: int) -> dict[str, float]:
        self.learner.set_learning_rate(self.learning_rate(step))
        return self.learner.update_many(batches, noise)

    def after_burst(self, step: int, batches: dict[str, np.ndarray], metrics: dict[str, float]) -> dict[str, float]:
        """Optimizer resets (claim C40) and the health signals of chapter 15, from the burst's last batch."""
        config = self.config
        if config.reset_optimizer_above is not None and metrics["loss"] > config.reset_optimizer_above:
            self.learner.reset_optimizer()
            self.optimizer_resets += 1
        td_errors = None if config.distributional else self.learner.last_priorities[-1]  # C51's are not TD errors
        return {
            **health_signals(self.q_values(batches["obs"][-1]), td_errors),
            "optimizer_resets": self.optimizer_resets,
            "epsilon": self.epsilon(step),
        }

    def loop_state(self) -> dict:
        return {"optimizer_resets": self.optimizer_resets}

    def load_loop_state(self, state: dict) -> None:
        self.optimizer_resets = int(state["optimizer_resets"])

    def checkpoint_extra(self) -> dict:
        return {"n_actions": self.n_actions}

    @classmethod
    def from_checkpoint(cls, path, meta: dict, device: str = "cpu") -> DQNAgent:
        config = cls.config_class(**meta["config"])
        learner = cls.learner_class(meta["framework"])(meta["obs_dim"], meta["n_actions"], config, device=device)
        learner.load(path)
        return cls(learner, meta["env_id"], meta["obs_dim"], meta["n_actions"], config)


#: The learner class of a framework ("torch" or "tf"), importing it now (experiments build learners alone).
learner_class = DQNAgent.learner_class


def exploration_schedule(config: DQNConfig, total_steps: int):
    """Epsilon per environment step: linear decay, or for noisy networks (which explore through their noise)
    uniform-random play until ``learning_starts`` and then none."""
    if config.noisy:
        return lambda step: 1.0 if step < config.learning_starts else 0.0
    return LinearSchedule(config.eps_start, config.eps_end, max(1, int(config.eps_fraction * total_steps)))


train = replay.entry_point(DQNAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
