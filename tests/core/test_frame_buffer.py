"""FrameReplayBuffer against ReplayBuffer: the same batches from frame-stacked streams, far less memory.

The streams come from real frame-stacked environments: a small gymnasium environment emitting random uint8
frames and ending episodes at random (terminations and truncations), stacked by gymnasium's
``FrameStackObservation``, vectorised by ``rlkit.envs.make_vec_env``, stepped by ``EnvRunner`` (autoreset
steps flagged) and folded by ``NStepFolder`` as the replay loop does. Small capacities make the ring wrap
many times; frames of few grey levels make equal frames recur across unrelated transitions.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.envs import EnvRunner, make_vec_env
from rlkit.errors import CheckpointError, RlkitError
from rlkit.frame_buffer import FrameReplayBuffer, PrioritizedFrameReplayBuffer
from rlkit.nstep import NStepFolder
from rlkit.numerics import check_new_transitions
from rlkit.state import load_state, save_state

STACK = 4


class RandomFrames(gym.Env):
    """Frames of ``shape`` with ``levels`` grey levels, a random episode end now and then."""

    def __init__(self, shape: tuple[int, int] = (5, 8), levels: int = 256, end: float = 0.1) -> None:
        self.observation_space = gym.spaces.Box(0, 255, shape, dtype=np.uint8)
        self.action_space = gym.spaces.Discrete(2)
        self.levels, self.end = levels, end

    def _frame(self) -> np.ndarray:
        values = self.np_random.integers(0, self.levels, self.observation_space.shape)
        return (values * (255 // max(1, self.levels - 1))).astype(np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.steps = 0
        return self._frame(), {}

    def step(self, action):
        self.steps += 1
        ends = self.np_random.random() if self.steps > 1 else 1.0  # gymnasium's checker wants a second step
        terminated, truncated = ends < self.end * 2 / 3, self.end * 2 / 3 <= ends < self.end
        return self._frame(), float(action), terminated, truncated, {}


def stream(n_step: int, steps: int, num_envs: int = 3, seed: int = 0, channels_last: bool = False, **frames):
    """The transitions the replay loop would store: frame stacks (4, H, W), n-step folded, in float32."""

    def build() -> gym.Env:
        return gym.wrappers.FrameStackObservation(RandomFrames(**frames), STACK)

    runner = EnvRunner(make_vec_env(build, num_envs, seed=seed), seed=seed)
    folder = NStepFolder(n_step, 0.9, num_envs)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        batch = runner.step(rng.integers(0, 2, num_envs))
        out = folder.step(
            batch.obs, batch.actions, batch.rewards, batch.next_obs, batch.terminated, batch.truncated, batch.valid
        )
        if out is not None:
            if channels_last:
                out["obs"], out["next_obs"] = np.moveaxis(out["obs"], 1, -1), np.moveaxis(out["next_obs"], 1, -1)
            yield out
    runner.close()


def assert_same(expected: dict, got: dict) -> None:
    assert expected.keys() == got.keys()
    for name in expected:
        assert got[name].dtype == expected[name].dtype and got[name].shape == expected[name].shape, name
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def assert_frames_counted(buffer: FrameReplayBuffer, once: bool = True) -> None:
    """Every held frame is referred to exactly as often as its count says, and (``once``) held once."""
    referred = np.concatenate([buffer.obs[: len(buffer)].ravel(), buffer.next_obs[: len(buffer)].ravel()])
    counts = np.bincount(referred, minlength=buffer.used)
    np.testing.assert_array_equal(buffer.refcount[: buffer.used], counts[: buffer.used])
    assert buffer.frames_held == np.count_nonzero(counts)  # no frame kept that nothing refers to
    live = buffer.frames[np.flatnonzero(counts)]
    assert not once or len(np.unique(live, axis=0)) == len(live)  # no frame stored twice


def compare(expected: ReplayBuffer, got: FrameReplayBuffer, transitions, sample_every: int = 5, once=True) -> int:
    """Feed both buffers; after every add compare everything stored, and sample both now and then. Returns how
    many transitions went in."""
    stored = 0
    for count, batch in enumerate(transitions):
        stored += len(batch["rewards"])
        expected.add(**batch)
        got.add(**batch)
        assert (len(got), got.position) == (len(expected), expected.position)
        assert_same(expected.gather(np.arange(len(expected))), got.gather(np.arange(len(got))))
        if count % sample_every == 0:
            assert_same(expected.sample_many(3, 8), got.sample_many(3, 8))
    assert_frames_counted(got, once)
    return stored


CASES = {
    "one-step": dict(n_step=1),
    "three-step": dict(n_step=3),
    "three-step, few grey levels": dict(n_step=3, shape=(2, 3), levels=2),  # 64 possible frames: many recur
    "channels last, uint8": dict(n_step=3, channels_last=True, obs_dtype=np.uint8, end=0.3),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_same_batches_as_a_replay_buffer_through_many_wraparounds(case):
    case = dict(case)
    obs_dtype = case.pop("obs_dtype", np.float32)
    layout = "last" if case.get("channels_last") else "first"
    frame = case.get("shape", (5, 8))
    shape = (STACK, *frame) if layout == "first" else (*frame, STACK)
    capacity = 48
    expected = ReplayBuffer(capacity, shape, (), np.int64, obs_dtype, seed=7, with_discounts=True)
    got = FrameReplayBuffer(
        capacity, shape, (), np.int64, obs_dtype, seed=7, with_discounts=True, frame_axis=-1 if layout == "last" else 0
    )
    stored = compare(expected, got, stream(steps=160, **case))
    assert stored > 8 * capacity  # the ring wrapped around many times
    assert expected.terminated.any() and not expected.terminated.all()  # episodes end (and go on after a cut)
    check_new_transitions(got, capacity, 0, 1)  # the replay loop's finiteness check reads obs: frame numbers
    assert got.frames_held < 2 * STACK * capacity / 3  # shared frames stored once


class Colliding(FrameReplayBuffer):
    """Digests that collide all the time: the first byte of a frame (levels 0 and 255 only, so 2 digests)."""

    def _digest(self, frames: np.ndarray) -> np.ndarray:
        return frames[:, 0].astype(np.uint64)


def test_colliding_digests_never_return_a_wrong_frame():
    """Correctness rests on comparing bytes, not on the digest: with digests that collide for most frames,
    every batch is still exact (colliding frames get slots of their own outside the dict)."""
    shape = (STACK, 2, 3)
    expected = ReplayBuffer(40, shape, seed=3, with_discounts=True)
    got = Colliding(40, shape, seed=3, with_discounts=True)
    compare(expected, got, stream(n_step=3, steps=120, shape=(2, 3), levels=2), once=False)
    assert len(got._index) <= 2 and got.frames_held > 10  # two digests, many distinct frames held


def test_prioritized_samples_what_prioritized_replay_buffer_samples():
    """Same transitions, same priorities: the same indices, weights and batches, through wraparounds; alpha
    given positionally, as PrioritizedReplayBuffer takes it."""
    shape = (STACK, 5, 8)
    expected = PrioritizedReplayBuffer(40, shape, (), np.int64, np.float32, 11, True, 0.7)
    got = PrioritizedFrameReplayBuffer(40, shape, (), np.int64, np.float32, 11, True, 0.7)
    assert got.alpha == 0.7
    rng = np.random.default_rng(0)
    for count, batch in enumerate(stream(n_step=3, steps=120)):
        expected.add(**batch)
        got.add(**batch)
        if count % 3 == 0:
            a, b = expected.sample_many(2, 8, beta=0.4), got.sample_many(2, 8, beta=0.4)
            assert_same(a, b)
            td_errors = rng.normal(size=a["indices"].shape) * rng.choice([0.01, 1.0, 30.0])
            expected.update_priorities(a["indices"], td_errors)
            got.update_priorities(b["indices"], td_errors)
    assert count > 80 and len(got) == 40
    np.testing.assert_array_equal(got.tree.tree, expected.tree.tree)
    assert_same(expected.sample(16, beta=1.0), got.sample(16, beta=1.0))


@pytest.mark.parametrize("buffer_class", [FrameReplayBuffer, PrioritizedFrameReplayBuffer])
def test_a_saved_and_loaded_buffer_continues_identically(buffer_class, tmp_path):
    """Save mid-run (pickle-free, through rlkit.state), load into a fresh buffer, go on with both: the same
    samples, and in the end the same state, frame slots included."""
    shape = (STACK, 5, 8)
    transitions = list(stream(n_step=3, steps=110, shape=(5, 8), levels=4))
    original = buffer_class(32, shape, seed=5, with_discounts=True)
    for done, batch in enumerate(transitions, 1):
        original.add(**batch)
        free = original._free  # save where the order of the released frame slots matters
        if done >= 40 and len(free) > 1 and free != sorted(free):
            break
    assert done < 70, "no save point found"
    original.sample_many(2, 4)  # the generator has moved on: its state is saved too
    path = save_state(tmp_path / "buffer.npz", original.state_dict())
    resumed = buffer_class(32, shape, seed=999, with_discounts=True)
    resumed.load_state_dict(load_state(path))
    assert_frames_counted(resumed)
    for batch in transitions[done:]:
        original.add(**batch)
        resumed.add(**batch)
        assert_same(original.sample_many(2, 8), resumed.sample_many(2, 8))
        if buffer_class is PrioritizedFrameReplayBuffer:
            for buffer in (original, resumed):
                buffer.update_priorities(np.arange(4), np.arange(1.0, 5.0))
    assert_frames_counted(resumed)
    a, b = original.state_dict(), resumed.state_dict()
    np.testing.assert_equal(b, a)  # every array and number, the free frame slots and their order included


def atari_like(capacity: int, transitions: int, frame: tuple[int, int], lengths=(200, 2_000), seed=0):
    """One environment's frame-stacked stream, an episode per add: each step brings one new frame (stamped
    with a counter over a fixed random background), a reset stack repeats the episode's first frame."""
    rng = np.random.default_rng(seed)  # episode lengths: the same whatever the frame size
    background = np.random.default_rng(seed + 1).integers(0, 256, frame, dtype=np.uint8)
    counter, left = 0, transitions
    while left:
        length = min(left, capacity, int(rng.integers(*lengths)))
        frames = np.repeat(background[None], length + STACK, axis=0).reshape(length + STACK, -1)
        frames[STACK - 1 :, :8].view(np.uint64)[:, 0] = counter + np.arange(length + 1)
        frames[: STACK - 1] = frames[STACK - 1]
        stacks = np.lib.stride_tricks.sliding_window_view(frames.reshape(-1, *frame), STACK, axis=0)
        stacks = np.moveaxis(stacks, -1, 1)  # (length + 1, STACK, *frame)
        zeros = np.zeros(length, np.float32)
        yield dict(
            obs=stacks[:-1], actions=zeros, rewards=zeros, next_obs=stacks[1:], terminated=zeros, discounts=zeros
        )
        counter, left = counter + length + 1, left - length


def fill(buffer: FrameReplayBuffer, capacity: int, transitions: int, frame: tuple[int, int], **stream) -> int:
    """Fill ``buffer``; the most frames it held after any add."""
    most = 0
    for batch in atari_like(capacity, transitions, frame, **stream):
        buffer.add(**batch)
        most = max(most, buffer.frames_held)
    return most


def test_frame_size_only_scales_the_frame_store():
    """The bookkeeping (the ring, frame slots, the dict) depends on which frames are equal, never on their
    size: two buffers fed the same stream with 8-byte and 84x84 frames differ by rows x (7056 - 8) bytes.
    This is what lets the next test measure a 100k Atari buffer with 8-byte frames."""
    small, atari = (FrameReplayBuffer(500, (STACK, *frame), obs_dtype=np.uint8) for frame in ((1, 8), (84, 84)))
    rows = len(small.frames)
    for buffer, frame in ((small, (1, 8)), (atari, (84, 84))):
        fill(buffer, 500, 1_600, frame, lengths=(10, 40))
    assert len(small.frames) == len(atari.frames) > rows  # short episodes made the store grow, the same way
    assert atari.nbytes - small.nbytes == len(atari.frames) * (84 * 84 - 8)


def test_a_100k_atari_buffer_holds_under_1_gb():
    """100,000 transitions of (4, 84, 84) uint8 stacks, a stream where each step adds one new frame, filled
    past capacity, with short episodes (10 to 40 steps, a beginner losing lives at Breakout): each episode's
    first frame is one more to hold, and these make the frame store grow past its initial room.

    Filling it with 84x84 frames takes 5 to 15 s on a shared 2-core machine (0.7 GB of first page touches
    and 800,000 frames compared), too long for this file; so the same stream runs with frames of 8 bytes,
    which leaves everything but the width of the frame store's rows unchanged (the test above checks it),
    and the Atari figure is that buffer's nbytes plus (7,056 - 8) bytes for each row of its frame store."""
    capacity = 100_000
    buffer = FrameReplayBuffer(capacity, (STACK, 1, 8), obs_dtype=np.uint8, with_discounts=True)
    rows = len(buffer.frames)
    most = fill(buffer, capacity, capacity + 30_000, (1, 8), lengths=(10, 41))
    assert len(buffer) == capacity and most <= capacity + capacity // 10 + 2 + STACK  # a frame a step, one an episode
    assert len(buffer.frames) > rows  # it grew
    atari = buffer.nbytes + len(buffer.frames) * (84 * 84 - 8)
    replay = ReplayBuffer(1, (STACK, 84, 84), obs_dtype=np.uint8, with_discounts=True).nbytes * capacity
    assert atari < 1e9 and replay > 5.6e9, (atari, replay)  # 0.79 GB against 5.65 GB (whole stacks)


def test_the_store_grows_in_place_and_by_copy_where_a_saved_state_still_refers_to_it():
    """Growth resizes the frame store in place (the same array object, no copy of the frames), except while a
    state_dict taken earlier still refers to it: then a copy, and that state stays as it was."""
    shape = (STACK, 5, 8)
    transitions = list(stream(n_step=1, steps=120, end=0.3))
    expected = ReplayBuffer(40, shape, seed=2, with_discounts=True)
    got = FrameReplayBuffer(40, shape, seed=2, with_discounts=True)
    store, rows, grew = id(got.frames), len(got.frames), []
    held, saved = None, None
    for batch in transitions:
        expected.add(**batch)
        got.add(**batch)
        assert_same(expected.gather(np.arange(len(expected))), got.gather(np.arange(len(got))))
        if len(got.frames) != rows:
            grew.append(id(got.frames) == store)
            store, rows = id(got.frames), len(got.frames)
            if held is None:  # after the first growth (in place), keep a state: the next growth must copy
                held = got.state_dict()
                saved = held["frame_store"]["frames"].copy()
    assert grew[:2] == [True, False], grew
    np.testing.assert_array_equal(held["frame_store"]["frames"], saved)
    assert_frames_counted(got)


def test_bad_input_is_refused_with_a_message_naming_the_fix():
    with pytest.raises(RlkitError, match=r"frame_axis=3 is out of range .* \(4, 84, 84\).* -1 when"):
        FrameReplayBuffer(10, (4, 84, 84), frame_axis=3)
    with pytest.raises(RlkitError, match="frame_axis=-4 is out of range"):
        FrameReplayBuffer(10, (4, 84, 84), frame_axis=-4)
    with pytest.raises(RlkitError, match="int8 cannot hold every value 0..255"):
        FrameReplayBuffer(10, (4, 84, 84), obs_dtype=np.int8)
    with pytest.raises(RlkitError, match="capacity must be a positive int"):
        FrameReplayBuffer(0, (4, 84, 84))
    with pytest.raises(RlkitError, match="needs observations with a frame axis"):
        FrameReplayBuffer(10, ())

    buffer = FrameReplayBuffer(10, (4, 3, 3), seed=0)
    stacks = np.zeros((2, 4, 3, 3), np.float32)
    one = {"actions": np.zeros(2, np.int64), "rewards": np.zeros(2), "terminated": np.zeros(2)}
    with pytest.raises(
        RlkitError, match=r"obs has shape \(2, 3, 3, 4\).*frames on axis 0.*\(2, 4, 3, 3\).*another frame_axis"
    ):
        buffer.add(obs=np.moveaxis(stacks, 1, -1), next_obs=stacks, **one)  # channels last into channels first
    for bad in (0.5, 256.0, -1.0, np.nan):
        wrong = stacks.copy()
        wrong[1, 2, 0, 1] = bad
        with pytest.raises(RlkitError, match=r"next_obs holds .* stores frames as uint8.* 0 to 255"):
            buffer.add(obs=stacks, next_obs=wrong, **one)
    with pytest.raises(RlkitError, match="cannot add 11 transitions to a buffer of capacity 10"):
        buffer.add(np.zeros((11, 4, 3, 3)), np.zeros(11), np.zeros(11), np.zeros((11, 4, 3, 3)), np.zeros(11))
    assert len(buffer) == 0 and buffer.frames_held == 0  # nothing refused was stored


def test_a_failed_add_leaves_every_frame_count_true():
    """ReplayBuffer.add fails late on a wrong actions shape (numpy's error); the frames are taken in only
    after the ring's fields are written, so the failure leaves frames and transitions as they were."""
    transitions = list(stream(n_step=1, steps=30, shape=(5, 8)))
    buffer = FrameReplayBuffer(16, (STACK, 5, 8), seed=0, with_discounts=True)
    for batch in transitions[:-1]:
        buffer.add(**batch)
    before = buffer.gather(np.arange(16))
    last = transitions[-1]
    with pytest.raises(ValueError):
        buffer.add(**{**last, "actions": np.zeros((len(last["rewards"]), 5))})
    assert_frames_counted(buffer)
    for name in ("obs", "next_obs"):
        np.testing.assert_array_equal(buffer.gather(np.arange(16))[name], before[name])


def test_states_of_another_buffer_are_refused():
    replay = ReplayBuffer(8, (STACK, 5, 8), with_discounts=True)
    with pytest.raises(CheckpointError, match="saved by a ReplayBuffer"):
        FrameReplayBuffer(8, (STACK, 5, 8), with_discounts=True).load_state_dict(replay.state_dict())
    saved = FrameReplayBuffer(8, (STACK, 5, 8), with_discounts=True).state_dict()
    with pytest.raises(CheckpointError, match="obs_shape, frame_axis and capacity of the run that saved it"):
        FrameReplayBuffer(8, (STACK, 5, 7), with_discounts=True).load_state_dict(saved)
