"""The experiments of chapter 44 (low precision), run small: each effect shows in its 16-bit format and
vanishes when the same function runs in float32, so that every test can fail."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from course import low_precision as lp  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_formats_are_read_from_torch():
    table = {f.name: f for f in lp.formats()}
    assert (table["float32"].exponent_bits, table["float32"].mantissa_bits) == (8, 23)
    assert (table["bfloat16"].exponent_bits, table["bfloat16"].mantissa_bits) == (8, 7)
    assert (table["float16"].exponent_bits, table["float16"].mantissa_bits) == (5, 10)
    assert table["bfloat16"].spacing_at_64 == 0.5 and table["float16"].spacing_at_64 == 0.0625
    assert table["float16"].smallest_subnormal == 2.0**-24 and table["float16"].max == 65504
    assert table["bfloat16"].smallest_normal == table["float32"].smallest_normal
    assert lp.spacing(100.0, "bfloat16") == 0.5 and lp.spacing(50.0, "bfloat16") == 0.25


def test_gamma_rounds_in_bf16_only():
    assert lp.rounded(0.99, "bfloat16") == 0.98828125
    assert abs(lp.rounded(0.99, "float32") - 0.99) < 1e-7


def test_td_errors_vanish_in_bf16_arithmetic_and_not_in_float32():
    sample = lp.td_sample(n=20_000, seed=1)
    bf16 = lp.td_error_rounding(sample, "bfloat16", "all")
    fp32 = lp.td_error_rounding(sample, "float32", "all")
    assert bf16.zero > 0.3 and fp32.zero < 0.001
    assert fp32.sign_flipped == 0 and fp32.off_by_half < 0.001


def test_float32_targets_keep_only_the_outputs_rounding():
    sample = lp.td_sample(n=20_000, seed=2)
    outputs = lp.td_error_rounding(sample, "bfloat16", "outputs")
    everything = lp.td_error_rounding(sample, "bfloat16", "all")
    assert outputs.zero < 0.02 < everything.zero
    assert outputs.beyond_output_rounding < 1e-3 < everything.beyond_output_rounding
    assert outputs.sign_flipped > 0.1  # the outputs' rounding is as large as the TD errors
    fp16 = lp.td_error_rounding(sample, "float16", "outputs")
    assert fp16.sign_flipped < outputs.sign_flipped / 2


def test_td_error_rounding_names_a_wrong_pipeline():
    with pytest.raises(ValueError, match="pipeline"):
        lp.td_error_rounding(lp.td_sample(n=10), "bfloat16", "float32")


def test_tanh_saturates_early_in_bf16():
    bf16, fp32 = lp.tanh_breakdown("bfloat16", u_max=10.0), lp.tanh_breakdown("float32", u_max=10.0)
    assert bf16["saturates_at"] < 3.5 < 8 < fp32["saturates_at"]
    assert bf16["naive_without_eps_at_saturation"] == -math.inf
    assert bf16["naive_fails_at"] < 3.5 < 7 < fp32["naive_fails_at"]


def test_naive_log_prob_breaks_in_bf16_and_the_softplus_form_does_not():
    sample = lp.sac_policy_sample(n=5_000, seed=3)
    naive = {d: lp.log_prob_error(sample, d, "naive") for d in ("bfloat16", "float32")}
    assert naive["bfloat16"].large > 0.03 and naive["float32"].large < 0.001
    assert lp.log_prob_error(sample, "bfloat16", "bare").non_finite > 0.03
    assert lp.log_prob_error(sample, "float32", "bare").non_finite == 0
    assert lp.log_prob_error(sample, "bfloat16", "softplus").large < 0.001
    assert lp.log_prob_error(sample, "bfloat16", "naive", "outputs").large < 0.001


def test_log_prob_in_float64_matches_the_closed_form():
    torch = pytest.importorskip("torch")
    mean, log_std, noise = (torch.tensor([[x]], dtype=torch.float64) for x in (0.3, -0.5, 1.2))
    u = 0.3 + math.exp(-0.5) * 1.2
    expected = -0.5 * 1.2**2 + 0.5 - 0.5 * math.log(2 * math.pi) - math.log(1 - math.tanh(u) ** 2)
    for formula in ("softplus", "bare"):
        value = lp.tanh_gaussian_log_prob(mean, log_std, noise, formula).item()
        assert value == pytest.approx(expected, rel=1e-12)


def test_projection_matches_rlkits_numpy_projection():
    torch = pytest.importorskip("torch")
    from rlkit.distributional import categorical_support, project_distribution

    rng = np.random.default_rng(4)
    support = categorical_support(-10.0, 10.0, 11).astype(np.float64)
    probs = rng.dirichlet(np.ones(11), size=6)
    rewards, discounts = rng.normal(0, 3, 6), np.array([0.99, 0.99, 0.0, 0.9, 0.99, 0.5])
    expected = project_distribution(probs, rewards, discounts, support)
    got = lp.project(*(torch.tensor(x) for x in (probs, rewards, discounts, support))).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_c51_target_is_off_in_bf16_and_exact_from_float32_outputs():
    sample = lp.c51_sample(batch=128, seed=5)
    bf16 = lp.c51_rounding(sample, "bfloat16", "all")
    fp32 = lp.c51_rounding(sample, "float32", "all")
    outputs = lp.c51_rounding(sample, "bfloat16", "outputs")
    assert bf16["position_error_max"] > 0.1 > 1e-4 > fp32["position_error_max"]
    assert bf16["sum_error_max"] > 1e-3 > 1e-5 > max(fp32["sum_error_max"], outputs["sum_error_max"])
    assert bf16["grad_error"] > 0.03 > 0.01 > outputs["grad_error"]
    assert bf16["lost_atoms"] == 0 < 0.1 < lp.c51_rounding(sample, "float16", "all")["lost_atoms"]


def test_c51_loss_steps_are_the_moves_of_a_learning_network():
    sample = lp.c51_sample(batch=64, seed=6)
    steps = lp.c51_loss_steps(sample, steps=20)
    assert steps.shape == (20,) and np.median(steps) > 1e-4
    assert np.all(lp.c51_loss_steps(sample, steps=5, learning_rate=0.0) == 0)


def test_fp16_gradients_underflow_without_scaling_and_bf16_ones_do_not():
    unscaled = lp.gradient_underflow("float16", 1.0, td_range=(1e-4, 1e-3), seed=7)
    scaled = lp.gradient_underflow("float16", 2.0**15, td_range=(1e-4, 1e-3), seed=7)
    fp32 = lp.gradient_underflow("float32", 1.0, td_range=(1e-4, 1e-3), seed=7)
    assert unscaled.underflow > 0.05 and scaled.underflow < 0.001 and scaled.non_finite == 0
    assert fp32.underflow == 0 and fp32.relative_error == 0
    bf16 = [lp.gradient_underflow("bfloat16", s, td_range=(1e-4, 1e-3), seed=7) for s in (1.0, 2.0**15)]
    assert bf16[0].underflow == bf16[1].underflow and bf16[0].relative_error == bf16[1].relative_error
    assert bf16[0].underflow < 0.05


def test_flushing_float32_denormals_leaves_fp16_subnormals_alone():
    """rlkit's configure_torch flushes float32 denormals on the CPU; chapter 44 trains with rlkit
    before it measures fp16 underflow, so the measurement must not depend on that flag. torch has
    no getter for the flag, so the two runs happen in a fresh process that sets it."""
    code = (
        "import torch; from course import low_precision as lp; r = []\n"
        "for flush in (False, True):\n"
        "    torch.set_flush_denormal(flush)\n"
        "    r.append(lp.gradient_underflow('float16', 1.0, td_range=(1e-4, 1e-3), seed=8))\n"
        "assert r[0] == r[1] and r[0].underflow > 0.05, r\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_mlp_timing_returns_both_sides_and_their_ratio():
    timing = lp.time_mlp_step(widths=(16,), batch=32, repeats=2, calls=2)
    t = timing[16]
    assert t["fp32"] > 0 and t["bf16"] > 0 and t["ratio"] == pytest.approx(t["bf16"] / t["fp32"])


def test_cpu_16bit_instructions_are_booleans():
    assert all(isinstance(v, bool) for v in lp.cpu_16bit_instructions().values())


def test_the_permutation_test_tells_a_real_drop_from_the_luck_of_the_seeds():
    rng = np.random.default_rng(0)
    same = rng.normal(size=20)
    assert 0.4 < lp.permutation_p(same, same.copy(), draws=4_000) < 0.7  # the same runs twice: no drop
    assert lp.permutation_p(same[:10] - 3.0, same[10:], draws=4_000) < 0.01  # a drop of three spreads
    assert lp.permutation_p(same[:10] + 3.0, same[10:], draws=4_000) > 0.99  # a rise is no drop


def test_training_in_precision_pairs_the_runs_seed_by_seed():
    def run(algo, framework, seed, mean, solved, cpu, evaluations=(500.0, 500.0, 500.0, 500.0)):
        return {"algo": algo, "env": "CartPole-v1", "framework": framework, "seed": seed, "final_mean": mean,
                "final_solved": solved, "cpu_s": cpu, "budget": 100, "eval_steps": [25, 50, 75, 100],
                "eval_returns": list(evaluations)}  # fmt: skip

    low = {
        "runs": [
            run("dqn", "torch", 1, 100.0, False, 2.0, (500, 500, 500, 474)),
            run("dqn", "torch", 2, 500.0, True, 4.0),
        ]
    }
    exact = {"runs": [run("dqn", "torch", s, 500.0, True, 1.0) for s in (1, 2, 3)]}  # seed 3: no bf16 twin
    (row,) = lp.training_in_precision(low, exact)
    assert (row["seeds"], row["low_solved"], row["exact_solved"]) == (2, 1, 2)
    assert (row["low_median"], row["exact_median"], row["low_cpu_s"]) == (300.0, 500.0, 3.0)
    # the evaluations after half the budget (steps 75 and 100 of 100), at CartPole's 475: the step at half the
    # budget does not count, so 3 of 4 in bf16 (474 is not solved) and 4 of 4 in float32
    assert (row["low_late"], row["exact_late"]) == (0.75, 1.0)


def test_loss_scaling_rescues_the_value_losses_and_leaves_the_policy_loss_alone():
    tiny = (1e-4, 1e-3)
    squared = [lp.gradient_underflow("float16", s, td_range=tiny, loss="squared") for s in (1.0, 2.0**15)]
    assert squared[0].underflow > 0.05 and squared[1].underflow < 0.001
    policy = [lp.gradient_underflow("float16", s, td_range=tiny, loss="policy") for s in (1.0, 2.0**15)]
    assert policy[0].underflow < 0.01 and 0.8 < policy[0].relative_error / policy[1].relative_error < 1.25
    assert lp.gradient_underflow("float32", 1.0, loss="policy").relative_error == 0.0
    with pytest.raises(ValueError, match="loss must be"):
        lp.gradient_underflow("float16", loss="kl")
