"""Videos of greedy episodes, recorded headless (no display) with gymnasium's RecordVideo."""

from __future__ import annotations

import os

import pytest

from rlkit.cli import main
from rlkit.errors import RlkitError
from rlkit.video import record_video

imageio_ffmpeg = pytest.importorskip(
    "imageio_ffmpeg", reason="needs the video extra: pip install 'rlkit-course[video]'"
)


@pytest.fixture
def agent():
    from rlkit.algos.dqn import DQNAgent, DQNConfig

    made, envs = DQNAgent.make("CartPole-v1", "torch", DQNConfig(), seed=0)
    envs.close()
    return made


def frames(path) -> int:
    return imageio_ffmpeg.count_frames_and_secs(str(path))[0]


def test_a_video_holds_every_step_of_its_episodes(agent, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)  # headless, whatever the machine running the test has
    path = tmp_path / "clips" / "agent.mp4"
    returns = record_video(agent, path, episodes=2)
    assert len(returns) == 2
    assert path.read_bytes()[4:8] == b"ftyp"  # an MP4 container
    # CartPole pays 1 per step; each episode adds its reset frame and one frame per step (moviepy may drop
    # the clip's last frame when it rounds the duration)
    assert abs(frames(path) - sum(int(r) + 1 for r in returns)) <= 1


def test_eval_records_a_video(agent, tmp_path, capsys):
    checkpoint = agent.save(tmp_path / "agent.pt")
    video = tmp_path / "eval.mp4"
    assert main(["eval", str(checkpoint), "--episodes", "2", "--video", str(video)]) == 0
    assert "video of an episode with return" in capsys.readouterr().out
    assert os.path.getsize(video) > 0 and frames(video) > 1


def test_only_mp4_is_written(agent, tmp_path):
    with pytest.raises(RlkitError, match="videos are written as .mp4, got"):
        record_video(agent, tmp_path / "agent.gif")


def test_a_minatar_grid_is_written_enlarged_as_uint8_colour(tmp_path):
    """MinAtar renders its 10x10 grid as float colours: the video holds it as uint8 at 160x160 pixels."""
    pytest.importorskip("minatar")
    import numpy as np

    from rlkit.envs import make_env
    from rlkit.video import MIN_SIDE, Viewable

    env = Viewable(make_env("MinAtar/Breakout-v1", render_mode="rgb_array"))
    env.reset(seed=0)
    frame, raw = env.render(), env.unwrapped.render()
    assert raw.shape == (10, 10, 3) and raw.dtype == np.float64
    assert frame.shape == (MIN_SIDE, MIN_SIDE, 3) and frame.dtype == np.uint8
    np.testing.assert_array_equal(frame[::16, ::16], (raw * 255).round().astype(np.uint8))  # one block per cell

    class Random:
        def act(self, obs, deterministic=True):
            return 0

    path = tmp_path / "minatar.mp4"
    (episode_return,) = record_video(Random(), path, env="MinAtar/Breakout-v1")
    reader = imageio_ffmpeg.read_frames(str(path))
    assert next(reader)["size"] == (MIN_SIDE, MIN_SIDE)


def test_a_mujoco_task_is_filmed_through_its_tracking_camera():
    """gymnasium's default free camera stays where the body started: a running cheetah leaves the frame. The
    model's own ``track`` camera follows it."""
    pytest.importorskip("mujoco")
    from rlkit.video import rendering_env

    cheetah = rendering_env("HalfCheetah-v5").unwrapped
    track = [cheetah.model.camera(i).name for i in range(cheetah.model.ncam)].index("track")
    assert cheetah.mujoco_renderer.camera_id == track
    assert not hasattr(rendering_env("CartPole-v1").unwrapped, "model")  # others are made as they are
