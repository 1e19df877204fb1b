"""rlkit's gradient clipping against torch's own, bit for bit."""

import pytest

torch = pytest.importorskip("torch")

from rlkit.algos.torch_clip import clip_by_global_norm_  # noqa: E402


def _gradients(scale: float) -> list:
    generator = torch.Generator().manual_seed(0)
    shapes = [(128, 4), (128,), (128, 128), (128,), (2, 128), (2,)]
    return [torch.randn(shape, generator=generator) * scale for shape in shapes]


def _with_gradients(grads: list) -> list:
    params = [torch.nn.Parameter(torch.zeros_like(grad)) for grad in grads]
    for param, grad in zip(params, grads, strict=True):
        param.grad = grad.clone()
    return params


@pytest.mark.parametrize(
    ("scale", "max_norm"),
    [(10.0, 10.0), (1e-3, 10.0), (1e-5, 1e-4)],
    # the last: a norm so small that torch's 1e-6 in the denominator shows
    ids=["clipped", "under the limit", "tiny norm"],
)
def test_the_clipped_gradients_and_the_norm_are_torchs_bit_for_bit(scale, max_norm):
    grads = _gradients(scale)
    params = _with_gradients(grads)
    expected_norm = torch.nn.utils.clip_grad_norm_(params, max_norm, foreach=True)
    mine = [grad.clone() for grad in grads]
    norm = clip_by_global_norm_(mine, max_norm)
    assert torch.equal(norm, expected_norm)
    assert all(torch.equal(a, p.grad) for a, p in zip(mine, params, strict=True))
    changed = not all(torch.equal(a, b) for a, b in zip(mine, grads, strict=True))
    assert changed == (float(norm) > max_norm)  # clipped above the limit, untouched below it


def test_missing_gradients_are_skipped_as_torch_skips_them():
    grads = _gradients(10.0)
    params = _with_gradients(grads)
    params[1].grad = None
    torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
    mine = [grad.clone() for grad in grads]
    mine[1] = None
    clip_by_global_norm_(mine, 1.0)
    assert mine[1] is None
    assert all(torch.equal(a, p.grad) for a, p in zip(mine, params, strict=True) if a is not None)
    assert float(clip_by_global_norm_([None], 1.0)) == 0.0
