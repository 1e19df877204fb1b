"""DDPG's agent and entry point; the loop is shared with TD3 and SAC (``rlkit/algos/off_policy/agent.py``)."""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.ddpg.config import DDPGConfig
from rlkit.algos.off_policy import agent as off_policy
from rlkit.noise import make_noise
from rlkit.state import object_state, restore_object

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
    noise = None

    def begin_exploration(self, num_envs: int, rng: np.random.Generator) -> None:
        """Build the noise process, unless one of the right shape exists: a continued or resumed run keeps its
        OU state (rebuilding it would restart the process at zero)."""
        config = self.config
        if self.noise is None or self.noise.shape != (num_envs, self.action_dim):
            self.noise = make_noise(config.exploration, config.exploration_noise, (num_envs, self.action_dim), rng)

    def loop_state(self) -> dict:
        """The exploration noise: an OU process's state carries from step to step."""
        return object_state(self, nested=("noise",)).get("noise", {})

    def load_loop_state(self, state: dict) -> None:
        if state:
            restore_object(self.noise, state["object"])

    def end_episodes(self, done: np.ndarray) -> None:
        self.noise.reset(done)

    def explore(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The deterministic action plus noise, clipped back into [-1, 1]."""
        if self.noise is None or self.noise.shape[0] != len(obs):
            self.begin_exploration(len(obs), rng)
        return np.clip(self.policy(obs) + self.noise(), -1.0, 1.0).astype(np.float32)


train = replay.entry_point(DDPGAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
