"""Mixed precision: what ``precision="bf16"`` or ``"fp16"`` changes in a learner, and what it leaves alone.

Every algorithm's config has ``precision`` (``fp32``, the default; ``bf16``; ``fp16``). At ``bf16`` or ``fp16``
only the networks' *layers* compute in the low precision (matrix products, bias adds, activations, and the
convolutions of an image encoder): torch runs each network's forward pass under ``torch.autocast``
(``torch_parts.MLP``), Keras builds the layers with the ``mixed_bfloat16`` / ``mixed_float16`` dtype policy
(``tf_parts.build_mlp``). The two frameworks' twins stay mirrored, and their equivalence is tested in each
precision with the tolerance the precision implies (``tests/algorithms/test_precision.py``).

What stays float32, and why (chapter 44 measures each):

- **The weights and the optimizer.** Adam's updates are often smaller than bf16's spacing near a weight
  (8 significant bits): stored in bf16 they would round away. Both frameworks keep float32 master weights
  and cast them for each product.
- **Every network output.** It is cast back to float32 where it leaves the network, so the TD target
  ``r + gamma * Q'``, the losses, C51's softmax and log-softmax and its projection, PPO's ratio and SAC's
  log-probabilities with their tanh correction are computed in float32. Chapter 44 measures why: in bf16
  arithmetic many of DQN's late TD errors (a tenth of a reward beside Q-values near 60, where bf16's
  spacing is 0.25) come out exactly zero, C51's landing positions move by a tenth of an atom and
  ``log(1 - tanh(u)^2)`` meets ``log(0)`` from ``|u|`` near 3.5. The float32 target removes the zeros; the
  rounding of the bf16 outputs themselves stays (it flips the sign of many small TD errors), which no
  place of computation can undo: bf16 Q-values are coarse.
- **Acting.** The loops act with a numpy copy of the float32 weights, as at ``fp32``.

``fp16`` has 5 exponent bits: gradients below about 6e-8 flush to zero. It therefore adds dynamic loss
scaling, one scaler per optimizer: ``torch.amp.GradScaler`` and Keras' ``LossScaleOptimizer``, set up alike
(a start at 2**15, halved and the step skipped on an overflow, doubled after 2,000 finite steps); the
gradients are unscaled before they are clipped. ``bf16`` has float32's exponent range and needs no scaling.
The scale is part of a run's training state (torch: the learner's ``LOSS_SCALERS``; Keras: the optimizer's
variables), so a resumed ``fp16`` run goes on at the scale it had.

A device that cannot compute in the precision is refused by name when the learner is built: each framework
tries one small product in it there. On this course's CPUs both precisions run (bf16 natively where the CPU
has the instructions, fp16 emulated), which is what lets the tests and chapter 44 check them. The speed they
are for is a GPU's (tensor cores). On this course's CPU chapter 44 times bf16 (faster for 256-wide layers,
slower for 64-wide ones) and fp16, emulated, ran about 8x slower than float32 (``benchmarks/RESULTS.md``,
"Training in bf16"): none of it says much about a GPU.
"""

from __future__ import annotations

#: The precisions a config accepts (``AlgorithmConfig.precision``).
PRECISIONS = ("fp32", "bf16", "fp16")


def refusal(precision: str, device: str, framework: str) -> str:
    """The error for a precision the device cannot compute in, naming both and what to do instead."""
    return (
        f"precision={precision!r} is not available on {device} with {framework}: the framework cannot compute "
        f"a {precision} product there. Use precision='fp32' (or 'bf16' where the device supports it), or "
        "another device."
    )
