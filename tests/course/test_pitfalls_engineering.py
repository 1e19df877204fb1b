"""The experiments of chapters 40 (reproducibility) and 41 (debugging), run small; and same-seed reruns of PPO
and SAC in both frameworks bit-identical, with every global generator scrambled during the run (DQN's rerun
is in ``tests/algorithms/test_dqn_learning.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from course.pitfalls import debugging as dbg
from course.pitfalls import reproducibility as repro
from rlkit.callbacks import SaveCheckpoints
from rlkit.numerics import NonFiniteError

RERUNS = {  # algorithm -> (environment, total steps, settings): past the warm-up, several updates
    "ppo": ("CartPole-v1", 4_096, {}),
    "sac": ("Pendulum-v1", 1_000, {"learning_starts": 200, "train_every": 100, "gradient_steps": 20}),
}
SMALL_DQN = {
    "env": "CartPole-v1",
    "progress": False,
    "learning_starts": 200,
    "train_every": 100,
    "gradient_steps": 20,
    "eval_episodes": 2,
}


@pytest.mark.parametrize("framework", ["torch", "tf"])
@pytest.mark.parametrize("algo", sorted(RERUNS))
def test_same_seed_twice_gives_bit_identical_runs_whatever_the_global_generators(algo, framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    env, steps, settings = RERUNS[algo]

    def run(**options):
        return rlkit.train(
            algo, env=env, framework=framework, seed=5, total_steps=steps, progress=False, eval_every=steps // 2,
            eval_episodes=2, **settings, **options,
        )  # fmt: skip

    scrambler = repro.ScrambleGlobalGenerators()
    first, second = run(), run(callbacks=[scrambler])
    assert scrambler.scrambles >= 2
    for a, b in zip(first.agent.get_weights(), second.agent.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    for metric in ("episode_return", "eval_return"):
        np.testing.assert_array_equal(first.history.series(metric)[1], second.history.series(metric)[1])


def test_the_script_needs_each_seed_it_draws_from_in_torch():
    pytest.importorskip("torch")
    diffs = repro.seed_ablation("torch", steps=150)
    assert diffs["none"] == 0.0
    assert all(diffs[source] > 0 for source in repro.SOURCES), diffs


def test_keras_weights_follow_pythons_random_not_tf_random_set_seed():
    pytest.importorskip("tensorflow")
    reference = repro.script_run("tf", steps=150)
    np.testing.assert_array_equal(repro.script_run("tf", steps=150), reference)
    np.testing.assert_array_equal(repro.script_run("tf", unseeded="framework", steps=150), reference)
    assert not np.array_equal(repro.script_run("tf", unseeded="python", steps=150), reference)
    follows = repro.keras_initial_weights_follow()
    assert follows == {
        "tf.random.set_seed": False,
        "np.random.seed": False,
        "random.seed": True,
        "keras.utils.set_random_seed": True,
    }


def test_unknown_framework_or_seed_source_is_refused():
    with pytest.raises(ValueError, match="framework"):
        repro.script_run("jax")
    with pytest.raises(ValueError, match="unseeded"):
        repro.script_run("torch", unseeded="buffer")


def test_gymnasium_seeds_the_first_state_but_not_the_action_space():
    seeding = repro.gymnasium_seeding()
    assert seeding["same first state"] and seeding["same actions, action space seeded"]
    assert not seeding["same actions, action space unseeded"]
    assert seeding["distinct first states, seed at every reset"] == 1
    assert seeding["distinct first states, seed at first reset"] == 5
    assert seeding["vector: same first states"] and seeding["vector: copies start apart"]
    assert not seeding["vector: same actions, unseeded"]


def test_set_seed_inside_the_step_freezes_only_eager_raw_tf_dropout():
    pytest.importorskip("tensorflow")
    assert repro.dropout_masks(steps=4) == {
        "tf.nn.dropout, eager": 1,
        "tf.nn.dropout, tf.function": 4,
        "keras Dropout layer, eager": 4,
        "once, eager": 4,
        "rerun": 1,
    }


def test_generators_go_through_json_and_continue_exactly():
    found = repro.generator_round_trip()
    assert all(value is True for key, value in found.items() if key != "JSON bytes")
    assert 0 < found["JSON bytes"] < 1_000


def test_a_resume_needs_every_part_of_the_state(tmp_path):
    pytest.importorskip("torch")
    whole = rlkit.train("dqn", framework="torch", seed=1, total_steps=1_000, eval_every=500, **SMALL_DQN)
    saver = SaveCheckpoints(tmp_path, every=500, best=False, resumable=True)
    rlkit.train("dqn", framework="torch", seed=1, total_steps=1_000, eval_every=500, callbacks=[saver], **SMALL_DQN)
    half = tmp_path / "step_500.pt"
    reference = whole.agent.get_weights()
    assert repro.weight_difference(reference, repro.resume_forgetting(half).agent.get_weights()) == 0.0
    for part in ("run generator", "optimizer state"):
        assert repro.weight_difference(reference, repro.resume_forgetting(half, part).agent.get_weights()) > 0, part
    with pytest.raises(ValueError, match="forget must be one of"):
        repro.resume_forgetting(half, "weights")


def test_determinism_switches_change_nothing_on_cpu_and_are_put_back():
    torch = pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    from tensorflow.python.eager import context
    from tensorflow.python.framework import config as tf_config

    for framework in ("torch", "tf"):
        cost = repro.determinism_cost(framework, repeats=5)
        assert cost["same weights"] and cost["default us"] > 0
    assert not torch.are_deterministic_algorithms_enabled()
    assert not tf_config.is_op_determinism_enabled()
    rlkit.seed_everything(7)
    refused = repro.unseeded_random_op_under_tf_determinism()
    assert refused is not None and "seed" in refused
    assert not tf_config.is_op_determinism_enabled() and context.global_seed() == 7


def test_thread_count_sums_put_rlkits_thread_setting_back():
    torch = pytest.importorskip("torch")
    from rlkit.hardware import default_threads

    sums = repro.thread_count_sums(size=100_000)
    assert set(sums) == {1, 2} and all(np.isfinite(list(sums.values())))
    assert torch.get_num_threads() == default_threads()


def test_a_run_repeats_on_another_cpu_only_with_every_evaluation_and_final_episode_equal():
    def run(seed, evals, finals, framework="torch"):
        config = {"algo": "ppo", "env": "CartPole-v1", "framework": framework, "seed": seed}
        return {**config, "eval_returns": evals, "final_returns": finals}

    sitting = {"runs": [run(0, [9.0, 500.0], [500.0]), run(1, [9.0, 480.0], [470.0]), run(0, [1.0], [1.0], "tf")]}
    rerun = {
        "provenance": {"machine": "another CPU", "preloaded": ["libintel_cpu_true.so"]},
        "runs": [run(0, [9.0, 500.0], [500.0]), run(1, [9.0, 480.0], [471.0]), run(2, [9.0], [9.0])],
    }
    repeated = repro.repeated_on_another_cpu(sitting, rerun, "ppo", "CartPole-v1", "torch")
    assert repeated == {"same": 1, "of": 2, "machine": "another CPU", "preloaded": ["libintel_cpu_true.so"]}
    with pytest.raises(ValueError, match="no run of"):
        repro.repeated_on_another_cpu(sitting, rerun, "ppo", "CartPole-v1", "tf")


@pytest.mark.parametrize("framework", ["torch", "tf"])
def test_a_finite_loss_with_a_nan_gradient_and_what_finds_it(framework):
    pytest.importorskip("torch" if framework == "torch" else "tensorflow")
    found = dbg.hidden_nan(framework)
    assert np.isfinite(found["loss"])
    if framework == "torch":
        assert not found["gradients finite"] and not found["weights finite after one step"]
        anomaly = dbg.hidden_nan("torch", anomaly=True)
        assert "SqrtBackward0" in anomaly["error"] and "torch.sqrt" in anomaly["forward line"]
    else:
        assert found["gradients finite"] and found["largest |gradient|"] > 1e6


def test_both_tools_stop_the_diverging_run_where_its_loss_turns_non_finite():
    pytest.importorskip("torch")
    tf = pytest.importorskip("tensorflow")
    runs = {fw: dbg.blow_up_run(fw) for fw in ("torch", "tf")}
    tools = {fw: dbg.blow_up_run(fw, tool=True) for fw in ("torch", "tf")}
    first = runs["torch"]["first non-finite loss"]
    assert first is not None and runs["tf"]["first non-finite loss"] == first
    assert tools["torch"]["stopped at"] == tools["tf"]["stopped at"] == first
    assert "Backward" in tools["torch"]["error"] and '"MatMul"' in tools["tf"]["error"]
    assert dbg.blow_up_run("torch", learning_rate=1e-4)["first non-finite loss"] is None
    assert not np.isfinite(float(tf.math.log(0.0)))  # check-numerics is off again: no error


def test_the_nan_tools_cost_more_than_plain_steps():
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    for framework in ("torch", "tf"):
        assert dbg.nan_tool_cost(framework, repeats=5)["slowdown"] > 1


def test_rlkit_stops_on_a_nan_reward_and_on_a_bad_batch_shape():
    pytest.importorskip("torch")
    with pytest.raises(NonFiniteError, match="non-finite rewards at environment step 1: .*dividing by zero"):
        rlkit.train("dqn", total_steps=1_000, wrappers=[dbg.StandardizedRewards], **SMALL_DQN)
    with pytest.raises(rlkit.ContractError, match=r"batch\['rewards'\] has shape \(2560, 1\)"):
        rlkit.train("dqn", total_steps=1_000, buffer_class=dbg.RewardsWithTrailingAxis, **SMALL_DQN)


def test_batchnorm_statistics_follow_the_mode_not_no_grad():
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    modes = dbg.torch_batchnorm_modes()
    for context in ("with grad", "no_grad", "inference_mode"):
        assert modes[f"eval, {context}"] == {"running mean moved": 0.0, "eval output moved": 0.0}
        assert modes[f"train, {context}"]["running mean moved"] > 0.1
    keras_modes = dbg.keras_batchnorm_modes()
    moving = {call for call, moved in keras_modes.items() if moved > 0}
    assert moving == {"layer(x, training=True)", "model.fit, one epoch"}
    shares = dbg.batchnorm_share_of_new_batch()
    np.testing.assert_allclose(list(shares.values()), [0.1, 0.01, 0.9], atol=1e-4)
    single = dbg.batch_of_one()
    assert "more than 1 value" in single["torch error"] and single["keras output spread"] == 0.0


def test_acting_loop_costs_time_every_way_on_the_same_actions():
    pytest.importorskip("tensorflow")
    acting = dbg.acting_loop_costs(steps=10, predict_steps=3)
    assert acting["same actions"]
    assert set(acting["ms per step"]) == {"model.predict", "predict_on_batch", "model(obs)", "tf.function", "numpy"}
    assert all(cost > 0 for cost in acting["ms per step"].values())


def test_importing_tensorflow_draws_from_pythons_random_and_torch_does_not():
    pytest.importorskip("torch")
    pytest.importorskip("tensorflow")
    assert repro.import_draws_from_python_random("tensorflow")
    assert not repro.import_draws_from_python_random("torch")
