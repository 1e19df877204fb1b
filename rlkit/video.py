"""Videos of an agent's greedy episodes, recorded headless with gymnasium's ``RecordVideo`` wrapper.

``render_mode="rgb_array"`` makes an environment draw into a numpy array instead of a window, so recording
needs no display (no X server, no ``SDL_VIDEODRIVER`` setting: classic-control's pygame renders to an
off-screen surface in that mode). ``RecordVideo`` writes the frames through moviepy, the ``video`` extra:
``pip install 'rlkit-course[video]'``.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from pathlib import Path

import gymnasium as gym
import numpy as np

from rlkit.envs import make_env
from rlkit.errors import RlkitError, is_count

#: Frames with a shorter side below this are enlarged (nearest neighbour) before they are written: MinAtar
#: draws its 10x10 grid as 10x10 pixels, which a video player shows as a dot.
MIN_SIDE = 160


class Viewable(gym.Wrapper):
    """Renders as a video wants them: uint8 RGB (MinAtar draws float colours in [0, 1]), at least
    :data:`MIN_SIDE` pixels a side (each grid cell a square block, no smoothing)."""

    def render(self):
        frame = np.asarray(self.env.render())
        if frame.dtype != np.uint8:
            frame = (np.clip(frame, 0.0, 1.0) * 255).round().astype(np.uint8)
        scale = -(-MIN_SIDE // min(frame.shape[:2]))  # ceiling division
        if scale > 1:
            frame = frame.repeat(scale, axis=0).repeat(scale, axis=1)
        return frame


def rendering_env(env_id: str):
    """The environment, rendering frames; a MuJoCo task whose model has a camera named ``track`` (HalfCheetah,
    Hopper, Walker2d, Ant, Humanoid) is filmed through it, since gymnasium's default free camera stays where
    the body started and a running cheetah leaves the frame within a second."""
    env = make_env(env_id, render_mode="rgb_array")
    model = getattr(env.unwrapped, "model", None)
    cameras = {model.camera(i).name for i in range(model.ncam)} if hasattr(model, "ncam") else set()
    if "track" not in cameras:
        return env
    env.close()
    return make_env(env_id, render_mode="rgb_array", camera_name="track")


def record_video(agent, path: str | Path, env: str | None = None, episodes: int = 1, seed: int = 10_000) -> list[float]:
    """Record ``episodes`` greedy episodes of ``agent`` on ``env`` (default: its own) into one ``.mp4`` at ``path``.

    Returns each episode's return, so a caller can say what the video shows. Episode ``i`` is reset with
    ``seed + i``, the seeds :func:`rlkit.evaluate` uses for its first episodes.
    """
    path = Path(path)
    if path.suffix != ".mp4":
        raise RlkitError(f"videos are written as .mp4, got '{path}'")
    if importlib.util.find_spec("moviepy") is None:
        raise RlkitError("recording a video needs moviepy: pip install 'rlkit-course[video]'")
    if not is_count(episodes):
        raise RlkitError(f"episodes must be a positive int, got {episodes!r}")
    from gymnasium.wrappers import RecordVideo

    returns = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "video"  # a new folder: RecordVideo warns when it writes into an existing one
        # one recording from the first reset on: a finite video_length does not stop it at the next reset
        recorder = RecordVideo(
            Viewable(rendering_env(env or agent.env_id)),
            str(folder),
            episode_trigger=lambda episode: episode == 0,
            video_length=10**9,
            name_prefix="agent",
        )
        try:
            for episode in range(episodes):
                obs, _ = recorder.reset(seed=seed + episode)
                total, done = 0.0, False
                while not done:
                    obs, reward, terminated, truncated, _ = recorder.step(agent.act(np.asarray(obs)))
                    total += float(reward)
                    done = terminated or truncated
                returns.append(total)
        finally:
            recorder.close()  # writes the file
        written = sorted(folder.glob("*.mp4"))
        if not written:
            raise RlkitError("RecordVideo wrote no video (did the environment render frames?)")
        from rlkit.atomic import atomic_path

        with atomic_path(path) as temporary:  # the scratch folder may be on another file system: copy, then rename
            shutil.copyfile(written[0], temporary)
    return returns
