"""Benchmark: rlkit's ``clip_by_global_norm_`` against ``torch.nn.utils.clip_grad_norm_(..., foreach=True)``.

The learners that clip their gradients (DQN, Rainbow, PPO, A2C) do it once per gradient step. For each one's
default torch learner (its parameters as ``rlkit.train`` builds them, with random gradients large enough to be
clipped), CPU microseconds per call, blocks of ``--steps`` calls, the two functions taking turns block by block,
median over ``--repeats`` blocks, one thread. The clipped gradients are the same bit for bit
(``tests/algorithms/test_torch_clip.py``), so steps to solve are unchanged and the time per call is the whole effect.

    python -m benchmarks.costs.torch_clip
    python -m benchmarks.costs.torch_clip --repeats 15 --steps 5000
"""

from __future__ import annotations

import argparse

from benchmarks._common import cpu_us_per_call
from benchmarks.costs.torch_adam import learner_parameters

#: (label, algorithm, environment, the learner's optimizer whose parameters are clipped)
CASES = [
    ("DQN (128x128)", "dqn", "CartPole-v1", "optimizer"),
    ("Rainbow (128x128, noisy)", "rainbow", "CartPole-v1", "optimizer"),
    ("PPO CartPole", "ppo", "CartPole-v1", "optimizer"),
    ("PPO Pendulum", "ppo", "Pendulum-v1", "optimizer"),
    ("A2C CartPole", "a2c", "CartPole-v1", "optimizer"),
]


def clip_costs(params: list, steps: int, repeats: int) -> dict[str, float]:
    """Median CPU microseconds per call of each clipping function, the two taking turns block by block."""
    import torch

    from rlkit.algos.torch_clip import clip_by_global_norm_

    def torch_utils() -> None:
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)

    def rlkit_clip() -> None:
        clip_by_global_norm_([param.grad for param in params], 1.0)

    def refill() -> None:  # a norm far above 1: every call scales
        for param in params:
            param.grad = torch.full_like(param, 10.0)

    calls = {"clip_grad_norm_": torch_utils, "clip_by_global_norm_": rlkit_clip}
    return cpu_us_per_call(calls, steps, repeats, before_block=refill)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=9, help="blocks per function (median reported)")
    parser.add_argument("--steps", type=int, default=2000, help="calls per block")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    print(f"CPU us per call (median of {args.repeats} blocks of {args.steps}):")
    print(f"{'learner':26}{'tensors':>8}{'clip_grad_norm_':>17}{'clip_by_global_norm_':>22}{'ratio':>7}")
    for label, algo, env_id, attribute in CASES:
        params = learner_parameters(algo, env_id, attribute)
        costs = clip_costs(params, args.steps, args.repeats)
        theirs, ours = costs["clip_grad_norm_"], costs["clip_by_global_norm_"]
        print(f"{label:26}{len(params):>8}{theirs:>17.1f}{ours:>22.1f}{theirs / ours:>7.2f}")


if __name__ == "__main__":
    main()
