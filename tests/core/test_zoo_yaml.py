"""RL-Zoo hyperparameter files read with their own keys (``rlkit/zoo_yaml.py``).

Every entry the zoo has for the course's tasks (``tests/zoo/*.yml``, copied from RL-Baselines3-Zoo) either
builds a valid rlkit config or is refused naming each key rlkit cannot honour; then one test per
translation, and a simulation of both libraries' DQN target copies for the one key whose units differ.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from rlkit.cli import main
from rlkit.config_files import load_yaml
from rlkit.errors import RlkitError
from rlkit.registry import config_class
from rlkit.schedules import LinearSchedule
from rlkit.zoo_yaml import translate

ZOO = Path(__file__).resolve().parents[1] / "zoo"
#: rlkit's algorithms and the zoo file each one reads (Rainbow is DQN with its options on).
FILES = {"ppo": "ppo", "a2c": "a2c", "dqn": "dqn", "rainbow": "dqn", "ddpg": "ddpg", "td3": "td3", "sac": "sac"}
#: The keys refused in each zoo entry rlkit cannot run as written; every other entry loads.
REFUSED = {
    ("a2c", "Pendulum-v1"): {"policy_kwargs"},
    ("dqn", "Acrobot-v1"): {"target_update_interval"},
    ("rainbow", "Acrobot-v1"): {"target_update_interval"},
}


def zoo_entries() -> list[tuple[str, str]]:
    """(algo, env) for every entry of the copied zoo files."""
    return [(algo, env) for algo, name in FILES.items() for env in yaml.safe_load((ZOO / f"{name}.yml").read_text())]


def refused_keys(message: str) -> set[str]:
    """The keys an error lists, one per line as ``  key: value — why``."""
    return set(re.findall(r"^  (\w+): .* — ", message, flags=re.MULTILINE))


def zoo(algo: str | None, env: str = "CartPole-v1", **keys) -> dict:
    """One entry in the zoo's dialect (``policy: MlpPolicy`` marks it), translated for ``algo``."""
    return translate({"policy": "MlpPolicy", **keys}, algo, env, "test.yml")


def refusal(algo: str | None, env: str = "CartPole-v1", **keys) -> str:
    """The message of the error that refuses an entry."""
    with pytest.raises(RlkitError) as caught:
        zoo(algo, env, **keys)
    return str(caught.value)


def test_the_copied_files_hold_every_course_task():
    assert len(zoo_entries()) == 13
    assert set(REFUSED) <= set(zoo_entries())


@pytest.mark.parametrize("algo,env", zoo_entries())
def test_every_zoo_entry_builds_a_config_or_is_refused_naming_its_keys(algo, env):
    path = ZOO / f"{FILES[algo]}.yml"
    raw = yaml.load(path.read_text(), Loader=yaml.SafeLoader)[env]
    if (algo, env) in REFUSED:
        with pytest.raises(RlkitError) as caught:
            load_yaml(path, env, algo)
        message = str(caught.value)
        assert message.startswith(f"'{path}' ({env}): RL-Zoo keys rlkit cannot read for {algo}:")
        assert refused_keys(message) == REFUSED[(algo, env)]
        for line in message.splitlines()[1:]:  # each names its fix
            assert re.search(r"\b(drop|write|add|keep)\b", line), line
        return
    settings = load_yaml(path, env, algo)
    assert settings.pop("total_steps") == int(float(raw["n_timesteps"]))
    config = config_class(algo).for_env(env, **settings)
    assert {name: getattr(config, name) for name in settings} == settings


def test_ppo_on_cartpole_from_the_zoo_is_rlkits_default():
    """rlkit's PPO defaults are the zoo's tuned CartPole entry: linear decays, 8 x 32 rollouts, one minibatch, no
    entropy bonus, the zoo's budget. CartPole's own defaults add what SB3 sets outside the entry (its value-loss
    weight, its Adam epsilon), so the entry read onto them changes nothing either."""
    from rlkit.algos.ppo.agent import DEFAULT_TOTAL_STEPS

    settings = load_yaml(ZOO / "ppo.yml", "CartPole-v1", "ppo")
    assert settings.pop("total_steps") == DEFAULT_TOTAL_STEPS["CartPole-v1"] == 100_000
    assert config_class("ppo")(**settings) == config_class("ppo")()
    cartpole = config_class("ppo").for_env("CartPole-v1")
    assert config_class("ppo").for_env("CartPole-v1", **settings) == cartpole
    assert (cartpole.vf_coef, cartpole.adam_eps) == (1.0, 1e-5)  # SB3's weight in rlkit's unit, SB3's epsilon


def test_dqn_td3_ddpg_and_sac_entries_translate_key_by_key():
    assert load_yaml(ZOO / "dqn.yml", "CartPole-v1", "dqn") == {
        "total_steps": 50_000, "gamma": 0.99, "learning_rate": 2.3e-3, "final_lr_fraction": 1.0,
        "hidden_sizes": (256, 256), "buffer_size": 100_000, "learning_starts": 1000, "eps_fraction": 0.16,
        "eps_end": 0.04, "train_every": 256, "gradient_steps": 128, "batch_size": 64,
        "target_update": "hard", "target_update_every": 128,  # 10 env steps < a burst every 256: one copy per burst
    }  # fmt: skip
    td3 = {
        "total_steps": 20_000, "gamma": 0.98, "learning_rate": 1e-3, "hidden_sizes": (400, 300),
        "buffer_size": 200_000, "learning_starts": 10_000, "exploration": "gaussian", "exploration_noise": 0.1,
        "train_every": 1, "gradient_steps": 1,
    }  # fmt: skip
    assert load_yaml(ZOO / "td3.yml", "Pendulum-v1", "td3") == td3
    assert load_yaml(ZOO / "ddpg.yml", "Pendulum-v1", "ddpg") == td3
    sac = {"total_steps": 20_000, "learning_rate": 1e-3}  # SB3 tunes alpha at lr, as rlkit
    assert load_yaml(ZOO / "sac.yml", "Pendulum-v1", "sac") == sac


def test_the_command_line_refuses_a_zoo_entry_before_training(capsys):
    assert main(["train", "a2c", "--config", str(ZOO / "a2c.yml"), "--env", "Pendulum-v1", "--quiet"]) == 2
    error = capsys.readouterr().err
    assert "policy_kwargs: " in error and "use_rms_prop" not in error


def test_ppo_on_pendulum_from_the_zoo_explores_with_gsde():
    """The zoo's tuned Pendulum entry: gSDE with new noise every 4 steps, read as rlkit's two fields."""
    settings = load_yaml(ZOO / "ppo.yml", "Pendulum-v1", "ppo")
    assert settings["use_sde"] is True and settings["sde_sample_freq"] == 4 and settings["gamma"] == 0.9
    config = config_class("ppo").for_env("Pendulum-v1", **{k: v for k, v in settings.items() if k != "total_steps"})
    assert config.use_sde and config.sde_sample_freq == 4


@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_use_sde_and_sde_sample_freq_are_the_on_policy_gsde_fields(algo):
    assert zoo(algo, use_sde=True, sde_sample_freq=8) == {"use_sde": True, "sde_sample_freq": 8}
    assert zoo(algo, use_sde=False) == {"use_sde": False}
    assert zoo(algo, use_sde=True, sde_sample_freq=-1) == {"use_sde": True, "sde_sample_freq": -1}  # per rollout
    assert "use_sde: 'yes' — must be true or false" in refusal(algo, use_sde="yes")
    assert "sde_sample_freq: 2.5 — must be a whole number of steps" in refusal(algo, sde_sample_freq=2.5)
    assert "use_sde_at_warmup: True — gSDE's warm-up switch" in refusal(algo, use_sde_at_warmup=True)


@pytest.mark.parametrize("algo", ["sac", "td3", "ddpg"])
def test_gsde_of_the_off_policy_algorithms_is_refused_by_name(algo):
    name = algo.upper()
    message = refusal(algo, env="Pendulum-v1", use_sde=True, sde_sample_freq=4, use_sde_at_warmup=True)
    assert refused_keys(message) == {"use_sde", "sde_sample_freq", "use_sde_at_warmup"}
    assert f"use_sde: True — rlkit's {name} has no state-dependent exploration (gSDE; PPO and A2C have it): " in message
    assert f"sde_sample_freq: 4 — gSDE's resampling interval; rlkit's {name} has no gSDE" in message
    assert "rlkit's gSDE is PPO's and A2C's only: drop the key" in message
    assert zoo(algo, env="Pendulum-v1", use_sde=False) == {}  # SB3's default, nothing to refuse
    message = refusal(algo, env="Pendulum-v1", policy_kwargs="dict(log_std_init=-2)")
    assert f"log_std_init=-2: SB3 uses it with gSDE, which rlkit's {name} has not; drop it" in message
    assert "not a hyperparameter of SB3's DQN" in refusal("dqn", use_sde=True)


# --- one test per translation ----------------------------------------------------------------------------


@pytest.mark.parametrize("algo", ["ppo", "a2c"])
def test_a_linear_learning_rate_is_the_on_policy_annealing_switch(algo):
    assert zoo(algo, learning_rate="lin_7.3e-4") == {"learning_rate": 7.3e-4, "anneal_lr": True}
    assert zoo(algo, learning_rate=7.3e-4) == {"learning_rate": 7.3e-4, "anneal_lr": False}  # constant in SB3


def test_a_linear_learning_rate_decays_dqn_to_zero_as_sb3s_does():
    settings = zoo("dqn", learning_rate="lin_1e-3")
    assert settings == {"learning_rate": 1e-3, "final_lr_fraction": 0.0}
    config = config_class("dqn")(**settings)  # 0 is a valid fraction
    rate = LinearSchedule(config.learning_rate, config.learning_rate * config.final_lr_fraction, 1000)
    steps = np.arange(0, 1001, 50)
    np.testing.assert_allclose(rate(steps), 1e-3 * (1 - steps / 1000))  # SB3: initial * progress_remaining
    assert zoo("dqn", learning_rate=1e-3) == {"learning_rate": 1e-3, "final_lr_fraction": 1.0}


def test_off_policy_learning_rates_are_constant_and_shared():
    assert zoo("td3", learning_rate=3e-4) == {"learning_rate": 3e-4}
    assert zoo("sac", learning_rate=3e-4) == {"learning_rate": 3e-4}
    message = refusal("sac", learning_rate="lin_3e-4")
    assert (
        "learning_rate: 'lin_3e-4' — rlkit's SAC keeps its step sizes constant: write learning_rate: 0.0003" in message
    )
    assert "learning_rate: 'exp_3e-4' — must be a number" in refusal("ppo", learning_rate="exp_3e-4")


def test_clip_range_and_its_linear_decay():
    assert zoo("ppo", clip_range="lin_0.2") == {"clip_range": 0.2, "anneal_clip": True}
    assert zoo("ppo", clip_range=0.1) == {"clip_range": 0.1, "anneal_clip": False}
    assert zoo("ppo", clip_range_vf=None) == {"clip_value": False}
    assert "clip_range_vf: 0.2 — rlkit clips the value function by clip_range" in refusal("ppo", clip_range_vf=0.2)
    assert "clip_range: 0.2 — not a hyperparameter of SB3's A2C" in refusal("a2c", clip_range=0.2)


def test_ppos_minibatch_size_becomes_a_number_of_minibatches():
    assert zoo("ppo", n_envs=8, n_steps=32, batch_size=64) == {"num_envs": 8, "num_steps": 32, "num_minibatches": 4}
    # without n_envs and n_steps, rlkit's rollout for the env: 4 x 1024 on Pendulum
    assert zoo("ppo", "Pendulum-v1", batch_size=64) == {"num_minibatches": 64}
    assert zoo("ppo", num_envs=2, n_steps=32, batch_size=16) == {"num_envs": 2, "num_steps": 32, "num_minibatches": 4}
    assert "write a batch_size that divides 256" in refusal("ppo", n_envs=8, n_steps=32, batch_size=100)
    assert "batch_size: 64 — not a hyperparameter of SB3's A2C" in refusal("a2c", batch_size=64)
    assert zoo("dqn", batch_size=64) == {"batch_size": 64}


def test_rollout_keys_of_the_actor_critics():
    # vf_coef doubles: SB3 weighs the values' squared error, rlkit half of it
    assert zoo("ppo", n_epochs=4, gae_lambda=0.9, ent_coef=0.01, vf_coef=0.4, max_grad_norm=0.8, target_kl=0.02) == {
        "epochs": 4, "gae_lambda": 0.9, "ent_coef": 0.01, "vf_coef": 0.8, "max_grad_norm": 0.8, "target_kl": 0.02,
    }  # fmt: skip
    adam = {"normalize_advantages": True, "optimizer": "adam"}
    assert zoo("a2c", normalize_advantage=True, use_rms_prop=False) == adam
    assert zoo("a2c", use_rms_prop=True, rms_prop_eps=1e-5) == {"optimizer": "rmsprop", "rmsprop_eps": 1e-5}
    assert "n_epochs: 4 — not a hyperparameter of SB3's A2C" in refusal("a2c", n_epochs=4)
    assert "use_rms_prop: 1 — must be true (RMSprop) or false (Adam)" in refusal("a2c", use_rms_prop=1)
    assert "rms_prop_eps" in refusal("ppo", rms_prop_eps=1e-5)


def test_normalize_as_a_switch_or_as_vecnormalizes_arguments():
    both = {"normalize_obs": True, "normalize_rewards": True}
    assert zoo("ppo", normalize=True) == both
    assert zoo("ppo", normalize="{'norm_obs': True, 'norm_reward': False}") == {**both, "normalize_rewards": False}
    assert zoo("a2c", normalize="dict(norm_obs=False, norm_reward=True)") == {**both, "normalize_obs": False}
    assert zoo("ppo", gamma=0.9, normalize={"gamma": 0.9, "clip_obs": 10.0}) == {"gamma": 0.9, **both}
    assert "with the algorithm's own gamma (0.98)" in refusal("ppo", normalize={"gamma": 0.9})
    assert "normalize: {'clip_obs': 5.0} — rlkit's normalisation uses clip_obs=10.0" in refusal(
        "ppo", normalize={"clip_obs": 5.0}
    )
    assert zoo("dqn", normalize=False) == {}
    assert "rlkit's SAC normalises neither observations nor rewards" in refusal("sac", "Pendulum-v1", normalize=True)


def test_policy_kwargs_are_read_as_literals_never_run():
    assert zoo("dqn", policy_kwargs="dict(net_arch=[256, 256])") == {"hidden_sizes": (256, 256)}
    assert zoo("ppo", policy_kwargs="dict(net_arch=dict(pi=[32], vf=[32]), activation_fn=nn.Tanh)") == {
        "hidden_sizes": (32,)
    }
    assert zoo("sac", policy_kwargs="dict(net_arch=dict(pi=[64], qf=[64]), n_critics=2)") == {"hidden_sizes": (64,)}
    assert zoo("ppo", policy_kwargs="dict(log_std_init=-2.5)") == {"log_std_init": -2.5}
    assert zoo("td3", policy_kwargs={"net_arch": [400, 300]}) == {"hidden_sizes": (400, 300)}  # a YAML mapping
    # the zoo's pybullet PPO entry, over several lines: every option rlkit lacks is named in one line
    pybullet = """dict(log_std_init=-2,
                       ortho_init=False,
                       activation_fn=nn.ReLU,
                       net_arch=[dict(pi=[256, 256], vf=[256, 256])]
                       )"""
    message = refusal("ppo", policy_kwargs=pybullet)
    assert "policy_kwargs: 'dict(log_std_init=-2, ortho_init=False, activation_fn=nn.ReLU, " in message
    assert "ortho_init=False: rlkit's actor-critic networks always start orthogonal; drop it" in message
    assert "activation_fn=nn.ReLU: rlkit's PPO networks use nn.Tanh, and no other" in message
    assert "net_arch" not in message.partition(" — ")[2]  # the widths themselves translate
    assert "rlkit's actor and critic have the same widths" in refusal(
        "ppo", policy_kwargs="dict(net_arch=dict(pi=[64], vf=[128]))"
    )
    assert "optimizer_class=RMSpropTFLike: rlkit's networks have no such option" in refusal(
        "a2c", policy_kwargs="dict(optimizer_class=RMSpropTFLike, optimizer_kwargs=dict(eps=1e-5))"
    )
    assert "n_critics=2: rlkit's DDPG has 1" in refusal("ddpg", policy_kwargs="dict(n_critics=2)")
    assert "not a literal rlkit can read" in refusal("dqn", policy_kwargs="__import__('os').getcwd()")


def test_train_freq_counts_vector_steps_of_n_envs_transitions():
    assert zoo("dqn", train_freq=4) == {"train_every": 4}
    assert zoo("sac", n_envs=2, train_freq=4) == {"num_envs": 2, "train_every": 8}
    assert zoo("td3", train_freq=[4, "step"]) == {"train_every": 4}
    assert "never per episode" in refusal("td3", train_freq=[1, "episode"])


def test_gradient_steps_minus_one_is_one_per_transition_collected():
    assert zoo("dqn", train_freq=4, gradient_steps=-1) == {"train_every": 4, "gradient_steps": 4}
    assert zoo("sac", n_envs=2, train_freq=4, gradient_steps=-1) == {
        "num_envs": 2,
        "train_every": 8,
        "gradient_steps": 8,
    }
    assert zoo("dqn", gradient_steps=-1) == {"gradient_steps": 256}  # rlkit's default burst interval
    assert "at least one gradient step" in refusal("dqn", gradient_steps=0)


def test_the_exploration_keys_of_dqn_ddpg_td3_and_sac():
    assert zoo("dqn", exploration_fraction=0.2, exploration_initial_eps=0.9, exploration_final_eps=0.05) == {
        "eps_fraction": 0.2, "eps_start": 0.9, "eps_end": 0.05,
    }  # fmt: skip
    assert zoo("td3", noise_type="ornstein-uhlenbeck", noise_std=0.5) == {"exploration": "ou", "exploration_noise": 0.5}
    assert zoo("ddpg", noise_type=" normal", noise_std=0.1) == {"exploration": "gaussian", "exploration_noise": 0.1}
    assert "the zoo needs noise_std beside noise_type" in refusal("td3", noise_type="normal")
    assert "without noise_type the zoo adds no noise at all" in refusal("td3", noise_std=0.1)
    assert "noise_type: 'normal' — not a hyperparameter of SB3's SAC" in refusal(
        "sac", noise_type="normal", noise_std=1
    )
    assert zoo("sac", ent_coef="auto", target_entropy="auto") == {
        "auto_alpha": True,
        "alpha": 1.0,
        "target_entropy": None,
    }
    assert zoo("sac", ent_coef="auto_0.1", target_entropy=-2) == {
        "auto_alpha": True,
        "alpha": 0.1,
        "target_entropy": -2,
    }
    assert zoo("sac", ent_coef=0.05) == {"auto_alpha": False, "alpha": 0.05}
    assert zoo("td3", policy_delay=3, target_policy_noise=0.1, target_noise_clip=0.3) == {
        "policy_delay": 3, "target_noise": 0.1, "target_noise_clip": 0.3,
    }  # fmt: skip


def test_target_updates_and_tau():
    settings = zoo("dqn", train_freq=16, gradient_steps=8, target_update_interval=16)
    assert settings == {"train_every": 16, "gradient_steps": 8, "target_update": "hard", "target_update_every": 8}
    assert zoo("dqn", tau=1.0, target_update_interval=10, train_freq=256)["target_update"] == "hard"
    assert "SB3's DQN blends tau" in refusal("dqn", tau=0.5, target_update_interval=10)
    assert "write target_update_interval alone" in refusal("dqn", tau=1.0)
    assert zoo("td3", tau=0.01) == {"tau": 0.01}  # the off-policy algorithms blend after every step, as rlkit
    assert zoo("sac", target_update_interval=1) == {}
    assert "after every gradient step (SB3's 1)" in refusal("sac", target_update_interval=2)


def sb3_target_versions(interval, train_freq, gradient_steps, learning_starts, n_envs, bursts):
    """The online network's version (gradient steps done) that SB3's DQN target holds at each gradient step.

    SB3 steps the vector env, calls ``_on_step`` after each step (a copy every ``interval // n_envs`` calls),
    and trains a burst of ``gradient_steps`` at the end of every rollout of ``train_freq`` steps once more than
    ``learning_starts`` transitions were collected (``OffPolicyAlgorithm.learn``, ``DQN._on_step``).
    """
    calls = max(interval // n_envs, 1)
    first = train_freq * (learning_starts // (train_freq * n_envs) + 1)
    times = first + train_freq * np.arange(bursts)  # vector steps at which bursts run
    last_copy = (times // calls) * calls  # before the burst at the same step: _on_step runs first
    bursts_before = np.maximum(0, -((first - last_copy) // train_freq))  # bursts run before that copy
    return np.repeat(bursts_before * gradient_steps, gradient_steps)


def rlkit_target_versions(every: int, steps: int) -> np.ndarray:
    """The same for rlkit's hard copies: after every ``every``-th gradient step (``update_target``)."""
    return (np.arange(steps) // every) * every


@pytest.mark.parametrize("n_envs", [1, 2])
def test_target_update_interval_is_translated_exactly_when_a_gradient_step_count_exists(n_envs):
    """Over a grid of schedules: translated means both libraries' targets agree at every gradient step,
    refused means no count of gradient steps makes them agree (the candidate is SB3's first copy)."""
    translated = refused = 0
    for interval in (1, 2, 3, 4, 8, 10, 12, 16, 24, 32, 250, 256):
        for train_freq in (1, 4, 8, 16):
            for gradient_steps in (1, 3):
                for learning_starts in (0, 4, 8, 100, 1000):
                    keys = {
                        "n_envs": n_envs, "train_freq": train_freq, "gradient_steps": gradient_steps,
                        "learning_starts": learning_starts, "target_update_interval": interval,
                    }  # fmt: skip
                    calls = max(interval // n_envs, 1)  # two periods of the copies' pattern over the bursts
                    bursts = 2 * math.lcm(calls, train_freq) // train_freq + 2
                    sb3 = sb3_target_versions(interval, train_freq, gradient_steps, learning_starts, n_envs, bursts)
                    try:
                        settings = zoo("dqn", **keys)
                    except RlkitError as error:
                        assert "target_update_interval" in refused_keys(str(error))
                        candidate = sb3[np.argmax(sb3 > 0)] if (sb3 > 0).any() else len(sb3)
                        assert not np.array_equal(sb3, rlkit_target_versions(candidate, len(sb3))), keys
                        refused += 1
                        continue
                    rlkit = rlkit_target_versions(settings["target_update_every"], len(sb3))
                    assert np.array_equal(sb3, rlkit), keys
                    translated += 1
    assert translated > 100 and refused > 100


def test_keys_without_an_rlkit_equivalent_are_refused_with_the_fix():
    assert "rlkit's SAC has no state-dependent exploration (gSDE; PPO and A2C have it)" in refusal("sac", use_sde=True)
    assert "FrameStackObservation(env, N)" in refusal("ppo", frame_stack=4)
    assert "rlkit.train(wrappers=[...])" in refusal("ppo", env_wrapper=["gymnasium.wrappers.TimeLimit"])
    assert "MLPs on flat observations (MlpPolicy)" in refusal("dqn", policy="CnnPolicy")
    assert "memory-optimised" in refusal("dqn", optimize_memory_usage=True)
    assert zoo("dqn", optimize_memory_usage=False) == {}
    assert "exploration_fraction: 0.1 — not a hyperparameter of SB3's PPO" in refusal("ppo", exploration_fraction=0.1)
    assert "n_epoch: 4 — neither an RL-Zoo key nor a PPO hyperparameter. Did you mean 'n_epochs'?" in refusal(
        "ppo", n_epoch=4
    )
    message = refusal("ppo", use_sde_at_warmup=True, frame_stack=4, n_epochs=4)  # every refused key in one error
    assert refused_keys(message) == {"use_sde_at_warmup", "frame_stack"}


def test_rlkit_keys_beside_zoo_keys_and_a_field_set_twice():
    assert zoo("dqn", double=False, n_timesteps=1e4) == {"double": False, "total_steps": 10_000}
    message = refusal("ppo", learning_rate=1e-3, anneal_lr=True)  # constant in the zoo, annealed by rlkit's key
    assert "learning_rate: 0.001 — it sets anneal_lr=False, but anneal_lr: True sets anneal_lr=True" in message
    assert "keep one of the two keys" in message
    assert zoo("ppo", learning_rate="lin_1e-3", anneal_lr=True) == {"anneal_lr": True, "learning_rate": 1e-3}
    assert "n_timesteps: 100 — it sets total_steps=100" in refusal("ppo", n_timesteps=100, total_steps=200)
    assert zoo("dqn", policy_kwargs="dict(net_arch=[8])", hidden_sizes=[8]) == {"hidden_sizes": (8,)}


def test_an_entry_in_rlkits_own_keys_comes_back_as_it_is():
    own = {"learning_rate": 1e-3, "num_envs": 4, "clip_range": 0.1, "seed": 3}
    assert translate(own, "ppo", "CartPole-v1", "config.yaml") == own  # no anneal_lr=False nor anneal_clip added
    assert translate({"tau": 0.5}, "dqn", "CartPole-v1", "config.yaml") == {"tau": 0.5}  # rlkit's Polyak rate
    assert translate({"learning_rate": 1e-3}, None, "CartPole-v1", "flat.yaml") == {"learning_rate": 1e-3}


def test_without_an_algorithm_only_keys_that_do_not_depend_on_it_translate():
    assert zoo(None, n_timesteps=5e4, gamma=0.9, n_envs=4) == {"total_steps": 50_000, "gamma": 0.9, "num_envs": 4}
    assert "its meaning depends on the algorithm: name it" in refusal(None, learning_rate=1e-3)
