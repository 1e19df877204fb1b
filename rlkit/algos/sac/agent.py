"""SAC's agent and entry point; the loop is shared with DDPG and TD3 (``rlkit/algos/off_policy/agent.py``)."""

from __future__ import annotations

import numpy as np

from rlkit.algos import replay
from rlkit.algos.off_policy import agent as off_policy
from rlkit.algos.sac.config import LOG_STD_MAX, LOG_STD_MIN, SACConfig
from rlkit.exploration import Exploration, PolicySamples

#: Environment steps of a default run: about 1.5x the most any seed needed to reach -200 on Pendulum (at most
#: 7,000 over seeds 0-4 and 101-105 in both frameworks; ``benchmarks/learning/off_policy.py``,
#: ``benchmarks/RESULTS.md``). LunarLanderContinuous at 300,000 with the class defaults: at 150,000 three of
#: six runs (3 seeds per framework) still hovered below the pad, and 3-step returns or 256x256 networks only
#: moved the hovering to other seeds (``harder_tasks_variants.json``, ``sac_llc_*``); given 300,000 steps
#: the hovering runs came down (first solved at 162,000 to 294,000) and every final agent of the six was
#: solved (``benchmarks/results/harder_tasks.json``). RL Zoo trains SAC there for 500,000 steps.
#: HalfCheetah at 150,000: the steps by which the course asks for 5,000 on every seed; reached by all six
#: committed runs (3 seeds per framework, ``benchmarks/results/harder_tasks.json``). Hopper at 300,000: the
#: last of the steps at which the course reads published curves (``harder_tasks.MILESTONES``).
DEFAULT_TOTAL_STEPS = {
    "Pendulum-v1": 11_000, "LunarLanderContinuous-v3": 300_000, "HalfCheetah-v5": 150_000, "Hopper-v5": 300_000,
}  # fmt: skip
FALLBACK_TOTAL_STEPS = 100_000


class SACAgent(off_policy.OffPolicyAgent):
    """A stochastic policy: it explores by sampling tanh(mean + std * noise) and acts greedily with tanh(mean)."""

    algo = "sac"
    config_class = SACConfig
    learner_modules = {"torch": "rlkit.algos.sac.torch", "tf": "rlkit.algos.sac.tf"}

    @staticmethod
    def default_exploration(config: SACConfig) -> Exploration:
        """Uniform-random actions until ``learning_starts``, then samples of the policy (:meth:`explore`)."""
        return PolicySamples(config.learning_starts)

    def explore(self, obs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A sample of the squashed Gaussian policy: its own entropy is the exploration, no added noise."""
        mean, log_std = np.split(self.actor_output(obs), 2, axis=-1)
        std = np.exp(np.clip(log_std, LOG_STD_MIN, LOG_STD_MAX))
        return np.tanh(mean + std * rng.standard_normal(mean.shape)).astype(np.float32)


train = replay.entry_point(SACAgent, DEFAULT_TOTAL_STEPS, FALLBACK_TOTAL_STEPS)
