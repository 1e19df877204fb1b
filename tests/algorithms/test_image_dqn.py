"""DQN on image observations: the encoders of ``rlkit/encoders.py`` in numpy, torch and TensorFlow are one
network (same weights -> same outputs, same gradients, same update), with every Rainbow option, for
channels-first stacks (Atari's (4, 84, 84)) and channels-last grids (MinAtar's (10, 10, C)); stored
observations stay uint8 (or bool) all the way to the network."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlkit.algos.dqn.agent import DQNAgent
from rlkit.algos.dqn.config import DQNConfig
from rlkit.encoders import encode, image_spec, init_conv_weights
from rlkit.errors import ContractError, RlkitError

torch = pytest.importorskip("torch")
pytest.importorskip("tensorflow")

from rlkit.algos.dqn.tf import DQNLearner as TFLearner  # noqa: E402
from rlkit.algos.dqn.torch import DQNLearner as TorchLearner  # noqa: E402

LEARNING_RATE = 1e-2
#: A convolution's weight gradient sums thousands of products (every window of every image), and the two
#: frameworks sum them in other orders; Adam divides each gradient by its own running scale, so a rounding
#: difference in a small gradient moves a weight by a different fraction of a step. Measured over these tests
#: (Adam's epsilon 1e-4, see the update test): a few entries in 10^4 apart, by at most 0.08% of a step; the MLP
#: tests allow 0.01%. A wrong update moves many weights by whole steps.
WEIGHT_ATOL = 1e-3 * LEARNING_RATE
#: Small spaces of both layouts and both encoders, cheap enough to update in a test.
SPACES = {
    "pixels-channels-first-nature": gym.spaces.Box(0, 255, (2, 44, 52), np.uint8),  # features 2x3x64
    "pixels-channels-last-minatar": gym.spaces.Box(0, 255, (9, 8, 3), np.uint8),
    "grid-bool-minatar": gym.spaces.Box(0, 1, (10, 10, 4), bool),
}
VARIANTS = {
    "plain": {},
    "dueling": {"dueling": True},
    "noisy": {"noisy": True},
    "c51-dueling": {"distributional": True, "dueling": True, "n_atoms": 11, "v_min": -5.0, "v_max": 5.0},
}


def observations(space: gym.spaces.Box, rng: np.random.Generator, count: int) -> np.ndarray:
    if space.dtype == bool:
        return rng.random((count, *space.shape)) < 0.2
    return rng.integers(0, 256, size=(count, *space.shape), dtype=np.uint8)


def twins(space, **overrides):
    config = DQNConfig(hidden_sizes=(16,), learning_rate=LEARNING_RATE, **overrides)
    spec = image_spec(space)
    size = int(np.prod(space.shape))
    torch_learner = TorchLearner(size, 3, config, seed=0, image=spec)
    tf_learner = TFLearner(size, 3, config, seed=1, image=spec)  # a different init, overwritten next
    tf_learner.set_weights(torch_learner.get_weights())
    return torch_learner, tf_learner, DQNAgent(torch_learner, "test", size, 3, config, spec)


def image_batch(space, rng, batch_size: int = 16) -> dict:
    return {
        "obs": observations(space, rng, batch_size),
        "actions": rng.integers(0, 3, size=batch_size),
        "rewards": rng.normal(scale=3.0, size=batch_size).astype(np.float32),
        "next_obs": observations(space, rng, batch_size),
        "terminated": (rng.random(batch_size) < 0.2).astype(np.float32),
    }


def reference_conv(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray, stride: int) -> np.ndarray:
    """A convolution as loops over output pixels, NHWC: the definition the fast numpy path must equal."""
    size = kernel.shape[0]
    height = (x.shape[1] - size) // stride + 1
    width = (x.shape[2] - size) // stride + 1
    out = np.zeros((x.shape[0], height, width, kernel.shape[3]), dtype=np.float64)
    for i in range(height):
        for j in range(width):
            window = x[:, i * stride : i * stride + size, j * stride : j * stride + size, :]
            out[:, i, j, :] = np.einsum("bhwc,hwco->bo", window, kernel)
    return np.maximum(out + bias, 0.0)


def test_image_spaces_are_read_with_their_channel_axis_and_the_encoder_their_size_allows():
    atari = image_spec(gym.spaces.Box(0, 255, (4, 84, 84), np.uint8))
    assert (atari.channels_last, atari.channels, atari.encoder, atari.flat_size) == (False, 4, "nature", 3136)
    assert atari.scale == pytest.approx(1 / 255)
    minatar = image_spec(gym.spaces.Box(0, 1, (10, 10, 6), bool))
    assert (minatar.channels_last, minatar.channels, minatar.encoder, minatar.flat_size) == (True, 6, "minatar", 1024)
    assert minatar.scale == 1.0
    assert image_spec(gym.spaces.Box(-1, 1, (4,), np.float32)) is None  # flat: an MLP reads it


def test_unreadable_images_are_refused_with_what_to_do():
    with pytest.raises(RlkitError, match="too small for the nature encoder"):
        image_spec(gym.spaces.Box(0, 255, (4, 20, 20), np.uint8), "nature")
    with pytest.raises(RlkitError, match="uint8 or bool or float32, got int64"):
        image_spec(gym.spaces.Box(0, 255, (4, 40, 40), np.int64))
    with pytest.raises(RlkitError, match="encoder must be one of"):  # flatten in the environment for an MLP
        image_spec(gym.spaces.Box(0, 255, (4, 40, 40), np.uint8), "resnet")


@pytest.mark.parametrize("name", SPACES)
def test_the_numpy_encoder_is_a_convolution(name, rng):
    space = SPACES[name]
    spec = image_spec(space)
    weights = init_conv_weights(spec, seed=3)
    obs = observations(space, rng, 3)
    x = obs.astype(np.float64) * spec.scale
    if not spec.channels_last:
        x = x.transpose(0, 2, 3, 1)
    for kernel, bias, (_, _, stride) in zip(weights[0::2], weights[1::2], spec.convs, strict=True):
        x = reference_conv(x, kernel.astype(np.float64), bias, stride)
    np.testing.assert_allclose(encode(weights, obs, spec), x.reshape(3, -1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", SPACES)
def test_forward_passes_agree_in_torch_tf_and_numpy(name, variant, rng):
    space = SPACES[name]
    torch_learner, tf_learner, agent = twins(space, **VARIANTS[variant])
    obs = observations(space, rng, 5)
    expected = torch_learner.q_values(obs)
    np.testing.assert_allclose(tf_learner.q_values(obs), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(agent.q_values(obs), expected, rtol=1e-5, atol=1e-5)
    assert agent.act(obs[0]) == int(expected[0].argmax())  # one observation: its shape is the image's


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", SPACES)
def test_updates_agree_step_by_step(name, variant, rng):
    space = SPACES[name]
    # Adam's epsilon at 1e-4, below most gradients: a near-zero gradient, whose sign the two summation orders
    # may flip, then moves its weight by a sliver instead of a whole step in either direction
    torch_learner, tf_learner, _ = twins(
        space, target_update="hard", target_update_every=2, adam_eps=1e-4, **VARIANTS[variant]
    )
    noise = torch_learner.draw_noise()
    batch = image_batch(space, rng)
    torch_grads = torch_learner.gradients(batch, noise)
    for g_torch, g_tf in zip(torch_grads, tf_learner.gradients(batch, noise), strict=True):
        np.testing.assert_allclose(g_tf, g_torch, rtol=1e-4, atol=1e-5)
    assert torch_grads[0].shape == image_spec(space).kernel_shapes()[0]  # the encoder's kernel is learned first
    for _ in range(3):
        batch, noise = image_batch(space, rng), torch_learner.draw_noise()
        torch_metrics, tf_metrics = torch_learner.update(batch, noise), tf_learner.update(batch, noise)
        assert tf_metrics["loss"] == pytest.approx(torch_metrics["loss"], rel=1e-4, abs=1e-5)
        for w_torch, w_tf in zip(torch_learner.get_weights(), tf_learner.get_weights(), strict=True):
            np.testing.assert_allclose(w_tf, w_torch, rtol=1e-4, atol=WEIGHT_ATOL)


@pytest.mark.parametrize("learner_index", [0, 1], ids=["torch", "tf"])
def test_the_contract_wants_images_as_stored(learner_index, rng):
    space = SPACES["pixels-channels-first-nature"]
    learner = twins(space)[learner_index]
    batch = image_batch(space, rng)
    scaled = {**batch, "obs": batch["obs"].astype(np.float32) / 255}
    with pytest.raises(ContractError, match=r"batch\['obs'\] has dtype float32; DQN expects \(B, 2, 44, 52\) uint8"):
        learner.update(scaled)
    cropped = {**batch, "obs": batch["obs"][:, :, :-1]}
    with pytest.raises(ContractError, match=r"batch\['obs'\] has shape \(16, 2, 43, 52\)"):
        learner.update(cropped)


class GridWorld(gym.Env):
    """A 5x5 bool grid, MinAtar-style: the agent in channel 0, the goal (the far corner) in channel 1; reaching
    the goal pays 1, within 30 moves. Small enough that DQN learns it in a few thousand steps from the image
    alone; a random walk reaches the goal in 15% of its episodes."""

    observation_space = gym.spaces.Box(0, 1, (5, 5, 2), bool)
    action_space = gym.spaces.Discrete(4)
    moves = ((0, 1), (1, 0), (0, -1), (-1, 0))

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.position, self.steps = (0, 0), 0
        return self.grid(), {}

    def grid(self) -> np.ndarray:
        grid = np.zeros((5, 5, 2), dtype=bool)
        grid[(*self.position, 0)] = True
        grid[4, 4, 1] = True
        return grid

    def step(self, action):
        dy, dx = self.moves[int(action)]
        self.position = (min(max(self.position[0] + dy, 0), 4), min(max(self.position[1] + dx, 0), 4))
        self.steps += 1
        done = self.position == (4, 4)
        return self.grid(), float(done), done, self.steps >= 30 and not done, {}


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_dqn_trains_on_an_image_env_storing_it_as_it_comes(framework, tmp_path):
    import rlkit

    # gamma 0.9 spreads the actions' values (the goal is 8 moves away: Q = 0.9^7 = 0.478 at the start)
    config = dict(hidden_sizes=(32,), learning_starts=500, train_every=64, gradient_steps=32, batch_size=32)
    config.update(eps_fraction=0.5, gamma=0.9)
    result = rlkit.train("dqn", env=GridWorld, framework=framework, total_steps=3_000, seed=0, progress=False, **config)
    agent = result.agent
    assert agent.loop.buffer.obs.dtype == bool and agent.loop.buffer.obs.shape[1:] == (5, 5, 2)
    assert agent.image is not None and agent.image.encoder == "minatar"
    returns = rlkit.evaluate(agent, env=rlkit.envs.env_source(GridWorld), episodes=5)
    assert returns.mean() == 1.0  # every episode reaches the goal (a random walk: 15% of them)
    start = np.stack([GridWorld().reset()[0]])
    assert agent.q_values(start).max() == pytest.approx(0.9**7, abs=0.05)
    path = agent.save(tmp_path / f"grid.{'pt' if framework == 'torch' else 'keras'}")
    loaded = rlkit.load(path)
    obs = np.stack([GridWorld().reset()[0]] * 2)
    np.testing.assert_allclose(loaded.q_values(obs), agent.q_values(obs), rtol=1e-6)


class SteeredGridWorld(GridWorld):
    """The grid with a continuous action, for the algorithms that need one: its sign picks the move."""

    action_space = gym.spaces.Box(-1, 1, (1,), np.float32)

    def step(self, action):
        return super().step(0 if float(np.asarray(action).ravel()[0]) >= 0 else 1)


@pytest.mark.parametrize("algo", ["ddpg", "td3", "sac"])
def test_algorithms_without_an_encoder_refuse_images_by_name(algo):
    """PPO and A2C read images too (tests/algorithms/test_image_actor_critic.py); the off-policy actor-critics
    do not yet."""
    import rlkit

    with pytest.raises(RlkitError, match=f"{algo.upper()} reads flat observations, and SteeredGridWorld has images"):
        rlkit.train(algo, env=SteeredGridWorld, total_steps=100, progress=False)


class Blinker(gym.Env):
    """An 8x8 grey frame with one lit pixel that moves with the action; episodes of 12 to 20 steps."""

    observation_space = gym.spaces.Box(0, 255, (8, 8), np.uint8)
    action_space = gym.spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.x, self.t, self.length = 4, 0, int(self.np_random.integers(12, 21))
        return self.frame(), {}

    def frame(self) -> np.ndarray:
        frame = np.zeros((8, 8), dtype=np.uint8)
        frame[self.t % 8, self.x] = 255
        return frame

    def step(self, action):
        self.x, self.t = min(max(self.x + int(action) - 1, 0), 7), self.t + 1
        return self.frame(), float(self.x == 7), False, self.t >= self.length, {}


def stacked_blinker() -> gym.Env:
    return gym.wrappers.FrameStackObservation(Blinker(), 4, padding_type="reset")  # (4, 8, 8), frames first


def test_frame_replay_stores_each_frame_once_and_trains_exactly_as_whole_stacks():
    import rlkit
    from rlkit.frame_buffer import FrameReplayBuffer

    config = dict(hidden_sizes=(16,), learning_starts=300, train_every=50, gradient_steps=8, batch_size=16)
    runs = {
        replay: rlkit.train(
            "dqn", env=stacked_blinker, total_steps=1_200, seed=3, progress=False, frame_replay=replay, **config
        )
        for replay in (False, True)
    }
    stacks, frames = (runs[replay].agent.loop.buffer for replay in (False, True))
    assert type(frames) is FrameReplayBuffer and type(stacks) is not FrameReplayBuffer
    assert frames.nbytes < stacks.nbytes / 3  # 4 frames a stack, each kept once (plus frame numbers)
    for a, b in zip(runs[False].agent.get_weights(), runs[True].agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # the same batches, so the same updates, bit for bit


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_an_atari_run_at_its_defaults_trains_on_stored_frames_and_reloads(framework, tmp_path):
    """The path a GPU run of chapter 16 takes, kept runnable on a CPU: the ALE pipeline, the Nature encoder at
    full size, the frame buffer, gradient steps at DQN's Atari defaults (shortened), save and load."""
    pytest.importorskip("ale_py")
    import rlkit
    from rlkit.frame_buffer import FrameReplayBuffer

    short = dict(learning_starts=200, buffer_size=1_000, train_every=100, gradient_steps=2, eval_every=10_000)
    result = rlkit.train("dqn", env="ALE/Pong-v5", framework=framework, total_steps=400, progress=False, **short)
    agent, buffer = result.agent, result.agent.loop.buffer
    assert result.config.hidden_sizes == (512,) and agent.image.encoder == "nature"
    assert type(buffer) is FrameReplayBuffer and buffer.frame_shape == (84, 84) and buffer.frames_held <= 400 + 4
    assert len(result.history.series("loss")[0]) == 3  # bursts at steps 200, 300 and 400
    path = agent.save(tmp_path / f"pong.{'pt' if framework == 'torch' else 'keras'}")
    obs, _ = rlkit.make_env("ALE/Pong-v5").reset(seed=0)
    np.testing.assert_allclose(rlkit.load(path).q_values(obs[None]), agent.q_values(obs[None]), rtol=1e-6)
