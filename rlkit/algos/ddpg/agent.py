"""DDPG's agent and entry point; the loop is shared with TD3 and SAC (``rlkit/algos/off_policy/agent.py``)."""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.ddpg.config import DDPGConfig
from rlkit.algos.off_policy import agent as off_policy
from rlkit.exploration import ActionNoise, Exploration
from rlkit.noise import GaussianNoise

#: Environment steps of a default run: about 1.5x the most any seed needed to reach -200 on Pendulum (at most
#: 6,000 over seeds 0-4 and 101-105 in both frameworks; ``benchmarks/learning/off_policy.py``,
#: ``benchmarks/RESULTS.md``).
DEFAULT_TOTAL_STEPS = {"Pendulum-v1": 9_000}
FALLBACK_TOTAL_STEPS = 100_000


class DDPGAgent(off_policy.OffPolicyAgent):
    """A deterministic policy; it explores by adding Gaussian or Ornstein-Uhlenbeck noise to its actions."""

    algo = "ddpg"
    config_class = DDPGConfig
    learner_modules = {"torch": "rlkit.algos.ddpg.torch", "tf": "rlkit.algos.ddpg.tf"}

    @staticmethod
    def default_exploration(config: DDPGConfig) -> Exploration:
        """Uniform-random actions until ``learning_starts``, then the config's noise (``exploration``,
        ``exploration_noise``) on the deterministic action."""
        return ActionNoise(config.exploration, config.exploration_noise, config.learning_starts)

    def explore(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The deterministic action plus Gaussian noise of scale ``exploration_noise``, clipped into [-1, 1]
        (one call carries no state: the loop's Ornstein-Uhlenbeck process lives in its exploration)."""
        noise = GaussianNoise(self.config.exploration_noise, (len(obs), self.action_dim), rng)()
        return np.clip(self.policy(obs) + noise, -1.0, 1.0).astype(np.float32)

    def end_training(self) -> None:
        """With ``final_actor="target"``, act from now on with the target actor, the Polyak average of the
        online one: copied in numpy, the same in both frameworks (the learner's weights list the actor first)."""
        if self.config.final_actor == "target":
            online, average = self.get_weights(), self.actor_part(self.learner.target_weights())
            self.set_weights([*average, *online[len(average) :]])


train = replay.entry_point(DDPGAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
