"""Replay memory for frame stacks: each distinct frame stored once, stacks rebuilt when a batch is gathered.

An agent that learns from pixels sees a stack of the last F frames (Atari: F = 4 frames of 84x84 grey
pixels, one uint8 each, so 7,056 bytes a frame and 28,224 bytes a stack) because one frame shows positions
and no velocities. A :class:`~rlkit.buffers.ReplayBuffer` stores ``obs`` and ``next_obs`` as whole stacks:
2 x 28,224 = 56,448 bytes per transition, 5.6 GB for the 100,000 transitions of a small Atari run (and four
times that, 22.6 GB, if the stacks are kept as float32). Yet almost all of it is repeated: the stack after a
step is the stack before it with the oldest frame dropped and one new frame added, so the ``next_obs`` of a
transition holds F - 1 frames of its ``obs``, and its ``obs`` is the ``next_obs`` of the transition before.
Each environment step brings one new frame, and storing each frame once costs about

    7,056 bytes (the frame) + 2 x F x 4 = 32 bytes (the frame numbers of obs and next_obs)
    + 12 bytes (the frame's reference count and digest) + about 64 bytes (its entry in a Python dict)

or about 7.2 kB per transition: 0.72 GB for 100,000 transitions instead of 5.6 GB. Each episode adds one
frame more (its first, repeated in its first stack), and the frame store keeps some headroom (below): a
100,000-transition buffer filled with such a stream holds 0.75 GB (``nbytes``) with episodes of 200 to 2,000
steps and 0.79 GB with episodes of 10 to 40 steps (the tests' case), 7.6 and 7.1 times less than the 5.65 GB
of a ReplayBuffer of uint8 stacks.

**How the frames are found again.** The loop hands the buffer whole stacks, one-step or n-step (the
:class:`~rlkit.nstep.NStepFolder` emits ``next_obs`` up to n steps later, in an order that depends on where
episodes end), from several environments interleaved, autoreset steps already dropped. Rather than trust
any of that order, the buffer recognises frames by their content: each frame is cut out of its stack, a
64-bit digest of its bytes (one vectorised multiply-add over its 8-byte words) looks it up in a dict of the
frames held, and a hit is accepted only if the stored bytes equal the new ones, so a digest collision can
never hand back a wrong frame (a colliding frame simply gets a slot of its own, outside the dict). Every
stored frame counts the stacks that refer to it; when a transition slot of the ring is overwritten, the
counts of its old frames go down, a frame no longer referred to leaves the dict and its slot is reused.

**What is bounded.** Stored transitions refer to at most 2 x F x capacity frames (every frame of every stack
distinct: then nothing is saved, and nothing is lost either), and the frame store never grows past that.
On a stream of frame stacks it holds about capacity + (episodes begun in the buffer) + F x (environments)
frames. The store starts with room for capacity + capacity / 32 + 2F frames (one episode start every 32
steps) and grows by a sixteenth when more are alive, in place where it can (``ndarray.resize``).

**What it costs.** Measured at Atari size ((4, 84, 84) stacks from 8 environments, numpy 2.4, a shared
2-core machine, medians of several runs): ``add`` costs 25 to 40 us per transition given uint8 stacks, and 55
to 80 us given the float32 stacks the n-step folder hands over (they must be checked to hold whole numbers
0..255), while one step of rlkit's Atari pipeline (Pong, 4 emulator frames) costs about 430 us on the same
machine. Storing is dearer than a ReplayBuffer's copy (10 to 40 us) because every frame is digested and
compared with the frame held. ``gather`` costs 5 to 7 us per transition in uint8 and 12 to 16 us in float32,
no more than a ReplayBuffer's: rebuilding a stack is one fancy-indexing gather of frames.

**The same batches.** The ring of transitions is :class:`~rlkit.buffers.ReplayBuffer`'s own (this class is a
subclass): only what an observation slot holds changes, F frame numbers instead of F frames. Positions,
sampling and the random generator are untouched, so a :class:`FrameReplayBuffer` fed the transitions a
:class:`ReplayBuffer` is fed returns the same arrays from ``gather`` and ``sample_many``, bit for bit (the
tests check it on n-step streams of frame-stacked environments).
"""

from __future__ import annotations

import sys

import numpy as np

from rlkit.buffers import PrioritizedReplayBuffer, ReplayBuffer
from rlkit.errors import CheckpointError, RlkitError, is_count

#: Odd 64-bit multipliers of the digest, one per 8-byte word of a frame; fixed, so a digest computed after
#: loading a state equals the one computed before saving it.
_MULTIPLIERS = np.random.default_rng(0x5EED_F4A3E).integers(0, 2**63, size=1 << 16, dtype=np.uint64) * 2 + 1

#: Estimated bytes of one dict entry of the frame index beyond the dict's own table: a 64-bit int key (36
#: bytes) and an int value (28 bytes).
_INDEX_ENTRY_BYTES = 64


class FrameReplayBuffer(ReplayBuffer):
    """A :class:`~rlkit.buffers.ReplayBuffer` of frame stacks that stores each distinct frame once (uint8).

    The arguments are :class:`ReplayBuffer`'s, plus ``frame_axis``: the axis of one observation that holds
    its frames, 0 for channels-first stacks such as Atari's (4, 84, 84) (the default, and
    :func:`rlkit.atari.make_atari`'s layout), -1 (or 2) for channels-last stacks such as (84, 84, 4).
    ``make_buffer`` passes only :class:`ReplayBuffer`'s arguments, so through it a caller chooses the axis with
    ``buffer_class=functools.partial(FrameReplayBuffer, frame_axis=-1)``, or with a subclass that sets
    :attr:`default_frame_axis` (the way for the prioritized buffer: ``make_buffer`` hands ``alpha`` to classes
    only, not to a partial). One slice along that axis is the unit stored once, so a colour stack (3F, H, W) is
    deduplicated plane by plane, which works as well: a frame's planes recur together.

    ``obs_dtype`` is the dtype ``gather`` hands stacks out in (float32 by default, as :class:`ReplayBuffer`);
    the frames themselves are always kept as uint8, so observations must hold whole numbers from 0 to 255,
    and ``add`` refuses anything else rather than round it.

    ``obs`` and ``next_obs`` are the ring's arrays, as in :class:`ReplayBuffer`, but hold (capacity, F) frame
    numbers: rows of :attr:`frames`, the frame store. :meth:`gather` turns them back into stacks.
    """

    #: The frame axis used when ``frame_axis`` is not given: 0, channels first.
    default_frame_axis: int = 0

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        action_shape: tuple[int, ...] = (),
        action_dtype: type | np.dtype = np.int64,
        obs_dtype: type | np.dtype = np.float32,
        seed: int | None = None,
        with_discounts: bool = False,
        *,
        frame_axis: int | None = None,
        **options,
    ) -> None:
        """``options`` go to the next class of the method resolution order: ``alpha`` and ``eps`` when that
        is :class:`~rlkit.buffers.PrioritizedReplayBuffer` (see :class:`PrioritizedFrameReplayBuffer`)."""
        name = type(self).__name__
        if not is_count(capacity):
            raise RlkitError(f"{name} capacity must be a positive int, got {capacity!r}")
        try:
            obs_shape = tuple(int(size) for size in obs_shape)
        except TypeError:
            raise RlkitError(f"{name} obs_shape must be a tuple of ints, got {obs_shape!r}") from None
        if not obs_shape or min(obs_shape) < 1:
            raise RlkitError(
                f"{name} needs observations with a frame axis and frames of at least one pixel, got obs_shape "
                f"{obs_shape}: a stack of F frames of H x W pixels is (F, H, W) or (H, W, F)"
            )
        axis = self.default_frame_axis if frame_axis is None else frame_axis
        if not is_count(axis, minimum=-len(obs_shape)) or axis >= len(obs_shape):
            raise RlkitError(
                f"frame_axis={axis!r} is out of range for observations of shape {obs_shape}: give an int from "
                f"{-len(obs_shape)} to {len(obs_shape) - 1}, 0 when frames are on the first axis (channels first, "
                f"Atari's (4, 84, 84)), -1 when they are on the last (channels last, (84, 84, 4))"
            )
        obs_dtype = np.dtype(obs_dtype)
        if not np.can_cast(np.uint8, obs_dtype):
            raise RlkitError(
                f"{name} keeps frames as uint8 and hands them out as obs_dtype, but {obs_dtype} cannot hold every "
                "value 0..255: use uint8 or a float type (float32, the default)"
            )
        self.obs_shape, self.obs_dtype = obs_shape, obs_dtype
        self.frame_axis = int(axis) % len(obs_shape)
        self.num_frames = obs_shape[self.frame_axis]  # F, frames per observation
        #: Shape of one frame: the observation without its frame axis.
        self.frame_shape = obs_shape[: self.frame_axis] + obs_shape[self.frame_axis + 1 :]
        self.frame_bytes = int(np.prod(self.frame_shape, dtype=np.int64))
        #: The most frames the stored transitions can refer to: 2 F per transition, none shared.
        self.max_frames = 2 * self.num_frames * int(capacity)
        numbers = np.int32 if self.max_frames < 2**31 else np.int64  # frame numbers and reference counts
        self._count_dtype = numbers
        # the ring of ReplayBuffer, whose obs and next_obs hold F frame numbers per transition
        super().__init__(
            capacity, (self.num_frames,), action_shape, action_dtype, numbers, seed, with_discounts, **options
        )
        # a frame is digested as words of the largest size dividing its byte count (8 bytes for 84 x 84)
        self._word = next(np.dtype(f"u{size}") for size in (8, 4, 2, 1) if self.frame_bytes % size == 0)
        self._multipliers = np.resize(_MULTIPLIERS, self.frame_bytes // self._word.itemsize)
        self.frames: np.ndarray | None = None
        self.used = 0  # frame slots handed out so far: those below it are alive or in _free
        # room for the frames of a full ring of one-step stacks, one episode start every 32 steps (Atari's
        # training episodes, cut at each lost life, are longer) and two whole stacks
        self._allocate(min(self.max_frames, int(capacity) + int(capacity) // 32 + 2 * self.num_frames))
        self._free: list[int] = []  # released frame slots, reused last-released first
        self._index: dict[int, int] = {}  # digest -> the frame slot holding a frame with that digest

    def _allocate(self, rows: int) -> None:
        """(Re)allocate the frame store with room for ``rows`` frames, keeping the frames held.

        Growing resizes the arrays in place where nothing else refers to them (``ndarray.resize``: the
        allocator can extend the block or move its pages without copying 0.7 GB of frames); where something
        does (a view handed out by :meth:`state_dict`), they are copied into new arrays instead.
        """
        if self.frames is None:
            #: The frame store: one row of ``frame_bytes`` uint8 per frame slot.
            self.frames = np.zeros((rows, self.frame_bytes), dtype=np.uint8)
            #: How many (transition, obs or next_obs, position in the stack) refer to each frame slot.
            self.refcount = np.zeros(rows, dtype=self._count_dtype)
            #: Each frame slot's digest, to find its dict entry when it is released.
            self.digests = np.zeros(rows, dtype=np.uint64)
            return
        for name in ("frames", "refcount", "digests"):
            shape = (rows, *getattr(self, name).shape[1:])
            try:  # no local name for the array here: resize refuses an array with more than one reference
                getattr(self, name).resize(shape, refcheck=True)  # the new rows are zeros
            except ValueError:  # referred to elsewhere: a copy, which leaves the other holder's view valid
                old = getattr(self, name)
                new = np.zeros(shape, dtype=old.dtype)
                new[: self.used] = old[: self.used]
                setattr(self, name, new)

    @property
    def nbytes(self) -> int:
        """Memory held, in bytes: the ring's arrays, the frame store and an estimate of the dict indexing it."""
        store = self.frames.nbytes + self.refcount.nbytes + self.digests.nbytes
        index = sys.getsizeof(self._index) + _INDEX_ENTRY_BYTES * len(self._index)
        free = sys.getsizeof(self._free) + 28 * len(self._free)  # a list of (28-byte) ints
        return super().nbytes + store + index + free

    @property
    def frames_held(self) -> int:
        """Frames referred to by the stored transitions (each stored once)."""
        return self.used - len(self._free)

    # ------------------------------------------------------------------------------------------------ storing

    def add(self, obs, actions, rewards, next_obs, terminated, discounts=None) -> None:
        """Store a batch of transitions (leading axis = transitions), as :meth:`ReplayBuffer.add` does.

        The ring's other fields are written first, with the overwritten slots' frame numbers left as they
        were; only when that has succeeded are frames released and taken in, so input that fails anywhere
        leaves every frame's reference count true.
        """
        n = len(rewards)
        if n == 0:
            return
        if n > self.capacity:
            raise RlkitError(f"cannot add {n} transitions to a buffer of capacity {self.capacity}")
        frames = np.concatenate([self._frames_of("obs", obs, n), self._frames_of("next_obs", next_obs, n)])
        slots = (self.position + np.arange(n)) % self.capacity
        overwritten = slots[slots < self.size]  # the ring fills slots 0, 1, ... in order: these hold transitions
        super().add(self.obs[slots], actions, rewards, self.next_obs[slots], terminated, discounts)
        self._release(np.concatenate([self.obs[overwritten].ravel(), self.next_obs[overwritten].ravel()]))
        numbers = self._intern(frames).reshape(2, n, self.num_frames)
        self.obs[slots], self.next_obs[slots] = numbers

    def _frames_of(self, name: str, values, n: int) -> np.ndarray:
        """The frames of ``n`` observations as (n F, frame_bytes) uint8 rows, stack by stack, after checking
        their shape and that uint8 holds them exactly."""
        values = np.asarray(values)
        if values.shape != (n, *self.obs_shape):
            raise RlkitError(
                f"{name} has shape {values.shape}, but {type(self).__name__} stores observations of shape "
                f"{self.obs_shape} (frames on axis {self.frame_axis}): {n} transitions need {name} of shape "
                f"{(n, *self.obs_shape)} (frames on another axis need another frame_axis)"
            )
        stacks = np.moveaxis(values, 1 + self.frame_axis, 1)  # (n, F, *frame_shape)
        if values.dtype == np.uint8:
            frames = np.ascontiguousarray(stacks)
        else:
            with np.errstate(invalid="ignore", over="ignore"):  # out-of-range values are caught just below
                frames = np.ascontiguousarray(stacks, dtype=np.uint8)
            exact = frames == stacks
            if not exact.all():
                raise RlkitError(
                    f"{name} holds {stacks[~exact][0].item()!r}, and {type(self).__name__} stores frames as uint8: "
                    "give raw pixels (whole numbers from 0 to 255, of any dtype) and scale them inside the network"
                )
        return frames.reshape(n * self.num_frames, self.frame_bytes)

    def _digest(self, frames: np.ndarray) -> np.ndarray:
        """A 64-bit digest of each row of ``frames`` (a sum of its words times fixed odd numbers, modulo 2^64).

        Not a cryptographic hash, and not meant to be: equal frames get equal digests, unequal ones almost
        never do, and a lookup is confirmed by comparing bytes anyway. It costs one pass over the frames.
        """
        return np.einsum("ij,j->i", frames.view(self._word), self._multipliers, dtype=np.uint64)

    def _intern(self, frames: np.ndarray) -> np.ndarray:
        """The frame slot of each row of ``frames``, taking in the frames not held yet; each counted once more."""
        digests = self._digest(frames)
        index, free, used = self._index, self._free, self.used
        slots, new_rows, new_slots, seen_rows = [], [], [], []
        for row, digest in enumerate(digests.tolist()):  # a dict lookup per frame: ~0.1 us
            slot = index.get(digest)
            if slot is None:  # a new frame (or the first of equal ones in this batch): a slot of its own
                if free:
                    slot = free.pop()
                else:
                    slot, used = used, used + 1
                index[digest] = slot
                new_rows.append(row)
                new_slots.append(slot)
            else:
                seen_rows.append(row)
            slots.append(slot)
        self._grow(used)
        slots = np.array(slots, dtype=np.int64)
        if new_rows:  # new frames first: later equal frames of this batch are compared with them
            self.frames[new_slots], self.digests[new_slots] = frames[new_rows], digests[new_rows]
        if seen_rows:
            seen_rows = np.array(seen_rows)
            held = self.frames[slots[seen_rows]].view(self._word)
            collided = seen_rows[(held != frames[seen_rows].view(self._word)).any(axis=1)]
            for row in collided.tolist():  # same digest, other bytes: the frame gets a slot outside the dict
                if self._free:
                    slot = self._free.pop()
                else:
                    slot = self.used
                    self._grow(self.used + 1)
                self.frames[slot], self.digests[slot] = frames[row], digests[row]
                slots[row] = slot
        np.add.at(self.refcount, slots, 1)
        return slots

    def _grow(self, used: int) -> None:
        """Hand out frame slots up to ``used``, growing the store when they do not fit: by a sixteenth at least,
        so that growth is rare, and never past ``max_frames``."""
        rows = len(self.frames)
        if used > rows:
            if used > self.max_frames:  # cannot happen while reference counts are right: a bug, said loudly
                raise RuntimeError(f"the frame store needs {used} frames, more than its bound {self.max_frames}")
            self._allocate(min(self.max_frames, max(used, rows + rows // 16)))
        self.used = used

    def _release(self, slots: np.ndarray) -> None:
        """One reference fewer to each of ``slots`` (repeats count); frames left unreferenced are freed."""
        if len(slots) == 0:
            return
        slots, counts = np.unique(slots, return_counts=True)
        self.refcount[slots] -= counts.astype(self._count_dtype)
        dead = slots[self.refcount[slots] == 0]
        for slot, digest in zip(dead.tolist(), self.digests[dead].tolist(), strict=True):
            if self._index.get(digest) == slot:  # a frame that collided is held outside the dict
                del self._index[digest]
        self._free.extend(dead.tolist())

    # ---------------------------------------------------------------------------------------------- sampling

    def gather(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """The stored fields at ``idx`` (any index shape), stacks rebuilt from their frames in ``obs_dtype``."""
        batch = super().gather(idx)
        batch["obs"], batch["next_obs"] = self._stacks(batch["obs"]), self._stacks(batch["next_obs"])
        return batch

    def _stacks(self, numbers: np.ndarray) -> np.ndarray:
        """Observations from (..., F) frame numbers: one gather of frames, the frame axis put back in place."""
        lead = numbers.ndim - 1
        frames = self.frames[numbers].reshape(*numbers.shape, *self.frame_shape)
        return np.ascontiguousarray(np.moveaxis(frames, lead, lead + self.frame_axis), dtype=self.obs_dtype)

    # ------------------------------------------------------------------------------------------------- state

    def state_dict(self) -> dict:
        """The ring's state (frame numbers in place of stacks) and the frame store's: the frames held, the
        released slots in the order they are reused, and which slots the dict indexes. Digests and reference
        counts are not saved: loading recomputes them from the frames and the ring."""
        indexed = np.zeros(self.used, dtype=bool)
        indexed[list(self._index.values())] = True
        store = {
            "frames": self.frames[: self.used],
            "free": np.array(self._free, dtype=np.int64),
            "indexed": indexed,
            "rows": len(self.frames),
        }
        return {**super().state_dict(), "frame_store": store}

    def load_state_dict(self, state: dict) -> None:
        if "frame_store" not in state:
            raise CheckpointError(
                f"this buffer state has no frame store: it was saved by a {ReplayBuffer.__name__} (whole stacks), "
                f"and a {type(self).__name__} cannot take it over; resume with the buffer class that saved it"
            )
        state = dict(state)
        store = state.pop("frame_store")
        frames = np.asarray(store["frames"])
        rows, used = int(store["rows"]), len(frames)
        tables = [np.asarray(state[key]["value"]) for key in ("obs", "next_obs")]
        expected = (self.capacity, self.num_frames)
        if (
            frames.dtype != np.uint8
            or frames.shape[1:] != (self.frame_bytes,)
            or any(table.shape != expected for table in tables)
        ):
            raise CheckpointError(
                f"this buffer state holds frames of {frames.shape[1:]} bytes and frame numbers of shape "
                f"{tables[0].shape}, but this {type(self).__name__} stores frames of {self.frame_bytes} bytes and "
                f"(capacity, frames per observation) = {expected}: build it with the obs_shape, frame_axis and "
                "capacity of the run that saved it"
            )
        if not used <= rows <= self.max_frames:
            raise CheckpointError(f"this buffer state holds {used} frames in {rows} rows, beyond {self.max_frames}")
        referred = np.concatenate([table[: int(state["size"]["value"])].ravel() for table in tables])
        free = np.asarray(store["free"], dtype=np.int64)
        refcount = np.bincount(referred, minlength=used) if len(referred) else np.zeros(used, dtype=np.int64)
        if len(refcount) > used or sorted(free.tolist()) != np.flatnonzero(refcount == 0).tolist():
            raise CheckpointError("this buffer state is inconsistent: its transitions and its free frames disagree")
        super().load_state_dict(state)
        self.frames, self.used = None, 0  # drop the old store before allocating the new one
        self._allocate(rows)
        self.used = used
        self.frames[:used], self.refcount[:used] = frames, refcount
        self.digests[:used] = self._digest(self.frames[:used])
        self._free = free.tolist()
        indexed = np.flatnonzero(np.asarray(store["indexed"], dtype=bool))
        self._index = dict(zip(self.digests[indexed].tolist(), indexed.tolist(), strict=True))


class PrioritizedFrameReplayBuffer(FrameReplayBuffer, PrioritizedReplayBuffer):
    """Proportional prioritized replay of frame stacks: :class:`~rlkit.buffers.PrioritizedReplayBuffer`'s
    sampling over :class:`FrameReplayBuffer`'s storage, composed by inheritance and nothing else.

    In the method resolution order (this class, FrameReplayBuffer, PrioritizedReplayBuffer, ReplayBuffer),
    ``add`` checks the frames, hands the ring's fields to PrioritizedReplayBuffer's ``add`` (the ring, then the
    sum tree: new transitions get the largest priority) and then takes the frames in; ``sample_many`` is the
    prioritized one and calls ``gather``, which rebuilds the stacks.
    So it samples what a :class:`PrioritizedReplayBuffer` given the same transitions and priorities samples,
    and ``make_buffer`` hands it ``alpha`` because it is a subclass of PrioritizedReplayBuffer.
    """

    def __init__(
        self,
        capacity: int,
        obs_shape: tuple[int, ...],
        action_shape: tuple[int, ...] = (),
        action_dtype: type | np.dtype = np.int64,
        obs_dtype: type | np.dtype = np.float32,
        seed: int | None = None,
        with_discounts: bool = False,
        alpha: float = 0.6,
        eps: float = 1e-6,
        *,
        frame_axis: int | None = None,
    ) -> None:
        super().__init__(
            capacity,
            obs_shape,
            action_shape,
            action_dtype,
            obs_dtype,
            seed,
            with_discounts,
            frame_axis=frame_axis,
            alpha=alpha,
            eps=eps,
        )
