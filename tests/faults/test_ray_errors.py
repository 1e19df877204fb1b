"""Ray start-up and connection failures are rlkit errors that say what to do, not Ray's raw ConnectionError
or "node timed out during startup". Ray's own init is replaced here: no cluster is started or joined."""

from __future__ import annotations

import pytest

import rlkit
from rlkit.distributed.cluster import connect
from rlkit.errors import RlkitError


@pytest.fixture
def failing_ray(monkeypatch):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray session is already running in this process")

    def fail(address=None, **_):
        if address is None:
            raise RuntimeError("The current node timed out during startup.")
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to.")

    monkeypatch.setattr(ray, "init", fail)
    return ray


def test_joining_no_cluster_says_how_to_start_one(failing_ray):
    with pytest.raises(RlkitError, match=r"could not join the Ray cluster at ray_address='auto' \(ConnectionError: "
                       r"Could not find any running Ray instance.*\): start one with `ray start --head`"):  # fmt: skip
        connect("auto", purpose="workers=")


def test_a_start_up_timeout_says_what_to_do(failing_ray):
    with pytest.raises(RlkitError, match=r"Ray could not start on this machine \(RuntimeError: The current node timed "
                       r"out during startup.\); .* retry when fewer processes run"):  # fmt: skip
        connect(None)


def test_rlkit_train_fails_before_training(failing_ray):
    pytest.importorskip("torch")
    with pytest.raises(RlkitError, match=r"could not join the Ray cluster at ray_address='auto'"):
        rlkit.train("ppo", total_steps=1_000, workers=1, ray_address="auto", progress=False)
