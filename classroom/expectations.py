"""The answer key of the student-facing checks: ``python -m classroom.expectations`` writes
``course/exercises/expected.json``.

A check in ``course.exercises`` compares a student's result on its fixed inputs with stored numbers: the right
answer, and the results of the usual mistakes (so it can say *which* mistake it sees). The formulas that give
those numbers live here, outside the package students install, so that reading a check's source shows its
inputs, its messages and numbers, not the code of the answer. ``tests/course/test_exercises.py`` recomputes the file
and requires it unchanged.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from course.exercises import continuous, engineering, policy_gradient, value_based

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "course" / "exercises" / "expected.json"


def td_target() -> dict:
    rewards, next_q, terminated, gamma = value_based.td_target_inputs()

    def target(next_value, discount=gamma):
        return rewards + discount * (1 - terminated) * next_value

    return {
        "answer": target(next_q.max(axis=1)),
        "undiscounted": target(next_q.max(axis=1), 1.0),
        "mean": target(next_q.mean(axis=1)),
        "min": target(next_q.min(axis=1)),
        "first": target(next_q[:, 0]),
    }


def soft_update() -> dict:
    target, online, tau = value_based.soft_update_inputs()
    values = {}
    for index, (t, o) in enumerate(zip(target, online, strict=True)):
        values[f"answer {index}"] = (1 - tau) * t + tau * o
        values[f"swapped {index}"] = tau * t + (1 - tau) * o
    return values


def double_target() -> dict:
    rewards, next_q_online, next_q_target, terminated, gamma = value_based.double_target_inputs()
    rows, picked = np.arange(len(rewards)), next_q_online.argmax(axis=1)
    return {
        "answer": rewards + gamma * (1 - terminated) * next_q_target[rows, picked],
        "vanilla": rewards + gamma * (1 - terminated) * next_q_target.max(axis=1),
        "online values": rewards + gamma * (1 - terminated) * next_q_online[rows, picked],
        "no terminal": rewards + gamma * next_q_target[rows, picked],
    }


def priority_weights() -> dict:
    priorities, indices, alpha, beta = value_based.priority_weights_inputs()
    probabilities = priorities**alpha / (priorities**alpha).sum()
    raw = (len(priorities) * probabilities) ** -beta
    inverse = (len(priorities) * probabilities[indices]) ** beta
    return {
        "probabilities": probabilities,
        "no alpha": priorities / priorities.sum(),
        "weights": raw[indices] / raw[indices].max(),
        "unnormalised weights": raw[indices],
        "buffer-normalised weights": raw[indices] / raw.max(),
        "inverse weights": inverse / inverse.max(),
    }


def project() -> dict:
    from rlkit.distributional import project_distribution_loop

    return {"answer": project_distribution_loop(*value_based.project_inputs())}


def entropy_of_greedy_actions() -> dict:
    values = {}
    for name, q_values in value_based.entropy_inputs().items():
        counts = np.bincount(q_values.argmax(axis=1), minlength=q_values.shape[1])
        frequencies = counts[counts > 0] / len(q_values)
        softmax = np.exp(q_values - q_values.max(axis=1, keepdims=True))
        softmax /= softmax.sum(axis=1, keepdims=True)
        values[f"answer: {name}"] = float(-(frequencies * np.log(frequencies)).sum())
        values[f"softmax: {name}"] = float(np.mean(-(softmax * np.log(softmax)).sum(axis=1)))
    return values


def clipped_surrogate() -> dict:
    ratio, advantages, clip = policy_gradient.clipped_surrogate_inputs()
    unclipped, clipped = ratio * advantages, np.clip(ratio, 1 - clip, 1 + clip) * advantages
    return {
        "answer": float(np.mean(np.minimum(unclipped, clipped))),
        "clipped only": float(np.mean(clipped)),
        "maximum": float(np.mean(np.maximum(unclipped, clipped))),
    }


def policy_loss() -> dict:
    log_probs, advantages = policy_gradient.policy_loss_inputs()
    return {"answer": float(-(log_probs * advantages).mean())}


def reward_to_go() -> dict:
    rewards, gamma = policy_gradient.reward_to_go_inputs()
    discounts = gamma ** np.arange(len(rewards))
    return {
        "answer": np.array([(rewards[t:] * discounts[: len(rewards) - t]).sum() for t in range(len(rewards))]),
        "undiscounted": np.cumsum(rewards[::-1])[::-1],
    }


def gaussian_log_prob() -> dict:
    actions, mean, log_std = policy_gradient.gaussian_log_prob_inputs()
    squared = ((actions - mean) / np.exp(log_std)) ** 2
    constant = 0.5 * np.log(2 * np.pi)
    return {
        "answer": (-0.5 * squared - log_std - constant).sum(axis=1),
        "no log sigma": (-0.5 * squared - constant).sum(axis=1),
        "no constant": (-0.5 * squared - log_std).sum(axis=1),
        "not divided by sigma": (-0.5 * (actions - mean) ** 2 - log_std - constant).sum(axis=1),
    }


def polyak_update() -> dict:
    target, online, tau = continuous.polyak_update_inputs()
    return {"answer": target + tau * (online - target), "wrong network": online + tau * (target - online)}


def smoothed_target_action() -> dict:
    target_action, noise, sigma, noise_clip = continuous.smoothed_target_action_inputs()
    smoothing = np.clip(sigma * noise, -noise_clip, noise_clip)
    return {
        "answer": np.clip(target_action + smoothing, -1, 1),
        "noise not clipped": np.clip(target_action + sigma * noise, -1, 1),
        "action not clipped": target_action + smoothing,
        "noise not scaled": np.clip(target_action + np.clip(noise, -noise_clip, noise_clip), -1, 1),
    }


def squashed_log_prob() -> dict:
    pre_tanh, mean, log_std = continuous.squashed_log_prob_inputs()
    gaussian = (-0.5 * ((pre_tanh - mean) / np.exp(log_std)) ** 2 - log_std - 0.5 * np.log(2 * np.pi)).sum(axis=1)
    log_det = (2 * (np.log(2) - pre_tanh - np.logaddexp(0, -2 * pre_tanh))).sum(axis=1)
    return {"answer": gaussian - log_det, "gaussian": gaussian, "wrong sign": gaussian + log_det}


def to_env_units() -> dict:
    values = {}
    for case, (squashed, low, high) in engineering.to_env_units_inputs().items():
        squashed, low, high = (np.asarray(part, dtype=np.float64) for part in (squashed, low, high))
        answer = low + (squashed + 1) * (high - low) / 2
        mistakes = {
            "clipped": np.clip(squashed, low, high),
            "times high": squashed * high,
            "no offset": squashed * (high - low) / 2,
            "reversed": high + (squashed + 1) * (low - high) / 2,
        }
        values[f"answer: {case}"] = answer
        # a mistake that is right on these bounds is no mistake here: the check must accept it
        values.update({f"{name}: {case}": v for name, v in mistakes.items() if not np.allclose(v, answer)})
    return values


def headless_frame() -> dict:
    import gymnasium as gym

    values = {}
    for env_id, seed in engineering.headless_frame_inputs():
        env = gym.make(env_id, render_mode="rgb_array")
        env.reset(seed=seed)
        values[f"{env_id} {seed}"] = engineering.frame_digest(env.render())
        env.close()
    return values


ANSWER_KEY = {
    function.__name__: function
    for function in (
        td_target,
        soft_update,
        double_target,
        priority_weights,
        project,
        entropy_of_greedy_actions,
        clipped_surrogate,
        policy_loss,
        reward_to_go,
        gaussian_log_prob,
        polyak_update,
        smoothed_target_action,
        squashed_log_prob,
        to_env_units,
        headless_frame,
    )
}


def answer_key() -> dict[str, dict[str, float | list]]:
    """Every check's stored numbers, as JSON-ready values (floats rounded to 12 significant digits; digests
    of frames as they are)."""

    def stored(value):
        if isinstance(value, str):
            return value
        return float(f"{value:.12g}") if np.ndim(value) == 0 else [stored(item) for item in np.asarray(value)]

    return {name: {key: stored(value) for key, value in make().items()} for name, make in ANSWER_KEY.items()}


def main() -> int:
    STORED.write_text(json.dumps(answer_key(), indent=1) + "\n")
    print(f"wrote {STORED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
