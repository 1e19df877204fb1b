"""``torch.nn.utils.clip_grad_norm_``'s arithmetic on a list of gradients, without its wrappers.

The learners clip every gradient step, and on this course's small networks the clipping's
bookkeeping costs more than its arithmetic: ``clip_grad_norm_`` takes the parameters, collects
their gradients, groups them by device and dtype (twice: once for the norm, once for the
scaling) and checks foreach support before it reaches the two kernels that do the work, 45 us
a step for DQN's 128x128 Q-network against 25 us for the kernels called directly
(``benchmarks/costs/torch_clip.py``). A learner's gradients are already one list on one device with
one dtype, so :func:`clip_by_global_norm_` calls the same kernels on it in the same order: the
clipped gradients are bit for bit those of ``clip_grad_norm_(..., foreach=True)``
(``tests/algorithms/test_torch_clip.py``). ``torch._foreach_norm`` has no documented Python API;
pyproject.toml pins torch, and that test fails if a release changes it.
"""

from __future__ import annotations

import torch


def clip_by_global_norm_(grads: list[torch.Tensor | None], max_norm: float) -> torch.Tensor:
    """Scale ``grads`` in place so that their joint L2 norm is at most ``max_norm``;
    returns the norm before clipping. The torch twin of ``tf.clip_by_global_norm``, and
    ``clip_grad_norm_``'s formula: a factor ``min(1, max_norm / (norm + 1e-6))``, applied
    even when it is 1, so that no value of the norm is read back to Python."""
    grads = [grad for grad in grads if grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norm = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads, 2.0)), 2.0)
    torch._foreach_mul_(grads, torch.clamp(float(max_norm) / (norm + 1e-6), max=1.0))
    return norm
