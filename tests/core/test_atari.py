"""Atari preprocessing (rlkit.atari) on real ALE games, and MinAtar's registration: no emulator is mocked."""

from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest

from rlkit.atari import AtariOptions, MaxAndSkip, is_atari, make_atari, register_optional_envs
from rlkit.errors import RlkitError

pytest.importorskip("ale_py", reason="needs the atari extra: pip install 'rlkit-course[atari]'")

NOOP, FIRE = 0, 1  # Breakout's minimal action set: NOOP, FIRE, RIGHT, LEFT


def play(env, actions, seed=0):
    """Reset with ``seed``, then step ``actions`` (an iterable) until the episode ends; the steps' tuples."""
    steps = [env.reset(seed=seed)]
    for action in actions:
        steps.append(env.step(action))
        if steps[-1][2] or steps[-1][3]:
            break
    return steps


def test_observations_are_uint8_frame_stacks_on_the_first_axis():
    env = make_atari("ALE/Breakout-v5")
    assert env.observation_space == gym.spaces.Box(0, 255, (4, 84, 84), np.uint8)
    single = make_atari("ALE/Breakout-v5", options=AtariOptions(frame_stack=1))  # the newest frame alone
    actions = np.random.default_rng(0).integers(0, 4, 40)
    stacked, frames = play(env, actions), play(single, actions)
    assert len(stacked) == len(frames) > 20
    first = stacked[0][0]
    assert first.shape == (4, 84, 84) and first.dtype == np.uint8 and first in env.observation_space
    # after reset every slot holds the reset frame (not zeros)
    assert frames[0][0].shape == (1, 84, 84) and frames[0][0].any()
    np.testing.assert_array_equal(first, np.repeat(frames[0][0], 4, axis=0))
    for (previous, *_), (obs, *_), (frame, *_) in zip(stacked, stacked[1:], frames[1:], strict=False):
        np.testing.assert_array_equal(obs[:3], previous[1:])  # three frames shared, shifted by one
        np.testing.assert_array_equal(obs[3], frame[0])  # the newest frame last
    assert not np.array_equal(stacked[-1][0][0], stacked[-1][0][3])  # the frames differ: the ball moved


def test_max_and_skip_returns_the_max_of_the_last_two_frames():
    """Replays each step frame by frame from a saved emulator state and compares."""
    register_optional_envs("ALE/Breakout-v5")
    raw = gym.make("ALE/Breakout-v5", frameskip=1, repeat_action_probability=0.0, obs_type="grayscale")
    env, ale = MaxAndSkip(raw, 4), raw.unwrapped.ale
    action_set = ale.getMinimalActionSet()
    env.reset(seed=0)
    not_the_last, not_all_four = 0, 0
    for action in [FIRE, *np.random.default_rng(0).integers(0, 4, 40)]:
        state = ale.cloneState()
        obs, *_ = env.step(action)
        ale.restoreState(state)
        frames = []
        for _ in range(4):
            ale.act(action_set[action])
            frames.append(ale.getScreenGrayscale())
        np.testing.assert_array_equal(obs, np.maximum(frames[2], frames[3]))
        not_the_last += not np.array_equal(obs, frames[3])
        not_all_four += not np.array_equal(obs, np.max(frames, axis=0))
    assert not_the_last > 10 and not_all_four > 10  # the check can tell the max of two from other choices


def test_the_emulator_skips_no_frame_itself_and_has_sticky_actions():
    env = make_atari("ALE/Breakout-v5", options=AtariOptions(sticky_actions=0.1, fire_reset=False))
    ale = env.unwrapped.ale
    assert ale.getFloat("repeat_action_probability") == pytest.approx(0.1)
    assert make_atari("ALE/Breakout-v5").unwrapped.ale.getFloat("repeat_action_probability") == 0.25
    _, info = env.reset(seed=0)
    _, *_, after = env.step(NOOP)
    assert after["episode_frame_number"] - info["episode_frame_number"] == 4  # 4 emulator frames of 1
    assert ale.getInt("max_num_frames_per_episode") == 108_000  # ALE v5's limit, kept


def test_a_life_loss_ends_a_training_episode_and_the_next_reset_continues_the_game():
    """Breakout with NOOPs only: FIRE on reset serves the ball, the still paddle misses it, a life is lost."""
    env = make_atari("ALE/Breakout-v5", training=True)
    _, info = env.reset(seed=0)
    lives_at_reset, frame_numbers, statistics = [], [], []
    for _ in range(5):
        lives_at_reset.append(info["lives"])
        frame_numbers.append(info["episode_frame_number"])
        for _ in range(1000):
            _, reward, terminated, truncated, info = env.step(NOOP)
            if terminated or truncated:
                break
        assert terminated and not truncated
        statistics.append("episode" in info)
        _, info = env.reset()
    assert lives_at_reset == [5, 4, 3, 2, 1]  # the same game, not a new one
    assert frame_numbers == sorted(frame_numbers) and frame_numbers[-1] > 100  # the emulator's clock runs on
    assert statistics == [False] * 4 + [True]  # the game's statistics only when the game is over
    assert info["lives"] == 5 and info["episode_frame_number"] < 40  # after the game, a new one


def test_an_evaluation_episode_is_a_whole_game():
    env = make_atari("ALE/Breakout-v5", training=False)
    steps = play(env, np.random.default_rng(0).integers(0, 4, 5000))
    lives = [step[-1]["lives"] for step in steps]
    assert lives[0] == 5 and lives[-1] == 0 and steps[-1][2]
    assert not any(terminated for _, _, terminated, *_ in steps[1:-1])
    assert steps[-1][-1]["episode"]["r"] == sum(step[1] for step in steps[1:])


def test_training_rewards_are_clipped_and_the_statistics_hold_the_unclipped_game_score():
    """A training and an evaluation Space Invaders, same seed and actions (no FIRE on reset, so a life-loss
    reset changes nothing in the emulator): the same game, seen through two sets of wrappers."""
    options = AtariOptions(fire_reset=False)
    training, evaluation = (make_atari("ALE/SpaceInvaders-v5", training=t, options=options) for t in (True, False))
    training.reset(seed=3)
    evaluation.reset(seed=3)
    clipped, raw, ends = [], [], 0
    for action in np.random.default_rng(3).integers(0, 6, 5000):
        _, reward, terminated, truncated, info = training.step(action)
        _, game_reward, game_over, game_truncated, game_info = evaluation.step(action)
        clipped.append(reward)
        raw.append(game_reward)
        if game_over or game_truncated:
            break
        assert "episode" not in info
        if terminated or truncated:
            ends += 1
            training.reset()
    assert game_over and terminated and ends >= 2  # lives lost before the game ended
    assert set(clipped) <= {-1.0, 0.0, 1.0} and max(raw) > 1
    np.testing.assert_array_equal(clipped, np.sign(raw))
    assert info["episode"]["r"] == sum(raw) == game_info["episode"]["r"] > sum(clipped)


def test_noop_reset_takes_between_zero_and_noop_max_noops():
    """ALE counts the frames since the game's reset: after a reset without FIRE, they are the NOOPs."""
    env = make_atari("ALE/Breakout-v5", training=False, options=AtariOptions(fire_reset=False))
    env.reset(seed=0)  # then unseeded resets: the environment's generator draws on
    noops = [env.reset()[1]["episode_frame_number"] for _ in range(40)]
    assert min(noops) >= 0 and max(noops) <= 30 and len(set(noops)) > 10
    none = make_atari("ALE/Breakout-v5", training=False, options=AtariOptions(noop_max=0, fire_reset=False))
    none.reset(seed=0)
    assert {none.reset()[1]["episode_frame_number"] for _ in range(5)} == {0}


def test_fire_is_pressed_on_reset_in_breakout():
    """Breakout serves the ball only after FIRE: with FIRE on reset, NOOPs lose a life; without, nothing moves."""
    lives = {}
    for fire in (True, False):
        env = make_atari("ALE/Breakout-v5", training=False, options=AtariOptions(fire_reset=fire))
        steps = play(env, [NOOP] * 100)
        lives[fire] = steps[-1][-1]["lives"]
        # same seed, same noops: the reset took one more agent step (4 frames) with FIRE
        lives[fire, "frames"] = steps[0][1]["episode_frame_number"]
    assert lives[True] < 5 and lives[False] == 5
    assert lives[True, "frames"] == lives[False, "frames"] + 4


def test_a_game_is_truncated_at_ales_frame_limit_and_the_next_reset_starts_a_new_game():
    """Without FIRE nothing happens in Breakout, so a short frame limit ends the game: truncated, not lost."""
    env = make_atari("ALE/Breakout-v5", options=AtariOptions(fire_reset=False), max_num_frames_per_episode=200)
    steps = play(env, [NOOP] * 100)
    _, _, terminated, truncated, info = steps[-1]
    assert truncated and not terminated and info["episode_frame_number"] == 200
    assert info["episode"]["l"] == len(steps) - 1
    _, info = env.reset()
    assert info["episode_frame_number"] <= 30  # a new game, not the continuation of the truncated one


def test_options_and_arguments_are_checked():
    for bad in ({"frame_skip": 0}, {"sticky_actions": 1.5}, {"frame_stack": 2.0}, {"grayscale": 1}):
        with pytest.raises(RlkitError, match=next(iter(bad))):
            AtariOptions(**bad)
    with pytest.raises(RlkitError, match="AtariOptions.frame_skip"):
        make_atari("ALE/Breakout-v5", frameskip=4)
    with pytest.raises(RlkitError, match="ALE/Pong-v5"):
        make_atari("CartPole-v1")
    assert is_atari("ALE/Pong-v5") and not is_atari("MinAtar/Breakout-v1") and not is_atari("CartPole-v1")


def test_colour_frames_stack_their_channels_on_the_first_axis():
    env = make_atari("ALE/Breakout-v5", options=AtariOptions(grayscale=False, frame_stack=2, screen_size=64))
    assert env.observation_space.shape == (6, 64, 64)
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(obs[:3], obs[3:])
    assert not np.array_equal(obs[0], obs[2])  # red is not blue: channels, not copies of one grey frame


def test_a_missing_optional_package_is_named_with_its_extra_and_licence(monkeypatch):
    register_optional_envs("CartPole-v1")  # a no-op
    register_optional_envs("ALE/Breakout-v5")
    monkeypatch.setitem(sys.modules, "ale_py", None)  # `import ale_py` now fails as if it were not installed
    for module in ("minatar", "minatar.gym"):
        monkeypatch.setitem(sys.modules, module, None)
    register_optional_envs("ALE/Breakout-v5")  # registered already: nothing imported
    with pytest.raises(RlkitError, match=r"GPL-2\.0.*pip install 'rlkit-course\[atari\]'"):
        register_optional_envs("ALE/NoSuchGame-v5")
    with pytest.raises(RlkitError, match=r"GPL-3\.0.*pip install 'rlkit-course\[minatar\]'"):
        register_optional_envs("MinAtar/NoSuchGame-v0")


def test_minatar_ids_exist_after_registration():
    pytest.importorskip("minatar", reason="needs the minatar extra: pip install 'rlkit-course[minatar]'")
    register_optional_envs("MinAtar/Breakout-v1")
    env = gym.make("MinAtar/Breakout-v1")
    space = env.observation_space
    assert isinstance(space, gym.spaces.Box) and space.dtype == bool and space.shape == (10, 10, 4)
    obs, _ = env.reset(seed=0)
    assert obs in env.observation_space and env.step(0)[0].dtype == bool
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # registering MinAtar's ids a second time would warn about each
        register_optional_envs("MinAtar/NoSuchGame-v0")


def test_importing_rlkit_atari_imports_no_optional_package():
    code = "import sys, rlkit.atari; print(sorted({'ale_py', 'minatar', 'torch', 'tensorflow'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
