"""Checks for the chapters' exercises: each ``check_*`` runs a student's function on cases chosen to catch
the usual mistakes, and says *what* is wrong and how to fix it, not just that something is.

A failed check raises :class:`ExerciseError` (an ``AssertionError``), so a notebook run stops there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


class ExerciseError(AssertionError):
    """A check failed; the message explains the mistake."""


def _passed(name: str, count: int) -> None:
    print(f"{name}: all {count} checks passed.")


def check_td_target(td_target: Callable) -> None:
    """Check ``td_target(rewards, next_q, terminated, gamma) -> targets`` (chapter 10).

    ``next_q`` holds the target network's Q-values of the next observation for every action, shape
    ``(B, n_actions)``; the answer is ``r + gamma * (1 - terminated) * max_a next_q`` of shape ``(B,)``.
    """
    rng = np.random.default_rng(0)
    rewards = rng.normal(size=5).astype(np.float32)
    next_q = rng.normal(size=(5, 3)).astype(np.float32)
    terminated = np.array([0, 0, 1, 0, 1], dtype=np.float32)
    gamma = 0.9
    expected = rewards + gamma * (1 - terminated) * next_q.max(axis=1)

    result = td_target(rewards, next_q, terminated, gamma)
    if result is None:
        raise ExerciseError("td_target returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape == (5, 5):
        raise ExerciseError(
            "your targets have shape (5, 5): a (B,) array met a (B, 1) one and broadcast to (B, B) without "
            "any error (claim C08). Take the max over actions without keepdims, so it has shape (B,)."
        )
    if result.shape == (5, 1):
        raise ExerciseError("your targets have shape (5, 1); DQN expects (5,): squeeze the action axis.")
    if result.shape != (5,):
        raise ExerciseError(f"your targets have shape {result.shape}; expected one target per sample, (5,).")
    done = terminated == 1
    if not np.allclose(result[done], rewards[done], atol=1e-6):
        raise ExerciseError(
            "at a terminal transition the target must be the reward alone: multiply the bootstrap term by "
            "(1 - terminated). (A truncated transition, by contrast, keeps its bootstrap.)"
        )
    if np.allclose(result, rewards + (1 - terminated) * next_q.max(axis=1), atol=1e-6):
        raise ExerciseError("the bootstrap term is not discounted: multiply it by gamma.")
    for wrong, reduction in (
        (next_q.mean(axis=1), "mean"),
        (next_q.min(axis=1), "min"),
        (next_q[:, 0], "first"),
    ):
        if np.allclose(result, rewards + gamma * (1 - terminated) * wrong, atol=1e-6):
            raise ExerciseError(
                f"you used the {reduction} of the next Q-values; the target uses the best next action: max over axis 1."
            )
    if not np.allclose(result, expected, atol=1e-5):
        raise ExerciseError(
            f"targets differ from r + gamma * (1 - terminated) * max_a Q(s', a): got {result}, expected {expected}."
        )
    if td_target(rewards[:1], next_q[:1], terminated[:1], gamma).shape != (1,):
        raise ExerciseError(
            "with a batch of one, the result must still have shape (1,): avoid .squeeze() without an axis."
        )
    _passed("check_td_target", 6)


def check_bootstrap_mask(bootstrap_mask: Callable) -> None:
    """Check ``bootstrap_mask(terminated, truncated) -> float32 mask`` (chapter 01)."""
    terminated = np.array([False, True, False, True])
    truncated = np.array([False, False, True, True])
    result = bootstrap_mask(terminated, truncated)
    if result is None:
        raise ExerciseError("bootstrap_mask returned None: did you forget the `return`?")
    result = np.asarray(result)
    if result.shape != (4,):
        raise ExerciseError(f"expected one factor per transition, shape (4,); got {result.shape}.")
    if result.dtype != np.float32:
        raise ExerciseError(f"return float32 (the dtype of the rewards it multiplies), got {result.dtype}.")
    if result[2] == 0:
        raise ExerciseError(
            "transition 2 was truncated, not terminated: its last state still has a future, so it must keep "
            "bootstrapping (factor 1). Only `terminated` stops bootstrapping (claim C10)."
        )
    if not np.array_equal(result, [1, 0, 1, 0]):
        raise ExerciseError(f"expected [1, 0, 1, 0] (0 exactly where terminated), got {result.tolist()}.")
    _passed("check_bootstrap_mask", 4)


def check_clipped_surrogate(clipped_surrogate: Callable) -> None:
    """Check ``clipped_surrogate(ratio, advantages, clip) -> float`` (chapter 22): PPO's objective to maximise,
    ``mean(min(ratio * A, clip(ratio, 1 - clip, 1 + clip) * A))``."""
    ratio = np.array([0.5, 0.9, 1.0, 1.3, 0.7, 1.5], dtype=np.float32)
    advantages = np.array([1.0, 1.0, 2.0, 1.0, -1.0, -1.0], dtype=np.float32)
    clip = 0.2
    expected = float(np.mean(np.minimum(ratio * advantages, np.clip(ratio, 1 - clip, 1 + clip) * advantages)))
    result = clipped_surrogate(ratio, advantages, clip)
    if result is None:
        raise ExerciseError("clipped_surrogate returned None: did you forget the `return`?")
    if np.ndim(result) != 0:
        raise ExerciseError(f"return one number (the mean over the batch), got shape {np.shape(result)}.")
    result = float(result)
    if np.isclose(result, -expected, atol=1e-6):
        raise ExerciseError("the sign is flipped: return the objective to maximise; the loss is its negative.")
    if np.isclose(result, float(np.mean(np.clip(ratio, 1 - clip, 1 + clip) * advantages)), atol=1e-6):
        raise ExerciseError(
            "you return the clipped term alone: PPO takes the minimum of the clipped and the unclipped term, so "
            "a ratio that moved the *wrong* way (here 1.5 with A < 0) is not clipped and keeps its gradient."
        )
    optimistic = np.maximum(ratio * advantages, np.clip(ratio, 1 - clip, 1 + clip) * advantages)
    if np.isclose(result, float(np.mean(optimistic)), atol=1e-6):
        raise ExerciseError("use the minimum of the two terms (a pessimistic bound), not the maximum.")
    if not np.isclose(result, expected, atol=1e-5):
        raise ExerciseError(f"expected {expected:.4f}, got {result:.4f}: check the clip bounds 1 - clip and 1 + clip.")
    _passed("check_clipped_surrogate", 4)


def check_a2c_policy_loss(policy_loss: Callable) -> None:
    """Check ``policy_loss(log_probs, advantages) -> float`` (chapter 21): ``-mean(log_probs * advantages)``."""
    rng = np.random.default_rng(1)
    log_probs = np.log(rng.uniform(0.1, 0.9, size=(8, 4))).astype(np.float32)  # 8 steps x 4 environments
    advantages = rng.normal(size=(8, 4)).astype(np.float32)
    expected = float(-(log_probs * advantages).mean())
    result = policy_loss(log_probs, advantages)
    if result is None:
        raise ExerciseError("policy_loss returned None: did you forget the `return`?")
    if np.ndim(result) != 0:
        raise ExerciseError(f"return one number, got shape {np.shape(result)}: reduce over steps and environments.")
    result = float(result)
    if np.isclose(result, -expected, atol=1e-5):
        raise ExerciseError("the sign is flipped: gradient *descent* on the loss must *increase* log pi(a|s) A.")
    if np.isclose(result, expected * log_probs.size, rtol=1e-4):
        raise ExerciseError(
            f"you summed over all {log_probs.size} samples: the gradient then grows with the number of environments "
            "and steps (claim C18). Average instead."
        )
    if np.isclose(result, expected * log_probs.shape[1], rtol=1e-4) or np.isclose(result, expected * 8, rtol=1e-4):
        raise ExerciseError("you summed over one axis and averaged over the other: average over both.")
    if not np.isclose(result, expected, rtol=1e-4):
        raise ExerciseError(f"expected {expected:.4f}, got {result:.4f}.")
    _passed("check_a2c_policy_loss", 4)


def check_reward_to_go(reward_to_go: Callable) -> None:
    """Check ``reward_to_go(rewards, gamma) -> array`` (chapter 20): ``G_t = sum_k gamma^(k-t) r_k`` for k >= t."""
    rewards = np.array([1.0, 0.0, 2.0, 3.0])
    gamma = 0.5
    expected = np.array([1 + 0.5 * 0 + 0.25 * 2 + 0.125 * 3, 0 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3.0])
    result = reward_to_go(rewards, gamma)
    if result is None:
        raise ExerciseError("reward_to_go returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape != rewards.shape:
        raise ExerciseError(f"return one value per step, shape {rewards.shape}; got {result.shape}.")
    if np.allclose(result, np.full(4, expected[0])):
        raise ExerciseError("every step got the whole episode's return: step t should only count rewards from t on.")
    if np.allclose(result, np.cumsum(rewards)):
        raise ExerciseError("you summed the rewards *before* each step: the reward-to-go sums those from t onwards.")
    if np.allclose(result, np.cumsum(rewards[::-1])[::-1]):
        raise ExerciseError("the rewards are not discounted: multiply the reward k - t steps ahead by gamma^(k - t).")
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {expected.tolist()}, got {result.tolist()}.")
    _passed("check_reward_to_go", 4)


def check_gaussian_log_prob(gaussian_log_prob: Callable) -> None:
    """Check ``gaussian_log_prob(actions, mean, log_std) -> (B,)`` (chapter 23): the diagonal Gaussian's
    log-density, summed over action dimensions."""
    rng = np.random.default_rng(2)
    actions = rng.normal(size=(6, 3))
    mean = rng.normal(size=(6, 3))
    log_std = np.array([-0.5, 0.0, 0.3])
    per_dim = -0.5 * ((actions - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)
    expected = per_dim.sum(axis=1)
    result = gaussian_log_prob(actions, mean, log_std)
    if result is None:
        raise ExerciseError("gaussian_log_prob returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape == (6, 3):
        raise ExerciseError(
            "you return one value per action dimension: a diagonal Gaussian's log-density is their sum."
        )
    if result.shape != (6,):
        raise ExerciseError(f"return one log-probability per sample, shape (6,); got {result.shape}.")
    if np.allclose(result, (per_dim + log_std).sum(axis=1)):
        raise ExerciseError("the -log(sigma) term is missing: the density is divided by sigma in every dimension.")
    if np.allclose(result, (-0.5 * ((actions - mean) / np.exp(log_std)) ** 2 - log_std).sum(axis=1)):
        raise ExerciseError(
            "the constant -0.5 * log(2 pi) per dimension is missing (PPO's ratio would not mind; a "
            "reported log-probability or entropy would)."
        )
    if np.allclose(result, (-0.5 * (actions - mean) ** 2 - 0.5 * np.log(2 * np.pi)).sum(axis=1) - log_std.sum()):
        raise ExerciseError("divide the deviation by sigma = exp(log_std) before squaring.")
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {np.round(expected, 3).tolist()}, got {np.round(result, 3).tolist()}.")
    _passed("check_gaussian_log_prob", 5)


def _answer(name: str, result, shape: tuple[int, ...]) -> np.ndarray:
    """The student's result as a float64 array of ``shape``, or an error that says what came back instead."""
    if result is None:
        raise ExerciseError(f"{name} returned None: did you forget the `return`?")
    result = np.asarray(result, dtype=np.float64)
    if result.shape != shape:
        raise ExerciseError(f"{name} should return shape {shape}, got {result.shape}.")
    return result


def check_polyak_update(polyak_update: Callable) -> None:
    """Check ``polyak_update(target, online, tau) -> new_target`` (chapter 30): target + tau (online - target)."""
    rng = np.random.default_rng(3)
    target, online, tau = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), 0.05
    kept = target.copy()
    result = _answer("polyak_update", polyak_update(target, online, tau), (4, 3))
    if np.allclose(result, online + tau * (target - online)):
        raise ExerciseError(
            "tau weighs the wrong network: the *target* keeps 1 - tau of itself and takes tau of online."
        )
    if np.allclose(result, online):
        raise ExerciseError("that is a hard copy of the online network; a Polyak update moves only a fraction tau.")
    if not np.allclose(result, kept + tau * (online - kept)):
        raise ExerciseError("expected (1 - tau) * target + tau * online.")
    full_step = polyak_update(np.zeros(2), np.ones(2), 1.0)
    if full_step is None or not np.allclose(full_step, 1.0):
        raise ExerciseError("with tau = 1 a Polyak update must equal a hard copy of the online weights.")
    _passed("check_polyak_update", 4)


def check_smoothed_target_action(smoothed_target_action: Callable) -> None:
    """Check ``smoothed_target_action(target_action, noise, sigma, noise_clip) -> action`` (chapter 31).

    TD3's target policy smoothing: ``clip(target_action + clip(sigma * noise, -noise_clip, noise_clip), -1, 1)``
    with ``noise`` standard normal.
    """
    target_action = np.array([[0.0], [0.95], [-0.5], [0.2]])
    noise = np.array([[0.5], [1.0], [-4.0], [3.0]])
    sigma, noise_clip = 0.2, 0.5
    expected = np.clip(target_action + np.clip(sigma * noise, -noise_clip, noise_clip), -1, 1)
    result = _answer("smoothed_target_action", smoothed_target_action(target_action, noise, sigma, noise_clip), (4, 1))
    if np.allclose(result, np.clip(target_action + sigma * noise, -1, 1)):
        raise ExerciseError("clip the noise itself to [-noise_clip, noise_clip] before adding it: rows 3 and 4.")
    if np.allclose(result, target_action + np.clip(sigma * noise, -noise_clip, noise_clip)):
        raise ExerciseError("the smoothed action must stay a valid action: clip it to [-1, 1] (row 2).")
    if np.allclose(result, np.clip(target_action + np.clip(noise, -noise_clip, noise_clip), -1, 1)):
        raise ExerciseError("scale the standard-normal noise by sigma before clipping it.")
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {expected.ravel().tolist()}, got {np.round(result, 3).ravel().tolist()}.")
    _passed("check_smoothed_target_action", 4)


def check_squashed_log_prob(squashed_log_prob: Callable) -> None:
    """Check ``squashed_log_prob(pre_tanh, mean, log_std) -> (B,)`` (chapter 32): log pi of a = tanh(u).

    The Gaussian log-density of ``u`` summed over dimensions, minus ``sum log(1 - tanh(u)^2)``.
    """
    rng = np.random.default_rng(4)
    mean, log_std = rng.normal(size=(5, 2)), rng.normal(size=(5, 2)) * 0.3
    pre_tanh = mean + np.exp(log_std) * rng.normal(size=(5, 2))
    pre_tanh[4] = [6.0, -7.0]  # saturated: 1 - tanh(u)^2 is ~1e-5 and ~3e-6
    gaussian = (-0.5 * ((pre_tanh - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)).sum(axis=1)
    correction = np.log(1 - np.tanh(pre_tanh) ** 2).sum(axis=1)
    result = _answer("squashed_log_prob", squashed_log_prob(pre_tanh, mean, log_std), (5,))
    if np.allclose(result, gaussian):
        raise ExerciseError(
            "that is the Gaussian's log-density of u; a = tanh(u) squeezes it, so subtract sum log(1 - tanh(u)^2)."
        )
    if np.allclose(result, gaussian + correction):
        raise ExerciseError("the correction has the wrong sign: log pi(a) = log N(u) - sum log(1 - tanh(u)^2).")
    if not np.isfinite(result).all():
        raise ExerciseError(
            "a saturated tanh (row 5) gives log(0): use log(1 - tanh(u)^2) = 2 (log 2 - u - softplus(-2u))."
        )
    if not np.allclose(result, gaussian - correction, rtol=1e-4, atol=1e-3):
        raise ExerciseError(
            f"expected {np.round(gaussian - correction, 3).tolist()}, got {np.round(result, 3).tolist()}."
        )
    _passed("check_squashed_log_prob", 4)


def check_first_crossing(first_crossing: Callable) -> None:
    """Check ``first_crossing(steps, returns, threshold) -> step or None`` (chapter 33): the first step whose
    evaluation return reached the threshold."""
    steps = np.array([1_000, 2_000, 3_000, 4_000, 5_000])
    cases = [
        (np.array([-900.0, -400.0, -199.0, -250.0, -150.0]), -200.0, 3_000),
        (np.array([-900.0, -400.0, -200.0, -150.0, -140.0]), -200.0, 3_000),
        (np.array([-900.0, -800.0, -700.0, -600.0, -500.0]), -200.0, None),
        (np.array([-100.0, -400.0, -300.0, -250.0, -150.0]), -200.0, 1_000),
    ]
    for returns, threshold, expected in cases:
        result = first_crossing(steps, returns, threshold)
        if expected is None and result is not None:
            raise ExerciseError(f"no evaluation reached {threshold}, so return None (got {result}).")
        if expected is not None and result is None:
            raise ExerciseError(f"returns {returns.tolist()} reach {threshold} at step {expected}; you returned None.")
        if expected is not None and int(result) != expected:
            strictly_above = next((int(s) for s, r in zip(steps, returns, strict=True) if r > threshold), None)
            hint = " (>= counts: reaching the threshold exactly is solving it)" if result == strictly_above else ""
            raise ExerciseError(f"returns {returns.tolist()}: expected step {expected}, got {result}{hint}.")
    _passed("check_first_crossing", len(cases))


def check_categorical_projection(project: Callable) -> None:
    """Check ``project(probs, rewards, discounts, support) -> (B, N)`` (chapter 14): C51's projection of
    r + discount * Z back onto the support, with ``discounts`` 0 at terminal transitions."""
    from rlkit.distributional import categorical_support, project_distribution_loop, softmax

    rng = np.random.default_rng(5)
    support = categorical_support(-10.0, 10.0, 11)  # atoms 2 apart
    probs = softmax(rng.normal(size=(5, 11)))
    rewards = np.array([1.0, 2.0, 30.0, -3.0, 0.5])  # row 2 lands on atoms; row 3 beyond v_max
    discounts = np.array([0.9, 1.0, 0.9, 0.0, 0.5])  # row 4 terminal: all mass at r = -3
    expected = project_distribution_loop(probs, rewards, discounts, support)
    result = _answer("project", project(probs, rewards, discounts, support), (5, 11))
    if not np.allclose(result.sum(axis=1), 1.0, atol=1e-5):
        raise ExerciseError(
            f"each row must sum to 1, got {np.round(result.sum(axis=1), 4).tolist()}: mass is lost (clip the "
            "shifted atoms to [v_min, v_max]? an atom landing exactly on a grid point keeps all its mass?)."
        )
    if not np.allclose(result[3], expected[3], atol=1e-5):
        raise ExerciseError("at a terminal transition (discount 0) all mass belongs at r = -3 (row 4).")
    if not np.allclose(result, expected, atol=1e-5):
        wrong = np.flatnonzero(~np.isclose(result, expected, atol=1e-5).all(axis=1)) + 1
        raise ExerciseError(f"row(s) {wrong.tolist()} differ from the paper's projection.")
    _passed("check_categorical_projection", 5)


def check_priority_weights(priority_weights: Callable) -> None:
    """Check ``priority_weights(priorities, indices, alpha, beta) -> (probabilities, weights)`` (chapter 13).

    Prioritized replay samples transition i with P(i) = p_i^alpha / sum_k p_k^alpha (``probabilities``: all N
    transitions) and weights the loss of each sampled transition j by w_j = (N P(j))^-beta, divided by the
    largest weight *in the sampled batch* (``weights``: one per entry of ``indices``), as rlkit's
    :class:`~rlkit.buffers.PrioritizedReplayBuffer` does. N cancels in that ratio, so using the batch size
    instead gives the same answer.
    """
    priorities, alpha, beta = np.array([0.1, 1.0, 4.0, 0.5, 2.0, 0.8]), 0.6, 0.4
    indices = np.array([2, 4, 1, 4, 3])  # a batch with a repeat, without the least likely transition (0)
    scaled = priorities**alpha
    probabilities = scaled / scaled.sum()
    raw = (len(priorities) * probabilities) ** -beta
    result = priority_weights(priorities, indices, alpha, beta)
    if not isinstance(result, tuple) or len(result) != 2:
        raise ExerciseError("return a pair: (probabilities, weights).")
    if np.shape(result[1]) == priorities.shape:
        raise ExerciseError("return one weight per sampled index (shape (5,)), not one per stored transition.")
    probs, got = _answer("probabilities", result[0], (6,)), _answer("weights", result[1], (5,))
    if np.allclose(probs, priorities / priorities.sum()):
        raise ExerciseError("raise the priorities to the power alpha before normalising them.")
    if not np.allclose(probs, probabilities):
        raise ExerciseError(f"probabilities should be {np.round(probabilities, 4).tolist()}.")
    if np.allclose(got, raw[indices]):
        raise ExerciseError("divide the weights by the largest weight in the batch, so the largest is 1.")
    if np.allclose(got, raw[indices] / raw.max()):
        raise ExerciseError(
            "that divides by the largest weight over the whole buffer (OpenAI baselines' choice); here, as in "
            "rlkit, divide by the largest weight among the sampled indices."
        )
    inverse = (len(priorities) * probabilities[indices]) ** beta
    if np.allclose(got, inverse / inverse.max()):
        raise ExerciseError("the exponent is -beta: rarely sampled transitions get the *larger* weights.")
    if not np.allclose(got, raw[indices] / raw[indices].max()):
        raise ExerciseError(f"weights should be {np.round(raw[indices] / raw[indices].max(), 4).tolist()}.")
    _passed("check_priority_weights", 6)


def check_double_target(double_target: Callable) -> None:
    """Check ``double_target(rewards, next_q_online, next_q_target, terminated, gamma) -> (B,)`` (chapter 12).

    Double DQN: the online network picks a' = argmax_a Q_online(s', a), the target network values it:
    r + gamma (1 - terminated) Q_target(s', a').
    """
    rng = np.random.default_rng(6)
    rewards, terminated, gamma = rng.normal(size=5), np.array([0.0, 0.0, 1.0, 0.0, 0.0]), 0.9
    next_q_online, next_q_target = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    rows, picked = np.arange(5), next_q_online.argmax(axis=1)
    expected = rewards + gamma * (1 - terminated) * next_q_target[rows, picked]
    result = _answer("double_target", double_target(rewards, next_q_online, next_q_target, terminated, gamma), (5,))
    if np.allclose(result, rewards + gamma * (1 - terminated) * next_q_target.max(axis=1)):
        raise ExerciseError("that is the vanilla target: let the *online* network choose the action.")
    if np.allclose(result, rewards + gamma * (1 - terminated) * next_q_online[rows, picked]):
        raise ExerciseError("the online network chooses a', but the *target* network values it.")
    if np.allclose(result, rewards + gamma * next_q_target[rows, picked]):
        raise ExerciseError("no bootstrap at a terminal transition: multiply by (1 - terminated) (row 3).")
    if not np.allclose(result, expected):
        raise ExerciseError(f"expected {np.round(expected, 4).tolist()}, got {np.round(result, 4).tolist()}.")
    _passed("check_double_target", 4)


def check_soft_update(soft_update: Callable) -> None:
    """Check ``soft_update(target_weights, online_weights, tau) -> None`` (chapter 11).

    Both arguments are lists of numpy arrays; the function must move every target array ``tau`` of the way
    towards its online array *in place* (the caller keeps its list and sees no return value).
    """
    rng = np.random.default_rng(7)
    online = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    initial = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    target = [array.copy() for array in initial]
    tau = 0.1
    returned = soft_update(target, online, tau)
    if all(np.array_equal(t, i) for t, i in zip(target, initial, strict=True)):
        hint = " It returned new arrays instead, which the caller never looks at." if returned is not None else ""
        raise ExerciseError(
            f"the target arrays did not change.{hint} A name rebound to `tau * online + (1 - tau) * target` "
            "never reaches the caller's arrays (claim C05). Write into them: `target[...] = ...` or "
            "`target += tau * (online - target)`."
        )
    expected = [(1 - tau) * i + tau * o for i, o in zip(initial, online, strict=True)]
    swapped = [tau * i + (1 - tau) * o for i, o in zip(initial, online, strict=True)]
    if all(np.allclose(t, s) for t, s in zip(target, swapped, strict=True)):
        raise ExerciseError("tau and 1 - tau are swapped: the target keeps 1 - tau of itself and takes tau of online.")
    if not np.allclose(target[0], expected[0]):
        raise ExerciseError(
            f"first array: expected {np.round(expected[0], 4).tolist()}, got {np.round(target[0], 4).tolist()}."
        )
    if not np.allclose(target[1], expected[1]):
        raise ExerciseError("the first array is right but the second is not: update every array in the list.")
    _passed("check_soft_update", 4)


def check_action_entropy(entropy_of_greedy_actions: Callable) -> None:
    """Check ``entropy_of_greedy_actions(q_values) -> float`` (chapter 15): the entropy in nats of how often
    each action is the argmax over a batch of Q-values of shape (batch, n_actions)."""
    from rlkit.health import action_entropy

    rng = np.random.default_rng(8)
    cases = {
        "one action always wins": np.tile([[0.0, 5.0, 1.0]], (8, 1)),
        "two actions, half each": np.array([[1.0, 0.0, -1.0]] * 4 + [[0.0, 1.0, -1.0]] * 4),
        "random Q-values": rng.normal(size=(64, 3)),
    }
    for name, q_values in cases.items():
        result = float(entropy_of_greedy_actions(q_values.copy()))
        expected = action_entropy(q_values)
        if np.isnan(result):
            raise ExerciseError(
                f"{name}: got nan. An action that is never chosen has frequency 0 and adds 0 "
                "to the entropy: leave it out of the sum rather than computing 0 * log(0)."
            )
        if name == "two actions, half each" and np.isclose(result, 1.0):
            raise ExerciseError(
                "you measured bits (log2); use the natural log, so two equally likely actions give ln 2."
            )
        softmax_entropy = np.mean([_softmax_entropy(q) for q in q_values])
        if not np.isclose(expected, softmax_entropy) and np.isclose(result, softmax_entropy):
            raise ExerciseError(
                "that is the entropy of a softmax over Q-values; count how often each action is the argmax."
            )
        if not np.isclose(result, expected, atol=1e-6):
            raise ExerciseError(f"{name}: expected {expected + 0.0:.4f} nats, got {result:.4f}.")
    _passed("check_action_entropy", len(cases))


def _softmax_entropy(q: np.ndarray) -> float:
    p = np.exp(q - q.max())
    p /= p.sum()
    return float(-(p * np.log(p)).sum())


def check_to_env_units(to_env_units: Callable) -> None:
    """Check ``to_env_units(squashed, low, high) -> actions`` (chapter 42): the rescaling an exported
    DDPG/TD3/SAC policy must contain, from the actor's tanh output in [-1, 1] to the bounds [low, high]."""
    rng = np.random.default_rng(0)
    cases = {
        "Pendulum's symmetric bounds": (np.array([-2.0]), np.array([2.0])),
        "asymmetric bounds per dimension": (np.array([0.0, -1.0]), np.array([1.0, 3.0])),
    }
    for name, (low, high) in cases.items():
        squashed = np.concatenate([-np.ones((1, len(low))), np.ones((1, len(low))), rng.uniform(-1, 1, (6, len(low)))])
        result = to_env_units(squashed.astype(np.float32), low.astype(np.float32), high.astype(np.float32))
        if result is None:
            raise ExerciseError("to_env_units returned None: did you forget the `return`?")
        result = np.asarray(result, dtype=np.float64)
        if result.shape != squashed.shape:
            raise ExerciseError(f"{name}: expected one action per row, shape {squashed.shape}, got {result.shape}.")
        if np.allclose(result, np.clip(squashed, low, high)) and not np.allclose(low, -1):
            raise ExerciseError(
                f"{name}: clipping keeps the actor's units; -1 and +1 must become low and high. Rescale instead."
            )
        if not (np.allclose(result[0], low, atol=1e-6) and np.allclose(result[1], high, atol=1e-6)):
            hint = " Multiplying by high is right only for bounds symmetric about 0." if np.any(low != -high) else ""
            raise ExerciseError(
                f"{name}: -1 must map to low {low.tolist()} and +1 to high {high.tolist()}; got {result[0].tolist()} "
                f"and {result[1].tolist()}.{hint} Try low + (squashed + 1) * (high - low) / 2."
            )
        expected = low + (squashed + 1.0) * 0.5 * (high - low)
        if not np.allclose(result, expected, atol=1e-5):
            raise ExerciseError(f"{name}: the endpoints are right but the map is not linear in between.")
    _passed("check_to_env_units", len(cases))


def check_headless_frame(first_frame: Callable) -> None:
    """Check ``first_frame(env_id, seed) -> frame`` (chapter 43): the first frame of an episode reset with
    ``seed``, rendered as pixels on a machine without a display."""
    import gymnasium as gym

    cases = [("CartPole-v1", 0), ("CartPole-v1", 1), ("Pendulum-v1", 0)]
    for env_id, seed in cases:
        frame = first_frame(env_id, seed)
        if frame is None:
            raise ExerciseError(
                f"{env_id}: render() returned None. With render_mode='human' (or none) an environment draws to a "
                "window and returns nothing; make it with render_mode='rgb_array' to get the pixels."
            )
        frame = np.asarray(frame)
        if frame.ndim != 3 or frame.shape[-1] != 3 or frame.dtype != np.uint8:
            raise ExerciseError(
                f"{env_id}: expected an (height, width, 3) uint8 image, got {frame.shape} {frame.dtype}."
            )
        env = gym.make(env_id, render_mode="rgb_array")
        env.reset(seed=seed)
        expected = env.render()
        env.close()
        if not np.array_equal(frame, expected):
            raise ExerciseError(
                f"{env_id}, seed {seed}: not the first frame of the episode reset with that seed. "
                "Call env.reset(seed=seed) before env.render()."
            )
    _passed("check_headless_frame", len(cases))
