from __future__ import annotations

import numpy as np
import pytest

from rlkit.algos.dqn.config import dqn_contract
from rlkit.contracts import Field, TensorContract, dtype_name
from rlkit.errors import ContractError
from tests.conftest import dqn_batch


def test_a_valid_batch_passes(rng):
    dqn_contract(4, 2).check(dqn_batch(rng))


def test_rewards_with_a_trailing_axis_name_the_field_shapes_and_fix(rng):
    batch = dqn_batch(rng, batch_size=64)
    batch["rewards"] = batch["rewards"][:, None]
    with pytest.raises(ContractError) as info:
        dqn_contract(4, 2).check(batch)
    message = str(info.value)
    assert "batch['rewards'] has shape (64, 1)" in message
    assert "DQN expects (64,) float32" in message
    assert ".squeeze(-1)" in message


def test_float64_observations_are_rejected_with_the_conversion(rng):
    batch = dqn_batch(rng)
    batch["obs"] = batch["obs"].astype(np.float64)
    with pytest.raises(ContractError, match=r"batch\['obs'\] has dtype float64.*astype\(np.float32\)"):
        dqn_contract(4, 2).check(batch)


def test_batch_sizes_must_agree_across_fields(rng):
    batch = dqn_batch(rng, batch_size=32)
    batch["terminated"] = batch["terminated"][:16]
    with pytest.raises(ContractError, match=r"batch\['terminated'\] has shape \(16,\); DQN expects \(32,\)"):
        dqn_contract(4, 2).check(batch)


def test_bound_dimensions_are_enforced(rng):
    with pytest.raises(ContractError, match=r"obs.*expects \(B, 8\)"):
        dqn_contract(8, 2).check(dqn_batch(rng, obs_dim=4))


def test_out_of_range_actions_are_rejected(rng):
    batch = dqn_batch(rng)
    batch["actions"][0] = 2
    with pytest.raises(ContractError, match=r"actions.*values in \[0, 2\].*expects values in \[0, 1\]"):
        dqn_contract(4, 2).check(batch)


def test_missing_fields_are_listed(rng):
    batch = dqn_batch(rng)
    del batch["next_obs"]
    with pytest.raises(ContractError, match="missing \\['next_obs'\\]"):
        dqn_contract(4, 2).check(batch)


def test_describe_lists_every_field():
    text = dqn_contract(4, 2).describe()
    for name in ("obs", "actions", "rewards", "next_obs", "terminated"):
        assert name in text
    assert "(B, 4) float32" in text


def test_framework_tensors_are_checked_without_conversion(rng):
    torch = pytest.importorskip("torch")
    contract = TensorContract("test", {"x": Field(("B", 3), ("float32",))})
    contract.check({"x": torch.zeros(5, 3)})
    assert dtype_name(torch.zeros(1, dtype=torch.float64)) == "float64"
    with pytest.raises(ContractError, match="has shape \\(5, 4\\)"):
        contract.check({"x": torch.zeros(5, 4)})


def test_optional_fields_may_be_absent_but_are_checked_when_present(rng):
    contract = dqn_contract(4, 2)
    batch = dqn_batch(rng, batch_size=8)
    contract.check(batch)  # one-step, uniform: no discounts, no weights
    with pytest.raises(ContractError, match=r"batch\['weights'\] has shape \(8, 1\)"):
        contract.check({**batch, "weights": np.ones((8, 1), np.float32)})
    with pytest.raises(ContractError, match=r"batch\['discounts'\] has values in \[1.5, 1.5\]"):
        contract.check({**batch, "discounts": np.full(8, 1.5, np.float32)})
    assert "(optional)" in contract.describe()
