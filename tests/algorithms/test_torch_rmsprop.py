"""rlkit's RMSprop twins: ForeachRMSprop is torch.optim.RMSprop bit for bit, TorchRMSprop (Keras) takes its steps."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rlkit.algos.torch_rmsprop import ForeachRMSprop  # noqa: E402
from tests.algorithms.test_torch_adam import twin_parameters  # noqa: E402  (a matrix, a vector, a scalar)


def gradients(params, step: int, generator) -> list:
    """Random gradients, tiny on some steps: where epsilon sits in the formula shows there."""
    return [torch.randn(p.shape, generator=generator) * (1e-6 if step % 7 == 0 else 1) for p in params]


def step_with(optimizer, params, grads) -> None:
    optimizer.zero_grad(set_to_none=True)
    for param, grad in zip(params, grads, strict=True):
        param.grad = grad.clone()
    optimizer.step()


def test_steps_equal_torch_rmsprop_bit_for_bit_through_lr_changes():
    ours, theirs = twin_parameters()
    optimizers = (
        ForeachRMSprop(ours, lr=1e-2, alpha=0.99, eps=1e-5),
        torch.optim.RMSprop(theirs, lr=1e-2, alpha=0.99, eps=1e-5, foreach=True),
    )
    generator = torch.Generator().manual_seed(1)
    for step in range(60):
        if step == 30:  # a schedule lowers the step size (rlkit's set_learning_rate)
            for optimizer in optimizers:
                optimizer.param_groups[0]["lr"] = 3e-3
        grads = gradients(ours, step, generator)
        for optimizer, params in zip(optimizers, (ours, theirs), strict=True):
            step_with(optimizer, params, grads)
        for a, b in zip(ours, theirs, strict=True):
            assert torch.equal(a, b), f"step {step}: ForeachRMSprop left {a} where torch.optim.RMSprop left {b}"


def test_the_first_step_is_ten_times_the_step_size():
    """Why RMSprop starts quickly: its average of squares starts at zero, uncorrected, so the first step of a
    weight is lr * g / (sqrt(0.01 g^2) + eps), ten times lr at alpha = 0.99."""
    params, _ = twin_parameters()
    before = params[0].detach().clone()
    step_with(ForeachRMSprop(params, lr=1e-3, alpha=0.99, eps=1e-12), params, [torch.ones(p.shape) for p in params])
    np.testing.assert_allclose((before - params[0].detach()).numpy(), 1e-2, rtol=1e-5)


def test_a_state_dict_of_either_goes_on_exactly():
    """ForeachRMSprop reads its own state_dict and torch.optim.RMSprop's (checkpoints read either)."""
    ours, theirs = twin_parameters()
    optimizers = ForeachRMSprop(ours, lr=1e-2, eps=1e-5), torch.optim.RMSprop(theirs, lr=1e-2, eps=1e-5, foreach=True)
    generator = torch.Generator().manual_seed(2)
    for step in range(5):
        grads = gradients(ours, step, generator)
        for optimizer, params in zip(optimizers, (ours, theirs), strict=True):
            step_with(optimizer, params, grads)
    saved = {type(optimizer).__name__: copy.deepcopy(optimizer.state_dict()) for optimizer in optimizers}
    copies = [[torch.nn.Parameter(p.detach().clone()) for p in ours] for _ in optimizers]
    grads = gradients(ours, 1, generator)
    step_with(optimizers[0], ours, grads)  # the run that never stopped
    for (name, state), params in zip(saved.items(), copies, strict=True):
        restored = ForeachRMSprop(params, lr=1.0, eps=1e-5)
        restored.load_state_dict(state)
        assert restored.param_groups[0]["lr"] == 1e-2
        step_with(restored, params, grads)
        for a, b in zip(params, ours, strict=True):
            assert torch.equal(a, b), f"restored from {name}'s state"


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="empty parameter list"):
        ForeachRMSprop([], lr=1e-3)
    with pytest.raises(ValueError, match=r"alpha in \[0, 1\), got lr=0.001, eps=1e-05, alpha=1.0"):
        ForeachRMSprop(twin_parameters()[0], lr=1e-3, alpha=1.0, eps=1e-5)


def test_keras_twin_takes_torchs_steps_where_keras_own_rmsprop_does_not():
    """Keras puts epsilon under the root: with SB3's 1e-5 and small gradients its steps are a fraction of
    torch's. TorchRMSprop puts it where torch does."""
    pytest.importorskip("tensorflow")
    import keras

    from rlkit.algos.keras_rmsprop import TorchRMSprop

    ours, _ = twin_parameters()
    start = [p.detach().numpy().copy() for p in ours]
    optimizer = ForeachRMSprop(ours, lr=1e-2, alpha=0.99, eps=1e-5)
    variables = {name: [keras.Variable(v) for v in start] for name in ("twin", "keras")}
    twin = TorchRMSprop(learning_rate=1e-2, rho=0.99, epsilon=1e-5)
    own = keras.optimizers.RMSprop(learning_rate=1e-2, rho=0.99, epsilon=1e-5)
    generator = torch.Generator().manual_seed(3)
    for step in range(20):
        grads = [g * 1e-3 for g in gradients(ours, step, generator)]  # mean squares far below epsilon
        step_with(optimizer, ours, grads)
        for keras_optimizer, name in ((twin, "twin"), (own, "keras")):
            keras_optimizer.apply_gradients(zip([g.numpy() for g in grads], variables[name], strict=True))
    for param, twin_variable, own_variable in zip(ours, variables["twin"], variables["keras"], strict=True):
        np.testing.assert_allclose(twin_variable.numpy(), param.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert np.abs(own_variable.numpy() - param.detach().numpy()).max() > 1e-2
    with pytest.raises(ValueError, match="no momentum, not centred"):
        TorchRMSprop(momentum=0.9)
