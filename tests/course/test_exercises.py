"""The exercise checks accept right answers and explain the usual wrong ones."""

from __future__ import annotations

import json

import numpy as np
import pytest

import course.exercises
from course.exercises import ExerciseError, check_bootstrap_mask, check_td_target


def test_td_target_check_accepts_the_answer_and_explains_mistakes(capsys):
    check_td_target(lambda r, q, d, g: r + g * (1 - d) * q.max(axis=1))
    assert "check_td_target: all checks passed" in capsys.readouterr().out
    mistakes = {
        "broadcast to (B, B)": lambda r, q, d, g: r + g * (1 - d) * q.max(axis=1, keepdims=True),
        "terminal transition": lambda r, q, d, g: r + g * q.max(axis=1),
        "not discounted": lambda r, q, d, g: r + (1 - d) * q.max(axis=1),
        "mean of the next": lambda r, q, d, g: r + g * (1 - d) * q.mean(axis=1),
        "forget the `return`": lambda r, q, d, g: None,
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation.replace("(", r"\(").replace(")", r"\)")):
            check_td_target(wrong)


def test_bootstrap_mask_check_explains_truncation():
    check_bootstrap_mask(lambda term, trunc: 1.0 - term.astype(np.float32))
    with pytest.raises(ExerciseError, match="truncated, not terminated"):
        check_bootstrap_mask(lambda term, trunc: 1.0 - (term | trunc).astype(np.float32))


def not_attempted(*args):
    raise NotImplementedError


@pytest.mark.parametrize("name", [name for name in course.exercises.__all__ if name.startswith("check_")])
def test_an_unfilled_stub_is_not_attempted_and_strict_mode_refuses_it(name, capsys):
    """Run all on a chapter goes on past an unfilled stub; the reference solution's check does not."""
    check = getattr(course.exercises, name)
    check(not_attempted)
    assert "not_attempted is not attempted yet" in capsys.readouterr().out
    with pytest.raises(ExerciseError, match="not attempted yet"):
        check(not_attempted, strict=True)


def test_the_stored_numbers_are_the_instructor_formulas():
    """The checks compare with numbers in course/exercises/expected.json; they must be what the formulas in
    classroom/expectations.py give (run `python -m classroom.expectations` after changing a check's inputs)."""
    from classroom.expectations import STORED, answer_key

    assert json.loads(STORED.read_text()) == answer_key()


def test_no_check_computes_its_answer():
    """The student-facing checks hold inputs, messages and stored numbers: no formula of an answer."""
    import inspect

    import course.exercises.continuous
    import course.exercises.engineering
    import course.exercises.policy_gradient
    import course.exercises.value_based

    modules = (
        course.exercises.value_based,
        course.exercises.policy_gradient,
        course.exercises.continuous,
        course.exercises.engineering,
    )
    for module in modules:
        source = inspect.getsource(module)
        for formula in ("max(axis=1)", "np.minimum(", "np.maximum(", "np.log(2 * np.pi)", "np.clip(", "** -beta"):
            assert formula not in source, (module.__name__, formula)
        assert "project_distribution" not in source  # the answer to the C51 projection exercise
        # chapter 42's rescaling and chapter 43's frame: the check holds neither the map nor the rendering
        for answer in ("high - low", "low - high", "gym.make(", "import gymnasium", 'render_mode="rgb_array"'):
            assert answer not in source, (module.__name__, answer)


def test_a_check_wants_the_function_not_its_result():
    with pytest.raises(TypeError, match="pass it without calling it"):
        check_td_target(np.zeros(3))


def test_policy_gradient_checks_accept_answers_and_explain_mistakes():
    from course.exercises import (
        check_a2c_policy_loss,
        check_clipped_surrogate,
        check_gaussian_log_prob,
        check_reward_to_go,
    )

    check_clipped_surrogate(lambda r, a, c: np.mean(np.minimum(r * a, np.clip(r, 1 - c, 1 + c) * a)))
    with pytest.raises(ExerciseError, match="minimum"):
        check_clipped_surrogate(lambda r, a, c: np.mean(np.maximum(r * a, np.clip(r, 1 - c, 1 + c) * a)))
    check_a2c_policy_loss(lambda lp, a: -(lp * a).mean())
    with pytest.raises(ExerciseError, match="claim C18"):
        check_a2c_policy_loss(lambda lp, a: -(lp * a).sum())

    def to_go(rewards, gamma):
        return np.array([sum(gamma**k * r for k, r in enumerate(rewards[t:])) for t in range(len(rewards))])

    check_reward_to_go(to_go)
    with pytest.raises(ExerciseError, match="not discounted"):
        check_reward_to_go(lambda r, g: np.cumsum(r[::-1])[::-1])
    check_gaussian_log_prob(lambda a, m, s: (-0.5 * ((a - m) / np.exp(s)) ** 2 - s - 0.5 * np.log(2 * np.pi)).sum(-1))
    with pytest.raises(ExerciseError, match="sum"):
        check_gaussian_log_prob(lambda a, m, s: -0.5 * ((a - m) / np.exp(s)) ** 2 - s - 0.5 * np.log(2 * np.pi))


def softplus(x):
    return np.logaddexp(0.0, x)


@pytest.mark.parametrize(
    ("check", "answer", "mistakes"),
    [
        (
            "check_polyak_update",
            lambda target, online, tau: target + tau * (online - target),
            {
                "wrong network": lambda target, online, tau: online + tau * (target - online),
                "hard copy": lambda target, online, tau: online,
                "forget the `return`": lambda target, online, tau: None,
            },
        ),
        (
            "check_smoothed_target_action",
            lambda a, n, s, c: np.clip(a + np.clip(s * n, -c, c), -1, 1),
            {
                "clip the noise itself": lambda a, n, s, c: np.clip(a + s * n, -1, 1),
                "valid action": lambda a, n, s, c: a + np.clip(s * n, -c, c),
                "scale the standard-normal": lambda a, n, s, c: np.clip(a + np.clip(n, -c, c), -1, 1),
            },
        ),
        (
            "check_squashed_log_prob",
            lambda u, m, ls: (
                (-0.5 * ((u - m) / np.exp(ls)) ** 2 - ls - 0.5 * np.log(2 * np.pi)).sum(1)
                - (2 * (np.log(2) - u - softplus(-2 * u))).sum(1)
            ),
            {
                "log-density of u": lambda u, m, ls: (
                    -0.5 * ((u - m) / np.exp(ls)) ** 2 - ls - 0.5 * np.log(2 * np.pi)
                ).sum(1),
                "wrong sign": lambda u, m, ls: (
                    (-0.5 * ((u - m) / np.exp(ls)) ** 2 - ls - 0.5 * np.log(2 * np.pi)).sum(1)
                    + np.log(1 - np.tanh(u) ** 2).sum(1)
                ),
            },
        ),
        (
            "check_first_crossing",
            lambda steps, returns, threshold: next(
                (int(s) for s, r in zip(steps, returns, strict=True) if r >= threshold), None
            ),
            {
                ">= counts": lambda steps, returns, threshold: next(
                    (int(s) for s, r in zip(steps, returns, strict=True) if r > threshold), None
                ),
                "return None": lambda steps, returns, threshold: next(
                    (int(s) for s, r in zip(steps, returns, strict=True) if r >= threshold), int(steps[-1])
                ),
            },
        ),
    ],
)
def test_continuous_control_checks(check, answer, mistakes, capsys):
    check_function = getattr(course.exercises, check)
    check_function(answer)
    assert "checks passed" in capsys.readouterr().out
    for explanation, wrong in mistakes.items():
        with np.errstate(divide="ignore"), pytest.raises(ExerciseError, match=explanation.replace("`", ".")):
            check_function(wrong)


def test_categorical_projection_check(capsys):
    from course.exercises import check_categorical_projection
    from rlkit.distributional import project_distribution

    check_categorical_projection(project_distribution)
    assert "checks passed" in capsys.readouterr().out

    def no_clip(probs, rewards, discounts, support):  # mass shifted past v_max falls off the grid
        delta = support[1] - support[0]
        position = (rewards[:, None] + discounts[:, None] * support[None, :] - support[0]) / delta
        hats = np.maximum(1.0 - np.abs(position[:, :, None] - np.arange(len(support))), 0.0)
        return np.einsum("bi,bij->bj", probs, hats)

    def bootstraps_at_terminals(probs, rewards, discounts, support):
        return project_distribution(probs, rewards, np.where(discounts == 0, 0.9, discounts), support)

    for wrong, explanation in [(no_clip, "mass is lost"), (bootstraps_at_terminals, "terminal")]:
        with pytest.raises(ExerciseError, match=explanation):
            check_categorical_projection(wrong)


def test_priority_weights_check(capsys):
    from course.exercises import check_priority_weights

    def right(priorities, indices, alpha, beta):
        probabilities = priorities**alpha / (priorities**alpha).sum()
        weights = (len(priorities) * probabilities[indices]) ** -beta
        return probabilities, weights / weights.max()

    def whole_buffer(p, i, a, b):
        probabilities = right(p, i, a, b)[0]
        weights = (len(p) * probabilities) ** -b
        return probabilities, weights[i] / weights.max()

    check_priority_weights(right)
    assert "checks passed" in capsys.readouterr().out
    mistakes = {
        "power alpha": lambda p, i, a, b: (p / p.sum(), right(p, i, 1.0, b)[1]),
        "per sampled index": lambda p, i, a, b: (right(p, i, a, b)[0], right(p, np.arange(len(p)), a, b)[1]),
        "largest weight in the batch": lambda p, i, a, b: (
            right(p, i, a, b)[0],
            (len(p) * right(p, i, a, b)[0][i]) ** -b,
        ),
        "whole buffer": whole_buffer,
        "exponent is -beta": lambda p, i, a, b: (right(p, i, a, b)[0], right(p, i, a, -b)[1]),
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_priority_weights(wrong)


def test_double_target_check(capsys):
    from course.exercises import check_double_target

    def right(r, q_online, q_target, done, gamma):
        return r + gamma * (1 - done) * q_target[np.arange(len(r)), q_online.argmax(axis=1)]

    check_double_target(right)
    assert "checks passed" in capsys.readouterr().out
    mistakes = {
        "vanilla target": lambda r, qo, qt, d, g: r + g * (1 - d) * qt.max(axis=1),
        "target.* network values": lambda r, qo, qt, d, g: right(r, qo, qo, d, g),
        "terminal": lambda r, qo, qt, d, g: right(r, qo, qt, np.zeros_like(d), g),
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_double_target(wrong)


def test_soft_update_check(capsys):
    from course.exercises import check_soft_update

    def right(target, online, tau):
        for t, o in zip(target, online, strict=True):
            t += tau * (o - t)

    check_soft_update(right)
    assert "checks passed" in capsys.readouterr().out

    def rebinding(target, online, tau):
        for t, o in zip(target, online, strict=True):
            t = tau * o + (1 - tau) * t  # noqa: F841

    def returning(target, online, tau):
        return [tau * o + (1 - tau) * t for t, o in zip(target, online, strict=True)]

    def swapped(target, online, tau):
        for t, o in zip(target, online, strict=True):
            t[...] = (1 - tau) * o + tau * t

    def first_only(target, online, tau):
        target[0] += tau * (online[0] - target[0])

    mistakes = {"C05": rebinding, "returned new arrays": returning, "swapped": swapped, "every array": first_only}
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_soft_update(wrong)


def test_action_entropy_check(capsys):
    from course.exercises import check_action_entropy

    def right(q_values):
        counts = np.bincount(q_values.argmax(axis=1), minlength=q_values.shape[1])
        p = counts[counts > 0] / len(q_values)
        return -(p * np.log(p)).sum()

    check_action_entropy(right)
    assert "checks passed" in capsys.readouterr().out

    def with_zeros(q_values):
        p = np.bincount(q_values.argmax(axis=1), minlength=q_values.shape[1]) / len(q_values)
        with np.errstate(divide="ignore", invalid="ignore"):
            return -(p * np.log(p)).sum()

    def bits(q_values):
        return right(q_values) / np.log(2)

    def softmax(q_values):
        p = np.exp(q_values - q_values.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        return float(np.mean(-(p * np.log(p)).sum(axis=1)))

    for explanation, wrong in {"nan": with_zeros, "bits": bits, "softmax": softmax}.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_action_entropy(wrong)


def test_check_seeded_rollout_accepts_the_solution_and_catches_the_usual_mistakes():
    import gymnasium as gym

    def rollout(seed, seed_actions=True, reseed_every_episode=False):
        env = gym.make("CartPole-v1")
        if seed_actions:
            env.action_space.seed(seed)
        starts, actions = [], []
        for episode in range(3):
            obs, _ = env.reset(seed=seed if episode == 0 or reseed_every_episode else None)
            starts.append(obs)
            done = False
            while not done:
                actions.append(int(env.action_space.sample()))
                obs, _, terminated, truncated, _ = env.step(actions[-1])
                done = terminated or truncated
        return np.array(starts), actions

    course.exercises.check_seeded_rollout(rollout)
    with pytest.raises(ExerciseError, match="action_space.seed"):
        course.exercises.check_seeded_rollout(lambda seed: rollout(seed, seed_actions=False))
    with pytest.raises(ExerciseError, match="first reset only"):
        course.exercises.check_seeded_rollout(lambda seed: rollout(seed, reseed_every_episode=True))


def test_check_standardize_accepts_the_root_of_var_plus_eps_only():
    torch = pytest.importorskip("torch")

    def inside(x):
        centred = x - x.mean()
        return centred / torch.sqrt((centred**2).mean() + 1e-8)

    def outside(x):
        centred = x - x.mean()
        return centred / (torch.sqrt((centred**2).mean()) + 1e-8)

    course.exercises.check_standardize(inside)
    with pytest.raises(ExerciseError, match="inside the root"):
        course.exercises.check_standardize(outside)
    with pytest.raises(ExerciseError, match="no gradient"):
        course.exercises.check_standardize(lambda x: inside(x).detach())


def test_check_to_env_units_accepts_the_rescaling_and_explains_mistakes(capsys):
    from course.exercises import check_to_env_units

    check_to_env_units(lambda a, low, high: low + (a + 1.0) * 0.5 * (high - low))
    assert "all checks passed" in capsys.readouterr().out
    mistakes = {
        "clipping keeps the actor's units": lambda a, low, high: np.clip(a, low, high),
        "symmetric about 0": lambda a, low, high: a * high,
        "the centre is not": lambda a, low, high: a * (high - low) / 2,
        "runs backwards": lambda a, low, high: high + (a + 1.0) * 0.5 * (low - high),
        "did you forget the `return`": lambda a, low, high: None,
        "should return shape": lambda a, low, high: (low + (a + 1.0) * 0.5 * (high - low))[0],
        "-1 must map to low": lambda a, low, high: low + (a + 1.0) * 0.5 * (high - low) + 0.1,
        "not linear in between": lambda a, low, high: low + (np.sign(a) + 1.0) * 0.5 * (high - low),
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_to_env_units(wrong)


def test_check_headless_frame_accepts_the_first_frame_and_explains_mistakes(capsys):
    import gymnasium as gym

    from course.exercises import check_headless_frame

    def first_frame(env_id, seed, mode="rgb_array", reset_seed=lambda seed: seed):
        env = gym.make(env_id, render_mode=mode)
        env.reset(seed=reset_seed(seed))
        frame = env.render()
        env.close()
        return frame

    check_headless_frame(first_frame)
    assert "check_headless_frame: all checks passed" in capsys.readouterr().out
    mistakes = {
        # render_mode=None, not "human": opening a window with no display can crash the process (SDL)
        "render_mode='rgb_array' to get the pixels": lambda env_id, seed: first_frame(env_id, seed, mode=None),
        "two calls gave two different frames": lambda env_id, seed: first_frame(
            env_id, seed, reset_seed=lambda s: None
        ),
        "not the first frame of the episode reset with that seed": lambda env_id, seed: first_frame(
            env_id, seed, reset_seed=lambda s: s + 1
        ),
        r"\(height, width, 3\) uint8 image, got \(400, 600\)": lambda env_id, seed: first_frame(env_id, seed)[..., 0],
        r"uint8 image, got \(400, 600, 3\) float": lambda env_id, seed: first_frame(env_id, seed) / 255.0,
    }
    for explanation, wrong in mistakes.items():
        with pytest.raises(ExerciseError, match=explanation):
            check_headless_frame(wrong)
