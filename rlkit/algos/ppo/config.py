"""PPO's defaults (the fields are shared with A2C: see ``rlkit/algos/actor_critic/config.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rlkit.algos.actor_critic.config import ActorCriticConfig
from rlkit.atari import MINATAR_IDS


@dataclass
class PPOConfig(ActorCriticConfig):
    """PPO (Schulman et al. 2017). Defaults chosen on CartPole-v1; ``env_defaults`` adapts them per env."""

    #: Per-environment defaults, applied before the user's own overrides (see ``for_env``).
    env_defaults: ClassVar[dict[str, dict]] = {
        # CartPole: Stable-Baselines3's PPO with the zoo's settings, whole: the class's rollouts, epochs and
        # rates (the zoo's), no entropy bonus, over the zoo's 100,000 steps (DEFAULT_TOTAL_STEPS), the value
        # loss weighed as SB3 weighs it (vf_coef 1.0 on rlkit's half squared error = SB3's 0.5 on the whole)
        # and SB3's Adam epsilon 1e-5. On seeds 0-29, both frameworks: 60 of 60 final agents solved and every
        # evaluation of the second halves (the earlier default, an entropy bonus of 0.01 over 60,000 steps: 57
        # of 60), median first solve 17,664 (torch) and 20,224 (TF) against SB3's 20,000 on the same seeds.
        # benchmarks/RESULTS.md, "PPO on CartPole-v1: Stable-Baselines3's settings whole".
        "CartPole-v1": {"vf_coef": 1.0, "adam_eps": 1e-5},
        # Pendulum: the RL-Zoo's rollouts, epochs, minibatches of 64, rate and gSDE (noise held for 4 steps), with
        # the class's discount (0.98) for the zoo's 0.9 (at 0.9 without gSDE, 7 of 10 TF and 6 of 10 torch final
        # agents were solved, seeds 100-109; at 0.98, 10 and 9, and 9 and 9 on 200-209) and observation
        # normalisation off: with it, gSDE's runs crossed -200 early and fell back (8 of 10 final agents solved per
        # framework); without it, 60 of 60 on seeds 100-109, 200-209 and 300-309, both frameworks, at a median
        # first solve of 20,480 to 32,768 steps with minibatches of 128, and 20,480 on every set with the zoo's 64
        # (60 of 60 again), against 61,440 to 73,728 for the plain Gaussian. benchmarks/RESULTS.md, "PPO on
        # Pendulum-v1 with gSDE".
        "Pendulum-v1": {
            "num_envs": 4, "num_steps": 1024, "gae_lambda": 0.95, "epochs": 10,
            "num_minibatches": 64, "learning_rate": 1e-3, "anneal_clip": False, "use_sde": True,
            "sde_sample_freq": 4, "normalize_obs": False, "normalize_rewards": True, "eval_episodes": 20,
            # an entropy bonus, chosen for the plain Gaussian at the zoo's discount 0.9: without it 2 of 10 seeds
            # (102, 104 in TF, 120k steps) settled at about -420 and never reached -200; with 0.01 one in torch
            # (103) still did; with 0.03 every seed of ten reached -200 in both frameworks. With gSDE and
            # without it, observations normalised, 8 and 5 of 10 final agents were solved (benchmarks/RESULTS.md)
            "ent_coef": 0.03,
        },
        # LunarLander: RL Zoo's rollouts and discounting (16 x 1,024 steps, gamma 0.999, lambda 0.98, 4 epochs of
        # minibatches of 64, an entropy bonus of 0.01), rlkit's learning rate and clip annealing kept. One seed
        # (torch, 0), 1M steps: the evaluations held 240-265 from 450k steps on, final agent 260 +- 20 (20
        # episodes). The same rollouts with 10 epochs of 16 minibatches and the rate annealed ended at 215 +- 56.
        # Every seed and both frameworks: benchmarks/results/harder_tasks.json.
        "LunarLander-v3": {
            "num_envs": 16, "num_steps": 1024, "gamma": 0.999, "gae_lambda": 0.98, "epochs": 4,
            "num_minibatches": 256, "anneal_lr": False, "ent_coef": 0.01,
        },
        # MuJoCo (HalfCheetah, Hopper): CleanRL's ppo_continuous_action settings, the same for every MuJoCo task
        # (one environment, 2,048-step rollouts, 10 epochs of 32 minibatches, the rate 3e-4 annealed to 0, Adam's
        # epsilon 1e-5, the value loss clipped, observations and rewards standardised and clipped at 10, 64x64
        # tanh networks: rlkit's own), so that its published curves are a like-for-like reference; evaluation
        # over 5 episodes every 20,000 steps (an episode is up to 1,000 steps). Measured over seeds and
        # frameworks: benchmarks/results/harder_tasks.json.
        **dict.fromkeys(
            ("HalfCheetah-v5", "Hopper-v5"),
            {
                "num_envs": 1, "num_steps": 2048, "gamma": 0.99, "gae_lambda": 0.95, "epochs": 10,
                "num_minibatches": 32, "learning_rate": 3e-4, "anneal_lr": True, "adam_eps": 1e-5,
                "anneal_clip": False, "clip_value": True, "ent_coef": 0.0, "normalize_obs": True,
                "normalize_rewards": True, "eval_every": 20_000, "eval_episodes": 5,
            },
        ),
        # MinAtar (10x10 grids, the "minatar" encoder and 128 hidden units, as DQN's): 16 x 128-step rollouts,
        # 4 epochs of 8 minibatches, gamma 0.99 and lambda 0.95 (the Atari settings of the PPO paper), the rate
        # annealed from 2e-3. Chosen on Breakout (torch, 1M steps): on seed 0 among five settings (64 x
        # 128-step rollouts at 5e-4, a tenth of the gradient steps, settled at 6; 8 x 128 at 5e-4 at 5; 16 x 128
        # at 1e-3 and 2e-3 rose to 10; at 1e-3 with a third of the entropy bonus it stayed at 6); then at 1e-3
        # over 3 seeds per framework 4 of 6 final agents ended below 8 (5 of 6 re-measured 2026-12-05;
        # benchmarks/results/pixels_ppo_lr_1e-3.json), and at 2e-3 torch seeds 1 and 2 (6.2 and 5.7 at 1e-3)
        # evaluated at 20 and 16 at 1M. Every seed and both frameworks at 2e-3: benchmarks/results/pixels.json
        # (5 of 6 final agents at 8 or more).
        **{
            game: {
                "hidden_sizes": (128,), "num_envs": 16, "num_steps": 128, "epochs": 4, "num_minibatches": 8,
                "learning_rate": 2e-3, "gamma": 0.99, "gae_lambda": 0.95, "ent_coef": 0.01,
                "anneal_clip": False, "eval_every": 100_000, "eval_episodes": 10,
            }
            for game in MINATAR_IDS
        },
    }  # fmt: skip

    num_envs: int = 8
    num_steps: int = 32
    gamma: float = 0.98
    gae_lambda: float = 0.8
    epochs: int = 20
    num_minibatches: int = 1
    learning_rate: float = 1e-3
    clip_range: float = 0.2
    anneal_clip: bool = True
