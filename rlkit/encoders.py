"""Image observations: what an image space looks like to rlkit's networks, and the convolutional encoders.

Written once, in numpy, like the rest of the neutral core. A network that reads images starts with a
convolutional encoder, then continues as the MLP it would have been on a flat observation (the encoder's
output, flattened, is its input). This module describes that encoder as data (:class:`ImageSpec`), draws
its initial weights (the same for torch and TensorFlow, as :func:`rlkit.nets.init_mlp_weights` does for
MLPs) and runs it forward for acting (:func:`encode`); ``torch_parts.ConvEncoder`` and
``tf_parts.ConvEncoder`` are its two framework twins, proven equal to this one by tests.

Three conventions keep the three forward passes one network:

* **Storage stays uint8.** The buffer keeps observations as the environment gives them (uint8 pixels, or
  MinAtar's bool grids); the encoder scales them to [0, 1] itself (``scale``). Scaling in the buffer would
  store float32: four times the memory, for nothing.
* **Kernels are stored (kh, kw, in, out)**, Keras' own layout: ``get_weights`` of either framework returns
  that layout (torch's Conv2d holds (out, in, kh, kw) and is transposed, as its Linear's (out, in) is).
* **The flattened features are in (height, width, channel) order**, TensorFlow's NHWC. torch convolves in
  NCHW and permutes back before flattening, so the first dense layer after the encoder has one weight
  layout in all three.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import gymnasium as gym
import numpy as np

from rlkit.errors import RlkitError

#: (filters, kernel size, stride) of each convolution, ``valid`` padding, ReLU after each.
ENCODERS: dict[str, tuple[tuple[int, int, int], ...]] = {
    # Mnih et al. (2015), "Human-level control through deep reinforcement learning": 84x84 Atari frames.
    "nature": ((32, 8, 4), (64, 4, 2), (64, 3, 1)),
    # Young & Tian (2019), MinAtar's baseline DQN: one small convolution on a 10x10 grid.
    "minatar": ((16, 3, 1),),
}
#: The smallest side the Nature encoder can read: 36 -> 8 -> 3 -> 1 pixels after its three convolutions.
NATURE_MIN_SIDE = 36
#: Dtypes an image space may have; float images are taken as already scaled.
IMAGE_DTYPES = {"uint8": 1 / 255, "bool": 1.0, "float32": 1.0}


@dataclass(frozen=True)
class ImageSpec:
    """An image observation space as a network reads it, and the encoder that reads it.

    ``shape`` is the observation as the environment gives it, (H, W, C) when ``channels_last`` else
    (C, H, W); ``scale`` turns stored values into [0, 1] (1/255 for uint8 pixels); ``convs`` lists the
    encoder's layers as (filters, kernel, stride).
    """

    shape: tuple[int, int, int]
    channels_last: bool
    dtype: str
    scale: float
    encoder: str
    convs: tuple[tuple[int, int, int], ...]

    @property
    def channels(self) -> int:
        return self.shape[2] if self.channels_last else self.shape[0]

    @property
    def height_width(self) -> tuple[int, int]:
        return (self.shape[0], self.shape[1]) if self.channels_last else (self.shape[1], self.shape[2])

    def feature_shapes(self) -> list[tuple[int, int, int]]:
        """(H, W, C) after each convolution."""
        (height, width), shapes = self.height_width, []
        for filters, kernel, stride in self.convs:
            height, width = (height - kernel) // stride + 1, (width - kernel) // stride + 1
            shapes.append((height, width, filters))
        return shapes

    @property
    def flat_size(self) -> int:
        """Features the encoder hands to the dense layers after it."""
        return int(np.prod(self.feature_shapes()[-1]))

    def kernel_shapes(self) -> list[tuple[int, int, int, int]]:
        """(kh, kw, in, out) of each convolution's kernel, the layout of ``get_weights``."""
        channels = [self.channels, *(filters for filters, _, _ in self.convs)]
        return [(k, k, c_in, f) for (f, k, _), c_in in zip(self.convs, channels[:-1], strict=True)]

    def as_dict(self) -> dict:
        """Plain data for checkpoint metadata and Keras configs (:meth:`from_dict` reads it back)."""
        return {**asdict(self), "shape": list(self.shape), "convs": [list(c) for c in self.convs]}

    @classmethod
    def from_dict(cls, data: dict) -> ImageSpec:
        return cls(
            tuple(data["shape"]),
            bool(data["channels_last"]),
            data["dtype"],
            float(data["scale"]),
            data["encoder"],
            tuple(tuple(c) for c in data["convs"]),
        )


def is_image_space(space: gym.Space) -> bool:
    """A Box of rank 3 (an image with a channel axis, or a stack of frames)."""
    return isinstance(space, gym.spaces.Box) and len(space.shape) == 3


def channels_last(shape: tuple[int, ...]) -> bool:
    """Whether the channel axis of an (a, b, c) image is its last one.

    Channels are the short axis: (4, 84, 84), four stacked Atari frames, is channels-first; (10, 10, 4), a
    MinAtar grid, and (84, 84, 3), an RGB render, are channels-last. A tie (a cube) counts as channels-last,
    gymnasium's convention for images.
    """
    return not shape[0] < shape[-1]


def image_spec(space: gym.Space, encoder: str = "auto") -> ImageSpec | None:
    """The :class:`ImageSpec` of an image observation space, or None for a flat one (an MLP reads it).

    ``encoder``: "nature" (Atari-sized frames), "minatar" (small grids), or "auto" (nature when both sides
    are at least 36 pixels, else minatar). An MLP reads an image only flattened in the environment
    (``wrappers=[FlattenObservation]``): the buffer then stores it as the vector it has become.
    """
    if encoder not in (*ENCODERS, "auto"):
        raise RlkitError(f"encoder must be one of {[*ENCODERS, 'auto']}, got {encoder!r}")
    if not is_image_space(space):
        return None
    dtype = np.dtype(space.dtype).name
    if dtype not in IMAGE_DTYPES:
        raise RlkitError(
            f"image observations must be {' or '.join(IMAGE_DTYPES)}, got {dtype}: cast them with "
            "gymnasium.wrappers.DtypeObservation (uint8 pixels stay uint8: the network scales them)"
        )
    shape = tuple(int(d) for d in space.shape)
    last = channels_last(shape)
    height, width = (shape[0], shape[1]) if last else (shape[1], shape[2])
    if encoder == "auto":
        encoder = "nature" if min(height, width) >= NATURE_MIN_SIDE else "minatar"
    spec = ImageSpec(shape, last, dtype, IMAGE_DTYPES[dtype], encoder, ENCODERS[encoder])
    if min(min(h, w) for h, w, _ in spec.feature_shapes()) < 1:
        raise RlkitError(
            f"images of {height}x{width} pixels are too small for the {encoder} encoder "
            f"(kernels and strides {spec.convs}): use encoder='minatar', or resize them"
        )
    return spec


def init_conv_weights(spec: ImageSpec, seed: int) -> list[np.ndarray]:
    """Initial ``[K0, b0, K1, b1, ...]``, kernels (kh, kw, in, out), drawn in numpy: torch's Conv2d default.

    torch draws a convolution's weights and biases from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in =
    kh * kw * in, as it does for Linear layers; drawing them here gives both frameworks the same encoder.
    """
    rng = np.random.default_rng(seed)
    weights = []
    for shape in spec.kernel_shapes():
        bound = 1.0 / np.sqrt(np.prod(shape[:3]))
        weights.append(rng.uniform(-bound, bound, size=shape).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, size=shape[3]).astype(np.float32))
    return weights


def to_nhwc(obs: np.ndarray, spec: ImageSpec) -> np.ndarray:
    """Stored observations as scaled float32 (B, H, W, C)."""
    x = np.asarray(obs).astype(np.float32) * np.float32(spec.scale)
    return x if spec.channels_last else x.transpose(0, 2, 3, 1)


def encode(weights: list[np.ndarray], obs: np.ndarray, spec: ImageSpec) -> np.ndarray:
    """The encoder's features (B, flat_size) of a batch of stored observations, in numpy, for acting.

    Each convolution is one matrix product: every kernel-sized window of the input, gathered as a row
    (a strided view, no copy until the reshape), times the kernel flattened to (kh * kw * in, out).
    """
    x = to_nhwc(obs, spec)
    for (kernel, bias), (_, size, stride) in zip(
        zip(weights[0::2], weights[1::2], strict=True), spec.convs, strict=True
    ):
        windows = np.lib.stride_tricks.sliding_window_view(x, (size, size), axis=(1, 2))[:, ::stride, ::stride]
        batch, height, width = windows.shape[:3]
        # windows: (B, H', W', C, kh, kw) -> rows (kh, kw, C), the kernel's order
        rows = windows.transpose(0, 1, 2, 4, 5, 3).reshape(batch * height * width, -1)
        x = np.maximum(rows @ kernel.reshape(-1, kernel.shape[3]) + bias, 0.0).reshape(batch, height, width, -1)
    return x.reshape(len(x), -1)


def split_encoder(weights: list[np.ndarray], spec: ImageSpec | None) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A network's weights as (encoder's, the rest): the encoder's come first in ``get_weights`` order."""
    count = 0 if spec is None else 2 * len(spec.convs)
    return list(weights[:count]), list(weights[count:])


def refuse_images(envs, algo: str, name: str) -> None:
    """Stop an algorithm whose networks read flat vectors before it meets images, with what to do instead."""
    space = envs.single_observation_space
    if is_image_space(space):
        envs.close()
        raise RlkitError(
            f"{algo.upper()} reads flat observations, and {name} has images of shape {space.shape}: train DQN on "
            "images (it has convolutional encoders), or flatten small ones (wrappers=[FlattenObservation])"
        )


def refuse_export(image: ImageSpec | None) -> None:
    """rlkit's exports (ONNX, LiteRT) describe MLP policies only: say so for an agent that reads images."""
    if image is not None:
        raise RlkitError(
            "rlkit export does not take convolutional policies yet (image observations): save the agent with "
            "agent.save() and load it with rlkit.load()"
        )
