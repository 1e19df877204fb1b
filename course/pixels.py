"""Chapter 16's experiments: what an image observation is, what storing it costs, what Atari's wrappers do.

Each function runs one measurement on the real environments (ALE's Breakout, MinAtar's) and returns plain
numbers, which the chapter prints and asserts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np

import rlkit
from rlkit.buffers import ReplayBuffer
from rlkit.envs import EnvRunner, make_vec_env
from rlkit.frame_buffer import FrameReplayBuffer


def show_observation(obs: np.ndarray, title: str, channels_last: bool):
    """Each channel (a stacked frame, or one of MinAtar's object planes) of one observation as a grey image."""
    planes = np.moveaxis(obs, -1, 0) if channels_last else obs
    fig, axes = plt.subplots(1, len(planes), figsize=(2.2 * len(planes), 2.4), layout="constrained")
    for index, (ax, plane) in enumerate(zip(np.atleast_1d(axes), planes, strict=True)):
        ax.imshow(plane, cmap="gray", vmin=0, vmax=plane.max() or 1, interpolation="nearest")
        ax.set_title(f"channel {index}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(title)
    return fig


@dataclass
class Memory:
    """The same stream stored two ways: bytes held, transitions stored, and whether batches agree."""

    transitions: int
    stacks_bytes: int  # a ReplayBuffer of uint8 stacks (obs and next_obs each whole)
    frames_bytes: int  # a FrameReplayBuffer (each frame once)
    frames_held: int
    same_batches: bool
    store_us: float  # the frame buffer's add, per transition
    step_us: float  # the environment's own step (the whole Atari pipeline), per transition

    @property
    def ratio(self) -> float:
        return self.stacks_bytes / self.frames_bytes

    def per_transition(self, kind: str) -> float:
        return getattr(self, f"{kind}_bytes") / self.transitions


def replay_memory(env_id: str = "ALE/Breakout-v5", capacity: int = 2_000, steps: int = 3_000, seed: int = 0) -> Memory:
    """Fill a :class:`ReplayBuffer` of uint8 stacks and a :class:`FrameReplayBuffer` with the same training
    stream of ``env_id`` (random actions, ``steps`` steps: more than ``capacity``, so both rings wrap), then
    compare their memory and the batches they give for the same indices."""
    envs = make_vec_env(env_id, 1, seed=seed, training=True)
    shape = envs.single_observation_space.shape
    stacks = ReplayBuffer(capacity, shape, obs_dtype=np.uint8, seed=seed)
    frames = FrameReplayBuffer(capacity, shape, obs_dtype=np.uint8, seed=seed)
    runner, rng = EnvRunner(envs, seed=seed), np.random.default_rng(seed)
    stepping = storing = 0.0
    try:
        for _ in range(steps):
            start = time.process_time()
            batch = runner.step(rng.integers(0, envs.single_action_space.n, size=1))
            keep = batch.valid
            fields = (batch.obs[keep], batch.actions[keep], batch.rewards[keep], batch.next_obs[keep])
            stacks.add(*fields, batch.terminated[keep])
            middle = time.process_time()
            frames.add(*fields, batch.terminated[keep])
            stepping, storing = stepping + middle - start, storing + time.process_time() - middle
    finally:
        runner.close()
    idx = rng.integers(0, len(stacks), size=256)
    a, b = stacks.gather(idx), frames.gather(idx)
    same = all(np.array_equal(a[name], b[name]) for name in a)
    per = 1e6 / steps
    return Memory(len(stacks), stacks.nbytes, frames.nbytes, frames.frames_held, same, storing * per, stepping * per)


@dataclass
class Pipeline:
    """Random play of one game in its training environment, game by game, and in its evaluation one."""

    episodes_per_game: list[int]  # training episodes each whole game was cut into (one per life)
    game_scores: list[float]  # each game's score, unclipped: info["episode"]["r"] under the wrappers
    clipped_returns: list[float]  # what the learner was paid for the same game, reward signs summed
    training_rewards: set  # the distinct rewards the learner saw
    evaluation_episodes: int  # episodes of the evaluation environment in as many steps
    evaluation_games: int  # of which ended with a game's statistics (whole games: all of them)


def atari_pipeline(env_id: str = "ALE/Breakout-v5", steps: int = 2_000, seed: int = 0) -> Pipeline:
    """Play ``env_id`` at random for ``steps`` steps in its training environment, splitting the play into
    whole games by the statistics the pipeline records under its wrappers, then as long in its evaluation
    environment."""
    env = rlkit.make_env(env_id, training=True)
    rng = np.random.default_rng(seed)
    episodes, clipped, rewards = 0, 0.0, set()
    result = Pipeline([], [], [], rewards, 0, 0)
    env.reset(seed=seed)
    for _ in range(steps):
        _, reward, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        clipped += reward
        rewards.add(float(reward))
        if terminated or truncated:
            episodes += 1
            env.reset()
        if "episode" in info:  # a whole game ended: its score, and how the learner saw it
            result.episodes_per_game.append(episodes)
            result.game_scores.append(float(info["episode"]["r"]))
            result.clipped_returns.append(clipped)
            episodes, clipped = 0, 0.0
    env.close()
    env = rlkit.make_env(env_id)  # evaluation: whole games, raw rewards
    env.reset(seed=seed)
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
        if terminated or truncated:
            result.evaluation_episodes += 1
            result.evaluation_games += "episode" in info
            env.reset()
    env.close()
    return result
