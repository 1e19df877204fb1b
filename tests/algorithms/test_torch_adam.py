"""rlkit's FusedAdam: the weights of torch.optim.Adam(fused=True), bit for bit, without torch._dynamo."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from rlkit.algos.torch_adam import FusedAdam  # noqa: E402


def twin_parameters(seed: int = 0) -> tuple[list, list]:
    """Two copies of a small MLP's parameters (a matrix, a vector, a scalar like SAC's log alpha)."""
    generator = torch.Generator().manual_seed(seed)
    shapes = [(16, 8), (16,), ()]
    values = [torch.randn(shape, generator=generator) for shape in shapes]
    return [torch.nn.Parameter(v.clone()) for v in values], [torch.nn.Parameter(v.clone()) for v in values]


def step_both(ours, theirs, optimizers, grads) -> None:
    for params, optimizer in zip((ours, theirs), optimizers, strict=True):
        optimizer.zero_grad(set_to_none=True)
        for param, grad in zip(params, grads, strict=True):
            param.grad = grad.clone()
        optimizer.step()


def test_steps_equal_torch_fused_adam_bit_for_bit_through_lr_changes_and_resets():
    ours, theirs = twin_parameters()
    optimizers = FusedAdam(ours, lr=1e-2, eps=1e-8), torch.optim.Adam(theirs, lr=1e-2, eps=1e-8, fused=True)
    generator = torch.Generator().manual_seed(1)
    for step in range(60):
        if step == 20:  # a schedule lowers the step size (rlkit's set_learning_rate)
            for optimizer in optimizers:
                optimizer.param_groups[0]["lr"] = 3e-3
        if step == 40:  # DQN's optimizer reset (claim C40) forgets the moments
            for optimizer in optimizers:
                optimizer.state.clear()
        # gradients near eps test where epsilon sits in the formula
        grads = [torch.randn(p.shape, generator=generator) * (1e-8 if step % 7 == 0 else 1) for p in ours]
        step_both(ours, theirs, optimizers, grads)
        for a, b in zip(ours, theirs, strict=True):
            assert torch.equal(a, b), f"step {step}: FusedAdam left {a} where torch.optim.Adam left {b}"


def test_a_parameter_without_gradient_is_left_alone_and_state_dicts_round_trip():
    ours, theirs = twin_parameters()
    optimizers = FusedAdam(ours, lr=1e-2), torch.optim.Adam(theirs, lr=1e-2, fused=True)
    grads = [torch.ones(p.shape) for p in ours]
    step_both(ours, theirs, optimizers, grads)
    before = ours[2].detach().clone()
    for optimizer, params in zip(optimizers, (ours, theirs), strict=True):
        optimizer.zero_grad()
        params[0].grad = torch.ones(params[0].shape)
        optimizer.step()
    assert torch.equal(ours[2], before) and torch.equal(ours[0], theirs[0])
    # torch's state dict (a checkpoint written before rlkit had FusedAdam) and ours both load into FusedAdam,
    # and each copy goes on exactly as the optimizer it was saved from
    copies = []
    for saved in optimizers:
        params = [torch.nn.Parameter(p.detach().clone()) for p in ours]
        copy = FusedAdam(params, lr=1.0)
        copy.load_state_dict(saved.state_dict())
        assert copy.param_groups[0]["lr"] == 1e-2
        copies.append((params, copy))
    grads = [torch.full(p.shape, 0.5) for p in ours]
    step_both(ours, theirs, optimizers, grads)
    for params, copy in copies:
        for param, grad in zip(params, grads, strict=True):
            param.grad = grad.clone()
        copy.step()
        for a, b, c in zip(ours, theirs, params, strict=True):
            assert torch.equal(a, b) and torch.equal(a, c)


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="empty parameter list"):
        FusedAdam([], lr=1e-3)
    with pytest.raises(ValueError, match="lr > 0"):
        FusedAdam(twin_parameters()[0], lr=0.0)
    optimizer = FusedAdam(twin_parameters()[0], lr=1e-3)
    with pytest.raises(ValueError, match="one parameter group of 3 parameters"):
        optimizer.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 1e-3}]})


PROBE = """
import sys
import rlkit
for algo, env in (("dqn", "CartPole-v1"), ("sac", "Pendulum-v1"), ("td3", "Pendulum-v1")):
    settings = {"learning_starts": 100, "eval_every": 10_000}
    settings |= {"train_every": 50} if algo == "dqn" else {}
    rlkit.train(algo, env=env, framework="torch", total_steps=400, progress=False, **settings)
print("torch._dynamo" in sys.modules)
"""


def test_training_a_replay_learner_never_imports_torch_dynamo():
    """Building a torch.optim optimizer imports torch._dynamo (1.4 s of CPU); rlkit's replay learners don't."""
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
