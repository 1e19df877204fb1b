"""Messages that name the fix: each wrong input a new user tried is refused with what was expected, what
arrived, and what to write instead."""

from __future__ import annotations

import numpy as np
import pytest

import rlkit
from rlkit.cli import main
from rlkit.errors import RlkitError
from rlkit.hardware import format_report, report
from rlkit.registry import config_class


def test_a_budget_under_another_librarys_name_points_to_total_steps():
    with pytest.raises(RlkitError, match=r"no argument steps=: .* is total_steps=2000 \(--steps on the command line\)"):
        rlkit.train("dqn", steps=2000, progress=False)


@pytest.mark.parametrize("algo", ["dqn", "ppo", "sac"])
def test_empty_hidden_sizes_says_what_is_expected(algo):
    with pytest.raises(RlkitError, match=r"hidden_sizes must be a non-empty sequence of positive layer widths, e\.g\."):
        config_class(algo)(hidden_sizes=())


def test_a_rule_over_two_hyperparameters_reports_both_values():
    with pytest.raises(RlkitError, match=r"eps_start/eps_end must be 0 <= eps_end <= eps_start <= 1, got "
                       r"eps_start=2\.0, eps_end=0\.02"):  # fmt: skip
        rlkit.train("dqn", eps_start=2.0, progress=False)


def test_a_boolean_is_not_a_count_of_episodes():
    with pytest.raises(RlkitError, match=r"episodes must be a positive int .*not a bool.*, got True"):
        rlkit.evaluate(lambda obs: np.zeros(len(obs), dtype=np.int64), "CartPole-v1", episodes=True)


def test_the_report_reads_tensorflow_cpu_as_tensorflow():
    info = report()
    info["versions"] = {**info["versions"], "tensorflow-cpu": "2.21.0", "tensorflow": None}
    lines = format_report(info).splitlines()
    assert "tensorflow   2.21.0 (installed as tensorflow-cpu)" in lines
    assert not any("not installed" in line for line in lines if line.startswith("tensorflow"))


def test_export_refuses_to_overwrite_and_names_the_agent_the_file_came_from(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from rlkit.algos.dqn.agent import DQNAgent
    from rlkit.algos.ppo import PPOAgent

    first, envs = DQNAgent.make("CartPole-v1", "torch", config_class("dqn")(hidden_sizes=(8,)), seed=0)
    envs.close()
    second, envs = PPOAgent.make("CartPole-v1", "torch", config_class("ppo")(hidden_sizes=(8,)), seed=0)
    envs.close()
    a, b, output = first.save(tmp_path / "a.pt"), second.save(tmp_path / "b.pt"), tmp_path / "policy.onnx"
    assert main(["export", str(a), "--output", str(output)]) == 0
    before = output.read_bytes()
    assert main(["export", str(b), "--output", str(output)]) == 2
    error = capsys.readouterr().err
    assert f"'{output}' already exists (exported from the dqn torch agent of CartPole-v1 in {a})" in error
    assert "pass --force to overwrite it" in error and output.read_bytes() == before
    assert main(["export", str(b), "--output", str(output), "--force"]) == 0
    from rlkit.export import exported_from

    assert exported_from(output)["algo"] == "ppo"
