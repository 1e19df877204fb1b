"""Atari from pixels, preprocessed the standard way, and the optional pixel-like environments (MinAtar, ALE).

An Atari frame is a 210x160 colour image at 60 frames per second. Learning from it directly wastes compute
on colour, on resolution and on frames that barely differ, and some games are not even Markov in one frame
(sprites flicker, a single frame shows no velocity). DQN (Mnih et al. 2015) fixed this with a pipeline that
every later paper and library repeats, and Machado et al. (2018) settled the evaluation protocol: sticky
actions instead of a deterministic emulator, whole games for the score. :func:`make_atari` builds that
pipeline from one small wrapper per idea, bottom (the emulator) to top (the agent):

==========================  ======================================================================
``NoopReset``               a random number of do-nothing frames after reset: varied start states
``MaxAndSkip``              one decision every ``frame_skip`` frames, max of the last two frames
``Resize``                  84x84 uint8 (grey from the emulator itself), area-averaged with Pillow
``RecordEpisodeStatistics`` gymnasium's: the whole game's unclipped score in ``info["episode"]``
``EndOnLifeLoss``           training only: a lost life ends the episode, not the game
``FireOnReset``             press FIRE after every reset, for games that wait for it
``ClipReward``              training only: the reward's sign, so one learning rate fits every game
``StackFrames``             the last ``frame_stack`` frames on the first axis: (4, 84, 84) uint8
==========================  ======================================================================

``RecordEpisodeStatistics`` sits *under* the life-loss and clipping wrappers on purpose: it sees whole games
and raw rewards, so ``info["episode"]["r"]`` is the game's score in training too (at the step the game ends,
not at a life loss), and training curves compare with published scores.

ALE and MinAtar are GPL-licensed and optional (``pip install 'rlkit-course[atari]'`` / ``[minatar]``):
this module imports neither until :func:`register_optional_envs` is called, so ``import rlkit`` stays
light. Only numpy, gymnasium and Pillow (a dependency of matplotlib) are used; OpenCV is not needed.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from rlkit.errors import RlkitError, is_count

# ----------------------------------------------------------------------------------------------- registration

#: MinAtar's five games, as gymnasium ids: the algorithms' per-game defaults and budgets are set for each.
MINATAR_IDS = tuple(f"MinAtar/{game}-v1" for game in ("Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders"))

#: (package to import, extra that installs it, licence) for the id prefixes gymnasium knows only after import.
_OPTIONAL = {
    "MinAtar/": ("minatar", "minatar", "MinAtar is GPL-3.0"),
    "ALE/": ("ale_py", "atari", "ale-py, the Arcade Learning Environment, is GPL-2.0"),
}


def register_optional_envs(env_id: str) -> None:
    """Make gymnasium know ``env_id`` when it is a MinAtar (``MinAtar/...``) or Atari (``ALE/...``) id.

    Both packages register their ids only when imported (MinAtar only when asked), and both are optional,
    GPL-licensed extras installed from PyPI, never part of rlkit; so they are imported here, on first use,
    with an error naming the extra when missing. A no-op for other ids and for ids already registered, so
    calling it before every ``gymnasium.make`` costs one dict lookup.
    """
    if not isinstance(env_id, str) or env_id in gym.registry:
        return
    prefix = next((p for p in _OPTIONAL if env_id.startswith(p)), None)
    if prefix is None:
        return
    package, extra, licence = _OPTIONAL[prefix]
    try:
        if package == "minatar":
            import minatar.gym

            if "MinAtar/Breakout-v1" not in gym.registry:  # registering twice would warn once per id
                minatar.gym.register_envs()
        else:
            import ale_py

            gym.register_envs(ale_py)  # importing ale_py registered its ids; this names the reason for the import
    except ImportError as exc:
        raise RlkitError(
            f"{env_id} needs the optional package {package} ({licence}; installed from PyPI, not part of rlkit): "
            f"pip install 'rlkit-course[{extra}]' ({exc})"
        ) from None


def is_atari(env_id) -> bool:
    """Whether ``env_id`` is an Arcade Learning Environment id (``ALE/Pong-v5``), which :func:`make_atari`
    preprocesses; MinAtar's grids are small and symbolic already, and need no preprocessing."""
    return isinstance(env_id, str) and env_id.startswith("ALE/")


# -------------------------------------------------------------------------------------------------- options


@dataclass(frozen=True)
class AtariOptions:
    """The preprocessing of :func:`make_atari`. The defaults are the literature's: DQN's pipeline (Mnih et al.
    2015) with the evaluation protocol of Machado et al. (2018), as in Stable-Baselines3's ``make_atari_env``
    and CleanRL's ``dqn_atari.py``, so results compare with published ones."""

    #: At most this many NOOP frames after a reset (a uniform draw from 0..noop_max; SB3 draws 1..noop_max,
    #: this keeps the game's own first frame among the starts). With sticky actions the emulator is no longer
    #: deterministic, but varied start states still keep a policy from memorising one opening sequence.
    noop_max: int = 30
    #: The agent acts every ``frame_skip`` frames (the action is repeated in between) and sees the pixel-wise
    #: max of the last two: 4x less compute per second of play, and sprites that the console draws only on
    #: every other frame (flicker) are not lost.
    frame_skip: int = 4
    #: The probability that the emulator repeats the previous action instead of the new one, at every frame
    #: (ALE's ``repeat_action_probability``; v5's default). Machado et al.: without it the emulator is
    #: deterministic and an agent can score by replaying one memorised sequence of actions.
    sticky_actions: float = 0.25
    #: Frames are resized to ``screen_size`` x ``screen_size``: 84 is what the Nature network's convolutions
    #: were designed for, and 7x fewer pixels than the 210x160 screen.
    screen_size: int = 84
    #: Grey frames (ALE's own luminance), one channel instead of three: colour rarely matters for play.
    #: With False every frame keeps its 3 colour channels and the stack is (3 * frame_stack, H, W).
    grayscale: bool = True
    #: Training rewards are clipped to their sign (-1, 0, 1): scores differ by orders of magnitude between
    #: games (Pong's points are 1, a Space Invaders alien up to 30) and one learning rate must fit all.
    clip_rewards: bool = True
    #: A lost life ends a *training* episode (``terminated``, so the value of dying is 0) without resetting the
    #: game: the agent learns that losing a life is bad without waiting for the whole game to end.
    terminal_on_life_loss: bool = True
    #: Press FIRE after every reset in games whose actions include it: Breakout waits for FIRE to serve the
    #: ball, and an agent that has not learnt that yet would fill its buffer with frames where nothing moves.
    fire_reset: bool = True
    #: The last ``frame_stack`` frames form the observation: one frame shows positions, four show velocity.
    frame_stack: int = 4

    def __post_init__(self) -> None:
        for name, minimum in (("noop_max", 0), ("frame_skip", 1), ("screen_size", 1), ("frame_stack", 1)):
            if not is_count(getattr(self, name), minimum):
                raise RlkitError(f"AtariOptions.{name} must be an int >= {minimum}, got {getattr(self, name)!r}")
        sticky = self.sticky_actions
        if not isinstance(sticky, numbers.Real) or isinstance(sticky, bool) or not 0.0 <= sticky <= 1.0:
            raise RlkitError(f"AtariOptions.sticky_actions is a probability in [0, 1], got {sticky!r}")
        for name in ("grayscale", "clip_rewards", "terminal_on_life_loss", "fire_reset"):
            if not isinstance(getattr(self, name), bool):
                raise RlkitError(f"AtariOptions.{name} must be True or False, got {getattr(self, name)!r}")


# ------------------------------------------------------------------------------------------------- wrappers


class NoopReset(gym.Wrapper):
    """After the emulator's reset, do nothing for a random number of frames (0 to ``noop_max``): the first
    observation the agent sees varies. The draw uses the environment's own generator, so ``reset(seed=...)``
    repeats it. ``info`` is the last frame's (``info["episode_frame_number"]`` counts the NOOPs)."""

    def __init__(self, env: gym.Env, noop_max: int):
        super().__init__(env)
        if env.unwrapped.get_action_meanings()[0] != "NOOP":
            raise RlkitError(f"{env.spec.id}: action 0 is not NOOP")
        self.noop_max = noop_max

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        for _ in range(self.env.unwrapped.np_random.integers(0, self.noop_max + 1)):
            obs, _, terminated, truncated, info = self.env.step(0)
            if terminated or truncated:  # no game ends in 30 frames of doing nothing, but should one: start again
                obs, info = self.env.reset()
        return obs, info


class MaxAndSkip(gym.Wrapper):
    """Repeat the action for ``skip`` frames, sum their rewards, and return the pixel-wise max of the last two
    frames: an object the console draws only on odd frames shows up in the max. Stops early at the end of
    the game or at ALE's frame limit, and passes ``terminated`` and ``truncated`` on as they came."""

    def __init__(self, env: gym.Env, skip: int):
        super().__init__(env)
        self.skip = skip

    def step(self, action):
        total, last_two = 0.0, []
        for _ in range(self.skip):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += reward
            last_two = [*last_two[-1:], obs]
            if terminated or truncated:
                break
        return np.max(last_two, axis=0), total, terminated, truncated, info


class Resize(gym.ObservationWrapper):
    """Shrink each frame to ``size`` x ``size`` uint8 by averaging the pixels each output pixel covers (Pillow's
    BOX filter, the area average that OpenCV's INTER_AREA computes for Stable-Baselines3 and gymnasium)."""

    def __init__(self, env: gym.Env, size: int):
        super().__init__(env)
        self.size = size
        channels = env.observation_space.shape[2:]  # () for grey frames, (3,) for colour
        self.observation_space = gym.spaces.Box(0, 255, (size, size, *channels), np.uint8)

    def observation(self, frame: np.ndarray) -> np.ndarray:
        from PIL import Image  # here, not at the top: `import rlkit` does not pay for Pillow

        return np.asarray(Image.fromarray(frame).resize((self.size, self.size), Image.Resampling.BOX))


class EndOnLifeLoss(gym.Wrapper):
    """Training only: a lost life ends the episode (``terminated=True``) but not the game. The next ``reset``
    continues the game where it is, returning the last observation; only a game that is over (terminated,
    or truncated at ALE's frame limit) or a seeded reset starts a new one. The lives come from ALE's
    ``info["lives"]``."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.lives, self.game_over, self.last = 0, True, None

    def reset(self, *, seed=None, options=None):
        if self.game_over or seed is not None:
            obs, info = self.env.reset(seed=seed, options=options)
        else:
            obs, info = self.last
        self.lives, self.game_over = info["lives"], False
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.game_over = terminated or truncated
        lost_a_life = info["lives"] < self.lives
        self.lives, self.last = info["lives"], (obs, info)
        return obs, reward, terminated or lost_a_life, truncated, info


class FireOnReset(gym.Wrapper):
    """Press FIRE once after every reset (a life-loss one too, when it sits above :class:`EndOnLifeLoss`):
    some games, Breakout among them, do nothing until FIRE is pressed."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.fire = env.unwrapped.get_action_meanings().index("FIRE")

    def reset(self, **kwargs):
        self.env.reset(**kwargs)
        obs, _, terminated, truncated, info = self.env.step(self.fire)
        if terminated or truncated:  # FIRE ended the episode (a life lost on the spot): start over
            return self.reset()
        return obs, info


class ClipReward(gym.RewardWrapper):
    """Training only: the reward's sign, -1, 0 or 1, so that one learning rate and one network fit games whose
    scores differ by orders of magnitude. The agent then maximises the number of scoring events."""

    def reward(self, reward: float) -> float:
        return float(np.sign(reward))


class StackFrames(gym.Wrapper):
    """The observation is the last ``k`` frames, oldest first, on the first axis: (k, H, W) uint8 for grey
    frames, (3k, H, W) for colour ones (each frame's channels, then the next frame's). Stored as uint8 (a
    float copy would be 4x the replay buffer's memory); the network scales to [0, 1] itself.

    After a reset every slot holds the reset frame: the stack says "nothing has moved yet", a state the game
    really can be in, where zeros would show a black screen that never occurs in play."""

    def __init__(self, env: gym.Env, k: int):
        super().__init__(env)
        height, width, *channels = env.observation_space.shape
        self.channels = channels[0] if channels else 1
        self.frames = np.zeros((k * self.channels, height, width), np.uint8)
        self.observation_space = gym.spaces.Box(0, 255, self.frames.shape, np.uint8)

    def _channels_first(self, frame: np.ndarray) -> np.ndarray:
        return frame.reshape(*frame.shape[:2], self.channels).transpose(2, 0, 1)

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.frames[:] = np.tile(self._channels_first(obs), (len(self.frames) // self.channels, 1, 1))
        return self.frames.copy(), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.frames[: -self.channels] = self.frames[self.channels :]  # shift out the oldest frame
        self.frames[-self.channels :] = self._channels_first(obs)
        return self.frames.copy(), reward, terminated, truncated, info


# --------------------------------------------------------------------------------------------- make_atari

#: ALE arguments that AtariOptions owns: passing them to make_atari as well would contradict it.
_OWNED = {"frameskip": "frame_skip", "repeat_action_probability": "sticky_actions", "obs_type": "grayscale"}


def make_atari(env_id: str, *, training: bool = True, options: AtariOptions | None = None, **make_kwargs) -> gym.Env:
    """An ALE game (``ALE/Breakout-v5``) with DQN's preprocessing: observations ``Box(0, 255, (4, 84, 84),
    uint8)`` under the default :class:`AtariOptions`.

    ``training=True`` ends an episode at a life loss and clips rewards to their sign; ``training=False``
    (evaluation) plays whole games with raw rewards, so an episode's return is the game's score. Either way
    ``info["episode"]`` (gymnasium's ``RecordEpisodeStatistics``, which sits under those two wrappers) holds
    the whole game's unclipped score ``r`` and its length ``l`` in agent steps, at the step the game ends.

    The emulator runs with ``frameskip=1`` (skipping is :class:`MaxAndSkip`'s, which takes the max of two
    frames, where ALE's own skip returns the last frame alone) and keeps ALE v5's limit of 108,000 frames
    (30 minutes of play) per game: at the limit ALE reports ``truncated`` (never ``terminated``: the game was
    not lost, so a learner bootstraps there), and every wrapper passes it on. ``make_kwargs`` go to
    ``gymnasium.make`` (``render_mode``, ``max_num_frames_per_episode``, ``full_action_space``, ...).
    """
    if not is_atari(env_id):
        raise RlkitError(f"make_atari takes Arcade Learning Environment ids such as 'ALE/Pong-v5', got {env_id!r}")
    options = AtariOptions() if options is None else options
    if not isinstance(options, AtariOptions):
        raise RlkitError(f"options must be an AtariOptions, got {options!r}")
    owned = sorted(_OWNED.keys() & make_kwargs.keys())
    if owned:
        raise RlkitError(f"make_atari sets {owned[0]} itself: change AtariOptions.{_OWNED[owned[0]]} instead")
    register_optional_envs(env_id)
    env = gym.make(
        env_id,
        frameskip=1,
        repeat_action_probability=options.sticky_actions,
        obs_type="grayscale" if options.grayscale else "rgb",
        **make_kwargs,
    )
    if options.noop_max > 0:
        env = NoopReset(env, options.noop_max)
    env = Resize(MaxAndSkip(env, options.frame_skip), options.screen_size)
    env = gym.wrappers.RecordEpisodeStatistics(env)  # under the two training-only wrappers: the game's score
    if training and options.terminal_on_life_loss:
        env = EndOnLifeLoss(env)
    if options.fire_reset and "FIRE" in env.unwrapped.get_action_meanings():
        env = FireOnReset(env)
    if training and options.clip_rewards:
        env = ClipReward(env)
    return StackFrames(env, options.frame_stack)
