"""On a two-node Ray cluster started here (Ray's own cluster utilities): a tiny sweep writes one results file
whose runs are the single-process runs, spread over both nodes; a training run joins the cluster by its
address (rlkit.train and the command line) and puts its workers on both nodes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rlkit
from rlkit.cli import main
from rlkit.errors import RlkitError
from rlkit.sweep import grid, sweep

ray = pytest.importorskip("ray")
pytest.importorskip("torch")

SMALL = 80 * 2**20  # bytes of object store per node


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    two_nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": SMALL})
    two_nodes.add_node(num_cpus=1, object_store_memory=SMALL)
    two_nodes.wait_for_nodes()
    yield two_nodes
    ray.shutdown()
    two_nodes.shutdown()


def test_grid_is_every_combination_in_order():
    assert grid({"a": [1, 2], "b": [3, 4]}) == [{"a": 1, "b": 3}, {"a": 1, "b": 4}, {"a": 2, "b": 3}, {"a": 2, "b": 4}]
    assert grid({}) == [{}]
    with pytest.raises(RlkitError, match="non-empty list of values"):
        grid({"a": []})


def test_a_sweep_runs_every_setting_and_seed_on_the_cluster(cluster, tmp_path):
    steps, settings = 256, {"learning_rate": [1e-3, 3e-4]}
    short = {"num_envs": 4, "num_steps": 32, "eval_every": 256, "eval_episodes": 2}
    settings.update({name: [value] for name, value in short.items()})
    out = tmp_path / "sweep.json"
    results = sweep("ppo", settings, [0, 1], total_steps=steps, output=out, ray_address=cluster.address)
    saved = json.loads(out.read_text())
    assert saved == json.loads(json.dumps(results))
    assert [(run["setting"]["learning_rate"], run["seed"]) for run in saved["runs"]] == [
        (1e-3, 0), (1e-3, 1), (3e-4, 0), (3e-4, 1)
    ]  # fmt: skip
    assert len({run["node"] for run in saved["runs"]}) == 2  # both nodes ran some
    here = rlkit.train("ppo", seed=1, total_steps=steps, learning_rate=3e-4, progress=False, **short)
    assert saved["runs"][3]["final_eval_return"] == here.history.last("eval_return")


def test_training_joins_the_cluster_and_spreads_its_workers(cluster, tmp_path, capsys):
    settings = {"total_steps": 512, "num_envs": 4, "num_steps": 64, "eval_every": 512, "eval_episodes": 2}
    one = rlkit.train("ppo", seed=2, progress=False, **settings)
    spread = rlkit.train("ppo", seed=2, workers=2, ray_address=cluster.address, progress=False, **settings)
    nodes = ray.get([actor.node.remote() for actor in spread.agent.loop.pool.actors])
    spread.agent.close()
    assert len(set(nodes)) == 2
    for a, b in zip(one.agent.get_weights(), spread.agent.get_weights(), strict=True):
        assert np.array_equal(a, b)
    argv = ["train", "ppo", "--ray-address", cluster.address, "--steps", "128", "--quiet", "--set", "num_envs=2"]
    assert main([*argv, "num_steps=64", "--workers", "2", "--logdir", str(tmp_path)]) == 0
    assert "ppo torch on CartPole-v1, seed 0: 128 steps" in capsys.readouterr().out
    assert (tmp_path / "agent.pt.state.npz").is_file()  # the run on workers saved resumable, as a logdir does
    assert main([*argv, "--workers", "3"]) == 2  # the flag reaches the loop, which checks it
    assert "workers must be an int in [1, num_envs=2], got 3" in capsys.readouterr().err
